//! The settings page's alert e-mail: the owner's confirmed contact address, a one-time link to confirm another,
//! and what a followed link did (`?contact=confirmed|expired|server`).

use leptos::prelude::*;
use leptos_router::hooks::use_query_map;

use crate::account::api::{clear_contact_email, set_contact_email, whoami};
use crate::ui::components::ErrorBox;
use crate::ui::hooks::resource;

/// The alert e-mail section.
#[component]
pub fn ContactPanel() -> impl IntoView {
    let query = use_query_map();
    let refresh = RwSignal::new(0u32);
    let account = resource(move || refresh.get(), |_| whoami());
    let email = RwSignal::new(String::new());
    let send = Action::new(move |_: &()| set_contact_email(email.get_untracked()));
    let clear = Action::new(|_: &()| clear_contact_email());
    Effect::new(move |_| {
        if let Some(Ok(_)) = clear.value().get() {
            refresh.update(|n| *n += 1);
        }
    });
    let followed = move || {
        query.with(|q| match q.get("contact").as_deref() {
            Some("confirmed") => Some(("notice", "The address is confirmed: alert e-mail for the owner goes there.")),
            Some("expired") => Some(("error", "That link is expired or was already used. Ask for a new one below.")),
            Some("server") => Some(("error", "The server could not check the link; see its log.")),
            _ => None,
        })
    };
    view! {
        <section class="panel" id="alert-email">
            <h2>"Alert e-mail"</h2>
            {move || followed().map(|(class, text)| view! { <p class=class id="contact-followed">{text}</p> })}
            <Transition fallback=|| ()>
                {move || Suspend::new(async move {
                    account.await.map(|a| match (a.email_enabled, a.contact_email) {
                        (false, _) => view! {
                            <p class="muted" id="contact-email-off">"E-mail is off on this server: its operator has not set \
                                smtp-url. Alerts still reach the Guard feed and webhooks."</p>
                        }.into_any(),
                        (true, Some(address)) => view! {
                            <p id="contact-current">"Schedules that e-mail the owner write to "<strong>{address}</strong>". "
                                <button type="button" class="link" id="clear-contact" on:click=move |_| { clear.dispatch(()); }>"Stop"</button></p>
                        }.into_any(),
                        (true, None) => view! {
                            <p class="muted" id="contact-none">"No confirmed address yet: schedules that e-mail the owner \
                                send nothing until one is confirmed."</p>
                        }.into_any(),
                    }).map_err(|e| e.to_string())
                })}
            </Transition>
            <form class="inline-form" on:submit=move |ev| { ev.prevent_default(); send.dispatch(()); } novalidate>
                <label>"Contact address"<input id="contact-email" type="email" placeholder="oncall@example.com" bind:value=email/></label>
                <button type="submit" id="send-contact-link" disabled=move || send.pending().get()>"Send confirmation link"</button>
            </form>
            {move || send.value().get().map(|sent| match sent {
                Ok(to) => view! {
                    <p class="notice" id="contact-sent">{format!("A link was sent to {to}. It works once, for 24 hours.")}</p>
                }.into_any(),
                Err(e) => view! { <ErrorBox message=e.to_string()/> }.into_any(),
            })}
        </section>
    }
}
