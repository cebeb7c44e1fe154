//! `/guard/schedules/:id`: a schedule's baseline (pin a completed run), Run now, pause and resume, Send test (webhook
//! or e-mail), the history chart, every evaluation with why it did or did not alert, and the webhook delivery log.
//! Its form is `/guard/schedules/:id/settings` (`guard_schedule_form`).

use leptos::prelude::*;
use leptos_router::hooks::{use_navigate, use_params_map};

use crate::guard::api::{
    delete_schedule, enable_schedule, get_schedule_page, pin_baseline, run_schedule_now, send_test_email,
    send_test_webhook, SchedulePage as SchedulePageView,
};
use crate::model::{RunId, ScheduleId};
use crate::ui::components::{alert_badge, ErrorBox, Layout, ServerPart};
use crate::ui::hooks::resource;

/// An existing schedule.
#[component]
pub fn SchedulePage() -> impl IntoView {
    let params = use_params_map();
    let id = move || params.with(|p| p.get("id").and_then(|raw| raw.parse::<ScheduleId>().ok()));
    let refresh = RwSignal::new(0u32);
    // Outlives the reload that follows each action, so its outcome stays on screen.
    let notice = RwSignal::new(None::<Notice>);
    let detail = resource(
        move || (id(), refresh.get()),
        |(id, _)| async move {
            match id {
                Some(id) => Some(get_schedule_page(id).await),
                None => None,
            }
        },
    );
    view! {
        <Layout title="Schedule">
            <Transition fallback=|| view! { <p>"Loading the schedule…"</p> }>
                {move || Suspend::new(async move {
                    match detail.await {
                        None => view! { <ErrorBox message="No such schedule.".to_string()/> }.into_any(),
                        Some(Ok(page)) => view! { <ScheduleView page refresh notice/> }.into_any(),
                        Some(Err(e)) => view! { <ErrorBox message=e.to_string()/> }.into_any(),
                    }
                })}
            </Transition>
        </Layout>
    }
}

/// What the last action on the page did: a message, and whether it went wrong.
#[derive(Debug, Clone, PartialEq)]
struct Notice {
    id: &'static str,
    text: String,
    failed: bool,
    details: Vec<String>,
}

impl Notice {
    fn of<T>(
        id: &'static str,
        result: Result<T, crate::error::AppError>,
        describe: impl FnOnce(T) -> (String, bool, Vec<String>),
    ) -> Self {
        match result {
            Ok(value) => {
                let (text, failed, details) = describe(value);
                Self { id, text, failed, details }
            }
            Err(e) => Self { id, text: e.to_string(), failed: true, details: vec![] },
        }
    }
}

/// The actions and the pin picker are the page's own; the header, baselines, history, evaluations and deliveries
/// come rendered by the server (`guard/schedules/page`).
#[component]
fn ScheduleView(page: SchedulePageView, refresh: RwSignal<u32>, notice: RwSignal<Option<Notice>>) -> impl IntoView {
    let SchedulePageView { schedule, header, baselines, pinnable_choices, first_pinnable, history } = page;
    let id = schedule.id;
    let badge = alert_badge();
    let reload = move |shown: Notice| {
        notice.set(Some(shown));
        refresh.update(|n| *n += 1);
        badge.refresh();
    };
    let run_now = Action::new(move |_: &()| async move {
        let result = run_schedule_now(id).await;
        reload(Notice::of("run-now-result", result, |o| {
            let what = match (o.alerts_opened.len(), o.alerts_updated.len(), &o.error) {
                (_, _, Some(e)) => format!(": {e}"),
                (0, 0, None) => String::new(),
                (opened, updated, None) => {
                    format!(": {opened} alert(s) opened, {updated} open alert(s) breached again")
                }
            };
            let p = o.p_value.map(|p| format!(", Welch p = {}", crate::report::p_value(p))).unwrap_or_default();
            (format!("Run now: {}{p}{what}", o.status.label()), o.status.unmeasured(), vec![])
        }));
    });
    let enabled = schedule.input.enabled;
    let toggle = Action::new(move |_: &()| async move {
        let result = enable_schedule(id, !enabled).await;
        reload(Notice::of("toggle-result", result, |s| {
            (if s.input.enabled { "Resumed.".to_string() } else { "Paused.".to_string() }, false, vec![])
        }));
    });
    let test = Action::new(move |_: &()| async move {
        let result = send_test_webhook(id).await;
        reload(Notice::of("test-result", result, |d| match d.delivered_at_ms {
            Some(_) => ("Test message delivered.".to_string(), false, vec![]),
            None => (format!("Test message not delivered: {}", d.last_error.unwrap_or_default()), true, vec![]),
        }));
    });
    let test_mail = Action::new(move |_: &()| async move {
        let result = send_test_email(id).await;
        reload(Notice::of("test-mail-result", result, |sent| {
            let failed = sent.iter().any(|m| m.error.is_some());
            let lines = sent.into_iter().map(|m| match m.error {
                None => format!("{}: accepted by the mail server", m.to),
                Some(e) => format!("{}: refused — {e}", m.to),
            });
            let text = if failed { "Test e-mail not sent to every address:" } else { "Test e-mail sent:" };
            (text.to_string(), failed, lines.collect())
        }));
    });
    let chosen = RwSignal::new(first_pinnable.map(|r| r.to_string()).unwrap_or_default());
    let pin = Action::new(move |_: &()| {
        let run = chosen.get_untracked().parse::<RunId>();
        async move {
            let Ok(run) = run else { return };
            let result = pin_baseline(id, run).await;
            reload(Notice::of("pin-result", result, |pinned| {
                ("Pinned as baseline.".to_string(), false, pinned.warnings)
            }));
        }
    });
    let confirming = RwSignal::new(false);
    let remove = Action::new(move |_: &()| delete_schedule(id));
    let navigate = use_navigate();
    Effect::new(move |_| {
        if let Some(Ok(())) = remove.value().get() {
            badge.refresh();
            navigate("/guard", Default::default());
        }
    });
    let has_webhook = schedule.input.notify.webhook_url.is_some();
    let mails = schedule.input.notify.email.is_some() || schedule.input.notify.email_owner;
    view! {
        <ServerPart html=header/>
        <div class="actions">
            <button type="button" id="run-now" class="primary" disabled=move || run_now.pending().get() on:click=move |_| { run_now.dispatch(()); }>
                {move || if run_now.pending().get() { "Running…" } else { "Run now" }}
            </button>
            <button type="button" id="toggle-schedule" on:click=move |_| { toggle.dispatch(()); }>{if enabled { "Pause" } else { "Resume" }}</button>
            <a id="edit-schedule" class="button" href=format!("/guard/schedules/{id}/settings")>"Settings"</a>
            {has_webhook.then(|| view! { <button type="button" id="send-test" on:click=move |_| { test.dispatch(()); }>"Send test webhook"</button> })}
            {mails.then(|| view! { <button type="button" id="send-test-mail" on:click=move |_| { test_mail.dispatch(()); }>"Send test e-mail"</button> })}
            <Show when=move || !confirming.get() fallback=move || view! {
                <span class="confirm">"Delete this schedule, its evaluations and alerts? "
                    <button type="button" id="confirm-delete" class="danger" on:click=move |_| { remove.dispatch(()); }>"Delete"</button>
                    <button type="button" class="link" on:click=move |_| confirming.set(false)>"Keep it"</button></span>
            }>
                <button type="button" id="delete-schedule" class="danger" on:click=move |_| confirming.set(true)>"Delete…"</button>
            </Show>
        </div>
        {move || notice.get().map(|n| view! { <NoticeBox notice=n/> })}
        <h2>"Baseline"</h2>
        <ServerPart html=baselines/>
        {first_pinnable.is_some().then(|| view! {
            <div class="actions">
                <select id="pin-run" on:change=move |ev| chosen.set(event_target_value(&ev)) inner_html=pinnable_choices.into_string()></select>
                <button type="button" id="pin-baseline" on:click=move |_| { pin.dispatch(()); }>"Pin as baseline"</button>
            </div>
        })}
        <ServerPart html=history/>
    }
}

/// A notice after an action: what happened, and the warnings that came with it.
#[component]
fn NoticeBox(notice: Notice) -> impl IntoView {
    let n = notice;
    view! {
        <div id=n.id role="status" class=if n.failed { "error" } else { "notice" }>
            <p>{n.text}</p>
            {(!n.details.is_empty()).then(|| view! { <ul>{n.details.into_iter().map(|w| view! { <li class="warning">{w}</li> }).collect_view()}</ul> })}
        </div>
    }
}
