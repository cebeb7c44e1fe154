//! The one state value shared by axum handlers, server functions and SSR.

use axum::extract::FromRef;
use leptos::config::LeptosOptions;
use std::sync::Arc;

use crate::clock::Clock;
use crate::config::Settings;
use crate::engine::HttpClient;
use crate::guard::Guard;
use crate::notify::WebhookSender;
use crate::runs::RunManager;
use crate::secrets::{SecretBox, TokenHasher};
use crate::store::Store;

/// Everything a request handler may need. Cheap to clone.
#[derive(Clone)]
pub struct AppState {
    /// The database.
    pub store: Store,
    /// Wall-clock time.
    pub clock: Arc<dyn Clock>,
    /// Loaded settings.
    pub settings: Arc<Settings>,
    /// Seals and opens connector credentials.
    pub sealer: SecretBox,
    /// Hashes login and session tokens.
    pub tokens: TokenHasher,
    /// The outbound HTTP client.
    pub http: HttpClient,
    /// Benchmark runs in progress.
    pub runs: RunManager,
    /// Scheduled regression checks.
    pub guard: Guard,
    /// Sends the webhook outbox.
    pub webhooks: WebhookSender,
    /// Leptos' own options (site root, output name).
    pub leptos_options: LeptosOptions,
}

impl FromRef<AppState> for LeptosOptions {
    fn from_ref(state: &AppState) -> Self {
        state.leptos_options.clone()
    }
}
