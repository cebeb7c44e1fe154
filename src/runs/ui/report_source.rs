//! Where a report page fetches what its view leaves out — later table pages and, for an export, the whole
//! snapshot: from the owner's server functions, or from the public share routes with the link's token.

use crate::model::RunId;
use crate::runs::api::{get_run_export, get_table_page};
use crate::runs::report::{ReportFiles, TablePage, TableQuery};
use crate::ui::browser_error::BrowserError;

/// The report a page shows and how it is reached.
#[derive(Debug, Clone, PartialEq)]
pub enum ReportSource {
    /// A run of the signed-in workspace.
    Owned(RunId),
    /// A shared report, read with its share token.
    #[cfg_attr(not(feature = "hydrate"), allow(dead_code, reason = "the token is read from the URL in the browser"))]
    Shared {
        /// The run id, as in the link.
        id: String,
        /// The token from the link's fragment.
        token: String,
    },
}

impl ReportSource {
    /// One page of the iteration table, its rows drawn by the server.
    pub async fn page(&self, query: TableQuery) -> Result<TablePage, BrowserError> {
        match self {
            Self::Owned(id) => Ok(get_table_page(*id, query).await?),
            Self::Shared { id, token } => {
                let sort = serde_json::to_value(query.sort).map_err(|e| BrowserError::Browser(e.to_string()))?;
                let path = format!(
                    "/api/public/reports/{id}/table?sort={}&descending={}&errorsOnly={}&page={}&pageSize={}",
                    sort.as_str().unwrap_or("seq"),
                    query.descending,
                    query.errors_only,
                    query.page,
                    query.page_size
                );
                public_get(&path, token).await
            }
        }
    }

    /// The whole report snapshot, every iteration included, with its sections rendered for a file, fetched in its
    /// compact form.
    pub async fn files(&self) -> Result<ReportFiles, BrowserError> {
        let unreadable = |e: crate::runs::report::CompactError| {
            BrowserError::Unreachable(format!("The report could not be read: {e}"))
        };
        match self {
            Self::Owned(id) => get_run_export(*id).await?.into_files().map_err(unreadable),
            Self::Shared { id, token } => {
                public_get::<crate::runs::report::CompactSnapshot>(&format!("/api/public/reports/{id}/export"), token)
                    .await?
                    .into_files()
                    .map_err(unreadable)
            }
        }
    }
}

/// `GET path` with the share token; a 404 means the link no longer opens the report.
#[cfg(feature = "hydrate")]
pub async fn public_get<T: serde::de::DeserializeOwned>(path: &str, token: &str) -> Result<T, BrowserError> {
    let unreachable = |e: gloo_net::Error| BrowserError::Unreachable(format!("The report could not be loaded: {e}"));
    let response = gloo_net::http::Request::get(path)
        .header(crate::model::SHARE_TOKEN_HEADER, token)
        .send()
        .await
        .map_err(unreachable)?;
    match response.status() {
        200 => {
            let text = response.text().await.map_err(unreachable)?;
            crate::wire::from_json(&text)
                .map_err(|e| BrowserError::Unreachable(format!("The report could not be read: {e}")))
        }
        404 => Err(BrowserError::NeedsAction(
            "This share link does not open a report: it was revoked, replaced, or mistyped.",
        )),
        status => Err(BrowserError::Refused(format!(
            "The report could not be loaded (HTTP {status}): {}",
            response.text().await.unwrap_or_default()
        ))),
    }
}

/// Public reads happen in the browser only: the server renders a share page without its report.
#[cfg(not(feature = "hydrate"))]
pub async fn public_get<T: serde::de::DeserializeOwned>(_path: &str, _token: &str) -> Result<T, BrowserError> {
    Err(BrowserError::OnlyInTheBrowser("a shared report is read"))
}
