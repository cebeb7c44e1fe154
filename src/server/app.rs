//! Startup as a value: `Application::build(settings)` connects, migrates, binds and seeds; `run_until_stopped`
//! serves and runs the background loops.

use axum::serve::ListenerExt;
use std::net::SocketAddr;
use std::sync::Arc;
use tokio::net::TcpListener;

use super::router::router;
use crate::capacity::service::SweepManager;
use crate::clock::{Clock, SystemClock};
use crate::config::{Secret, Settings};
use crate::engine::HttpClient;
use crate::guard::notify::{MailError, Mailer, WebhookSender};
use crate::guard::service::{Guard, GuardOptions};
use crate::jobs::JobOwner;
use crate::lab::service::AbManager;
use crate::model::{AbTestId, BaseUrl, ConnectorInput, RunId, SweepId, ValidationError};
use crate::outbound::{AddressPolicy, Lookup, SystemLookup, Trust};
use crate::runs::service::RunManager;
use crate::secrets::{SecretBox, TokenHasher};
use crate::sim::{SimConfig, SimHandle};
use crate::state::AppState;
use crate::store::{Backend, Store, StoreError, LOCAL_OWNER};

/// How often the webhook outbox is looked at for due messages.
const WEBHOOK_PASS: std::time::Duration = std::time::Duration::from_secs(5);
/// How long a stopping server waits for its running jobs to store what they measured and close.
const JOB_GRACE: std::time::Duration = std::time::Duration::from_secs(10);

/// Why the server could not start.
#[derive(Debug, thiserror::Error)]
pub enum StartupError {
    /// The database could not be opened or migrated.
    #[error("database: {0}")]
    Store(#[from] StoreError),
    /// The secret file could not be read or written.
    #[error("server secret: {0}")]
    Secret(std::io::Error),
    /// The listen address could not be bound.
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        /// The address.
        addr: SocketAddr,
        /// Why.
        source: std::io::Error,
    },
    /// The demo simulator could not start.
    #[error("demo simulator: {0}")]
    Simulator(std::io::Error),
    /// The HTTP client could not be built.
    #[error("http client: {0}")]
    Http(#[from] reqwest::Error),
    /// The alert e-mail settings are not usable.
    #[error("alert e-mail: {0}")]
    Email(#[from] MailError),
    /// Leptos' configuration is unusable.
    #[error("leptos configuration: {0}")]
    Leptos(String),
    /// The client for smart-contract wallets' signatures could not be made.
    #[error("siwe-rpc-url: {0}")]
    ContractWallets(reqwest::Error),
    /// The demo connector could not be made from the simulator's address.
    #[error("demo connector: {0}")]
    DemoConnector(#[from] ValidationError),
}

/// A built, bound, not yet serving application.
pub struct Application {
    listener: TcpListener,
    state: AppState,
    simulator: Option<SimHandle>,
    first_login_link: Option<String>,
}

impl Application {
    /// Builds the state (store, secret, clients) with the system clock.
    pub async fn build(settings: Settings) -> Result<Self, StartupError> {
        Self::build_with_clock(settings, Arc::new(SystemClock)).await
    }

    /// Builds with an injected clock.
    pub async fn build_with_clock(settings: Settings, clock: Arc<dyn Clock>) -> Result<Self, StartupError> {
        Self::build_in(settings, Surroundings { clock, lookup: Arc::new(SystemLookup) }).await
    }

    /// Builds with an injected clock and name lookup (tests script what a host name resolves to).
    pub async fn build_in(settings: Settings, surroundings: Surroundings) -> Result<Self, StartupError> {
        let addr = settings.site_addr;
        let listener = TcpListener::bind(addr).await.map_err(|source| StartupError::Bind { addr, source })?;
        let mut settings = settings;
        // With port 0 the real port is known only now; links printed later must carry it.
        settings.site_addr = listener.local_addr().map_err(|source| StartupError::Bind { addr, source })?;
        let simulator = if settings.demo_simulator {
            // It drafts (3 tokens a step, each accepted with probability 0.8 after the ones before it) so Spec Lab's
            // acceptance figures show on the demo too.
            let drafting = crate::sim::Speculative { tokens: 3, acceptance: 0.8 };
            let config = SimConfig { speculative: Some(drafting), ..SimConfig::default() };
            let sim = crate::sim::spawn_local(config).await.map_err(StartupError::Simulator)?;
            // The demo simulator stays reachable for every workspace: its address and port, nothing else there.
            settings.connector_allow = settings.connector_allow.clone().with_socket(sim.addr());
            Some(sim)
        } else {
            None
        };
        let state = build_state_in(settings, surroundings).await?;
        let first_login_link = seed(&state, simulator.as_ref()).await?;
        Ok(Self { listener, state, simulator, first_login_link })
    }

    /// The bound port (useful with port 0).
    pub fn port(&self) -> u16 {
        self.listener.local_addr().map_or(0, |a| a.port())
    }

    /// The shared state (tests use it to seed data).
    pub fn state(&self) -> &AppState {
        &self.state
    }

    /// The login link created because the database was empty, if it was.
    pub fn first_login_link(&self) -> Option<&str> {
        self.first_login_link.as_deref()
    }

    /// Serves until the process is stopped (Ctrl-C or SIGTERM).
    pub async fn run_until_stopped(self) -> std::io::Result<()> {
        let app = router(self.state.clone());
        // Small writes (SSE progress events) go out at once instead of waiting for the browser's delayed ACK.
        let listener = self.listener.tap_io(|tcp| {
            let _ = tcp.set_nodelay(true);
        });
        // The background loops end with the server: the set aborts every task it holds when it is dropped.
        let mut background = tokio::task::JoinSet::new();
        let (state, heartbeat) = (&self.state, self.state.settings.run_heartbeat);
        background.spawn(state.runs.clone().maintain(heartbeat));
        background.spawn(state.ab_tests.clone().maintain(heartbeat));
        background.spawn(state.sweeps.clone().maintain(heartbeat));
        background.spawn(state.webhooks.clone().deliver_forever(WEBHOOK_PASS));
        if let Some(every) = state.settings.guard_tick_interval {
            background.spawn(crate::guard::service::tick_forever(state.guard.clone(), every));
        }
        if let Some(mail) = state.guard.mail().cloned() {
            background.spawn(mail.deliver_forever(WEBHOOK_PASS));
        }
        // The peer address is the wallet-login routes' rate-limit key (unless a proxy's header is configured).
        let app = app.into_make_service_with_connect_info::<std::net::SocketAddr>();
        let result = axum::serve(listener, app).with_graceful_shutdown(shutdown_signal()).await;
        // Running jobs end as interrupted with what they measured stored, rather than being found orphaned later.
        // Runs first: a sweep's level is a run, and it must know it is the server stopping it.
        let (runs, ab_tests, sweeps) = tokio::join!(
            self.state.runs.stop_all(JOB_GRACE),
            self.state.ab_tests.stop_all(JOB_GRACE),
            self.state.sweeps.stop_all(JOB_GRACE),
        );
        if runs + ab_tests + sweeps > 0 {
            tracing::warn!(
                runs,
                ab_tests,
                sweeps,
                "jobs still running at shutdown; the next start marks them interrupted"
            );
        }
        background.shutdown().await;
        if let Some(sim) = self.simulator {
            sim.stop();
        }
        self.state.store.close().await;
        result
    }
}

/// What the application takes from the world besides its settings: the time, and what host names resolve to.
#[derive(Clone)]
pub struct Surroundings {
    /// The clock.
    pub clock: Arc<dyn Clock>,
    /// How every outbound request's host names are resolved (and so judged by the address policy).
    pub lookup: Arc<dyn Lookup>,
}

/// Opens the store, loads or creates the secret, builds the clients.
pub async fn build_state(settings: Settings, clock: Arc<dyn Clock>) -> Result<AppState, StartupError> {
    build_state_in(settings, Surroundings { clock, lookup: Arc::new(SystemLookup) }).await
}

/// [`build_state`] with an injected name lookup.
pub async fn build_state_in(settings: Settings, surroundings: Surroundings) -> Result<AppState, StartupError> {
    let Surroundings { clock, lookup } = surroundings;
    let store = Store::connect(&settings.database_url).await?;
    let secret = match &settings.secret {
        Some(secret) => secret.clone(),
        None => Secret::load_or_create(&settings.data_dir.join("secret.key")).map_err(StartupError::Secret)?,
    };
    let mut leptos_options =
        leptos::config::get_configuration(None).map_err(|e| StartupError::Leptos(e.to_string()))?.leptos_options;
    leptos_options.site_addr = settings.site_addr;
    let sealer = SecretBox::new(&secret);
    // The install's owner and the trusted wallets reach any address; every other workspace public ones only.
    let trusted = std::iter::once(LOCAL_OWNER.to_string())
        .chain(settings.trusted_wallets.iter().map(|address| crate::account::service::wallet_identity(address)))
        .collect();
    let addresses =
        AddressPolicy::new(settings.connector_allow.clone(), Trust::Owners(Arc::new(trusted)), Arc::clone(&lookup));
    let http = HttpClient::with_addresses(addresses)?;
    let runs = RunManager::new(store.clone(), sealer.clone(), http.clone(), Arc::clone(&clock))
        .with_quota(settings.workspace_quota);
    let ab_tests = AbManager::new(store.clone(), sealer.clone(), http.clone(), Arc::clone(&clock));
    let sweeps = SweepManager::new(store.clone(), runs.clone(), Arc::clone(&clock));
    let guard_options = GuardOptions {
        limit: settings.guard_tick_limit,
        parallelism: settings.guard_tick_parallelism,
        public_base: settings.public_base(),
        database_clock: true,
        mailer: settings.smtp.as_ref().map(|smtp| Mailer::new(&smtp.url, &smtp.from)).transpose()?,
    };
    // Webhooks are judged by their own allow setting whoever owns the schedule: the install owner's receivers
    // on a private network are named there.
    let webhook_addresses = AddressPolicy::new(settings.webhook_allow.clone(), Trust::Owners(Arc::default()), lookup);
    let contract_wallets = match &settings.siwe_rpc_url {
        Some(url) => Some(
            crate::account::service::ContractWallets::new(url, std::time::Duration::from_secs(5))
                .map_err(StartupError::ContractWallets)?,
        ),
        None => None,
    };
    Ok(AppState {
        guard: Guard::new(store.clone(), runs.clone(), Arc::clone(&clock), guard_options),
        webhooks: WebhookSender::new(store.clone(), sealer.clone(), Arc::clone(&clock), webhook_addresses),
        runs,
        report_views: crate::runs::service::ReportViews::default(),
        export_snapshots: crate::runs::service::ExportSnapshots::default(),
        ab_tests,
        sweeps,
        store,
        clock,
        sealer,
        tokens: TokenHasher::new(&secret),
        http,
        settings: Arc::new(settings),
        contract_wallets,
        leptos_options,
    })
}

/// First start: the owner's workspace, the demo connector and a login link. Later starts: repoint the demo
/// connector at this run's simulator.
async fn seed(state: &AppState, simulator: Option<&SimHandle>) -> Result<Option<String>, StartupError> {
    let now = state.clock.now_ms();
    // The embedded SQLite file belongs to this one process, so any run still marked running was left by its
    // previous life. On PostgreSQL other replicas may be driving runs: only the silent owners' runs are orphans.
    let silent_since = match state.store.backend() {
        Backend::Sqlite => i64::MAX,
        Backend::Postgres => crate::jobs::orphaned_before(now, state.settings.run_heartbeat),
    };
    let interrupted = state.store.interrupt_orphaned_jobs::<RunId>(silent_since, now).await?
        + state.store.interrupt_orphaned_jobs::<AbTestId>(silent_since, now).await?
        + state.store.interrupt_orphaned_jobs::<SweepId>(silent_since, now).await?;
    if state.store.backend() == Backend::Sqlite {
        state.guard.fail_abandoned(i64::MAX).await?;
    }
    if interrupted > 0 {
        tracing::warn!(
            interrupted,
            "runs, A/B tests or sweeps were still running when their server process stopped; marked interrupted"
        );
    }
    let purged = state.store.purge_expired_auth(now).await?;
    if purged > 0 {
        tracing::info!(purged, "removed expired sessions and login links");
    }
    let (workspace, created) = state.store.ensure_workspace(LOCAL_OWNER, "My workspace", now).await?;
    if let Some(sim) = simulator {
        let base = BaseUrl::parse(&sim.base_url())?;
        if created {
            let demo = ConnectorInput {
                name: "Demo (simulated)".into(),
                base_url: base.as_str().into(),
                model: "sim-model".into(),
                ..Default::default()
            }
            .validate()?;
            state.store.create_connector(workspace.id, &demo, true, &state.sealer, now).await?;
        } else {
            state.store.repoint_demo_connectors(&base, now).await?;
        }
    }
    if created {
        Ok(Some(state.create_login_link().await?))
    } else {
        Ok(None)
    }
}

async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! { () = ctrl_c => {}, () = terminate => {} }
}
