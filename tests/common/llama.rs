//! A real llama.cpp server (`llama-server` as embedded in the PyPI wheel xllamacpp) on loopback, serving the tiny
//! model `tests/support/tiny_gguf.py` writes (nothing is downloaded).

use std::process::Stdio;
use tokio::io::{AsyncBufReadExt, BufReader};

/// The running server and its base URL; the server stops when the test drops it (its standard input closes).
pub struct LlamaServer {
    _child: tokio::process::Child,
    model_dir: tempfile::TempDir,
    pub base_url: String,
}

impl LlamaServer {
    /// The model's tokenizer for the `tokenizers` library, written beside it (`tiny_gguf.py`).
    pub fn tokenizer_json(&self) -> std::path::PathBuf {
        self.model_dir.path().join("tokenizer.json")
    }
}

/// Starts the server (with `draft`, decoding speculatively with the same tiny model as its draft). Without
/// xllamacpp (`scripts/setup.sh --test` installs it) the test fails, unless a developer lets it skip
/// ([`super::may_skip`]): then `None`.
pub async fn llama_server(draft: bool) -> Option<LlamaServer> {
    // Port 0: the script picks a free port, and another when that one was taken before the server bound it.
    llama_server_at(0, draft).await
}

/// [`llama_server`] on a given port (a test that restarts a server starts the new one where the old one was).
pub async fn llama_server_at(port: u16, draft: bool) -> Option<LlamaServer> {
    let installed = std::process::Command::new(super::python())
        .args(["-c", "import xllamacpp, gguf, numpy"])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !installed {
        let missing = format!("{} cannot import xllamacpp, gguf and numpy", super::python());
        assert!(super::may_skip(&missing), "{missing} (scripts/setup.sh --test installs them)");
        return None;
    }
    let model_dir = tempfile::tempdir().unwrap();
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/support/llama_server.py");
    let mut child = tokio::process::Command::new(super::python())
        .args([script, &port.to_string(), model_dir.path().to_str().unwrap()])
        .args(draft.then_some("--draft"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let ready = tokio::time::timeout(std::time::Duration::from_secs(60), lines.next_line()).await.unwrap().unwrap();
    let base_url = ready.as_deref().and_then(|l| l.strip_prefix("READY ")).expect("llama-server did not start");
    Some(LlamaServer { _child: child, model_dir, base_url: base_url.to_string() })
}
