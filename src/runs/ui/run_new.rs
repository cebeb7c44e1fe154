//! `/runs/new`: the run form. Prompts are one per line.

use leptos::prelude::*;
use leptos_router::components::A;
use leptos_router::hooks::use_navigate;

use crate::api::connectors::list_connectors;
use crate::error::AppError;
use crate::model::{
    Agent, Checked, ConnectionPolicy, ConnectorId, LoadMode, PromptHeads, RunPlanInput, ValidationError,
};
use crate::runs::api::begin_run;
use crate::ui::components::{invalid, number, Layout, SubmitRow};
use crate::ui::hooks::resource;
use crate::workload::api::workload_choices;
use crate::workload::ui::{picked_workload, prompts_and_iterations, WorkloadPicker};

/// The per-request time limit, typed in seconds, as milliseconds.
fn timeout_ms(raw: &str) -> Result<u64, AppError> {
    let seconds: f64 = number(raw, "timeoutMs")?;
    let max = crate::model::limits::MAX_TIMEOUT_MS as f64 / 1e3;
    if !(seconds > 0.0 && seconds <= max) {
        return Err(invalid("timeoutMs", format!("the timeout must be above 0 and at most {max} seconds")));
    }
    Ok(((seconds * 1e3).round() as u64).max(1))
}

/// The agent's OpenAI `tools` array; empty text means no tools.
fn tools(raw: &str) -> Result<Vec<serde_json::Value>, AppError> {
    if raw.trim().is_empty() {
        return Ok(vec![]);
    }
    crate::wire::from_json(raw).map_err(|e| invalid("agent.tools", format!("not a JSON array of tool objects: {e}")))
}

/// The new-run page.
#[component]
pub fn NewRunPage() -> impl IntoView {
    let connector = RwSignal::new(String::new());
    let agent_name = RwSignal::new("default".to_string());
    let system_prompt = RwSignal::new(String::new());
    let token_budget = RwSignal::new("256".to_string());
    let prompts = RwSignal::new("Explain what time to first token means in one paragraph.".to_string());
    let iterations = RwSignal::new("10".to_string());
    let warmup = RwSignal::new("0".to_string());
    let stream = RwSignal::new(true);
    let load = Load {
        open_loop: RwSignal::new(false),
        concurrency: RwSignal::new("2".to_string()),
        rate: RwSignal::new("2".to_string()),
        poisson: RwSignal::new(true),
    };
    let advanced = Advanced::as_the_api_defaults_them();
    let slos = RwSignal::new(String::new());
    // A saved workload's id, or empty for the prompts typed here.
    let workload = RwSignal::new(String::new());
    let plan = move || -> Result<RunPlanInput, AppError> {
        let connector_id: ConnectorId = connector
            .get()
            .parse()
            .map_err(|_| AppError::Invalid(ValidationError::new("connectorId", "choose a connector")))?;
        let mode = load.mode()?;
        let workload_id = picked_workload(&workload.get())?;
        let (prompts, iterations) = prompts_and_iterations(workload_id, &prompts.get(), &iterations.get())?;
        Ok(RunPlanInput {
            connector_id,
            title: Some(advanced.title.get()).filter(|t| !t.trim().is_empty()),
            agent: Agent {
                name: agent_name.get(),
                system_prompt: Some(system_prompt.get()).filter(|s| !s.trim().is_empty()),
                tools: tools(&advanced.tools_json.get())?,
                token_budget: number(&token_budget.get(), "agent.tokenBudget")?,
            },
            prompts,
            iterations,
            warmup: number(&warmup.get(), "warmup")?,
            mode,
            timeout_ms: Some(timeout_ms(&advanced.timeout_seconds.get())?),
            stream: stream.get(),
            temperature: number(&advanced.temperature.get(), "temperature")?,
            retries: number(&advanced.retries.get(), "retries")?,
            connections: if advanced.fresh_connections.get() {
                ConnectionPolicy::Fresh
            } else {
                ConnectionPolicy::Reuse
            },
            slos: slos.get().lines().map(str::trim).filter(|l| !l.is_empty()).map(str::to_string).collect(),
            duration_s: match advanced.duration_seconds.get().trim() {
                "" => None,
                raw => Some(number(raw, "durationS")?),
            },
            workload: None,
            shape: None,
            workload_id,
            prompt_heads: if advanced.cache_warm.get() { PromptHeads::Off } else { PromptHeads::Unique },
        })
    };
    let start = Action::new(|plan: &Result<RunPlanInput, AppError>| {
        let plan = plan.clone();
        async move { begin_run(Checked(plan?)).await }
    });
    let navigate = use_navigate();
    Effect::new(move |_| {
        if let Some(Ok(id)) = start.value().get() {
            navigate(&format!("/runs/{id}"), Default::default());
        }
    });
    // A workload's requests replace the prompts and their iterations.
    let prompted = move || !workload.get().is_empty();
    let on_submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        start.dispatch(plan());
    };

    view! {
        <Layout title="New run">
            <p class="hint" id="repeat-hint">"One run is one sample of an endpoint's day. To report each figure with an interval \
                over several runs, and compare by repetition, repeat a level from "<A href="/sweeps">"Sweeps"</A>" (one level, \
                repeated)."</p>
            <form class="connector-form" on:submit=on_submit novalidate>
                <Choices connector workload/>
                <label>"Agent name" <input id="agent-name" bind:value=agent_name/></label>
                <label>"System prompt (optional)" <textarea id="system-prompt" rows="2" bind:value=system_prompt></textarea></label>
                <label hidden=prompted>
                    "Prompts, one per line"
                    <textarea id="prompts" rows="4" bind:value=prompts></textarea>
                </label>
                <div class="prices">
                    <label hidden=prompted>"Iterations per prompt" <input id="iterations" inputmode="numeric" bind:value=iterations/></label>
                    <label>"Warm-up requests (excluded from stats)" <input id="warmup" inputmode="numeric" bind:value=warmup/></label>
                    <label>"Token budget (max_tokens)" <input id="token-budget" inputmode="numeric" bind:value=token_budget/></label>
                    <label class="inline"><input type="checkbox" id="stream" bind:checked=stream/> "Stream (needed to measure TTFT)"</label>
                </div>
                <LoadFieldset load/>
                <label>
                    "Objectives (SLOs, optional), one per line: a request is good when it meets every per-request one; \
                    percentile ones are judged on the run"
                    <textarea id="slos" rows="2" class="mono" placeholder="ttft_ms<=500\ntpot_p95_ms<=50" bind:value=slos></textarea>
                </label>
                <AdvancedSettings advanced/>
                <SubmitRow id="start-run" label="Start run" pending=start.pending()
                    error=Signal::derive(move || start.value().get().and_then(Result::err).map(|e| e.to_string()))/>
            </form>
        </Layout>
    }
}

/// The load fields: closed or open loop, rate and arrivals, concurrency.
#[derive(Clone, Copy)]
struct Load {
    open_loop: RwSignal<bool>,
    concurrency: RwSignal<String>,
    rate: RwSignal<String>,
    poisson: RwSignal<bool>,
}

impl Load {
    /// The load mode the fields spell.
    fn mode(self) -> Result<LoadMode, AppError> {
        let Load { open_loop, concurrency, rate, poisson } = self;
        let concurrency: u32 =
            number(&concurrency.get(), if open_loop.get() { "mode.maxConcurrency" } else { "mode.concurrency" })?;
        Ok(if open_loop.get() {
            LoadMode::Open {
                rate_per_second: number(&rate.get(), "mode.ratePerSecond")?,
                poisson: poisson.get(),
                max_concurrency: concurrency,
                burstiness: None,
            }
        } else {
            LoadMode::Closed { concurrency }
        })
    }
}

/// The settings behind "More settings".
#[derive(Clone, Copy)]
struct Advanced {
    title: RwSignal<String>,
    temperature: RwSignal<String>,
    timeout_seconds: RwSignal<String>,
    duration_seconds: RwSignal<String>,
    retries: RwSignal<String>,
    fresh_connections: RwSignal<bool>,
    /// Prompts sent without their marks (`PromptHeads::Off`).
    cache_warm: RwSignal<bool>,
    tools_json: RwSignal<String>,
}

impl Advanced {
    /// Each setting as the API sets it when a request leaves it out.
    fn as_the_api_defaults_them() -> Self {
        Self {
            title: RwSignal::new(String::new()),
            temperature: RwSignal::new("0".to_string()),
            timeout_seconds: RwSignal::new("120".to_string()),
            duration_seconds: RwSignal::new(String::new()),
            retries: RwSignal::new("0".to_string()),
            fresh_connections: RwSignal::new(false),
            cache_warm: RwSignal::new(false),
            tools_json: RwSignal::new(String::new()),
        }
    }
}

/// The connector list (the first one is chosen until the user picks another), and what the run sends: the prompts
/// typed on this page, or one of the workspace's saved workloads (its lengths replace the prompts, the iterations
/// and the token budget). Both lists come in one resource, shown by one `Suspense`.
#[component]
fn Choices(connector: RwSignal<String>, workload: RwSignal<String>) -> impl IntoView {
    let lists = resource(|| (), |_| async { (list_connectors().await, workload_choices().await) });
    view! {
        <Suspense fallback=|| view! { <span>"Loading…"</span> }>
            {move || Suspend::new(async move {
                let (connectors, workloads) = lists.await;
                let connectors = connectors.unwrap_or_default();
                if connector.get_untracked().is_empty() {
                    if let Some(first) = connectors.first() {
                        connector.set(first.id.to_string());
                    }
                }
                view! {
                    <label>"Connector"
                        <select id="connector" on:change=move |ev| connector.set(event_target_value(&ev)) prop:value=move || connector.get()>
                            {connectors.into_iter().map(|c| view! { <option value=c.id.to_string()>{format!("{} ({})", c.name, c.model)}</option> }).collect_view()}
                        </select>
                    </label>
                    <WorkloadPicker id="workload" chosen=workload choices=workloads.unwrap_or_default()/>
                }
            })}
        </Suspense>
    }
}

#[component]
fn LoadFieldset(load: Load) -> impl IntoView {
    let Load { open_loop, concurrency, rate, poisson } = load;
    view! {
        <fieldset>
            <legend>"Load"</legend>
            <label class="inline"><input type="checkbox" id="open-loop" bind:checked=open_loop/> "Open loop: send at a fixed rate instead of as fast as answers come"</label>
            <label hidden=move || !open_loop.get()>"Requests per second" <input id="rate" inputmode="decimal" bind:value=rate/></label>
            <label class="inline" hidden=move || !open_loop.get()><input type="checkbox" id="poisson" bind:checked=poisson/> "Poisson arrivals"</label>
            <label>
                {move || if open_loop.get() { "At most in flight" } else { "Concurrency (requests in flight)" }}
                <input id="concurrency" inputmode="numeric" bind:value=concurrency/>
            </label>
        </fieldset>
    }
}

#[component]
fn AdvancedSettings(advanced: Advanced) -> impl IntoView {
    let Advanced {
        title,
        temperature,
        timeout_seconds,
        duration_seconds,
        retries,
        fresh_connections,
        cache_warm,
        tools_json,
    } = advanced;
    view! {
        <details class="advanced">
            <summary>"More settings: title, temperature, timeout, time limit, retries, connections, prompt cache, tools"</summary>
            <label>"Report title (optional; default: agent on model)" <input id="title" bind:value=title/></label>
            <div class="prices">
                <label>"Temperature (0–2)" <input id="temperature" inputmode="decimal" bind:value=temperature/></label>
                <label>"Timeout per request (seconds)" <input id="timeout" inputmode="decimal" bind:value=timeout_seconds/></label>
                <label>"Time limit of the run (seconds, optional: no request is sent once it has passed since the first measured \
                    one; iterations are then an upper bound)" <input id="duration" inputmode="decimal" bind:value=duration_seconds/></label>
                <label>"Retries after HTTP 429 (0–5; waits honour Retry-After and are not counted as latency)" <input id="retries" inputmode="numeric" bind:value=retries/></label>
            </div>
            <label class="inline">
                <input type="checkbox" id="fresh-connections" bind:checked=fresh_connections/>
                " A fresh connection per request (connection and TLS set-up are then part of every latency; by default keep-alive connections are reused, as production clients do)"
            </label>
            <label class="inline">
                <input type="checkbox" id="cache-warm" bind:checked=cache_warm/>
                " Let this run find earlier runs' prompts in the server's prefix cache (by default each prompt starts with a short mark of its run, counted in its length, so every run measures uncached prefills)"
            </label>
            <label>
                "Tools (OpenAI tools JSON array, sent with every request; empty for none)"
                <textarea id="tools" rows="3" class="mono" placeholder=r#"[{"type": "function", "function": {"name": "lookup", "parameters": {"type": "object"}}}]"# bind:value=tools_json></textarea>
            </label>
        </details>
    }
}
