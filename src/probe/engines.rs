//! What each engine's `/metrics` says: which engine it is (metric prefixes) and what it shows of speculative
//! decoding. vLLM (V1 names, and V0 for old servers) and llama.cpp count drafts, drafted and accepted tokens;
//! SGLang only has last-batch gauges (a sample, not a window); TGI records tokens skipped per decode step.
//! Names and formulas: `../shared/PROTOCOLS.md` §1–3, summarised in `docs/SPEC_LAB.md`.

use super::exposition::Exposition;
use crate::model::{ServerKind, SpecCounters};

/// What a scrape shows of speculative decoding.
#[derive(Debug, Clone, PartialEq)]
pub enum SpecEvidence {
    /// Cumulative counters: windows between scrapes give exact figures.
    Counters(SpecCounters),
    /// SGLang's gauges of the last batch: tokens per forward pass and the acceptance rate.
    LastBatch {
        /// Accepted drafts + the bonus token per forward pass.
        accept_length: f64,
        /// Accepted / drafted tokens in the batch, where exposed.
        accept_rate: Option<f64>,
    },
    /// TGI's skipped tokens (tokens emitted beyond one per decode step), summed over steps.
    SkippedTokens {
        /// Σ skipped tokens.
        sum: f64,
        /// Decode steps.
        steps: f64,
    },
    /// No speculative-decoding series: off on this server, or too old to say.
    Absent,
}

/// The engine whose metrics these are; `None` for another exporter.
pub fn identify(metrics: &Exposition) -> Option<ServerKind> {
    [
        ("vllm:", ServerKind::Vllm),
        ("llamacpp:", ServerKind::LlamaCpp),
        ("sglang:", ServerKind::Sglang),
        ("tgi_", ServerKind::Tgi),
    ]
    .into_iter()
    .find(|(prefix, _)| metrics.has_prefix(prefix))
    .map(|(_, kind)| kind)
}

/// What `metrics` of a `kind` server show of speculative decoding.
pub fn spec_evidence(kind: ServerKind, metrics: &Exposition) -> SpecEvidence {
    match kind {
        ServerKind::Vllm => counters(metrics, "vllm:").unwrap_or(SpecEvidence::Absent),
        ServerKind::LlamaCpp => counters(metrics, "llamacpp:").unwrap_or(SpecEvidence::Absent),
        ServerKind::Sglang => match metrics.sum("sglang:spec_accept_length") {
            Some(accept_length) => {
                SpecEvidence::LastBatch { accept_length, accept_rate: metrics.sum("sglang:spec_accept_rate") }
            }
            None => SpecEvidence::Absent,
        },
        ServerKind::Tgi => {
            let sum = metrics.sum("tgi_request_skipped_tokens_sum");
            let steps = metrics.sum("tgi_request_skipped_tokens_count");
            match (sum, steps) {
                (Some(sum), Some(steps)) => SpecEvidence::SkippedTokens { sum, steps },
                _ => SpecEvidence::Absent,
            }
        }
    }
}

/// The `{prefix}spec_decode_*` counters (vLLM V1 and llama.cpp share the schema; vLLM V0 lacks `num_drafts`).
/// The series exist only when a speculative config does, so their absence means "off".
fn counters(metrics: &Exposition, prefix: &str) -> Option<SpecEvidence> {
    let name = |suffix: &str| format!("{prefix}spec_decode_{suffix}");
    let draft_tokens = metrics.sum(&name("num_draft_tokens_total"))?;
    let accepted_tokens = metrics.sum(&name("num_accepted_tokens_total"))?;
    let per_position = metrics
        .sum_by(&name("num_accepted_tokens_per_pos_total"), "position")
        .into_iter()
        .filter_map(|(position, value)| Some((position.parse().ok()?, value)))
        .collect();
    Some(SpecEvidence::Counters(SpecCounters {
        drafts: metrics.sum(&name("num_drafts_total")),
        draft_tokens,
        accepted_tokens,
        per_position,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A vLLM V1 server with speculative decoding on two data-parallel engines (shape of vLLM's own docs and
    /// PR #24049: `_total` counters, `_created` companions, `engine` and `position` labels).
    const VLLM_V1: &str = r#"# HELP vllm:num_requests_running Number of requests in model execution batches.
# TYPE vllm:num_requests_running gauge
vllm:num_requests_running{engine="0",model_name="m"} 3.0
# HELP vllm:spec_decode_num_drafts_total Number of spec decoding drafts.
# TYPE vllm:spec_decode_num_drafts_total counter
vllm:spec_decode_num_drafts_total{engine="0",model_name="m"} 22.0
vllm:spec_decode_num_drafts_total{engine="1",model_name="m"} 18.0
# HELP vllm:spec_decode_num_drafts_created Number of spec decoding drafts.
# TYPE vllm:spec_decode_num_drafts_created gauge
vllm:spec_decode_num_drafts_created{engine="0",model_name="m"} 1.75673679873e+09
vllm:spec_decode_num_draft_tokens_total{engine="0",model_name="m"} 66.0
vllm:spec_decode_num_draft_tokens_total{engine="1",model_name="m"} 54.0
vllm:spec_decode_num_accepted_tokens_total{engine="0",model_name="m"} 40.0
vllm:spec_decode_num_accepted_tokens_total{engine="1",model_name="m"} 30.0
vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="0",model_name="m",position="0"} 19.0
vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="1",model_name="m",position="0"} 16.0
vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="0",model_name="m",position="1"} 12.0
# HELP http_requests_total Total number of requests by method, status and handler.
# TYPE http_requests_total counter
http_requests_total{handler="/v1/chat/completions",method="POST",status="2xx"} 40.0
"#;

    /// A vLLM V0 server: no `num_drafts`, `model_name` only, and the two ratio gauges.
    const VLLM_V0: &str = r#"# TYPE vllm:spec_decode_draft_acceptance_rate gauge
vllm:spec_decode_draft_acceptance_rate{model_name="m"} 0.5
vllm:spec_decode_num_draft_tokens_total{model_name="m"} 300.0
vllm:spec_decode_num_accepted_tokens_total{model_name="m"} 150.0
vllm:spec_decode_num_emitted_tokens_total{model_name="m"} 250.0
"#;

    /// llama.cpp's hand-printed exposition, with the spec counters of newer builds.
    const LLAMA_CPP: &str = r#"# HELP llamacpp:prompt_tokens_total Number of prompt tokens processed.
# TYPE llamacpp:prompt_tokens_total counter
llamacpp:prompt_tokens_total 1200
# HELP llamacpp:requests_processing Number of requests processing.
# TYPE llamacpp:requests_processing gauge
llamacpp:requests_processing 1
llamacpp:spec_decode_num_drafts_total 10
llamacpp:spec_decode_num_draft_tokens_total 160
llamacpp:spec_decode_num_accepted_tokens_total 64
llamacpp:spec_decode_num_accepted_tokens_per_pos_total{position="0"} 9
"#;

    /// llama.cpp without a draft model: no spec series at all.
    const LLAMA_CPP_PLAIN: &str = "# TYPE llamacpp:prompt_tokens_total counter\nllamacpp:prompt_tokens_total 12\n";

    /// SGLang with speculative decoding: last-batch gauges.
    const SGLANG: &str = r#"# TYPE sglang:num_running_reqs gauge
sglang:num_running_reqs{model_name="m"} 2.0
# TYPE sglang:spec_accept_length gauge
sglang:spec_accept_length{model_name="m"} 3.25
sglang:spec_accept_rate{model_name="m"} 0.72
"#;

    /// TGI renders its bucket-less histograms as summaries.
    const TGI: &str = r#"# TYPE tgi_request_skipped_tokens summary
tgi_request_skipped_tokens{quantile="0.5"} 1
tgi_request_skipped_tokens{quantile="0.99"} 2
tgi_request_skipped_tokens_sum 180
tgi_request_skipped_tokens_count 120
# TYPE tgi_queue_size gauge
tgi_queue_size 0
"#;

    fn parse(body: &str) -> Exposition {
        Exposition::parse(body).unwrap()
    }

    #[test]
    fn every_engine_is_told_by_its_metric_prefix() {
        for (body, kind) in [
            (VLLM_V1, ServerKind::Vllm),
            (VLLM_V0, ServerKind::Vllm),
            (LLAMA_CPP, ServerKind::LlamaCpp),
            (SGLANG, ServerKind::Sglang),
            (TGI, ServerKind::Tgi),
        ] {
            assert_eq!(identify(&parse(body)), Some(kind), "{body}");
        }
        assert_eq!(identify(&parse("node_cpu_seconds_total{cpu=\"0\"} 5\n")), None);
    }

    #[test]
    fn vllm_v1_counters_are_summed_over_engines_and_created_series_ignored() {
        let SpecEvidence::Counters(c) = spec_evidence(ServerKind::Vllm, &parse(VLLM_V1)) else { panic!("counters") };
        assert_eq!((c.drafts, c.draft_tokens, c.accepted_tokens), (Some(40.0), 120.0, 70.0));
        assert_eq!(c.per_position.into_iter().collect::<Vec<_>>(), vec![(0, 35.0), (1, 12.0)]);
    }

    #[test]
    fn vllm_v0_has_no_draft_count_and_llama_cpp_shares_the_v1_schema() {
        let SpecEvidence::Counters(v0) = spec_evidence(ServerKind::Vllm, &parse(VLLM_V0)) else { panic!() };
        assert_eq!((v0.drafts, v0.draft_tokens, v0.accepted_tokens), (None, 300.0, 150.0));
        let SpecEvidence::Counters(llama) = spec_evidence(ServerKind::LlamaCpp, &parse(LLAMA_CPP)) else { panic!() };
        assert_eq!((llama.drafts, llama.draft_tokens, llama.accepted_tokens), (Some(10.0), 160.0, 64.0));
        assert_eq!(spec_evidence(ServerKind::LlamaCpp, &parse(LLAMA_CPP_PLAIN)), SpecEvidence::Absent);
    }

    #[test]
    fn sglang_gives_a_last_batch_sample_and_tgi_its_skipped_tokens() {
        assert_eq!(
            spec_evidence(ServerKind::Sglang, &parse(SGLANG)),
            SpecEvidence::LastBatch { accept_length: 3.25, accept_rate: Some(0.72) }
        );
        assert_eq!(
            spec_evidence(ServerKind::Tgi, &parse(TGI)),
            SpecEvidence::SkippedTokens { sum: 180.0, steps: 120.0 }
        );
        assert_eq!(spec_evidence(ServerKind::Vllm, &parse("vllm:num_requests_running 1\n")), SpecEvidence::Absent);
    }
}
