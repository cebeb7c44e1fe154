//! The one state value shared by the HTTP edge (`server`), server functions (`api`) and SSR. It sits above the
//! domain modules (store, runs, guard, notify) and below everything that serves requests, so both can see it
//! without a cycle. Handlers take only the parts they need through `FromRef`.

use axum::extract::FromRef;
use leptos::config::LeptosOptions;
use std::sync::Arc;

use crate::capacity::service::SweepManager;
use crate::clock::Clock;
use crate::config::Settings;
use crate::engine::HttpClient;
use crate::guard::notify::WebhookSender;
use crate::guard::service::Guard;
use crate::lab::service::AbManager;
use crate::runs::service::{ExportSnapshots, ReportViews, RunManager};
use crate::secrets::{SecretBox, TokenHasher};
use crate::store::{Store, StoreError};

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
    /// Finished runs' report views, built once per process.
    pub report_views: ReportViews,
    /// Finished runs' compact snapshots for export, encoded once per process.
    pub export_snapshots: ExportSnapshots,
    /// Spec Lab's A/B tests in progress.
    pub ab_tests: AbManager,
    /// Sweeps and capacity searches in progress.
    pub sweeps: SweepManager,
    /// Scheduled regression checks.
    pub guard: Guard,
    /// Sends the webhook outbox.
    pub webhooks: WebhookSender,
    /// Checks smart-contract wallets' signatures, when `siwe-rpc-url` is set.
    pub contract_wallets: Option<crate::account::service::ContractWallets>,
    /// Leptos' own options (site root, output name).
    pub leptos_options: LeptosOptions,
}

impl AppState {
    /// A fresh one-time login URL for the local owner's workspace.
    pub async fn create_login_link(&self) -> Result<String, StoreError> {
        let base = self.settings.public_base();
        crate::auth::create_login_link(&self.store, &self.tokens, self.clock.now_ms(), &base).await
    }
}

/// `impl FromRef<AppState> for $part`, so a handler can take `State<$part>`.
macro_rules! state_parts {
    ($($part:ty => $field:ident),* $(,)?) => {$(
        impl FromRef<AppState> for $part {
            fn from_ref(state: &AppState) -> Self {
                state.$field.clone()
            }
        }
    )*};
}

state_parts! {
    LeptosOptions => leptos_options,
    Store => store,
    TokenHasher => tokens,
    Arc<dyn Clock> => clock,
    Arc<Settings> => settings,
    RunManager => runs,
    Guard => guard,
}
