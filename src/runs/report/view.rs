//! What a report page shows of a run: everything of the snapshot but its iterations, the charts already
//! reduced (a scatter sample, the histogram and CDF drawn), and the first page of the table. Its size does not
//! grow with the run, so a 100,000-iteration report opens as fast as a 10-iteration one; later table pages and
//! the full snapshot for an export are fetched when asked for.

use serde::{Deserialize, Serialize};

use crate::charts::{
    cdf_overlay, ecdf_points, latency_histogram, length_histogram, time_slices_chart, CdfSeries, ScatterPoint,
    ScatterSample,
};
use crate::model::IterationRecord;
use crate::runs::report::lengths::{cached_share, length_series, INPUT_LENGTHS, OUTPUT_LENGTHS};
use crate::runs::report::table::{table_page, IterationPage, TableQuery};
use crate::runs::report::workload::WorkloadReport;
use crate::runs::report::{ReportAgent, ReportConnector, ReportHeader, ReportSnapshot, ReportStats};
use crate::stats::{successful_values, time_slices, RunSummary, TimeSlice};

/// The slowest iterations a report lists on its own (an alert links to them).
#[cfg(feature = "ssr")]
pub const SLOWEST_SHOWN: usize = 5;

/// Quantiles each CDF series is drawn through.
const CDF_POINTS: usize = 400;

/// The page's view of a report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReportView {
    /// Which run.
    pub report: ReportHeader,
    /// The verdict on its figures, once it is over.
    #[serde(default)]
    pub validity: Option<crate::model::RunValidity>,
    /// The agent.
    pub agent: ReportAgent,
    /// The endpoint.
    pub connector: ReportConnector,
    /// Headline figures.
    pub stats: ReportStats,
    /// Error rate, cost, sample size beside `stats`.
    pub summary: RunSummary,
    /// How the figures were made.
    pub honesty: Vec<String>,
    /// Iterations recorded, warm-ups included.
    pub iterations: usize,
    /// Of those, failed.
    pub failures: usize,
    /// The scatter's points.
    pub scatter: ScatterSample,
    /// The latency histogram, SVG.
    pub histogram_svg: String,
    /// The CDF of total time and TTFT, SVG.
    pub cdf_svg: String,
    /// The table's first page in send order.
    pub first_page: IterationPage,
    /// The slowest successful measured iterations, slowest first ([`SLOWEST_SHOWN`]), drawn by the server: the
    /// browser build has no such field (every byte of the report page's code counts, docs/PERFORMANCE.md).
    #[cfg(feature = "ssr")]
    #[serde(default)]
    pub slowest: Vec<IterationRecord>,
    /// What the server's own metrics said during the run, when it recorded them: the notes and the load, SVG.
    pub server: Option<ServerSection>,
    /// The run over time: latency, completions and failures per slice (empty for runs recorded before send
    /// times were kept).
    #[serde(default)]
    pub slices: Vec<TimeSlice>,
    /// Their chart, SVG.
    #[serde(default)]
    pub slices_svg: String,
    /// A workload's figures, drawn (absent for a run of prompts).
    #[serde(default)]
    pub workload: Option<WorkloadSection>,
}

/// The report's workload section: the lengths asked beside those served, drawn, and what the cache served.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WorkloadSection {
    /// The workload's figures, its by-turn table among them.
    pub report: WorkloadReport,
    /// Prompt lengths asked beside the server's count (first turns only: a later turn carries its conversation).
    pub input_svg: String,
    /// Answer lengths asked beside those the server reported.
    pub output_svg: String,
    /// Prompt tokens served from the cache over prompt tokens, over requests whose server said both.
    pub cached_share: Option<f64>,
    /// The server's own prefix-cache hit rate over the run, from its metrics, in words.
    pub server_hit_rate: Option<String>,
}

/// The report's server section.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerSection {
    /// Speculative decoding and load, in words, with their source.
    pub notes: Vec<String>,
    /// Requests running and waiting over the run.
    pub load_svg: String,
}

/// A stored iteration as a scatter point.
pub fn scatter_point(r: &IterationRecord) -> ScatterPoint {
    ScatterPoint { seq: r.seq, ttft_ms: r.ttft_ms, total_ms: r.total_ms, error: r.error.is_some() }
}

/// The view of a snapshot.
pub fn report_view(snapshot: &ReportSnapshot, summary: RunSummary) -> ReportView {
    let results = &snapshot.results;
    let points: Vec<ScatterPoint> = results.iter().map(scatter_point).collect();
    let (histogram_svg, cdf_svg) = distribution_charts(results);
    let slices = time_slices(results);
    ReportView {
        report: snapshot.report.clone(),
        validity: snapshot.validity.clone(),
        agent: snapshot.agent.clone(),
        connector: snapshot.connector.clone(),
        stats: snapshot.stats.clone(),
        summary,
        honesty: snapshot.honesty.clone(),
        iterations: results.len(),
        failures: results.iter().filter(|r| r.error.is_some()).count(),
        scatter: ScatterSample::of(&points),
        histogram_svg,
        cdf_svg,
        first_page: table_page(results, &TableQuery::default()),
        #[cfg(feature = "ssr")]
        slowest: crate::stats::slowest(results, SLOWEST_SHOWN).into_iter().cloned().collect(),
        server: snapshot.server.as_ref().map(|server| ServerSection {
            notes: crate::runs::report::server_notes(server),
            load_svg: crate::charts::server_load(&server.samples),
        }),
        slices_svg: time_slices_chart(&slices),
        slices,
        workload: snapshot.workload.clone().map(|report| workload_section(report, snapshot)),
    }
}

/// The workload section of `snapshot`, over its measured, successful requests.
fn workload_section(report: WorkloadReport, snapshot: &ReportSnapshot) -> WorkloadSection {
    let lengths = length_series(&report.spec, &snapshot.results);
    let server_hit_rate = snapshot.server.as_ref().and_then(|s| s.prefix_cache.as_ref()).map(|c| {
        let looked_up = c.queried_tokens.map_or_else(String::new, |t| format!(" of {t} prompt tokens looked up"));
        format!("{:.1}%{looked_up} ({})", c.hit_rate * 100.0, c.source)
    });
    WorkloadSection {
        report,
        input_svg: length_histogram(&lengths.asked_input, &lengths.served_input, INPUT_LENGTHS),
        output_svg: length_histogram(&lengths.asked_output, &lengths.served_output, OUTPUT_LENGTHS),
        cached_share: cached_share(&snapshot.results),
        server_hit_rate,
    }
}

/// The histogram and the cumulative distribution of total time and TTFT over the successful measured
/// iterations; the CDF is drawn through at most 400 quantiles of each.
fn distribution_charts(results: &[IterationRecord]) -> (String, String) {
    let total = successful_values(results, |r| Some(r.total_ms));
    let ttft = successful_values(results, |r| r.ttft_ms);
    let cdf = cdf_overlay(
        &[
            CdfSeries { label: "total time".into(), class: "total", points: ecdf_points(&total, CDF_POINTS) },
            CdfSeries { label: "TTFT".into(), class: "ttft", points: ecdf_points(&ttft, CDF_POINTS) },
        ],
        "ms",
    );
    (latency_histogram(&total, &ttft), cdf)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::fixtures::{completed_run, iteration_record, plan_input};
    use crate::runs::report::snapshot;

    fn record(seq: u64) -> IterationRecord {
        let failed = seq % 50 == 7;
        iteration_record(seq, (!failed).then_some(20.0 + (seq % 13) as f64), 100.0 + (seq % 31) as f64, failed)
    }

    #[test]
    fn a_view_stays_small_whatever_the_run_size() {
        let run = completed_run(plan_input(&["p"], 64, 4), "m");
        let (snap, summary) = snapshot(&run, (0..20_000).map(record).collect());
        let view = report_view(&snap, summary.clone());
        assert_eq!((view.iterations, &view.summary, view.first_page.rows.len()), (20_000, &summary, 100));
        assert_eq!(view.first_page.rows[0], snap.results[0]);
        assert_eq!((view.scatter.of, view.failures), (20_000, 400));
        assert!(view.histogram_svg.starts_with("<svg") && view.cdf_svg.starts_with("<svg"));
        let full = serde_json::to_string(&snap).unwrap().len();
        let sent = serde_json::to_string(&view).unwrap().len();
        assert!(sent < 1_000_000 && sent * 5 < full, "view {sent} B against snapshot {full} B");
    }
}
