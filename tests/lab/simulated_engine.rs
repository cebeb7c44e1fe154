//! The simulator speaks as a self-hosted vLLM server: a probe identifies it and reads its version and drafting,
//! and a Spec Lab A/B test against it reports the acceptance rate it was told to draft at — Spec Lab, server
//! metrics during runs and Guard's acceptance-rate threshold can be tried without a GPU. Its counters are exact
//! bookkeeping of what it served, so the rate is known beforehand: 3 tokens drafted a step, each accepted with
//! probability 0.8 after the ones before it, makes (0.8 + 0.64 + 0.512) / 3 = 65.1 % of drafted tokens accepted.
#![cfg(feature = "ssr")]
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a failing test should panic loudly")]

use crate::common;

use latency_guard::engine::HttpClient;
use latency_guard::model::ServerKind;
use latency_guard::sim::{self, SimConfig, Speculative};
use serde_json::Value;

fn engine(speculative: Option<Speculative>) -> SimConfig {
    SimConfig { speculative, engine_version: "0.10.1-sim".into(), ..SimConfig::fixed_ms(2, 1, 40) }
}

#[tokio::test]
async fn the_probe_identifies_it_and_an_ab_test_reports_the_acceptance_it_drafts_at() {
    let drafting = Speculative { tokens: 3, acceptance: 0.8 };
    let expected = drafting.acceptance_rate();
    assert!((expected - 0.651).abs() < 0.001, "{expected}");
    let (plain, candidate) =
        (sim::spawn_local(engine(None)).await.unwrap(), sim::spawn_local(engine(Some(drafting))).await.unwrap());

    let report =
        latency_guard::probe::probe(&HttpClient::new().unwrap(), &common::any_target(&candidate.base_url(), None, &[]))
            .await;
    assert_eq!((report.kind, report.version.as_deref()), (Some(ServerKind::Vllm), Some("0.10.1-sim")), "{report:?}");
    assert!(report.has_metrics && report.speculation.configured == Some(true), "{:?}", report.speculation);

    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("ab.json");
    let args = [
        "spec-lab",
        "ab",
        "--baseline-url",
        &plain.base_url(),
        "--candidate-url",
        &candidate.base_url(),
        "--model",
        "sim-model",
        "--prompt",
        "count to ten",
        "-n",
        "20",
        "--warmup",
        "0",
        "-c",
        "2",
        "--out",
        out.to_str().unwrap(),
    ];
    let (code, stdout, stderr) = common::cli(&args, &[]).await;
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert!(stderr.contains("candidate: vLLM at http://127.0.0.1:"), "{stderr}");
    let report: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let cell = &report["cells"][0];
    let spec = &cell["candidate"]["server"]["spec"];
    assert_eq!(spec["kind"], "window", "{cell}");
    // 40 requests × 40 tokens over 2.952 tokens a step: whole counters, within a draft of the expectation.
    let rate = spec["acceptanceRate"].as_f64().unwrap();
    assert!((rate - expected).abs() < 0.005, "{rate} vs {expected}: {spec}");
    assert_eq!(cell["baseline"]["server"]["spec"]["kind"], "notCounted", "the plain server drafts nothing: {cell}");
    let verdict = cell["verdict"]["summary"].as_str().unwrap();
    assert!(verdict.contains(&format!("{:.1} % of drafted tokens accepted", rate * 100.0)), "{verdict}");
    plain.stop();
    candidate.stop();
}
