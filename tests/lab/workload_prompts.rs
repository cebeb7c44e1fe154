//! Prompts of an exact number of tokens, made through a server's own `/tokenize`: the simulator's (llama.cpp's
//! form, with pieces), a server that speaks vLLM's form only (ids, then `/detokenize`), and one without any. The
//! real llama.cpp server's case is in `llama_server.rs`.

use axum::routing::post;
use axum::{Json, Router};
use latency_guard::engine::HttpClient;
use latency_guard::engine::{ServerTokenizer, TokenizeError, TokenizeForm};
use latency_guard::sim::{self, tokenizer, SimConfig};
use latency_guard::workload::service::{exact_prompt, Tokenizer};
use serde_json::{json, Value};

use crate::common;

async fn discover(base: &str) -> Result<ServerTokenizer, TokenizeError> {
    ServerTokenizer::discover(&HttpClient::new().unwrap(), &common::any_target(base, None, &[]), "sim-model").await
}

/// Every asked length is made exactly, the server then counts the prompt as asked plus its template's two
/// tokens, and two requests' prompts share no block of the prefix cache.
#[tokio::test]
async fn prompts_are_made_to_the_token_by_the_simulators_tokenize() {
    let sim = sim::spawn_local(SimConfig::fixed_ms(0, 0, 2)).await.unwrap();
    let tokenizer = discover(&sim.base_url()).await.unwrap();
    assert_eq!(tokenizer.form(), TokenizeForm::LlamaCpp);
    let client = reqwest::Client::new();
    for (asked, seed) in [(1, 1), (64, 2), (256, 3), (1_000, 4), (1_000, 5)] {
        let made = exact_prompt(&Tokenizer::Server(tokenizer.clone()), asked, seed).await.unwrap();
        assert_eq!((made.tokens, tokenizer::count(&made.text)), (asked as usize, asked as usize), "{asked} asked");
        let body = json!({"model": "m", "messages": [{"role": "user", "content": made.text}], "max_tokens": 1});
        let reply = common::post_json(&client, &format!("{}/chat/completions", sim.base_url()), &body).await;
        assert_eq!(reply["usage"]["prompt_tokens"], asked + 2, "the role and the answer's start: {reply}");
        assert_eq!(reply["usage"]["prompt_tokens_details"]["cached_tokens"], 0, "seed {seed} shares no block");
    }
    let again = exact_prompt(&Tokenizer::Server(tokenizer.clone()), 256, 3).await.unwrap();
    assert_eq!(
        again,
        exact_prompt(&Tokenizer::Server(tokenizer.clone()), 256, 3).await.unwrap(),
        "a seed makes the same prompt"
    );
    assert!(again.text.starts_with(char::is_uppercase) && again.text.contains(' '), "{}", again.text);
}

/// vLLM's form: ids only, so the cut is turned back into text by `/detokenize` (answered with `prompt`).
async fn vllm_shaped() -> String {
    let tokenize = |Json(body): Json<Value>| async move {
        let Some(prompt) = body["prompt"].as_str() else {
            return (axum::http::StatusCode::BAD_REQUEST, Json(json!({"detail": "prompt: field required"})));
        };
        let ids = tokenizer::tokenize(prompt);
        (axum::http::StatusCode::OK, Json(json!({"count": ids.len(), "max_model_len": 32768, "tokens": ids})))
    };
    let detokenize = |Json(body): Json<Value>| async move {
        let ids: Vec<u32> = serde_json::from_value(body["tokens"].clone()).unwrap();
        Json(json!({"prompt": tokenizer::detokenize(&ids).unwrap()}))
    };
    let app = Router::new().route("/tokenize", post(tokenize)).route("/detokenize", post(detokenize));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}/v1", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    base
}

#[tokio::test]
async fn a_server_of_ids_only_is_cut_through_its_detokenize() {
    let tokenizer = discover(&vllm_shaped().await).await.unwrap();
    assert_eq!(tokenizer.form(), TokenizeForm::Vllm);
    for asked in [10, 300] {
        let made = exact_prompt(&Tokenizer::Server(tokenizer.clone()), asked, 42).await.unwrap();
        assert_eq!((made.tokens, tokenizer::count(&made.text)), (asked as usize, asked as usize));
    }
}

#[tokio::test]
async fn a_server_without_tokenize_is_named_as_such() {
    let hostile =
        sim::spawn_hostile(sim::Hostile::parse("html-error").unwrap(), "127.0.0.1:0".parse().unwrap()).await.unwrap();
    let error = discover(&hostile.base_url()).await.err().unwrap();
    assert!(matches!(error, TokenizeError::NotFound(_)), "{error}");
    assert!(error.to_string().contains("no /tokenize that latency-guard speaks"), "{error}");
    let nobody = discover("http://127.0.0.1:9/v1").await.err().unwrap();
    assert!(matches!(nobody, TokenizeError::Unreachable { path: "tokenize", .. }), "{nobody}");
}

/// A server that echoes the key it was sent into its `/tokenize` answer: the error that names what was wrong with
/// the answer never carries the key.
#[tokio::test]
async fn a_tokenize_answer_echoing_the_key_never_shows_it() {
    const KEY: &str = "sk-canary-tokenize-7741";
    let echo = |headers: axum::http::HeaderMap| async move {
        let sent = headers["authorization"].to_str().unwrap().to_string();
        Json(json!({"tokens": sent}))
    };
    let app = Router::new().route("/tokenize", post(echo));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}/v1", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    let target = common::any_target(&base, Some(KEY), &[]);
    let error = ServerTokenizer::discover(&HttpClient::new().unwrap(), &target, "m").await.err().unwrap();
    assert!(matches!(error, TokenizeError::NotFound(_)), "{error}");
    assert!(error.to_string().contains("not a list of tokens"), "the error still says what was wrong: {error}");
    assert!(!error.to_string().contains("canary"), "{error}");
}
