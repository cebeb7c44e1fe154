//! A repeated run: one level run again and again, with a rest between, each repetition judged like any level of a
//! sweep (its run stored, its verdict kept), then every headline figure summarised over the repetitions — mean,
//! t-based interval, run-to-run variation, and whether the repetitions agree.

use super::{mode_of, notes, requests_for, warmup_for, CapacitySpec, LevelRunner, SearchEvent, SweepError};
use crate::capacity::judge::level_figures;
use crate::capacity::model::LoadAxis;
use crate::capacity::report::{
    repeated_report, AnswerInterval, CapacityLevel, CapacityReport, RepeatedReport, Repetition,
};

/// What a repeated run asks for.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Repeat {
    pub axis: LoadAxis,
    pub level: f64,
    pub repetitions: u32,
    pub pause_s: f64,
}

/// Runs `repeat.level` `repeat.repetitions` times; after each, tells the levels so far and the summary over them.
pub(super) async fn repeat(
    runner: &mut impl LevelRunner,
    spec: &CapacitySpec,
    repeat: Repeat,
    on_event: &mut impl FnMut(SearchEvent),
) -> Result<CapacityReport, SweepError> {
    let started = std::time::Instant::now();
    let Repeat { axis, level, repetitions, pause_s } = repeat;
    let (mut levels, mut samples, mut sent) = (Vec::new(), Vec::new(), 0u64);
    let mut summary = repeated_report(&samples);
    for index in 1..=repetitions as usize {
        if index > 1 && pause_s > 0.0 {
            runner.pause(pause_s).await?;
        }
        let requests = requests_for(spec, level);
        on_event(SearchEvent::Started { index, level, requests });
        let run = runner.run_level(mode_of(spec, level), requests, warmup_for(level)).await?;
        let figures = level_figures(axis, level, &spec.criteria, &run);
        // Without objectives every successful request is good: the share would repeat the error rate.
        let good = (!spec.criteria.slos.is_empty()).then_some(figures.good_fraction);
        samples.push(Repetition::of_records(&run.records, good));
        sent += run.records.len() as u64;
        on_event(SearchEvent::Finished(Box::new(figures.clone())));
        levels.push(figures);
        summary = repeated_report(&samples);
        on_event(SearchEvent::Repeated(Box::new(summary.clone())));
    }
    // The summary after the last repetition is the final one.
    let mut report = repeated_progress(spec, &levels, summary, started.elapsed().as_secs_f64());
    report.requests_sent = sent;
    Ok(report)
}

/// The report of the repetitions so far: every repetition's level and verdict, and the summary over them. The
/// answer is the level when every repetition passed; a repeated run has no knee and no bootstrap interval.
pub fn repeated_progress(
    spec: &CapacitySpec,
    levels: &[CapacityLevel],
    repeated: RepeatedReport,
    wall_s: f64,
) -> CapacityReport {
    let all_passed = !levels.is_empty() && levels.iter().all(|l| l.passed);
    let mut notes = notes(spec, levels);
    notes.extend(repeated.notes.iter().cloned());
    CapacityReport {
        axis: spec.levels.axis(),
        slos: spec.criteria.slos.clone(),
        max_error_rate: spec.criteria.max_error_rate,
        answer: levels.first().filter(|_| all_passed).map(|l| l.level),
        bounded: !all_passed,
        interval: AnswerInterval { low: None, high: None, resamples: 0 },
        knee: None,
        stopped_early: false,
        notes,
        requests_sent: levels.iter().map(|l| l.requests).sum(),
        levels: levels.to_vec(),
        probes: vec![],
        wall_s,
        repeated: Some(repeated),
    }
}
