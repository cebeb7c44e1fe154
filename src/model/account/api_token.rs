//! API tokens: named credentials for scripts (`Authorization: Bearer lgt_…`), shown once, revocable, optionally
//! expiring. What the settings page lists and what creating one takes.

use serde::{Deserialize, Serialize};

use crate::model::{ApiTokenId, ValidationError};

/// Every API token starts with this, so a leaked one is recognisable (and secret scanners can match it).
pub const API_TOKEN_PREFIX: &str = "lgt_";

/// The longest token name.
pub const MAX_TOKEN_NAME_CHARS: usize = 80;

/// The longest lifetime a token may be given, in days (ten years); no expiry is also allowed.
pub const MAX_TOKEN_DAYS: u32 = 3_650;

/// What a token may do. Each scope includes the ones before it; none manages tokens or ends browser sessions
/// (that takes a signed-in browser, so a leaked token cannot entrench itself or lock the owner out).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TokenScope {
    /// Read: lists, reports, pages, exports, estimates.
    Read,
    /// Read, and start and stop work: runs, once, connection tests, probes, A/B tests, sweeps, Guard's run now,
    /// test webhooks.
    #[default]
    Run,
    /// Run, and change the workspace: connectors, sets, schedules, baselines, alerts, shares, names, deletions.
    Admin,
}

// Narrowest first, as the enum declares them (`covers` compares in that order).
spelled!(TokenScope { Read => "read", Run => "run", Admin => "admin" });

impl TokenScope {
    /// Whether a token of this scope may do what `needed` allows.
    pub fn covers(self, needed: TokenScope) -> bool {
        self >= needed
    }
}

/// What creating a token takes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ApiTokenInput {
    /// What it is for ("CI nightly"), 1–80 characters.
    pub name: String,
    /// Days until it stops working; `None`: until revoked.
    #[serde(default)]
    pub expires_in_days: Option<u32>,
    /// What it may do; `run` when not said.
    #[serde(default)]
    pub scope: TokenScope,
}

impl ApiTokenInput {
    /// The trimmed name and the lifetime in ms, or the field that is wrong.
    pub fn validate(&self) -> Result<(String, Option<i64>), ValidationError> {
        if self.name.trim().is_empty() {
            return Err(ValidationError::new("name", "give the token a name, e.g. what will use it"));
        }
        let name = crate::model::display_name(&self.name, "name", MAX_TOKEN_NAME_CHARS)?;
        let lifetime = match self.expires_in_days {
            None => None,
            Some(days @ 1..=MAX_TOKEN_DAYS) => Some(i64::from(days) * 86_400_000),
            Some(_) => {
                return Err(ValidationError::new(
                    "expiresInDays",
                    format!("between 1 and {MAX_TOKEN_DAYS} days, or none for a token that lasts until revoked"),
                ))
            }
        };
        Ok((name, lifetime))
    }
}

/// A token as listed: never its secret.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ApiTokenView {
    /// Its id (for revoking).
    pub id: ApiTokenId,
    /// Its name.
    pub name: String,
    /// The first characters of the secret (`lgt_AbC1…`), enough to tell tokens apart.
    pub hint: String,
    /// Created, unix ms.
    pub created_at_ms: i64,
    /// When it stops working, unix ms; `None`: until revoked.
    pub expires_at_ms: Option<i64>,
    /// When it was last used, unix ms (to the minute).
    pub last_used_at_ms: Option<i64>,
    /// When it was revoked, unix ms.
    pub revoked_at_ms: Option<i64>,
    /// Whether it is accepted, as of the listing.
    pub state: ApiTokenState,
    /// What it may do.
    pub scope: TokenScope,
}

/// Whether a token is accepted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ApiTokenState {
    /// Accepted.
    Active,
    /// Past its expiry.
    Expired,
    /// Revoked by the workspace.
    Revoked,
}

impl ApiTokenState {
    /// The state at `now_ms` of a token revoked at `revoked_at_ms` and expiring at `expires_at_ms`.
    pub fn at(now_ms: i64, revoked_at_ms: Option<i64>, expires_at_ms: Option<i64>) -> Self {
        match (revoked_at_ms, expires_at_ms) {
            (Some(_), _) => Self::Revoked,
            (None, Some(at)) if at <= now_ms => Self::Expired,
            _ => Self::Active,
        }
    }
}

/// A token just created: its secret, shown this once, and its listing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NewApiToken {
    /// `lgt_…`: send as `Authorization: Bearer <token>`.
    pub token: String,
    /// How it is listed from now on.
    pub view: ApiTokenView,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(name: &str, days: Option<u32>) -> ApiTokenInput {
        ApiTokenInput { name: name.into(), expires_in_days: days, scope: TokenScope::Run }
    }

    #[test]
    fn names_and_lifetimes_are_checked_with_the_field_named() {
        assert_eq!(input("  CI nightly ", Some(30)).validate().unwrap(), ("CI nightly".into(), Some(2_592_000_000)));
        assert_eq!(input("forever", None).validate().unwrap().1, None);
        assert_eq!(input("  ", None).validate().unwrap_err().field, "name");
        assert_eq!(input(&"x".repeat(81), None).validate().unwrap_err().field, "name");
        for days in [0, MAX_TOKEN_DAYS + 1] {
            assert_eq!(input("t", Some(days)).validate().unwrap_err().field, "expiresInDays");
        }
    }

    #[test]
    fn a_token_is_active_until_revoked_or_expired() {
        assert_eq!(ApiTokenState::at(99, None, Some(100)), ApiTokenState::Active);
        assert_eq!(ApiTokenState::at(100, None, Some(100)), ApiTokenState::Expired);
        assert_eq!(ApiTokenState::at(6, Some(5), None), ApiTokenState::Revoked);
        assert_eq!(ApiTokenState::at(i64::MAX, None, None), ApiTokenState::Active);
    }
}
