//! A Guard schedule's page, the parts that change only when the page is read again: what the schedule runs and
//! costs, its baseline and the earlier ones, the runs that could be pinned, the history chart, every evaluation
//! with why it did or did not alert, and the webhook delivery log.

use leptos::prelude::*;

use crate::fragments::render;
use crate::guard::charts::{schedule_history, HistoryChange, HistoryPoint};
use crate::guard::model::{
    BaselineSource, BenchmarkSet, CostEstimate, EvaluationStatus, EvaluationView, GuardSummary, Metric, PooledInfo,
    ReferenceFrom, Schedule, ScheduleDetail, ScheduleWorkload, WebhookDelivery, ADVISED_MIN_PROMPTS,
    MIN_POOLED_EVALUATIONS,
};
use crate::model::utc_second as when;
use crate::wire::ServerHtml;

fn ms(v: Option<f64>) -> String {
    v.map_or("—".into(), |v| format!("{v:.1} ms"))
}

/// The header: what the schedule runs, against what, how often and at what cost; its last failure.
pub fn schedule_header(detail: &ScheduleDetail) -> ServerHtml {
    let d = detail.clone();
    render(
        view! { <ScheduleHeader schedule=d.schedule set=d.set workload=d.workload connector_name=d.connector_name cost=d.cost mutes=d.mutes/> },
    )
}

/// The baseline in force (a pinned run, or the pool of earlier evaluations with its n) and the earlier pins.
pub fn baselines(detail: &ScheduleDetail) -> ServerHtml {
    let (baseline, earlier) = (detail.baseline.clone(), detail.earlier_baselines.clone());
    let source = detail.schedule.input.policy.baseline;
    let in_force = match (source.is_pooled(), &detail.pool, &baseline) {
        (true, pool, _) => pooled_baseline(source, pool.as_ref()).into_any(),
        (false, _, Some(b)) => view! { <p id="baseline-info">
            {format!("Pinned {} UTC from ", when(b.pinned_at_ms))}<a href=format!("/runs/{}", b.run_id)>"this run"</a>
            {format!(": {} successful requests, p95 {}, mean {}.", b.n, ms(b.summary.p95_ms), ms(b.summary.mean_ms))}
        </p> }.into_any(),
        (false, _, None) => view! { <p id="baseline-info" class="warning">"No baseline yet: runs are recorded but not compared. Pin a completed run of this connector sending what the schedule sends (30 or more requests make a steady one; a run of the schedule itself, by Run now, is the surest)."</p> }.into_any(),
    };
    // While the baseline is pooled, a pinned run is kept but not compared with: it is listed with the earlier ones.
    let pinned_unused = baseline.filter(|_| source.is_pooled()).map(|b| (b, true));
    let kept: Vec<_> = pinned_unused.into_iter().chain(earlier.into_iter().map(|b| (b, false))).collect();
    render(view! {
        {in_force}
        {(!kept.is_empty()).then(|| view! {
            <details id="earlier-baselines"><summary>{format!("{} earlier baseline(s)", kept.len())}</summary>
                <ul>{kept.into_iter().map(|(b, unused)| view! { <li>
                    {format!("Pinned {} UTC from ", when(b.pinned_at_ms))}<a href=format!("/runs/{}", b.run_id)>"this run"</a>
                    {format!(": {} requests, p95 {}, mean {}", b.n, ms(b.summary.p95_ms), ms(b.summary.mean_ms))}
                    {unused.then_some(" (pinned, not used while the baseline is pooled)")}
                </li> }).collect_view()}</ul>
            </details>
        })}
    })
}

/// A rolling or time-window baseline: its rule, how many evaluations and requests it pools, their figures.
fn pooled_baseline(source: BaselineSource, pool: Option<&PooledInfo>) -> impl IntoView {
    let rule = source.describe();
    let needed = MIN_POOLED_EVALUATIONS;
    match pool {
        Some(p) if p.pool.is_enough() => view! { <p id="baseline-info">
            {format!(
                "Compared with {rule}, pooled: {} evaluations finished {} to {} UTC, {} successful requests, p95 {}, mean {} (p95 and mean of the pooled requests; tok/s, cost and error rate averaged per run).",
                p.pool.evaluations, when(p.pool.first_at_ms), when(p.pool.last_at_ms), p.n, ms(p.summary.p95_ms), ms(p.summary.mean_ms),
            )}
        </p> }.into_any(),
        Some(p) => view! { <p id="baseline-info" class="warning">
            {format!(
                "Compared with {rule}, once there are {needed}: {} so far ({} requests). Until then runs are recorded, not compared.",
                p.pool.evaluations, p.n,
            )}
        </p> }.into_any(),
        None => view! { <p id="baseline-info" class="warning">
            {format!("Compared with {rule}, once there are {needed}: none yet of the requests the schedule sends now. Until then runs are recorded, not compared (Run now fills the pool sooner).")}
        </p> }.into_any(),
    }
}

/// The `<option>`s of the runs that could be pinned as baseline, newest first.
pub fn pinnable_choices(detail: &ScheduleDetail) -> ServerHtml {
    let runs = detail.pinnable_runs.clone();
    render(view! {
        {runs.into_iter().map(|r| view! { <option value=r.id.to_string()>{format!("{} · {} UTC", r.title, when(r.created_at_ms))}</option> }).collect_view()}
    })
}

/// The history chart with the history's `changes` (`guard::history_changes`), the evaluations and the webhook
/// deliveries.
pub fn history(detail: &ScheduleDetail, changes: Vec<(Metric, HistoryChange)>) -> ServerHtml {
    // The band is the baseline in force: the pool's figures while the baseline is pooled, else the pinned run's.
    let in_force: Option<&GuardSummary> = if detail.schedule.input.policy.baseline.is_pooled() {
        detail.pool.as_ref().map(|p| &p.summary)
    } else {
        detail.baseline.as_ref().map(|b| &b.summary)
    };
    let band = in_force.and_then(|s| s.mean_ms.zip(s.p95_ms));
    let settings = crate::guard::judge::change_point_settings(&detail.schedule.input);
    let charted: Vec<HistoryChange> = changes
        .iter()
        .filter(|(metric, _)| matches!(metric, Metric::P95Ms | Metric::MeanMs))
        .map(|(_, change)| change.clone())
        .collect();
    let svg = schedule_history(&history_points(&detail.evaluations), band, &charted);
    let (evaluations, deliveries) = (detail.evaluations.clone(), detail.deliveries.clone());
    render(view! {
        <h2>"History"</h2>
        <p class="muted">"p95 and mean total time of each evaluation; the band is the baseline from its mean to its p95; large red marks breached; dashed upright lines are change points of p95 or mean; inconclusive runs are not plotted."</p>
        <div class="chart-box" id="history" inner_html=svg></div>
        <div id="change-points">
            <p class="muted">{format!("Change points: {}.", settings.describe())}</p>
            {match changes.is_empty() {
                true => view! { <p>"None in this history."</p> }.into_any(),
                false => view! { <ul>{changes.into_iter().map(|(_, c)| view! { <li>{c.label}</li> }).collect_view()}</ul> }.into_any(),
            }}
        </div>
        <h2>"Evaluations"</h2>
        <p class="muted">"Each compares this run's successful total times with the baseline's (Welch's t-test, two-sided) and checks every threshold."</p>
        <table class="table" id="evaluations">
            <thead><tr><th>"Started (UTC)"</th><th>"By"</th><th>"Outcome"</th><th>"n (baseline / run)"</th><th>"p95 / mean"</th><th>"Welch p"</th><th>"Why"</th></tr></thead>
            <tbody>{evaluations.into_iter().map(evaluation_row).collect_view()}</tbody>
        </table>
        <h2>"Webhook deliveries"</h2>
        <DeliveriesTable deliveries/>
    })
}

#[component]
fn ScheduleHeader(
    schedule: Schedule,
    set: BenchmarkSet,
    workload: Option<ScheduleWorkload>,
    connector_name: Option<String>,
    cost: CostEstimate,
    mutes: Vec<crate::guard::model::Mute>,
) -> impl IntoView {
    let enabled = schedule.input.enabled;
    let requests = workload.as_ref().map_or(set.prompts.len(), |w| w.spec.requests() as usize);
    let streamed = if schedule.input.stream { "streamed (TTFT and TPOT measured)" } else { "not streamed" };
    let sends = match &workload {
        None => format!("Runs the set \"{}\" ({} prompts, once each, {streamed}, temperature 0.2) against ", set.name, set.prompts.len()),
        Some(w) => format!(
            "Sends the workload \"{}\" (as copied when the schedule was saved: {}), with the set \"{}\"'s system prompt, one request at a time, {streamed}, temperature 0.2, against ",
            w.name, w.spec.describe(), set.name
        ),
    };
    let no_dollars = workload.as_ref().is_some_and(|w| w.spec.reads_a_file());
    // A set's cost counts every answer at max_tokens; a workload's, each length at its mean.
    let at_means = workload.is_some();
    view! {
        <section class="run-header">
            <h2 id="schedule-title">{schedule.input.name.clone()}</h2>
            <p class="muted" id="schedule-sends">
                {sends}
                {connector_name.unwrap_or_else(|| "a deleted connector".into())}
                {format!(" every {} · {} · next run {} UTC · {} requests a day", schedule.input.cadence.as_str(), if enabled { "active" } else { "paused" }, when(schedule.next_run_at_ms), cost.requests_per_day)}
                {cost.usd_per_day.map(|usd| match at_means {
                    true => format!(", about ${usd:.4} a day at the workload's mean lengths"),
                    false => format!(", about ${usd:.4} a day at most"),
                })}
                {no_dollars.then_some(" (a dataset's token counts are in its rows: no cost estimate)")}
            </p>
            {schedule.last_error.clone().zip(schedule.last_status.filter(|s| s.unmeasured())).map(|(e, status)| view! {
                <p class="error" id="last-error">{format!("Last run {}: {e}", if status == EvaluationStatus::Failed { "failed" } else { "could not be judged" })}</p>
            })}
            <p class="muted" id="schedule-policy-info">{schedule.input.policy.describe()}</p>
            {(!mutes.is_empty()).then(|| view! {
                <p class="warning" id="schedule-muted">{mutes.iter().map(|m| format!(
                    "{} muted until {} UTC: evaluations go on and alerts open in the feed, nothing is sent.",
                    m.threshold_key.as_deref().map_or("The whole schedule".to_string(), |k| format!("Threshold {k}")),
                    when(m.until_ms)
                )).collect::<Vec<_>>().join(" ")}</p>
            })}
            {(requests < ADVISED_MIN_PROMPTS).then(|| view! { <p class="warning">{format!("A run sends {requests} request(s); at least {ADVISED_MIN_PROMPTS} are advised for Welch's test.")}</p> })}
        </section>
    }
}

/// The webhook delivery log.
#[component]
fn DeliveriesTable(deliveries: Vec<WebhookDelivery>) -> impl IntoView {
    if deliveries.is_empty() {
        view! { <p class="muted" id="no-deliveries">"No webhook messages yet."</p> }.into_any()
    } else {
        view! {
                <table class="table" id="deliveries">
                    <thead><tr><th>"Message"</th><th>"Written (UTC)"</th><th>"Attempts"</th><th>"State"</th></tr></thead>
                    <tbody>{deliveries.into_iter().map(|d| {
                        let state = match (d.delivered_at_ms, d.gave_up_at_ms) {
                            (Some(at), _) => format!("delivered {}", when(at)),
                            (_, Some(at)) => format!("gave up {}: {}", when(at), d.last_error.clone().unwrap_or_default()),
                            _ => format!("next attempt {}{}", when(d.next_attempt_at_ms), d.last_error.clone().map(|e| format!(" · last: {e}")).unwrap_or_default()),
                        };
                        view! { <tr><td class="mono">{d.id.clone()}{d.alert_id.is_none().then_some(" (test)")}</td><td>{when(d.created_at_ms)}</td><td>{d.attempts}</td><td>{state}</td></tr> }
                    }).collect_view()}</tbody>
                </table>
            }.into_any()
    }
}

fn evaluation_row(e: EvaluationView) -> impl IntoView {
    let pooled = match &e.baseline_from {
        Some(ReferenceFrom::Pooled(pool)) => Some(pool),
        _ => None,
    };
    let n = match (e.baseline_n, e.observed_n) {
        (Some(b), Some(o)) => match pooled {
            Some(pool) => format!("{b} / {o} ({} evaluations pooled)", pool.evaluations),
            None => format!("{b} / {o}"),
        },
        (None, Some(o)) => format!("— / {o}"),
        _ => "—".into(),
    };
    let figures = e.observed_summary.map_or("—".into(), |s| format!("{} / {}", ms(s.p95_ms), ms(s.mean_ms)));
    let pending = e
        .pending
        .iter()
        .map(|p| {
            format!(
                "; {} breached {} of the last {}: the alert opens at {}",
                p.threshold_key, p.breaches, p.of, p.needed
            )
        })
        .collect::<String>();
    let why = match (&e.error, &e.decision) {
        (Some(error), _) if e.status == EvaluationStatus::Inconclusive => format!("not judged: {error}"),
        (Some(error), _) => error.clone(),
        (None, Some(d)) => d
            .checks
            .iter()
            .map(|c| format!("{} {}: {}", c.threshold.metric.as_str(), c.threshold.op.as_str(), c.reason))
            .collect::<Vec<_>>()
            .join("; "),
        (None, None) => match e.status {
            EvaluationStatus::NoBaseline => match pooled {
                Some(pool) => format!(
                    "filling the pool: {} of the {MIN_POOLED_EVALUATIONS} evaluations needed; recorded, not compared",
                    pool.evaluations
                ),
                None => "no baseline yet: recorded, not compared".into(),
            },
            EvaluationStatus::Running => "the run is under way".into(),
            EvaluationStatus::Healthy
            | EvaluationStatus::Breached
            | EvaluationStatus::Inconclusive
            | EvaluationStatus::Failed => String::new(),
        },
    } + &pending;
    let failed = e.status == EvaluationStatus::Failed;
    let inconclusive = e.status == EvaluationStatus::Inconclusive;
    let status = e.status.label();
    let outcome = match e.run_id {
        Some(run) => view! { <a href=format!("/runs/{run}")>{status}</a> }.into_any(),
        None => view! { <span>{status}</span> }.into_any(),
    };
    view! {
        <tr class:failed=failed class:inconclusive=inconclusive>
            <td>{when(e.started_at_ms)}</td>
            <td>{e.trigger.label()}</td>
            <td class="status">{outcome}</td>
            <td>{n}</td>
            <td>{figures}</td>
            <td>{e.p_value.map_or("—".into(), crate::report::p_value)}</td>
            <td class="why">{why}</td>
        </tr>
    }
}

/// The chart's points: every finished evaluation, breaches marked.
fn history_points(evaluations: &[EvaluationView]) -> Vec<HistoryPoint> {
    evaluations
        .iter()
        .filter_map(|e| {
            let breached = match e.status {
                // An inconclusive run's figures describe its failure, not the endpoint's speed.
                EvaluationStatus::Running | EvaluationStatus::Inconclusive => return None,
                EvaluationStatus::Breached => true,
                EvaluationStatus::Healthy | EvaluationStatus::NoBaseline | EvaluationStatus::Failed => false,
            };
            Some(HistoryPoint {
                at_ms: e.started_at_ms,
                p95_ms: e.observed_summary.and_then(|s| s.p95_ms),
                mean_ms: e.observed_summary.and_then(|s| s.mean_ms),
                breached,
            })
        })
        .collect()
}

/// The feed's cards for `alerts` (as the store lists them): one an incident (`model::folded`), each with why it
/// opened drawn.
pub fn feed(alerts: Vec<crate::guard::model::AlertView>) -> Vec<crate::guard::model::AlertView> {
    let mut cards = crate::guard::model::folded(alerts);
    for card in &mut cards {
        let drawn = card.context.as_ref().map(|context| why(context, card.run_id, &card.also));
        card.why_html = drawn.map(ServerHtml::trusted);
    }
    cards
}

/// Why a breaching evaluation may have breached, as the feed's card says it below its first breach: the others it
/// breached (`also`), what changed since the baseline, the run's verdict, and its slowest requests with a link to
/// them in its report.
pub fn why(
    context: &crate::guard::model::AlertContext,
    run: Option<crate::model::RunId>,
    also: &[crate::guard::model::Breach],
) -> String {
    let also: Vec<String> = also.iter().map(crate::guard::notify::opened_line).collect();
    let slowest = context.slowest_line().map(|line| match run {
        Some(run) => view! {
            // A whole page load (`rel="external"`: not the router's), so the browser scrolls to the section.
            <li>{line}" · "<a class="slowest" rel="external" href=format!("/runs/{run}#slowest")>"see them in the run"</a></li>
        }
        .into_any(),
        None => view! { <li>{line}</li> }.into_any(),
    });
    let invalid = context.verdict == crate::model::Verdict::Invalid;
    render(view! {
        <ul class="why">
            {also.into_iter().map(|line| view! { <li class="also">"Also breached in this evaluation: "{line}</li> }).collect_view()}
            <li class="changed" class:none=context.changes.is_empty()>{context.changed_line()}</li>
            <li class="validity" class:invalid=invalid>{context.validity_line()}</li>
            {slowest}
        </ul>
    })
    .into_string()
}
