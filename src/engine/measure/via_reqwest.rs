//! A measured exchange through reqwest: for https, proxies and HTTP/2 (plain `http://` without a proxy goes through
//! the engine's own client, `via_http1.rs`).

use bytes::Bytes;
use tokio::time::Instant;

use super::reading::{read_head, read_rest, BodySource, ReadFailure};
use super::recorder::Recorder;
use super::Call;
use crate::engine::connection_test::{describe_error, lost_to_keep_alive_race};
use crate::engine::sse::Flow;
use crate::model::ErrorClass;

/// Sends the request on `client` to `url` and reads the response into `recorder`.
pub(super) async fn exchange(client: &reqwest::Client, url: &str, call: &Call<'_>, recorder: &mut Recorder) {
    let headers = match call.target.header_map() {
        Ok(h) => h,
        Err(e) => return recorder.fail(ErrorClass::Request, e.to_string()),
    };
    let response = match client.post(url).headers(headers).json(call.request).send().await {
        Ok(r) => r,
        Err(e) => {
            let class = if e.is_connect() { ErrorClass::Connect } else { ErrorClass::Request };
            recorder.lost_to_keep_alive_race = lost_to_keep_alive_race(&e, recorder.sent.elapsed());
            return recorder.fail(class, describe_error(&e));
        }
    };
    read_head(recorder, response.status().as_u16(), response.headers(), Instant::now());
    read_rest(&mut ReqwestBody { response, arrived: None }, recorder, call.request.stream).await;
}

/// A body as reqwest hands it on: one piece at a time.
struct ReqwestBody {
    response: reqwest::Response,
    arrived: Option<Bytes>,
}

impl BodySource for ReqwestBody {
    async fn arrive(&mut self) -> Result<Option<Instant>, ReadFailure> {
        match self.response.chunk().await {
            Ok(Some(bytes)) => {
                self.arrived = Some(bytes);
                Ok(Some(Instant::now()))
            }
            Ok(None) => Ok(None),
            Err(e) => Err(ReadFailure { class: ErrorClass::Reset, detail: describe_error(&e) }),
        }
    }

    fn hand_on(&mut self, mut on_data: impl FnMut(&[u8]) -> Flow) -> Result<Flow, ReadFailure> {
        Ok(self.arrived.take().map_or(Flow::Continue(()), |bytes| on_data(&bytes)))
    }
}
