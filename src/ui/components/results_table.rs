//! The per-iteration table of a report: sortable by send order, TTFT, total time and output tokens, filterable
//! to failures, 100 rows a page. Works in the browser on the report it already has.

use leptos::prelude::*;

use crate::model::{IterationRecord, TokenSource};
use crate::report::{ms, table_page, SortKey, TableQuery};

fn header_button(label: &'static str, key: SortKey, query: RwSignal<TableQuery>) -> impl IntoView {
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
    view! { <button type="button" class="link sort" data-sort=label on:click=on_click>{label}{arrow}</button> }
}

fn row(r: &IterationRecord) -> impl IntoView {
    let cell = |v: Option<f64>| v.map_or_else(|| "—".to_string(), ms);
    let count = |t: Option<u64>| t.map_or("—".into(), |t| t.to_string());
    let estimated = if r.token_source == TokenSource::Estimated { " (est.)" } else { "" };
    view! {
        <tr class:warmup=r.warmup class:failed=r.error.is_some()>
            <td>{r.seq}{r.warmup.then_some(" warm-up")}</td>
            <td class="prompt">{r.prompt.chars().take(60).collect::<String>()}</td>
            <td>{r.iteration}</td>
            <td>{cell(r.ttft_ms)}</td>
            <td>{ms(r.total_ms)}</td>
            <td>{format!("{} / {}{estimated}", count(r.tokens_in), count(r.tokens_out))}</td>
            <td>{r.cost_usd.map_or("—".into(), |c| format!("{c:.6}"))}</td>
            <td class="error-cell">{r.error.clone().unwrap_or_default()}</td>
        </tr>
    }
}

/// The table.
#[component]
pub fn ResultsTable(results: Vec<IterationRecord>) -> impl IntoView {
    let results = StoredValue::new(results);
    let query = RwSignal::new(TableQuery::default());
    let page = Memo::new(move |_| results.with_value(|r| table_page(r, &query.get())));
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
            </div>
            <table class="table" id="results">
                <thead><tr>
                    <th>{header_button("#", SortKey::Seq, query)}</th><th>"Prompt"</th><th>"Iter."</th>
                    <th>{header_button("TTFT", SortKey::Ttft, query)}</th><th>{header_button("Total", SortKey::Total, query)}</th>
                    <th>{header_button("Tokens in / out", SortKey::TokensOut, query)}</th><th>"Cost (USD)"</th><th>"Error"</th>
                </tr></thead>
                <tbody>
                    {move || results.with_value(|r| page.get().rows.iter().map(|&i| row(&r[i])).collect_view())}
                </tbody>
            </table>
        </section>
    }
}
