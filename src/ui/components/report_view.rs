//! The parts of a report every view shows — the owner's run page and a share link alike: stat cards, honesty
//! notes, the per-iteration table, and scatter points from stored iterations.

use leptos::prelude::*;

use crate::charts::ScatterPoint;
use crate::model::{IterationRecord, TokenSource};
use crate::report::{ms, stat_cards, ReportStats};
use crate::stats::RunSummary;

/// A stored iteration as a scatter point.
pub fn scatter_point(r: &IterationRecord) -> ScatterPoint {
    ScatterPoint { seq: r.seq, ttft_ms: r.ttft_ms, total_ms: r.total_ms, error: r.error.is_some() }
}

/// The headline figures, each saying how it was computed.
#[component]
pub fn StatCards(stats: ReportStats, summary: RunSummary) -> impl IntoView {
    view! {
        <section class="stat-cards" id="stats">
            {stat_cards(&stats, &summary).into_iter().map(|card| view! {
                <div class="stat-card" id=format!("stat-{}", card.id)>
                    <div class="stat-label">{card.label}</div>
                    <div class="stat-value">{card.value}</div>
                    <div class="stat-how">{card.how}</div>
                </div>
            }).collect_view()}
        </section>
    }
}

/// How the figures were made, shown prominently.
#[component]
pub fn HonestyNotes(notes: Vec<String>) -> impl IntoView {
    view! {
        <section class="honesty" id="honesty">
            <h3>"How these numbers were made"</h3>
            <ul>{notes.into_iter().map(|n| view! { <li>{n}</li> }).collect_view()}</ul>
        </section>
    }
}

/// Rows shown on the page; the export (and the report API) carries every one.
const TABLE_ROWS: usize = 500;

/// The per-iteration table.
#[component]
pub fn ResultsTable(results: Vec<IterationRecord>) -> impl IntoView {
    let total = results.len();
    let cell = |v: Option<f64>| v.map_or_else(|| "—".to_string(), ms);
    view! {
        <section>
            <h3>"Iterations"</h3>
            {(total > TABLE_ROWS).then(|| view! { <p class="muted">{format!("Showing the first {TABLE_ROWS} of {total}.")}</p> })}
            <table class="table" id="results">
                <thead><tr><th>"#"</th><th>"Prompt"</th><th>"Iter."</th><th>"TTFT"</th><th>"Total"</th><th>"Tokens in / out"</th><th>"Cost (USD)"</th><th>"Error"</th></tr></thead>
                <tbody>
                    {results.into_iter().take(TABLE_ROWS).map(|r| {
                        let estimated = if r.token_source == TokenSource::Estimated { " (est.)" } else { "" };
                        view! {
                            <tr class:warmup=r.warmup class:failed=r.error.is_some()>
                                <td>{r.seq}{r.warmup.then_some(" warm-up")}</td>
                                <td class="prompt">{r.prompt.chars().take(60).collect::<String>()}</td>
                                <td>{r.iteration}</td>
                                <td>{cell(r.ttft_ms)}</td>
                                <td>{ms(r.total_ms)}</td>
                                <td>{format!("{} / {}{estimated}", r.tokens_in.map_or("—".into(), |t| t.to_string()), r.tokens_out.map_or("—".into(), |t| t.to_string()))}</td>
                                <td>{r.cost_usd.map_or("—".into(), |c| format!("{c:.6}"))}</td>
                                <td class="error-cell">{r.error.clone().unwrap_or_default()}</td>
                            </tr>
                        }
                    }).collect_view()}
                </tbody>
            </table>
        </section>
    }
}
