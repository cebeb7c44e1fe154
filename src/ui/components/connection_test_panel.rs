//! Shows a connection test's outcome: ok or not, status, time, the body preview, and a hint for known failures.

use leptos::prelude::*;

use crate::error::AppError;
use crate::model::ConnectionTestResult;

/// The result of the last "Test connection" press, or the reason it could not run.
#[component]
pub fn ConnectionTestPanel(result: Result<ConnectionTestResult, AppError>) -> impl IntoView {
    match result {
        Err(e) => view! { <div id="test-result" class="test-result bad">{e.to_string()}</div> }.into_any(),
        Ok(r) => {
            let hint = r.hint();
            let class = if r.ok { "test-result good" } else { "test-result bad" };
            let status = if r.status == 0 { "no response".to_string() } else { r.status.to_string() };
            view! {
                <div id="test-result" class=class>
                    <div class="verdict">
                        <strong>{if r.ok { "ok" } else { "failed" }}</strong>
                        " · status " <span class="status">{status}</span>
                        " · " {r.ms} " ms (whole request, one token, not streamed)"
                    </div>
                    {hint.map(|h| view! { <p class="hint">{h}</p> })}
                    <pre class="body">{r.body}</pre>
                </div>
            }
            .into_any()
        }
    }
}
