//! `/guard/schedules/new` and `/guard/schedules/:id/settings`: a schedule's form, new or filled with what was saved.
//! A page of its own, so reading a schedule does not download the form.

use leptos::prelude::*;
use leptos_router::components::A;
use leptos_router::hooks::use_params_map;

use super::schedule_form::ScheduleForm;
use crate::guard::api::{get_schedule_choices, list_schedules};
use crate::model::ScheduleId;
use crate::ui::components::{ErrorBox, Layout};
use crate::ui::hooks::resource;

/// A new schedule.
#[component]
pub fn NewSchedulePage() -> impl IntoView {
    let choices = resource(|| (), |_| get_schedule_choices());
    view! {
        <Layout title="New schedule">
            <Suspense fallback=|| view! { <p>"Loading…"</p> }>
                {move || Suspend::new(async move {
                    match choices.await {
                        Ok(choices) if choices.sets.is_empty() => view! {
                            <p id="need-set">"A schedule runs a benchmark set: " <A href="/guard/sets">"create one first"</A> "."</p>
                        }.into_any(),
                        Ok(choices) => view! { <ScheduleForm existing=None choices/> }.into_any(),
                        Err(e) => view! { <ErrorBox message=e.to_string()/> }.into_any(),
                    }
                })}
            </Suspense>
        </Layout>
    }
}

/// An existing schedule's settings.
#[component]
pub fn ScheduleSettingsPage() -> impl IntoView {
    let params = use_params_map();
    let id = move || params.with(|p| p.get("id").and_then(|raw| raw.parse::<ScheduleId>().ok()));
    let loaded = resource(id, |id| async move { (id, list_schedules().await, get_schedule_choices().await) });
    view! {
        <Layout title="Schedule settings">
            <Suspense fallback=|| view! { <p>"Loading…"</p> }>
                {move || Suspend::new(async move {
                    match loaded.await {
                        (Some(id), Ok(schedules), Ok(choices)) => match schedules.into_iter().find(|s| s.id == id) {
                            Some(schedule) => view! {
                                <p><a id="back-to-schedule" href=format!("/guard/schedules/{id}")>{format!("← {}", schedule.input.name)}</a></p>
                                <ScheduleForm existing=Some(schedule) choices/>
                            }.into_any(),
                            None => view! { <ErrorBox message="No such schedule.".to_string()/> }.into_any(),
                        },
                        (None, _, _) => view! { <ErrorBox message="No such schedule.".to_string()/> }.into_any(),
                        (_, Err(e), _) | (_, _, Err(e)) => view! { <ErrorBox message=e.to_string()/> }.into_any(),
                    }
                })}
            </Suspense>
        </Layout>
    }
}
