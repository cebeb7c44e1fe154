//! The change points a schedule's page lists and marks on its history chart, found where they cannot slow a
//! measurement: a search at a strict α shuffles each series up to 100,000 times (seconds of CPU for 96
//! evaluations), so it runs on the blocking pool, one search at a time across the process, and each series' answer
//! is kept, so reading a page again costs nothing until its history changes. Page reads never run it on the async
//! workers that time a run's requests.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use tokio::sync::Semaphore;

use crate::guard::charts::HistoryChange;
use crate::guard::judge::measured_history;
use crate::guard::model::{Metric, ScheduleDetail};
use crate::model::utc_second;
use crate::stats::change_points::{change_points, ChangePoint, ChangePointSettings};

/// Searches running at once across the process: one, so page readers never take both cores of a small machine.
static SEARCHING: Semaphore = Semaphore::const_new(1);

/// Series whose answers are kept, at most (the oldest used is dropped).
const KEPT: usize = 512;

/// A search's question: the series and the settings, to the bit.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Question {
    series: Vec<u64>,
    alpha: u64,
    min_segment: usize,
    permutations: u32,
}

/// Each question's answer and when it was last used.
type Answers = HashMap<Question, (Arc<Vec<ChangePoint>>, u64)>;

/// The answers kept.
static KEPT_ANSWERS: Mutex<Option<Answers>> = Mutex::new(None);

/// The change points of each watched metric (p95 and mean, and each threshold's) over the page's history, oldest
/// first, each labelled with its date, the levels before and after, the shift and its p-value.
pub async fn history_changes(detail: &ScheduleDetail) -> Vec<(Metric, HistoryChange)> {
    let settings = crate::guard::judge::change_point_settings(&detail.schedule.input);
    let history = measured_history(&detail.evaluations);
    let mut changes = Vec::new();
    for metric in watched_metrics(detail) {
        let points: Vec<(i64, f64)> =
            history.iter().filter_map(|(at, s)| Some((*at, metric.of(s)?))).filter(|(_, v)| v.is_finite()).collect();
        let series: Vec<f64> = points.iter().map(|(_, v)| *v).collect();
        for c in found(series, settings).await.iter() {
            let unit = metric.unit();
            let label = format!(
                "{} UTC: {} {}{unit} → {}{unit} ({}, p = {}, {} evaluations before, {} after)",
                utc_second(points[c.index].0),
                metric.as_str(),
                crate::model::trim_number(c.mean_before),
                crate::model::trim_number(c.mean_after),
                c.shift_pct().map_or("from a level of zero".to_string(), |s| format!("{s:+.1}%")),
                crate::report::p_value(c.p_value),
                c.n.0,
                c.n.1,
            );
            changes.push((metric, HistoryChange { at_ms: points[c.index].0, label }));
        }
    }
    changes.sort_by_key(|(_, c)| c.at_ms);
    changes
}

/// The metrics a page looks for changes in: p95 and mean, and every threshold's.
fn watched_metrics(detail: &ScheduleDetail) -> Vec<Metric> {
    let mut metrics = vec![Metric::P95Ms, Metric::MeanMs];
    for t in &detail.schedule.input.thresholds {
        if !metrics.contains(&t.metric) {
            metrics.push(t.metric);
        }
    }
    metrics
}

/// The change points of `series`: the kept answer, or a search on the blocking pool in its turn.
async fn found(series: Vec<f64>, settings: ChangePointSettings) -> Arc<Vec<ChangePoint>> {
    let question = Question {
        series: series.iter().map(|v| v.to_bits()).collect(),
        alpha: settings.alpha.to_bits(),
        min_segment: settings.min_segment,
        permutations: settings.permutations,
    };
    if let Some(answer) = kept(&question) {
        return answer;
    }
    let Ok(_turn) = SEARCHING.acquire().await else { return Arc::default() };
    // Another reader may have asked the same while this one waited.
    if let Some(answer) = kept(&question) {
        return answer;
    }
    let answer = match tokio::task::spawn_blocking(move || change_points(&series, &settings)).await {
        Ok(changes) => Arc::new(changes),
        Err(e) => {
            tracing::error!(error = %e, "a change-point search failed");
            return Arc::default();
        }
    };
    keep(question, Arc::clone(&answer));
    answer
}

/// The answer kept for `question`, marked as just used.
fn kept(question: &Question) -> Option<Arc<Vec<ChangePoint>>> {
    let mut answers = KEPT_ANSWERS.lock().ok()?;
    let answers = answers.get_or_insert_with(HashMap::new);
    let stamp = next_stamp();
    answers.get_mut(question).map(|(answer, used)| {
        *used = stamp;
        Arc::clone(answer)
    })
}

/// Keeps `answer`, dropping the least recently used beyond [`KEPT`].
fn keep(question: Question, answer: Arc<Vec<ChangePoint>>) {
    let Ok(mut answers) = KEPT_ANSWERS.lock() else { return };
    let answers = answers.get_or_insert_with(HashMap::new);
    if answers.len() >= KEPT {
        if let Some(oldest) = answers.iter().min_by_key(|(_, (_, used))| *used).map(|(q, _)| q.clone()) {
            answers.remove(&oldest);
        }
    }
    answers.insert(question, (answer, next_stamp()));
}

/// A counter ordering uses.
fn next_stamp() -> u64 {
    static STAMP: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    STAMP.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}
