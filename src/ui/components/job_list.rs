//! A section listing the workspace's jobs of a kind (A/B tests, sweeps), newest first.

use leptos::prelude::*;
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::future::Future;

use super::ErrorBox;
use crate::error::AppError;
use crate::ui::hooks::resource;

/// Reads the list with `fetch` and shows it as `table`, or says there is none yet and what to do (`empty`, in the
/// element `empty_id`).
#[component]
pub fn JobList<T, Fut, V>(
    heading: &'static str,
    empty_id: &'static str,
    empty: &'static str,
    fetch: fn() -> Fut,
    table: fn(Vec<T>) -> V,
) -> impl IntoView
where
    T: Serialize + DeserializeOwned + Clone + Send + Sync + 'static,
    Fut: Future<Output = Result<Vec<T>, AppError>> + Send + 'static,
    V: IntoView + 'static,
{
    let list = resource(|| (), move |_| fetch());
    view! {
        <section>
            <h2>{heading}</h2>
            <Suspense fallback=|| view! { <p>"Loading…"</p> }>
                {move || Suspend::new(async move {
                    match list.await {
                        Err(e) => view! { <ErrorBox message=e.to_string()/> }.into_any(),
                        Ok(list) if list.is_empty() => view! { <p class="muted" id=empty_id>{empty}</p> }.into_any(),
                        Ok(list) => table(list).into_any(),
                    }
                })}
            </Suspense>
        </section>
    }
}
