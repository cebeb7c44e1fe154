//! Server-rendered parts of pages: what never changes once a page shows it (a report's header, figures, honesty
//! notes and charts; a comparison of two runs; a sweep's and an A/B test's reports), rendered to HTML on the server with Leptos views and sent as
//! [`ServerHtml`]. The browser build does not compile this module, so neither these views nor the types they read
//! travel in the page's WASM; a page shows the HTML with `ui::components::ServerPart`. Knows nothing of storage,
//! sessions or HTTP: values in, HTML out.

use leptos::prelude::*;

use crate::wire::ServerHtml;

/// Where rendered HTML is shown: the app's page, or a file a user keeps (an export), in which a link into the app
/// would lead nowhere.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShownIn {
    /// A page of the app.
    Page,
    /// An exported file.
    File,
}

/// A view rendered once, as HTML, without the markers Leptos writes between text nodes for hydration (`<!>`): this
/// HTML is never hydrated (a page shows it through `inner_html`, a file as it is), and text is escaped, so `<!>`
/// is never a part of what it says.
pub fn render(view: impl IntoView) -> ServerHtml {
    ServerHtml::trusted(view.into_view().to_html().replace("<!>", ""))
}

/// A lab page's last part: how its numbers were made, one note a line, in the list `id`.
pub(crate) fn how_made(id: &'static str, notes: Vec<String>) -> impl IntoView {
    view! {
        <h2>"How these numbers were made"</h2>
        <ul class="honesty" id=id>{notes.into_iter().map(|n| view! { <li>{n}</li> }).collect_view()}</ul>
    }
}
