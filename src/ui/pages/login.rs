//! The login page: how to get in (a one-time link printed by the server), and why a link did not work.

use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_query_map;

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
    view! {
        <Title text="Log in · latency-guard"/>
        <main class="login">
            <h1>"latency-guard"</h1>
            {move || problem().map(|p| view! { <div class="error" role="alert">{p}</div> })}
            <p>"Open the one-time login link that the server printed when it first started."</p>
            <p>"For a fresh link, run this on the server (same settings as the running app):"</p>
            <pre>"latency-guard login-link"</pre>
            <p class="muted">"Wallet login (Sign-In with Ethereum) will sit here too."</p>
        </main>
    }
}
