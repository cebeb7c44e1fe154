//! The owner's share controls on a finished report: create a link (shown once: only its hash is kept), replace
//! it, revoke it, and see whether the report is shared.

use leptos::prelude::*;

use crate::api::shares::{revoke_share, share_report};
use crate::model::iso8601_utc;
use crate::model::RunId;
use crate::ui::components::ErrorBox;

/// The controls.
#[component]
pub fn ShareControls(id: RunId, shared_since_ms: Option<i64>) -> impl IntoView {
    let shared_since = RwSignal::new(shared_since_ms);
    let link = RwSignal::new(None::<String>);
    let create = Action::new(move |_: &()| share_report(id));
    let revoke = Action::new(move |_: &()| revoke_share(id));
    Effect::new(move |_| {
        if let Some(Ok(made)) = create.value().get() {
            shared_since.set(Some(made.created_at_ms));
            link.set(Some(format!("{}/share/{id}#{}", origin(), made.token)));
        }
    });
    Effect::new(move |_| {
        if let Some(Ok(_)) = revoke.value().get() {
            shared_since.set(None);
            link.set(None);
        }
    });
    let failure = move || match (create.value().get(), revoke.value().get()) {
        (Some(Err(e)), _) | (_, Some(Err(e))) => Some(view! { <ErrorBox message=e.to_string()/> }),
        _ => None,
    };
    view! {
        <section class="share" id="share">
            {move || match shared_since.get() {
                None => view! {
                    <p><span id="share-status">"Not shared."</span> " "
                        <button type="button" id="share-create" on:click=move |_| { create.dispatch(()); }>"Create share link"</button></p>
                }.into_any(),
                Some(since) => view! {
                    <p><span id="share-status">{format!("Shared since {}", iso8601_utc(since))}</span>
                        " — anyone with the link can read this report and nothing else. "
                        <button type="button" id="share-create" on:click=move |_| { create.dispatch(()); }>"New link (the old one stops working)"</button> " "
                        <button type="button" id="share-revoke" class="danger" on:click=move |_| { revoke.dispatch(()); }>"Revoke"</button></p>
                }.into_any(),
            }}
            {move || link.get().map(|url| view! {
                <p class="share-link">"Copy the link now; it is not shown again: "
                    <span class="copyable">
                        <input id="share-url" class="mono" readonly prop:value=url/>
                        <button type="button" class="copy" id="copy-share-url" data-copy="share-url">"Copy"</button>
                    </span></p>
            })}
            {failure}
        </section>
    }
}

#[cfg(feature = "hydrate")]
fn origin() -> String {
    web_sys::window().and_then(|w| w.location().origin().ok()).unwrap_or_default()
}

#[cfg(not(feature = "hydrate"))]
fn origin() -> String {
    String::new()
}
