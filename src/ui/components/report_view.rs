//! The parts of a report every view shows — the owner's run page and a share link alike: stat cards, honesty
//! notes, distribution charts, and scatter points from stored iterations (the table is `results_table`).

use leptos::prelude::*;

use crate::charts::{cdf_overlay, ecdf_points, latency_histogram, CdfSeries, ScatterPoint};
use crate::model::IterationRecord;
use crate::report::{stat_cards, ReportStats};
use crate::stats::{successful_values, RunSummary};

/// A stored iteration as a scatter point.
pub fn scatter_point(r: &IterationRecord) -> ScatterPoint {
    ScatterPoint { seq: r.seq, ttft_ms: r.ttft_ms, total_ms: r.total_ms, error: r.error.is_some() }
}

/// The distribution of a finished report: a histogram and the cumulative distribution of total time and TTFT
/// (successful measured iterations; the CDF is drawn through at most 400 quantiles of each).
#[component]
pub fn DistributionCharts(results: Vec<IterationRecord>) -> impl IntoView {
    let total = successful_values(&results, |r| Some(r.total_ms));
    let ttft = successful_values(&results, |r| r.ttft_ms);
    let cdf = cdf_overlay(
        &[
            CdfSeries { label: "total time".into(), class: "total", points: ecdf_points(&total, 400) },
            CdfSeries { label: "TTFT".into(), class: "ttft", points: ecdf_points(&ttft, 400) },
        ],
        "ms",
    );
    view! {
        <div class="chart-pair">
            <figure id="histogram"><figcaption>"How latencies spread"</figcaption><div class="chart-box" inner_html=latency_histogram(&total, &ttft)></div></figure>
            <figure id="cdf"><figcaption>"Share of requests at or below each latency"</figcaption><div class="chart-box" inner_html=cdf></div></figure>
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
