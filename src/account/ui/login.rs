//! The login page: Sign-In with Ethereum through the browser's wallet, or the one-time link the server prints for
//! the install's owner; and why a link did not work.

use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_query_map;

use crate::account::ui::wallet::{has_browser_wallet, sign_in_with_wallet, NO_WALLET};
use crate::ui::browser_error::BrowserError;

/// Where the wallet login stands.
#[derive(Debug, Clone, PartialEq)]
enum WalletLogin {
    Idle,
    Asking,
    Failed(BrowserError),
}

/// `/login`.
#[component]
pub fn LoginPage() -> impl IntoView {
    let query = use_query_map();
    let problem = move || {
        query.with(|q| match q.get("error").as_deref() {
            Some("expired") => Some("That login link is expired or was already used. Each link works once."),
            Some("missing") => Some("The login link has no token. Copy the whole link the server printed."),
            Some("server") => Some("The server could not check the link; see its log."),
            _ => None,
        })
    };
    // Effects run only in the browser: whether a wallet exists is known once the page has hydrated.
    let hydrated = RwSignal::new(false);
    let wallet_found = RwSignal::new(true);
    Effect::new(move |_| {
        wallet_found.set(has_browser_wallet());
        hydrated.set(true);
    });
    let state = RwSignal::new(WalletLogin::Idle);
    let sign_in = move |_| {
        state.set(WalletLogin::Asking);
        leptos::task::spawn_local(async move {
            match sign_in_with_wallet().await {
                Ok(_) => go_to_connectors(),
                Err(reason) => state.set(WalletLogin::Failed(reason)),
            }
        });
    };
    view! {
        <Title text="Log in · latency-guard"/>
        <main class="login" data-hydrated=move || hydrated.get().to_string()>
            <h1>"latency-guard"</h1>
            {move || problem().map(|p| view! { <div class="error" role="alert">{p}</div> })}
            <section class="wallet-login">
                <h2>"Sign in with a wallet"</h2>
                <p>"Your Ethereum wallet signs a one-time message (Sign-In with Ethereum); nothing is sent on chain \
                    and nothing is paid. Each wallet gets a workspace of its own."</p>
                <button
                    id="wallet-login"
                    class="primary"
                    disabled=move || !hydrated.get() || state.get() == WalletLogin::Asking
                    on:click=sign_in
                >
                    {move || if state.get() == WalletLogin::Asking { "Waiting for the wallet…" } else { "Sign in with wallet" }}
                </button>
                {move || (!wallet_found.get()).then(|| view! { <p class="notice" id="no-wallet">{NO_WALLET}</p> })}
                {move || match state.get() {
                    WalletLogin::Failed(reason) => Some(view! { <div class="error" role="alert" id="wallet-error">{reason.to_string()}</div> }),
                    _ => None,
                }}
            </section>
            <section class="link-login">
                <h2>"The install's owner"</h2>
                <p>"Open the one-time login link that the server printed when it first started."</p>
                <p>"For a fresh link, run this on the server (same settings as the running app):"</p>
                <pre>"latency-guard login-link"</pre>
            </section>
        </main>
    }
}

/// A full navigation, so the next page is rendered with the new session cookie.
fn go_to_connectors() {
    #[cfg(feature = "hydrate")]
    if let Some(window) = web_sys::window() {
        let _ = window.location().set_href("/");
    }
}
