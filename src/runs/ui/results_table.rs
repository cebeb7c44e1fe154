//! The per-iteration table of a report: sortable by send order, TTFT, total time and output tokens, filterable
//! to failures, 100 rows a page. The page arrives with the first page; every other page is asked of the server,
//! which sorts and filters in the database and draws the rows (`runs::fragments::table_page`), so a 100,000-iteration
//! report never travels whole to draw a table, and the page's WASM carries no reader of iteration records.

use leptos::prelude::*;

use crate::runs::report::{SortKey, TablePage, TableQuery};
use crate::runs::ui::ReportSource;
use crate::ui::browser_error::BrowserError;

/// A sortable column's heading: `label` (with its unit), and `name`, the column as a test or a script finds it.
fn header_button(name: &'static str, label: &'static str, key: SortKey, query: RwSignal<TableQuery>) -> impl IntoView {
    let arrow = move || {
        let q = query.get();
        match (q.sort == key, q.descending) {
            (true, true) => " ▼",
            (true, false) => " ▲",
            _ => "",
        }
    };
    let on_click = move |_| {
        query.update(|q| {
            q.descending = q.sort == key && !q.descending;
            q.sort = key;
            q.page = 0;
        })
    };
    view! { <button type="button" class="link sort" data-sort=name on:click=on_click>{label}{arrow}</button> }
}

/// Fetches the page `query` asks for, showing only the answer to the latest request.
#[derive(Clone, Copy)]
struct PageLoader {
    source: StoredValue<ReportSource>,
    page: RwSignal<TablePage>,
    loading: RwSignal<bool>,
    failure: RwSignal<Option<BrowserError>>,
    latest: StoredValue<u64>,
}

impl PageLoader {
    fn load(self, query: TableQuery) {
        self.latest.update_value(|n| *n += 1);
        let ticket = self.latest.get_value();
        self.loading.set(true);
        leptos::task::spawn_local(async move {
            let answer = self.source.get_value().page(query).await;
            if self.latest.get_value() != ticket {
                return;
            }
            match answer {
                Ok(page) => {
                    self.page.set(page);
                    self.failure.set(None);
                }
                Err(e) => self.failure.set(Some(e)),
            }
            self.loading.set(false);
        });
    }
}

/// The table of the report `source`, starting at `first` (the first page in send order).
#[component]
pub fn ResultsTable(source: ReportSource, first: TablePage) -> impl IntoView {
    let query = RwSignal::new(TableQuery::default());
    let loader = PageLoader {
        source: StoredValue::new(source),
        page: RwSignal::new(first),
        loading: RwSignal::new(false),
        failure: RwSignal::new(None),
        latest: StoredValue::new(0),
    };
    let page = loader.page;
    // Every change of the query after the first render asks the server; the first page came with the view.
    Effect::new(move |previous: Option<()>| {
        let q = query.get();
        if previous.is_some() {
            loader.load(q);
        }
    });
    let go = move |to: usize| query.update(|q| q.page = to);
    let on_first = move || page.get().page == 0;
    let on_last = move || {
        let p = page.get();
        p.page + 1 >= p.pages
    };
    view! {
        <section>
            <h3>"Iterations"</h3>
            <div class="table-controls">
                <label class="inline"><input type="checkbox" id="errors-only"
                    on:change=move |ev| query.update(|q| { q.errors_only = event_target_checked(&ev); q.page = 0; })/>
                    " Failures only"</label>
                <span class="muted" id="table-count">{move || {
                    let p = page.get();
                    format!("{} iteration(s) · page {} of {}", p.matching, p.page + 1, p.pages)
                }}</span>
                <button type="button" id="page-prev" disabled=on_first on:click=move |_| go(page.get_untracked().page.saturating_sub(1))>"‹ Previous"</button>
                <button type="button" id="page-next" disabled=on_last on:click=move |_| go(page.get_untracked().page + 1)>"Next ›"</button>
                <Show when=move || loader.loading.get()><span class="muted" role="status" id="table-loading">"Loading…"</span></Show>
                {move || loader.failure.get().map(|e| view! { <span class="error" role="alert">{format!("This page could not be loaded: {e}")}</span> })}
            </div>
            <table class="table" id="results" aria-busy=move || loader.loading.get().to_string()>
                <thead><tr>
                    <th>{header_button("#", "#", SortKey::Seq, query)}</th><th>"Prompt"</th><th class="num">"Iter."</th>
                    <th class="num">{header_button("TTFT", "TTFT (ms)", SortKey::Ttft, query)}</th>
                    <th class="num">{header_button("Total", "Total (ms)", SortKey::Total, query)}</th>
                    <th class="num" title="time per output token after the first">"TPOT (ms)"</th>
                    <th class="num" title="mean and longest gap between tokens">"ITL mean / max (ms)"</th>
                    <th class="num">{header_button("Tokens", "Tokens in / out", SortKey::TokensOut, query)}</th>
                    <th class="num">"Cost (USD)"</th><th>"Error"</th>
                </tr></thead>
                // The server's rows; hydration keeps those already in the page (their HTML is empty in its data).
                <tbody inner_html=move || page.with(|p| p.rows.as_str().to_string())></tbody>
            </table>
        </section>
    }
}
