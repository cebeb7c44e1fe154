//! Which iterations a page of the report table shows: filtered to failures if asked, sorted by a column, one
//! page at a time. This is the definition; the store answers the same query in SQL for pages after the first,
//! and a store test holds the two to the same answer on both backends.

use std::cmp::Ordering;

use serde::{Deserialize, Serialize};

use crate::model::IterationRecord;
use crate::wire::ServerHtml;

/// Rows a table page may hold at most.
pub const MAX_PAGE_SIZE: usize = 500;

/// A sortable column.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum SortKey {
    /// Send order.
    #[default]
    Seq,
    /// Time to first token (iterations without one last).
    Ttft,
    /// Total time.
    Total,
    /// Output tokens (unknown last).
    TokensOut,
}

/// What the table shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct TableQuery {
    /// Sort column.
    pub sort: SortKey,
    /// Largest first.
    pub descending: bool,
    /// Only failed iterations.
    pub errors_only: bool,
    /// Zero-based page.
    pub page: usize,
    /// Rows per page (1 to [`MAX_PAGE_SIZE`]; out-of-range sizes are clamped).
    pub page_size: usize,
}

impl TableQuery {
    /// Rows per page, clamped into range.
    pub fn size(&self) -> usize {
        self.page_size.clamp(1, MAX_PAGE_SIZE)
    }
}

impl Default for TableQuery {
    fn default() -> Self {
        Self { sort: SortKey::Seq, descending: false, errors_only: false, page: 0, page_size: 100 }
    }
}

/// One page of the table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct IterationPage {
    /// The iterations, in display order.
    pub rows: Vec<IterationRecord>,
    /// Iterations matching the filter.
    pub matching: usize,
    /// Pages at that size (at least 1).
    pub pages: usize,
    /// The page shown (clamped into range).
    pub page: usize,
}

/// One page of the table as a report page shows it: its rows as the server drew them (`runs::fragments`), so the
/// page's WASM neither reads iteration records nor draws their cells.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TablePage {
    /// The rows, `<tr>` elements in display order.
    pub rows: ServerHtml,
    /// Iterations matching the filter.
    pub matching: usize,
    /// Pages at that size (at least 1).
    pub pages: usize,
    /// The page shown (clamped into range).
    pub page: usize,
}

fn key(r: &IterationRecord, sort: SortKey) -> Option<f64> {
    match sort {
        SortKey::Seq => Some(r.seq as f64),
        SortKey::Ttft => r.ttft_ms,
        SortKey::Total => Some(r.total_ms),
        SortKey::TokensOut => r.tokens_out.map(|t| t as f64),
    }
}

/// The page `query` asks for. Missing values sort last in either direction; ties keep send order.
pub fn table_page(results: &[IterationRecord], query: &TableQuery) -> IterationPage {
    let mut rows: Vec<usize> =
        (0..results.len()).filter(|&i| !query.errors_only || results[i].error.is_some()).collect();
    rows.sort_by(|&a, &b| {
        let (ka, kb) = (key(&results[a], query.sort), key(&results[b], query.sort));
        let by_key = match (ka, kb) {
            (Some(x), Some(y)) if query.descending => y.total_cmp(&x),
            (Some(x), Some(y)) => x.total_cmp(&y),
            (Some(_), None) => Ordering::Less,
            (None, Some(_)) => Ordering::Greater,
            (None, None) => Ordering::Equal,
        };
        by_key.then(results[a].seq.cmp(&results[b].seq))
    });
    let size = query.size();
    let matching = rows.len();
    let pages = page_count(matching, size);
    let page = query.page.min(pages - 1);
    let rows = rows.into_iter().skip(page * size).take(size).map(|i| results[i].clone()).collect();
    IterationPage { rows, matching, pages, page }
}

/// Pages needed for `matching` rows at `size` a page (at least one, empty).
pub fn page_count(matching: usize, size: usize) -> usize {
    matching.div_ceil(size.max(1)).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::fixtures::iteration_record;

    fn record(seq: u64, ttft: Option<f64>, total: f64, error: bool) -> IterationRecord {
        iteration_record(seq, ttft, total, error)
    }

    fn results() -> Vec<IterationRecord> {
        vec![
            record(0, Some(30.0), 300.0, false),
            record(1, None, 900.0, true),
            record(2, Some(10.0), 100.0, false),
            record(3, Some(20.0), 300.0, false),
            record(4, None, 50.0, true),
        ]
    }

    fn seqs(page: &IterationPage) -> Vec<u64> {
        page.rows.iter().map(|r| r.seq).collect()
    }

    #[test]
    fn sorts_by_a_column_with_missing_values_last_and_ties_in_send_order() {
        let r = results();
        let by = |sort, descending| seqs(&table_page(&r, &TableQuery { sort, descending, ..TableQuery::default() }));
        assert_eq!(by(SortKey::Seq, false), vec![0, 1, 2, 3, 4]);
        assert_eq!(by(SortKey::Ttft, false), vec![2, 3, 0, 1, 4], "no TTFT sorts last");
        assert_eq!(by(SortKey::Ttft, true), vec![0, 3, 2, 1, 4], "last in both directions");
        assert_eq!(by(SortKey::Total, true), vec![1, 0, 3, 2, 4], "equal totals keep send order");
        assert_eq!(by(SortKey::TokensOut, false), vec![0, 2, 3, 1, 4]);
    }

    #[test]
    fn filters_to_failures_and_pages() {
        let r = results();
        let errors = table_page(&r, &TableQuery { errors_only: true, ..TableQuery::default() });
        assert_eq!((seqs(&errors), errors.matching), (vec![1, 4], 2));
        let second = table_page(&r, &TableQuery { page: 1, page_size: 2, ..TableQuery::default() });
        assert_eq!((seqs(&second), second.pages, second.page), (vec![2, 3], 3, 1));
        let beyond = table_page(&r, &TableQuery { page: 9, page_size: 2, ..TableQuery::default() });
        assert_eq!((seqs(&beyond), beyond.page), (vec![4], 2), "a page past the end shows the last one");
        let huge = table_page(&r, &TableQuery { page_size: 1 << 40, ..TableQuery::default() });
        assert_eq!(huge.rows.len(), 5, "sizes are clamped, not trusted");
        let empty = table_page(&[], &TableQuery::default());
        assert_eq!((empty.rows.len(), empty.pages, empty.page), (0, 1, 0));
    }
}
