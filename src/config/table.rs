//! Every setting once: its file key, its environment variable, how its text becomes part of [`Settings`], and
//! how `docs/CONFIGURATION.md` documents it (`tests/app/settings_doc.rs` checks its table against this one).

use std::net::SocketAddr;
use std::time::Duration;

use super::{ApiKey, Secret, Settings, SmtpSettings};

/// Why a setting's value is refused. It never quotes a secret's value: it is a rule, or a parser's reason about a
/// value that is not secret.
#[derive(Debug, thiserror::Error)]
pub enum ValueError {
    /// The rule the value breaks.
    #[error("{0}")]
    Rule(&'static str),
    /// Not a whole number (the parser's words).
    #[error("{0}")]
    Number(#[from] std::num::ParseIntError),
    /// Not a listen address.
    #[error("{0} (expected host:port, e.g. 0.0.0.0:3000)")]
    Address(#[from] std::net::AddrParseError),
    /// An address list the outbound policy cannot read.
    #[error(transparent)]
    AllowRules(#[from] crate::outbound::AllowRuleError),
    /// Who may sign in, not readable.
    #[error(transparent)]
    Admission(#[from] crate::model::AdmissionError),
    /// A wallet address that is not one.
    #[error("{written:?}: {source}")]
    Wallet {
        /// The address as written.
        written: String,
        /// Why it is not one.
        source: crate::model::AddressError,
    },
}

/// One setting.
pub struct Setting {
    /// Its key in the config file's `[latency-guard]` table; `None`: read from the environment only.
    pub key: Option<&'static str>,
    /// Its environment variable.
    pub env: &'static str,
    /// Its default, as the configuration page writes it.
    pub default: &'static str,
    /// What it does, as the configuration page writes it.
    pub meaning: &'static str,
    /// Its value is a secret: never echoed in an error.
    pub secret: bool,
    /// Parses `text` into `settings`, or says why it cannot.
    pub(super) apply: fn(&mut Settings, &str) -> Result<(), ValueError>,
}

impl Setting {
    /// `key / ENV` (or `ENV` alone), as errors name it.
    pub fn name(&self) -> String {
        match self.key {
            Some(key) => format!("{key} / {}", self.env),
            None => self.env.to_string(),
        }
    }

    /// Its row in the configuration page's table.
    pub fn readme_row(&self) -> String {
        let key = self.key.map_or("—".to_string(), |k| format!("`{k}`"));
        format!("| {key} / `{}` | {} | {} |", self.env, self.default, self.meaning)
    }
}

/// The data folder's setting: read before the others, whose defaults depend on it.
pub(super) const DATA_DIR: &str = "LATENCY_GUARD_DATA_DIR";

/// Every setting, in the configuration page's order.
pub const SETTINGS: &[Setting] = &[
    Setting {
        key: Some("database-url"),
        env: "DATABASE_URL",
        default: "the SQLite file `latency-guard.db` in `data-dir`",
        meaning: "`sqlite://…` (embedded) or `postgres://user@host/db` (several replicas can share it)",
        secret: false,
        apply: |s, v| {
            if !["sqlite:", "postgres://", "postgresql://"].iter().any(|p| v.starts_with(p)) {
                return Err(ValueError::Rule("must start with sqlite:, postgres:// or postgresql://"));
            }
            s.database_url = v.into();
            Ok(())
        },
    },
    Setting {
        key: Some("site-addr"),
        env: "LEPTOS_SITE_ADDR",
        default: "`127.0.0.1:3000`",
        meaning: "listen address",
        secret: false,
        apply: |s, v| {
            s.site_addr = v.parse::<SocketAddr>()?;
            Ok(())
        },
    },
    Setting {
        key: Some("data-dir"),
        env: DATA_DIR,
        default: "`data`",
        meaning: "SQLite file and generated secret",
        secret: false,
        // Applied first, by `Settings::merge`, since other defaults depend on it.
        apply: |s, v| {
            s.data_dir = v.into();
            Ok(())
        },
    },
    Setting {
        key: None,
        env: "LATENCY_GUARD_SECRET",
        default: "generated into `data/secret.key` (mode 0600)",
        meaning: "64 hex digits (or any 32+ characters); keys session hashing and the encryption of connector \
                  credentials",
        secret: true,
        apply: |s, v| {
            s.secret = Some(Secret::from_text(v)?);
            Ok(())
        },
    },
    Setting {
        key: Some("demo-simulator"),
        env: "LATENCY_GUARD_DEMO_SIMULATOR",
        default: "`true`",
        meaning: "run the bundled simulator and keep the demo connector pointing at it; turn off in production",
        secret: false,
        apply: |s, v| {
            s.demo_simulator = boolean(v)?;
            Ok(())
        },
    },
    Setting {
        key: Some("connection-test-timeout-ms"),
        env: "LATENCY_GUARD_CONNECTION_TEST_TIMEOUT_MS",
        default: "`15000`",
        meaning: "time limit of \"Test connection\"",
        secret: false,
        apply: |s, v| {
            s.connection_test_timeout = Duration::from_millis(at_least_one(v)?);
            Ok(())
        },
    },
    Setting {
        key: Some("request-timeout-ms"),
        env: "LATENCY_GUARD_REQUEST_TIMEOUT_MS",
        default: "`120000`",
        meaning: "time limit of one measured benchmark request",
        secret: false,
        apply: |s, v| {
            s.request_timeout = Duration::from_millis(at_least_one(v)?);
            Ok(())
        },
    },
    Setting {
        key: Some("session-ttl-hours"),
        env: "LATENCY_GUARD_SESSION_TTL_HOURS",
        default: "`336`",
        meaning: "how long a browser session lasts",
        secret: false,
        apply: |s, v| {
            s.session_ttl = Duration::from_secs(at_least_one(v)?.saturating_mul(3600));
            Ok(())
        },
    },
    Setting {
        key: Some("siwe-chain-ids"),
        env: "LATENCY_GUARD_SIWE_CHAIN_IDS",
        default: "`1`",
        meaning: "EIP-155 chain ids a wallet login (Sign-In with Ethereum) may name, comma-separated",
        secret: false,
        apply: |s, v| {
            let ids: Result<Vec<u64>, _> = v.split(',').map(|id| id.trim().parse::<u64>()).collect();
            match ids {
                Ok(ids) if !ids.is_empty() => {
                    s.siwe_chain_ids = ids;
                    Ok(())
                }
                _ => Err(ValueError::Rule("must be chain ids (whole numbers), comma-separated, e.g. 1,8453")),
            }
        },
    },
    Setting {
        key: Some("siwe-rpc-url"),
        env: "LATENCY_GUARD_SIWE_RPC_URL",
        default: "none (smart-contract wallets refused)",
        meaning: "a JSON-RPC URL of a node of the chain in `siwe-chain-ids`, to check smart-contract wallets' \
                  signatures (EIP-1271); it may hold a provider key and is never shown",
        secret: true,
        apply: |s, v| match url::Url::parse(v.trim()) {
            Ok(url) if matches!(url.scheme(), "http" | "https") && url.host_str().is_some() => {
                s.siwe_rpc_url = Some(v.trim().to_string());
                Ok(())
            }
            _ => Err(ValueError::Rule("must be an http:// or https:// URL of a chain node's JSON-RPC")),
        },
    },
    Setting {
        key: Some("client-ip-header"),
        env: "LATENCY_GUARD_CLIENT_IP_HEADER",
        default: "none (the connection's peer address)",
        meaning: "behind a reverse proxy: the header it sets to the client's address (e.g. `x-forwarded-for` or \
                  `forwarded`; its last entry counts, read as `ip`, `ip:port`, `[ipv6]:port` or RFC 7239's `for=…`; an \
                  entry in no such form is a client nobody can name, never loopback), so login rate limits apply per \
                  client rather than to the proxy",
        secret: false,
        apply: |s, v| match http::HeaderName::from_bytes(v.trim().as_bytes()) {
            Ok(name) => {
                s.client_ip_header = Some(name);
                Ok(())
            }
            Err(_) => Err(ValueError::Rule("must be an HTTP header name, e.g. x-forwarded-for")),
        },
    },
    Setting {
        key: Some("run-heartbeat-ms"),
        env: "LATENCY_GUARD_RUN_HEARTBEAT_MS",
        default: "`5000`",
        meaning: "how often a server renews the heartbeat of the runs it drives; a run whose server misses six is \
                  marked interrupted",
        secret: false,
        apply: |s, v| {
            s.run_heartbeat = Duration::from_millis(at_least_one(v)?);
            Ok(())
        },
    },
    Setting {
        key: Some("secure-cookies"),
        env: "LATENCY_GUARD_SECURE_COOKIES",
        default: "`false`",
        meaning: "mark the session cookie `Secure` (serving over https)",
        secret: false,
        apply: |s, v| {
            s.secure_cookies = boolean(v)?;
            Ok(())
        },
    },
    Setting {
        key: Some("public-url"),
        env: "LATENCY_GUARD_PUBLIC_URL",
        default: "`http://{site-addr}`",
        meaning: "the address printed in login links and alert links",
        secret: false,
        apply: |s, v| {
            s.public_url = Some(v.into());
            Ok(())
        },
    },
    Setting {
        key: Some("guard-tick-interval-s"),
        env: "LATENCY_GUARD_GUARD_TICK_INTERVAL_S",
        default: "`300`",
        meaning: "how often each server runs a Guard tick; `0` leaves ticking to the hook",
        secret: false,
        apply: |s, v| {
            let seconds = number(v)?;
            s.guard_tick_interval = (seconds > 0).then(|| Duration::from_secs(seconds));
            Ok(())
        },
    },
    Setting {
        key: Some("guard-tick-limit"),
        env: "LATENCY_GUARD_GUARD_TICK_LIMIT",
        default: "`25`",
        meaning: "due schedules one tick runs at most (oldest due first)",
        secret: false,
        apply: |s, v| {
            s.guard_tick_limit = u32::try_from(at_least_one(v)?).map_err(|_| ValueError::Rule("too large"))?;
            Ok(())
        },
    },
    Setting {
        key: Some("guard-tick-parallelism"),
        env: "LATENCY_GUARD_GUARD_TICK_PARALLELISM",
        default: "`4`",
        meaning: "Guard schedules this process evaluates at once, shared between workspaces (each an equal share; \
                  one alone holds all but one)",
        secret: false,
        apply: |s, v| {
            s.guard_tick_parallelism = usize::try_from(at_least_one(v)?).map_err(|_| ValueError::Rule("too large"))?;
            Ok(())
        },
    },
    Setting {
        key: Some("guard-tick-api-key"),
        env: "GUARD_TICK_API_KEY",
        default: "none (the hook answers 404)",
        meaning: "the `apikey` header of `POST /api/public/hooks/guard-tick`, 16+ characters",
        secret: true,
        apply: |s, v| {
            s.guard_tick_api_key = Some(ApiKey::parse(v)?);
            Ok(())
        },
    },
    Setting {
        key: Some("metrics"),
        env: "LATENCY_GUARD_METRICS",
        default: "`false` (`/metrics` answers 404)",
        meaning: "serve the service's own Prometheus metrics at `GET /metrics` (OpenMetrics text: runs, requests, \
                  Guard ticks, evaluations, alerts, deliveries, each schedule's last figures; docs/GUARD.md)",
        secret: false,
        apply: |s, v| {
            s.metrics = boolean(v)?;
            Ok(())
        },
    },
    Setting {
        key: Some("metrics-token"),
        env: "LATENCY_GUARD_METRICS_TOKEN",
        default: "none (only loopback clients are answered)",
        meaning: "the bearer token `GET /metrics` asks for (`Authorization: Bearer …`), 16+ characters; behind a \
                  reverse proxy on the same host set this, or `client-ip-header`, since every request then comes \
                  from loopback",
        secret: true,
        apply: |s, v| {
            s.metrics_token = Some(ApiKey::parse(v)?);
            Ok(())
        },
    },
    Setting {
        key: Some(super::WEBHOOK_ALLOW),
        env: "LATENCY_GUARD_WEBHOOK_ALLOW",
        default: "none",
        meaning: "comma-separated host names, IP addresses and CIDR ranges of webhook receivers allowed at \
                  addresses that are not public (loopback, private, link-local: self-hosted receivers)",
        secret: false,
        apply: |s, v| {
            s.webhook_allow = crate::outbound::AllowRules::parse(super::WEBHOOK_ALLOW, v)?;
            Ok(())
        },
    },
    Setting {
        key: Some(super::CONNECTOR_ALLOW),
        env: "LATENCY_GUARD_CONNECTOR_ALLOW",
        default: "none",
        meaning: "comma-separated host names, IP addresses and CIDR ranges (`10.0.0.0/8`) that connectors of every \
                  workspace may reach besides public addresses; the install owner's and trusted workspaces reach \
                  any address",
        secret: false,
        apply: |s, v| {
            s.connector_allow = crate::outbound::AllowRules::parse(super::CONNECTOR_ALLOW, v)?;
            Ok(())
        },
    },
    Setting {
        key: Some(crate::model::WALLET_SIGN_IN),
        env: "LATENCY_GUARD_WALLET_SIGN_IN",
        default: "`open`",
        meaning: "who may sign in with a wallet: `open` (any wallet gets a workspace), `closed` (no new wallets; \
                  those with a workspace still sign in) or comma-separated wallet addresses (those only; checked on \
                  every request, so a wallet left out loses its sessions and API tokens at once)",
        secret: false,
        apply: |s, v| {
            s.wallet_sign_in = crate::model::WalletAdmission::parse(v)?;
            Ok(())
        },
    },
    Setting {
        key: Some("workspace-max-running-runs"),
        env: "LATENCY_GUARD_WORKSPACE_MAX_RUNNING_RUNS",
        default: "`4`",
        meaning: "runs one workspace may have running at once (sweep levels and Guard's runs count); the install \
                  owner's and trusted wallets' workspaces are not limited",
        secret: false,
        apply: |s, v| {
            s.workspace_quota.max_running_runs =
                v.parse().ok().filter(|n| *n >= 1).ok_or(ValueError::Rule("a whole number of runs, at least 1"))?;
            Ok(())
        },
    },
    Setting {
        key: Some("workspace-max-stored-requests"),
        env: "LATENCY_GUARD_WORKSPACE_MAX_STORED_REQUESTS",
        default: "`5000000`",
        meaning: "measured requests one workspace's runs may hold, planned ones included (delete runs to make \
                  room); the install owner's and trusted wallets' workspaces are not limited",
        secret: false,
        apply: |s, v| {
            s.workspace_quota.max_stored_requests =
                v.parse().ok().filter(|n| *n >= 1).ok_or(ValueError::Rule("a whole number of requests, at least 1"))?;
            Ok(())
        },
    },
    Setting {
        key: Some("trusted-wallets"),
        env: "LATENCY_GUARD_TRUSTED_WALLETS",
        default: "none",
        meaning: "comma-separated wallet addresses whose workspaces reach any address, as the install owner's does \
                  (every other wallet's connectors reach public addresses and `connector-allow` only)",
        secret: false,
        apply: |s, v| {
            s.trusted_wallets = v
                .split(',')
                .map(str::trim)
                .filter(|a| !a.is_empty())
                .map(|a| {
                    crate::model::eip55_address(a)
                        .map_err(|source| ValueError::Wallet { written: a.to_string(), source })
                })
                .collect::<Result<_, _>>()?;
            Ok(())
        },
    },
    Setting {
        key: Some("smtp-url"),
        env: "LATENCY_GUARD_SMTP_URL",
        default: "none (e-mail off)",
        meaning: "`smtp://host:25`, `smtp://user:pass@host:587?tls=required` or `smtps://user:pass@host:465`",
        // It may hold a password.
        secret: true,
        apply: |s, v| {
            s.smtp.get_or_insert_with(SmtpSettings::unset).url = v.into();
            Ok(())
        },
    },
    Setting {
        key: Some("smtp-from"),
        env: "LATENCY_GUARD_SMTP_FROM",
        default: "`latency-guard <latency-guard@localhost>`",
        meaning: "the sender of alert e-mail",
        secret: false,
        apply: |s, v| {
            s.smtp.get_or_insert_with(SmtpSettings::unset).from = v.into();
            Ok(())
        },
    },
];

/// The setting whose file key is `key`.
pub(super) fn by_key(key: &str) -> Option<&'static Setting> {
    SETTINGS.iter().find(|s| s.key == Some(key))
}

fn number(text: &str) -> Result<u64, ValueError> {
    Ok(text.trim().parse()?)
}

fn at_least_one(text: &str) -> Result<u64, ValueError> {
    match number(text)? {
        0 => Err(ValueError::Rule("must be at least 1")),
        n => Ok(n),
    }
}

fn boolean(text: &str) -> Result<bool, ValueError> {
    match text.trim().to_ascii_lowercase().as_str() {
        "1" | "true" | "yes" | "on" => Ok(true),
        "0" | "false" | "no" | "off" => Ok(false),
        _ => Err(ValueError::Rule("expected true or false")),
    }
}
