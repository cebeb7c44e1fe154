//! The parts of a report every view shows — the owner's run page and a share link alike: stat cards, honesty
//! notes and distribution charts (the table is `results_table`).

use leptos::prelude::*;

use crate::report::{stat_cards, ReportStats, ServerSection};
use crate::stats::RunSummary;

/// The distribution of a finished report, drawn on the server: a histogram and the cumulative distribution of
/// total time and TTFT over the successful measured iterations.
#[component]
pub fn DistributionCharts(histogram_svg: String, cdf_svg: String) -> impl IntoView {
    view! {
        <div class="chart-pair">
            <figure id="histogram"><figcaption>"How latencies spread"</figcaption><div class="chart-box" inner_html=histogram_svg></div></figure>
            <figure id="cdf"><figcaption>"Share of requests at or below each latency"</figcaption><div class="chart-box" inner_html=cdf_svg></div></figure>
        </div>
    }
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

/// What the server's own metrics said during the run: speculative decoding and the load, with their source.
#[component]
pub fn ServerPanel(section: ServerSection) -> impl IntoView {
    view! {
        <section class="server-section" id="server">
            <h3>"The server, from its own metrics"</h3>
            <ul>{section.notes.into_iter().map(|n| view! { <li>{n}</li> }).collect_view()}</ul>
            <div class="chart-box" id="server-load" inner_html=section.load_svg></div>
        </section>
    }
}

/// The run over time: the chart, and per slice its completions, failures and latency.
#[component]
pub fn TimeSlices(slices: Vec<crate::stats::TimeSlice>, svg: String) -> impl IntoView {
    let ms = |p: Option<crate::stats::Percentiles>, pick: fn(&crate::stats::Percentiles) -> f64| {
        p.as_ref().map_or_else(|| "—".to_string(), |p| format!("{:.1}", pick(p)))
    };
    (!slices.is_empty()).then(|| view! {
        <section class="time-slices" id="time-slices">
            <h3>"Over the run"</h3>
            <p class="muted">"Requests grouped by when they finished, in equal slices: warm-up, throttling or a slow \
                drift inside the run show here. The slices' counts add up to the run's measured requests."</p>
            <div class="chart-box" id="slices-chart" inner_html=svg></div>
            <table class="table" id="slices">
                <thead><tr><th>"Seconds"</th><th>"Done"</th><th>"Failed"</th><th>"Done/s"</th><th>"Output tok/s"</th>
                    <th>"Total p50 / p95 (ms)"</th><th>"TTFT p50 / p95 (ms)"</th></tr></thead>
                <tbody>{slices.into_iter().map(|s| view! {
                    <tr>
                        <td>{format!("{}–{}", s.start_s, s.end_s)}</td>
                        <td>{s.completed}</td>
                        <td>{s.failed}</td>
                        <td>{format!("{:.2}", s.requests_per_sec)}</td>
                        <td>{format!("{:.1}", s.output_tokens_per_sec)}</td>
                        <td>{format!("{} / {}", ms(s.total, |p| p.p50), ms(s.total, |p| p.p95))}</td>
                        <td>{format!("{} / {}", ms(s.ttft, |p| p.p50), ms(s.ttft, |p| p.p95))}</td>
                    </tr>
                }).collect_view()}</tbody>
            </table>
        </section>
    })
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
