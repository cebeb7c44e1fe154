//! Shared, pure domain types, one folder a feature: `common` (typed ids, checked input, names, times), `connector`,
//! `run`, `lab` (Spec Lab), `account`, `workload`. Every type is re-exported here, so code
//! outside says `model::RunPlan` and never needs to know the folder. No I/O and no clock here; the browser build
//! compiles this module too.

/// Generates `as_str` (the stored and sent spelling), `parse` and `ALL` for a fieldless enum. Defined before the
/// submodules so each of them can use it.
macro_rules! spelled {
    ($name:ident { $($variant:ident => $text:literal),* $(,)? }) => {
        impl $name {
            /// Every value.
            pub const ALL: &'static [$name] = &[$($name::$variant),*];

            /// The spelling stored and sent.
            pub fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $text),*
                }
            }

            /// The value spelled `text`.
            pub fn parse(text: &str) -> Option<Self> {
                Self::ALL.iter().copied().find(|v| v.as_str() == text)
            }
        }
    };
}
pub(crate) use spelled;
pub(crate) use workload::asks_for_workload;

mod account;
mod common;
mod connector;
mod probe;
mod run;
mod workload;

pub use account::*;
pub use common::*;
pub use connector::*;
pub use probe::*;
pub use run::*;
pub use workload::*;

#[cfg(test)]
pub(crate) use account::siwe_message::example_grant;
#[cfg(test)]
pub(crate) use run::fixtures;

/// A field-level validation failure: which input field, and why, in words a user can act on.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, serde::Serialize, serde::Deserialize)]
#[error("{field}: {reason}")]
pub struct ValidationError {
    /// The input field's name as the API spells it (`baseUrl`, `headers.x-foo`, ...).
    pub field: String,
    /// What is wrong with it.
    pub reason: String,
}

impl ValidationError {
    /// A failure of `field` for `reason`.
    pub fn new(field: impl Into<String>, reason: impl Into<String>) -> Self {
        Self { field: field.into(), reason: reason.into() }
    }
}

/// The header a share page presents its token in (`GET /api/public/reports/{id}`).
pub const SHARE_TOKEN_HEADER: &str = "x-share-token";
