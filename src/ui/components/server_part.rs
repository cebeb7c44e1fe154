//! A part of a page the server rendered (the `fragments` module): shown as it came, with no view code of its own in
//! the browser.

use leptos::prelude::*;

use crate::wire::ServerHtml;

/// The server's HTML in a box that takes no room of its own (`display: contents`). When the browser hydrates a
/// page it leaves the HTML already there (the page's data carries it empty); on a page reached in the browser,
/// or read again, it is the reply's.
#[component]
pub fn ServerPart(html: ServerHtml) -> impl IntoView {
    view! { <div class="server-part" inner_html=html.into_string()></div> }
}
