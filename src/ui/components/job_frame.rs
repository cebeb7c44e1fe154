//! The frame of the page of a job with a live report (an A/B test, a sweep): the job named by the address, read
//! again every second while it runs, and its state line with a Stop button. The page fills in the rest.

use leptos::prelude::*;
use leptos_router::components::A;
use leptos_router::hooks::use_params_map;
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::future::Future;
use std::str::FromStr;

use super::ErrorBox;
use crate::error::AppError;
use crate::model::RunStatus;
use crate::ui::components::Layout;
use crate::ui::hooks::{resource, use_poll_while};
use crate::wire::JobPage;

/// How often a running job's page reads it again.
const POLL_MS: u64 = 1_000;

/// What the frame says of the job: the page's title, where "back" leads, and how it calls the job.
#[derive(Clone, Copy)]
pub struct JobWords {
    /// The page's title ("A/B test").
    pub title: &'static str,
    /// The link back: its address and its text ("/sweeps", "← Sweeps").
    pub back: (&'static str, &'static str),
    /// The job as a sentence names it ("A/B test", "sweep").
    pub noun: &'static str,
}

/// Reads the job whose id is in the address with `fetch` (again every second while `status` says it runs) and
/// shows `body` of its page, or why there is none.
#[component]
pub fn JobFrame<Id, S, Fut, V>(
    words: JobWords,
    fetch: fn(Id) -> Fut,
    status: fn(&S) -> RunStatus,
    body: fn(JobPage<S>) -> V,
) -> impl IntoView
where
    Id: FromStr + PartialEq + Clone + Send + Sync + 'static,
    S: Serialize + DeserializeOwned + Clone + Send + Sync + 'static,
    Fut: Future<Output = Result<JobPage<S>, AppError>> + Send + 'static,
    V: IntoView + 'static,
{
    let params = use_params_map();
    let id = move || params.with(|p| p.get("id").and_then(|v| v.parse::<Id>().ok()));
    let running = RwSignal::new(true);
    let tick = use_poll_while(running, std::time::Duration::from_millis(POLL_MS));
    let page = resource(
        move || (id(), tick.get()),
        move |(id, _)| async move {
            match id {
                Some(id) => Some(fetch(id).await),
                None => None,
            }
        },
    );
    let (href, back) = words.back;
    view! {
        <Layout title=words.title>
            <p><A href=href>{back}</A></p>
            <Transition fallback=move || view! { <p>{format!("Loading the {}…", words.noun)}</p> }>
                {move || Suspend::new(async move {
                    match page.await {
                        None => view! { <ErrorBox message=format!("This address names no {}.", words.noun)/> }.into_any(),
                        Some(Err(e)) => view! { <ErrorBox message=e.to_string()/> }.into_any(),
                        Some(Ok(page)) => {
                            running.set(status(&page.summary) == RunStatus::Running);
                            body(page).into_any()
                        }
                    }
                })}
            </Transition>
        </Layout>
    }
}

/// The names a job's state line goes by in the page (which browser tests and scripts read).
#[derive(Clone, Copy)]
pub struct ProgressIds {
    /// The panel (`data-status` holds the status).
    pub panel: &'static str,
    /// The status word.
    pub status: &'static str,
    /// The Stop button.
    pub stop: &'static str,
}

/// The state line: how far the job is (`done`, and a bar when `percent` is known), `now` (what it is doing) and
/// Stop while it runs; how it ended otherwise, and why when it failed.
#[component]
pub fn JobProgress<Fut>(
    ids: ProgressIds,
    status: RunStatus,
    done: String,
    #[prop(optional)] percent: Option<f64>,
    #[prop(optional_no_strip)] now: Option<AnyView>,
    failure: Option<String>,
    /// What Stop says it keeps ("Stop (keep the levels done)").
    stop_label: &'static str,
    cancel: impl Fn() -> Fut + Send + Sync + 'static,
) -> impl IntoView
where
    Fut: Future<Output = Result<bool, AppError>> + Send + 'static,
{
    let stop = Action::new(move |_: &()| cancel());
    let running = status == RunStatus::Running;
    view! {
        <div class="progress-panel" id=ids.panel data-status=status.as_str()>
            <div>
                <strong id=ids.status>{status.as_str()}</strong>
                {format!(" · {done}")}
                {running.then_some(now)}
            </div>
            {percent.map(|p| view! { <progress max="100" value=p></progress> })}
            {running.then(|| view! {
                <button type="button" id=ids.stop on:click=move |_| { stop.dispatch(()); } disabled=move || stop.pending().get()>
                    {stop_label}
                </button>
            })}
            {failure.map(|f| view! { <ErrorBox message=f/> })}
            {move || match stop.value().get() {
                Some(Err(e)) => Some(view! { <ErrorBox message=e.to_string()/> }),
                _ => None,
            }}
        </div>
    }
}
