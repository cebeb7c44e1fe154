//! The connection test: one 1-token, non-streamed request, reported as `{ok, status, ms, body}`.

use futures::StreamExt;
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::http1::{Connections, Destination, Http1Client, Method, Outgoing};
use super::request::{ChatRequest, RequestTarget};
use crate::model::{ConnectionPolicy, ConnectionTestResult, BODY_PREVIEW_CHARS};
use crate::outbound::{AddressError, AddressPolicy, AllowRules, GuardedResolver, Reach, Refusal, SystemLookup, Trust};

/// The most of a response body a test reads before cutting it off; the preview is far shorter.
const MAX_BODY_BYTES: usize = 64 * 1024;

/// The shared outbound HTTP client: one connection pool for the process, and a second client that never keeps a
/// connection (for runs that ask for a fresh connection per request, and for re-sending a request that a server
/// lost by closing a pooled connection); each pair twice, once for targets that may reach any address and once,
/// connecting through the address policy's resolver, for targets that may reach public addresses only. Every
/// request goes out through [`HttpClient::for_target`], which picks by the target's reach. Measured calls to
/// `http://` endpoints go through the engine's own HTTP/1.1 client instead ([`HttpClient::route`]), which connects
/// only to the addresses the same policy judged. Cheap to clone.
#[derive(Debug, Clone)]
pub struct HttpClient {
    anywhere: ClientPair,
    public_only: ClientPair,
    own: Http1Client,
    /// A proxy is configured in the environment: requests that may reach anywhere go through reqwest, which uses it
    /// (the engine's own client connects directly).
    proxied: bool,
    addresses: AddressPolicy,
    policy: ConnectionPolicy,
}

/// The client a measured request goes out on.
#[derive(Debug)]
pub(super) enum Route<'a> {
    /// The engine's own HTTP/1.1 client: `http://` without a proxy.
    Own {
        /// The client.
        client: &'a Http1Client,
        /// Where the request goes.
        destination: Arc<Destination>,
    },
    /// reqwest: https, or a proxy.
    Reqwest {
        /// The client keeping connections.
        pooled: &'a reqwest::Client,
        /// The client opening a connection per request.
        fresh: &'a reqwest::Client,
        /// The request's URL.
        url: String,
    },
}

/// The environment variables reqwest takes a proxy for plain `http://` from.
const PROXY_VARIABLES: [&str; 4] = ["HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"];

/// A pooled client and one that opens a connection per request.
#[derive(Debug, Clone)]
struct ClientPair {
    pooled: reqwest::Client,
    fresh: reqwest::Client,
}

impl ClientPair {
    fn new(resolver: Option<Arc<GuardedResolver>>) -> Result<Self, reqwest::Error> {
        let builder = || {
            let builder = reqwest::Client::builder()
                .redirect(reqwest::redirect::Policy::none())
                // No request is re-sent out of the engine's sight (reqwest re-sends some refused HTTP/2 streams by
                // default, timed as one request): the engine's own retries are each recorded. Without a retry
                // budget no request is copied before it is sent, either.
                .retry(reqwest::retry::never().max_retries_per_request(0))
                .user_agent(concat!("latency-guard/", env!("CARGO_PKG_VERSION")));
            match &resolver {
                // A proxy would resolve the name itself, out of the policy's sight.
                Some(resolver) => builder.no_proxy().dns_resolver(Arc::clone(resolver)),
                None => builder,
            }
        };
        Ok(Self { pooled: builder().build()?, fresh: builder().pool_max_idle_per_host(0).build()? })
    }
}

impl HttpClient {
    /// Clients that never follow redirects (a redirect is reported, not silently re-sent as GET); connections are
    /// reused; every owner is trusted (the command line's clients, run by the operator).
    pub fn new() -> Result<Self, reqwest::Error> {
        let policy = AddressPolicy::new(AllowRules::none("connector-allow"), Trust::Everyone, Arc::new(SystemLookup));
        Self::with_addresses(policy)
    }

    /// The same, judging targets that may reach public addresses only by `addresses`.
    pub fn with_addresses(addresses: AddressPolicy) -> Result<Self, reqwest::Error> {
        Ok(Self {
            anywhere: ClientPair::new(None)?,
            public_only: ClientPair::new(Some(GuardedResolver::new(addresses.clone())))?,
            own: Http1Client::new(addresses.clone()),
            proxied: PROXY_VARIABLES.iter().any(|name| std::env::var_os(name).is_some_and(|v| !v.is_empty())),
            addresses,
            policy: ConnectionPolicy::Reuse,
        })
    }

    /// The same clients, sending each request as `policy` says.
    pub fn with_policy(&self, policy: ConnectionPolicy) -> Self {
        Self { policy, ..self.clone() }
    }

    /// How requests are sent.
    pub fn policy(&self) -> ConnectionPolicy {
        self.policy
    }

    /// The address policy public-only targets are judged by.
    pub fn addresses(&self) -> &AddressPolicy {
        &self.addresses
    }

    /// The client for a request to `target` under this connection policy, once the target's host, when it is an
    /// IP address (which no resolver sees), is one its reach allows; names are judged by the client's resolver.
    pub fn for_target(&self, target: &RequestTarget) -> Result<&reqwest::Client, Refusal> {
        self.clients_for(target).map(|(client, _)| client)
    }

    /// [`HttpClient::for_target`], and the client that opens a new connection for every request to `target` (for
    /// re-sending a request lost to a closed pooled connection): the target is checked once for both.
    pub(super) fn clients_for(&self, target: &RequestTarget) -> Result<(&reqwest::Client, &reqwest::Client), Refusal> {
        let pair = self.pair(target)?;
        let client = match self.policy {
            ConnectionPolicy::Reuse => &pair.pooled,
            ConnectionPolicy::Fresh => &pair.fresh,
        };
        Ok((client, &pair.fresh))
    }

    /// The client a measured request to `{base}/{path}` of `target` goes out on: the engine's own for `http://`
    /// (unless a proxy applies), reqwest's otherwise, once the target's host, when it is an IP address, is one its
    /// reach allows (the own client's connections are judged when made, as reqwest's resolver judges names).
    pub(super) fn route(&self, target: &RequestTarget, path: &str) -> Result<Route<'_>, Refusal> {
        let direct = target.reach == Reach::PublicOnly || !self.proxied;
        if let Some(destination) = direct.then(|| self.own.destination(&target.base_url, path, target.reach)).flatten()
        {
            return Ok(Route::Own { client: &self.own, destination });
        }
        let (pooled, fresh) = self.clients_for(target)?;
        Ok(Route::Reqwest { pooled, fresh, url: target.base_url.endpoint(path) })
    }

    fn pair(&self, target: &RequestTarget) -> Result<&ClientPair, Refusal> {
        match target.reach {
            Reach::Anywhere => Ok(&self.anywhere),
            Reach::PublicOnly => {
                if let Ok(url) = url::Url::parse(target.base_url.as_str()) {
                    self.addresses.check_literal(Reach::PublicOnly, &url)?;
                }
                Ok(&self.public_only)
            }
        }
    }

    /// Resolves `target`'s host and checks every address against its reach: before a run, a test or a probe
    /// starts, and when a connector is saved, so a refused destination is said at once rather than in every
    /// request's error. A name that does not resolve now is no refusal (its requests will say so, and a name may
    /// resolve later); each connection is judged again when it is made.
    pub async fn refusal(&self, target: &RequestTarget) -> Option<Refusal> {
        if target.reach == Reach::Anywhere {
            return None;
        }
        let url = url::Url::parse(target.base_url.as_str()).ok()?;
        match self.addresses.resolve(Reach::PublicOnly, &url).await {
            Err(AddressError::Refused(refusal)) => Some(refusal),
            _ => None,
        }
    }
}

/// Sends one ping and reports what came back. Never fails: every failure is a result with status 0.
pub async fn test_connection(
    client: &HttpClient,
    target: &RequestTarget,
    model: &str,
    timeout: Duration,
) -> ConnectionTestResult {
    let started = Instant::now();
    let elapsed_ms = || u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
    let no_response = |body: String| ConnectionTestResult { ok: false, status: 0, ms: elapsed_ms(), body };
    let headers = match target.header_map() {
        Ok(h) => h,
        Err(e) => return no_response(e.to_string()),
    };
    let route = match client.route(target, "chat/completions") {
        Ok(route) => route,
        Err(refusal) => return no_response(refusal.to_string()),
    };
    let ping = ChatRequest::ping(model);
    let attempt = async {
        match &route {
            Route::Own { client, destination } => ping_own(client, destination, &headers, &ping, started).await,
            Route::Reqwest { pooled, fresh, url } => {
                ping_reqwest([*pooled, *fresh], url, &headers, &ping, started).await.map_err(|e| describe_error(&e))
            }
        }
    };
    let outcome = tokio::time::timeout(timeout, attempt).await;
    let result = match outcome {
        Err(_) => no_response(format!("request timed out after {} ms", timeout.as_millis())),
        Ok(Err(words)) => no_response(words),
        Ok(Ok((status, body))) => ConnectionTestResult {
            ok: (200..300).contains(&status),
            status,
            ms: elapsed_ms(),
            body: String::from_utf8_lossy(&body).into_owned(),
        },
    };
    // Scrubbed whole, then cut: a key straddling the cut cannot survive as a prefix.
    ConnectionTestResult { body: target.redactor().scrub_and_clip(&result.body, BODY_PREVIEW_CHARS), ..result }
}

/// The ping through the engine's own client: the status and the body's start, or why there was none.
async fn ping_own(
    client: &Http1Client,
    destination: &Destination,
    headers: &reqwest::header::HeaderMap,
    ping: &ChatRequest,
    started: Instant,
) -> Result<(u16, Vec<u8>), String> {
    let send = |connections| {
        client.send(destination, Outgoing { method: Method::Post, headers, body: Some(ping) }, connections)
    };
    let mut response = match send(Connections::Kept).await {
        // A kept connection the server had closed: the ping never reached it, so it goes once more, fresh.
        Err(e) if e.lost_on_reused_connection() && started.elapsed() < KEEP_ALIVE_RACE_WINDOW => {
            send(Connections::Fresh).await
        }
        other => other,
    }
    .map_err(|e| e.to_string())?;
    let mut body = Vec::new();
    while body.len() < MAX_BODY_BYTES && response.body.arrive().await.map_err(|e| e.to_string())?.is_some() {
        // The closure never stops the reading, so its flow says nothing.
        let _continued = response
            .body
            .hand_on(|data| {
                body.extend_from_slice(data);
                std::ops::ControlFlow::Continue(())
            })
            .map_err(|e| e.to_string())?;
    }
    Ok((response.head.status.as_u16(), body))
}

/// The ping through reqwest (`clients`: the pooled one, then the fresh one).
async fn ping_reqwest(
    [pooled, fresh]: [&reqwest::Client; 2],
    url: &str,
    headers: &reqwest::header::HeaderMap,
    ping: &ChatRequest,
    started: Instant,
) -> Result<(u16, Vec<u8>), reqwest::Error> {
    let send = |client: &reqwest::Client| client.post(url).headers(headers.clone()).json(ping).send();
    let response = match send(pooled).await {
        // A pooled connection the server had closed: the ping never reached it, so it goes once more, fresh.
        Err(e) if lost_to_keep_alive_race(&e, started.elapsed()) => send(fresh).await?,
        other => other?,
    };
    let status = response.status().as_u16();
    let mut body = Vec::new();
    let mut stream = response.bytes_stream();
    while let Some(chunk) = stream.next().await {
        body.extend_from_slice(&chunk?);
        if body.len() >= MAX_BODY_BYTES {
            break;
        }
    }
    Ok((status, body))
}

/// A request lost on a closed connection within this long of its send was lost to the keep-alive race (the
/// server's close crossing the request on the wire), which shows within milliseconds. A server that held the
/// request longer and then dropped it failed it, and that is what is recorded.
pub(super) const KEEP_ALIVE_RACE_WINDOW: Duration = Duration::from_secs(1);

/// Whether a send that failed `since_send` after it began was lost to the keep-alive race: the server closed the
/// connection before any byte of a response, at once (it accepted the request on a pooled connection it was about
/// to close). Such a request never reached the server's handler and may be sent again.
pub(super) fn lost_to_keep_alive_race(error: &reqwest::Error, since_send: Duration) -> bool {
    if error.is_connect() || since_send >= KEEP_ALIVE_RACE_WINDOW {
        return false;
    }
    let mut source: Option<&dyn std::error::Error> = Some(error);
    while let Some(e) = source {
        if let Some(hyper) = e.downcast_ref::<hyper::Error>() {
            return hyper.is_incomplete_message() || hyper.is_canceled();
        }
        source = e.source();
    }
    false
}

/// reqwest's top-level message ("error sending request") hides the cause; the source chain names it. Whole
/// (it may name the URL): callers scrub secrets before cutting it. A refusal by the address policy (met where
/// the connection resolved its host) is said alone, in its own words.
pub fn describe_error(error: &reqwest::Error) -> String {
    let mut parts = vec![];
    let mut source: Option<&dyn std::error::Error> = Some(error);
    while let Some(e) = source {
        if let Some(refusal) = e.downcast_ref::<Refusal>() {
            return refusal.to_string();
        }
        let text = e.to_string();
        if !parts.iter().any(|p: &String| p.contains(&text)) {
            parts.push(text);
        }
        source = e.source();
    }
    let joined = parts.join(": ");
    if error.is_connect() && !joined.to_ascii_lowercase().contains("connect") {
        format!("could not connect: {joined}")
    } else {
        joined
    }
}
