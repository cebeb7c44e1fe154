//! The engine's own HTTP/1.1 client, for `http://` endpoints reached without a proxy (issue 49).
//!
//! Why not hyper's, which reqwest drives: hyper's connection task hands a body on one HTTP chunk at a time through a
//! one-slot channel to the task reading it, and a streamed answer is one chunk per event, so every event cost a
//! round trip between two tasks (about 1.9 µs, most of a request's cost) and was timed when the reading task got
//! to it rather than when it arrived. Here the task that measures a request reads the socket itself: each read is
//! timed by when its bytes reached the socket (`clock::arrival`), its chunked framing decoded in place (`chunked.rs`),
//! and its data handed to the event decoder as slices of the connection's buffer. reqwest stays for https, proxies
//! and HTTP/2.
//!
//! Every connection goes to addresses the outbound policy judged for the request's reach
//! (`AddressPolicy::resolve`), and a kept connection serves only requests of the same host, port and reach.
//! What a server answers is bounded before it is parsed: the head (`response_head.rs`), each read, a chunk's size
//! line and trailers; a body's length is the caller's to bound.

mod body;
pub mod chunked;
mod connection;
mod error;
mod pool;
pub mod response_head;

use serde::Serialize;
use std::sync::{Arc, Mutex};
use tokio::time::Instant;

pub use body::Body;
use body::Return;
use connection::Connection;
pub use error::{BodyError, SendError};
use pool::{Pool, PoolKey};
use response_head::ResponseHead;

use crate::clock::arrival;
use crate::model::BaseUrl;
use crate::outbound::{AddressPolicy, Reach};

/// A client: the address policy its connections are judged by, and the connections it keeps. Cheap to clone
/// (clones share the pool).
#[derive(Debug, Clone)]
pub struct Http1Client {
    addresses: AddressPolicy,
    pool: Arc<Pool>,
    last: Arc<LastDestination>,
    /// Keeps the kernel's receive stamps on while the client lives (`None` where the kernel will not stamp: reads
    /// are then timed on return).
    _stamping: Option<Arc<arrival::Holder>>,
}

/// Where a request goes: parsed from a target's URL once per request.
#[derive(Debug, Clone)]
pub struct Destination {
    /// The URL (its host and port are connected to).
    url: url::Url,
    /// The request target: path and query.
    path: String,
    /// The `Host` field: the host, and the port when the URL names one.
    host: String,
    reach: Reach,
    key: PoolKey,
}

impl Destination {
    /// The destination of `url` with `reach`, when it is an `http://` URL with a host (this client speaks nothing
    /// else).
    pub fn parse(url: &str, reach: Reach) -> Option<Self> {
        let url = url::Url::parse(url).ok()?;
        if url.scheme() != "http" {
            return None;
        }
        let host_name = url.host_str()?;
        let host = match url.port() {
            Some(port) => format!("{host_name}:{port}"),
            None => host_name.to_string(),
        };
        let path = match url.query() {
            Some(query) => format!("{}?{query}", url.path()),
            None => url.path().to_string(),
        };
        let authority = format!("{host_name}:{}", url.port_or_known_default()?).into();
        Some(Self { key: PoolKey { authority, reach }, url, path, host, reach })
    }
}

/// The destination parsed last, with the base URL, path and reach it was parsed from: a run sends every request to
/// one URL, and parsing it again for each (the URL parser and four strings) was 2 % of the engine's core at 256
/// streams of short answers.
#[derive(Debug, Default)]
struct LastDestination(Mutex<Option<Parsed>>);

/// A destination and what it was parsed from.
#[derive(Debug)]
struct Parsed {
    base: String,
    path: String,
    reach: Reach,
    destination: Arc<Destination>,
}

impl LastDestination {
    fn get_or_parse(&self, base: &BaseUrl, path: &str, reach: Reach) -> Option<Arc<Destination>> {
        let mut last = self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(kept) = last.as_ref().filter(|p| p.base == base.as_str() && p.path == path && p.reach == reach) {
            return Some(Arc::clone(&kept.destination));
        }
        let destination = Arc::new(Destination::parse(&base.endpoint(path), reach)?);
        let parsed = Parsed { base: base.as_str().to_string(), path: path.to_string(), reach, destination };
        Some(Arc::clone(&last.insert(parsed).destination))
    }
}

/// A request's method: a measured call posts, opening connections ahead asks for a head only.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    /// `POST`, with a JSON body.
    Post,
    /// `HEAD`, whose answer has no body.
    Head,
}

impl Method {
    fn as_str(self) -> &'static str {
        match self {
            Self::Post => "POST",
            Self::Head => "HEAD",
        }
    }
}

/// A request to send.
#[derive(Debug)]
pub struct Outgoing<'a, B> {
    /// The method.
    pub method: Method,
    /// The fields to send (the client adds `Host`, the body's length, and a user agent and `Accept` unless given).
    pub headers: &'a http::HeaderMap,
    /// The body, sent as JSON.
    pub body: Option<&'a B>,
}

/// How a request may use connections.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Connections {
    /// Take a kept one when there is one, and keep this one after the response when the server does.
    Kept,
    /// A new connection, closed after the response (set-up is part of what is measured).
    Fresh,
}

/// A response whose head arrived.
#[derive(Debug)]
pub struct Response {
    /// The head.
    pub head: ResponseHead,
    /// When the read that completed the head returned.
    pub head_at: Instant,
    /// The body, to be read.
    pub body: Body,
}

impl Http1Client {
    /// A client whose connections are judged by `addresses`.
    pub fn new(addresses: AddressPolicy) -> Self {
        Self { addresses, pool: Arc::default(), last: Arc::default(), _stamping: arrival::Holder::new().map(Arc::new) }
    }

    /// The destination of `{base}/{path}` with `reach` (see [`Destination::parse`]), parsed once while a run sends
    /// to the same one.
    pub fn destination(&self, base: &BaseUrl, path: &str, reach: Reach) -> Option<Arc<Destination>> {
        self.last.get_or_parse(base, path, reach)
    }

    /// Sends `request` to `destination` and reads the response's head.
    pub async fn send<B: Serialize>(
        &self,
        destination: &Destination,
        request: Outgoing<'_, B>,
        connections: Connections,
    ) -> Result<Response, SendError> {
        let kept = match connections {
            Connections::Kept => self.pool.take(&destination.key),
            Connections::Fresh => None,
        };
        let mut connection = match kept {
            Some(connection) => connection,
            None => Connection::open(&self.addresses, destination).await?,
        };
        connection.send(destination, &request).await?;
        let (head, head_at) = connection.read_head(request.method == Method::Head).await?;
        let keep = (connections == Connections::Kept && head.keep_alive)
            .then(|| Return { pool: Arc::clone(&self.pool), key: destination.key.clone() });
        let body = Body::new(connection, head.framing, head_at, keep);
        Ok(Response { head, head_at, body })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_destination_keeps_the_path_and_query_names_the_port_only_when_the_url_does_and_is_http_only() {
        let d = Destination::parse("http://h.example/v1/chat/completions?api-version=1", Reach::Anywhere).unwrap();
        assert_eq!((d.path.as_str(), d.host.as_str()), ("/v1/chat/completions?api-version=1", "h.example"));
        assert_eq!(d.key, PoolKey { authority: "h.example:80".into(), reach: Reach::Anywhere });
        let d = Destination::parse("http://[::1]:8080/v1/models", Reach::PublicOnly).unwrap();
        assert_eq!((d.path.as_str(), d.host.as_str()), ("/v1/models", "[::1]:8080"));
        assert_eq!(d.key, PoolKey { authority: "[::1]:8080".into(), reach: Reach::PublicOnly });
        assert!(Destination::parse("https://h.example/v1/models", Reach::Anywhere).is_none(), "reqwest's");
    }

    #[test]
    fn the_last_destination_is_reused_only_for_the_same_base_path_and_reach() {
        let last = LastDestination::default();
        let azure = BaseUrl::parse("http://h.example/openai?api-version=1").unwrap();
        let chat = last.get_or_parse(&azure, "chat/completions", Reach::Anywhere).unwrap();
        assert_eq!(chat.path, "/openai/chat/completions?api-version=1", "the query stays after the path");
        let again = last.get_or_parse(&azure, "chat/completions", Reach::Anywhere).unwrap();
        assert!(Arc::ptr_eq(&chat, &again), "the same request's destination is not parsed again");
        let public = last.get_or_parse(&azure, "chat/completions", Reach::PublicOnly).unwrap();
        assert_eq!(public.reach, Reach::PublicOnly, "another reach is another destination");
        let models = last.get_or_parse(&azure, "models", Reach::PublicOnly).unwrap();
        assert_eq!(models.path, "/openai/models?api-version=1");
        let other = BaseUrl::parse("http://127.0.0.1:9/v1").unwrap();
        assert_eq!(last.get_or_parse(&other, "models", Reach::PublicOnly).unwrap().host, "127.0.0.1:9");
        let tls = BaseUrl::parse("https://h.example/v1").unwrap();
        assert!(last.get_or_parse(&tls, "models", Reach::Anywhere).is_none(), "https is reqwest's");
    }
}
