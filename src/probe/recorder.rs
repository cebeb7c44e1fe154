//! Server metrics during a run: `/metrics` is scraped once before the work starts, every second while it runs
//! and once after, and what came back becomes [`ServerMetrics`]: the load gauges over time and the
//! speculative-decoding window between the first and the last scrape, with the version the server said it runs
//! (read once, beside the first scrape). Scraping runs beside the work, in a task of its own, and never stops,
//! delays or fails it: a scrape that fails is counted and skipped.

use std::future::Future;
use std::time::Duration;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::engines::{spec_evidence, SpecEvidence};
use super::exposition::Exposition;
use super::latency::LatencyTotals;
use super::report::{scrape, ScrapeError};
use crate::engine::{HttpClient, RequestTarget};
use crate::model::{
    ServerKind, ServerMetrics, ServerSample, SpecCounters, SpecOutcome, MAX_SERVER_SAMPLES, PROCESS_START,
};

/// The pause before the reading after the work is tried a second time.
const FINAL_RETRY_AFTER: Duration = Duration::from_millis(200);

/// How often the server is read while the work runs.
pub const SCRAPE_EVERY: Duration = Duration::from_secs(1);

/// The load gauges of each engine: requests running, waiting, KV-cache use (first name present wins).
fn gauges(kind: ServerKind) -> [&'static [&'static str]; 3] {
    match kind {
        ServerKind::Vllm => [
            &["vllm:num_requests_running"],
            &["vllm:num_requests_waiting"],
            &["vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc"],
        ],
        ServerKind::LlamaCpp => {
            [&["llamacpp:requests_processing"], &["llamacpp:requests_deferred"], &["llamacpp:kv_cache_usage_ratio"]]
        }
        ServerKind::Sglang => [&["sglang:num_running_reqs"], &["sglang:num_queue_reqs"], &["sglang:token_usage"]],
        ServerKind::Tgi => [&["tgi_batch_current_size"], &["tgi_queue_size"], &[]],
    }
}

/// The load sample of one scrape.
fn sample(kind: ServerKind, metrics: &Exposition, at_ms: u64) -> ServerSample {
    let [running, waiting, kv_cache] = gauges(kind);
    ServerSample {
        at_ms,
        running: metrics.first_sum(running),
        waiting: metrics.first_sum(waiting),
        kv_cache: metrics.first_sum(kv_cache),
    }
}

/// The load samples of a run, at most [`MAX_SERVER_SAMPLES`], evenly spaced: one in `stride` readings is kept,
/// and when the book is full every other kept sample goes and the stride doubles. The last reading is always
/// kept (the state at the end of the run).
struct SampleBook {
    samples: Vec<ServerSample>,
    stride: usize,
    offered: usize,
}

impl SampleBook {
    fn new() -> Self {
        Self { samples: Vec::new(), stride: 1, offered: 0 }
    }

    fn offer(&mut self, sample: ServerSample) {
        let index = self.offered;
        self.offered += 1;
        if !index.is_multiple_of(self.stride) {
            return;
        }
        if self.samples.len() == MAX_SERVER_SAMPLES {
            let mut position = 0;
            self.samples.retain(|_| {
                position += 1;
                position % 2 == 1
            });
            self.stride *= 2;
            if !index.is_multiple_of(self.stride) {
                return;
            }
        }
        self.samples.push(sample);
    }

    fn finish(mut self, last: Option<ServerSample>) -> Vec<ServerSample> {
        if let Some(last) = last {
            if self.samples.len() == MAX_SERVER_SAMPLES {
                self.samples.pop();
            }
            self.samples.push(last);
        }
        self.samples
    }
}

/// What the scraping has read so far.
struct Readings {
    kind: ServerKind,
    started: Instant,
    scrapes: u32,
    failed: u32,
    book: SampleBook,
    /// The counters of the latest scrape that had them.
    last: Option<SpecCounters>,
    /// A counter that went down between two readings: the server restarted during the work. Kept even when the
    /// restarted server later counts past where the old one stood, which the first and last readings alone miss.
    restarted: Option<String>,
    /// The process start time of the latest reading that said it.
    started_at: Option<String>,
    /// The latency histograms at the first reading and at the latest.
    latency: Option<(LatencyTotals, LatencyTotals)>,
}

impl Readings {
    /// One scrape's outcome; the sample goes to the book unless it is the final one (`keep_sample` false), which
    /// is returned instead.
    fn read(&mut self, scraped: Result<Exposition, ScrapeError>, keep_sample: bool) -> Option<ServerSample> {
        let metrics = match scraped {
            Ok(metrics) => metrics,
            Err(_) => {
                self.failed += 1;
                return None;
            }
        };
        self.scrapes += 1;
        let totals = LatencyTotals::read(self.kind, &metrics);
        match &mut self.latency {
            Some((_, latest)) => *latest = totals,
            None => self.latency = Some((totals.clone(), totals)),
        }
        if let Some(started) = metrics.process_start() {
            if self.started_at.as_ref().is_some_and(|before| *before != started) {
                self.restarted.get_or_insert_with(|| PROCESS_START.to_string());
            }
            self.started_at = Some(started);
        }
        if let SpecEvidence::Counters(counters) = spec_evidence(self.kind, &metrics) {
            if let Some(Err(crate::model::WindowError::Restarted { counter })) =
                self.last.as_ref().map(|last| last.window(&counters))
            {
                self.restarted.get_or_insert(counter);
            }
            self.last = Some(counters);
        }
        let at_ms = u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX);
        let reading = sample(self.kind, &metrics, at_ms);
        if keep_sample {
            self.book.offer(reading);
            None
        } else {
            Some(reading)
        }
    }
}

/// Scrapes the server of `target` (whose engine is `kind`) before, during and after `work`, and returns the
/// work's output with what was recorded; `None` when not even the first scrape answered. The scrapes during the
/// work run in a task of their own, so a slow `/metrics` never delays the work.
pub async fn record_during<T>(
    client: &HttpClient,
    target: &RequestTarget,
    kind: ServerKind,
    work: impl Future<Output = T>,
) -> (T, Option<ServerMetrics>) {
    let mut readings = Readings {
        kind,
        started: Instant::now(),
        scrapes: 0,
        failed: 0,
        book: SampleBook::new(),
        last: None,
        restarted: None,
        started_at: None,
        latency: None,
    };
    let (first, version) = futures::join!(scrape(client, target), super::report::server_version(client, target, kind));
    if let Err(why) = &first {
        tracing::warn!(error = %why, "server metrics unreadable at the start of the run; not recorded");
        return (work.await, None);
    }
    readings.read(first, true);
    let at_start = readings.last.clone();
    let stop = CancellationToken::new();
    let scraping = tokio::spawn({
        let (client, target, stop) = (client.clone(), target.clone(), stop.clone());
        async move {
            let mut ticks = tokio::time::interval_at(readings.started + SCRAPE_EVERY, SCRAPE_EVERY);
            ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                tokio::select! {
                    () = stop.cancelled() => break,
                    _ = ticks.tick() => {
                        let scraped = scrape(&client, &target).await;
                        readings.read(scraped, true);
                    }
                }
            }
            readings
        }
    });
    let output = work.await;
    stop.cancel();
    let Ok(mut readings) = scraping.await else {
        tracing::error!("the server-metrics scraper stopped unexpectedly; not recorded");
        return (output, None);
    };
    let mut last = scrape(client, target).await;
    if last.is_err() {
        // Once more after a pause: without this reading no window covers the whole work.
        readings.failed += 1;
        tokio::time::sleep(FINAL_RETRY_AFTER).await;
        last = scrape(client, target).await;
    }
    let final_failure = last.as_ref().err().cloned();
    let final_sample = readings.read(last, false);
    let spec = match (&at_start, &readings.last, readings.restarted) {
        (_, _, Some(counter)) => SpecOutcome::Restarted { counter },
        (Some(_), _, None) if final_failure.is_some() => {
            SpecOutcome::Unfinished { reason: final_failure.as_ref().map(ToString::to_string).unwrap_or_default() }
        }
        (Some(start), Some(end), None) => match start.window(end) {
            Ok(window) => SpecOutcome::Window(window),
            Err(crate::model::WindowError::Restarted { counter }) => SpecOutcome::Restarted { counter },
        },
        (_, _, None) => SpecOutcome::NotCounted,
    };
    // A window that ends before the work did would undercount: no latencies without the reading after it.
    let window = match (&readings.latency, &final_failure) {
        (Some((first, last)), None) => first.window(last),
        _ => Default::default(),
    };
    let recorded = ServerMetrics {
        kind,
        root: target.base_url.server_root(),
        scrapes: readings.scrapes,
        failed_scrapes: readings.failed,
        samples: readings.book.finish(final_sample),
        spec,
        latencies: window.latencies,
        preemptions: window.preemptions,
        prefix_cache: window.prefix_cache,
        version,
    };
    (output, Some(recorded))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn samples_are_thinned_evenly_and_keep_the_first_and_the_newest() {
        let reading = |at_ms| ServerSample { at_ms, running: Some(1.0), waiting: None, kv_cache: None };
        let mut book = SampleBook::new();
        for at_ms in 0..5_000 {
            book.offer(reading(at_ms));
        }
        let samples = book.finish(Some(reading(5_000)));
        assert!(samples.len() <= MAX_SERVER_SAMPLES && samples.len() > MAX_SERVER_SAMPLES / 2, "{}", samples.len());
        assert_eq!(samples.first().map(|s| s.at_ms), Some(0));
        assert_eq!(samples.last().map(|s| s.at_ms), Some(5_000), "the end of the run is always kept");
        let gaps: Vec<u64> = samples[..samples.len() - 1].windows(2).map(|w| w[1].at_ms - w[0].at_ms).collect();
        assert!(gaps.iter().all(|g| *g == gaps[0]), "evenly spaced: {gaps:?}");
        let mut short = SampleBook::new();
        (0..10).for_each(|at_ms| short.offer(reading(at_ms)));
        assert_eq!(short.finish(None).len(), 10, "a short run keeps every reading");
    }

    #[test]
    fn each_engines_gauges_are_read() {
        let vllm = Exposition::parse(
            "vllm:num_requests_running{engine=\"0\"} 3\nvllm:num_requests_running{engine=\"1\"} 1\n\
             vllm:num_requests_waiting{engine=\"0\"} 2\nvllm:gpu_cache_usage_perc{engine=\"0\"} 0.5\n",
        )
        .unwrap();
        assert_eq!(
            sample(ServerKind::Vllm, &vllm, 7),
            ServerSample { at_ms: 7, running: Some(4.0), waiting: Some(2.0), kv_cache: Some(0.5) }
        );
        let llama = Exposition::parse(include_str!("../../tests/fixtures/speclab/llamacpp_metrics_plain.txt")).unwrap();
        let read = sample(ServerKind::LlamaCpp, &llama, 0);
        assert_eq!((read.running, read.waiting, read.kv_cache), (Some(0.0), Some(0.0), None));
    }
}
