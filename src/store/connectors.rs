//! Connectors: public fields in columns, credentials (API key, credential header values) sealed in one blob
//! bound to the row. Reads for the browser return [`Connector`], which cannot carry a key.

use serde::{Deserialize, Serialize};
use sqlx::any::{AnyArguments, AnyRow};
use sqlx::query::Query;
use sqlx::Any;
use sqlx::Row;
use std::collections::BTreeMap;

use super::nullable_float::float;
use super::workspaces::parse_id;
use super::{bool_to_db, found, from_json, spelled_or_null, to_json, Store, StoreError};
use crate::model::{
    credentials_kept_for, is_credential_header, BaseUrl, Connector, ConnectorId, HeaderValueChange, HeaderView,
    Holding, KeyChange, ServerKind, ValidConnector, ValidationError, WorkspaceId,
};
use crate::secrets::SecretBox;

/// The sealed part of a connector.
#[derive(Debug, Default, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct SealedSecrets {
    api_key: Option<String>,
    headers: BTreeMap<String, String>,
}

/// What an outbound call needs: everything, secrets included. Server-side only; `Debug` redacts.
#[derive(Clone, PartialEq, Eq)]
pub struct ConnectorCredentials {
    /// The API key, if any.
    pub api_key: Option<String>,
    /// Every extra header (public and credential), lower-case names.
    pub headers: BTreeMap<String, String>,
}

impl std::fmt::Debug for ConnectorCredentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ConnectorCredentials")
            .field("api_key", &self.api_key.as_ref().map(|_| "[redacted]"))
            .field("headers", &self.headers.keys().collect::<Vec<_>>())
            .finish()
    }
}

/// A connector with its credentials opened, for the engine.
#[derive(Debug, Clone)]
pub struct StoredConnector {
    /// The browser-safe view.
    pub connector: Connector,
    /// The parsed base URL.
    pub base_url: BaseUrl,
    /// Key and headers to send.
    pub credentials: ConnectorCredentials,
}

/// Column order shared by the INSERT and the UPDATE: the user-editable fields are `$1..$9` in both.
const COLUMNS: &str = "name, base_url, model, headers, secret_header_names, has_api_key, sealed_secrets, \
     input_price_per_mtok, output_price_per_mtok, updated_at, id, workspace_id, is_demo, created_at";

/// What reads return besides the written columns: the last probe's finding.
const READ_COLUMNS: &str = "name, base_url, model, headers, secret_header_names, has_api_key, sealed_secrets, \
     input_price_per_mtok, output_price_per_mtok, updated_at, id, workspace_id, is_demo, created_at, server_kind, \
     probed_at";

fn seal_context(workspace: WorkspaceId, id: ConnectorId) -> String {
    format!("connector/{workspace}/{id}")
}

/// Applies an input's key and header changes to what is stored (nothing stored on create).
/// The headers and secrets to store: the input's, with the values it keeps taken from `stored` (entered for the
/// base URL `stored_for`, to which alone they may go).
fn merge_secrets(
    input: &ValidConnector,
    stored: &SealedSecrets,
    stored_for: Option<&BaseUrl>,
) -> Result<(BTreeMap<String, String>, SealedSecrets), ValidationError> {
    let moved = |field: &str| stored_for.and_then(|old| credentials_kept_for(old, &input.base_url, field));
    let mut public = BTreeMap::new();
    let mut sealed = SealedSecrets {
        api_key: match &input.api_key {
            KeyChange::Keep if stored.api_key.is_some() => match moved("apiKey") {
                Some(refused) => return Err(refused),
                None => stored.api_key.clone(),
            },
            KeyChange::Keep => None,
            KeyChange::Clear => None,
            KeyChange::Set(key) => Some(key.clone()),
        },
        headers: BTreeMap::new(),
    };
    for (name, change) in &input.headers.0 {
        let name = name.as_str().to_string();
        let value = match change {
            HeaderValueChange::Set(v) => v.clone(),
            HeaderValueChange::KeepStored => {
                let field = format!("headers.{name}");
                if let Some(refused) = moved(&field) {
                    return Err(refused);
                }
                stored
                    .headers
                    .get(&name)
                    .cloned()
                    .ok_or_else(|| ValidationError::new(field, "no stored value to keep; enter the value"))?
            }
        };
        if is_credential_header(&name) {
            sealed.headers.insert(name, value);
        } else {
            public.insert(name, value);
        }
    }
    Ok((public, sealed))
}

impl Store {
    /// Creates a connector in `workspace`; `Invalid` when it keeps [`Holding::Connectors`]' most.
    pub async fn create_connector(
        &self,
        workspace: WorkspaceId,
        input: &ValidConnector,
        is_demo: bool,
        sealer: &SecretBox,
        now_ms: i64,
    ) -> Result<Connector, StoreError> {
        let id = ConnectorId::new_random();
        let query = format!(
            "INSERT INTO connectors ({COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $10)"
        );
        let fields = ConnectorFields::prepare(input, &SealedSecrets::default(), None, sealer, workspace, id)?;
        let mut tx = self.begin_with_room(workspace, Holding::Connectors).await?;
        fields.bind(sqlx::query(&query), now_ms, id, workspace).bind(bool_to_db(is_demo)).execute(&mut *tx).await?;
        tx.commit().await?;
        self.get_connector(workspace, id).await
    }

    /// Replaces a connector's fields; `NotFound` when it is not in `workspace`. Nothing changes on any error.
    pub async fn update_connector(
        &self,
        workspace: WorkspaceId,
        id: ConnectorId,
        input: &ValidConnector,
        sealer: &SecretBox,
        now_ms: i64,
    ) -> Result<Connector, StoreError> {
        let current = self.open_connector(workspace, id, sealer).await?;
        let stored = SealedSecrets {
            api_key: current.credentials.api_key,
            headers: current.credentials.headers.into_iter().filter(|(name, _)| is_credential_header(name)).collect(),
        };
        let fields = ConnectorFields::prepare(input, &stored, Some(&current.base_url), sealer, workspace, id)?;
        let query = "UPDATE connectors SET name = $1, base_url = $2, model = $3, headers = $4, \
             secret_header_names = $5, has_api_key = $6, sealed_secrets = $7, input_price_per_mtok = $8, \
             output_price_per_mtok = $9, updated_at = $10, \
             server_kind = CASE WHEN base_url = $2 THEN server_kind END, \
             probed_at = CASE WHEN base_url = $2 THEN probed_at END WHERE id = $11 AND workspace_id = $12";
        let updated = fields.bind(sqlx::query(query), now_ms, id, workspace).execute(&self.pool).await?.rows_affected();
        if updated != 1 {
            return Err(StoreError::NotFound);
        }
        self.get_connector(workspace, id).await
    }

    /// Records what a probe of the connector's server found (`None`: it told no engine).
    pub async fn record_probe(
        &self,
        workspace: WorkspaceId,
        id: ConnectorId,
        kind: Option<ServerKind>,
        now_ms: i64,
    ) -> Result<(), StoreError> {
        let updated =
            sqlx::query("UPDATE connectors SET server_kind = $1, probed_at = $2 WHERE id = $3 AND workspace_id = $4")
                .bind(kind.map(|k| k.as_str().to_string()))
                .bind(now_ms)
                .bind(id.to_string())
                .bind(workspace.to_string())
                .execute(&self.pool)
                .await?
                .rows_affected();
        found(updated)
    }

    /// Deletes a connector; `NotFound` when it is not in `workspace`.
    pub async fn delete_connector(&self, workspace: WorkspaceId, id: ConnectorId) -> Result<(), StoreError> {
        let deleted = sqlx::query("DELETE FROM connectors WHERE id = $1 AND workspace_id = $2")
            .bind(id.to_string())
            .bind(workspace.to_string())
            .execute(&self.pool)
            .await?
            .rows_affected();
        if deleted == 1 {
            Ok(())
        } else {
            Err(StoreError::NotFound)
        }
    }

    /// All connectors of `workspace`, by name.
    pub async fn list_connectors(&self, workspace: WorkspaceId) -> Result<Vec<Connector>, StoreError> {
        let rows = sqlx::query(&format!(
            "SELECT {READ_COLUMNS} FROM connectors WHERE workspace_id = $1 ORDER BY name, created_at"
        ))
        .bind(workspace.to_string())
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(connector_from_row).collect()
    }

    /// One connector of `workspace`, browser-safe.
    pub async fn get_connector(&self, workspace: WorkspaceId, id: ConnectorId) -> Result<Connector, StoreError> {
        let row = self.fetch_row(workspace, id).await?;
        connector_from_row(&row)
    }

    /// One connector of `workspace` with its credentials opened, for making calls.
    pub async fn open_connector(
        &self,
        workspace: WorkspaceId,
        id: ConnectorId,
        sealer: &SecretBox,
    ) -> Result<StoredConnector, StoreError> {
        let row = self.fetch_row(workspace, id).await?;
        let connector = connector_from_row(&row)?;
        let sealed: String = row.try_get("sealed_secrets")?;
        let plain = sealer.open(&sealed, &seal_context(workspace, id))?;
        let secrets: SealedSecrets =
            serde_json::from_slice(&plain).map_err(|e| StoreError::Corrupt(format!("sealed secrets: {e}")))?;
        let public: BTreeMap<String, String> = from_json(&row.try_get::<String, _>("headers")?)?;
        let mut headers = public;
        headers.extend(secrets.headers);
        let base_url = BaseUrl::parse(&connector.base_url).map_err(|e| StoreError::Corrupt(e.to_string()))?;
        Ok(StoredConnector {
            connector,
            base_url,
            credentials: ConnectorCredentials { api_key: secrets.api_key, headers },
        })
    }

    /// The workspace a connector belongs to (for administrative commands that name a connector by id alone).
    pub async fn connector_workspace(&self, id: ConnectorId) -> Result<WorkspaceId, StoreError> {
        let row = sqlx::query("SELECT workspace_id FROM connectors WHERE id = $1")
            .bind(id.to_string())
            .fetch_optional(&self.pool)
            .await?
            .ok_or(StoreError::NotFound)?;
        parse_id(&row.try_get::<String, _>("workspace_id")?)
    }

    /// Points every demo connector at `base_url` (the bundled simulator's address changes between starts).
    pub async fn repoint_demo_connectors(&self, base_url: &BaseUrl, now_ms: i64) -> Result<u64, StoreError> {
        Ok(sqlx::query(
            "UPDATE connectors SET base_url = $1, updated_at = $2, server_kind = NULL, probed_at = NULL \
             WHERE is_demo = 1 AND base_url <> $1",
        )
        .bind(base_url.as_str())
        .bind(now_ms)
        .execute(&self.pool)
        .await?
        .rows_affected())
    }

    async fn fetch_row(&self, workspace: WorkspaceId, id: ConnectorId) -> Result<AnyRow, StoreError> {
        self.workspace_row("connectors", READ_COLUMNS, workspace, id).await
    }
}

/// The values of the user-editable columns (`$1..$9` of both the INSERT and the UPDATE), secrets sealed.
struct ConnectorFields {
    name: String,
    base_url: String,
    model: String,
    public_headers: String,
    secret_header_names: String,
    has_api_key: i64,
    sealed: String,
    input_price: Option<f64>,
    output_price: Option<f64>,
}

impl ConnectorFields {
    /// Applies `input` to what is stored and seals the secrets for row `id`.
    fn prepare(
        input: &ValidConnector,
        stored: &SealedSecrets,
        stored_for: Option<&BaseUrl>,
        sealer: &SecretBox,
        workspace: WorkspaceId,
        id: ConnectorId,
    ) -> Result<Self, StoreError> {
        let (public, secrets) = merge_secrets(input, stored, stored_for)?;
        Ok(Self {
            name: input.name.clone(),
            base_url: input.base_url.as_str().to_string(),
            model: input.model.as_str().to_string(),
            public_headers: to_json(&public)?,
            secret_header_names: to_json(&secrets.headers.keys().collect::<Vec<_>>())?,
            has_api_key: bool_to_db(secrets.api_key.is_some()),
            sealed: seal(sealer, &secrets, workspace, id)?,
            input_price: input.input_price.map(|p| p.usd_per_mtok()),
            output_price: input.output_price.map(|p| p.usd_per_mtok()),
        })
    }

    /// Binds `$1..$9`, then `updated_at`, `id` and `workspace_id` as `$10..$12`.
    fn bind<'q>(
        self,
        query: Query<'q, Any, AnyArguments<'q>>,
        now_ms: i64,
        id: ConnectorId,
        workspace: WorkspaceId,
    ) -> Query<'q, Any, AnyArguments<'q>> {
        query
            .bind(self.name)
            .bind(self.base_url)
            .bind(self.model)
            .bind(self.public_headers)
            .bind(self.secret_header_names)
            .bind(self.has_api_key)
            .bind(self.sealed)
            .bind(float(self.input_price))
            .bind(float(self.output_price))
            .bind(now_ms)
            .bind(id.to_string())
            .bind(workspace.to_string())
    }
}

fn seal(
    sealer: &SecretBox,
    secrets: &SealedSecrets,
    workspace: WorkspaceId,
    id: ConnectorId,
) -> Result<String, StoreError> {
    let plain = serde_json::to_vec(secrets).map_err(|e| StoreError::Corrupt(e.to_string()))?;
    Ok(sealer.seal(&plain, &seal_context(workspace, id)))
}

fn connector_from_row(row: &AnyRow) -> Result<Connector, StoreError> {
    let public: BTreeMap<String, String> = from_json(&row.try_get::<String, _>("headers")?)?;
    let secret_names: Vec<String> = from_json(&row.try_get::<String, _>("secret_header_names")?)?;
    let mut headers: Vec<HeaderView> = public
        .into_iter()
        .map(|(name, value)| HeaderView { name, value: Some(value), secret: false })
        .chain(secret_names.into_iter().map(|name| HeaderView { name, value: None, secret: true }))
        .collect();
    headers.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(Connector {
        id: parse_id(&row.try_get::<String, _>("id")?)?,
        name: row.try_get("name")?,
        base_url: row.try_get("base_url")?,
        model: row.try_get("model")?,
        has_api_key: row.try_get::<i64, _>("has_api_key")? != 0,
        headers,
        input_price_per_mtok: row.try_get("input_price_per_mtok")?,
        output_price_per_mtok: row.try_get("output_price_per_mtok")?,
        is_demo: row.try_get::<i64, _>("is_demo")? != 0,
        server_kind: spelled_or_null(row, "server_kind", ServerKind::parse)?,
        probed_at_ms: row.try_get("probed_at")?,
        created_at_ms: row.try_get("created_at")?,
        updated_at_ms: row.try_get("updated_at")?,
    })
}
