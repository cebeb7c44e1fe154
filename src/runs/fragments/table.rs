//! A page of a report's iteration table, its rows drawn on the server: the page's WASM only swaps them in when a
//! reader sorts, filters or turns the page. Units are in the column headings (`ui::ResultsTable`), not in each cell.

use leptos::prelude::*;

use crate::fragments::render;
use crate::model::{IterationRecord, TokenSource};
use crate::report::ms_number;
use crate::runs::report::{IterationPage, TablePage};

/// `page` as the report page shows it.
pub fn table_page(page: &IterationPage) -> TablePage {
    TablePage {
        rows: render(page.rows.iter().map(row).collect_view()),
        matching: page.matching,
        pages: page.pages,
        page: page.page,
    }
}

fn row(r: &IterationRecord) -> impl IntoView {
    let cell = |v: Option<f64>| v.map_or_else(|| "—".to_string(), ms_number);
    let count = |t: Option<u64>| t.map_or("—".into(), |t| t.to_string());
    let estimated = if r.token_source == TokenSource::Estimated { " (est.)" } else { "" };
    view! {
        <tr class:warmup=r.warmup class:failed=r.error.is_some()>
            <td>{r.seq}{r.warmup.then_some(" warm-up")}</td>
            <td class="prompt">{r.prompt.chars().take(60).collect::<String>()}</td>
            <td class="num">{r.iteration}</td>
            <td class="num">{cell(r.ttft_ms)}</td>
            <td class="num">{ms_number(r.total_ms)}</td>
            <td class="num tpot">{cell(r.tpot_ms)}</td>
            <td class="num itl">{match (r.itl_ms, r.max_itl_ms) {
                (Some(mean), Some(max)) => format!("{} / {}", ms_number(mean), ms_number(max)),
                _ => "—".into(),
            }}</td>
            <td class="num">{format!("{} / {}{estimated}", count(r.tokens_in), count(r.tokens_out))}</td>
            <td class="num">{r.cost_usd.map_or("—".into(), |c| format!("{c:.6}"))}</td>
            <td class="error-cell">{r.error.clone().unwrap_or_default()}</td>
        </tr>
    }
}
