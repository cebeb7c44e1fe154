//! What each API call asks of an API token: the narrowest scope that may make it, or a signed-in browser. A call
//! not in this table is refused to every token (fail closed); `tests/app/api_tokens.rs` checks that the table names
//! every server function the app serves, so a new one cannot be forgotten silently.

use crate::model::TokenScope;

/// What a call needs of its caller.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Needs {
    /// A token of at least this scope (or a browser session).
    Token(TokenScope),
    /// A browser session: managing tokens and ending sessions.
    Browser,
}

const READ: &[&str] = &[
    "account/whoami",
    "connectors/get",
    "connectors/list",
    "datasets/list",
    "guard/alerts/count",
    "guard/alerts/list",
    "guard/email-enabled",
    "guard/estimate",
    "guard/mutes/list",
    "guard/schedules/choices",
    "guard/schedules/get",
    "guard/schedules/list",
    "guard/schedules/page",
    "guard/sets/list",
    "home/page",
    "runs/compare",
    "runs/compare_page",
    "runs/export",
    "runs/iterations",
    "runs/list",
    "runs/listing",
    "runs/page",
    "runs/report",
    "runs/scatter",
    "runs/table",
    "runs/view",
    "speclab/ab/get",
    "speclab/ab/list",
    "speclab/ab/page",
    "sweeps/compare",
    "sweeps/file",
    "sweeps/get",
    "sweeps/list",
    "sweeps/page",
    "workloads/choices",
    "workloads/list",
    "workloads/page",
];

const RUN: &[&str] = &[
    "benchmark/once",
    "connectors/test",
    "guard/schedules/run",
    "guard/schedules/test-email",
    "guard/schedules/test-webhook",
    "runs/begin",
    "runs/cancel",
    "runs/start",
    "speclab/ab/cancel",
    "speclab/ab/start",
    "speclab/probe",
    "sweeps/cancel",
    "sweeps/start",
];

const ADMIN: &[&str] = &[
    "account/contact",
    "account/contact/clear",
    "account/rename",
    "connectors/create",
    "connectors/delete",
    "connectors/update",
    "datasets/delete",
    "datasets/upload",
    "guard/alerts/ack",
    "guard/alerts/ack-all",
    "guard/baselines/pin",
    "guard/mutes/clear",
    "guard/mutes/set",
    "guard/schedules/delete",
    "guard/schedules/enable",
    "guard/schedules/save",
    "guard/sets/delete",
    "guard/sets/save",
    "reports/share",
    "reports/unshare",
    "runs/delete",
    "runs/rename",
    "sweeps/delete",
    "workloads/delete",
    "workloads/save",
    "workloads/save-form",
];

const BROWSER: &[&str] = &["account/sign-out-everywhere", "tokens/create", "tokens/list", "tokens/revoke"];

/// What the call at `path` (after `/api/`) needs; `None` for a call this table does not know.
pub fn needs(path: &str) -> Option<Needs> {
    let token = |list: &[&str], scope| list.contains(&path).then_some(Needs::Token(scope));
    token(READ, TokenScope::Read)
        .or_else(|| token(RUN, TokenScope::Run))
        .or_else(|| token(ADMIN, TokenScope::Admin))
        .or_else(|| BROWSER.contains(&path).then_some(Needs::Browser))
        .or_else(|| is_live_events(path).then_some(Needs::Token(TokenScope::Read)))
}

/// `runs/{id}/events`: a run's live progress.
fn is_live_events(path: &str) -> bool {
    path.strip_prefix("runs/").and_then(|rest| rest.strip_suffix("/events")).is_some_and(|id| !id.contains('/'))
}

/// Why a token may not make a call, in words; `None` when it may.
pub fn refusal(scope: TokenScope, path: &str) -> Option<String> {
    match needs(path) {
        Some(Needs::Token(needed)) if scope.covers(needed) => None,
        Some(Needs::Token(needed)) => Some(format!(
            "this token's scope is {}; {path} needs a {} token (make one in Settings)",
            scope.as_str(),
            needed.as_str()
        )),
        Some(Needs::Browser) => Some(format!("{path} is done from a signed-in browser, not with a token")),
        None => Some(format!("{path} is not open to API tokens")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_scope_makes_the_calls_of_its_own_and_narrower_scopes() {
        use TokenScope::*;
        let table = [
            (Read, "runs/list", true),
            (Read, "runs/abc/events", true),
            (Read, "runs/start", false),
            (Read, "connectors/create", false),
            (Run, "runs/start", true),
            (Run, "runs/report", true),
            (Run, "connectors/update", false),
            (Admin, "connectors/update", true),
            (Admin, "tokens/create", false),
            (Admin, "account/sign-out-everywhere", false),
            (Admin, "runs/a/b/events", false),
            (Admin, "something/new", false),
        ];
        for (scope, path, allowed) in table {
            assert_eq!(refusal(scope, path).is_none(), allowed, "{scope:?} {path}");
        }
        assert_eq!(
            refusal(Read, "runs/start").unwrap(),
            "this token's scope is read; runs/start needs a run token (make one in Settings)"
        );
    }

    #[test]
    fn no_call_is_in_two_lists() {
        let all: Vec<&str> = [READ, RUN, ADMIN, BROWSER].concat();
        let mut unique = all.clone();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(unique.len(), all.len());
    }
}
