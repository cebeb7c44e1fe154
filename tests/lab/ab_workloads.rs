//! A/B tests that send a workload instead of prompts: each request made once, through the baseline server's own
//! `/tokenize`, and the same text sent to both arms after each arm's own mark; answers asked at their drawn lengths reach them; each cell has
//! a seed of its own, so the second cell finds nothing of the first in a prefix cache. Through the API a saved
//! workload is named by id, and a workload that does not fit rounds to both arms is refused with its field.

use latency_guard::engine::HttpClient;
use latency_guard::lab::judge::ab_report;
use latency_guard::lab::model::AbPlanInput;
use latency_guard::lab::service::{run_ab, AbArm, AbWorkload};
use latency_guard::model::{LengthDist, Workload};
use latency_guard::sim::{self, SimConfig};
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

use crate::common;

fn arm(base: &str) -> AbArm {
    AbArm { target: common::any_target(base, None, &[]), model: "sim-model".into(), server_kind: None }
}

#[tokio::test]
async fn both_arms_get_the_same_prompts_of_the_asked_lengths_and_each_cell_its_own() {
    let (a, b) = (
        sim::spawn_local(SimConfig::fixed_ms(1, 0, 50)).await.unwrap(),
        sim::spawn_local(SimConfig::fixed_ms(1, 0, 50)).await.unwrap(),
    );
    let workload = Workload::Synthetic {
        input: LengthDist::Uniform { min: 40, max: 120 },
        output: LengthDist::fixed(7),
        requests: 6,
        seed: 5,
    };
    let input: AbPlanInput = serde_json::from_value(json!({
        "prompts": [], "iterations": 1, "warmup": 1, "concurrencies": [1, 3], "maxTokens": 64,
        "workload": workload,
    }))
    .unwrap();
    let plan = input.validate().unwrap();
    assert_eq!((plan.requests_per_cell(), plan.total_requests()), (6, 28));
    let (client, arms) = (HttpClient::new().unwrap(), [arm(&a.base_url()), arm(&b.base_url())]);
    let how = AbWorkload::of(&client, &plan, &arms, None, None).await.unwrap().unwrap();
    let cells = run_ab(&client, &plan, &arms, Some(&how), &CancellationToken::new(), &mut |_| {}).await;
    assert_eq!(cells.len(), 2);
    let prompts = |cell: usize, arm: usize| -> Vec<String> {
        cells[cell].arms[arm].requests.iter().filter(|t| !t.record.warmup).map(|t| t.record.prompt.clone()).collect()
    };
    for (c, cell) in cells.iter().enumerate() {
        // The same text after each arm's own mark (its cell's, its arm's and its request's).
        let (baseline, candidate) = (prompts(c, 0), prompts(c, 1));
        for (b, a) in baseline.iter().zip(&candidate) {
            let ((b_mark, b_text), (a_mark, a_text)) = (common::unmarked(b), common::unmarked(a));
            assert_eq!(b_text, a_text, "cell {c}: both arms are sent the same text");
            assert_ne!(b_mark, a_mark, "cell {c}: each arm its own mark");
        }
        for timed in cell.arms.iter().flat_map(|arm| &arm.requests) {
            let r = &timed.record;
            assert!(r.error.is_none(), "{r:?}");
            let asked = r.asked_input_tokens.unwrap();
            assert!((40..=120).contains(&asked));
            // The simulator's template adds 2 tokens; the answer reaches its asked 7 (ignore_eos).
            assert_eq!(
                (r.made_input_tokens, r.tokens_in, r.tokens_out),
                (Some(asked), Some(u64::from(asked) + 2), Some(7))
            );
        }
        let cached = cell.arms.iter().flat_map(|arm| &arm.requests).filter(|t| t.record.cached_tokens.unwrap_or(0) > 0);
        assert_eq!(cached.count(), 0, "cell {c}: no prompt reached a server that had seen it before");
    }
    assert_ne!(prompts(0, 0), prompts(1, 0), "the second cell sends prompts of its own");
    let endpoints = [0, 1].map(|i| latency_guard::lab::report::AbEndpoint {
        name: format!("arm {i}"),
        base_url: arms[i].target.base_url.as_str().to_string(),
        model: "sim-model".into(),
        server_kind: None,
    });
    let report = ab_report(&plan, endpoints, 0, &cells, how.tokenizer().as_ref());
    assert!(report.notes[0].starts_with("Requests: the workload synthetic: input uniform"), "{}", report.notes[0]);
    assert!(report.notes[0].contains("the server's own tokenizer"), "{}", report.notes[0]);
    assert_eq!(report.cells[0].baseline.mean_tokens_out, Some(7.0));
}

#[tokio::test]
async fn the_api_sends_a_saved_workload_and_refuses_one_that_does_not_fit_rounds() {
    let (a, b) = (
        sim::spawn_local(SimConfig::fixed_ms(1, 0, 50)).await.unwrap(),
        sim::spawn_local(SimConfig::fixed_ms(1, 0, 50)).await.unwrap(),
    );
    let app = common::spawn_app().await;
    let (_, cookie) = app.session_for(latency_guard::store::LOCAL_OWNER).await;
    let connector = |name: &str, base: String| json!({"input": {"name": name, "baseUrl": base, "model": "sim-model"}});
    let mut ids = vec![];
    for (name, base) in [("a", a.base_url()), ("b", b.base_url())] {
        let (status, text) = app.call("connectors/create", connector(name, base), Some(&cookie)).await;
        assert_eq!(status, 200, "{text}");
        ids.push(serde_json::from_str::<Value>(&text).unwrap()["id"].clone());
    }
    let spec = json!({"kind": "sharedPrefix", "groups": 1, "prefixTokens": 64, "requests": 4, "seed": 2,
                      "suffix": {"kind": "fixed", "tokens": 8}, "output": {"kind": "fixed", "tokens": 3}});
    let (_, saved) = app
        .call("workloads/save", json!({"id": null, "input": {"name": "one prefix", "spec": spec}}), Some(&cookie))
        .await;
    let saved: Value = serde_json::from_str(&saved).unwrap();
    let start =
        |plan: Value| json!({"input": {"baselineConnectorId": ids[0], "candidateConnectorId": ids[1], "plan": plan}});
    let (status, text) = app
        .call(
            "speclab/ab/start",
            start(json!({"prompts": [], "iterations": 1, "warmup": 0, "workloadId": saved["id"]})),
            Some(&cookie),
        )
        .await;
    assert_eq!(status, 200, "{text}");
    let id = serde_json::from_str::<Value>(&text).unwrap()["id"].as_str().unwrap().to_string();
    let view = serde_json::to_value(app.until_ab_test_ended(&cookie, id.parse().unwrap()).await).unwrap();
    assert_eq!(view["summary"]["status"], "completed", "{view}");
    let report = &view["report"];
    assert_eq!(report["plan"]["workload"], spec, "the report keeps the workload as it was sent");
    let cell = &report["cells"][0];
    assert_eq!(
        (cell["baseline"]["measured"].as_u64(), cell["candidate"]["meanTokensOut"].as_f64()),
        (Some(4), Some(3.0))
    );
    assert!(report["notes"][0].as_str().unwrap().contains("shared prefix: 1 group(s) of a 64-token prefix"));

    let multi = json!({"kind": "multiTurn", "users": 2, "turns": 2, "first": {"kind": "fixed", "tokens": 8},
                       "followUp": {"kind": "fixed", "tokens": 4}, "output": {"kind": "fixed", "tokens": 2}});
    let (status, reply) = app
        .call("speclab/ab/start", start(json!({"prompts": [], "iterations": 1, "workload": multi})), Some(&cookie))
        .await;
    assert!(status == 400 && reply.contains("workload.kind"), "{reply}");
    let (status, reply) = app
        .call("speclab/ab/start", start(json!({"prompts": ["x"], "iterations": 1, "workload": spec})), Some(&cookie))
        .await;
    assert!(status == 400 && reply.contains("prompts"), "{reply}");
    let file = json!({"kind": "dataset", "requests": 1, "file": {"path": "/etc/hostname", "format": "csv", "rows": 5}});
    let (status, reply) = app
        .call(
            "speclab/ab/start",
            start(json!({"prompts": [], "iterations": 1, "warmup": 0, "workload": file})),
            Some(&cookie),
        )
        .await;
    assert!(status == 400 && reply.contains("a server reads no file a request names"), "{reply}");
}

#[tokio::test]
async fn the_command_line_sends_exact_lengths_to_both_arms_and_refuses_a_trace() {
    let (a, b) = (
        sim::spawn_local(SimConfig::fixed_ms(1, 0, 50)).await.unwrap(),
        sim::spawn_local(SimConfig::fixed_ms(1, 0, 50)).await.unwrap(),
    );
    let (base_a, base_b) = (a.base_url(), b.base_url());
    let arms = ["spec-lab", "ab", "--baseline-url", &base_a, "--candidate-url", &base_b, "--model", "m", "--no-probe"];
    let lengths = ["--input-tokens", "30", "--output-tokens", "4", "-n", "3", "--warmup", "0", "--json"];
    let (code, stdout, stderr) = common::cli(&[&arms[..], &lengths[..]].concat(), &[]).await;
    assert!(code == 0 || code == 1, "{stderr}");
    let report: Value = serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout} {stderr}"));
    assert_eq!(report["plan"]["workload"]["kind"], "synthetic");
    let cell = &report["cells"][0];
    assert_eq!(
        (cell["baseline"]["measured"].as_u64(), cell["candidate"]["meanTokensOut"].as_f64()),
        (Some(3), Some(4.0))
    );
    assert!(
        report["notes"][0].as_str().unwrap().contains("input 30 tokens, output 4 tokens, 3 requests"),
        "{}",
        report["notes"][0]
    );

    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("t.jsonl");
    std::fs::write(&trace, "{\"timestamp\": 0, \"input_length\": 10, \"output_length\": 2, \"hash_ids\": [1]}\n")
        .unwrap();
    let (code, _, stderr) = common::cli(&[&arms[..], &["--trace", trace.to_str().unwrap()]].concat(), &[]).await;
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("workload.kind"), "{stderr}");
}

/// Against the real llama.cpp server (a plain one and one drafting for itself): prompts made through the baseline's
/// `/tokenize` arrive at both arms with the same count — the asked length and the chat template's 51 tokens
/// (measured in `llama_server.rs`) — and the answers reach their asked length.
#[tokio::test]
async fn a_workload_reaches_both_real_llama_servers_at_its_asked_lengths() {
    let (Some(plain), Some(drafting)) =
        (crate::common::llama::llama_server(false).await, crate::common::llama::llama_server(true).await)
    else {
        return;
    };
    let workload =
        Workload::Synthetic { input: LengthDist::fixed(64), output: LengthDist::fixed(8), requests: 3, seed: 4 };
    let input: AbPlanInput = serde_json::from_value(json!({
        "prompts": [], "iterations": 1, "warmup": 0, "workload": workload,
    }))
    .unwrap();
    let plan = input.validate().unwrap();
    let arm =
        |base: &str| AbArm { target: common::any_target(base, None, &[]), model: "tiny".into(), server_kind: None };
    let (client, arms) = (HttpClient::new().unwrap(), [arm(&plain.base_url), arm(&drafting.base_url)]);
    let how = AbWorkload::of(&client, &plan, &arms, None, None).await.unwrap().unwrap();
    assert!(matches!(how.tokenizer(), Some(latency_guard::model::PromptTokenizer::Server { .. })), "its /tokenize");
    let cells = run_ab(&client, &plan, &arms, Some(&how), &CancellationToken::new(), &mut |_| {}).await;
    for (i, arm) in cells[0].arms.iter().enumerate() {
        let counted: Vec<(Option<u32>, Option<u64>, Option<u64>)> = arm
            .requests
            .iter()
            .map(|t| (t.record.made_input_tokens, t.record.tokens_in, t.record.tokens_out))
            .collect();
        assert_eq!(counted, vec![(Some(64), Some(64 + 51), Some(8)); 3], "arm {i}");
    }
}
