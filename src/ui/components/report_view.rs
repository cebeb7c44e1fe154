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
