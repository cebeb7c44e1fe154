//! A repeated run's comparison with another repeated run by repetitions (its figures over the repetitions are
//! rendered by the server with the rest of its page).

use leptos::prelude::*;

use crate::capacity::api::{compare_repeated_runs, list_sweeps};
use crate::model::SweepId;
use crate::ui::components::ErrorBox;
use crate::ui::hooks::resource;

/// Picks another repeated run of the workspace as the baseline and compares this one with it, figure by figure.
#[component]
pub fn RepeatedCompare(id: SweepId) -> impl IntoView {
    let others = resource(|| (), |_| list_sweeps());
    let baseline = RwSignal::new(String::new());
    let compared = resource(
        move || baseline.get(),
        move |chosen| async move {
            let a: SweepId = chosen.parse().ok()?;
            Some(compare_repeated_runs(a, id).await)
        },
    );
    view! {
        <h2>"Compare with another repeated run"</h2>
        <Suspense fallback=|| view! { <p>"Loading repeated runs…"</p> }>
            {move || Suspend::new(async move {
                let list: Vec<_> =
                    others.await.unwrap_or_default().into_iter().filter(|s| s.repeated && s.id != id).collect();
                if list.is_empty() {
                    return view! { <p class="muted">"No other repeated run to compare with yet."</p> }.into_any();
                }
                view! {
                    <label>"Baseline"
                        <select id="repeated-baseline" on:change=move |ev| baseline.set(event_target_value(&ev))>
                            <option value="">"Choose a repeated run…"</option>
                            {list.into_iter().map(|s| view! { <option value=s.id.to_string()>{s.title}</option> }).collect_view()}
                        </select>
                    </label>
                }.into_any()
            })}
        </Suspense>
        <Transition fallback=|| ()>
            {move || Suspend::new(async move {
                match compared.await {
                    None => ().into_any(),
                    Some(Err(e)) => view! { <ErrorBox message=e.to_string()/> }.into_any(),
                    Some(Ok(comparison)) => view! {
                        <table class="table" id="repeated-compare">
                            <thead><tr><th>"Figure"</th><th>"Baseline mean"</th><th>"This run's mean"</th>
                                <th>"Difference"</th><th>"Welch p"</th><th>"Verdict"</th></tr></thead>
                            <tbody>{comparison.deltas.iter().map(|d| view! {
                                <tr data-figure=d.figure.clone() data-significant=d.significant.to_string()>
                                    {d.row().into_iter().map(|cell| view! { <td>{cell}</td> }).collect_view()}
                                </tr>
                            }).collect_view()}</tbody>
                        </table>
                        <ul class="honesty">{comparison.notes.into_iter().map(|n| view! { <li>{n}</li> }).collect_view()}</ul>
                    }.into_any(),
                }
            })}
        </Transition>
    }
}
