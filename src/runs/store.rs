//! Runs and their iterations. Iterations are written in batches, each batch in one transaction, as they finish:
//! a server stopped mid-run loses no finished iteration.

use futures::TryStreamExt;
use sqlx::any::AnyRow;
use sqlx::Row;

use crate::model::{
    ClientLoad, Connector, ConnectorId, Fingerprint, IterationRecord, Measurement, OpenedAhead, PromptTokenizer,
    RunHeadline, RunId, RunPlan, RunStatus, RunView, ServerMetrics, TokenSource, WorkspaceId, WorkspaceQuota,
};
use crate::runs::report::{page_count, IterationPage, ReportSnapshot, SortKey, TableQuery};
use crate::stats::RunSummary;
use crate::store::float;
use crate::store::parse_id;
use crate::store::{bool_to_db, found, from_json, spelled, to_json, Backend, Store, StoreError};

const ITERATION_COLUMNS: &str = "seq, prompt_index, iteration, warmup, ttft_ms, total_ms, tokens_in, tokens_out, \
     cost_usd, error, token_source, schedule_lag_ms, retries, reconnects, engine_timings, first_output_ms, tpot_ms, \
     itl_ms, max_itl_ms, itl_gaps, sent_at_ms, prompt, asked_input_tokens, made_input_tokens, asked_output_tokens, \
     cached_tokens, server_first_output_ms";

const RUN_COLUMNS: &str = "id, title, plan, base_url, model, input_price_per_mtok, output_price_per_mtok, status, \
     total_requests, stream_options_rejected, opened_ahead, prompt_tokenizer, client_load, fingerprint, \
     headline, failure, created_at, finished_at";

/// How a run ended: what `finish_run` keeps of it.
#[derive(Debug, Clone, PartialEq)]
pub struct RunEnding {
    /// Completed, cancelled, interrupted or failed.
    pub status: RunStatus,
    /// Why it failed, if it did.
    pub failure: Option<String>,
    /// The endpoint rejected `stream_options`.
    pub stream_options_rejected: bool,
    /// The connections opened before the first request.
    pub opened_ahead: Option<OpenedAhead>,
    /// What the load generator's process did while the run sent.
    pub client_load: Option<ClientLoad>,
    /// What answered its requests.
    pub fingerprint: Option<Fingerprint>,
    /// Its headline figures over what it recorded (none when it recorded nothing measured).
    pub headline: Option<RunHeadline>,
}

impl Store {
    /// Records a new run of `plan` against `connector`, status `running`, driven by the server process `owner`.
    pub async fn create_run(
        &self,
        workspace: WorkspaceId,
        id: RunId,
        plan: &RunPlan,
        connector: &Connector,
        owner: &str,
        now_ms: i64,
    ) -> Result<RunView, StoreError> {
        self.create_run_within(workspace, id, plan, (connector, owner), None, now_ms).await
    }

    /// [`Store::create_run`] when `quota` (if any) admits it, counted and inserted in one transaction: two starts
    /// at once cannot both take the last place (on PostgreSQL the workspace's row is locked; SQLite has one
    /// writer). `Invalid`, naming the limit, when it does not.
    pub async fn create_run_within(
        &self,
        workspace: WorkspaceId,
        id: RunId,
        plan: &RunPlan,
        (connector, owner): (&Connector, &str),
        quota: Option<&WorkspaceQuota>,
        now_ms: i64,
    ) -> Result<RunView, StoreError> {
        let plan_json = serde_json::to_string(plan).map_err(|e| StoreError::Corrupt(e.to_string()))?;
        let mut tx = self.begin_write().await?;
        if let Some(quota) = quota {
            if self.backend == Backend::Postgres {
                sqlx::query("SELECT id FROM workspaces WHERE id = $1 FOR UPDATE")
                    .bind(workspace.to_string())
                    .fetch_optional(&mut *tx)
                    .await?;
            }
            let row = sqlx::query(
                "SELECT CAST(COALESCE(SUM(CASE WHEN status = 'running' THEN 1 ELSE 0 END), 0) AS BIGINT) AS running, \
                 CAST(COALESCE(SUM(total_requests), 0) AS BIGINT) AS stored FROM runs WHERE workspace_id = $1",
            )
            .bind(workspace.to_string())
            .fetch_one(&mut *tx)
            .await?;
            let count = |column: &str| -> Result<u64, StoreError> {
                Ok(u64::try_from(row.try_get::<i64, _>(column)?).unwrap_or(0))
            };
            quota.admits(count("running")?, count("stored")?, plan.total_requests())?;
        }
        sqlx::query(
            "INSERT INTO runs (id, workspace_id, connector_id, title, plan, base_url, model, input_price_per_mtok, \
             output_price_per_mtok, status, total_requests, created_at, owner, heartbeat_at) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $12)",
        )
        .bind(id.to_string())
        .bind(workspace.to_string())
        .bind(connector.id.to_string())
        .bind(&plan.title)
        .bind(plan_json)
        .bind(&connector.base_url)
        .bind(&connector.model)
        .bind(float(connector.input_price_per_mtok))
        .bind(float(connector.output_price_per_mtok))
        .bind(RunStatus::Running.as_str())
        .bind(i64::try_from(plan.total_requests()).unwrap_or(i64::MAX))
        .bind(now_ms)
        .bind(owner)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        self.get_run(workspace, id).await
    }

    /// Appends finished iterations in one transaction. Idempotent: a batch written again after its commit's
    /// acknowledgement was lost (the database restarted) keeps the rows already stored.
    pub async fn insert_iterations(
        &self,
        run: RunId,
        batch: &[(IterationRecord, Measurement)],
        prompts: PromptsKept,
    ) -> Result<(), StoreError> {
        let mut tx = self.begin_write().await?;
        for (record, measurement) in batch {
            let raw = serde_json::to_string(measurement).map_err(|e| StoreError::Corrupt(e.to_string()))?;
            let engine_timings = record
                .engine_timings
                .map(|t| serde_json::to_string(&t))
                .transpose()
                .map_err(|e| StoreError::Corrupt(e.to_string()))?;
            sqlx::query(
                "INSERT INTO run_iterations (run_id, seq, prompt_index, iteration, warmup, ttft_ms, total_ms, tokens_in, \
                 tokens_out, cost_usd, error, token_source, schedule_lag_ms, measurement, retries, reconnects, \
                 engine_timings, first_output_ms, tpot_ms, itl_ms, max_itl_ms, itl_gaps, sent_at_ms, prompt, \
                 asked_input_tokens, made_input_tokens, asked_output_tokens, cached_tokens, server_first_output_ms) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, \
                 $21, $22, $23, $24, $25, $26, $27, $28, $29) \
                 ON CONFLICT (run_id, seq) DO NOTHING",
            )
            .bind(run.to_string())
            .bind(i64::try_from(record.seq).unwrap_or(i64::MAX))
            .bind(i64::from(record.prompt_index))
            .bind(i64::from(record.iteration))
            .bind(bool_to_db(record.warmup))
            .bind(float(record.ttft_ms))
            .bind(record.total_ms)
            .bind(record.tokens_in.map(|t| i64::try_from(t).unwrap_or(i64::MAX)))
            .bind(record.tokens_out.map(|t| i64::try_from(t).unwrap_or(i64::MAX)))
            .bind(float(record.cost_usd))
            .bind(record.error.as_deref())
            .bind(record.token_source.as_str())
            .bind(record.schedule_lag_ms)
            .bind(raw)
            .bind(i64::from(record.retries))
            .bind(i64::from(record.reconnects))
            .bind(engine_timings)
            .bind(float(record.first_output_ms))
            .bind(float(record.tpot_ms))
            .bind(float(record.itl_ms))
            .bind(float(record.max_itl_ms))
            .bind(record.itl_gaps.as_ref().map(crate::model::LogHistogram::to_text))
            .bind(float(record.sent_at_ms))
            .bind((prompts == PromptsKept::PerRow).then_some(record.prompt.as_str()))
            .bind(record.asked_input_tokens.map(i64::from))
            .bind(record.made_input_tokens.map(i64::from))
            .bind(record.asked_output_tokens.map(i64::from))
            .bind(record.cached_tokens.map(|t| i64::try_from(t).unwrap_or(i64::MAX)))
            .bind(float(record.server_first_output_ms))
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
        Ok(())
    }

    /// Ends a run as `ending` says (never back to running).
    pub async fn finish_run(&self, run: RunId, ending: &RunEnding, now_ms: i64) -> Result<(), StoreError> {
        let opened_ahead = ending.opened_ahead.as_ref().map(to_json).transpose()?;
        let client_load = ending.client_load.as_ref().map(to_json).transpose()?;
        let fingerprint = ending.fingerprint.as_ref().map(to_json).transpose()?;
        let headline = ending.headline.as_ref().map(to_json).transpose()?;
        sqlx::query(
            "UPDATE runs SET status = $1, failure = $2, stream_options_rejected = $3, opened_ahead = $4, \
             client_load = $5, fingerprint = $6, headline = $7, finished_at = $8 WHERE id = $9 AND status = 'running'",
        )
        .bind(ending.status.as_str())
        .bind(ending.failure.as_deref())
        .bind(bool_to_db(ending.stream_options_rejected))
        .bind(opened_ahead)
        .bind(client_load)
        .bind(fingerprint)
        .bind(headline)
        .bind(now_ms)
        .bind(run.to_string())
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// Renames a run of `workspace` (its report's title).
    pub async fn rename_run(&self, workspace: WorkspaceId, id: RunId, title: &str) -> Result<(), StoreError> {
        let renamed = sqlx::query("UPDATE runs SET title = $1 WHERE id = $2 AND workspace_id = $3")
            .bind(title)
            .bind(id.to_string())
            .bind(workspace.to_string())
            .execute(&self.pool)
            .await?
            .rows_affected();
        found(renamed)
    }

    /// Deletes a finished run of `workspace` with its iterations and share link; `Ok(false)` when it is still
    /// running (cancel it first), `NotFound` when it is not in `workspace`.
    pub async fn delete_run(&self, workspace: WorkspaceId, id: RunId) -> Result<bool, StoreError> {
        let run = self.get_run(workspace, id).await?;
        if run.status == RunStatus::Running {
            return Ok(false);
        }
        let mut tx = self.begin_write().await?;
        // Children first and explicitly, so the delete does not depend on each backend's foreign-key settings.
        for table in ["run_iterations", "report_shares"] {
            sqlx::query(&format!("DELETE FROM {table} WHERE run_id = $1"))
                .bind(id.to_string())
                .execute(&mut *tx)
                .await?;
        }
        sqlx::query("DELETE FROM runs WHERE id = $1 AND workspace_id = $2 AND status <> 'running'")
            .bind(id.to_string())
            .bind(workspace.to_string())
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(true)
    }

    /// The workspace a run belongs to, for operator commands that name a run by id alone.
    pub async fn run_workspace(&self, id: RunId) -> Result<WorkspaceId, StoreError> {
        let row = sqlx::query("SELECT workspace_id FROM runs WHERE id = $1")
            .bind(id.to_string())
            .fetch_optional(&self.pool)
            .await?
            .ok_or(StoreError::NotFound)?;
        parse_id(&row.try_get::<String, _>("workspace_id")?)
    }

    /// One run of `workspace`.
    pub async fn get_run(&self, workspace: WorkspaceId, id: RunId) -> Result<RunView, StoreError> {
        run_from_row(&self.workspace_row("runs", RUN_COLUMNS, workspace, id).await?)
    }

    /// The newest `limit` runs of `workspace`, newest first (what the home page lists).
    pub async fn recent_runs(&self, workspace: WorkspaceId, limit: u32) -> Result<Vec<RunView>, StoreError> {
        let rows = sqlx::query(&format!(
            "SELECT {RUN_COLUMNS} FROM runs WHERE workspace_id = $1 ORDER BY created_at DESC, id LIMIT $2"
        ))
        .bind(workspace.to_string())
        .bind(i64::from(limit))
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(run_from_row).collect()
    }

    /// How many runs of `workspace` each of its connectors has, any status (a connector without runs is left out).
    pub async fn runs_per_connector(&self, workspace: WorkspaceId) -> Result<Vec<(ConnectorId, u64)>, StoreError> {
        let rows =
            sqlx::query("SELECT connector_id, COUNT(*) AS n FROM runs WHERE workspace_id = $1 GROUP BY connector_id")
                .bind(workspace.to_string())
                .fetch_all(&self.pool)
                .await?;
        rows.iter()
            .map(|row| {
                Ok((
                    parse_id(&row.try_get::<String, _>("connector_id")?)?,
                    to_u64(Some(row.try_get("n")?)).unwrap_or(0),
                ))
            })
            .collect()
    }

    /// The runs of `workspace`, newest first.
    pub async fn list_runs(&self, workspace: WorkspaceId) -> Result<Vec<RunView>, StoreError> {
        let rows = sqlx::query(&format!(
            "SELECT {RUN_COLUMNS} FROM runs WHERE workspace_id = $1 ORDER BY created_at DESC, id"
        ))
        .bind(workspace.to_string())
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(run_from_row).collect()
    }

    /// The newest `limit` completed runs of `workspace` on `connector`, newest first (the runs a baseline can be
    /// pinned from).
    pub async fn completed_runs_on(
        &self,
        workspace: WorkspaceId,
        connector: ConnectorId,
        limit: u32,
    ) -> Result<Vec<RunView>, StoreError> {
        let rows = sqlx::query(&format!(
            "SELECT {RUN_COLUMNS} FROM runs WHERE workspace_id = $1 AND connector_id = $2 AND status = $3 \
             ORDER BY created_at DESC, id LIMIT $4"
        ))
        .bind(workspace.to_string())
        .bind(connector.to_string())
        .bind(RunStatus::Completed.as_str())
        .bind(i64::from(limit))
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(run_from_row).collect()
    }

    /// Stores the tokenizer a run's workload prompts were made with.
    pub async fn set_run_prompt_tokenizer(&self, run: RunId, used: &PromptTokenizer) -> Result<(), StoreError> {
        sqlx::query("UPDATE runs SET prompt_tokenizer = $1 WHERE id = $2")
            .bind(to_json(used)?)
            .bind(run.to_string())
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// Stores what a run recorded of its server's metrics.
    pub async fn set_run_server_metrics(&self, run: RunId, metrics: &ServerMetrics) -> Result<(), StoreError> {
        sqlx::query("UPDATE runs SET server_metrics = $1 WHERE id = $2")
            .bind(to_json(metrics)?)
            .bind(run.to_string())
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// What a run of `workspace` recorded of its server's metrics, if anything.
    pub async fn run_server_metrics(
        &self,
        workspace: WorkspaceId,
        run: RunId,
    ) -> Result<Option<ServerMetrics>, StoreError> {
        let row = sqlx::query("SELECT server_metrics FROM runs WHERE id = $1 AND workspace_id = $2")
            .bind(run.to_string())
            .bind(workspace.to_string())
            .fetch_optional(&self.pool)
            .await?
            .ok_or(StoreError::NotFound)?;
        row.try_get::<Option<String>, _>("server_metrics")?.map(|text| from_json(&text)).transpose()
    }

    /// A run of `workspace` and its iterations in send order.
    pub async fn run_with_iterations(
        &self,
        workspace: WorkspaceId,
        id: RunId,
    ) -> Result<(RunView, Vec<IterationRecord>), StoreError> {
        let records = self.run_iterations(workspace, id).await?;
        Ok((self.get_run(workspace, id).await?, records))
    }

    /// The iterations of a run of `workspace` in send order, with prompt texts from its plan.
    pub async fn run_iterations(&self, workspace: WorkspaceId, id: RunId) -> Result<Vec<IterationRecord>, StoreError> {
        self.run_iterations_from(workspace, id, 0).await
    }

    /// The iterations of a run of `workspace` whose send sequence number is `from_seq` or later, in send order.
    pub async fn run_iterations_from(
        &self,
        workspace: WorkspaceId,
        id: RunId,
        from_seq: u64,
    ) -> Result<Vec<IterationRecord>, StoreError> {
        let run = self.get_run(workspace, id).await?;
        let sql =
            format!("SELECT {ITERATION_COLUMNS} FROM run_iterations WHERE run_id = $1 AND seq >= $2 ORDER BY seq");
        let mut rows =
            sqlx::query(&sql).bind(id.to_string()).bind(i64::try_from(from_seq).unwrap_or(i64::MAX)).fetch(&self.pool);
        // Row by row: a 100,000-iteration run would otherwise hold every raw row and every record at once.
        let mut records = Vec::with_capacity(usize::try_from(run.total_requests).unwrap_or(0).min(1 << 20));
        while let Some(row) = rows.try_next().await? {
            records.push(record_from_row(&row, &run.plan)?);
        }
        Ok(records)
    }

    /// A run of `workspace`, its report snapshot and summary, built from every stored iteration.
    pub async fn run_report(
        &self,
        workspace: WorkspaceId,
        id: RunId,
    ) -> Result<(RunView, ReportSnapshot, RunSummary), StoreError> {
        let run = self.get_run(workspace, id).await?;
        let records = self.run_iterations(workspace, id).await?;
        let (snapshot, summary) = crate::runs::report::snapshot(&run, records);
        let snapshot = crate::runs::report::with_server(snapshot, self.run_server_metrics(workspace, id).await?);
        Ok((run, snapshot, summary))
    }

    /// One page of a run's iteration table, sorted and filtered in the database: the same answer as
    /// [`table_page`](crate::runs::report::table_page) over every iteration, without reading them all.
    pub async fn iteration_page(
        &self,
        workspace: WorkspaceId,
        id: RunId,
        query: &TableQuery,
    ) -> Result<IterationPage, StoreError> {
        let run = self.get_run(workspace, id).await?;
        let filter = if query.errors_only { " AND error IS NOT NULL" } else { "" };
        let count = sqlx::query(&format!("SELECT COUNT(*) AS n FROM run_iterations WHERE run_id = $1{filter}"))
            .bind(id.to_string())
            .fetch_one(&self.pool)
            .await?;
        let matching = usize::try_from(count.try_get::<i64, _>("n")?).unwrap_or(0);
        let size = query.size();
        let pages = page_count(matching, size);
        let page = query.page.min(pages - 1);
        let column = match query.sort {
            SortKey::Seq => "seq",
            SortKey::Ttft => "ttft_ms",
            SortKey::Total => "total_ms",
            SortKey::TokensOut => "tokens_out",
        };
        let direction = if query.descending { "DESC" } else { "ASC" };
        // Missing values last in either direction, ties in send order: `table_page`'s order.
        let rows = sqlx::query(&format!(
            "SELECT {ITERATION_COLUMNS} FROM run_iterations WHERE run_id = $1{filter} \
             ORDER BY ({column} IS NULL), {column} {direction}, seq LIMIT $2 OFFSET $3"
        ))
        .bind(id.to_string())
        .bind(i64::try_from(size).unwrap_or(i64::MAX))
        .bind(i64::try_from(page * size).unwrap_or(i64::MAX))
        .fetch_all(&self.pool)
        .await?;
        let rows = rows.iter().map(|row| record_from_row(row, &run.plan)).collect::<Result<_, _>>()?;
        Ok(IterationPage { rows, matching, pages, page })
    }
}

/// Where a run's prompts are kept: in its plan (a list of prompts, each sent many times), or in each iteration's row
/// (a workload's prompts, made or read per request).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PromptsKept {
    /// The plan holds them; a row names its prompt by index.
    InPlan,
    /// Each row keeps its own (shortened for its row).
    PerRow,
}

impl PromptsKept {
    /// Where `plan`'s prompts are kept.
    pub fn of(plan: &RunPlan) -> Self {
        if plan.workload.is_some() {
            Self::PerRow
        } else {
            Self::InPlan
        }
    }
}

fn to_u64(v: Option<i64>) -> Option<u64> {
    v.and_then(|v| u64::try_from(v).ok())
}

fn record_from_row(row: &AnyRow, plan: &RunPlan) -> Result<IterationRecord, StoreError> {
    let prompt_index =
        u32::try_from(row.try_get::<i64, _>("prompt_index")?).map_err(|e| StoreError::Corrupt(e.to_string()))?;
    let prompt = match row.try_get::<Option<String>, _>("prompt")? {
        Some(made) => made,
        None => plan
            .prompts
            .get(prompt_index as usize)
            .map(|p| crate::model::row_prompt(p))
            .ok_or_else(|| StoreError::Corrupt(format!("prompt index {prompt_index} outside the plan")))?,
    };
    let length = |column: &str| -> Result<Option<u32>, StoreError> {
        Ok(row.try_get::<Option<i64>, _>(column)?.map(|v| u32::try_from(v).unwrap_or(u32::MAX)))
    };
    let token_source = spelled(row, "token_source", TokenSource::parse)?;
    Ok(IterationRecord {
        prompt,
        iteration: u32::try_from(row.try_get::<i64, _>("iteration")?).unwrap_or(u32::MAX),
        ttft_ms: row.try_get("ttft_ms")?,
        total_ms: row.try_get("total_ms")?,
        tokens_in: to_u64(row.try_get("tokens_in")?),
        tokens_out: to_u64(row.try_get("tokens_out")?),
        cost_usd: row.try_get("cost_usd")?,
        error: row.try_get("error")?,
        seq: to_u64(Some(row.try_get("seq")?)).unwrap_or(0),
        prompt_index,
        warmup: row.try_get::<i64, _>("warmup")? != 0,
        token_source,
        schedule_lag_ms: row.try_get("schedule_lag_ms")?,
        retries: u32::try_from(row.try_get::<i64, _>("retries")?).unwrap_or(u32::MAX),
        reconnects: u32::try_from(row.try_get::<i64, _>("reconnects")?).unwrap_or(u32::MAX),
        engine_timings: row
            .try_get::<Option<String>, _>("engine_timings")?
            .map(|text| serde_json::from_str(&text))
            .transpose()
            .map_err(|e| StoreError::Corrupt(format!("an iteration's engine timings: {e}")))?,
        first_output_ms: row.try_get("first_output_ms")?,
        tpot_ms: row.try_get("tpot_ms")?,
        itl_ms: row.try_get("itl_ms")?,
        max_itl_ms: row.try_get("max_itl_ms")?,
        itl_gaps: row
            .try_get::<Option<String>, _>("itl_gaps")?
            .map(|text| {
                crate::model::LogHistogram::parse(&text)
                    .ok_or_else(|| StoreError::Corrupt(format!("an iteration's ITL histogram {text:?}")))
            })
            .transpose()?,
        sent_at_ms: row.try_get("sent_at_ms")?,
        good: None,
        cached_tokens: to_u64(row.try_get("cached_tokens")?),
        server_first_output_ms: row.try_get("server_first_output_ms")?,
        asked_input_tokens: length("asked_input_tokens")?,
        made_input_tokens: length("made_input_tokens")?,
        asked_output_tokens: length("asked_output_tokens")?,
    })
}

fn run_from_row(row: &AnyRow) -> Result<RunView, StoreError> {
    let status_text: String = row.try_get("status")?;
    Ok(RunView {
        id: parse_id(&row.try_get::<String, _>("id")?)?,
        title: row.try_get("title")?,
        status: RunStatus::parse(&status_text)
            .ok_or_else(|| StoreError::Corrupt(format!("run status {status_text:?}")))?,
        plan: serde_json::from_str(&row.try_get::<String, _>("plan")?)
            .map_err(|e| StoreError::Corrupt(e.to_string()))?,
        base_url: row.try_get("base_url")?,
        model: row.try_get("model")?,
        input_price_per_mtok: row.try_get("input_price_per_mtok")?,
        output_price_per_mtok: row.try_get("output_price_per_mtok")?,
        total_requests: to_u64(Some(row.try_get("total_requests")?)).unwrap_or(0),
        stream_options_rejected: row.try_get::<i64, _>("stream_options_rejected")? != 0,
        opened_ahead: row.try_get::<Option<String>, _>("opened_ahead")?.as_deref().map(from_json).transpose()?,
        prompt_tokenizer: row
            .try_get::<Option<String>, _>("prompt_tokenizer")?
            .as_deref()
            .map(from_json)
            .transpose()?,
        client_load: row.try_get::<Option<String>, _>("client_load")?.as_deref().map(from_json).transpose()?,
        fingerprint: row.try_get::<Option<String>, _>("fingerprint")?.as_deref().map(from_json).transpose()?,
        headline: row.try_get::<Option<String>, _>("headline")?.as_deref().map(from_json).transpose()?,
        failure: row.try_get("failure")?,
        created_at_ms: row.try_get("created_at")?,
        finished_at_ms: row.try_get("finished_at")?,
    })
}
