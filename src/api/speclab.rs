//! Spec Lab: probing a stored connector's server (engine, metrics, speculative decoding). The connector's key and
//! headers go with the probe, server-side; the report holds none of them.

use leptos::prelude::*;
use leptos::server_fn::codec::Json;

use crate::error::AppError;
use crate::model::{ConnectorId, ProbeReport};

#[cfg(feature = "ssr")]
use super::context::with_session;

/// `POST /api/speclab/probe`, `{"id"}`: probes the server behind the connector.
#[server(prefix = "/api", endpoint = "speclab/probe", input = Json)]
pub async fn probe_connector(id: ConnectorId) -> Result<ProbeReport, AppError> {
    with_session(|state, session| async move {
        let stored = state.store.open_connector(session.workspace_id, id, &state.sealer).await?;
        let (_, target) = crate::targets::stored_target(stored);
        let report = crate::speclab::probe(&state.http, &target).await;
        state.store.record_probe(session.workspace_id, id, report.kind, state.clock.now_ms()).await?;
        Ok(report)
    })
    .await
}
