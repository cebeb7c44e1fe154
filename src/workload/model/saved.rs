//! A workload saved in a workspace, by name: what a run, a sweep or a capacity search names instead of writing the
//! whole workload again, and what the report keeps a copy of (a run's plan holds the workload as it was sent, so
//! editing or deleting the saved one later changes no report).

use serde::{Deserialize, Serialize};

use crate::model::Workload;
use crate::model::{ValidationError, WorkloadId};
use crate::workload::model::WorkloadFields;

/// The longest name of a saved workload.
pub const MAX_WORKLOAD_NAME_CHARS: usize = 100;

/// A workload as a user saves it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct WorkloadInput {
    /// Its name, 1 to 100 characters.
    pub name: String,
    /// The workload, every parameter (its seed included).
    pub spec: Workload,
}

impl WorkloadInput {
    /// The name trimmed and the workload checked as a run checks it; a workload naming a file is refused (a
    /// server reads no path a request names).
    pub fn validate(&self) -> Result<Self, ValidationError> {
        let name = crate::model::display_name(&self.name, "name", MAX_WORKLOAD_NAME_CHARS)?;
        self.spec.validate()?;
        self.spec.refuse_a_file_on_a_server()?;
        Ok(Self { name, spec: self.spec.clone() })
    }
}

/// A saved workload.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SavedWorkload {
    /// Its id.
    pub id: WorkloadId,
    /// Its name.
    pub name: String,
    /// The workload.
    pub spec: Workload,
    /// When it was saved first, unix ms.
    pub created_at_ms: i64,
    /// When it was last changed, unix ms.
    pub updated_at_ms: i64,
}

/// A saved workload as a form offers it: its id, its name and the workload in words (a form never reads the
/// workload itself, so the browser carries no reader of one).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WorkloadChoice {
    /// Its id.
    pub id: WorkloadId,
    /// Its name.
    pub name: String,
    /// Every parameter, in words.
    pub summary: String,
}

impl From<SavedWorkload> for WorkloadChoice {
    fn from(saved: SavedWorkload) -> Self {
        Self { id: saved.id, name: saved.name, summary: saved.spec.describe() }
    }
}

/// A saved workload as the workloads page lists it: in words, and in its form's boxes to edit it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EditableWorkload {
    /// Its id, name and every parameter in words.
    pub choice: WorkloadChoice,
    /// The form's boxes holding it; `None` when the form cannot show it (see [`WorkloadFields::of`]).
    pub fields: Option<WorkloadFields>,
}

impl From<SavedWorkload> for EditableWorkload {
    fn from(saved: SavedWorkload) -> Self {
        let fields = WorkloadFields::of(&saved.name, &saved.spec);
        Self { choice: WorkloadChoice::from(saved), fields }
    }
}

/// What the workloads page shows: the saved workloads and the uploaded datasets, read in one call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WorkloadShelf {
    /// The saved workloads by name.
    pub workloads: Vec<EditableWorkload>,
    /// The uploaded datasets by name.
    pub datasets: Vec<super::DatasetListing>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::LengthDist;

    #[test]
    fn a_saved_workload_is_checked_as_a_run_checks_it() {
        let spec =
            Workload::Synthetic { input: LengthDist::fixed(10), output: LengthDist::fixed(5), requests: 3, seed: 1 };
        let input = WorkloadInput { name: "  chat 1k/200  ".into(), spec: spec.clone() };
        assert_eq!(input.validate().unwrap().name, "chat 1k/200");
        let unnamed = WorkloadInput { name: " ".into(), spec: spec.clone() };
        assert_eq!(unnamed.validate().unwrap_err().field, "name");
        let impossible = WorkloadInput {
            name: "x".into(),
            spec: Workload::Synthetic {
                input: LengthDist::fixed(0),
                output: LengthDist::fixed(5),
                requests: 3,
                seed: 1,
            },
        };
        assert_eq!(impossible.validate().unwrap_err().field, "workload.input.tokens");
    }
}
