//! A simulated OpenAI-compatible endpoint: for demos, tests, and as the ground truth of measurement
//! benchmarks. Its delays are scheduled against absolute deadlines (one kernel timer per worker for all its streams,
//! `timing.rs`) from when a request reached its socket (`arrival.rs`), so they stay accurate well below a
//! millisecond and never drift across a stream.

mod args;
mod arrival;
mod closing;
mod completion;
mod config;
mod engine;
mod hostile;
mod plan;
mod prefix_cache;
mod stream;
mod timing;
mod tokenize;
pub mod tokenizer;

pub use args::SimArgs;
pub use config::{Delay, Fault, SimConfig, SimOptionError, Speculative, UsageMode, DEFAULT_ENGINE_VERSION};
pub use hostile::{Hostile, ECHO_SHAPES};
pub use prefix_cache::BLOCK_TOKENS;

use axum::routing::{get, post};
use axum::serve::ListenerExt;
use axum::Router;
use std::net::SocketAddr;
use std::sync::atomic::AtomicU64;
use std::sync::Arc;
use tokio::net::{TcpListener, TcpSocket};
use tokio_util::sync::CancellationToken;

/// A running simulator.
#[derive(Debug)]
pub struct SimHandle {
    addr: SocketAddr,
    workers: Workers,
}

/// Where a simulator serves.
#[derive(Debug)]
enum Workers {
    /// A task of the caller's runtime.
    Task(tokio::task::JoinHandle<()>),
    /// Threads of its own, each with a runtime, a listener on the shared port and a timer of its own.
    Threads(CancellationToken),
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
        match self.workers {
            Workers::Task(task) => task.abort(),
            Workers::Threads(stop) => stop.cancel(),
        }
    }
}

/// The simulator's routes, sharing `state` (each worker gets a timer of its own).
fn router_with(state: completion::SimState) -> Router {
    let routes = Router::new()
        .route("/v1/chat/completions", post(completion::chat_completions))
        .route("/v1/models", get(completion::models))
        .route("/sim/stats", get(completion::stats));
    let routes = match state.config.engine_endpoints {
        true => routes.route("/metrics", get(completion::metrics)).route("/version", get(completion::version)),
        false => routes,
    };
    let routes = match state.config.tokenize {
        true => routes.route("/tokenize", post(tokenize::tokenize)).route("/detokenize", post(tokenize::detokenize)),
        false => routes,
    };
    routes.with_state(state)
}

/// What `workers` workers share, as worker 0 sees it.
fn shared_state(config: SimConfig, workers: usize) -> completion::SimState {
    completion::SimState {
        slots: config.slots.map(|n| Arc::new(tokio::sync::Semaphore::new(n as usize))),
        prefix_cache: Arc::new(prefix_cache::PrefixCache::new(config.prefix_cache_blocks)),
        engine: Arc::new(engine::EngineMetrics::new(config.speculative, config.kv_cache_tokens)),
        config: Arc::new(config),
        timer: timing::DeadlineTimer::default(),
        completed: Arc::default(),
        connections: (0..workers).map(|_| AtomicU64::new(0)).collect(),
        worker: 0,
    }
}

/// The simulator's routes.
pub fn router(config: SimConfig) -> Router {
    router_with(shared_state(config, 1))
}

/// Binds `addr` (port 0 picks a free one) and serves in the background, as a task of the caller's runtime.
pub async fn spawn(config: SimConfig, addr: SocketAddr) -> std::io::Result<SimHandle> {
    let listener = TcpListener::bind(addr).await?;
    let addr = listener.local_addr()?;
    let closing = config.close_after_response;
    let state = shared_state(config, 1);
    let task = tokio::spawn(serve(listener, state, closing));
    Ok(SimHandle { addr, workers: Workers::Task(task) })
}

/// Binds `addr` `workers` times (`SO_REUSEPORT`: the kernel spreads connections over the listeners) and serves
/// each listener on a thread of its own with a single-threaded runtime and its own deadline timer, so the
/// simulator uses as many cores as it has workers: a chunk costs a worker about 19 µs (most of it loopback TCP in the
/// kernel), so one core holds about 25,000 chunks a second under 70 % busy (1,000 streams 40 ms apart;
/// `benches/engine.rs`) and is late at 50,000; a load beyond that needs more cores. Counters and serving slots are
/// shared by all workers.
pub async fn spawn_workers(config: SimConfig, addr: SocketAddr, workers: usize) -> std::io::Result<SimHandle> {
    let workers = workers.max(1);
    let first = reusable_listener(addr)?;
    let addr = first.local_addr()?;
    let mut listeners = vec![first];
    for _ in 1..workers {
        listeners.push(reusable_listener(addr)?);
    }
    let closing = config.close_after_response;
    let state = shared_state(config, workers);
    let stop = CancellationToken::new();
    for (index, listener) in listeners.into_iter().enumerate() {
        let listener = listener.into_std()?;
        let state = completion::SimState { timer: timing::DeadlineTimer::default(), worker: index, ..state.clone() };
        let (stop, runtime) = (stop.clone(), tokio::runtime::Builder::new_current_thread().enable_all().build()?);
        std::thread::Builder::new().name(format!("sim-worker-{index}")).spawn(move || {
            runtime.block_on(async move {
                match TcpListener::from_std(listener) {
                    Ok(listener) => tokio::select! {
                        () = serve(listener, state, closing) => {}
                        () = stop.cancelled() => {}
                    },
                    Err(e) => tracing::error!(error = %e, worker = index, "simulator worker cannot listen"),
                }
            });
        })?;
    }
    Ok(SimHandle { addr, workers: Workers::Threads(stop) })
}

/// A listener on `addr` that other listeners may share (`SO_REUSEPORT`).
fn reusable_listener(addr: SocketAddr) -> std::io::Result<TcpListener> {
    let socket = if addr.is_ipv4() { TcpSocket::new_v4()? } else { TcpSocket::new_v6()? };
    socket.set_reuseport(true)?;
    socket.set_reuseaddr(true)?;
    socket.bind(addr)?;
    socket.listen(1_024)
}

/// Serves `listener` until the task ends, counting the connections it accepts.
async fn serve(listener: TcpListener, state: completion::SimState, closing: bool) {
    let app = router_with(state.clone());
    if closing {
        return closing::serve(listener, app, state).await;
    }
    // Without TCP_NODELAY, Nagle's algorithm holds each small SSE write until the client's (delayed) ACK:
    // up to 40 ms per chunk, which would make the simulator's timings a lie.
    let listener = arrival::StampedListener::new(listener, move |tcp: &tokio::net::TcpStream| {
        let _ = tcp.set_nodelay(true);
        state.count_connection();
    });
    if let Err(e) = axum::serve(listener, app.into_make_service_with_connect_info::<arrival::Arrival>()).await {
        tracing::error!(error = %e, "simulator stopped");
    }
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
    Ok(SimHandle { addr, workers: Workers::Task(task) })
}
