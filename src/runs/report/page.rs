//! A report as its page shows it: the parts that never change once shown, rendered by the server
//! (the `fragments` module), and what the page's own live parts read — the export buttons and the table.

use serde::{Deserialize, Serialize};

use crate::runs::report::TablePage;
use crate::wire::ServerHtml;

/// A report's page: the owner's run page and a share link's alike.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReportPage {
    /// Title, endpoint, model, agent and settings.
    pub header: ServerHtml,
    /// The scatter of the stored points, SVG.
    pub scatter: ServerHtml,
    /// Stat cards, honesty notes, distribution, the run over time, the server's own metrics.
    pub body: ServerHtml,
    /// Iterations recorded, warm-ups included: how large an export is.
    pub iterations: usize,
    /// The table's first page in send order.
    pub first_page: TablePage,
}
