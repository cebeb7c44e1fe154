//! Connector CRUD and the connection test.

use leptos::prelude::*;

use crate::error::AppError;
use crate::model::{Checked, ConnectionTestResult, Connector, ConnectorId, ConnectorInput, TestTarget};
use crate::wire::Json;

#[cfg(feature = "ssr")]
use super::context::with_session;

/// `POST /api/connectors/list`, `{}`: the workspace's connectors by name.
#[server(prefix = "/api", endpoint = "connectors/list", input = Json, output = Json)]
pub async fn list_connectors() -> Result<Vec<Connector>, AppError> {
    with_session(|state, session| async move { Ok(state.store.list_connectors(session.workspace_id).await?) }).await
}

/// `POST /api/connectors/get`, `{"id"}`: one connector.
#[server(prefix = "/api", endpoint = "connectors/get", input = Json, output = Json)]
pub async fn get_connector(id: ConnectorId) -> Result<Connector, AppError> {
    with_session(|state, session| async move { Ok(state.store.get_connector(session.workspace_id, id).await?) }).await
}

/// `POST /api/connectors/create`, `{"input": ConnectorInput}`: validates and stores a connector.
#[server(prefix = "/api", endpoint = "connectors/create", input = Json, output = Json)]
pub async fn create_connector(input: Checked<ConnectorInput>) -> Result<Connector, AppError> {
    with_session(|state, session| async move {
        let valid = input.0.validate()?;
        crate::targets::refuse_unreachable_base_url(&state.store, &state.http, session.workspace_id, &valid.base_url)
            .await?;
        let now = state.clock.now_ms();
        Ok(state.store.create_connector(session.workspace_id, &valid, false, &state.sealer, now).await?)
    })
    .await
}

/// `POST /api/connectors/update`, `{"id", "input": ConnectorInput}`: replaces a connector's fields; a missing
/// `apiKey` or a `null` credential header keeps the stored value.
#[server(prefix = "/api", endpoint = "connectors/update", input = Json, output = Json)]
pub async fn update_connector(id: ConnectorId, input: Checked<ConnectorInput>) -> Result<Connector, AppError> {
    with_session(|state, session| async move {
        let valid = input.0.validate()?;
        crate::targets::refuse_unreachable_base_url(&state.store, &state.http, session.workspace_id, &valid.base_url)
            .await?;
        let now = state.clock.now_ms();
        Ok(state.store.update_connector(session.workspace_id, id, &valid, &state.sealer, now).await?)
    })
    .await
}

/// `POST /api/connectors/delete`, `{"id"}`.
#[server(prefix = "/api", endpoint = "connectors/delete", input = Json, output = Json)]
pub async fn delete_connector(id: ConnectorId) -> Result<(), AppError> {
    with_session(|state, session| async move { Ok(state.store.delete_connector(session.workspace_id, id).await?) })
        .await
}

/// `POST /api/connectors/test`, `{"target": {baseUrl, apiKey?, model, headers, connectorId?}}`: sends one
/// 1-token request and returns `{ok, status, ms, body}`. Nothing is stored.
#[server(prefix = "/api", endpoint = "connectors/test", input = Json, output = Json)]
pub async fn test_connector(target: Checked<TestTarget>) -> Result<ConnectionTestResult, AppError> {
    with_session(|state, session| async move {
        let target = target.0;
        let request_target = crate::targets::resolve_test_target(
            &state.store,
            &state.sealer,
            state.http.addresses(),
            session.workspace_id,
            &target,
        )
        .await?;
        let model = crate::model::ModelName::parse(&target.model)?;
        Ok(crate::engine::test_connection(
            &state.http,
            &request_target,
            model.as_str(),
            state.settings.connection_test_timeout,
        )
        .await)
    })
    .await
}
