//! Datasets uploaded in the browser: checked row by row before anything is stored (a bad row named by its number,
//! a file over the limit, a name that is no dataset format, text that is not UTF-8 or holds NUL), listed with their
//! rows and length histograms, named by a saved workload whose run sends their rows in order, kept per workspace,
//! and deleted. On both databases.

use crate::common::{self, TestApp};
use latency_guard::sim::{self, SimConfig};
use serde_json::{json, Value};

async fn listed(app: &TestApp, cookie: &str) -> Vec<Value> {
    let (status, text) = app.call("datasets/list", json!({}), Some(cookie)).await;
    assert_eq!(status, 200, "{text}");
    serde_json::from_str::<Value>(&text).unwrap().as_array().unwrap().clone()
}

/// Five chat prompts, the third asking a 3-token answer.
fn chats() -> String {
    (1..=5)
        .map(|i| match i {
            3 => format!("{{\"prompt\": \"question {i}\", \"output_tokens\": 3}}"),
            _ => format!("{{\"messages\": [{{\"role\": \"user\", \"content\": \"question {i}\"}}]}}"),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// An upload over a raw connection announcing 100,000 bytes and sending only `first`: the open connection.
async fn short_upload(app: &TestApp, cookie: &str, first: &str) -> tokio::net::TcpStream {
    use tokio::io::AsyncWriteExt;
    let address = app.base.trim_start_matches("http://");
    let mut stream = tokio::net::TcpStream::connect(address).await.unwrap();
    let head = format!(
        "POST /api/datasets/upload?name=d.jsonl HTTP/1.1\r\nhost: {address}\r\ncookie: {cookie}\r\n\
         content-length: 100000\r\nconnection: close\r\n\r\n{first}"
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    stream
}

/// An upload whose body stops short of its `Content-Length` and whose connection is then half-closed; the server's
/// whole reply.
async fn broken_upload(app: &TestApp, cookie: &str) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut stream = short_upload(app, cookie, "{\"prompt\": \"cut sho").await;
    stream.shutdown().await.unwrap();
    let mut reply = String::new();
    stream.read_to_string(&mut reply).await.unwrap();
    reply
}

#[tokio::test]
async fn a_bad_upload_is_refused_with_what_is_wrong_and_nothing_is_stored() {
    common::on_both(|app| async move {
        let (_, cookie) = app.session_for("owner").await;
        let cases: [(&str, Vec<u8>, u16, &str); 6] = [
            ("d.jsonl", b"{\"prompt\": \"a\"}\n{\"prompt\": \"b\"}\n{\"prompts\": 1}\n".to_vec(), 400, "row 3: "),
            ("d.csv", b"question,answer\nhi,there\n".to_vec(), 400, "prompt"),
            ("d.txt", b"{\"prompt\": \"a\"}".to_vec(), 400, "must end in .jsonl"),
            ("d.jsonl", b"{\"prompt\": \"a\xff\"}".to_vec(), 400, "not UTF-8 text"),
            ("d.json", b"[]".to_vec(), 400, "holds no rows"),
            (
                "d.jsonl",
                vec![b'\n'; latency_guard::workload::model::MAX_DATASET_BYTES + 1],
                413,
                "larger than the limit",
            ),
        ];
        for (name, bytes, status, says) in cases {
            let (got, reply) = app.upload(name, bytes, &cookie).await;
            assert_eq!(got, status, "{name}: {reply}");
            let error = serde_json::from_str::<Value>(&reply).unwrap()["error"].as_str().unwrap().to_string();
            assert!(error.contains(says), "{name}: {error}");
        }
        // Without a name, the reply says to give one, in the same JSON as every refusal.
        let unnamed = common::client()
            .post(format!("{}/api/datasets/upload", app.base))
            .header("cookie", &cookie)
            .body(chats())
            .send()
            .await
            .unwrap();
        assert_eq!(unnamed.status().as_u16(), 400);
        let error = unnamed.json::<Value>().await.unwrap()["error"].as_str().unwrap().to_string();
        assert!(error.contains("?name=FILE.jsonl"), "{error}");
        // A body that breaks off (the client says 1,000 bytes, sends 20 and stops writing) is said to have.
        let broken = broken_upload(&app, &cookie).await;
        assert!(broken.starts_with("HTTP/1.1 400"), "{broken}");
        assert!(broken.contains("the upload broke off"), "{broken}");
        assert!(listed(&app, &cookie).await.is_empty(), "a refused upload stores nothing");
        let (status, _) = app.upload("d.jsonl", chats().into_bytes(), "lg_session=nobody").await;
        assert_eq!(status, 401, "an upload needs a session");
    })
    .await;
}

#[tokio::test]
async fn an_uploaded_dataset_is_listed_run_by_a_saved_workload_and_kept_per_workspace() {
    common::on_both(|app| async move {
        let sim = sim::spawn_local(SimConfig::fixed_ms(1, 0, 4)).await.unwrap();
        let (_, cookie) = app.session_for("owner").await;
        let (status, uploaded) = app.upload("chats.jsonl", chats().into_bytes(), &cookie).await;
        assert_eq!(status, 200, "{uploaded}");
        let dataset: Value = serde_json::from_str(&uploaded).unwrap();
        assert_eq!(
            (dataset["name"].as_str(), dataset["format"].as_str(), dataset["rows"].as_u64()),
            (Some("chats.jsonl"), Some("jsonl"), Some(5))
        );
        // o200k_base: "question 1" is 3 tokens; one row asks 3.
        assert_eq!((&dataset["promptTokens"], &dataset["outputTokens"]), (&json!([[3, 5]]), &json!([[3, 1]])));
        let list = listed(&app, &cookie).await;
        assert_eq!(list.len(), 1);
        assert_eq!(list[0]["choice"]["rows"], 5);
        assert!(list[0]["summary"].as_str().unwrap().starts_with("5 rows, "), "{}", list[0]["summary"]);
        assert!(
            list[0]["lengths"].as_str().unwrap().contains("prompt, estimated: 5 request(s)"),
            "{}",
            list[0]["lengths"]
        );

        let created = json!({"input": {"name": "sim", "baseUrl": sim.base_url(), "model": "sim-model"}});
        let (_, connector) = app.call("connectors/create", created, Some(&cookie)).await;
        let connector = serde_json::from_str::<Value>(&connector).unwrap()["id"].clone();
        // What the request says of the file is replaced by the server's record of it.
        let spec = json!({"kind": "dataset", "requests": 4, "seed": 0, "output": {"kind": "fixed", "tokens": 2},
                          "file": {"path": "/etc/passwd", "format": "csv", "rows": 999, "uploaded": dataset["id"]}});
        let (status, saved) = app
            .call("workloads/save", json!({"id": null, "input": {"name": "chats", "spec": spec}}), Some(&cookie))
            .await;
        assert_eq!(status, 200, "{saved}");
        let saved: Value = serde_json::from_str(&saved).unwrap();
        assert_eq!(
            saved["spec"]["file"],
            json!({"path": "chats.jsonl", "format": "jsonl", "rows": 5, "uploaded": dataset["id"]})
        );
        let plan = json!({"input": {"connectorId": connector, "agent": {"name": "bot", "tokenBudget": 8}, "prompts": [],
                                    "iterations": 1, "warmup": 1, "workloadId": saved["id"],
                                    "mode": {"kind": "closed", "concurrency": 1}}});
        let (status, run) = app.call("runs/start", plan.clone(), Some(&cookie)).await;
        assert_eq!(status, 200, "{run}");
        let run = serde_json::from_str::<Value>(&run).unwrap()["id"].as_str().unwrap().to_string();
        common::follow_events(&app, &cookie, &run, usize::MAX).await;
        let (_, report) = app.call("runs/report", json!({"id": run}), Some(&cookie)).await;
        let snapshot = serde_json::from_str::<Value>(&report).unwrap()["snapshot"].clone();
        let results = snapshot["results"].as_array().unwrap_or_else(|| panic!("{report}"));
        // The warm-up sends the first row; the four measured requests the rows after it, in the file's order, each
        // after a mark of the run and the request ("[k3x9q2-0000004] question 5").
        let (marks, sent): (Vec<&str>, Vec<(&str, bool, u64)>) = results
            .iter()
            .map(|r| {
                let (mark, prompt) = r["prompt"].as_str().unwrap().split_once("] ").unwrap_or_else(|| panic!("{r}"));
                (mark, (prompt, r["warmup"].as_bool().unwrap(), r["tokensOut"].as_u64().unwrap()))
            })
            .unzip();
        let runs: std::collections::BTreeSet<&str> = marks.iter().map(|m| &m[1..7]).collect();
        let requests: std::collections::BTreeSet<&str> = marks.iter().map(|m| &m[8..]).collect();
        assert_eq!((runs.len(), requests.len()), (1, 5), "one run's mark, a number per request: {marks:?}");
        assert_eq!(
            sent,
            [
                ("question 1", true, 2),
                ("question 2", false, 2),
                ("question 3", false, 3),
                ("question 4", false, 2),
                ("question 5", false, 2)
            ],
            "the third row asks its own answer length"
        );
        assert_eq!(snapshot["workload"]["spec"]["file"]["path"], "chats.jsonl");

        // The workloads page offers the saved workload to its form, every box filled; the form's text, changed and
        // sent back, replaces it; a box typed wrong is refused by its name and changes nothing.
        let shelf = app.json(&cookie, "workloads/page", json!({})).await;
        assert_eq!(shelf["datasets"][0]["choice"]["name"], "chats.jsonl");
        let mut fields = shelf["workloads"][0]["fields"].clone();
        assert_eq!(
            (&fields["name"], &fields["kind"], &fields["requests"], &fields["output"]["tokens"]),
            (&json!("chats"), &json!("dataset"), &json!("4"), &json!("2")),
            "{fields}"
        );
        assert_eq!(fields["dataset"]["id"], dataset["id"]);
        let edit = |fields: &Value| json!({"id": saved["id"], "fields": fields});
        fields["requests"] = json!("3");
        let (status, reply) = app.call("workloads/save-form", edit(&fields), Some(&cookie)).await;
        assert_eq!((status, reply.as_str()), (200, saved["id"].to_string().as_str()));
        fields["output"] =
            json!({"kind": "uniform", "tokens": "2", "min": "two", "max": "4", "center": "2", "spread": "1"});
        let (status, reply) = app.call("workloads/save-form", edit(&fields), Some(&cookie)).await;
        assert_eq!(status, 400, "{reply}");
        assert!(reply.contains("workload.output.min") && reply.contains(r#"\"two\" is not a valid number"#), "{reply}");
        let kept = app.json(&cookie, "workloads/list", json!({})).await;
        assert_eq!(kept.as_array().unwrap().len(), 1, "replaced, not added: {kept}");
        assert_eq!(
            (&kept[0]["spec"]["requests"], &kept[0]["spec"]["output"]),
            (&json!(3), &json!({"kind": "fixed", "tokens": 2}))
        );

        // Another workspace finds neither the dataset nor a workload naming it.
        let (_, other) = app.session_for("someone else").await;
        assert!(listed(&app, &other).await.is_empty());
        let (status, reply) = app
            .call("workloads/save", json!({"id": null, "input": {"name": "theirs", "spec": spec}}), Some(&other))
            .await;
        assert_eq!(status, 404, "{reply}");
        let (status, _) = app.call("datasets/delete", json!({"id": dataset["id"]}), Some(&other)).await;
        assert_eq!(status, 404);

        let (status, _) = app.call("datasets/delete", json!({"id": dataset["id"]}), Some(&cookie)).await;
        assert_eq!(status, 200);
        assert!(listed(&app, &cookie).await.is_empty());
        let (status, reply) = app.call("runs/start", plan, Some(&cookie)).await;
        assert_eq!(status, 404, "a workload whose dataset was deleted cannot run: {reply}");
        let (_, report) = app.call("runs/report", json!({"id": run}), Some(&cookie)).await;
        assert_eq!(
            serde_json::from_str::<Value>(&report).unwrap()["snapshot"]["results"].as_array().unwrap().len(),
            5,
            "the report stays"
        );
    })
    .await;
}

/// Clients that start uploads and stop sending, in three workspaces (more than the uploads checked at once), hold
/// none of a fourth workspace's: its upload is stored at once. A stalled upload ends after the idle limit with 408
/// and the reason, and stores nothing.
#[tokio::test]
async fn stalled_uploads_hold_only_their_own_workspace() {
    common::on_both(|app| async move {
        let mut stalled = Vec::new();
        for name in ["stalls a", "stalls b", "stalls c"] {
            let (_, cookie) = app.session_for(name).await;
            for _ in 0..2 {
                stalled.push((short_upload(&app, &cookie, "{\"prompt\": \"on its w").await, cookie.clone()));
            }
        }
        let (_, cookie) = app.session_for("uploads").await;
        let started = std::time::Instant::now();
        let (status, reply) = app.upload("chats.jsonl", chats().into_bytes(), &cookie).await;
        assert_eq!(status, 200, "{reply}");
        let took = started.elapsed();
        assert!(took < std::time::Duration::from_secs(5), "it waited {took:?} behind stalled uploads");

        use tokio::io::AsyncReadExt;
        let (mut first, stalled_cookie) = stalled.remove(0);
        let mut reply = String::new();
        first.read_to_string(&mut reply).await.unwrap();
        let waited = started.elapsed();
        assert!(reply.starts_with("HTTP/1.1 408"), "{reply}");
        assert!(reply.contains("the upload stopped: no byte came for 15 s after 20 bytes"), "{reply}");
        assert!(waited >= std::time::Duration::from_secs(14), "ended after {waited:?}");
        assert!(listed(&app, &stalled_cookie).await.is_empty(), "a stalled upload stores nothing");
    })
    .await;
}

/// Twenty uploads at once into a workspace that keeps 42 datasets: eight are kept and twelve refused, naming the
/// limit; the workspace keeps exactly 50 (the count and the insert are one transaction).
#[tokio::test]
async fn twenty_uploads_at_once_at_42_kept_leave_exactly_50() {
    common::on_both(|app| async move {
        let (ws, cookie) = app.session_for("owner").await;
        let content = chats();
        for i in 0..42 {
            let dataset = latency_guard::workload::store::NewDataset {
                name: &format!("kept-{i}.jsonl"),
                format: latency_guard::model::DatasetFormat::Jsonl,
                rows: 5,
                skipped: 0,
                prompt_tokens: vec![(2, 5)],
                output_tokens: vec![],
                content: &content,
            };
            app.state.store.create_dataset(ws, dataset, 0).await.unwrap();
        }
        let app = std::sync::Arc::new(app);
        let uploads: Vec<_> = (0..20)
            .map(|i| {
                let (app, cookie) = (app.clone(), cookie.clone());
                tokio::spawn(
                    async move { app.upload(&format!("at-once-{i}.jsonl"), chats().into_bytes(), &cookie).await },
                )
            })
            .collect();
        let (mut kept, mut refused) = (0, 0);
        for upload in uploads {
            let (status, reply) = upload.await.unwrap();
            match status {
                200 => kept += 1,
                400 => {
                    assert!(reply.contains("a workspace keeps at most 50 datasets: delete one first"), "{reply}");
                    refused += 1;
                }
                other => panic!("{other}: {reply}"),
            }
        }
        assert_eq!((kept, refused), (8, 12));
        assert_eq!(listed(&app, &cookie).await.len(), 50);
    })
    .await;
}

/// A workspace whose uploads keep being refused waits: twenty refusals, then any upload gets 429 with
/// `Retry-After`, saying why, until the budget refills; another workspace uploads as before.
#[tokio::test]
async fn refused_uploads_count_against_a_workspace_budget() {
    common::on_both(|app| async move {
        let (_, cookie) = app.session_for("owner").await;
        for i in 0..20 {
            let (status, reply) = app.upload("d.jsonl", b"{\"prompts\": 1}".to_vec(), &cookie).await;
            assert_eq!(status, 400, "refusal {i}: {reply}");
        }
        let response = common::client()
            .post(format!("{}/api/datasets/upload?name=good.jsonl", app.base))
            .header("cookie", &cookie)
            .body(chats())
            .send()
            .await
            .unwrap();
        assert_eq!(response.status().as_u16(), 429);
        let wait: u64 = response.headers()["retry-after"].to_str().unwrap().parse().unwrap();
        assert!((1..=30).contains(&wait), "{wait}");
        let error = response.json::<Value>().await.unwrap()["error"].as_str().unwrap().to_string();
        assert!(error.contains("refused 20 times") && error.contains("wait"), "{error}");
        assert!(listed(&app, &cookie).await.is_empty());
        let (_, other) = app.session_for("someone else").await;
        let (status, reply) = app.upload("good.jsonl", chats().into_bytes(), &other).await;
        assert_eq!(status, 200, "another workspace's budget is its own: {reply}");
    })
    .await;
}
