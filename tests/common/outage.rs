//! A TCP proxy on loopback that can cut every connection through it and refuse new ones for a while: a database
//! restart (or failover) as its clients see it, without touching the server other tests share.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;

/// The proxy; stops when dropped.
pub struct Outage {
    pub addr: SocketAddr,
    down_until: Arc<Mutex<Option<Instant>>>,
    connections: Arc<Mutex<Vec<JoinHandle<()>>>>,
    task: JoinHandle<()>,
}

impl Outage {
    /// Forwards `127.0.0.1:PORT` (printed as `addr`) to `upstream`.
    pub async fn start(upstream: SocketAddr) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let down_until: Arc<Mutex<Option<Instant>>> = Arc::default();
        let connections: Arc<Mutex<Vec<JoinHandle<()>>>> = Arc::default();
        let (down, live) = (Arc::clone(&down_until), Arc::clone(&connections));
        let task = tokio::spawn(async move {
            while let Ok((mut client, _)) = listener.accept().await {
                if down.lock().unwrap().is_some_and(|until| Instant::now() < until) {
                    drop(client); // refused while "restarting"
                    continue;
                }
                live.lock().unwrap().push(tokio::spawn(async move {
                    if let Ok(mut server) = TcpStream::connect(upstream).await {
                        let _ = tokio::io::copy_bidirectional(&mut client, &mut server).await;
                    }
                }));
            }
        });
        Self { addr, down_until, connections, task }
    }

    /// Breaks every open connection and refuses new ones for `duration`.
    pub fn cut(&self, duration: Duration) {
        *self.down_until.lock().unwrap() = Some(Instant::now() + duration);
        for connection in self.connections.lock().unwrap().drain(..) {
            connection.abort();
        }
    }
}

impl Drop for Outage {
    fn drop(&mut self) {
        self.task.abort();
        for connection in self.connections.lock().unwrap().drain(..) {
            connection.abort();
        }
    }
}
