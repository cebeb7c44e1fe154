//! What the measuring commands (`bench`, `capacity`) share on their command line: the endpoint — a stored
//! connector, or a base URL, model, key variable and headers — the prompts, and a plan's execution against it.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

use super::{usage, CliError};
use crate::engine::{HttpClient, RequestTarget};
use crate::model::{ConnectorId, RunId, RunPlan};
use crate::runs::service::{seed_from, Execution};

/// Which endpoint to measure.
#[derive(Debug, Clone, clap::Args)]
pub struct EndpointArgs {
    /// A stored connector (its URL, key, model, headers and prices, read from the app's database and secret, or
    /// from the workspace of `--token` on `--server`).
    #[arg(long, conflicts_with_all = ["base_url", "model", "api_key_env", "headers"])]
    pub connector: Option<ConnectorId>,
    /// API base URL, e.g. https://api.openai.com/v1.
    #[arg(long, required_unless_present = "connector")]
    pub base_url: Option<String>,
    /// Model id.
    #[arg(long, required_unless_present = "connector")]
    pub model: Option<String>,
    /// Name of the environment variable holding the API key (the key itself never goes on the command line).
    #[arg(long)]
    pub api_key_env: Option<String>,
    /// Extra header `Name: value`; repeatable.
    #[arg(long = "header", value_name = "NAME:VALUE")]
    pub headers: Vec<String>,
}

/// What to send.
#[derive(Debug, Clone, clap::Args)]
pub struct PromptArgs {
    /// System prompt.
    #[arg(long)]
    pub system: Option<String>,
    /// A prompt; repeatable (this, --prompts-file, or a workload).
    #[arg(long = "prompt")]
    pub prompts: Vec<String>,
    /// A file with one prompt per line.
    #[arg(long, conflicts_with = "prompts")]
    pub prompts_file: Option<PathBuf>,
}

impl PromptArgs {
    /// The prompts given: one per non-blank line of `--prompts-file`, else the `--prompt` values; at least one.
    pub fn read(&self) -> Result<Vec<String>, CliError> {
        if self.prompts.is_empty() && self.prompts_file.is_none() {
            return Err(usage("give the prompts: --prompt TEXT (repeatable) or --prompts-file FILE"));
        }
        prompts(self.prompts_file.as_deref(), &self.prompts)
    }

    /// Whether any prompt was given.
    pub fn given(&self) -> bool {
        !self.prompts.is_empty() || self.prompts_file.is_some()
    }
}

pub use super::workload_file::GivenWorkload;

/// A workload instead of prompts.
#[derive(Debug, Clone, clap::Args)]
pub struct WorkloadArgs {
    /// A workload file (TOML): `kind = "synthetic"`, `requests`, `seed`, and `[input]` and `[output]` lengths
    /// (`kind = "fixed"`, `tokens = 1000`; uniform, normal, logNormal, histogram), or sharedPrefix, multiTurn,
    /// dataset, trace (docs/WORKLOADS.md).
    #[arg(long, value_name = "FILE.toml", conflicts_with_all = ["input_tokens", "dataset", "trace"])]
    pub workload: Option<PathBuf>,
    /// Prompts from a dataset, a row each, in the file's order: JSONL or a JSON array of {"prompt": …},
    /// {"messages": […]} or ShareGPT's {"conversations": […]} rows, or a CSV with a prompt column; an optional
    /// output_tokens per row. -n sends that many rows (default: every row after the warm-ups').
    #[arg(long, value_name = "FILE", conflicts_with_all = ["input_tokens", "trace"])]
    pub dataset: Option<PathBuf>,
    /// With --dataset: a ShareGPT row that gives no output_tokens asks for its recorded answer's length (the model's
    /// turn after the human turn sent, counted with the server's tokenizer), as `vllm bench` and AIPerf do.
    #[arg(long, requires = "dataset")]
    pub recorded_outputs: bool,
    /// Replays a trace at its recorded instants: Mooncake's JSONL (timestamp, input_length, output_length,
    /// hash_ids) or BurstGPT's CSV. -n replays its first rows (default: all); --max-concurrency caps requests in
    /// flight.
    #[arg(long, value_name = "FILE", conflicts_with = "input_tokens")]
    pub trace: Option<PathBuf>,
    /// With --trace: replays this many times faster than recorded (2: twice the rate).
    #[arg(long, default_value_t = 1.0, requires = "trace")]
    pub speedup: f64,
    /// Prompts of exactly N tokens, made from the built-in corpus with the server's own tokenizer (its
    /// /tokenize); -n is then the number of requests.
    #[arg(long, value_name = "N", requires = "output_tokens")]
    pub input_tokens: Option<u32>,
    /// With --input-tokens: answers of N tokens (max_tokens, and ignore_eos so that they are not shorter); with
    /// --dataset, of rows that give no output_tokens.
    #[arg(long, value_name = "N")]
    pub output_tokens: Option<u32>,
    /// With --input-tokens or --trace: seeds the prompts' text (the same seed sends the same prompts).
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// The model's tokenizer.json, to cut a workload's prompts with when the server has no /tokenize (without
    /// either, an estimate with OpenAI's o200k_base BPE, flagged in the report).
    #[arg(long, value_name = "tokenizer.json")]
    pub tokenizer: Option<PathBuf>,
}

impl WorkloadArgs {
    /// The workload the options name, if any: `requests` is -n (`None` when not given), after `warmup` warm-ups.
    pub fn read(&self, requests: Option<u32>, warmup: u32) -> Result<Option<GivenWorkload>, CliError> {
        use crate::model::{LengthDist, Workload};
        if let Some(path) = &self.tokenizer {
            // Read now, so that a file that does not parse is refused before anything is sent.
            crate::workload::service::FileTokenizer::open(path).map_err(|e| usage(format!("--tokenizer: {e}")))?;
        }
        let given = |workload| Some(GivenWorkload { workload, trace_span_us: None });
        if let Some(path) = &self.workload {
            return super::workload_file::read_workload(path, warmup)
                .map(Some)
                .map_err(|e| usage(format!("--workload {e}")));
        }
        if let Some(path) = &self.dataset {
            let file = super::data_files::dataset_file(path).map_err(|e| usage(format!("--dataset {e}")))?;
            let requests = requests.unwrap_or(file.rows.saturating_sub(warmup));
            let output = self.output_tokens.map(LengthDist::fixed);
            let recorded_outputs = self.recorded_outputs;
            return Ok(given(Workload::Dataset { file, requests, output, seed: self.seed, recorded_outputs }));
        }
        if let Some(path) = &self.trace {
            let found = super::data_files::trace_file(path, requests).map_err(|e| usage(format!("--trace {e}")))?;
            let requests = requests.unwrap_or(found.file.rows);
            let workload = Workload::Trace {
                file: found.file,
                requests,
                speedup: self.speedup,
                block_tokens: 512,
                seed: self.seed,
            };
            return Ok(Some(GivenWorkload { workload, trace_span_us: Some(found.span_us) }));
        }
        match (self.input_tokens, self.output_tokens) {
            (Some(input), Some(output)) => Ok(given(Workload::Synthetic {
                input: LengthDist::fixed(input),
                output: LengthDist::fixed(output),
                requests: requests.unwrap_or(10),
                seed: self.seed,
            })),
            (None, Some(_)) => Err(usage("--output-tokens goes with --input-tokens or --dataset")),
            _ => Ok(None),
        }
    }

    /// Whether a workload was asked for.
    pub fn given(&self) -> bool {
        self.workload.is_some() || self.input_tokens.is_some() || self.dataset.is_some() || self.trace.is_some()
    }
}

/// What a command calls: where, as whom, which model, at which prices.
pub struct Endpoint {
    /// URL, key and headers.
    pub target: RequestTarget,
    /// The model sent in each body.
    pub model: String,
    /// USD per 1M input and output tokens, from a stored connector.
    pub prices: (Option<f64>, Option<f64>),
}

impl Endpoint {
    /// The execution of `plan` against this endpoint as a run with a new id (which seeds its Poisson schedule).
    pub fn execution(&self, plan: RunPlan, client: HttpClient, cancel: CancellationToken) -> (RunId, Execution) {
        let id = RunId(uuid::Uuid::new_v4());
        let execution = Execution {
            plan: Arc::new(plan),
            target: self.target.clone(),
            model: self.model.clone(),
            client,
            seed: seed_from(&id.0),
            cancel,
            prices: self.prices,
            tokenizer_file: None,
            uploaded: None,
        };
        (id, execution)
    }
}

impl EndpointArgs {
    /// The endpoint these options name (a stored connector is read with the settings of `config`).
    pub async fn resolve(&self, config: Option<&Path>) -> Result<Endpoint, CliError> {
        let Some(id) = self.connector else {
            let model = self.model.clone().ok_or_else(|| usage("--model is required without --connector"))?;
            let raw = self.base_url.as_deref().ok_or_else(|| usage("--base-url is required without --connector"))?;
            let target =
                crate::targets::command_line_target(raw, self.api_key_env.as_deref(), &self.headers).map_err(usage)?;
            return Ok(Endpoint { target, model, prices: (None, None) });
        };
        let (connector, target) = open_connector(config, id, "--connector").await?;
        Ok(Endpoint {
            target,
            prices: (connector.input_price_per_mtok, connector.output_price_per_mtok),
            model: connector.model,
        })
    }
}

/// A stored connector and the target to call it with, read from the app's database and secret (the settings of
/// `config`); the error names `option`.
pub async fn open_connector(
    config: Option<&Path>,
    id: ConnectorId,
    option: &str,
) -> Result<(crate::model::Connector, RequestTarget), CliError> {
    let settings = crate::config::Settings::load(config).map_err(usage)?;
    settings.require_existing_data().map_err(usage)?;
    let state = crate::server::build_state(settings, Arc::new(crate::clock::SystemClock)).await.map_err(usage)?;
    let named = |e: crate::store::StoreError| usage(format!("{option} {id}: {e}"));
    let workspace = state.store.connector_workspace(id).await.map_err(named)?;
    let stored = state.store.open_connector(workspace, id, &state.sealer).await.map_err(named)?;
    // The command line is the operator's: it reaches any address.
    Ok(crate::targets::stored_target(stored, crate::outbound::Reach::Anywhere))
}

/// The prompts a command names: one per non-blank line of `file`, else the `given` values.
pub fn prompts(file: Option<&Path>, given: &[String]) -> Result<Vec<String>, CliError> {
    let Some(path) = file else { return Ok(given.to_vec()) };
    let text = std::fs::read_to_string(path).map_err(|e| usage(format!("--prompts-file {}: {e}", path.display())))?;
    Ok(text.lines().map(str::trim).filter(|l| !l.is_empty()).map(str::to_string).collect())
}
