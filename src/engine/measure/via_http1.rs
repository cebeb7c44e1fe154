//! A measured exchange through the engine's own HTTP/1.1 client (`engine::http1`): each read timed as it returned
//! and handed to the event decoder where it lies in the connection's buffer.

use tokio::time::Instant;

use super::reading::{read_head, read_rest, BodySource, ReadFailure};
use super::recorder::Recorder;
use super::Call;
use crate::engine::connection_test::KEEP_ALIVE_RACE_WINDOW;
use crate::engine::http1::{Body, BodyError, Connections, Destination, Http1Client, Method, Outgoing, SendError};
use crate::engine::sse::Flow;
use crate::model::ErrorClass;

/// Sends the request to `destination` and reads the response into `recorder`.
pub(super) async fn exchange(
    client: &Http1Client,
    destination: &Destination,
    connections: Connections,
    call: &Call<'_>,
    recorder: &mut Recorder,
) {
    let headers = match call.target.header_map() {
        Ok(h) => h,
        Err(e) => return recorder.fail(ErrorClass::Request, e.to_string()),
    };
    let outgoing = Outgoing { method: Method::Post, headers: &headers, body: Some(call.request) };
    let mut response = match client.send(destination, outgoing, connections).await {
        Ok(response) => response,
        Err(e) => {
            recorder.lost_to_keep_alive_race =
                e.lost_on_reused_connection() && recorder.sent.elapsed() < KEEP_ALIVE_RACE_WINDOW;
            return recorder.fail(send_error_class(&e), e.to_string());
        }
    };
    read_head(recorder, response.head.status.as_u16(), &response.head.headers, response.head_at);
    read_rest(&mut response.body, recorder, call.request.stream).await;
}

/// No connection: `Connect`; a head that is not HTTP: `Malformed`; the rest failed the request on its way.
fn send_error_class(error: &SendError) -> ErrorClass {
    match error {
        _ if error.is_connect() => ErrorClass::Connect,
        SendError::Head(_) => ErrorClass::Malformed,
        _ => ErrorClass::Request,
    }
}

impl BodySource for Body {
    async fn arrive(&mut self) -> Result<Option<Instant>, ReadFailure> {
        Body::arrive(self).await.map_err(failure)
    }

    fn hand_on(&mut self, on_data: impl FnMut(&[u8]) -> Flow) -> Result<Flow, ReadFailure> {
        Body::hand_on(self, on_data).map_err(failure)
    }
}

/// A broken or cut connection is a reset, as it was through hyper; broken framing is a malformed answer.
fn failure(error: BodyError) -> ReadFailure {
    let class = match error {
        BodyError::Chunked(_) => ErrorClass::Malformed,
        BodyError::Broken(_) | BodyError::ClosedEarly => ErrorClass::Reset,
    };
    ReadFailure { class, detail: error.to_string() }
}
