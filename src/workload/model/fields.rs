//! A workload as its form's boxes hold it — the text of every box, whichever kind is chosen — and back again: the
//! workloads page fills the form from a saved workload to edit it, and reads the form into a workload to save it.
//! Pure, so that the round trip is tested here, kind by kind; the server checks what is read as a run would.

use serde::{Deserialize, Serialize};

use crate::model::{typed_number, LengthDist, ThinkTime, ValidationError, Workload, WorkloadFile};
use crate::workload::model::{DatasetChoice, WorkloadInput};

/// One length's boxes: how it is drawn (`fixed`, `uniform`, `normal`, `logNormal`) and every parameter's text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LengthText {
    /// The shape chosen.
    pub kind: String,
    /// A fixed length.
    pub tokens: String,
    /// The shortest a ranged shape draws.
    pub min: String,
    /// The longest a ranged shape draws.
    pub max: String,
    /// A normal's mean or a log-normal's median.
    pub center: String,
    /// A normal's standard deviation or a log-normal's σ.
    pub spread: String,
}

impl LengthText {
    /// A fixed length of `tokens`, with a range around it ready for the other shapes.
    pub fn fixed(tokens: u32) -> Self {
        Self {
            kind: "fixed".into(),
            tokens: tokens.to_string(),
            min: (tokens / 2).max(1).to_string(),
            max: (tokens * 2).to_string(),
            center: tokens.to_string(),
            spread: (tokens / 4).max(1).to_string(),
        }
    }

    /// The boxes of `dist`, the shapes it does not use keeping the defaults around it; `None` for an empirical
    /// histogram, which the form has no boxes for.
    pub fn of(dist: &LengthDist) -> Option<Self> {
        let ranged = |kind: &str, min: u32, max: u32| Self {
            kind: kind.into(),
            min: min.to_string(),
            max: max.to_string(),
            ..Self::fixed(min.midpoint(max))
        };
        Some(match dist {
            LengthDist::Fixed { tokens } => Self::fixed(*tokens),
            LengthDist::Uniform { min, max } => ranged("uniform", *min, *max),
            LengthDist::Normal { mean, sd, min, max } => {
                Self { center: mean.to_string(), spread: sd.to_string(), ..ranged("normal", *min, *max) }
            }
            LengthDist::LogNormal { median, sigma, min, max } => {
                Self { center: median.to_string(), spread: sigma.to_string(), ..ranged("logNormal", *min, *max) }
            }
            LengthDist::Histogram { .. } => return None,
        })
    }

    /// The distribution typed; `field` names it in a refusal (`workload.input`).
    pub fn read(&self, field: &str) -> Result<LengthDist, ValidationError> {
        let at = |name: &str| format!("{field}.{name}");
        let min = || typed_number(&self.min, &at("min"));
        let max = || typed_number(&self.max, &at("max"));
        Ok(match self.kind.as_str() {
            "uniform" => LengthDist::Uniform { min: min()?, max: max()? },
            "normal" => LengthDist::Normal {
                mean: typed_number(&self.center, &at("mean"))?,
                sd: typed_number(&self.spread, &at("sd"))?,
                min: min()?,
                max: max()?,
            },
            "logNormal" => LengthDist::LogNormal {
                median: typed_number(&self.center, &at("median"))?,
                sigma: typed_number(&self.spread, &at("sigma"))?,
                min: min()?,
                max: max()?,
            },
            _ => LengthDist::Fixed { tokens: typed_number(&self.tokens, &at("tokens"))? },
        })
    }
}

/// A multi-turn user's think time as typed: its shape (`fixed`, `uniform`, `exponential`), the milliseconds (a
/// uniform's least, an exponential's mean) and a uniform's most.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ThinkText {
    /// The shape chosen.
    pub kind: String,
    /// Milliseconds: a fixed time, a uniform's least or an exponential's mean.
    pub ms: String,
    /// A uniform's most.
    pub max_ms: String,
}

impl ThinkText {
    fn of(think: ThinkTime) -> Self {
        let text = |kind: &str, ms: u64, max_ms: u64| Self {
            kind: kind.into(),
            ms: ms.to_string(),
            max_ms: max_ms.to_string(),
        };
        match think {
            ThinkTime::Fixed { ms } => text("fixed", ms, 1_000),
            ThinkTime::Uniform { min_ms, max_ms } => text("uniform", min_ms, max_ms),
            ThinkTime::Exponential { mean_ms } => text("exponential", mean_ms, 1_000),
        }
    }

    fn read(&self) -> Result<ThinkTime, ValidationError> {
        Ok(match self.kind.as_str() {
            "uniform" => ThinkTime::Uniform {
                min_ms: typed_number(&self.ms, "workload.think.minMs")?,
                max_ms: typed_number(&self.max_ms, "workload.think.maxMs")?,
            },
            "exponential" => ThinkTime::Exponential { mean_ms: typed_number(&self.ms, "workload.think.meanMs")? },
            _ => ThinkTime::Fixed { ms: typed_number(&self.ms, "workload.think.ms")? },
        })
    }
}

/// Every box of the workload form. The first message of a conversation and a shared prefix's suffix are `input`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WorkloadFields {
    /// The workload's name.
    pub name: String,
    /// Its kind: `synthetic`, `sharedPrefix`, `multiTurn` or `dataset`.
    pub kind: String,
    /// Requests sent (every kind but multi-turn).
    pub requests: String,
    /// The seed.
    pub seed: String,
    /// Each prompt's length: a synthetic prompt, a shared prefix's suffix, a conversation's first message.
    pub input: LengthText,
    /// Each answer's length (a dataset row's that gives none).
    pub output: LengthText,
    /// A shared prefix's groups.
    pub groups: String,
    /// A shared prefix's tokens.
    pub prefix_tokens: String,
    /// Conversations.
    pub users: String,
    /// Turns of each conversation.
    pub turns: String,
    /// Each later message of a conversation.
    pub follow_up: LengthText,
    /// A conversation's think time.
    pub think: ThinkText,
    /// The uploaded dataset a dataset workload sends.
    pub dataset: Option<DatasetChoice>,
    /// A dataset's ShareGPT rows ask their recorded answers' lengths.
    pub recorded_outputs: bool,
}

impl Default for WorkloadFields {
    /// A new workload: 20 synthetic requests of 256 tokens asking 64.
    fn default() -> Self {
        let text = |v: &str| v.to_string();
        Self {
            name: String::new(),
            kind: text("synthetic"),
            requests: text("20"),
            seed: text("1"),
            input: LengthText::fixed(256),
            output: LengthText::fixed(64),
            groups: text("2"),
            prefix_tokens: text("512"),
            users: text("4"),
            turns: text("3"),
            follow_up: LengthText::fixed(64),
            think: ThinkText::of(ThinkTime::default()),
            dataset: None,
            recorded_outputs: false,
        }
    }
}

impl WorkloadFields {
    /// The boxes of the workload `spec` saved as `name`, the ones its kind does not use left as a new workload's;
    /// `None` for what the form cannot show (a trace, an empirical length, a dataset that asks no answer length,
    /// a file on a `bench` machine), which is changed through the API.
    pub fn of(name: &str, spec: &Workload) -> Option<Self> {
        let blank = Self { name: name.to_string(), ..Self::default() };
        Some(match spec {
            Workload::Synthetic { input, output, requests, seed } => Self {
                requests: requests.to_string(),
                seed: seed.to_string(),
                input: LengthText::of(input)?,
                output: LengthText::of(output)?,
                ..blank
            },
            Workload::SharedPrefix { groups, prefix_tokens, suffix, output, requests, seed } => Self {
                kind: "sharedPrefix".into(),
                requests: requests.to_string(),
                seed: seed.to_string(),
                groups: groups.to_string(),
                prefix_tokens: prefix_tokens.to_string(),
                input: LengthText::of(suffix)?,
                output: LengthText::of(output)?,
                ..blank
            },
            Workload::MultiTurn { users, turns, first, follow_up, output, think, seed } => Self {
                kind: "multiTurn".into(),
                seed: seed.to_string(),
                users: users.to_string(),
                turns: turns.to_string(),
                input: LengthText::of(first)?,
                follow_up: LengthText::of(follow_up)?,
                output: LengthText::of(output)?,
                think: ThinkText::of(*think),
                ..blank
            },
            Workload::Dataset { file, requests, output: Some(output), seed, recorded_outputs } => Self {
                kind: "dataset".into(),
                requests: requests.to_string(),
                seed: seed.to_string(),
                output: LengthText::of(output)?,
                dataset: Some(DatasetChoice {
                    id: file.uploaded?,
                    name: file.path.clone(),
                    format: file.format,
                    rows: file.rows,
                }),
                recorded_outputs: *recorded_outputs,
                ..blank
            },
            Workload::Dataset { output: None, .. } | Workload::Trace { .. } => return None,
        })
    }

    /// The workload typed, named; a refusal names the box (`workload.input.min`).
    pub fn read(&self) -> Result<WorkloadInput, ValidationError> {
        let requests = || typed_number(&self.requests, "workload.requests");
        let seed = typed_number(&self.seed, "workload.seed")?;
        let spec = match self.kind.as_str() {
            "sharedPrefix" => Workload::SharedPrefix {
                groups: typed_number(&self.groups, "workload.groups")?,
                prefix_tokens: typed_number(&self.prefix_tokens, "workload.prefixTokens")?,
                suffix: self.input.read("workload.suffix")?,
                output: self.output.read("workload.output")?,
                requests: requests()?,
                seed,
            },
            "dataset" => {
                let Some(dataset) = self.dataset.clone() else {
                    return Err(ValidationError::new("workload.file", "choose an uploaded dataset"));
                };
                // The server puts its own record of the dataset here (its name, format and rows).
                let file = WorkloadFile {
                    path: dataset.name,
                    format: dataset.format,
                    rows: dataset.rows,
                    skipped: 0,
                    uploaded: Some(dataset.id),
                };
                Workload::Dataset {
                    file,
                    requests: requests()?,
                    output: Some(self.output.read("workload.output")?),
                    seed,
                    recorded_outputs: self.recorded_outputs,
                }
            }
            "multiTurn" => Workload::MultiTurn {
                users: typed_number(&self.users, "workload.users")?,
                turns: typed_number(&self.turns, "workload.turns")?,
                first: self.input.read("workload.first")?,
                follow_up: self.follow_up.read("workload.followUp")?,
                output: self.output.read("workload.output")?,
                think: self.think.read()?,
                seed,
            },
            _ => Workload::Synthetic {
                input: self.input.read("workload.input")?,
                output: self.output.read("workload.output")?,
                requests: requests()?,
                seed,
            },
        };
        Ok(WorkloadInput { name: self.name.clone(), spec })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{DatasetFormat, DatasetId, TraceFormat};

    fn normal() -> LengthDist {
        LengthDist::Normal { mean: 300.5, sd: 42.25, min: 10, max: 900 }
    }

    fn log_normal() -> LengthDist {
        LengthDist::LogNormal { median: 180.0, sigma: 0.7, min: 4, max: 2048 }
    }

    fn uploaded(recorded_outputs: bool) -> Workload {
        let file = WorkloadFile {
            path: "chats.jsonl".into(),
            format: DatasetFormat::Jsonl,
            rows: 1200,
            skipped: 0,
            uploaded: Some(DatasetId::new_random()),
        };
        Workload::Dataset {
            file,
            requests: 300,
            output: Some(LengthDist::Uniform { min: 8, max: 96 }),
            seed: 3,
            recorded_outputs,
        }
    }

    #[test]
    fn every_workload_the_form_can_show_reads_back_as_it_was_saved() {
        let cases = [
            Workload::Synthetic {
                input: LengthDist::fixed(1000),
                output: LengthDist::fixed(200),
                requests: 50,
                seed: 9,
            },
            Workload::Synthetic { input: normal(), output: log_normal(), requests: 1, seed: u64::MAX },
            Workload::SharedPrefix {
                groups: 4,
                prefix_tokens: 2048,
                suffix: LengthDist::Uniform { min: 16, max: 64 },
                output: LengthDist::fixed(32),
                requests: 80,
                seed: 0,
            },
            Workload::MultiTurn {
                users: 8,
                turns: 5,
                first: log_normal(),
                follow_up: LengthDist::fixed(40),
                output: normal(),
                think: ThinkTime::Uniform { min_ms: 500, max_ms: 2500 },
                seed: 7,
            },
            Workload::MultiTurn {
                users: 1,
                turns: 2,
                first: LengthDist::fixed(10),
                follow_up: LengthDist::fixed(10),
                output: LengthDist::fixed(10),
                think: ThinkTime::Exponential { mean_ms: 1200 },
                seed: 1,
            },
            uploaded(true),
            uploaded(false),
        ];
        for spec in cases {
            let fields = WorkloadFields::of("saved", &spec).expect("the form shows it");
            let read = fields.read().unwrap();
            assert_eq!((read.name.as_str(), &read.spec), ("saved", &spec), "{fields:?}");
        }
    }

    #[test]
    fn what_the_form_has_no_boxes_for_is_not_offered_to_it() {
        let histogram = LengthDist::Histogram { bins: vec![(10, 1.0), (20, 3.0)] };
        let synthetic = Workload::Synthetic { input: histogram, output: LengthDist::fixed(8), requests: 5, seed: 1 };
        assert_eq!(WorkloadFields::of("h", &synthetic), None, "an empirical length");
        let Workload::Dataset { file, .. } = uploaded(false) else { unreachable!() };
        let unasked =
            Workload::Dataset { file: file.clone(), requests: 3, output: None, seed: 1, recorded_outputs: false };
        assert_eq!(WorkloadFields::of("d", &unasked), None, "a dataset that asks no answer length");
        let on_disk = Workload::Dataset {
            file: WorkloadFile { uploaded: None, ..file },
            requests: 3,
            output: Some(LengthDist::fixed(4)),
            seed: 1,
            recorded_outputs: false,
        };
        assert_eq!(WorkloadFields::of("f", &on_disk), None, "a file on a bench machine");
        let trace = Workload::Trace {
            file: WorkloadFile {
                path: "t.jsonl".into(),
                format: TraceFormat::Mooncake,
                rows: 9,
                skipped: 0,
                uploaded: None,
            },
            requests: 9,
            speedup: 1.0,
            block_tokens: 512,
            seed: 1,
        };
        assert_eq!(WorkloadFields::of("t", &trace), None);
    }

    #[test]
    fn a_new_workload_starts_from_the_forms_defaults_and_a_bad_box_is_named() {
        let read = WorkloadFields::default().read().unwrap();
        assert_eq!(
            read.spec,
            Workload::Synthetic { input: LengthDist::fixed(256), output: LengthDist::fixed(64), requests: 20, seed: 1 }
        );
        let typo = WorkloadFields {
            kind: "sharedPrefix".into(),
            input: LengthText { kind: "uniform".into(), min: "twelve".into(), ..LengthText::fixed(20) },
            ..WorkloadFields::default()
        };
        assert_eq!(
            typo.read().unwrap_err(),
            ValidationError::new("workload.suffix.min", "\"twelve\" is not a valid number")
        );
        let unchosen = WorkloadFields { kind: "dataset".into(), ..WorkloadFields::default() };
        assert_eq!(unchosen.read().unwrap_err().field, "workload.file");
    }
}
