//! The report snapshot in a compact, versioned form for the export buttons: the iterations as columns (one array
//! per field, each prompt's text once) instead of one keyed object per iteration. A third of the bytes for the
//! server to write and compress and for the browser to parse; read back it is the very same snapshot, so every
//! export is byte for byte what it would be from the keyed form. It carries the report's sections as the server
//! renders them for a file, which the HTML export shows around its table.

use serde::{Deserialize, Serialize};

use crate::model::{EngineTimings, IterationRecord, TokenSource};
use crate::runs::report::ReportSnapshot;
use crate::wire::ServerHtml;

/// The version this code writes and reads; a reader refuses any other. 2: the sections rendered for a file; 3: each
/// iteration's `serverFirstOutputMs`.
pub const COMPACT_VERSION: u32 = 3;

/// What a report's files are made from: its snapshot, and its sections as the server renders them for a file
/// (`fragments::report_file_sections`), which the HTML export shows above its table.
#[derive(Debug, Clone, PartialEq)]
pub struct ReportFiles {
    /// The report, every iteration included.
    pub snapshot: ReportSnapshot,
    /// Its sections, rendered.
    pub sections: ServerHtml,
}

/// A snapshot whose iterations travel as columns.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CompactSnapshot {
    /// [`COMPACT_VERSION`] when written.
    pub version: u32,
    /// The snapshot with `results` empty.
    pub head: ReportSnapshot,
    /// Its iterations.
    pub results: Columns,
    /// Its sections as the server renders them for a file.
    pub sections: ServerHtml,
}

/// Every field of the iterations, one array each, all of one length (`itlGaps` never travels).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Columns {
    /// Each distinct prompt text once; `prompt` holds indices into it.
    pub prompt_texts: Vec<String>,
    /// Each iteration's prompt, as an index into `promptTexts`.
    pub prompt: Vec<u32>,
    /// Each iteration's `iteration`, in order.
    pub iteration: Vec<u32>,
    /// Each iteration's `ttftMs`, in order.
    pub ttft_ms: Vec<Option<f64>>,
    /// Each iteration's `totalMs`, in order.
    pub total_ms: Vec<f64>,
    /// Each iteration's `tokensIn`, in order.
    pub tokens_in: Vec<Option<u64>>,
    /// Each iteration's `tokensOut`, in order.
    pub tokens_out: Vec<Option<u64>>,
    /// Each iteration's `costUsd`, in order.
    pub cost_usd: Vec<Option<f64>>,
    /// Each iteration's `error`, in order.
    pub error: Vec<Option<String>>,
    /// Each iteration's `seq`, in order.
    pub seq: Vec<u64>,
    /// Each iteration's `promptIndex`, in order.
    pub prompt_index: Vec<u32>,
    /// Each iteration's `warmup`, in order.
    pub warmup: Vec<bool>,
    /// Each iteration's `tokenSource`, in order.
    pub token_source: Vec<TokenSource>,
    /// Each iteration's `scheduleLagMs`, in order.
    pub schedule_lag_ms: Vec<f64>,
    /// Each iteration's `retries`, in order.
    pub retries: Vec<u32>,
    /// Each iteration's `reconnects`, in order.
    pub reconnects: Vec<u32>,
    /// Each iteration's `firstOutputMs`, in order.
    pub first_output_ms: Vec<Option<f64>>,
    /// Each iteration's `tpotMs`, in order.
    pub tpot_ms: Vec<Option<f64>>,
    /// Each iteration's `itlMs`, in order.
    pub itl_ms: Vec<Option<f64>>,
    /// Each iteration's `maxItlMs`, in order.
    pub max_itl_ms: Vec<Option<f64>>,
    /// Each iteration's `sentAtMs`, in order.
    pub sent_at_ms: Vec<Option<f64>>,
    /// Each iteration's `good`, in order.
    pub good: Vec<Option<bool>>,
    /// Each iteration's `engineTimings`, in order.
    pub engine_timings: Vec<Option<EngineTimings>>,
    /// Each iteration's `cachedTokens`, in order.
    pub cached_tokens: Vec<Option<u64>>,
    /// Each iteration's `serverFirstOutputMs`, in order.
    pub server_first_output_ms: Vec<Option<f64>>,
    /// Each iteration's `askedInputTokens`, in order.
    pub asked_input_tokens: Vec<Option<u32>>,
    /// Each iteration's `madeInputTokens`, in order.
    pub made_input_tokens: Vec<Option<u32>>,
    /// Each iteration's `askedOutputTokens`, in order.
    pub asked_output_tokens: Vec<Option<u32>>,
}

/// Why a compact snapshot does not read back.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CompactError {
    /// Another version of the form than this code reads.
    #[error("the report came in version {0} of its compact form; this page reads {COMPACT_VERSION}")]
    Version(u32),
    /// Columns of unequal lengths: a cut or edited file.
    #[error("the report's columns disagree on how many iterations there are ({iterations} vs {lengths:?})")]
    RaggedColumns {
        /// The iterations the first column holds.
        iterations: usize,
        /// Every column's length.
        lengths: Vec<usize>,
    },
    /// An iteration's prompt index beyond the report's prompts.
    #[error("an iteration names prompt {0}, which the report lacks")]
    UnknownPrompt(u32),
    /// Not the form's JSON.
    #[error("the report is not readable JSON: {0}")]
    Json(String),
}

impl CompactSnapshot {
    /// The compact form of `snapshot`, with its `sections` rendered for a file.
    pub fn of(snapshot: &ReportSnapshot, sections: ServerHtml) -> Self {
        Self {
            version: COMPACT_VERSION,
            head: snapshot.clone_without_results(),
            results: Columns::of(&snapshot.results),
            sections,
        }
    }

    /// The snapshot again; an error names what does not fit (another version, columns of unequal lengths).
    pub fn into_snapshot(self) -> Result<ReportSnapshot, CompactError> {
        Ok(self.into_files()?.snapshot)
    }

    /// The snapshot again with its sections.
    pub fn into_files(self) -> Result<ReportFiles, CompactError> {
        if self.version != COMPACT_VERSION {
            return Err(CompactError::Version(self.version));
        }
        let snapshot = ReportSnapshot { results: self.results.into_records()?, ..self.head };
        Ok(ReportFiles { snapshot, sections: self.sections })
    }
}

impl ReportSnapshot {
    /// A copy without the iterations (cloning them only to drop them would double a large report's memory).
    fn clone_without_results(&self) -> Self {
        Self {
            report: self.report.clone(),
            validity: self.validity.clone(),
            agent: self.agent.clone(),
            connector: self.connector.clone(),
            stats: self.stats.clone(),
            results: Vec::new(),
            honesty: self.honesty.clone(),
            server: self.server.clone(),
            workload: self.workload.clone(),
        }
    }
}

impl Columns {
    /// The columns of `records`.
    pub fn of(records: &[IterationRecord]) -> Self {
        let mut c = Self::default();
        let mut texts: std::collections::HashMap<&str, u32> = std::collections::HashMap::new();
        for r in records {
            let next = c.prompt_texts.len() as u32;
            let index = *texts.entry(r.prompt.as_str()).or_insert_with(|| {
                c.prompt_texts.push(r.prompt.clone());
                next
            });
            c.prompt.push(index);
            c.iteration.push(r.iteration);
            c.ttft_ms.push(r.ttft_ms);
            c.total_ms.push(r.total_ms);
            c.tokens_in.push(r.tokens_in);
            c.tokens_out.push(r.tokens_out);
            c.cost_usd.push(r.cost_usd);
            c.error.push(r.error.clone());
            c.seq.push(r.seq);
            c.prompt_index.push(r.prompt_index);
            c.warmup.push(r.warmup);
            c.token_source.push(r.token_source);
            c.schedule_lag_ms.push(r.schedule_lag_ms);
            c.retries.push(r.retries);
            c.reconnects.push(r.reconnects);
            c.first_output_ms.push(r.first_output_ms);
            c.tpot_ms.push(r.tpot_ms);
            c.itl_ms.push(r.itl_ms);
            c.max_itl_ms.push(r.max_itl_ms);
            c.sent_at_ms.push(r.sent_at_ms);
            c.good.push(r.good);
            c.engine_timings.push(r.engine_timings);
            c.cached_tokens.push(r.cached_tokens);
            c.server_first_output_ms.push(r.server_first_output_ms);
            c.asked_input_tokens.push(r.asked_input_tokens);
            c.made_input_tokens.push(r.made_input_tokens);
            c.asked_output_tokens.push(r.asked_output_tokens);
        }
        c
    }

    /// The iterations again, in order.
    pub fn into_records(self) -> Result<Vec<IterationRecord>, CompactError> {
        let n = self.seq.len();
        let lengths = [
            self.prompt.len(),
            self.iteration.len(),
            self.ttft_ms.len(),
            self.total_ms.len(),
            self.tokens_in.len(),
            self.tokens_out.len(),
            self.cost_usd.len(),
            self.error.len(),
            self.prompt_index.len(),
            self.warmup.len(),
            self.token_source.len(),
            self.schedule_lag_ms.len(),
            self.retries.len(),
            self.reconnects.len(),
            self.first_output_ms.len(),
            self.tpot_ms.len(),
            self.itl_ms.len(),
            self.max_itl_ms.len(),
            self.sent_at_ms.len(),
            self.good.len(),
            self.engine_timings.len(),
            self.cached_tokens.len(),
            self.server_first_output_ms.len(),
            self.asked_input_tokens.len(),
            self.made_input_tokens.len(),
            self.asked_output_tokens.len(),
        ];
        if lengths.iter().any(|l| *l != n) {
            return Err(CompactError::RaggedColumns { iterations: n, lengths: lengths.to_vec() });
        }
        let texts = self.prompt_texts;
        let mut errors = self.error.into_iter();
        (0..n)
            .map(|i| {
                let prompt = texts.get(self.prompt[i] as usize).ok_or(CompactError::UnknownPrompt(self.prompt[i]))?;
                Ok(IterationRecord {
                    prompt: prompt.clone(),
                    iteration: self.iteration[i],
                    ttft_ms: self.ttft_ms[i],
                    total_ms: self.total_ms[i],
                    tokens_in: self.tokens_in[i],
                    tokens_out: self.tokens_out[i],
                    cost_usd: self.cost_usd[i],
                    error: errors.next().flatten(),
                    seq: self.seq[i],
                    prompt_index: self.prompt_index[i],
                    warmup: self.warmup[i],
                    token_source: self.token_source[i],
                    schedule_lag_ms: self.schedule_lag_ms[i],
                    retries: self.retries[i],
                    reconnects: self.reconnects[i],
                    first_output_ms: self.first_output_ms[i],
                    tpot_ms: self.tpot_ms[i],
                    itl_ms: self.itl_ms[i],
                    max_itl_ms: self.max_itl_ms[i],
                    sent_at_ms: self.sent_at_ms[i],
                    good: self.good[i],
                    itl_gaps: None,
                    engine_timings: self.engine_timings[i],
                    cached_tokens: self.cached_tokens[i],
                    server_first_output_ms: self.server_first_output_ms[i],
                    asked_input_tokens: self.asked_input_tokens[i],
                    made_input_tokens: self.made_input_tokens[i],
                    asked_output_tokens: self.asked_output_tokens[i],
                })
            })
            .collect()
    }
}

/// A [`CompactSnapshot`] as it travels. The server may send one it encoded earlier (a finished run's, kept by
/// `runs::ExportSnapshots`) without encoding it again; whoever reads it gets the snapshot itself.
#[derive(Debug)]
pub struct CompactExport(ExportForm);

#[derive(Debug)]
enum ExportForm {
    Decoded(Box<CompactSnapshot>),
    #[cfg(feature = "ssr")]
    Encoded(std::sync::Arc<serde_json::value::RawValue>),
}

impl CompactExport {
    /// A snapshot already encoded as JSON (`CompactSnapshot`'s encoding): sent as it is.
    #[cfg(feature = "ssr")]
    pub fn encoded(json: std::sync::Arc<serde_json::value::RawValue>) -> Self {
        Self(ExportForm::Encoded(json))
    }

    /// The snapshot again (see [`CompactSnapshot::into_snapshot`]).
    pub fn into_snapshot(self) -> Result<ReportSnapshot, CompactError> {
        Ok(self.into_files()?.snapshot)
    }

    /// The snapshot again with its sections (see [`CompactSnapshot::into_files`]).
    pub fn into_files(self) -> Result<ReportFiles, CompactError> {
        match self.0 {
            ExportForm::Decoded(compact) => compact.into_files(),
            #[cfg(feature = "ssr")]
            ExportForm::Encoded(json) => serde_json::from_str::<CompactSnapshot>(json.get())
                .map_err(|e| CompactError::Json(e.to_string()))?
                .into_files(),
        }
    }
}

impl From<CompactSnapshot> for CompactExport {
    fn from(compact: CompactSnapshot) -> Self {
        Self(ExportForm::Decoded(Box::new(compact)))
    }
}

impl Serialize for CompactExport {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match &self.0 {
            ExportForm::Decoded(compact) => compact.serialize(serializer),
            #[cfg(feature = "ssr")]
            ExportForm::Encoded(json) => json.serialize(serializer),
        }
    }
}

impl<'de> Deserialize<'de> for CompactExport {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        CompactSnapshot::deserialize(deserializer).map(Self::from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::fixtures::{completed_run, iteration_record, plan_input};
    use crate::runs::report::{export, ExportFormat};

    /// A report with every kind of iteration: two prompts, a warm-up, a failure, reported tokens, server
    /// timings, and objectives (so `good` is set).
    fn snapshot() -> ReportSnapshot {
        let mut input = plan_input(&["first prompt", "second\tprompt, with \"quotes\""], 64, 2);
        input.slos = vec!["total_ms<=500".into()];
        let run = completed_run(input, "m");
        let mut records: Vec<IterationRecord> = (0..12)
            .map(|seq| {
                let mut r = iteration_record(seq, Some(10.0 + seq as f64), 100.0 * seq as f64, seq == 5);
                r.prompt_index = (seq % 2) as u32;
                r.prompt = run.plan.prompts[r.prompt_index as usize].clone();
                r
            })
            .collect();
        records[0].warmup = true;
        records[3].token_source = TokenSource::Reported;
        records[4].engine_timings = Some(EngineTimings {
            prompt_tokens: Some(12),
            prompt_ms: Some(1.5),
            cached_tokens: None,
            predicted_tokens: Some(40),
            predicted_ms: Some(80.0),
            draft_tokens: 30,
            draft_accepted: 21,
        });
        records[6].retries = 2;
        records[7].sent_at_ms = None;
        records[8].server_first_output_ms = Some(12.5);
        crate::runs::report::snapshot(&run, records).0
    }

    #[test]
    fn the_compact_form_reads_back_as_the_same_snapshot_and_the_same_exports() {
        let original = snapshot();
        assert!(
            original.results.iter().any(|r| r.good == Some(false))
                && original.results.iter().any(|r| r.good == Some(true))
        );
        let sections = ServerHtml::trusted("<section id=\"stats\">rendered</section>".into());
        let compact = CompactSnapshot::of(&original, sections.clone());
        assert_eq!(compact.results.prompt_texts.len(), 2, "each prompt's text once");
        let json = serde_json::to_string(&compact).unwrap();
        let (columns, rows) =
            (serde_json::to_string(&compact.results).unwrap(), serde_json::to_string(&original.results).unwrap());
        assert!(
            columns.len() * 2 < rows.len(),
            "iterations: {} bytes as columns, {} as rows",
            columns.len(),
            rows.len()
        );
        let back = serde_json::from_str::<CompactSnapshot>(&json).unwrap().into_files().unwrap();
        assert_eq!(back.snapshot, original);
        assert_eq!(back.sections, sections);
        let original = ReportFiles { snapshot: original, sections };
        for &format in ExportFormat::ALL {
            assert_eq!(export(&back, format), export(&original, format), "{format:?}");
        }
    }

    #[test]
    fn another_version_or_ragged_columns_are_refused_in_words() {
        let mut compact = CompactSnapshot::of(&snapshot(), ServerHtml::default());
        compact.version = 1;
        let error = compact.clone().into_snapshot().unwrap_err();
        assert_eq!(error, CompactError::Version(1));
        assert!(error.to_string().contains("version 1 of its compact form; this page reads 3"), "{error}");
        compact.version = COMPACT_VERSION;
        compact.results.total_ms.pop();
        let error = compact.clone().into_snapshot().unwrap_err();
        assert!(matches!(error, CompactError::RaggedColumns { .. }), "{error:?}");
        assert!(error.to_string().contains("columns disagree"), "{error}");
        compact.results = Columns::of(&snapshot().results);
        compact.results.prompt[1] = 9;
        assert_eq!(compact.into_snapshot().unwrap_err(), CompactError::UnknownPrompt(9));
    }

    #[cfg(feature = "ssr")]
    #[test]
    fn a_snapshot_sent_as_encoded_earlier_is_the_same_bytes_and_reads_back_the_same() {
        let original = snapshot();
        let compact = CompactSnapshot::of(&original, ServerHtml::trusted("<p>sections</p>".into()));
        let fresh = serde_json::to_string(&CompactExport::from(compact.clone())).unwrap();
        let raw = serde_json::value::to_raw_value(&compact).unwrap();
        let kept = CompactExport::encoded(std::sync::Arc::from(raw));
        assert_eq!(serde_json::to_string(&kept).unwrap(), fresh);
        let read: CompactExport = serde_json::from_str(&fresh).unwrap();
        assert_eq!(read.into_snapshot().unwrap(), original);
        assert_eq!(kept.into_snapshot().unwrap(), original);
    }
}
