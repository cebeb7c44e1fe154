//! The frame of every page: sidebar navigation, the page title, and the logout button (signed-in pages), or the
//! bare frame (public pages).

use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::components::A;

/// A signed-in page with navigation.
#[component]
pub fn Layout(title: &'static str, children: Children) -> impl IntoView {
    // Effects run only in the browser: the attribute flips once the WASM bundle has hydrated the page.
    let hydrated = RwSignal::new(false);
    Effect::new(move |_| hydrated.set(true));
    view! {
        <Title text=format!("{title} · latency-guard")/>
        <div class="frame" data-hydrated=move || hydrated.get().to_string()>
            <nav class="sidebar">
                <div class="brand">"latency-guard"</div>
                <A href="/connectors">"Connectors"</A>
                <A href="/runs">"Runs"</A>
                <A href="/compare">"Compare"</A>
                <form method="post" action="/auth/logout" class="logout">
                    <button type="submit" class="link">"Log out"</button>
                </form>
            </nav>
            <main class="content">
                <h1>{title}</h1>
                {children()}
            </main>
        </div>
    }
}

/// A page anyone may open (a share link): the same frame without navigation, which needs a session.
#[component]
pub fn PublicLayout(title: &'static str, children: Children) -> impl IntoView {
    let hydrated = RwSignal::new(false);
    Effect::new(move |_| hydrated.set(true));
    view! {
        <Title text=format!("{title} · latency-guard")/>
        <div class="frame public" data-hydrated=move || hydrated.get().to_string()>
            <nav class="sidebar"><div class="brand">"latency-guard"</div></nav>
            <main class="content">
                <h1>{title}</h1>
                {children()}
            </main>
        </div>
    }
}

/// A failure message.
#[component]
pub fn ErrorBox(message: String) -> impl IntoView {
    view! { <div class="error" role="alert">{message}</div> }
}
