//! The create/edit form of a Guard schedule: set, connector, the set's prompts or a saved workload, cadence with
//! what it will cost, thresholds (each read back as a sentence), the significance rule, the alert policy, and where
//! alerts go. A new schedule opens once saved; one sending to a webhook first shows its signing secret, once.

use leptos::prelude::*;
use leptos_router::hooks::use_navigate;

use crate::ui::components::ErrorBox;

use crate::guard::api::{
    save_schedule, ConnectorChoice, MailSetup, SavedSchedule, ScheduleChoices, ScheduleWorkloadChoice, SetChoice,
};
use crate::guard::model::{
    AlertPolicy, BaselineSource, Cadence, CostEstimate, Metric, Notify, Op, Receiver, Schedule, ScheduleInput,
    Severity, Threshold, ADVISED_MIN_PROMPTS, PAGERDUTY_EVENTS_URL,
};
use crate::model::Checked;

const OPS: [Op; 4] = [Op::PctIncrease, Op::PctDecrease, Op::AbsIncrease, Op::ChangePoint];

fn select_value<T: Copy>(options: &[T], name: impl Fn(T) -> &'static str, value: &str) -> Option<T> {
    options.iter().copied().find(|o| name(*o) == value)
}

/// The form's fields as signals, seeded from the schedule being edited or a new one's defaults. The alert policy's
/// fields are kept as typed: a number that does not parse is sent as 0 (or NaN) for the server to refuse with the
/// field's name. They are bound in the form's own view: of the ways tried, the one that costs the page's bundle
/// least (a component of their own cost 2 KB of gzip more).
#[derive(Clone, Copy)]
struct Fields {
    name: RwSignal<String>,
    set: RwSignal<String>,
    connector: RwSignal<String>,
    /// "": the set's prompts.
    workload: RwSignal<String>,
    cadence: RwSignal<Cadence>,
    enabled: RwSignal<bool>,
    webhook: RwSignal<String>,
    receiver: RwSignal<Receiver>,
    /// Written only: the stored key never comes back, so an empty field keeps it.
    routing_key: RwSignal<String>,
    email: RwSignal<String>,
    email_owner: RwSignal<bool>,
    alpha: RwSignal<String>,
    significance: RwSignal<bool>,
    stream: RwSignal<bool>,
    thresholds: RwSignal<Vec<Threshold>>,
    breaches: RwSignal<String>,
    of: RwSignal<String>,
    recover: RwSignal<String>,
    cannot: RwSignal<String>,
    errors: RwSignal<String>,
    samples: RwSignal<String>,
    pool_kind: RwSignal<&'static str>,
    pool_size: RwSignal<String>,
    /// The policy as stored, for what the form does not edit.
    policy: AlertPolicy,
}

impl Fields {
    fn new(first: Option<&ScheduleInput>, choices: &ScheduleChoices) -> Self {
        let text = |pick: &dyn Fn(&ScheduleInput) -> Option<String>, default: Option<String>| {
            RwSignal::new(first.and_then(pick).or(default).unwrap_or_default())
        };
        let policy = first.map_or_else(AlertPolicy::for_new_schedule, |i| i.policy);
        let count = |n: u32| RwSignal::new(n.to_string());
        let (pool_kind, pool_size) = match policy.baseline {
            BaselineSource::Pinned => ("pinned", count(10)),
            BaselineSource::Rolling { last } => ("rolling", count(last)),
            BaselineSource::Window { hours } => ("window", count(hours)),
        };
        Fields {
            name: text(&|i| Some(i.name.clone()), None),
            set: text(&|i| Some(i.set_id.to_string()), choices.sets.first().map(|s| s.id.to_string())),
            connector: text(
                &|i| Some(i.connector_id.to_string()),
                choices.connectors.first().map(|c| c.id.to_string()),
            ),
            workload: text(&|i| i.workload_id.map(|w| w.to_string()), None),
            cadence: RwSignal::new(first.map_or(Cadence::Hourly, |i| i.cadence)),
            enabled: RwSignal::new(first.is_none_or(|i| i.enabled)),
            webhook: text(&|i| i.notify.webhook_url.clone(), None),
            receiver: RwSignal::new(first.map(|i| i.notify.receiver).unwrap_or_default()),
            routing_key: RwSignal::new(String::new()),
            email: text(&|i| i.notify.email.clone(), None),
            // A new schedule mails the owner when there is an address to mail.
            email_owner: RwSignal::new(first.map_or(choices.mail.owner_contact.is_some(), |i| i.notify.email_owner)),
            alpha: RwSignal::new(first.map_or("0.05".to_string(), |i| i.alpha.to_string())),
            significance: RwSignal::new(first.is_none_or(|i| i.require_significance)),
            stream: RwSignal::new(first.is_some_and(|i| i.stream)),
            thresholds: RwSignal::new(first.map(|i| i.thresholds.clone()).unwrap_or_else(|| {
                vec![Threshold {
                    metric: Metric::P95Ms,
                    op: Op::PctIncrease,
                    value: 20.0,
                    severity: Severity::Warn,
                    test: None,
                }]
            })),
            breaches: count(policy.sustain_breaches),
            of: count(policy.sustain_of),
            recover: count(policy.recover_after),
            cannot: count(policy.cannot_measure_after),
            errors: RwSignal::new((policy.max_error_rate * 100.0).to_string()),
            samples: count(policy.min_samples),
            pool_kind: RwSignal::new(pool_kind),
            pool_size,
            policy,
        }
    }

    /// The schedule the fields spell, for the server to check.
    fn input(self) -> ScheduleInput {
        let count = |text: RwSignal<String>| text.get_untracked().trim().parse::<u32>().unwrap_or(0);
        let receiver = self.receiver.get_untracked();
        ScheduleInput {
            name: self.name.get_untracked(),
            set_id: self.set.get_untracked().parse().unwrap_or(crate::model::BenchmarkSetId(uuid::Uuid::nil())),
            connector_id: self
                .connector
                .get_untracked()
                .parse()
                .unwrap_or(crate::model::ConnectorId(uuid::Uuid::nil())),
            enabled: self.enabled.get_untracked(),
            cadence: self.cadence.get_untracked(),
            notify: Notify {
                webhook_url: Some(self.webhook.get_untracked()),
                email: Some(self.email.get_untracked()),
                email_owner: self.email_owner.get_untracked(),
                receiver,
                routing_key: Some(self.routing_key.get_untracked()).filter(|_| receiver == Receiver::PagerDuty),
                routing_key_set: false,
            },
            thresholds: self.thresholds.get_untracked(),
            alpha: self.alpha.get_untracked().trim().parse().unwrap_or(f64::NAN),
            require_significance: self.significance.get_untracked(),
            workload_id: self.workload.get_untracked().parse().ok(),
            stream: self.stream.get_untracked(),
            policy: AlertPolicy {
                sustain_breaches: count(self.breaches),
                sustain_of: count(self.of),
                recover_after: count(self.recover),
                cannot_measure_after: count(self.cannot),
                max_error_rate: self.errors.get_untracked().trim().parse::<f64>().map_or(f64::NAN, |pct| pct / 100.0),
                min_samples: count(self.samples),
                baseline: match self.pool_kind.get_untracked() {
                    "rolling" => BaselineSource::Rolling { last: count(self.pool_size) },
                    "window" => BaselineSource::Window { hours: count(self.pool_size) },
                    _ => BaselineSource::Pinned,
                },
                ..self.policy
            },
        }
    }
}

/// The form; `existing` is `None` for a new schedule.
#[component]
pub fn ScheduleForm(existing: Option<Schedule>, choices: ScheduleChoices) -> impl IntoView {
    let id = existing.as_ref().map(|s| s.id);
    let key_set = existing.as_ref().is_some_and(|s| s.input.notify.routing_key_set);
    let fields = Fields::new(existing.as_ref().map(|s| &s.input), &choices);
    let Fields { name, set, connector, workload, cadence, enabled, webhook, receiver, routing_key, email, .. } = fields;
    let Fields { email_owner, alpha, significance, stream, thresholds, breaches, of, recover, cannot, .. } = fields;
    let Fields { errors, samples, pool_kind, pool_size, .. } = fields;
    let ScheduleChoices { sets, connectors, workloads, mail } = choices;
    // Once created, the form edits what it created: a second click saves it again rather than making another.
    let saved_id = StoredValue::new(id);
    // A new schedule's signing secret, kept in view while the form is (the reply that created it is the only one
    // to carry it).
    let secret = StoredValue::new(None::<String>);
    let save = Action::new(move |_: &()| {
        let (input, id) = (fields.input(), saved_id.get_value());
        async move {
            let saved = save_schedule(id, Checked(input)).await;
            if let Ok(saved) = &saved {
                saved_id.set_value(Some(saved.schedule.id));
                if saved.webhook_secret.is_some() {
                    secret.set_value(saved.webhook_secret.clone());
                }
            }
            saved
        }
    });
    // A new schedule opens once saved, unless it has a signing secret to show this once (then the notice links it).
    let navigate = use_navigate();
    Effect::new(move |_| {
        if let Some(Ok(saved)) = save.value().get() {
            if id.is_none() && secret_shown(&saved, secret.get_value()).is_none() {
                navigate(&format!("/guard/schedules/{}", saved.schedule.id), Default::default());
            }
        }
    });
    view! {
        <form class="connector-form" id="schedule-form" on:submit=move |ev| { ev.prevent_default(); save.dispatch(()); } novalidate>
            <label>"Name"<input id="schedule-name" bind:value=name/></label>
            <TargetFields choices=(sets, connectors, workloads) set connector workload cadence/>
            <label class="inline"><input type="checkbox" id="schedule-stream" bind:checked=stream/>
                " Stream the requests, so TTFT, TPOT and time to first output are measured and may have thresholds"</label>
            <ThresholdsFieldset thresholds/>
            <div class="prices">
                <label class="inline"><input type="checkbox" id="require-significance" bind:checked=significance/>
                    " A latency threshold (p95, mean, tok/s) alerts only when Welch's p-value is below α too"</label>
                <label>"α"<input id="schedule-alpha" inputmode="decimal" bind:value=alpha/></label>
            </div>
            <fieldset id="schedule-policy">
                <legend>"Alerting (counts of healthy or breached evaluations; a run outside the last two limits is inconclusive)"</legend>
                {id.is_none().then(|| view! {
                    <p class="muted" id="policy-why">"A new schedule alerts after 2 breaches in its last 3 evaluations: in Guard's \
                        detection benchmark that cut the histories with a false alarm from 38 % to 8 %, and a real slowdown \
                        still alerts, about two evaluations later (docs/PERFORMANCE.md, \"Guard's tests\")."</p>
                })}
                <div class="prices">
                    <label>"Alert after breaches"<input id="policy-breaches" inputmode="numeric" bind:value=breaches/></label>
                    <label>"in the last evaluations"<input id="policy-of" inputmode="numeric" bind:value=of/></label>
                    <label>"Recovered after healthy"<input id="policy-recover" inputmode="numeric" bind:value=recover/></label>
                    <label>"\"Cannot measure\" after"<input id="policy-cannot-measure" inputmode="numeric" bind:value=cannot/></label>
                    <label>"Valid run: errors at most %"<input id="policy-max-errors" inputmode="decimal" bind:value=errors/></label>
                    <label>"and successful requests at least"<input id="policy-min-samples" inputmode="numeric" bind:value=samples/></label>
                    <label>"Compare with"<select id="policy-baseline" on:change=move |ev| pool_kind.set(match event_target_value(&ev).as_str() {
                        "rolling" => "rolling",
                        "window" => "window",
                        _ => "pinned",
                    })>
                        <option value="pinned" selected=pool_kind.get_untracked() == "pinned">"the pinned run"</option>
                        <option value="rolling" selected=pool_kind.get_untracked() == "rolling">"the last N healthy evaluations"</option>
                        <option value="window" selected=pool_kind.get_untracked() == "window">"healthy evaluations of the last N hours"</option>
                    </select></label>
                    <label hidden=move || pool_kind.get() == "pinned">"N"<input id="policy-baseline-size" inputmode="numeric" bind:value=pool_size/></label>
                </div>
            </fieldset>
            <div class="prices">
                <label>"Alerts go to"<select id="schedule-receiver" on:change=move |ev| {
                    let Some(r) = Receiver::parse(&event_target_value(&ev)) else { return };
                    // PagerDuty's own endpoint, filled in on saving, means nothing to another receiver.
                    if r != Receiver::PagerDuty && webhook.get_untracked() == PAGERDUTY_EVENTS_URL { webhook.set(String::new()) }
                    receiver.set(r)
                }>
                    {Receiver::ALL.into_iter().map(|r| view! {
                        <option value=r.as_str() selected=move || receiver.get() == r>{r.label()}</option>
                    }).collect_view()}
                </select></label>
                <label>{move || receiver.get().address_field().0}
                    <input id="schedule-webhook" placeholder=move || receiver.get().address_field().1 bind:value=webhook/></label>
                <Show when=move || receiver.get() == Receiver::PagerDuty>
                    <label>{if key_set { "Routing key (stored; empty keeps it)" } else { "Routing key" }}
                        <input id="schedule-routing-key" type="password" autocomplete="off" bind:value=routing_key/></label>
                </Show>
                <label>"Also e-mail (optional)"<input id="schedule-email" type="email" bind:value=email/></label>
            </div>
            <OwnerMailSwitch mail email_owner/>
            <label class="inline"><input type="checkbox" id="schedule-enabled" bind:checked=enabled/>" Active (unticked: paused)"</label>
            <div class="actions">
                <button type="submit" id="save-schedule" class="primary" disabled=move || save.pending().get()>
                    {move || if id.is_some() || matches!(save.value().get(), Some(Ok(_))) { "Save schedule" } else { "Create schedule" }}
                </button>
            </div>
            {move || match save.value().get() {
                Some(Err(e)) => Some(view! { <ErrorBox message=e.to_string()/> }.into_any()),
                Some(Ok(saved)) => Some(view! { <SavedNotice saved secret=secret.get_value()/> }.into_any()),
                None => None,
            }}
        </form>
    }
}

/// "E-mail the workspace owner", and why nothing would be sent when that is so.
#[component]
fn OwnerMailSwitch(mail: MailSetup, email_owner: RwSignal<bool>) -> impl IntoView {
    let why_not = match (&mail.enabled, &mail.owner_contact) {
        (false, _) => Some(
            "E-mail is off: no SMTP server is configured (the smtp-url setting or LATENCY_GUARD_SMTP_URL). \
            Alerts still reach the feed and the webhook.",
        ),
        (true, None) => Some(
            "The owner has no confirmed contact address, so no e-mail goes to the owner: add one under \
            Settings → Alert e-mail.",
        ),
        (true, Some(_)) => None,
    };
    let to = mail.owner_contact.clone().map(|a| format!(" ({a})")).unwrap_or_default();
    view! {
        <label class="inline"><input type="checkbox" id="schedule-email-owner" bind:checked=email_owner/>
            {format!(" E-mail new alerts to the workspace owner{to}, batched per tick")}</label>
        {why_not.map(|reason| view! {
            <p class="muted" id=if mail.enabled { "owner-mail-off" } else { "email-off" }>{reason}</p>
        })}
    }
}

/// Which set (or saved workload, with the set's system prompt) runs against which connector how often, with a
/// warning when a run sends too few requests and what it costs.
#[component]
fn TargetFields(
    choices: (Vec<SetChoice>, Vec<ConnectorChoice>, Vec<ScheduleWorkloadChoice>),
    set: RwSignal<String>,
    connector: RwSignal<String>,
    workload: RwSignal<String>,
    cadence: RwSignal<Cadence>,
) -> impl IntoView {
    let (sets, connectors, workloads) = choices;
    // The options start chosen as the signals do; after that only the user changes them.
    let (first_set, first_connector, first_workload, first_cadence) =
        (set.get_untracked(), connector.get_untracked(), workload.get_untracked(), cadence.get_untracked());
    let set_options = sets
        .iter()
        .map(|s| {
            let value = s.id.to_string();
            view! { <option selected=value == first_set value=value>{format!("{} ({} prompts)", s.name, s.volume.requests)}</option> }
        })
        .collect_view();
    let connector_options = connectors
        .iter()
        .map(|c| {
            let value = c.id.to_string();
            view! { <option selected=value == first_connector value=value>{format!("{} · {}", c.name, c.model)}</option> }
        })
        .collect_view();
    let workload_options = workloads
        .iter()
        .map(|w| {
            let value = w.id.to_string();
            view! { <option selected=value == first_workload value=value>{format!("{} ({} requests)", w.name, w.requests)}</option> }
        })
        .collect_view();
    // An edited schedule whose saved workload was deleted still sends its copy, which no longer has a choice of its
    // own: it is offered as it is, and saving keeps it.
    let kept_copy = (!first_workload.is_empty() && !workloads.iter().any(|w| w.id.to_string() == first_workload))
        .then(|| view! { <option value=first_workload.clone() selected>"The copy it keeps of a deleted saved workload"</option> });
    let (sets, connectors, workloads) =
        (StoredValue::new(sets), StoredValue::new(connectors), StoredValue::new(workloads));
    let chosen_workload =
        move || workload.with(|id| workloads.with_value(|all| all.iter().find(|w| w.id.to_string() == *id).cloned()));
    // What one run sends: its requests and, unless they are a dataset's rows, its tokens.
    let run = move || {
        let chosen = set.with(|id| sets.with_value(|all| all.iter().find(|s| s.id.to_string() == *id).cloned()))?;
        match chosen_workload() {
            Some(w) => Some((w.requests, w.volume.map(|v| v.with_system_tokens(chosen.system_tokens)))),
            None if workload.with(String::is_empty) => Some((chosen.volume.requests, Some(chosen.volume))),
            // A kept copy: its page's header says what it sends and costs.
            None => None,
        }
    };
    let few_requests = move || run().map(|(n, _)| n).filter(|n| (*n as usize) < ADVISED_MIN_PROMPTS);
    let estimate = move || {
        let prices = connector.with(|chosen| {
            connectors.with_value(|all| all.iter().find(|c| c.id.to_string() == *chosen).map(|c| c.prices()))
        })?;
        let (requests, volume) = run()?;
        Some((CostEstimate::of_runs(requests, volume, cadence.get(), prices), volume.is_some()))
    };
    view! {
        <div class="prices">
            <label>"Benchmark set"<select id="schedule-set" on:change=move |ev| set.set(event_target_value(&ev))>
                {set_options}
            </select></label>
            <label>"Connector"<select id="schedule-connector" on:change=move |ev| connector.set(event_target_value(&ev))>
                {connector_options}
            </select></label>
            <label>"Every"<select id="schedule-cadence" on:change=move |ev| if let Some(c) = Cadence::parse(&event_target_value(&ev)) { cadence.set(c) }>
                {Cadence::ALL.iter().copied().map(|c| view! { <option value=c.as_str() selected=c == first_cadence>{c.as_str()}</option> }).collect_view()}
            </select></label>
        </div>
        <label>"Sends"<select id="schedule-workload" on:change=move |ev| workload.set(event_target_value(&ev))>
            <option value="" selected=first_workload.is_empty()>"The set's prompts, once each"</option>
            {workload_options}
            {kept_copy}
        </select></label>
        <p class="muted" id="schedule-workload-summary">
            {move || match chosen_workload() {
                None if !workload.with(String::is_empty) => "The copy the schedule took of a saved workload since deleted, described on the schedule's page; saving keeps it.".to_string(),
                Some(w) => format!("{} — with the set's system prompt, one request at a time. The schedule keeps a copy of it as it is now.", w.summary),
                None => "Each of the set's prompts once, at its max_tokens. A saved workload of at most 100 requests (Workloads page) may be sent instead.".to_string(),
            }}
        </p>
        {move || few_requests().map(|n| view! { <p class="warning" id="few-prompts">{format!("A run sends {n} request(s); at least {ADVISED_MIN_PROMPTS} are advised: Welch's test with so few requests rarely finds anything significant.")}</p> })}
        <p class="muted" id="schedule-cost">
            {move || match estimate() {
                Some((e, tokens_known)) => format!(
                    "{} requests a day{}",
                    e.requests_per_day,
                    match (e.usd_per_day, tokens_known) {
                        (Some(usd), _) if chosen_workload().is_some() => format!(", about ${usd:.4} a day (each length at the workload's mean, the set's system prompt at 4 characters a token)"),
                        (Some(usd), _) => format!(", about ${usd:.4} a day at most (input tokens estimated at 4 characters each, every answer at max_tokens)"),
                        (None, false) => " (a dataset's token counts are in its rows, so no cost estimate)".to_string(),
                        (None, true) => " (the connector has no prices, so no cost estimate)".to_string(),
                    }
                ),
                None if !workload.with(String::is_empty) => "What the kept copy costs is on the schedule's page.".to_string(),
                None => "Pick a set and a connector to see what it costs.".to_string(),
            }}
        </p>
    }
}

/// A comparison as the form offers it: its words, and which unit its value is in.
fn op_choice(op: Op) -> &'static str {
    match op {
        Op::PctIncrease => "rises by more than (%)",
        Op::PctDecrease => "falls by more than (%)",
        Op::AbsIncrease => "rises by more than (in its unit)",
        Op::ChangePoint => "settles at a worse level, by more than (%)",
    }
}

/// The schedule's thresholds, one row each, editable in place.
#[component]
fn ThresholdsFieldset(thresholds: RwSignal<Vec<Threshold>>) -> impl IntoView {
    let update = move |i: usize, change: Box<dyn FnOnce(&mut Threshold)>| thresholds.update(|all| change(&mut all[i]));
    let update = StoredValue::new(update);
    view! {
        <fieldset>
            <legend>"Thresholds"</legend>
            <p class="muted">"Each row reads as a sentence under it. The value is a percentage, or for \"rises by more than (in its unit)\" the figure's own unit (ms, tok/s, USD, or a fraction for the error rate: 0.05 is 5 points)."</p>
            {move || thresholds.get().into_iter().enumerate().map(|(i, t)| view! {
                <div class="threshold-row">
                    <select class="threshold-metric" on:change=move |ev| if let Some(m) = select_value(Metric::ALL, Metric::as_str, &event_target_value(&ev)) { update.with_value(|u| u(i, Box::new(move |t| t.metric = m))) }>
                        {Metric::ALL.iter().copied().map(|m| view! { <option value=m.as_str() selected=t.metric == m>{m.label()}</option> }).collect_view()}
                    </select>
                    <select class="threshold-op" on:change=move |ev| if let Some(o) = select_value(&OPS, Op::as_str, &event_target_value(&ev)) { update.with_value(|u| u(i, Box::new(move |t| t.op = o))) }>
                        {OPS.into_iter().map(|o| view! { <option value=o.as_str() selected=t.op == o>{op_choice(o)}</option> }).collect_view()}
                    </select>
                    <input class="threshold-value" inputmode="decimal" value=t.value.to_string()
                        on:change=move |ev| { let v = event_target_value(&ev).trim().parse().unwrap_or(f64::NAN); update.with_value(|u| u(i, Box::new(move |t| t.value = v))) }/>
                    <span class="threshold-unit">{t.op.value_unit(t.metric)}</span>
                    <select class="threshold-severity" on:change=move |ev| { let s = if event_target_value(&ev) == "critical" { Severity::Critical } else { Severity::Warn }; update.with_value(|u| u(i, Box::new(move |t| t.severity = s))) }>
                        <option value="warn" selected=t.severity == Severity::Warn>"warn"</option>
                        <option value="critical" selected=t.severity == Severity::Critical>"critical"</option>
                    </select>
                    <button type="button" class="link danger" on:click=move |_| thresholds.update(|all| { all.remove(i); })>"Remove"</button>
                    <p class="threshold-sentence">{t.value.is_finite().then(|| format!("Alerts when {}.", t.sentence()))}</p>
                </div>
            }).collect_view()}
            <button type="button" id="add-threshold" on:click=move |_| thresholds.update(|all| all.push(Threshold { metric: Metric::MeanMs, op: Op::PctIncrease, value: 20.0, severity: Severity::Warn, test: None }))>"Add threshold"</button>
        </fieldset>
    }
}

/// The signing secret a saved schedule shows this once: a new one's, when it sends to a generic webhook (the one
/// receiver that verifies signatures; an address added later signs with it too, and it is never shown again).
fn secret_shown(saved: &SavedSchedule, secret: Option<String>) -> Option<String> {
    secret.filter(|_| saved.schedule.input.notify.receiver == Receiver::Webhook)
}

/// After saving: a link to the schedule and, for a new one sending to a generic webhook (the one receiver that
/// verifies signatures), its signing secret, shown while the form is.
#[component]
fn SavedNotice(saved: SavedSchedule, secret: Option<String>) -> impl IntoView {
    let secret = secret_shown(&saved, secret);
    view! {
        <div class="notice" id="schedule-saved">
            <p>"Saved. " <a href=format!("/guard/schedules/{}", saved.schedule.id) id="open-schedule">"Open the schedule"</a></p>
            {secret.map(|secret| view! {
                <p>"Webhook signing secret (shown this once; verify the " <code>"webhook-signature"</code> " header with it):"</p>
                <span class="copyable">
                    <input readonly class="mono" id="webhook-secret" value=secret/>
                    <button type="button" class="copy" id="copy-webhook-secret" data-copy="webhook-secret">"Copy"</button>
                </span>
            })}
        </div>
    }
}
