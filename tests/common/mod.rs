//! Shared test helpers: databases on both backends, a running app on port 0, sessions, a loopback simulator.

#![allow(dead_code, reason = "each test binary uses a different subset of these helpers")]

pub mod client;
pub mod echoes;
pub mod endpoint;
pub mod guard_rig;
pub mod llama;
pub mod outage;
pub mod smtp;
pub mod wallet;

use latency_guard::config::{Secret, Settings};
use latency_guard::model::WorkspaceId;
use latency_guard::outbound::{Lookup, SystemLookup};
use latency_guard::secrets::RandomToken;
use latency_guard::server::{Application, Surroundings};
use latency_guard::state::AppState;
use latency_guard::store::Store;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

/// A fresh, empty database of one backend, dropped (PostgreSQL) or deleted (SQLite) by `cleanup`.
pub struct TestDb {
    pub url: String,
    pub store: Store,
    admin_url: Option<String>,
    name: String,
    _dir: Option<tempfile::TempDir>,
}

impl TestDb {
    /// A migrated SQLite file in a temporary folder.
    pub async fn sqlite() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let url = latency_guard::config::sqlite_url(&dir.path().join("test.db"));
        let store = Store::connect(&url).await.unwrap();
        Self { url, store, admin_url: None, name: String::new(), _dir: Some(dir) }
    }

    /// A migrated, brand-new PostgreSQL database. An unreachable server fails the test, unless a developer lets
    /// it skip ([`may_skip`]): then `None`.
    pub async fn postgres() -> Option<Self> {
        let admin_url = std::env::var("TEST_POSTGRES_URL")
            .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/test".to_string());
        sqlx::any::install_default_drivers();
        let admin = match sqlx::AnyPool::connect(&admin_url).await {
            Ok(pool) => pool,
            Err(e) if may_skip(&format!("PostgreSQL at {admin_url} is unreachable ({e})")) => return None,
            Err(e) => panic!(
                "PostgreSQL at {admin_url} is unreachable: {e} (scripts/setup.sh --test installs and starts one; \
                 LG_SKIP_MISSING=1 skips the tests that need it, outside CI)"
            ),
        };
        let name = format!("lg_test_{}", uuid::Uuid::new_v4().simple());
        sqlx::query(&format!("CREATE DATABASE {name}")).execute(&admin).await.unwrap();
        admin.close().await;
        let (base, _) = admin_url.rsplit_once('/').unwrap();
        let url = format!("{base}/{name}");
        let store = Store::connect(&url).await.unwrap();
        Some(Self { url, store, admin_url: Some(admin_url), name, _dir: None })
    }

    /// Closes the pool and drops the PostgreSQL database.
    pub async fn cleanup(self) {
        self.store.close().await;
        if let Some(admin_url) = self.admin_url {
            if let Ok(admin) = sqlx::AnyPool::connect(&admin_url).await {
                let _ =
                    sqlx::query(&format!("DROP DATABASE IF EXISTS {} WITH (FORCE)", self.name)).execute(&admin).await;
                admin.close().await;
            }
        }
    }
}

/// Runs a store story on SQLite and on PostgreSQL: `both_backends!(story_fn_a, story_fn_b)` makes the tests
/// `sqlite::story_fn_a`, `postgres::story_fn_a`, ...
#[macro_export]
macro_rules! both_backends {
    ($($story:ident),* $(,)?) => {
        mod sqlite {
            $(
                #[tokio::test]
                async fn $story() {
                    let db = $crate::common::TestDb::sqlite().await;
                    super::$story(&db).await;
                    db.cleanup().await;
                }
            )*
        }
        mod postgres {
            $(
                #[tokio::test]
                async fn $story() {
                    let Some(db) = $crate::common::TestDb::postgres().await else { return };
                    super::$story(&db).await;
                    db.cleanup().await;
                }
            )*
        }
    };
}

/// Runs `story` against an app on SQLite, then one on PostgreSQL (skipped only where PostgreSQL is not required).
pub async fn on_both<F, Fut>(story: F)
where
    F: Fn(TestApp) -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    let sqlite = TestDb::sqlite().await;
    story(spawn_app_on(&sqlite.url, |_| {}).await).await;
    sqlite.cleanup().await;
    if let Some(pg) = TestDb::postgres().await {
        story(spawn_app_on(&pg.url, |_| {}).await).await;
        pg.cleanup().await;
    }
}

/// Settings for an app on port 0 with its data in `dir`.
pub fn test_settings(dir: &std::path::Path, database_url: &str, demo_simulator: bool) -> Settings {
    let mut settings = Settings::defaults(PathBuf::from(dir));
    settings.database_url = database_url.to_string();
    settings.site_addr = SocketAddr::from(([127, 0, 0, 1], 0));
    settings.secret = Some(Secret::generate());
    settings.demo_simulator = demo_simulator;
    settings.connection_test_timeout = std::time::Duration::from_secs(5);
    // Tests tick Guard themselves (the hook, Run now, or `Guard::tick`), never on a timer.
    settings.guard_tick_interval = None;
    // The tests' endpoints are loopback servers, called from workspaces of every kind of owner: allowed here as
    // an operator would allow a private network. The address policy's own tests (tests/lab/outbound.rs) start from
    // the default, which allows nothing.
    settings.connector_allow =
        latency_guard::outbound::AllowRules::parse(latency_guard::config::CONNECTOR_ALLOW, "127.0.0.0/8, ::1").unwrap();
    settings
}

/// A running app (real HTTP on loopback) and its state.
pub struct TestApp {
    pub base: String,
    pub state: AppState,
    pub first_login_link: Option<String>,
    _dir: tempfile::TempDir,
}

/// Builds and serves an app on a fresh SQLite file, without the demo simulator.
pub async fn spawn_app() -> TestApp {
    spawn_on_fresh_sqlite(false).await
}

/// The same with the demo simulator and its "Demo (simulated)" connector, as a first start makes them.
pub async fn spawn_app_with_demo() -> TestApp {
    spawn_on_fresh_sqlite(true).await
}

async fn spawn_on_fresh_sqlite(demo_simulator: bool) -> TestApp {
    let dir = tempfile::tempdir().unwrap();
    let url = latency_guard::config::sqlite_url(&dir.path().join("app.db"));
    serve(dir, &url, demo_simulator, Arc::new(SystemLookup), |_| {}).await
}

/// Builds and serves an app (no demo simulator) on the database at `database_url`, e.g. one of several
/// replicas on one PostgreSQL database; `configure` adjusts its settings.
pub async fn spawn_app_on(database_url: &str, configure: impl FnOnce(&mut Settings)) -> TestApp {
    serve(tempfile::tempdir().unwrap(), database_url, false, Arc::new(SystemLookup), configure).await
}

/// An app on a fresh SQLite file, with the demo simulator when asked, that resolves host names with `lookup`;
/// `configure` adjusts its settings.
pub async fn spawn_app_resolving(
    demo_simulator: bool,
    lookup: Arc<dyn Lookup>,
    configure: impl FnOnce(&mut Settings),
) -> TestApp {
    let dir = tempfile::tempdir().unwrap();
    let url = latency_guard::config::sqlite_url(&dir.path().join("app.db"));
    serve(dir, &url, demo_simulator, lookup, configure).await
}

async fn serve(
    dir: tempfile::TempDir,
    url: &str,
    demo_simulator: bool,
    lookup: Arc<dyn Lookup>,
    configure: impl FnOnce(&mut Settings),
) -> TestApp {
    let mut settings = test_settings(dir.path(), url, demo_simulator);
    configure(&mut settings);
    let clock = Arc::new(latency_guard::clock::SystemClock);
    let app = Application::build_in(settings, Surroundings { clock, lookup }).await.unwrap();
    let base = format!("http://127.0.0.1:{}", app.port());
    let state = app.state().clone();
    let first_login_link = app.first_login_link().map(str::to_string);
    tokio::spawn(app.run_until_stopped());
    TestApp { base, state, first_login_link, _dir: dir }
}

impl TestApp {
    /// A session cookie for a workspace of `owner` (created when new), made as the login handler makes them.
    pub async fn session_for(&self, owner: &str) -> (WorkspaceId, String) {
        let now = self.state.clock.now_ms();
        let (ws, _) = self.state.store.ensure_workspace(owner, owner, now).await.unwrap();
        let token = RandomToken::generate();
        self.state
            .store
            .insert_session(ws.id, &self.state.tokens.hash(token.as_str()), now, now + 3_600_000)
            .await
            .unwrap();
        (ws.id, format!("lg_session={}", token.as_str()))
    }

    /// `POST /api/<path>` with a JSON body and an optional cookie.
    pub async fn call(&self, path: &str, body: serde_json::Value, cookie: Option<&str>) -> (u16, String) {
        let mut request = client().post(format!("{}/api/{path}", self.base)).json(&body);
        if let Some(cookie) = cookie {
            request = request.header("cookie", cookie);
        }
        let response = request.send().await.unwrap();
        (response.status().as_u16(), response.text().await.unwrap())
    }

    /// `POST /api/datasets/upload?name=<name>` with the file `bytes` as the body, as a browser uploads one.
    pub async fn upload(&self, name: &str, bytes: Vec<u8>, cookie: &str) -> (u16, String) {
        let response = client()
            .post(format!("{}/api/datasets/upload", self.base))
            .query(&[("name", name)])
            .header("cookie", cookie)
            .body(bytes)
            .send()
            .await
            .unwrap();
        (response.status().as_u16(), response.text().await.unwrap())
    }

    /// `GET path` with an optional cookie; returns status, the `Location` header and the body.
    pub async fn get(&self, path: &str, cookie: Option<&str>) -> (u16, Option<String>, String) {
        let mut request = client().get(format!("{}{path}", self.base));
        if let Some(cookie) = cookie {
            request = request.header("cookie", cookie);
        }
        let response = request.send().await.unwrap();
        let location = response.headers().get("location").map(|v| v.to_str().unwrap().to_string());
        (response.status().as_u16(), location, response.text().await.unwrap())
    }
}

/// Whether a test whose tool (PostgreSQL, the llama.cpp server, a Python package) is missing may skip instead of
/// failing: only when a developer asks (`LG_SKIP_MISSING=1`) and never in CI (`CI=true`). A skip is said on stderr
/// and written to `target/tmp/skipped-tests`, which `scripts/test.sh` fails on, so no skip passes unseen.
pub fn may_skip(what: &str) -> bool {
    let asked = std::env::var("LG_SKIP_MISSING").is_ok_and(|v| v == "1");
    let ci = std::env::var("CI").is_ok_and(|v| v == "true");
    if !asked || ci {
        return false;
    }
    eprintln!("SKIPPED: {what}");
    let log = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("skipped-tests");
    let line = format!("{}: {what}\n", std::thread::current().name().unwrap_or("a test"));
    let _ = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(log)
        .and_then(|mut f| std::io::Write::write_all(&mut f, line.as_bytes()));
    true
}

/// The Python that runs the tests' loopback servers (aiosmtpd, llama.cpp): `LG_PYTHON` (the set-up's virtual
/// environment, which `scripts/test.sh` names), else `python3` on PATH.
pub fn python() -> String {
    std::env::var("LG_PYTHON").ok().filter(|p| !p.is_empty()).unwrap_or_else(|| "python3".to_string())
}

/// A client that does not follow redirects (tests look at them).
pub fn client() -> reqwest::Client {
    reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().unwrap()
}

/// Reads `/api/runs/{id}/events` until its `end` or until `count` events came, returning (event name, JSON data)
/// pairs; panics when neither happens within 30 s.
pub async fn follow_events(app: &TestApp, cookie: &str, run: &str, count: usize) -> Vec<(String, serde_json::Value)> {
    follow_event_stream(app, cookie, &format!("/api/runs/{run}/events"), count).await
}

/// The same for the event stream at `path` (with its query, if any).
pub async fn follow_event_stream(
    app: &TestApp,
    cookie: &str,
    path: &str,
    count: usize,
) -> Vec<(String, serde_json::Value)> {
    use futures::StreamExt;
    let response = client()
        .get(format!("{}{path}", app.base))
        .header("cookie", cookie)
        .header("accept-encoding", "zstd, gzip")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["content-type"], "text/event-stream");
    assert!(response.headers().get("content-encoding").is_none(), "live events are never compressed (buffered)");
    let mut stream = response.bytes_stream();
    let mut decoder = latency_guard::engine::sse::SseDecoder::new();
    let (mut events, mut out) = (Vec::new(), Vec::new());
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(30);
    while let Ok(Some(chunk)) = tokio::time::timeout_at(deadline, stream.next()).await {
        decoder.push(&chunk.unwrap(), &mut events).unwrap();
        for e in events.drain(..) {
            let name = e.event.unwrap_or_default();
            let done = name == "end";
            out.push((name, serde_json::from_str(&e.data).unwrap()));
            if done || out.len() == count {
                return out;
            }
        }
    }
    panic!("neither `end` nor {count} events within 30 s: {out:?}");
}

/// What the committed report schema (`docs/report-snapshot.schema.json`) says is wrong with `value`.
pub fn report_schema_errors(value: &serde_json::Value) -> Vec<String> {
    let schema: serde_json::Value =
        serde_json::from_str(include_str!("../../docs/report-snapshot.schema.json")).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    validator.iter_errors(value).map(|e| format!("{} at {}", e, e.instance_path())).collect()
}

/// Fails with every schema error of `value`.
pub fn assert_report_schema(value: &serde_json::Value) {
    let errors = report_schema_errors(value);
    assert!(errors.is_empty(), "not a valid report snapshot: {errors:#?}");
}

/// Runs `bench` with `args` and `--out`: its exit code, the report written (null when none was) and what it printed.
pub async fn bench_report(args: &[&str]) -> (i32, serde_json::Value, String) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("report.json");
    // A busy test machine may make a run's figures invalid (a late event loop); tests of other things pass on it.
    let args = [&["bench", "--allow-invalid"], args, &["--out", out.to_str().unwrap()]].concat();
    let (code, stdout, stderr) = cli(&args, &[]).await;
    let report = serde_json::from_str(&std::fs::read_to_string(&out).unwrap_or_default()).unwrap_or_default();
    (code, report, format!("{stdout}\n{stderr}"))
}

/// Runs the `latency-guard` binary with `args` and extra `env`; returns exit code, stdout and stderr.
pub async fn cli(args: &[&str], env: &[(&str, &str)]) -> (i32, String, String) {
    let output = tokio::process::Command::new(env!("CARGO_BIN_EXE_latency-guard"))
        .args(args)
        .envs(env.iter().copied())
        .output()
        .await
        .unwrap();
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (output.status.code().unwrap_or(-1), text(&output.stdout), text(&output.stderr))
}

/// A sent prompt's mark (`[k3x9q2-0000017]`: its run's six letters and digits, then its request's number; see
/// `model::workload::heads`) and the prompt after it; fails when the prompt has no mark.
pub fn unmarked(prompt: &str) -> (&str, &str) {
    let marked = prompt.strip_prefix('[').and_then(|rest| rest.split_once("] "));
    let (mark, after) = marked.unwrap_or_else(|| panic!("no mark starts the prompt {prompt:?}"));
    assert!(mark.len() >= 6 && mark.chars().all(|c| c.is_ascii_alphanumeric() || c == '-'), "{prompt:?}");
    (mark, after)
}

/// Whether the key at `pointer` (`/snapshot/stats/total`) in a reply is `null`; fails when the reply has no such
/// key, so a renamed or dropped field fails the test instead of reading as an absent value.
pub fn null_at(reply: &serde_json::Value, pointer: &str) -> bool {
    match reply.pointer(pointer) {
        Some(value) => value.is_null(),
        None => panic!("the reply has no {pointer}: {reply}"),
    }
}

/// A target at `base` that may reach any address (loopback included, as the command line's may), sending `key`
/// and `headers`.
pub fn any_target(base: &str, key: Option<&str>, headers: &[(&str, &str)]) -> latency_guard::engine::RequestTarget {
    latency_guard::engine::RequestTarget {
        base_url: latency_guard::model::BaseUrl::parse(base).unwrap(),
        api_key: key.map(str::to_string),
        headers: headers.iter().map(|(name, value)| (name.to_string(), value.to_string())).collect(),
        reach: latency_guard::outbound::Reach::Anywhere,
    }
}

/// POSTs `body` as JSON to `url` and reads the answer as JSON (any status).
pub async fn post_json(client: &reqwest::Client, url: &str, body: &serde_json::Value) -> serde_json::Value {
    client.post(url).json(body).send().await.unwrap().json().await.unwrap()
}

/// One user message to `model`, at temperature 0, streamed (usage asked for) or not.
pub fn chat_request(model: &str, content: &str, max_tokens: u32, stream: bool) -> latency_guard::engine::ChatRequest {
    use latency_guard::engine::{ChatMessage, ChatRequest, StreamOptions};
    ChatRequest {
        model: model.into(),
        messages: vec![ChatMessage { role: "user", content: content.into() }],
        tools: vec![],
        max_tokens,
        temperature: 0.0,
        stream,
        stream_options: stream.then_some(StreamOptions { include_usage: true }),
        ignore_eos: false,
        keep_answer: false,
    }
}
