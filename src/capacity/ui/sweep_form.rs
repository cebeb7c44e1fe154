//! The form of the Sweeps page: a connector, the load (concurrency or rate; listed levels, a capacity search
//! between two, automatic rates, or one level repeated), the objectives, the prompts or a saved workload, and how
//! many requests a level sends. Starting opens the sweep's page.

use leptos::prelude::*;
use leptos_router::hooks::use_navigate;

use crate::api::connectors::list_connectors;
use crate::capacity::api::start_sweep;
use crate::capacity::model::{LevelPlan, LoadAxis, SearchSpace, SweepInput, DEFAULT_RESOLUTION};
use crate::error::AppError;
use crate::model::Checked;
use crate::ui::components::{invalid, number, SubmitRow};
use crate::ui::hooks::resource;
use crate::workload::api::workload_choices;
use crate::workload::ui::{picked_workload, WorkloadPicker};

/// Non-blank lines, trimmed.
fn lines(raw: &str) -> Vec<String> {
    raw.lines().map(str::trim).filter(|l| !l.is_empty()).map(str::to_string).collect()
}

/// The fields that spell a sweep's levels.
#[derive(Clone, Copy)]
struct LevelFields {
    level: RwSignal<String>,
    repetitions: RwSignal<String>,
    pause: RwSignal<String>,
    rates: RwSignal<String>,
    levels: RwSignal<String>,
    min: RwSignal<String>,
    max: RwSignal<String>,
}

/// The levels of a sweep of `kind` (listed, search, automatic or repeated) on `axis`, as the fields spell them.
fn level_plan(kind: &str, axis: LoadAxis, fields: LevelFields) -> Result<LevelPlan, AppError> {
    let LevelFields { level, repetitions, pause, rates, levels, min, max } = fields;
    Ok(match kind {
        "search" => {
            let (min, max) = (number(&min.get(), "levels.min")?, number(&max.get(), "levels.max")?);
            LevelPlan::Search(SearchSpace { axis, min, max, resolution: DEFAULT_RESOLUTION })
        }
        "automatic" => LevelPlan::Automatic { levels: number(&rates.get(), "levels.levels")? },
        "repeated" => LevelPlan::Repeated {
            axis,
            level: number(&level.get(), "levels.level")?,
            repetitions: number(&repetitions.get(), "levels.repetitions")?,
            pause_s: number(&pause.get(), "levels.pauseS")?,
        },
        _ => {
            let listed = levels
                .get()
                .split(',')
                .map(str::trim)
                .filter(|p| !p.is_empty())
                .map(|p| number(p, "levels"))
                .collect::<Result<Vec<f64>, _>>()?;
            LevelPlan::Listed { axis, levels: listed }
        }
    })
}

/// The form.
#[component]
pub fn SweepForm() -> impl IntoView {
    let lists = resource(|| (), |_| async { (list_connectors().await, workload_choices().await) });
    let connector = RwSignal::new(String::new());
    // A saved workload's id, or empty for the prompts typed here.
    let workload = RwSignal::new(String::new());
    // listed | search | automatic | repeated
    let kind = RwSignal::new("listed".to_string());
    let level = RwSignal::new("4".to_string());
    let repetitions = RwSignal::new("5".to_string());
    let pause = RwSignal::new("0".to_string());
    let rates = RwSignal::new("6".to_string());
    let axis = RwSignal::new("concurrency".to_string());
    let levels = RwSignal::new("1, 2, 4, 8".to_string());
    let (min, max) = (RwSignal::new("1".to_string()), RwSignal::new("64".to_string()));
    let slos = RwSignal::new("ttft_p95_ms<=500".to_string());
    let prompts = RwSignal::new("Write a haiku about latency.".to_string());
    let requests = RwSignal::new(String::new());
    let max_tokens = RwSignal::new("128".to_string());
    let input = move || -> Result<SweepInput, AppError> {
        let axis =
            LoadAxis::parse(&axis.get()).ok_or_else(|| invalid("levels", "choose concurrency or rate".into()))?;
        let plan = level_plan(&kind.get(), axis, LevelFields { level, repetitions, pause, rates, levels, min, max })?;
        let requests = requests.get();
        let workload_id = picked_workload(&workload.get())?;
        Ok(SweepInput {
            connector_id: connector.get().parse().map_err(|_| invalid("connectorId", "choose a connector".into()))?,
            title: None,
            levels: plan,
            prompts: if workload_id.is_some() { vec![] } else { lines(&prompts.get()) },
            system_prompt: None,
            max_tokens: number(&max_tokens.get(), "maxTokens")?,
            slos: lines(&slos.get()),
            max_error_rate: 0.01,
            requests_per_level: if requests.trim().is_empty() {
                None
            } else {
                Some(number(&requests, "requestsPerLevel")?)
            },
            poisson: false,
            max_in_flight: 256,
            workload: None,
            workload_id,
        })
    };
    let start = Action::new(|input: &Result<SweepInput, AppError>| {
        let input = input.clone();
        async move { start_sweep(Checked(input?)).await }
    });
    let navigate = use_navigate();
    Effect::new(move |_| {
        if let Some(Ok(sweep)) = start.value().get() {
            navigate(&format!("/sweeps/{}", sweep.id), Default::default());
        }
    });
    view! {
        <form class="connector-form" id="sweep-form" novalidate on:submit=move |ev| { ev.prevent_default(); start.dispatch(input()); }>
            <Suspense fallback=|| view! { <p>"Loading connectors…"</p> }>
                {move || Suspend::new(async move {
                    let (list, workloads) = lists.await;
                    view! {
                        <label>"Connector"
                            <select id="sweep-connector" on:change=move |ev| connector.set(event_target_value(&ev)) prop:value=move || connector.get()>
                                <option value="">"Choose a connector…"</option>
                                {list.unwrap_or_default().into_iter().map(|c| view! { <option value=c.id.to_string()>{format!("{} ({})", c.name, c.model)}</option> }).collect_view()}
                            </select>
                        </label>
                        <WorkloadPicker id="sweep-workload" chosen=workload choices=workloads.unwrap_or_default()/>
                    }
                })}
            </Suspense>
            <div class="prices">
                <label>"Load" <select id="sweep-axis" on:change=move |ev| axis.set(event_target_value(&ev)) prop:value=move || axis.get()>
                    <option value="concurrency">"Concurrency (requests in flight)"</option>
                    <option value="rate">"Rate (requests per second, open loop)"</option>
                </select></label>
                <label>"Levels" <select id="sweep-kind" on:change=move |ev| kind.set(event_target_value(&ev))>
                    <option value="listed">"These levels"</option>
                    <option value="search">"Search for the capacity"</option>
                    <option value="automatic">"Automatic rates (synchronous → saturated)"</option>
                    <option value="repeated">"One level, repeated (mean and interval over repetitions)"</option>
                </select></label>
            </div>
            {move || match kind.get().as_str() {
                "search" => view! { <div class="prices">
                    <label>"From" <input id="sweep-min" inputmode="decimal" bind:value=min/></label>
                    <label>"Up to" <input id="sweep-max" inputmode="decimal" bind:value=max/></label>
                </div> }.into_any(),
                "automatic" => view! {
                    <label>"How many rates (one request in flight, then the most in flight, are measured first; the rates are \
                        spaced evenly between the two throughputs)" <input id="sweep-rates" inputmode="numeric" bind:value=rates/></label>
                }.into_any(),
                "repeated" => view! { <div class="prices">
                    <label>"Level" <input id="sweep-level" inputmode="decimal" bind:value=level/></label>
                    <label>"Repetitions (2 to 20)" <input id="sweep-repetitions" inputmode="numeric" bind:value=repetitions/></label>
                    <label>"Rest between (s)" <input id="sweep-pause" inputmode="decimal" bind:value=pause/></label>
                </div> }.into_any(),
                _ => view! { <label>"Levels (comma-separated, run lowest first)" <input id="sweep-levels" bind:value=levels/></label> }.into_any(),
            }}
            <label>"Objectives, one per line (e.g. ttft_p95_ms<=500, tpot_ms<=50)" <textarea id="sweep-slos" rows="2" bind:value=slos></textarea></label>
            // A workload's requests replace the prompts; each level sends its number of them, seeded afresh.
            <label hidden=move || !workload.get().is_empty()>"Prompts, one per line" <textarea id="sweep-prompts" rows="2" bind:value=prompts></textarea></label>
            <div class="prices">
                <label>"Requests per level (blank: enough for the percentiles judged)" <input id="sweep-requests" inputmode="numeric" bind:value=requests/></label>
                <label>"max_tokens" <input id="sweep-max-tokens" inputmode="numeric" bind:value=max_tokens/></label>
            </div>
            <p class="hint">"Each level is a run of its own, listed with your runs. A search doubles the load until a level misses an \
                objective, then bisects; a list of levels stops early once the endpoint is over-saturated. A repeated level reports each \
                figure as the mean over its repetitions with a 95 % interval, and runs every repetition asked for."</p>
            <SubmitRow id="start-sweep" label="Start sweep" pending=start.pending()
                error=Signal::derive(move || start.value().get().and_then(Result::err).map(|e| e.to_string()))/>
        </form>
    }
}
