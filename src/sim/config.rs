//! How the simulator behaves: delay distributions, chunking, a reasoning phase, usage reporting, injected faults.

use rand::Rng;
use std::time::Duration;

/// A delay: fixed, or drawn per use from a distribution (negative draws are clamped to zero).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Delay {
    /// Always the same.
    Fixed(Duration),
    /// Normal with this mean and standard deviation.
    Normal {
        /// Mean.
        mean: Duration,
        /// Standard deviation.
        sd: Duration,
    },
    /// Log-normal: `median · e^(σ·Z)`, the usual shape of service latencies (a long right tail).
    LogNormal {
        /// Median.
        median: Duration,
        /// σ of the underlying normal.
        sigma: f64,
    },
}

/// Why a simulator option is refused.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SimOptionError {
    /// A delay that is not a number of milliseconds (as written).
    #[error("{0:?} is not a number of milliseconds")]
    NotMilliseconds(String),
    /// A delay outside what the simulator draws.
    #[error("{0} ms is outside 0..=600000")]
    DelayOutOfRange(f64),
    /// A distribution given one value where it needs two (as written).
    #[error("expected two values in {0:?}")]
    NotAPair(String),
    /// A log-normal σ that is not a number (as written).
    #[error("σ {0:?} is not a number")]
    SigmaNotANumber(String),
    /// A log-normal σ out of range.
    #[error("σ must be between 0 and 5")]
    SigmaOutOfRange,
    /// A distribution the simulator does not draw from (as written).
    #[error("unknown distribution {0:?}; use a number, normal:MEAN,SD or lognormal:MEDIAN,SIGMA")]
    UnknownDistribution(String),
    /// A fault the simulator cannot inject (as written).
    #[error("unknown fault {:?}; one of {}", .0, Fault::ALL.map(|(n, _)| n).join(", "))]
    UnknownFault(String),
    /// A hostile endpoint the simulator does not serve (as written).
    #[error("unknown hostile endpoint {:?}; one of {}", .0, crate::sim::Hostile::ALL.map(|(n, _)| n).join(", "))]
    UnknownHostile(String),
    /// `--fault-rate` is not a share.
    #[error("--fault-rate must be between 0 and 1")]
    FaultRate,
    /// A fault rate with no faults to inject.
    #[error("--fault-rate needs --faults (e.g. --faults 429,reset)")]
    FaultRateWithoutFaults,
    /// `--prefill-us-per-token` out of range.
    #[error("--prefill-us-per-token must be between 0 and 100000")]
    PrefillRate,
    /// `--spec-acceptance` is not a probability.
    #[error("--spec-acceptance must be between 0 and 1")]
    SpecAcceptance,
}

impl Delay {
    /// Parses `50`, `normal:50,10` or `lognormal:50,0.5` (milliseconds; σ unitless).
    pub fn parse(text: &str) -> Result<Self, SimOptionError> {
        let ms = |v: &str| -> Result<Duration, SimOptionError> {
            let v: f64 = v.trim().parse().map_err(|_| SimOptionError::NotMilliseconds(v.to_string()))?;
            if !(v.is_finite() && (0.0..=600_000.0).contains(&v)) {
                return Err(SimOptionError::DelayOutOfRange(v));
            }
            Ok(Duration::from_secs_f64(v / 1e3))
        };
        let pair = |args: &str| -> Result<(String, String), SimOptionError> {
            args.split_once(',')
                .map(|(a, b)| (a.to_string(), b.to_string()))
                .ok_or_else(|| SimOptionError::NotAPair(args.to_string()))
        };
        match text.split_once(':') {
            None => Ok(Self::Fixed(ms(text)?)),
            Some(("normal", args)) => {
                let (mean, sd) = pair(args)?;
                Ok(Self::Normal { mean: ms(&mean)?, sd: ms(&sd)? })
            }
            Some(("lognormal", args)) => {
                let (median, sigma) = pair(args)?;
                let sigma: f64 = sigma.trim().parse().map_err(|_| SimOptionError::SigmaNotANumber(sigma.clone()))?;
                if !(sigma.is_finite() && (0.0..=5.0).contains(&sigma)) {
                    return Err(SimOptionError::SigmaOutOfRange);
                }
                Ok(Self::LogNormal { median: ms(&median)?, sigma })
            }
            Some((kind, _)) => Err(SimOptionError::UnknownDistribution(kind.to_string())),
        }
    }

    /// One draw.
    pub fn sample(&self, rng: &mut impl Rng) -> Duration {
        match *self {
            Self::Fixed(d) => d,
            Self::Normal { mean, sd } => {
                Duration::from_secs_f64((mean.as_secs_f64() + sd.as_secs_f64() * standard_normal(rng)).max(0.0))
            }
            Self::LogNormal { median, sigma } => {
                Duration::from_secs_f64(median.as_secs_f64() * (sigma * standard_normal(rng)).exp())
            }
        }
    }
}

/// Box–Muller: one standard normal draw from two uniforms.
fn standard_normal(rng: &mut impl Rng) -> f64 {
    let u1: f64 = 1.0 - rng.gen::<f64>();
    let u2: f64 = rng.gen::<f64>();
    (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
}

/// A failure the simulator can inject.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// HTTP 429 with `Retry-After: 1`.
    RateLimit,
    /// HTTP 500.
    ServerError,
    /// An error object in the stream after half the tokens (HTTP status stays 200).
    MidStreamError,
    /// The stream ends after half the tokens without `finish_reason` or `[DONE]`.
    Truncated,
    /// The connection breaks after half the tokens.
    Reset,
    /// The stream stops sending after half the tokens and never ends.
    Stall,
}

impl Fault {
    /// Every kind, as named on the command line.
    pub const ALL: [(&'static str, Fault); 6] = [
        ("429", Fault::RateLimit),
        ("500", Fault::ServerError),
        ("midstream", Fault::MidStreamError),
        ("truncate", Fault::Truncated),
        ("reset", Fault::Reset),
        ("stall", Fault::Stall),
    ];

    /// Parses a name from [`Fault::ALL`].
    pub fn parse(name: &str) -> Result<Self, SimOptionError> {
        Self::ALL
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, f)| *f)
            .ok_or_else(|| SimOptionError::UnknownFault(name.into()))
    }
}

/// How streamed responses report usage.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum UsageMode {
    /// A final usage chunk, when the request asks with `stream_options.include_usage`.
    #[default]
    Final,
    /// Running usage on every chunk (as some servers do), plus the final chunk.
    Continuous,
}

/// Speculative decoding as the engine's counters show it: each step drafts `tokens`, and each drafted token is
/// accepted with probability `acceptance` given the ones before it were, so position i (from 0) survives
/// `acceptance^(i+1)` of the steps and vLLM's acceptance rate (accepted / drafted) is the mean of those.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Speculative {
    /// Tokens drafted per step.
    pub tokens: u32,
    /// Probability that a drafted token is accepted, given the ones before it were (0–1).
    pub acceptance: f64,
}

impl Speculative {
    /// The share of steps in which each position's drafted token is accepted.
    pub fn per_position(&self) -> Vec<f64> {
        (1..=self.tokens).map(|i| self.acceptance.powi(i32::try_from(i).unwrap_or(i32::MAX))).collect()
    }

    /// Accepted / drafted tokens: what vLLM's metrics make its acceptance rate.
    pub fn acceptance_rate(&self) -> f64 {
        self.per_position().iter().sum::<f64>() / f64::from(self.tokens.max(1))
    }
}

/// Everything the simulator can be told.
#[derive(Debug, Clone)]
pub struct SimConfig {
    /// From receiving a request to the first output token.
    pub ttft: Delay,
    /// Between consecutive chunks.
    pub itl: Delay,
    /// Output tokens per response (answer tokens; capped by the request's `max_tokens`).
    pub tokens: u32,
    /// Tokens per content chunk (speculative decoding emits several at once).
    pub tokens_per_chunk: u32,
    /// Reasoning tokens streamed as `delta.reasoning_content` before the answer.
    pub reasoning_tokens: u32,
    /// Usage reporting of streamed responses.
    pub usage: UsageMode,
    /// When set, requests must carry `Authorization: Bearer <key>`.
    pub api_key: Option<String>,
    /// Probability in `[0, 1]` that a request gets one of `faults` (chosen uniformly).
    pub fault_rate: f64,
    /// The faults to inject.
    pub faults: Vec<Fault>,
    /// Close each connection after one response although it was kept alive (as llama.cpp's server does): a
    /// client that sends a second request on it loses that request before any response byte.
    pub close_after_response: bool,
    /// Requests served at once (a server's batch slots); later ones wait in arrival order, and the wait is part of
    /// their time to first token — the capacity model whose knee is known (`None`: no limit).
    pub slots: Option<u32>,
    /// Prefill time of each prompt token the prefix cache did not hold, added to the time to first token.
    pub prefill_per_token: Duration,
    /// Blocks of [`super::BLOCK_TOKENS`] tokens the prefix cache keeps (0: no cache).
    pub prefix_cache_blocks: usize,
    /// Serve `/tokenize` and `/detokenize` (off: a server without them, as hosted providers are).
    pub tokenize: bool,
    /// Every reply's `system_fingerprint`: the build it says answered, as OpenAI and engines report theirs.
    pub system_fingerprint: String,
    /// Serve `/metrics` and `/version` as a vLLM server does (off: a hosted API, which has neither).
    pub engine_endpoints: bool,
    /// The version `/version` says, as vLLM's does.
    pub engine_version: String,
    /// Speculative decoding as its `/metrics` counts it (`None`: off, no such series).
    pub speculative: Option<Speculative>,
    /// Tokens its KV cache holds (`/metrics`' KV-cache use is the running requests' prompt and answer tokens over
    /// this).
    pub kv_cache_tokens: u64,
}

/// The version the simulator's `/version` says unless told otherwise.
pub const DEFAULT_ENGINE_VERSION: &str = concat!("latency-guard-sim-", env!("CARGO_PKG_VERSION"));

/// What the simulator's replies say answered them unless told otherwise.
pub const DEFAULT_SYSTEM_FINGERPRINT: &str = "latency-guard-sim";

impl Default for SimConfig {
    fn default() -> Self {
        Self {
            ttft: Delay::Fixed(Duration::from_millis(120)),
            itl: Delay::Fixed(Duration::from_millis(15)),
            tokens: 64,
            tokens_per_chunk: 1,
            reasoning_tokens: 0,
            usage: UsageMode::Final,
            api_key: None,
            fault_rate: 0.0,
            faults: Vec::new(),
            close_after_response: false,
            slots: None,
            prefill_per_token: Duration::ZERO,
            prefix_cache_blocks: 4_096,
            tokenize: true,
            system_fingerprint: DEFAULT_SYSTEM_FINGERPRINT.to_string(),
            engine_endpoints: true,
            engine_version: DEFAULT_ENGINE_VERSION.to_string(),
            speculative: None,
            kv_cache_tokens: 65_536,
        }
    }
}

impl SimConfig {
    /// Fixed delays and nothing else special: the usual test set-up.
    pub fn fixed(ttft: Duration, itl: Duration, tokens: u32) -> Self {
        Self { ttft: Delay::Fixed(ttft), itl: Delay::Fixed(itl), tokens, ..Self::default() }
    }

    /// [`SimConfig::fixed`] in whole milliseconds.
    pub fn fixed_ms(ttft_ms: u64, itl_ms: u64, tokens: u32) -> Self {
        Self::fixed(Duration::from_millis(ttft_ms), Duration::from_millis(itl_ms), tokens)
    }

    /// The same, asking for `api_key` as a bearer token (`None`: no key needed).
    pub fn with_key(self, api_key: Option<&str>) -> Self {
        Self { api_key: api_key.map(str::to_string), ..self }
    }

    /// The fault for the next request, if one is drawn.
    pub fn draw_fault(&self, rng: &mut impl Rng) -> Option<Fault> {
        if self.faults.is_empty() || rng.gen::<f64>() >= self.fault_rate {
            return None;
        }
        Some(self.faults[rng.gen_range(0..self.faults.len())])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn parses_delays_and_rejects_nonsense() {
        assert_eq!(Delay::parse("50").unwrap(), Delay::Fixed(Duration::from_millis(50)));
        assert!(matches!(Delay::parse("normal:50,10").unwrap(), Delay::Normal { .. }));
        assert!(matches!(Delay::parse("lognormal:50,0.5").unwrap(), Delay::LogNormal { .. }));
        for bad in ["-1", "gamma:1,2", "normal:5", "lognormal:5,x", "abc"] {
            assert!(Delay::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn distributions_have_the_asked_centre() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(3);
        let mut draws: Vec<f64> = (0..20_001)
            .map(|_| {
                Delay::LogNormal { median: Duration::from_millis(50), sigma: 0.5 }.sample(&mut rng).as_secs_f64() * 1e3
            })
            .collect();
        draws.sort_by(f64::total_cmp);
        assert!((draws[10_000] - 50.0).abs() < 1.5, "median {}", draws[10_000]);
        let normal = Delay::Normal { mean: Duration::from_millis(20), sd: Duration::from_millis(5) };
        let mean = (0..20_000).map(|_| normal.sample(&mut rng).as_secs_f64() * 1e3).sum::<f64>() / 20_000.0;
        assert!((mean - 20.0).abs() < 0.2, "mean {mean}");
    }

    #[test]
    fn faults_come_at_the_asked_rate() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(9);
        let config =
            SimConfig { fault_rate: 0.25, faults: vec![Fault::RateLimit, Fault::Reset], ..SimConfig::default() };
        let hits = (0..10_000).filter(|_| config.draw_fault(&mut rng).is_some()).count();
        assert!((2_300..2_700).contains(&hits), "{hits}");
        assert_eq!(SimConfig::default().draw_fault(&mut rng), None);
    }
}
