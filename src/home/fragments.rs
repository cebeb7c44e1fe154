//! The home page as the server renders it: the first steps (while any is left), the newest runs with their headline
//! figures, and Guard's state. Nothing on it changes while it is read, so none of it travels in the page's WASM.

use leptos::prelude::*;

use crate::fragments::render;
use crate::guard::model::Schedule;
use crate::home::model::Step;
use crate::home::service::Home;
use crate::model::utc_minute as when;
use crate::model::RunView;
use crate::runs::report::{RunListing, ERRORS_HOW, OUTPUT_THROUGHPUT_HOW, TTFT_P95_HOW};
use crate::wire::ServerHtml;

/// Where the first step's button sends its form (`server::routes::demo_run`).
pub const DEMO_RUN_PATH: &str = "/home/demo-run";

/// The whole page under its title.
pub fn home_page(home: &Home) -> ServerHtml {
    let steps = (!home.steps.is_empty()).then(|| first_steps(&home.steps));
    render(view! {
        {steps}
        {recent_runs(home)}
        {guard(home)}
    })
}

fn first_steps(steps: &[(Step, bool)]) -> impl IntoView {
    let left = steps.iter().filter(|(_, done)| !done).count();
    view! {
        <section id="first-steps" class="first-steps">
            <h2>"Start here"</h2>
            <p class="muted">{format!("{left} of {} steps left; this list goes once they are done.", steps.len())}</p>
            <ol class="steps">{steps.iter().map(|(step, done)| step_item(*step, *done)).collect_view()}</ol>
        </section>
    }
}

fn step_item(step: Step, done: bool) -> impl IntoView {
    let (id, title, what, action): (&str, &str, &str, AnyView) = match step {
        Step::RunTheDemo => (
            "step-demo",
            "Run the demo",
            "128 streamed requests to the simulator built into this install, 8 at a time, in about 20 s: the report \
             shows what every run measures — throughput, time to first token, time per token, errors.",
            view! {
                <form method="post" action=DEMO_RUN_PATH class="inline-form">
                    <button type="submit" id="run-demo" class=if done { "button" } else { "button primary" }>
                        {if done { "Run the demo again" } else { "Run the demo" }}
                    </button>
                </form>
            }
            .into_any(),
        ),
        Step::AddYourEndpoint => (
            "step-endpoint",
            "Add your endpoint",
            "Any server that speaks OpenAI's chat completions: vLLM, llama.cpp, TGI, SGLang, a hosted API or a \
             gateway. Its key is sealed on the server and never shown again.",
            view! { <a class="button" id="add-endpoint" href="/connectors/new">"Add a connector"</a> }.into_any(),
        ),
        Step::BenchmarkIt => (
            "step-benchmark",
            "Benchmark it",
            "Choose what to send (prompts, exact token lengths, a dataset) and the load (requests in flight or per \
             second); the report says how each figure was computed.",
            view! { <a class="button" id="benchmark-it" href="/runs/new">"New run"</a> }.into_any(),
        ),
        Step::ScheduleACheck => (
            "step-schedule",
            "Schedule a check",
            "Guard runs the same requests every hour or day, compares them with a baseline and alerts you — in \
             Slack, by e-mail, by webhook — with the reason, when the endpoint gets slower.",
            view! { <a class="button" id="schedule-check" href="/guard/schedules/new">"Schedule a check"</a> }
                .into_any(),
        ),
    };
    view! {
        <li id=id class="step" class:done=done>
            <div class="step-text">
                <strong>{title}</strong>
                {done.then(|| view! { <span class="badge ok">"done"</span> })}
                <p>{what}</p>
            </div>
            {action}
        </li>
    }
}

fn recent_runs(home: &Home) -> impl IntoView {
    let body = if home.recent.is_empty() {
        view! {
            <p id="home-no-runs" class="muted">
                "No runs yet. " {home.steps.iter().any(|(s, _)| *s == Step::RunTheDemo).then_some("Run the demo above, or ")}
                <a href="/runs/new">"start a run"</a> " against a connector."
            </p>
        }
        .into_any()
    } else {
        view! {
            <table class="table" id="home-runs">
                <thead><tr>
                    <th>"Run"</th><th>"Connector"</th><th>"Status"</th>
                    <th class="num" title=OUTPUT_THROUGHPUT_HOW>
                        "Output throughput"</th>
                    <th class="num" title=TTFT_P95_HOW>
                        "TTFT p95"</th>
                    <th class="num" title=ERRORS_HOW>"Errors"</th>
                    <th>"Started (UTC)"</th>
                </tr></thead>
                <tbody>{home.recent.iter().map(|run| run_row(run, home)).collect_view()}</tbody>
            </table>
        }
        .into_any()
    };
    view! {
        <section id="home-recent">
            <h2>"Recent runs"</h2>
            {body}
            <p><a href="/runs">"All runs"</a> " · " <a href="/runs/new">"New run"</a> " · " <a href="/compare">"Compare two runs"</a></p>
        </section>
    }
}

fn run_row(run: &RunView, home: &Home) -> impl IntoView {
    let row = RunListing::of(run, home.connector_names.get(&run.plan.connector_id).map(String::as_str));
    view! {
        <tr class="home-run" data-status=row.status.as_str()>
            <td class="run-title"><a href=format!("/runs/{}", row.id)>{row.title}</a></td>
            <td data-label="Connector">{row.connector}</td>
            <td data-label="Status"><span class=format!("status {}", row.status.as_str())>{row.status.as_str()}</span></td>
            <td class="num" data-label="Output throughput">{row.output_throughput}</td>
            <td class="num" data-label="TTFT p95">{row.ttft_p95}</td>
            <td class="num" data-label="Errors">{row.errors}</td>
            <td data-label="Started (UTC)">{row.started}</td>
        </tr>
    }
}

fn guard(home: &Home) -> impl IntoView {
    let incidents = match home.open_incidents {
        0 => view! { <p id="home-incidents">"No open alerts."</p> }.into_any(),
        n => view! {
            <p id="home-incidents" class="warning">
                {format!("{n} open incident{} — ", if n == 1 { "" } else { "s" })}
                <a href="/guard">"read why in the alert feed"</a>
            </p>
        }
        .into_any(),
    };
    let schedules = if home.schedules.is_empty() {
        view! {
            <p id="home-no-schedules" class="muted">
                "No schedules yet: Guard checks an endpoint on a schedule and alerts when it gets slower. "
                <a href="/guard/schedules/new">"Schedule a check"</a>
            </p>
        }
        .into_any()
    } else {
        let more = home.schedule_count.saturating_sub(home.schedules.len());
        view! {
            <ul id="home-schedules" class="plain-list">
                {home.schedules.iter().map(schedule_item).collect_view()}
            </ul>
            {(more > 0).then(|| view! { <p><a href="/guard">{format!("and {more} more")}</a></p> })}
        }
        .into_any()
    };
    view! {
        <section id="home-guard">
            <h2>"Guard"</h2>
            {incidents}
            {schedules}
        </section>
    }
}

fn schedule_item(schedule: &Schedule) -> impl IntoView {
    let last = match (schedule.last_status, schedule.last_run_at_ms) {
        (Some(status), Some(at)) => format!("last check {} UTC: {}", when(at), status.label()),
        _ => "not checked yet".to_string(),
    };
    let next = if schedule.input.enabled {
        format!("next {} UTC", when(schedule.next_run_at_ms))
    } else {
        "paused".to_string()
    };
    view! {
        <li class="home-schedule">
            <a href=format!("/guard/schedules/{}", schedule.id)>{schedule.input.name.clone()}</a>
            <span class="muted">{format!(" · {last} · {next}")}</span>
        </li>
    }
}
