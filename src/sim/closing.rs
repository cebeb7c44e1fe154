//! Serving like a server that closes every connection after one response while advertising keep-alive
//! (llama.cpp's does): the response goes out without `Connection: close`, so clients pool the connection, and a
//! second request on it is dropped unanswered as the connection closes. A client that reuses connections loses
//! that request before any response byte, exactly as against the real server.

use axum::body::Body;
use axum::Router;
use hyper_util::rt::TokioIo;
use std::convert::Infallible;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use tokio::net::TcpListener;
use tower::ServiceExt;

use super::arrival::Stamped;
use super::completion::SimState;

/// Accepts connections until the task is aborted, counting them; each serves one request.
pub(super) async fn serve(listener: TcpListener, app: Router, state: SimState) {
    loop {
        let Ok((tcp, _)) = listener.accept().await else { continue };
        state.count_connection();
        let _ = tcp.set_nodelay(true);
        tokio::spawn(one_response(tcp, app.clone()));
    }
}

/// Serves the connection's first request; a second one closes the connection without an answer.
async fn one_response(tcp: tokio::net::TcpStream, app: Router) {
    let tcp = Stamped::new(tcp);
    let arrival = axum::extract::ConnectInfo(tcp.arrival());
    let (close, closed) = tokio::sync::oneshot::channel::<()>();
    let close = Arc::new(std::sync::Mutex::new(Some(close)));
    let served = Arc::new(AtomicUsize::new(0));
    let service = hyper::service::service_fn(move |mut request: hyper::Request<hyper::body::Incoming>| {
        let (app, close, served) = (app.clone(), Arc::clone(&close), Arc::clone(&served));
        request.extensions_mut().insert(arrival.clone());
        async move {
            if served.fetch_add(1, Ordering::SeqCst) > 0 {
                if let Some(close) = close.lock().ok().and_then(|mut c| c.take()) {
                    let _ = close.send(());
                }
                std::future::pending::<()>().await;
            }
            let response = app.oneshot(request.map(Body::new)).await;
            Ok::<_, Infallible>(match response {
                Ok(response) => response,
                Err(never) => match never {},
            })
        }
    });
    let connection = hyper::server::conn::http1::Builder::new().serve_connection(TokioIo::new(tcp), service);
    tokio::select! {
        _ = connection => {}
        _ = closed => {} // dropping the connection closes the socket with the second request unanswered
    }
}
