//! The `latency-guard sim` command line.

use super::config::{Delay, Fault, SimConfig, SimOptionError, Speculative, UsageMode};
use super::hostile::Hostile;

/// Options of `latency-guard sim`.
#[derive(Debug, clap::Args)]
pub struct SimArgs {
    /// Port to listen on (0 picks a free one).
    #[arg(long, default_value_t = 8100)]
    pub port: u16,
    /// Address to bind.
    #[arg(long, default_value = "127.0.0.1")]
    pub host: std::net::IpAddr,
    /// Time to first token, ms: `120`, `normal:MEAN,SD` or `lognormal:MEDIAN,SIGMA`.
    #[arg(long, default_value = "120", value_parser = Delay::parse)]
    pub ttft_ms: Delay,
    /// Delay between chunks, ms, in the same forms.
    #[arg(long, default_value = "15", value_parser = Delay::parse)]
    pub itl_ms: Delay,
    /// Output tokens per response (capped by max_tokens).
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub tokens: u32,
    /// Tokens per content chunk.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=1_000))]
    pub tokens_per_chunk: u32,
    /// Reasoning tokens (`delta.reasoning_content`) before the answer.
    #[arg(long, default_value_t = 0)]
    pub reasoning_tokens: u32,
    /// `final` (usage chunk when asked for) or `continuous` (running usage on every chunk).
    #[arg(long, default_value = "final", value_parser = ["final", "continuous"])]
    pub usage: String,
    /// Require `Authorization: Bearer <KEY>`.
    #[arg(long)]
    pub api_key: Option<String>,
    /// Probability (0 to 1) that a request gets one of --faults.
    #[arg(long, default_value_t = 0.0)]
    pub fault_rate: f64,
    /// Comma-separated faults: 429, 500, midstream, truncate, reset, stall.
    #[arg(long, value_delimiter = ',', value_parser = Fault::parse)]
    pub faults: Vec<Fault>,
    /// Close each connection after one response while advertising keep-alive (as llama.cpp's server does).
    #[arg(long)]
    pub close_connections: bool,
    /// Serve at most N requests at once; later ones queue (first come, first served) and wait before their first
    /// token, as on a server whose batch slots are full.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub slots: Option<u32>,
    /// Prefill time of each prompt token not in the prefix cache, µs, added to the time to first token (0: the
    /// prompt costs nothing, whatever its length).
    #[arg(long, default_value_t = 0.0)]
    pub prefill_us_per_token: f64,
    /// Blocks of 16 tokens the prefix cache keeps, least recently used first out (0: no cache).
    #[arg(long, default_value_t = 4_096, value_parser = clap::value_parser!(u64).range(0..=10_000_000))]
    pub prefix_cache_blocks: u64,
    /// Serve no /tokenize and /detokenize, as a hosted provider does not.
    #[arg(long)]
    pub no_tokenize: bool,
    /// The `system_fingerprint` every reply carries: a build, as engines report theirs (a new one between two
    /// runs is what a deployment looks like to a client).
    #[arg(long, default_value = super::config::DEFAULT_SYSTEM_FINGERPRINT)]
    pub system_fingerprint: String,
    /// Serve no `/metrics` and `/version`, as a hosted API does not.
    #[arg(long)]
    pub no_engine_endpoints: bool,
    /// The version `/version` says (vLLM's shape), beside the vLLM-style `/metrics` the simulator serves.
    #[arg(long, default_value = super::config::DEFAULT_ENGINE_VERSION)]
    pub engine_version: String,
    /// Speculative decoding in `/metrics`: tokens drafted per step (with --spec-acceptance; 0: off).
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=64))]
    pub spec_tokens: u32,
    /// Probability (0 to 1) that a drafted token is accepted given the ones before it were: position i survives
    /// this to the power i + 1, and vLLM's acceptance rate is the mean of those. The counters do not change the
    /// response's timing.
    #[arg(long, default_value_t = 0.8)]
    pub spec_acceptance: f64,
    /// Tokens the KV cache holds: `/metrics`' KV-cache use is the running requests' tokens over this.
    #[arg(long, default_value_t = 65_536, value_parser = clap::value_parser!(u64).range(1..=1_000_000_000))]
    pub kv_cache_tokens: u64,
    /// Threads serving requests, each with its own listener on the port and its own timer. Each timer spins for the
    /// last 1.5 ms before its deadlines, so a busy worker keeps a core busy: more workers hold more streams on time
    /// on a machine with cores to spare, and take them from whatever else runs there (a client measuring it).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=256))]
    pub workers: u16,
    /// Serve a hostile endpoint instead (docs/RELIABILITY.md): hang-before-headers, hang-mid-stream, drip,
    /// flood, endless-stream, giant-line, giant-body, endless-error-body, invalid-utf8, wrong-shape,
    /// non-json-line, html-error, absurd-retry-after, redirect, echo-secrets.
    #[arg(long, value_parser = Hostile::parse)]
    pub hostile: Option<Hostile>,
}

impl SimArgs {
    /// The configuration these options describe.
    pub fn config(&self) -> Result<SimConfig, SimOptionError> {
        if !(0.0..=1.0).contains(&self.fault_rate) {
            return Err(SimOptionError::FaultRate);
        }
        if self.fault_rate > 0.0 && self.faults.is_empty() {
            return Err(SimOptionError::FaultRateWithoutFaults);
        }
        if !(self.prefill_us_per_token.is_finite() && (0.0..=100_000.0).contains(&self.prefill_us_per_token)) {
            return Err(SimOptionError::PrefillRate);
        }
        if !(0.0..=1.0).contains(&self.spec_acceptance) {
            return Err(SimOptionError::SpecAcceptance);
        }
        Ok(SimConfig {
            ttft: self.ttft_ms,
            itl: self.itl_ms,
            tokens: self.tokens,
            tokens_per_chunk: self.tokens_per_chunk,
            reasoning_tokens: self.reasoning_tokens,
            usage: if self.usage == "continuous" { UsageMode::Continuous } else { UsageMode::Final },
            api_key: self.api_key.clone(),
            fault_rate: self.fault_rate,
            faults: self.faults.clone(),
            close_after_response: self.close_connections,
            slots: self.slots,
            prefill_per_token: std::time::Duration::from_secs_f64(self.prefill_us_per_token / 1e6),
            prefix_cache_blocks: usize::try_from(self.prefix_cache_blocks).unwrap_or(usize::MAX),
            tokenize: !self.no_tokenize,
            system_fingerprint: self.system_fingerprint.clone(),
            engine_endpoints: !self.no_engine_endpoints,
            engine_version: self.engine_version.clone(),
            speculative: (self.spec_tokens > 0)
                .then_some(Speculative { tokens: self.spec_tokens, acceptance: self.spec_acceptance }),
            kv_cache_tokens: self.kv_cache_tokens,
        })
    }
}
