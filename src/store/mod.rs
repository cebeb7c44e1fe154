//! The only module that speaks SQL. One API over SQLite (the embedded default) and PostgreSQL (shared by
//! replicas), through sqlx's `Any` driver and one set of migrations written in the dialect both accept.
//! Every query on workspace data filters by the workspace id.

mod connectors;
mod holdings;
mod jobs;
mod nullable_float;
mod rate_buckets;
mod sessions;
mod shares;
mod workspaces;

pub use connectors::{ConnectorCredentials, StoredConnector};
pub use jobs::{JobTable, ReportedJob, JOB_LIST_LIMIT};
pub use sessions::SessionRecord;
pub use shares::ShareRecord;
pub use workspaces::{Workspace, LOCAL_OWNER};

// The row toolkit the features' own store files (`guard/store/`) share with the kernel's.
pub(crate) use nullable_float::float;
pub(crate) use workspaces::parse_id;

use sqlx::any::{AnyPoolOptions, AnyRow};
use sqlx::{AnyPool, Row};
use std::str::FromStr;
use std::time::Duration;

use crate::model::ValidationError;
use crate::secrets::SealError;

/// Which database is behind the pool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    /// An SQLite file (or memory).
    Sqlite,
    /// A PostgreSQL server.
    Postgres,
}

/// Why a store operation failed.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The database refused or failed.
    #[error("database error: {0}")]
    Database(#[from] sqlx::Error),
    /// Migrations could not be applied.
    #[error("migration failed: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
    /// No such row in this workspace.
    #[error("not found")]
    NotFound,
    /// The input conflicts with what is stored (e.g. keeping a credential that is not stored).
    #[error("{0}")]
    Invalid(#[from] ValidationError),
    /// A stored secret does not open.
    #[error("stored secret: {0}")]
    Sealed(#[from] SealError),
    /// A stored value has an unexpected shape.
    #[error("stored data is corrupt: {0}")]
    Corrupt(String),
    /// The database URL is not usable.
    #[error("database URL: {0}")]
    Url(String),
}

impl StoreError {
    /// Whether trying again shortly may succeed: the connection broke or could not be made (the database is
    /// restarting, a failover), the pool had no connection in time, or SQLite was busy.
    pub fn is_transient(&self) -> bool {
        let Self::Database(error) = self else { return false };
        match error {
            sqlx::Error::Io(_) | sqlx::Error::PoolTimedOut | sqlx::Error::Tls(_) | sqlx::Error::Protocol(_) => true,
            sqlx::Error::Database(db) => db.code().is_some_and(|code| {
                // PostgreSQL: class 08 (connection exception), 57P01–57P03 (shutdown, crash, cannot connect
                // now); SQLite: 5 (busy) and 6 (locked).
                code.starts_with("08") || matches!(code.as_ref(), "57P01" | "57P02" | "57P03" | "5" | "6")
            }),
            _ => false,
        }
    }
}

/// A handle on the database; cheap to clone.
#[derive(Debug, Clone)]
pub struct Store {
    pub(crate) pool: AnyPool,
    pub(crate) backend: Backend,
}

impl Store {
    /// Connects to `url` (`sqlite://…` or `postgres://…`) and applies pending migrations.
    pub async fn connect(url: &str) -> Result<Self, StoreError> {
        sqlx::any::install_default_drivers();
        let backend = if url.starts_with("sqlite:") {
            Backend::Sqlite
        } else if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            Backend::Postgres
        } else {
            return Err(StoreError::Url("expected sqlite:… or postgres://…".into()));
        };
        let url = if backend == Backend::Sqlite {
            create_sqlite_parent_dir(url)?;
            creating_sqlite_url(url)
        } else {
            url.to_string()
        };
        let url = url.as_str();
        let in_memory = url.contains(":memory:") || url.contains("mode=memory");
        let pool = AnyPoolOptions::new()
            // One connection per in-memory SQLite database: each new connection would see an empty database.
            .max_connections(if in_memory { 1 } else { 8 })
            .acquire_timeout(Duration::from_secs(10))
            .connect(url)
            .await?;
        if backend == Backend::Sqlite {
            sqlx::query("PRAGMA foreign_keys = ON").execute(&pool).await?;
        }
        sqlx::migrate!("./migrations").run(&pool).await?;
        Ok(Self { pool, backend })
    }

    /// A transaction for a change. On SQLite it takes the write lock at its start (`BEGIN IMMEDIATE`), waiting
    /// for it under the busy timeout: a deferred transaction that read first would fail at once with "database is
    /// locked" when another writer (the in-process tick and the tick hook at the same instant, a run's batch)
    /// committed in between, and no wait can save it then.
    pub(crate) async fn begin_write(&self) -> Result<sqlx::Transaction<'static, sqlx::Any>, StoreError> {
        Ok(match self.backend {
            Backend::Sqlite => self.pool.begin_with("BEGIN IMMEDIATE").await?,
            Backend::Postgres => self.pool.begin().await?,
        })
    }

    /// Which database this is.
    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// The database's own clock, unix ms: one time for every replica sharing it.
    pub async fn database_now_ms(&self) -> Result<i64, StoreError> {
        let sql = match self.backend {
            Backend::Postgres => "SELECT CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000 AS BIGINT) AS now",
            Backend::Sqlite => "SELECT CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER) AS now",
        };
        let row = sqlx::query(sql).fetch_one(&self.pool).await?;
        Ok(sqlx::Row::try_get::<i64, _>(&row, "now")?)
    }

    /// Closes the pool, waiting for connections to be returned.
    pub async fn close(&self) {
        self.pool.close().await;
    }
}

/// A user's `sqlite:///path/new.db` names a file to use, made if missing: SQLite opens read-write without creating
/// unless told (`mode=rwc`). An explicit `mode=` is kept as given.
fn creating_sqlite_url(url: &str) -> String {
    if url.contains("mode=") || url.contains(":memory:") {
        return url.to_string();
    }
    let separator = if url.contains('?') { '&' } else { '?' };
    format!("{url}{separator}mode=rwc")
}

fn create_sqlite_parent_dir(url: &str) -> Result<(), StoreError> {
    let opts = sqlx::sqlite::SqliteConnectOptions::from_str(url).map_err(|e| StoreError::Url(e.to_string()))?;
    if let Some(dir) = opts.get_filename().parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| StoreError::Url(format!("cannot create {}: {e}", dir.display())))?;
    }
    Ok(())
}

pub(crate) fn bool_to_db(b: bool) -> i64 {
    i64::from(b)
}

impl Store {
    /// The row `id` of `workspace` in `table`, its `columns` read; `NotFound` when the workspace has no such row.
    pub(crate) async fn workspace_row(
        &self,
        table: &str,
        columns: &str,
        workspace: crate::model::WorkspaceId,
        id: impl std::fmt::Display,
    ) -> Result<AnyRow, StoreError> {
        sqlx::query(&format!("SELECT {columns} FROM {table} WHERE id = $1 AND workspace_id = $2"))
            .bind(id.to_string())
            .bind(workspace.to_string())
            .fetch_optional(&self.pool)
            .await?
            .ok_or(StoreError::NotFound)
    }

    /// After a write that touches row `id` of `workspace` in `table` only in the state it needs (`touched` rows):
    /// `true` when it touched it; otherwise `false` when the row exists in another state, `NotFound` when the
    /// workspace has no such row.
    pub(crate) async fn touched_or_found(
        &self,
        table: &str,
        touched: u64,
        workspace: crate::model::WorkspaceId,
        id: impl std::fmt::Display,
    ) -> Result<bool, StoreError> {
        if touched > 0 {
            return Ok(true);
        }
        self.workspace_row(table, "id", workspace, id).await.map(|_| false)
    }

    /// Every row of `workspace` in `table`, its `columns` read, in the order `order_by`.
    pub(crate) async fn workspace_rows(
        &self,
        table: &str,
        columns: &str,
        workspace: crate::model::WorkspaceId,
        order_by: &str,
    ) -> Result<Vec<AnyRow>, StoreError> {
        Ok(sqlx::query(&format!("SELECT {columns} FROM {table} WHERE workspace_id = $1 ORDER BY {order_by}"))
            .bind(workspace.to_string())
            .fetch_all(&self.pool)
            .await?)
    }
}

/// Deletes row `id` of `workspace` from `table` within `tx`; `NotFound` when the workspace has no such row.
pub(crate) async fn delete_workspace_row(
    tx: &mut sqlx::Transaction<'static, sqlx::Any>,
    table: &str,
    workspace: crate::model::WorkspaceId,
    id: impl std::fmt::Display,
) -> Result<(), StoreError> {
    let deleted = sqlx::query(&format!("DELETE FROM {table} WHERE id = $1 AND workspace_id = $2"))
        .bind(id.to_string())
        .bind(workspace.to_string())
        .execute(&mut **tx)
        .await?
        .rows_affected();
    found(deleted)
}

/// `NotFound` when a write touched no row: the id is not in the workspace.
pub(crate) fn found(rows_affected: u64) -> Result<(), StoreError> {
    if rows_affected == 0 {
        Err(StoreError::NotFound)
    } else {
        Ok(())
    }
}

/// A value as the JSON text stored in a column.
pub(crate) fn to_json<T: serde::Serialize>(value: &T) -> Result<String, StoreError> {
    serde_json::to_string(value).map_err(|e| StoreError::Corrupt(e.to_string()))
}

/// A JSON column read back.
pub(crate) fn from_json<T: serde::de::DeserializeOwned>(text: &str) -> Result<T, StoreError> {
    serde_json::from_str(text).map_err(|e| StoreError::Corrupt(e.to_string()))
}

/// A column holding an enum's spelling; an unknown spelling is corruption, not a default.
pub(crate) fn spelled<T>(row: &AnyRow, column: &str, parse: fn(&str) -> Option<T>) -> Result<T, StoreError> {
    spelled_or_null(row, column, parse)?.ok_or_else(|| StoreError::Corrupt(format!("{column} is NULL")))
}

/// The same for a nullable column: NULL is `None`, an unknown spelling still corruption.
pub(crate) fn spelled_or_null<T>(
    row: &AnyRow,
    column: &str,
    parse: fn(&str) -> Option<T>,
) -> Result<Option<T>, StoreError> {
    let Some(text) = row.try_get::<Option<String>, _>(column)? else { return Ok(None) };
    parse(&text).map(Some).ok_or_else(|| StoreError::Corrupt(format!("{column} {text:?}")))
}
