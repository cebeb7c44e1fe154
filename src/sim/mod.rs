//! A simulated OpenAI-compatible endpoint: for demos, tests, and as the ground truth of measurement
//! benchmarks. Its delays are scheduled against absolute deadlines (coarse timer, then one shared yield loop for all
//! streams) so they stay accurate well below a millisecond and never drift across a stream.

mod args;
mod closing;
mod completion;
mod config;
mod hostile;
mod plan;
mod stream;
mod timing;

pub use args::SimArgs;
pub use config::{Delay, Fault, SimConfig, UsageMode};
pub use hostile::Hostile;

use axum::routing::{get, post};
use axum::serve::ListenerExt;
use axum::Router;
use std::net::SocketAddr;
use std::sync::Arc;
use tokio::net::TcpListener;

/// A running simulator.
#[derive(Debug)]
pub struct SimHandle {
    addr: SocketAddr,
    task: tokio::task::JoinHandle<()>,
}

impl SimHandle {
    /// The bound address.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The base URL clients use: `http://addr/v1`.
    pub fn base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    /// Stops serving.
    pub fn stop(self) {
        self.task.abort();
    }
}

/// The simulator's routes.
pub fn router(config: SimConfig) -> Router {
    Router::new()
        .route("/v1/chat/completions", post(completion::chat_completions))
        .route("/v1/models", get(completion::models))
        .route("/sim/stats", get(completion::stats))
        .with_state(completion::SimState {
            slots: config.slots.map(|n| Arc::new(tokio::sync::Semaphore::new(n as usize))),
            config: Arc::new(config),
            timer: timing::DeadlineTimer::default(),
            completed: Arc::default(),
        })
}

/// Binds `addr` (port 0 picks a free one) and serves in the background.
pub async fn spawn(config: SimConfig, addr: SocketAddr) -> std::io::Result<SimHandle> {
    let listener = TcpListener::bind(addr).await?;
    let addr = listener.local_addr()?;
    let closing = config.close_after_response;
    let app = router(config);
    let task = tokio::spawn(async move {
        if closing {
            return closing::serve(listener, app).await;
        }
        // Without TCP_NODELAY, Nagle's algorithm holds each small SSE write until the client's (delayed) ACK:
        // up to 40 ms per chunk, which would make the simulator's timings a lie.
        let listener = listener.tap_io(|tcp| {
            let _ = tcp.set_nodelay(true);
        });
        if let Err(e) = axum::serve(listener, app).await {
            tracing::error!(error = %e, "simulator stopped");
        }
    });
    Ok(SimHandle { addr, task })
}

/// Serves `config` on a free loopback port in the background: the usual set-up of tests, benchmarks and the
/// app's demo connector.
pub async fn spawn_local(config: SimConfig) -> std::io::Result<SimHandle> {
    spawn(config, SocketAddr::from(([127, 0, 0, 1], 0))).await
}

/// Binds `addr` and serves the hostile endpoint `kind` in the background (see [`Hostile`]).
pub async fn spawn_hostile(kind: Hostile, addr: SocketAddr) -> std::io::Result<SimHandle> {
    let listener = TcpListener::bind(addr).await?;
    let addr = listener.local_addr()?;
    let app = hostile::router(kind);
    let task = tokio::spawn(async move {
        let listener = listener.tap_io(|tcp| {
            let _ = tcp.set_nodelay(true);
        });
        if let Err(e) = axum::serve(listener, app).await {
            tracing::error!(error = %e, "hostile endpoint stopped");
        }
    });
    Ok(SimHandle { addr, task })
}
