//! A probe's report: the server root, the engine with its version and model, what each path answered, and
//! speculative decoding with how it is known and, where counted, its acceptance since the server started.

use leptos::prelude::*;

use crate::error::AppError;
use crate::lab::api::probe_connector;
use crate::model::{ConnectorId, ProbeReport, SpecWindow};

fn yes_no(value: Option<bool>) -> &'static str {
    match value {
        Some(true) => "yes",
        Some(false) => "no",
        None => "unknown",
    }
}

fn since_start(w: &SpecWindow) -> String {
    let rate = w.acceptance_rate.map_or("no drafts yet".into(), |r| format!("{:.1}% accepted", r * 100.0));
    let length = w
        .mean_acceptance_length
        .map_or(String::new(), |l| format!(", {l:.2} tokens per target pass (mean acceptance length)"));
    format!(
        "Since the server started: {} tokens drafted, {} accepted: {rate}{length}.",
        w.draft_tokens, w.accepted_tokens
    )
}

/// "Probe server" for a stored connector, and the report of the last press.
#[component]
pub fn ServerProbe(id: ConnectorId) -> impl IntoView {
    let probe = Action::new(move |_: &()| probe_connector(id));
    view! {
        <section class="server-probe">
            <h2>"Server"</h2>
            <p class="muted">"A self-hosted server (vLLM, SGLang, TGI, llama.cpp) says more than the chat API: its engine, \
                its metrics, and whether it decodes speculatively. The probe asks its root, with this connector's headers."</p>
            <button type="button" id="probe-server" on:click=move |_| { probe.dispatch(()); } disabled=move || probe.pending().get()>
                {move || if probe.pending().get() { "Probing…" } else { "Probe server" }}
            </button>
            {move || probe.value().get().map(|result| view! { <ProbePanel result/> })}
        </section>
    }
}

/// The result of the last "Probe server" press, or the reason it could not run.
#[component]
fn ProbePanel(result: Result<ProbeReport, AppError>) -> impl IntoView {
    let report = match result {
        Ok(report) => report,
        Err(e) => return view! { <div id="probe-result" class="test-result bad">{e.to_string()}</div> }.into_any(),
    };
    let engine = report.kind.map_or("not identified".to_string(), |k| k.label().to_string());
    let about = [report.version.clone(), report.model.clone()].into_iter().flatten().collect::<Vec<_>>().join(" · ");
    let s = report.speculation.clone();
    view! {
        <div id="probe-result" class=if report.kind.is_some() { "test-result good" } else { "test-result" }>
            <div class="verdict">
                <strong id="probe-engine">{engine}</strong>
                {(!about.is_empty()).then(|| format!(" · {about}"))}
                " · " <span class="mono">{report.root.clone()}</span>
            </div>
            <p id="probe-speculation">
                {format!(
                    "Speculative decoding: configured {}, active {}{}{}.",
                    yes_no(s.configured),
                    yes_no(s.active),
                    s.method.map(|m| format!(", {m}")).unwrap_or_default(),
                    s.draft_max.map(|n| format!(", up to {n} tokens drafted per step")).unwrap_or_default()
                )}
                " " <span class="muted">{format!("({})", s.how)}</span>
            </p>
            {s.since_start.as_ref().map(|w| view! { <p id="probe-acceptance">{since_start(w)}</p> })}
            {report.notes.iter().map(|n| view! { <p class="hint">{n.clone()}</p> }).collect_view()}
            <table class="table" id="probe-paths">
                <thead><tr><th>"Path"</th><th>"Answer"</th></tr></thead>
                <tbody>{report.paths.iter().map(|p| view! {
                    <tr class:muted=!p.usable><td class="mono">{p.path.clone()}</td><td>{p.outcome.clone()}</td></tr>
                }).collect_view()}</tbody>
            </table>
        </div>
    }
    .into_any()
}
