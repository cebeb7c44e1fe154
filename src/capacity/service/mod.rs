//! The capacity search and sweep driven: levels chosen by the judge's [`Search`] or [`Picker`], each run by a
//! [`LevelRunner`] (the CLI in its own process; the server's [`SweepManager`] stores each level as a run and drives
//! the sweep as a background job) and judged, the report assembled as levels end.

mod manager;
mod repeat;

pub use manager::SweepManager;
pub use repeat::repeated_progress;

use super::judge::{
    bootstrap, highest_passing, knee, level_figures, BootLevel, Criteria, LevelRun, Picker, RequestFigures, Step,
    GROWTH_LIMIT, MIN_ACHIEVED_SHARE, RESAMPLES,
};
use super::model::LevelPlan;
use crate::capacity::model::LoadAxis;
use crate::capacity::report::{CapacityLevel, CapacityReport};
use crate::model::{LoadMode, SloScope};

/// The most measured requests one level sends.
pub const MAX_REQUESTS_PER_LEVEL: u32 = 100_000;
/// Requests beyond the judged percentile a level is sized for: a p95 is judged on at least 200 requests, so about
/// 10 of them lie above it.
pub const TAIL_REQUESTS: f64 = 10.0;
/// Measured requests per level when only per-request objectives are judged.
pub const PER_REQUEST_SAMPLE: u32 = 50;

/// Why a level gave no measurements.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LevelError {
    /// Stopped on request (a cancel, Ctrl-C, the server stopping): the caller knows which and says so.
    #[error("stopped before the level ended")]
    Stopped,
    /// The level's run could not be made or failed, in words.
    #[error("the run of {level} failed: {why}")]
    Failed {
        /// The level, as written (`8 in flight`).
        level: String,
        /// Why.
        why: String,
    },
}

/// Why a sweep ended without a report.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SweepError {
    /// The levels do not hold (bounds, counts).
    #[error("levels: {0}")]
    Levels(crate::capacity::model::LevelsError),
    /// A search without an objective has nothing to find.
    #[error("a capacity search needs at least one objective (e.g. ttft_p95_ms<=500)")]
    NoObjective,
    /// A level gave no measurements; the levels before it are not a report.
    #[error(transparent)]
    Level(#[from] LevelError),
}

/// Runs one level.
pub trait LevelRunner {
    /// Sends `warmup` requests, then `requests` measured ones, at `mode`; every iteration comes back.
    fn run_level(
        &mut self,
        mode: LoadMode,
        requests: u32,
        warmup: u32,
    ) -> impl std::future::Future<Output = Result<LevelRun, LevelError>> + Send;

    /// Rests `seconds` between two repetitions of a repeated run; an error (a cancel) ends the run.
    fn pause(&mut self, seconds: f64) -> impl std::future::Future<Output = Result<(), LevelError>> + Send {
        async move {
            tokio::time::sleep(std::time::Duration::from_secs_f64(seconds)).await;
            Ok(())
        }
    }
}

/// What to measure: which levels, judged how.
#[derive(Debug, Clone, PartialEq)]
pub struct CapacitySpec {
    /// The levels: listed, or searched.
    pub levels: LevelPlan,
    /// What a level must do to pass.
    pub criteria: Criteria,
    /// Measured requests per level; `None`: [`requests_for`] decides.
    pub requests_per_level: Option<u32>,
    /// Open loop: requests in flight at most (a saturated endpoint then shows as a missed rate, not an endless
    /// queue).
    pub max_in_flight: u32,
    /// Open loop: Poisson arrivals instead of evenly spaced ones.
    pub poisson: bool,
}

/// What the search tells as it goes.
#[derive(Debug, Clone, PartialEq)]
pub enum SearchEvent {
    /// Level number `index` (from 1) starts.
    Started {
        /// Its number.
        index: usize,
        /// The load.
        level: f64,
        /// Measured requests it will send.
        requests: u32,
    },
    /// A level ended.
    Finished(Box<CapacityLevel>),
    /// An automatic sweep's probe (a closed loop with `concurrency` in flight) starts.
    Probing {
        /// Requests in flight.
        concurrency: u32,
        /// Measured requests it will send.
        requests: u32,
    },
    /// A probe ended.
    Probed(Box<CapacityLevel>),
    /// A repeated run's summary over the repetitions so far (after each one).
    Repeated(Box<crate::capacity::report::RepeatedReport>),
}

/// Measured requests for `level`: enough that [`TAIL_REQUESTS`] lie beyond the highest judged percentile, and
/// enough load to reach steady state (4 per slot in flight, or 5 s of arrivals).
pub fn requests_for(spec: &CapacitySpec, level: f64) -> u32 {
    sized(spec, spec.levels.axis(), level)
}

/// [`requests_for`] a level on `axis`.
fn sized(spec: &CapacitySpec, axis: LoadAxis, level: f64) -> u32 {
    if let Some(n) = spec.requests_per_level {
        return n;
    }
    let tail = spec
        .criteria
        .slos
        .iter()
        .filter_map(|s| match s.scope {
            SloScope::Percentile(p) => Some(1.0 - f64::from(p) / 100.0),
            SloScope::PerRequest => None,
        })
        .reduce(f64::min);
    let for_tail = tail.map_or(f64::from(PER_REQUEST_SAMPLE), |t| (TAIL_REQUESTS / t).ceil());
    let for_load = match axis {
        LoadAxis::Concurrency => 4.0 * level,
        LoadAxis::Rate => 5.0 * level,
    };
    for_tail.max(for_load).min(f64::from(MAX_REQUESTS_PER_LEVEL)) as u32
}

/// The load mode of `level`.
fn mode_of(spec: &CapacitySpec, level: f64) -> LoadMode {
    match spec.levels.axis() {
        LoadAxis::Concurrency => LoadMode::Closed { concurrency: level as u32 },
        LoadAxis::Rate => LoadMode::Open {
            rate_per_second: level,
            poisson: spec.poisson,
            max_concurrency: spec.max_in_flight,
            burstiness: None,
        },
    }
}

/// Warm-up requests of a level: one per slot in flight, or one second of arrivals, so connections are open and
/// the endpoint is busy before anything is measured.
fn warmup_for(level: f64) -> u32 {
    (level.ceil().max(1.0) as u32).min(crate::model::limits::MAX_WARMUP)
}

/// Runs level after level (listed, or picked by the search) until done, then finds the answer, its bootstrap
/// interval and the knee.
pub async fn sweep(
    runner: &mut impl LevelRunner,
    spec: &CapacitySpec,
    mut on_event: impl FnMut(SearchEvent),
) -> Result<CapacityReport, SweepError> {
    let plan = spec.levels.clone().validated().map_err(SweepError::Levels)?;
    if matches!(plan, LevelPlan::Search(_)) && spec.criteria.slos.is_empty() {
        return Err(SweepError::NoObjective);
    }
    let axis = plan.axis();
    if let LevelPlan::Repeated { level, repetitions, pause_s, .. } = plan {
        let asked = repeat::Repeat { axis, level, repetitions, pause_s };
        return repeat::repeat(runner, spec, asked, &mut on_event).await;
    }
    let started = std::time::Instant::now();
    let mut picker = Picker::new(plan, spec.max_in_flight);
    let mut runs: Vec<LevelRun> = Vec::new();
    let mut levels: Vec<CapacityLevel> = Vec::new();
    let mut probes: Vec<CapacityLevel> = Vec::new();
    let mut probe_requests = 0;
    while let Some(step) = picker.next_step() {
        match step {
            Step::Probe(concurrency) => {
                let c = f64::from(concurrency);
                let requests = sized(spec, LoadAxis::Concurrency, c);
                on_event(SearchEvent::Probing { concurrency, requests });
                let run = runner.run_level(LoadMode::Closed { concurrency }, requests, warmup_for(c)).await?;
                let figures = level_figures(LoadAxis::Concurrency, c, &spec.criteria, &run);
                picker.record_probe(figures.throughput_rps);
                on_event(SearchEvent::Probed(Box::new(figures.clone())));
                probe_requests += run.records.len() as u64;
                probes.push(figures);
            }
            Step::Level(level) => {
                let requests = requests_for(spec, level);
                on_event(SearchEvent::Started { index: levels.len() + 1, level, requests });
                let run = runner.run_level(mode_of(spec, level), requests, warmup_for(level)).await?;
                let figures = level_figures(axis, level, &spec.criteria, &run);
                picker.record(&figures);
                on_event(SearchEvent::Finished(Box::new(figures.clone())));
                levels.push(figures);
                runs.push(run);
            }
        }
    }
    let mut report = report(spec, &picker, levels, &runs, started.elapsed().as_secs_f64());
    report.requests_sent += probe_requests;
    insert_probe_notes(&mut report.notes, &probes);
    report.probes = probes;
    Ok(report)
}

/// Puts what the probes found right after the note on how levels were chosen.
fn insert_probe_notes(notes: &mut Vec<String>, probes: &[CapacityLevel]) {
    let at = notes.len().min(1);
    for (i, note) in probe_notes(probes).into_iter().enumerate() {
        notes.insert(at + i, note);
    }
}

/// What an automatic sweep's probes found, in sentences (none for other sweeps).
pub fn probe_notes(probes: &[CapacityLevel]) -> Vec<String> {
    let rate = |p: Option<&CapacityLevel>| p.and_then(|p| p.throughput_rps);
    match (probes.first(), probes.get(1)) {
        (None, _) => vec![],
        (Some(_), _) if rate(probes.first()).is_none() || (probes.len() == 2 && rate(probes.get(1)).is_none()) => {
            vec!["A probe measured no throughput (every request failed?), so no rate could be chosen.".to_string()]
        }
        (Some(sync), Some(saturated)) => vec![format!(
            "Probes: one request in flight completed {:.2} req/s (the synchronous rate); {} in flight completed {:.2} \
             req/s (the saturated throughput). The rates run are evenly spaced from the first to the second.",
            sync.throughput_rps.unwrap_or(0.0),
            crate::model::trim_number(saturated.level),
            saturated.throughput_rps.unwrap_or(0.0)
        )],
        (Some(_), None) => vec![],
    }
}

/// The report of the levels finished so far (while a sweep runs, or after it was cut short): answer, knee and
/// notes, without the bootstrap interval (`resamples` 0), which needs every level's requests.
pub fn progress_report(
    spec: &CapacitySpec,
    probes: &[CapacityLevel],
    levels: &[CapacityLevel],
    wall_s: f64,
) -> CapacityReport {
    let mut notes = notes(spec, levels);
    insert_probe_notes(&mut notes, probes);
    CapacityReport {
        axis: spec.levels.axis(),
        slos: spec.criteria.slos.clone(),
        max_error_rate: spec.criteria.max_error_rate,
        answer: highest_passing(levels),
        bounded: levels.iter().any(|l| !l.passed),
        interval: crate::capacity::report::AnswerInterval { low: None, high: None, resamples: 0 },
        knee: knee(levels),
        stopped_early: false,
        notes,
        requests_sent: levels.iter().chain(probes).map(|l| l.requests).sum(),
        levels: levels.to_vec(),
        probes: probes.to_vec(),
        wall_s,
        repeated: None,
    }
}

/// The report of the levels run: answer, bootstrap interval, knee, notes.
fn report(
    spec: &CapacitySpec,
    picker: &Picker,
    mut levels: Vec<CapacityLevel>,
    runs: &[LevelRun],
    wall_s: f64,
) -> CapacityReport {
    let samples: Vec<BootLevel<'_>> = runs
        .iter()
        .zip(&levels)
        .map(|(run, figures)| BootLevel {
            level: figures.level,
            requests: RequestFigures::measured(&run.records),
            rate_achieved: figures.saturation != Some(crate::capacity::report::Saturation::RateMissed),
        })
        .collect();
    let found = bootstrap(&spec.criteria, &samples);
    for (level, probability) in levels.iter_mut().zip(&found.pass_probability) {
        level.pass_probability = *probability;
    }
    let mut notes = notes(spec, &levels);
    if picker.stopped_early() {
        if let Some(last) = levels.last() {
            notes.push(format!(
                "Stopped early after {}: the endpoint was over-saturated ({}); higher levels were not run.",
                spec.levels.axis().describe(last.level),
                last.saturation.map_or("", |s| s.describe())
            ));
        }
    }
    CapacityReport {
        axis: spec.levels.axis(),
        slos: spec.criteria.slos.clone(),
        max_error_rate: spec.criteria.max_error_rate,
        answer: highest_passing(&levels),
        bounded: picker.bounded(&levels),
        interval: found.interval,
        knee: knee(&levels),
        stopped_early: picker.stopped_early(),
        notes,
        requests_sent: runs.iter().map(|r| r.records.len() as u64).sum(),
        levels,
        probes: vec![],
        wall_s,
        repeated: None,
    }
}

/// How the search went and how its figures were made, in sentences.
fn notes(spec: &CapacitySpec, levels: &[CapacityLevel]) -> Vec<String> {
    let axis = spec.levels.axis();
    let unit = match axis {
        LoadAxis::Concurrency => "requests in flight (closed loop)",
        LoadAxis::Rate => "requests per second (open loop)",
    };
    let mut notes = vec![
        match &spec.levels {
            LevelPlan::Search(space) => format!(
                "Levels: {unit} from {} up to {}, doubling until one failed, then bisecting between the highest \
                 pass and the lowest failure{}.",
                crate::model::trim_number(space.min),
                crate::model::trim_number(space.max),
                match axis {
                    LoadAxis::Concurrency => " to the exact whole number".to_string(),
                    LoadAxis::Rate => format!(" (geometric midpoints) to within {:.0} %", space.resolution * 100.0),
                }
            ),
            LevelPlan::Automatic { levels: count } => format!(
                "Levels: {count} {unit} chosen from two probes, as GuideLLM does (the synchronous rate, then the \
                 saturated throughput), lowest first; a sweep stops after a level where the endpoint was \
                 over-saturated (achieved rate under {:.0} % of the target, error rate over its limit, or the last \
                 quarter of requests over {GROWTH_LIMIT} times slower than the first).",
                MIN_ACHIEVED_SHARE * 100.0
            ),
            LevelPlan::Repeated { level, repetitions, pause_s, .. } => format!(
                "A repeated run: {} run {repetitions} times{}, each repetition a run of its own, judged like a \
                 sweep's level; it passes when every repetition passed.",
                axis.describe(*level),
                if *pause_s > 0.0 {
                    format!(" with {} s of rest between", crate::model::trim_number(*pause_s))
                } else {
                    String::new()
                }
            ),
            LevelPlan::Listed { .. } => format!(
                "Levels: {unit} as listed, lowest first; a sweep stops after a level where the endpoint was \
                 over-saturated (achieved rate under {:.0} % of the target, error rate over its limit, or the last \
                 quarter of requests over {GROWTH_LIMIT} times slower than the first).",
                MIN_ACHIEVED_SHARE * 100.0
            ),
        },
        match spec.requests_per_level {
            Some(n) => format!("Each level measured {n} requests after its warm-up, as asked."),
            None => format!(
                "Each level measured enough requests that {TAIL_REQUESTS} lie beyond the highest percentile judged \
                 ({PER_REQUEST_SAMPLE} with per-request objectives only) and at least {}, after a warm-up of {}.",
                match axis {
                    LoadAxis::Concurrency => "4 per request in flight",
                    LoadAxis::Rate => "5 s of arrivals",
                },
                match axis {
                    LoadAxis::Concurrency => "one request per slot",
                    LoadAxis::Rate => "one second of arrivals",
                }
            ),
        },
        format!(
            "A level passes when every objective holds and at most {:.1} % of its requests failed. Percentile \
             objectives are taken over successful requests ({}), ITL pooled over every gap; a per-request objective \
             must be met by every measured request (a failed request never meets one). TTFT is send to the first \
             answer token. Goodput counts requests that succeeded and met every per-request objective: with \
             percentile objectives only, it equals the successful throughput.",
            spec.criteria.max_error_rate * 100.0,
            crate::stats::PERCENTILE_METHOD
        ),
    ];
    // A repeated run has one level: no answer to search for, no knee, no interval over levels.
    if !matches!(spec.levels, LevelPlan::Repeated { .. }) {
        notes.push(format!(
            "The answer is the highest level that passed with every lower level passing. The knee is the level \
             before the first step on which latency (total p95) grew faster than throughput, by over {:.0} %.",
            knee::NOISE * 100.0
        ));
        notes.push(format!(
            "The interval: each level's requests resampled with replacement {RESAMPLES} times, every level \
             re-judged, the answer re-found as the highest level with every lower one passing; the 2.5th and 97.5th \
             percentiles of those answers. It speaks only of the levels tried."
        ));
    }
    if axis == LoadAxis::Rate {
        notes.push(format!(
            "Open loop: at most {} requests in flight; a level whose achieved send rate fell under {:.0} % of its \
             target fails (the endpoint or the load generator could not keep up).",
            spec.max_in_flight,
            MIN_ACHIEVED_SHARE * 100.0
        ));
    }
    let thin: Vec<String> =
        levels.iter().filter(|l| l.requests < 20).map(|l| crate::model::trim_number(l.level)).collect();
    if !thin.is_empty() {
        notes.push(format!("Levels {} rest on fewer than 20 requests: their verdicts are fragile.", thin.join(", ")));
    }
    notes
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capacity::model::SearchSpace;
    use crate::model::Slo;

    fn spec(axis: LoadAxis, slos: &[&str]) -> CapacitySpec {
        CapacitySpec {
            levels: LevelPlan::Search(SearchSpace { axis, min: 1.0, max: 64.0, resolution: 0.1 }),
            criteria: Criteria { slos: slos.iter().map(|s| Slo::parse(s).unwrap()).collect(), max_error_rate: 0.0 },
            requests_per_level: None,
            max_in_flight: 64,
            poisson: false,
        }
    }

    #[test]
    fn a_level_is_sized_for_the_tail_it_judges_and_the_load_it_applies() {
        let p95 = spec(LoadAxis::Concurrency, &["ttft_p95_ms<=500", "total_p50_ms<=900"]);
        assert_eq!(requests_for(&p95, 1.0), 200, "10 beyond the p95");
        assert_eq!(requests_for(&p95, 64.0), 256, "4 per slot in flight");
        assert_eq!(requests_for(&spec(LoadAxis::Concurrency, &["ttft_p99_ms<=500"]), 1.0), 1_000);
        assert_eq!(requests_for(&spec(LoadAxis::Concurrency, &["ttft_ms<=500"]), 2.0), PER_REQUEST_SAMPLE);
        assert_eq!(requests_for(&spec(LoadAxis::Rate, &["ttft_p50_ms<=500"]), 40.0), 200, "5 s of arrivals");
        let asked = CapacitySpec { requests_per_level: Some(30), ..p95 };
        assert_eq!(requests_for(&asked, 64.0), 30, "as asked");
        assert_eq!(warmup_for(0.5), 1);
        assert_eq!(warmup_for(12.0), 12);
    }

    /// An endpoint whose TTFT is 100 ms up to `capacity` (requests in flight, or per second) and 2 s beyond it, as
    /// a runner of levels: it answers each level at once and keeps what it was asked. `fail_at`: the call (from 1)
    /// that fails, as a cancel does.
    struct ScriptedEndpoint {
        capacity: f64,
        fail_at: Option<usize>,
        asked: Vec<(LoadMode, u32, u32)>,
    }

    impl ScriptedEndpoint {
        fn new(capacity: f64) -> Self {
            Self { capacity, fail_at: None, asked: Vec::new() }
        }
    }

    impl LevelRunner for ScriptedEndpoint {
        async fn run_level(&mut self, mode: LoadMode, requests: u32, warmup: u32) -> Result<LevelRun, LevelError> {
            self.asked.push((mode, requests, warmup));
            if self.fail_at == Some(self.asked.len()) {
                return Err(LevelError::Stopped);
            }
            let (load, gap_ms) = match mode {
                LoadMode::Closed { concurrency } => (f64::from(concurrency), 10.0),
                LoadMode::Open { rate_per_second, .. } => (rate_per_second, 1e3 / rate_per_second),
            };
            let ttft = if load <= self.capacity { 100.0 } else { 2_000.0 };
            let records = (0..warmup + requests)
                .map(|i| crate::model::IterationRecord {
                    seq: u64::from(i),
                    warmup: i < warmup,
                    sent_at_ms: Some(f64::from(i) * gap_ms),
                    ttft_ms: Some(ttft),
                    total_ms: ttft + 100.0,
                    ..crate::model::IterationRecord::blank()
                })
                .collect();
            Ok(LevelRun { records, wall_s: 1.0, run_id: None, validity: None })
        }
    }

    fn levels_asked(endpoint: &ScriptedEndpoint) -> Vec<f64> {
        endpoint
            .asked
            .iter()
            .map(|(mode, _, _)| match mode {
                LoadMode::Closed { concurrency } => f64::from(*concurrency),
                LoadMode::Open { rate_per_second, .. } => *rate_per_second,
            })
            .collect()
    }

    #[tokio::test]
    async fn a_sweep_brackets_then_bisects_running_each_level_sized_and_warmed_as_it_says() {
        let spec = spec(LoadAxis::Concurrency, &["ttft_p95_ms<=500"]);
        let mut endpoint = ScriptedEndpoint::new(11.0);
        let mut events = Vec::new();
        let report = sweep(&mut endpoint, &spec, |e| events.push(e)).await.unwrap();
        assert_eq!(levels_asked(&endpoint), [1.0, 2.0, 4.0, 8.0, 16.0, 12.0, 10.0, 11.0]);
        for (mode, requests, warmup) in &endpoint.asked {
            let LoadMode::Closed { concurrency } = *mode else { panic!("a concurrency search runs closed loops") };
            assert_eq!(*requests, requests_for(&spec, f64::from(concurrency)));
            assert_eq!(*warmup, concurrency, "one warm-up per slot in flight");
        }
        assert_eq!((report.answer, report.bounded), (Some(11.0), true));
        let verdicts: Vec<(f64, bool)> = report.levels.iter().map(|l| (l.level, l.passed)).collect();
        assert_eq!(verdicts.iter().filter(|(_, passed)| *passed).count(), 6, "{verdicts:?}");
        assert!(verdicts.iter().all(|(level, passed)| *passed == (*level <= 11.0)), "{verdicts:?}");
        // What a user follows: each level announced with its number and size, then its verdict.
        assert_eq!(events.iter().filter(|e| matches!(e, SearchEvent::Started { .. })).count(), 8);
        assert!(matches!(events[0], SearchEvent::Started { index: 1, level, requests: 200 } if level == 1.0));
        assert!(matches!(&events[15], SearchEvent::Finished(l) if l.level == 11.0 && l.passed));
        let sent: u64 = endpoint.asked.iter().map(|(_, r, w)| u64::from(r + w)).sum();
        assert_eq!(report.requests_sent, sent, "warm-ups are sent requests too");
    }

    #[tokio::test]
    async fn a_rate_search_runs_open_loops_and_stops_at_its_resolution() {
        let mut spec = spec(LoadAxis::Rate, &["ttft_p95_ms<=500"]);
        spec.levels = LevelPlan::Search(SearchSpace { axis: LoadAxis::Rate, min: 1.0, max: 1000.0, resolution: 0.05 });
        spec.poisson = true;
        let mut endpoint = ScriptedEndpoint::new(37.0);
        let report = sweep(&mut endpoint, &spec, |_| {}).await.unwrap();
        for (mode, _, _) in &endpoint.asked {
            assert!(matches!(mode, LoadMode::Open { poisson: true, max_concurrency: 64, .. }), "{mode:?}");
        }
        let answer = report.answer.unwrap();
        let lowest_failure = report.levels.iter().filter(|l| !l.passed).map(|l| l.level).fold(f64::MAX, f64::min);
        assert!(answer <= 37.0 && lowest_failure > 37.0, "{answer} passes, {lowest_failure} fails");
        assert!(lowest_failure <= answer * 1.05, "bisected to 5 %: {answer}..{lowest_failure}");
    }

    #[tokio::test]
    async fn nothing_passing_ends_after_the_lowest_level_and_every_level_passing_is_at_least_the_top() {
        let spec = spec(LoadAxis::Concurrency, &["ttft_p95_ms<=500"]);
        let mut nothing = ScriptedEndpoint::new(0.0);
        let report = sweep(&mut nothing, &spec, |_| {}).await.unwrap();
        assert_eq!(levels_asked(&nothing), [1.0]);
        assert_eq!((report.answer, report.bounded), (None, true));
        let mut everything = ScriptedEndpoint::new(1_000.0);
        let report = sweep(&mut everything, &spec, |_| {}).await.unwrap();
        assert_eq!(levels_asked(&everything), [1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0]);
        assert_eq!((report.answer, report.bounded), (Some(64.0), false), "at least 64");
    }

    #[tokio::test]
    async fn a_level_that_cannot_run_ends_the_sweep_with_its_reason() {
        let spec = spec(LoadAxis::Concurrency, &["ttft_p95_ms<=500"]);
        let mut endpoint = ScriptedEndpoint { fail_at: Some(3), ..ScriptedEndpoint::new(11.0) };
        let outcome = sweep(&mut endpoint, &spec, |_| {}).await;
        assert_eq!(outcome.unwrap_err(), SweepError::Level(LevelError::Stopped));
        assert_eq!(levels_asked(&endpoint), [1.0, 2.0, 4.0], "no level after the one that failed");
        let no_objective = CapacitySpec { criteria: Criteria { slos: vec![], max_error_rate: 0.0 }, ..spec };
        let refused = sweep(&mut ScriptedEndpoint::new(11.0), &no_objective, |_| {}).await;
        assert_eq!(refused.unwrap_err(), SweepError::NoObjective);
    }
}
