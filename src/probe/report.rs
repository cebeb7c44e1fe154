//! Probing a connector's server: from its base URL to the server root (one trailing `/v1` removed), then
//! `/metrics`, `/props`, `/slots`, `/info`, `/version` and `/get_server_info`, at once, each with a short
//! time limit, the connector's own headers (its key included: some servers guard `/metrics` too) and a cap on
//! what is read. What answers tells the engine, its version and model, and whether it decodes speculatively;
//! what does not is said. Never fails: every failure is an outcome in the report. Error texts are scrubbed of
//! the connector's secrets like every other text the engine keeps.

use reqwest::header::HeaderMap;
use serde_json::Value;
use std::time::Duration;

use super::engines::{identify, spec_evidence, SpecEvidence};
use super::exposition::{Exposition, MAX_BODY_BYTES};
use crate::engine::{describe_error, HttpClient, RequestTarget};
use crate::engine::{ServerTokenizer, TokenizeError};
use crate::model::{ProbeReport, ProbedPath, ServerKind, SpecCounters, Speculation};

/// How long one path may take.
pub const PROBE_TIMEOUT: Duration = Duration::from_secs(3);
/// The largest JSON answer read (`/props` of a model with a long chat template is ~20 KB).
const JSON_LIMIT: usize = 256 * 1024;

/// What one path gave.
enum Fetched {
    /// A 2xx answer's body, and its `Process-Start-Time-Unix` header.
    Body(String, Option<String>),
    /// Another status.
    Status(u16),
    /// No usable answer.
    Failed(FetchFailure),
}

/// Why a path gave no usable answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FetchFailure {
    /// The body was larger than the path's limit, in KiB.
    #[error("the answer is larger than {0} KiB")]
    TooLarge(usize),
    /// No whole answer within [`PROBE_TIMEOUT`], in seconds.
    #[error("no answer within {0} s")]
    TimedOut(u64),
    /// No answer at all (refused, reset, a name that does not resolve, the address policy), in words.
    #[error("{0}")]
    Unreachable(String),
}

/// Why one scrape of `/metrics` gave no readings. The texts that quote the server are scrubbed of the target's
/// secrets.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ScrapeError {
    /// The address policy refused the server's address before any request.
    #[error("{0}")]
    Refused(String),
    /// `/metrics` answered another status than 2xx.
    #[error("/metrics answered {0}")]
    Status(u16),
    /// No usable answer.
    #[error(transparent)]
    Fetch(#[from] FetchFailure),
    /// An answer, but not the Prometheus text format.
    #[error("{0}")]
    NotMetrics(String),
}

async fn fetch(client: &reqwest::Client, url: String, headers: &HeaderMap, limit: usize) -> Fetched {
    let attempt = async {
        let send = || client.get(url.as_str()).headers(headers.clone()).send();
        let mut response = match send().await {
            Ok(response) => response,
            // A GET may go again: the first send can meet a pooled connection the server had just closed (a real
            // llama.cpp server closes idle keep-alive connections), which never reached its handler.
            Err(e) if !e.is_timeout() => send().await?,
            Err(e) => return Err(e),
        };
        if !response.status().is_success() {
            return Ok(Fetched::Status(response.status().as_u16()));
        }
        let start = response
            .headers()
            .get("process-start-time-unix")
            .and_then(|v| v.to_str().ok())
            .map(|v| v.chars().take(40).collect());
        let mut body = Vec::new();
        while let Some(chunk) = response.chunk().await? {
            body.extend_from_slice(&chunk);
            if body.len() > limit {
                return Ok(Fetched::Failed(FetchFailure::TooLarge(limit / 1024)));
            }
        }
        Ok::<_, reqwest::Error>(Fetched::Body(String::from_utf8_lossy(&body).into_owned(), start))
    };
    match tokio::time::timeout(PROBE_TIMEOUT, attempt).await {
        Err(_) => Fetched::Failed(FetchFailure::TimedOut(PROBE_TIMEOUT.as_secs())),
        Ok(Err(e)) => Fetched::Failed(FetchFailure::Unreachable(describe_error(&e))),
        Ok(Ok(fetched)) => fetched,
    }
}

/// One scrape of the server's `/metrics`: the base of server metrics during runs and of A/B windows.
pub async fn scrape(client: &HttpClient, target: &RequestTarget) -> Result<Exposition, ScrapeError> {
    let url = format!("{}/metrics", target.base_url.server_root());
    let headers = target.header_map().unwrap_or_default();
    let scrubbed = |text: String| target.redactor().scrub_and_clip(&text, 300);
    let client = client.for_target(target).map_err(|refusal| ScrapeError::Refused(refusal.to_string()))?;
    match fetch(client, url, &headers, MAX_BODY_BYTES).await {
        Fetched::Body(text, start_header) => Exposition::parse(&text)
            .map(|metrics| Exposition { start_header, ..metrics })
            .map_err(|e| ScrapeError::NotMetrics(scrubbed(e.to_string()))),
        Fetched::Status(status) => Err(ScrapeError::Status(status)),
        Fetched::Failed(FetchFailure::Unreachable(why)) => Err(FetchFailure::Unreachable(scrubbed(why)).into()),
        Fetched::Failed(failure) => Err(failure.into()),
    }
}

/// Where `kind`'s server says its version or build, and the field that holds it.
fn version_at(kind: ServerKind) -> (&'static str, &'static str) {
    match kind {
        ServerKind::LlamaCpp => ("/props", "build_info"),
        ServerKind::Tgi => ("/info", "version"),
        ServerKind::Sglang => ("/get_server_info", "version"),
        ServerKind::Vllm => ("/version", "version"),
    }
}

/// The version or build the server behind `target` (a `kind` engine) says it runs, read from the one path that
/// tells it (through the address policy, bounded like the probe's reads, scrubbed of the target's secrets): what a
/// run keeps with its server's metrics, so an alert can name a new build. `None` when it does not say.
pub async fn server_version(http: &HttpClient, target: &RequestTarget, kind: ServerKind) -> Option<String> {
    let client = http.for_target(target).ok()?;
    let headers = target.header_map().unwrap_or_default();
    let (path, field) = version_at(kind);
    let url = format!("{}{path}", target.base_url.server_root());
    let Fetched::Body(body, _) = fetch(client, url, &headers, JSON_LIMIT).await else { return None };
    let value: Value = serde_json::from_str(&body).ok()?;
    text(value.get(field)).map(|v| target.redactor().scrub_and_clip(&v, 120))
}

/// Probes the server behind `target`.
pub async fn probe(http: &HttpClient, target: &RequestTarget) -> ProbeReport {
    let client = http;
    let root = target.base_url.server_root();
    let redactor = target.redactor();
    let headers = target.header_map().unwrap_or_default();
    let refused = client.refusal(target).await;
    let client = match refused.map_or_else(|| client.for_target(target), Err) {
        Ok(client) => client,
        Err(refusal) => {
            let refused = ProbedPath { path: "/".into(), outcome: refusal.to_string(), usable: false };
            return report(root, vec![refused], Found::default());
        }
    };
    let get = |path: &str, limit: usize| fetch(client, format!("{root}{path}"), &headers, limit);
    // A workload's exact lengths use the server's own tokenizer: whether it has one is part of what it offers.
    let tokenize = async {
        let found = tokio::time::timeout(PROBE_TIMEOUT, ServerTokenizer::discover(http, target, "")).await;
        match found {
            Ok(Ok(tokenizer)) => (format!("200, {}", tokenizer.form().describe()), true),
            Ok(Err(TokenizeError::NotFound(why))) => (why, false),
            Ok(Err(e)) => (e.to_string(), false),
            Err(_) => (format!("no answer within {} s", PROBE_TIMEOUT.as_secs()), false),
        }
    };
    let (metrics, props, slots, info, version, server_info, tokenize) = futures::join!(
        get("/metrics", MAX_BODY_BYTES),
        get("/props", JSON_LIMIT),
        get("/slots", JSON_LIMIT),
        get("/info", JSON_LIMIT),
        get("/version", JSON_LIMIT),
        get("/get_server_info", JSON_LIMIT),
        tokenize,
    );
    let mut paths = Vec::new();
    let mut record = |path: &str, outcome: String, usable: bool| {
        paths.push(ProbedPath { path: path.into(), outcome: redactor.scrub_and_clip(&outcome, 300), usable });
    };
    let metrics = match metrics {
        Fetched::Body(text, _) => match Exposition::parse(&text) {
            Ok(parsed) => {
                record("/metrics", format!("200, {} series", parsed.samples.len()), true);
                Some(parsed)
            }
            Err(e) => {
                record("/metrics", format!("200, but not Prometheus metrics: {e}"), false);
                None
            }
        },
        other => {
            record("/metrics", outcome(other), false);
            None
        }
    };
    let mut json = |path: &str, fetched: Fetched| match fetched {
        Fetched::Body(text, _) => match serde_json::from_str::<Value>(&text) {
            Ok(value) => {
                record(path, "200, JSON".into(), true);
                Some(value)
            }
            Err(e) => {
                record(path, format!("200, but not JSON: {e}"), false);
                None
            }
        },
        other => {
            record(path, outcome(other), false);
            None
        }
    };
    let found = Found {
        props: json("/props", props).filter(|p| p.get("default_generation_settings").is_some()),
        slots: json("/slots", slots).filter(Value::is_array),
        info: json("/info", info).filter(|i| i.get("model_id").is_some() && i.get("max_total_tokens").is_some()),
        version: json("/version", version),
        server_info: json("/get_server_info", server_info),
        metrics,
    };
    record("/tokenize", tokenize.0, tokenize.1);
    report(root, paths, found)
}

/// What the probed paths gave, before it is judged.
#[derive(Default)]
struct Found {
    metrics: Option<Exposition>,
    props: Option<Value>,
    slots: Option<Value>,
    info: Option<Value>,
    version: Option<Value>,
    server_info: Option<Value>,
}

fn outcome(fetched: Fetched) -> String {
    match fetched {
        Fetched::Body(_, _) => "200".into(),
        Fetched::Status(status) => status.to_string(),
        Fetched::Failed(failure) => failure.to_string(),
    }
}

fn text(value: Option<&Value>) -> Option<String> {
    value.and_then(Value::as_str).filter(|s| !s.is_empty()).map(String::from)
}

/// The engine, version, model and speculation from what answered.
fn report(root: String, paths: Vec<ProbedPath>, found: Found) -> ProbeReport {
    let Found { metrics, props, slots, info, version, server_info } = found;
    let kind = metrics.as_ref().and_then(identify).or_else(|| {
        [
            (props.is_some(), ServerKind::LlamaCpp),
            (info.is_some(), ServerKind::Tgi),
            (server_info.as_ref().is_some_and(|s| s.get("internal_states").is_some()), ServerKind::Sglang),
        ]
        .into_iter()
        .find_map(|(seen, kind)| seen.then_some(kind))
    });
    let model_label =
        metrics.as_ref().and_then(|m| m.samples.iter().find_map(|s| s.label("model_name").map(String::from)));
    let (version, model) = match kind {
        Some(ServerKind::LlamaCpp) => (
            text(props.as_ref().and_then(|p| p.get("build_info"))),
            text(props.as_ref().and_then(|p| p.get("model_alias")))
                .or_else(|| text(props.as_ref().and_then(|p| p.get("model_path")))),
        ),
        Some(ServerKind::Tgi) => {
            (text(info.as_ref().and_then(|i| i.get("version"))), text(info.as_ref().and_then(|i| i.get("model_id"))))
        }
        Some(ServerKind::Sglang) => (
            text(server_info.as_ref().and_then(|s| s.get("version"))),
            text(server_info.as_ref().and_then(|s| s.get("model_path"))).or(model_label),
        ),
        Some(ServerKind::Vllm) => (text(version.as_ref().and_then(|v| v.get("version"))), model_label),
        None => (None, None),
    };
    let evidence = match (kind, &metrics) {
        (Some(kind), Some(metrics)) => spec_evidence(kind, metrics),
        _ => SpecEvidence::Absent,
    };
    let speculation = speculation(kind, &evidence, props.as_ref(), slots.as_ref(), server_info.as_ref());
    let mut notes = Vec::new();
    match (kind, metrics.is_some()) {
        (None, _) => notes.push(
            "Nothing at this server's root tells its engine: a hosted API (or a server without its metrics and info \
             endpoints) shows nothing of speculative decoding or of its queue; only what the client measures \
             (TTFT, time per token, total time) is known."
                .into(),
        ),
        (Some(kind), false) => notes.push(format!(
            "{} answered, but /metrics did not: start it with its metrics endpoint on ({}) to record server \
             metrics during runs.",
            kind.label(),
            match kind {
                ServerKind::LlamaCpp => "--metrics",
                ServerKind::Sglang => "--enable-metrics",
                ServerKind::Vllm | ServerKind::Tgi => "it is on by default; check a proxy in front",
            }
        )),
        _ => {}
    }
    ProbeReport { root, kind, version, model, paths, has_metrics: metrics.is_some(), speculation, notes }
}

fn speculation(
    kind: Option<ServerKind>,
    evidence: &SpecEvidence,
    props: Option<&Value>,
    slots: Option<&Value>,
    server_info: Option<&Value>,
) -> Speculation {
    // Counters start at zero when the server does: the window from zero is "since the server started".
    let since_start = |counters: &SpecCounters| {
        let zero = SpecCounters { drafts: counters.drafts.map(|_| 0.0), ..SpecCounters::default() };
        zero.window(counters).ok()
    };
    let active = |c: &SpecCounters| Some(c.draft_tokens > 0.0);
    match (kind, evidence) {
        (Some(ServerKind::LlamaCpp), evidence) => {
            let flags: Vec<bool> = slots
                .and_then(Value::as_array)
                .map(|all| all.iter().filter_map(|s| s.get("speculative").and_then(Value::as_bool)).collect())
                .unwrap_or_default();
            let configured = (!flags.is_empty()).then(|| flags.iter().any(|f| *f));
            let params = props.and_then(|p| p.pointer("/default_generation_settings/params"));
            let draft_max = params
                .and_then(|p| p.get("speculative.n_max"))
                .and_then(Value::as_u64)
                .and_then(|n| u32::try_from(n).ok())
                .filter(|_| configured == Some(true));
            let counters = match evidence {
                SpecEvidence::Counters(c) => Some(c),
                _ => None,
            };
            Speculation {
                configured,
                active: counters.and_then(active),
                method: (configured == Some(true)).then(|| "draft model".to_string()),
                draft_max,
                how: match configured {
                    Some(on) => format!(
                        "/slots: speculative is {on} on {} of {} slots; the llamacpp:spec_decode_* counters (present \
                         whether or not a draft model is loaded) count the drafts",
                        flags.iter().filter(|f| **f).count(),
                        flags.len()
                    ),
                    None => "/slots did not answer, so whether a draft model is loaded is not known".into(),
                },
                since_start: counters.and_then(since_start),
            }
        }
        (Some(ServerKind::Vllm), SpecEvidence::Counters(c)) => Speculation {
            configured: Some(true),
            active: active(c),
            method: None,
            draft_max: None,
            how: "vLLM registers its vllm:spec_decode_* counters only when a speculative config exists".into(),
            since_start: since_start(c),
        },
        (Some(ServerKind::Vllm), _) => Speculation {
            configured: Some(false),
            how: "no vllm:spec_decode_* counters: vLLM registers them only when a speculative config exists".into(),
            ..Speculation::default()
        },
        (Some(ServerKind::Sglang), SpecEvidence::LastBatch { accept_length, .. }) => Speculation {
            configured: Some(true),
            active: Some(*accept_length > 0.0),
            how: format!(
                "sglang:spec_accept_length is {accept_length:.2} for the last batch (a sample, not a window){}",
                server_info
                    .and_then(|s| s.pointer("/internal_states/0/avg_spec_accept_length"))
                    .and_then(Value::as_f64)
                    .map(|avg| format!("; /get_server_info says {avg:.2} since the server started"))
                    .unwrap_or_default()
            ),
            ..Speculation::default()
        },
        (Some(ServerKind::Tgi), SpecEvidence::SkippedTokens { sum, steps }) => Speculation {
            active: Some(*sum > 0.0),
            how: format!(
                "tgi_request_skipped_tokens: {sum} tokens skipped over {steps} decode steps ({:.2} tokens per step); \
                 TGI does not expose its --speculate depth, so whether it is configured is not known",
                if *steps > 0.0 { 1.0 + sum / steps } else { 1.0 }
            ),
            ..Speculation::default()
        },
        (Some(kind), _) => Speculation {
            how: format!("{} shows no speculative-decoding series", kind.label()),
            ..Speculation::default()
        },
        (None, _) => Speculation { how: "the server's engine is not known".into(), ..Speculation::default() },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn json(text: &str) -> Option<Value> {
        serde_json::from_str(text).ok()
    }

    fn found(metrics: &str, props: &str, slots: &str) -> Found {
        Found {
            metrics: Exposition::parse(metrics).ok(),
            props: json(props),
            slots: json(slots),
            info: None,
            version: None,
            server_info: None,
        }
    }

    #[test]
    fn a_real_llama_cpp_server_with_and_without_a_draft_model() {
        let plain = report(
            "http://h".into(),
            vec![],
            found(
                include_str!("../../tests/fixtures/speclab/llamacpp_metrics_plain.txt"),
                include_str!("../../tests/fixtures/speclab/llamacpp_props_plain.json"),
                include_str!("../../tests/fixtures/speclab/llamacpp_slots_plain.json"),
            ),
        );
        assert_eq!((plain.kind, plain.has_metrics), (Some(ServerKind::LlamaCpp), true));
        assert_eq!(plain.model.as_deref(), Some("/tmp/llm/tiny.gguf"));
        assert_eq!((plain.speculation.configured, plain.speculation.active), (Some(false), Some(false)));
        assert!(plain.speculation.how.contains("speculative is false on 0 of 4 slots"), "{}", plain.speculation.how);
        let draft = report(
            "http://h".into(),
            vec![],
            found(
                include_str!("../../tests/fixtures/speclab/llamacpp_metrics_draft.txt"),
                include_str!("../../tests/fixtures/speclab/llamacpp_props_draft.json"),
                include_str!("../../tests/fixtures/speclab/llamacpp_slots_draft.json"),
            ),
        );
        assert_eq!((draft.speculation.configured, draft.speculation.active), (Some(true), Some(true)));
        let since = draft.speculation.since_start.unwrap();
        // Captured after two requests: 62 tokens drafted in 17 steps, 12 accepted.
        assert_eq!((since.draft_tokens, since.accepted_tokens, since.drafts), (62.0, 12.0, Some(17.0)));
        assert!((since.mean_acceptance_length.unwrap() - (1.0 + 12.0 / 17.0)).abs() < 1e-12);
    }

    #[test]
    fn a_hosted_api_is_told_plainly_that_nothing_is_measurable() {
        let none = report(
            "https://api.example.com".into(),
            vec![],
            Found { metrics: None, props: None, slots: None, info: None, version: None, server_info: None },
        );
        assert_eq!((none.kind, none.has_metrics, none.speculation.configured), (None, false, None));
        assert!(none.notes[0].contains("hosted API") && none.notes[0].contains("only what the client measures"));
    }

    #[test]
    fn vllm_spec_is_known_from_its_counters_and_tgi_from_info() {
        let vllm = report(
            "http://h".into(),
            vec![],
            Found {
                metrics: Exposition::parse("vllm:num_requests_running{engine=\"0\",model_name=\"llama\"} 0\n").ok(),
                props: None,
                slots: None,
                info: None,
                version: json(r#"{"version": "0.11.2"}"#),
                server_info: None,
            },
        );
        assert_eq!(
            (vllm.kind, vllm.version.as_deref(), vllm.model.as_deref()),
            (Some(ServerKind::Vllm), Some("0.11.2"), Some("llama"))
        );
        assert_eq!(vllm.speculation.configured, Some(false));
        let tgi = report(
            "http://h".into(),
            vec![],
            Found {
                metrics: None,
                props: None,
                slots: None,
                info: json(r#"{"model_id": "bigscience/bloom-560m", "max_total_tokens": 2048, "version": "3.3.6"}"#),
                version: None,
                server_info: None,
            },
        );
        assert_eq!((tgi.kind, tgi.model.as_deref()), (Some(ServerKind::Tgi), Some("bigscience/bloom-560m")));
        assert!(tgi.notes[0].contains("/metrics did not"), "{:?}", tgi.notes);
    }
}
