//! A chat endpoint on loopback whose behaviour a test scripts: what happens on each completion (count it, note when
//! it came) and what its `/metrics` says. It answers every completion at once with four tokens and usage.

use std::sync::Arc;

/// Called on each completion request.
pub type OnChat = Arc<dyn Fn() + Send + Sync>;
/// What `GET /metrics` answers.
pub type Metrics = Arc<dyn Fn() -> String + Send + Sync>;

/// Starts the endpoint; its base URL (`http://127.0.0.1:PORT/v1`).
pub async fn scripted_endpoint(on_chat: OnChat, metrics: Metrics) -> String {
    let app = axum::Router::new()
        .route(
            "/v1/chat/completions",
            axum::routing::post(move || {
                on_chat();
                async {
                    axum::Json(serde_json::json!({
                        "id": "cmpl-1", "object": "chat.completion", "created": 0, "model": "sim-model",
                        "choices": [{"index": 0, "message": {"role": "assistant", "content": "one two three four"},
                                     "finish_reason": "stop"}],
                        "usage": {"prompt_tokens": 5, "completion_tokens": 4, "total_tokens": 9}
                    }))
                }
            }),
        )
        .route("/metrics", axum::routing::get(move || std::future::ready(metrics())));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base_url = format!("http://127.0.0.1:{}/v1", listener.local_addr().unwrap().port());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    base_url
}
