//! The frame of every page: sidebar navigation, the page title, and the logout button (signed-in pages), or the
//! bare frame (public pages).

use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::components::A;

use crate::account::api::whoami;
use crate::guard::api::open_alert_count;
use crate::ui::hooks::resource;

/// Bumped by anything that changes how many alerts are open, so every sidebar badge reads the count again.
#[derive(Debug, Clone, Copy)]
pub struct AlertBadge(pub RwSignal<u64>);

impl AlertBadge {
    /// Asks the badge to read the count again.
    pub fn refresh(self) {
        self.0.update(|n| *n += 1);
    }
}

/// The badge's refresher, created once per page tree.
pub fn alert_badge() -> AlertBadge {
    use_context::<AlertBadge>().unwrap_or_else(|| {
        let badge = AlertBadge(RwSignal::new(0));
        provide_context(badge);
        badge
    })
}

/// The sidebar's Guard link with the number of unacknowledged alerts.
#[component]
fn GuardLink() -> impl IntoView {
    let badge = alert_badge();
    let count = resource(move || badge.0.get(), |_| open_alert_count());
    view! {
        <A href="/guard">"Guard"
            <Transition fallback=|| ()>
                {move || Suspend::new(async move {
                    let n = count.await.unwrap_or(0);
                    view! { <span id="alert-badge" class="badge" class:zero=n == 0 title="unacknowledged alerts">{n}</span> }
                })}
            </Transition>
        </A>
    }
}

/// Who is signed in (a wallet's short address, or the install's owner), above the logout button.
#[component]
fn SignedIn() -> impl IntoView {
    let account = resource(|| (), |_| whoami());
    view! {
        <Transition fallback=|| ()>
            {move || Suspend::new(async move {
                account.await.ok().map(|a| {
                    let title = match &a.signed_in_as {
                        crate::account::model::SignedInAs::Wallet { address } => address.clone(),
                        crate::account::model::SignedInAs::InstallOwner => "signed in with the owner's login link".into(),
                        crate::account::model::SignedInAs::Other { identity } => identity.clone(),
                    };
                    view! {
                        <div id="signed-in" class="signed-in" title=title>
                            <span class="muted">"Signed in as "</span><span class="who">{a.short_label()}</span>
                        </div>
                    }
                })
            })}
        </Transition>
    }
}

/// A signed-in page with navigation.
#[component]
pub fn Layout(title: &'static str, children: Children) -> impl IntoView {
    let nav = view! {
        <A href="/" exact=true>"Home"</A>
        <A href="/connectors">"Connectors"</A>
        <A href="/runs">"Runs"</A>
        <A href="/workloads">"Workloads"</A>
        <A href="/compare">"Compare"</A>
        <A href="/sweeps">"Sweeps"</A>
        <A href="/spec-lab">"Spec Lab"</A>
        <GuardLink/>
        <A href="/settings">"Settings"</A>
        <SignedIn/>
        <form method="post" action="/auth/logout" class="logout">
            <button type="submit" class="link">"Log out"</button>
        </form>
    };
    frame(title, "frame", Some(nav.into_any()), children)
}

/// A page anyone may open (a share link): the same frame without navigation, which needs a session.
#[component]
pub fn PublicLayout(title: &'static str, children: Children) -> impl IntoView {
    frame(title, "frame public", None, children)
}

/// The page's title, the sidebar (the brand, then `nav`) and the content under its heading.
fn frame(title: &'static str, class: &'static str, nav: Option<AnyView>, children: Children) -> impl IntoView {
    // Effects run only in the browser: the attribute flips once the WASM bundle has hydrated the page.
    let hydrated = RwSignal::new(false);
    Effect::new(move |_| hydrated.set(true));
    view! {
        <Title text=format!("{title} · latency-guard")/>
        <div class=class data-hydrated=move || hydrated.get().to_string()>
            <nav class="sidebar">
                <div class="brand">"latency-guard"</div>
                {nav}
            </nav>
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
