//! The settings page's workspace section: who owns it, its display name, and signing out of every session.

use leptos::prelude::*;

use crate::account::api::{rename_workspace, sign_out_everywhere, whoami};
use crate::account::model::SignedInAs;
use crate::ui::components::ErrorBox;
use crate::ui::hooks::resource;

/// The workspace section.
#[component]
pub fn AccountPanel() -> impl IntoView {
    let account = resource(|| (), |_| whoami());
    let name = RwSignal::new(String::new());
    let rename = Action::new(move |_: &()| rename_workspace(name.get_untracked()));
    Effect::new(move |_| {
        if let Some(Ok(a)) = account.get() {
            name.set(a.workspace_name);
        }
    });
    view! {
        <section class="panel" id="workspace">
            <h2>"Workspace"</h2>
            <Transition fallback=|| ()>
                {move || Suspend::new(async move {
                    account.await.map(|a| {
                        let owner = match a.signed_in_as {
                            SignedInAs::Wallet { address } => format!("the wallet {address} (Sign-In with Ethereum)"),
                            SignedInAs::InstallOwner => "the install's owner (printed login links)".into(),
                            SignedInAs::Other { identity } => identity,
                        };
                        view! { <p id="workspace-owner">"Owned by "{owner}"."</p> }
                    }).map_err(|e| e.to_string())
                })}
            </Transition>
            <form class="inline-form" on:submit=move |ev| { ev.prevent_default(); rename.dispatch(()); } novalidate>
                <label>"Display name"<input id="workspace-name" bind:value=name/></label>
                <button type="submit" id="rename-workspace" disabled=move || rename.pending().get()>"Save name"</button>
            </form>
            {move || rename.value().get().map(|r| match r {
                Ok(_) => view! { <p class="notice" id="renamed">"Saved."</p> }.into_any(),
                Err(e) => view! { <ErrorBox message=e.to_string()/> }.into_any(),
            })}
            <SignOutEverywhere/>
        </section>
    }
}

/// Ends every browser session of the workspace, this one too, then goes to the login page.
#[component]
fn SignOutEverywhere() -> impl IntoView {
    let sign_out = Action::new(|_: &()| sign_out_everywhere());
    Effect::new(move |_| {
        if let Some(Ok(_)) = sign_out.value().get() {
            #[cfg(feature = "hydrate")]
            if let Some(window) = web_sys::window() {
                let _ = window.location().set_href("/login");
            }
        }
    });
    view! {
        <h3>"Sessions"</h3>
        <p class="muted">"Signed in on a machine you no longer use? This ends every browser session of this workspace, \
            this one included. API tokens keep working until revoked."</p>
        <button type="button" id="sign-out-everywhere" class="danger" on:click=move |_| { sign_out.dispatch(()); }>
            "Sign out everywhere"
        </button>
        {move || sign_out.value().get().and_then(Result::err).map(|e| view! { <ErrorBox message=e.to_string()/> })}
    }
}
