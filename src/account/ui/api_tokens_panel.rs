//! The settings page's API tokens: create one (its secret shown once), see each token's hint, expiry and last
//! use, revoke.

use leptos::prelude::*;

use crate::account::api::tokens::{create_api_token, list_api_tokens, revoke_api_token};
use crate::model::{utc_minute, ApiTokenId, ApiTokenInput, ApiTokenState, ApiTokenView, Checked, TokenScope};
use crate::ui::components::ErrorBox;
use crate::ui::hooks::resource;

/// Lifetimes offered in the form, in days; "" is no expiry.
const LIFETIMES: &[(&str, &str)] =
    &[("30", "30 days"), ("90", "90 days"), ("365", "1 year"), ("", "never (until revoked)")];

/// Scopes offered in the form: what each lets a script do.
const SCOPES: &[(TokenScope, &str)] = &[
    (TokenScope::Read, "read: reports, lists, exports"),
    (TokenScope::Run, "run: read, and start or stop runs and tests"),
    (TokenScope::Admin, "admin: run, and change connectors, schedules, sets"),
];

/// The API tokens section.
#[component]
pub fn ApiTokensPanel() -> impl IntoView {
    let refresh = RwSignal::new(0u32);
    let tokens = resource(move || refresh.get(), |_| list_api_tokens());
    let name = RwSignal::new(String::new());
    let lifetime = RwSignal::new("90".to_string());
    let scope = RwSignal::new(TokenScope::Run);
    let create = Action::new(move |_: &()| {
        let input = ApiTokenInput {
            name: name.get_untracked(),
            expires_in_days: lifetime.get_untracked().parse().ok(),
            scope: scope.get_untracked(),
        };
        async move { create_api_token(Checked(input)).await }
    });
    Effect::new(move |_| {
        if let Some(Ok(_)) = create.value().get() {
            name.set(String::new());
            refresh.update(|n| *n += 1);
        }
    });
    view! {
        <section class="panel" id="api-tokens">
            <h2>"API tokens"</h2>
            <p class="muted">"For scripts and CI: send "<code>"Authorization: Bearer <token>"</code>" to any "
                <code>"/api/…"</code>" call, or pass "<code>"--server URL --token <token>"</code>" to the CLI. A token acts \
                for this workspace, within its scope; only its hash is kept. Tokens are made and revoked here, \
                never with a token."</p>
            <form class="inline-form" on:submit=move |ev| { ev.prevent_default(); create.dispatch(()); } novalidate>
                <label>"Name"<input id="token-name" placeholder="CI nightly" bind:value=name/></label>
                <label>"Expires"
                    <select id="token-expiry" on:change=move |ev| lifetime.set(event_target_value(&ev))>
                        {LIFETIMES.iter().map(|(days, label)| view! {
                            <option value=*days selected=move || lifetime.get() == *days>{*label}</option>
                        }).collect_view()}
                    </select>
                </label>
                <label>"May"
                    <select id="token-scope"
                        on:change=move |ev| scope.set(TokenScope::parse(&event_target_value(&ev)).unwrap_or_default())>
                        {SCOPES.iter().map(|(value, label)| view! {
                            <option value=value.as_str() selected=move || scope.get() == *value>{*label}</option>
                        }).collect_view()}
                    </select>
                </label>
                <button type="submit" id="create-token" class="primary" disabled=move || create.pending().get()>"Create token"</button>
            </form>
            {move || create.value().get().map(|created| match created {
                Ok(created) => view! {
                    <div class="notice" id="new-token">
                        <p>"Token "<strong>{created.view.name}</strong>" created. Copy it now: it is not shown again."</p>
                        <pre class="mono" id="new-token-value">{created.token}</pre>
                        <button type="button" class="copy" id="copy-new-token" data-copy="new-token-value">"Copy"</button>
                    </div>
                }.into_any(),
                Err(e) => view! { <ErrorBox message=e.to_string()/> }.into_any(),
            })}
            <Transition fallback=|| view! { <p>"Loading tokens…"</p> }>
                {move || Suspend::new(async move {
                    match tokens.await {
                        Err(e) => view! { <ErrorBox message=e.to_string()/> }.into_any(),
                        Ok(list) if list.is_empty() => view! { <p class="muted" id="no-tokens">"No API tokens yet: create one above for a script or a CI job (bench --server)."</p> }.into_any(),
                        Ok(list) => view! { <TokenTable list refresh/> }.into_any(),
                    }
                })}
            </Transition>
        </section>
    }
}

#[component]
fn TokenTable(list: Vec<ApiTokenView>, refresh: RwSignal<u32>) -> impl IntoView {
    let revoke = Action::new(move |id: &ApiTokenId| revoke_api_token(*id));
    Effect::new(move |_| {
        if let Some(Ok(_)) = revoke.value().get() {
            refresh.update(|n| *n += 1);
        }
    });
    let never = || "—".to_string();
    view! {
        <table class="table" id="tokens">
            <thead><tr><th>"Name"</th><th>"Token"</th><th>"Scope"</th><th>"Created (UTC)"</th><th>"Expires"</th><th>"Last used"</th><th>"State"</th><th></th></tr></thead>
            <tbody>
                {list.into_iter().map(|token| {
                    let state = match (token.state, token.revoked_at_ms) {
                        (ApiTokenState::Revoked, Some(at)) => format!("revoked {}", utc_minute(at)),
                        (ApiTokenState::Revoked, None) => "revoked".into(),
                        (ApiTokenState::Expired, _) => "expired".into(),
                        (ApiTokenState::Active, _) => "active".into(),
                    };
                    let id = token.id;
                    let live = token.state != ApiTokenState::Revoked;
                    view! {
                        <tr class="token-row">
                            <td>{token.name}</td>
                            <td class="mono">{token.hint}</td>
                            <td class="token-scope">{token.scope.as_str()}</td>
                            <td>{utc_minute(token.created_at_ms)}</td>
                            <td>{token.expires_at_ms.map(utc_minute).unwrap_or_else(|| "never".into())}</td>
                            <td>{token.last_used_at_ms.map(utc_minute).unwrap_or_else(never)}</td>
                            <td class="token-state">{state}</td>
                            <td>{live.then(|| view! {
                                <button type="button" class="link danger revoke-token" on:click=move |_| { revoke.dispatch(id); }>"Revoke"</button>
                            })}</td>
                        </tr>
                    }
                }).collect_view()}
            </tbody>
        </table>
        {move || revoke.value().get().and_then(Result::err).map(|e| view! { <ErrorBox message=e.to_string()/> })}
    }
}
