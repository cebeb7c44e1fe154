//! Settings: defaults < config file (`Leptos.toml`'s `[latency-guard]` table, or `LATENCY_GUARD_CONFIG`) < environment.

mod secret;
mod table;

pub use secret::Secret;
pub use table::{Setting, ValueError, SETTINGS};

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The setting that names the webhook receivers allowed at addresses that are not public.
pub const WEBHOOK_ALLOW: &str = "webhook-allow";

/// The setting that names what connectors of untrusted workspaces may reach besides public addresses.
pub const CONNECTOR_ALLOW: &str = "connector-allow";

/// Why settings could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The config file exists but could not be read.
    #[error("cannot read config file {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The config file is not valid TOML, or its `[latency-guard]` table is not a table.
    #[error("config file {path} is invalid: {reason}")]
    Parse {
        /// The file.
        path: PathBuf,
        /// Why.
        reason: String,
    },
    /// The config file names a setting that does not exist.
    #[error("config file {path}: unknown key {key:?} in [latency-guard]; the keys are {known}")]
    UnknownKey {
        /// The file.
        path: PathBuf,
        /// The key.
        key: String,
        /// Every key there is.
        known: String,
    },
    /// A value in the config file has the wrong shape.
    #[error("config file {path}: {key} = {value} is invalid: {reason}")]
    File {
        /// The file.
        path: PathBuf,
        /// The key.
        key: &'static str,
        /// Its value (never a secret's).
        value: String,
        /// Why.
        reason: String,
    },
    /// Two settings do not fit together.
    #[error("{0}")]
    Conflict(&'static str),
    /// A command that reads stored data found none where the settings point.
    #[error(
        "no latency-guard database at {path}: this command reads an existing one and creates none. Run it from the \
         folder the server runs in (its data is ./data there by default), or point LATENCY_GUARD_DATA_DIR or \
         DATABASE_URL at the server's data"
    )]
    NoData {
        /// The SQLite file that is missing.
        path: PathBuf,
    },
    /// An environment variable has a value of the wrong shape.
    #[error("environment variable {name}={value:?}{} is invalid: {reason}", key.map(|k| format!(" ({k})")).unwrap_or_default())]
    Env {
        /// The variable.
        name: &'static str,
        /// The setting's file key, when it has one.
        key: Option<&'static str>,
        /// Its value (never a secret's: secrets are not echoed).
        value: String,
        /// Why.
        reason: String,
    },
}

/// Everything the server needs to start.
#[derive(Debug, Clone)]
pub struct Settings {
    /// `sqlite://…` or `postgres://…`.
    pub database_url: String,
    /// Where the HTTP server listens.
    pub site_addr: SocketAddr,
    /// Folder for the SQLite file and the generated secret.
    pub data_dir: PathBuf,
    /// The server secret, when given; otherwise generated into `data_dir` on first start.
    pub secret: Option<Secret>,
    /// Start the bundled simulator and keep a "Demo (simulated)" connector pointing at it.
    pub demo_simulator: bool,
    /// Time limit of a connection test.
    pub connection_test_timeout: Duration,
    /// Time limit of one measured benchmark request (headers to last byte).
    pub request_timeout: Duration,
    /// How long a browser session lasts.
    pub session_ttl: Duration,
    /// EIP-155 chain ids a wallet login's message may name.
    pub siwe_chain_ids: Vec<u64>,
    /// A chain node's JSON-RPC URL for smart-contract wallets' signatures (EIP-1271); `None` refuses them.
    pub siwe_rpc_url: Option<String>,
    /// How often this process renews the heartbeat of the runs it drives (and looks for orphaned ones); a run
    /// whose owner misses six is marked interrupted.
    pub run_heartbeat: Duration,
    /// Mark the session cookie `Secure` (set when serving over https behind a proxy).
    pub secure_cookies: bool,
    /// A header a trusted reverse proxy sets to the client's address (its last entry is used), e.g.
    /// `x-forwarded-for`; `None` keys per-client budgets by the connection's peer address.
    pub client_ip_header: Option<http::HeaderName>,
    /// The address users reach the app at, used in printed login links.
    pub public_url: Option<String>,
    /// How often the in-process Guard tick runs; `None` leaves ticking to the hook alone.
    pub guard_tick_interval: Option<Duration>,
    /// Due schedules one tick runs at most.
    pub guard_tick_limit: u32,
    /// Schedules of one tick run at once at most.
    pub guard_tick_parallelism: usize,
    /// The key `POST /api/public/hooks/guard-tick` asks for in its `apikey` header; no key, no hook (404).
    pub guard_tick_api_key: Option<ApiKey>,
    /// Webhook receivers allowed at private, loopback or link-local addresses: host names or IP addresses,
    /// comma-separated (self-hosted receivers); every other private receiver is refused.
    pub webhook_allow: crate::outbound::AllowRules,
    /// What workspaces other than the install owner's and the trusted ones may reach besides public addresses:
    /// host names, IP addresses and CIDR ranges (`connector-allow`).
    pub connector_allow: crate::outbound::AllowRules,
    /// Wallets (EIP-55 addresses) whose workspaces reach any address, as the install owner's does.
    pub trusted_wallets: Vec<String>,
    /// What a workspace other than the install owner's and trusted wallets' may run at once and keep.
    pub workspace_quota: crate::model::WorkspaceQuota,
    /// Which wallets may sign in (`wallet-sign-in`: open, closed to new wallets, or a list).
    pub wallet_sign_in: crate::model::WalletAdmission,
    /// Where alert e-mail goes out; `None`: e-mail is off.
    pub smtp: Option<SmtpSettings>,
    /// Whether `GET /metrics` serves the service's own metrics (off: 404).
    pub metrics: bool,
    /// The bearer token `GET /metrics` asks for; `None`: only loopback clients are answered.
    pub metrics_token: Option<ApiKey>,
}

/// The SMTP server alert e-mail is sent through. `Debug` hides the URL, which may hold a password.
#[derive(Clone, PartialEq, Eq)]
pub struct SmtpSettings {
    /// `smtp://host:port`, `smtp://user:pass@host:587?tls=required` or `smtps://user:pass@host:465`.
    pub url: String,
    /// The sender, `Name <address>` or `address`.
    pub from: String,
}

impl std::fmt::Debug for SmtpSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SmtpSettings").field("url", &"[redacted]").field("from", &self.from).finish()
    }
}

/// A shared key presented by a caller; `Debug` never prints it.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(String);

impl std::fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ApiKey([redacted])")
    }
}

impl ApiKey {
    /// At least 16 characters, no surrounding whitespace.
    pub fn parse(text: &str) -> Result<Self, ValueError> {
        let text = text.trim();
        if text.chars().count() < 16 {
            return Err(ValueError::Rule("must be at least 16 characters (e.g. `openssl rand -hex 24`)"));
        }
        Ok(Self(text.to_string()))
    }

    /// Whether `presented` is this key, compared in constant time (over keyed hashes, so lengths leak nothing).
    pub fn matches(&self, presented: &str) -> bool {
        use hmac::{Hmac, Mac};
        use subtle::ConstantTimeEq;
        let digest = |text: &str| {
            // HMAC-SHA256 accepts keys of any length; the key here only makes both digests comparable.
            let mut mac = <Hmac<sha2::Sha256> as Mac>::new_from_slice(b"latency-guard api key").ok();
            mac.iter_mut().for_each(|m| m.update(text.as_bytes()));
            mac.map(|m| m.finalize().into_bytes().to_vec()).unwrap_or_default()
        };
        bool::from(digest(&self.0).ct_eq(&digest(presented)))
    }
}

/// The `[latency-guard]` table of a config file, each value as text for its setting's parser.
#[derive(Debug, Default)]
struct FileValues {
    path: PathBuf,
    values: BTreeMap<String, String>,
}

impl FileValues {
    /// The table of `text` (the file `path`); unknown keys and values that are not a string, number or boolean
    /// are refused by name.
    fn parse(path: &Path, text: &str) -> Result<Self, ConfigError> {
        let parse_error = |reason: String| ConfigError::Parse { path: path.into(), reason };
        let document: toml::Table = toml::from_str(text).map_err(|e| parse_error(e.to_string()))?;
        let mut values = BTreeMap::new();
        let Some(table) = document.get("latency-guard") else { return Ok(Self { path: path.into(), values }) };
        let table = table.as_table().ok_or_else(|| parse_error("[latency-guard] must be a table".into()))?;
        for (key, value) in table {
            let Some(setting) = table::by_key(key) else {
                let known: Vec<&str> = SETTINGS.iter().filter_map(|s| s.key).collect();
                return Err(ConfigError::UnknownKey { path: path.into(), key: key.clone(), known: known.join(", ") });
            };
            let text = match value {
                toml::Value::String(text) => text.clone(),
                toml::Value::Integer(_) | toml::Value::Float(_) | toml::Value::Boolean(_) => value.to_string(),
                _ => {
                    return Err(ConfigError::File {
                        path: path.into(),
                        key: setting.key.unwrap_or(setting.env),
                        value: if setting.secret { "[redacted]".into() } else { value.to_string() },
                        reason: "expected a string, a number or true/false".into(),
                    })
                }
            };
            values.insert(key.clone(), text);
        }
        Ok(Self { path: path.into(), values })
    }
}

impl SmtpSettings {
    /// Before `smtp-url` and `smtp-from` are read: no URL, the default sender.
    fn unset() -> Self {
        Self { url: String::new(), from: "latency-guard <latency-guard@localhost>".into() }
    }
}

impl Settings {
    /// Defaults for a data folder: SQLite under it, loopback:3000, demo on.
    pub fn defaults(data_dir: PathBuf) -> Self {
        Self {
            database_url: sqlite_url(&data_dir.join("latency-guard.db")),
            site_addr: SocketAddr::from(([127, 0, 0, 1], 3000)),
            data_dir,
            secret: None,
            demo_simulator: true,
            connection_test_timeout: Duration::from_secs(15),
            request_timeout: Duration::from_secs(120),
            session_ttl: Duration::from_secs(14 * 24 * 3600),
            siwe_chain_ids: vec![1],
            siwe_rpc_url: None,
            client_ip_header: None,
            run_heartbeat: Duration::from_secs(5),
            secure_cookies: false,
            public_url: None,
            guard_tick_interval: Some(Duration::from_secs(300)),
            guard_tick_limit: 25,
            guard_tick_parallelism: 4,
            guard_tick_api_key: None,
            webhook_allow: crate::outbound::AllowRules::none(WEBHOOK_ALLOW),
            connector_allow: crate::outbound::AllowRules::none(CONNECTOR_ALLOW),
            trusted_wallets: Vec::new(),
            wallet_sign_in: crate::model::WalletAdmission::Open,
            workspace_quota: crate::model::WorkspaceQuota::default(),
            smtp: None,
            metrics: false,
            metrics_token: None,
        }
    }

    /// Loads settings from the optional file and the process environment.
    pub fn load(explicit_file: Option<&Path>) -> Result<Self, ConfigError> {
        let env = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
        let file = explicit_file
            .map(Path::to_path_buf)
            .or_else(|| env("LATENCY_GUARD_CONFIG").map(PathBuf::from))
            .or_else(|| Some(PathBuf::from("Leptos.toml")).filter(|p| p.exists()));
        let from_file = match &file {
            Some(path) => read_file(path)?,
            None => FileValues::default(),
        };
        Self::merge(from_file, env)
    }

    /// Defaults, then the file's values, then the environment's, each through its setting's parser.
    fn merge(file: FileValues, env: impl Fn(&str) -> Option<String>) -> Result<Self, ConfigError> {
        let data_dir = env(table::DATA_DIR).or_else(|| file.values.get("data-dir").cloned());
        let mut settings = Self::defaults(PathBuf::from(data_dir.unwrap_or_else(|| "data".into())));
        let later = || SETTINGS.iter().filter(|s| s.env != table::DATA_DIR);
        let shown = |setting: &Setting, value: &str| if setting.secret { "[redacted]".into() } else { value.into() };
        for setting in later() {
            let Some(value) = setting.key.and_then(|key| file.values.get(key)) else { continue };
            (setting.apply)(&mut settings, value).map_err(|reason| ConfigError::File {
                path: file.path.clone(),
                key: setting.key.unwrap_or(setting.env),
                value: shown(setting, value),
                reason: reason.to_string(),
            })?;
        }
        for setting in later() {
            let Some(value) = env(setting.env) else { continue };
            (setting.apply)(&mut settings, &value).map_err(|reason| ConfigError::Env {
                name: setting.env,
                key: setting.key,
                value: shown(setting, &value),
                reason: reason.to_string(),
            })?;
        }
        if settings.smtp.as_ref().is_some_and(|smtp| smtp.url.is_empty()) {
            return Err(ConfigError::Conflict(
                "smtp-from / LATENCY_GUARD_SMTP_FROM needs smtp-url / LATENCY_GUARD_SMTP_URL too",
            ));
        }
        Ok(settings)
    }

    /// For commands that read stored data (`login-link`, `export`, `bench --connector`): the database must exist
    /// already, or they would quietly make a new, empty one (run from the wrong folder). PostgreSQL is checked
    /// by connecting.
    pub fn require_existing_data(&self) -> Result<(), ConfigError> {
        match sqlite_file(&self.database_url) {
            Some(path) if !path.exists() => {
                Err(ConfigError::NoData { path: std::path::absolute(&path).unwrap_or(path) })
            }
            _ => Ok(()),
        }
    }

    /// Where the data lives, for a command's first line: the SQLite file's absolute path, or the PostgreSQL
    /// server and database (never a password).
    pub fn database_description(&self) -> String {
        if let Some(path) = sqlite_file(&self.database_url) {
            return format!("SQLite file {}", std::path::absolute(&path).unwrap_or(path).display());
        }
        match url::Url::parse(&self.database_url) {
            Ok(url) => format!(
                "PostgreSQL database {} on {}:{}",
                url.path().trim_start_matches('/'),
                url.host_str().unwrap_or("localhost"),
                url.port().unwrap_or(5432)
            ),
            Err(_) => "the configured database".into(),
        }
    }

    /// The base URL printed in login links.
    pub fn public_base(&self) -> String {
        match &self.public_url {
            Some(url) => url.trim_end_matches('/').to_string(),
            None => format!("http://{}", self.site_addr),
        }
    }
}

/// The file of a `sqlite:` URL (`None` for PostgreSQL and in-memory databases).
fn sqlite_file(url: &str) -> Option<PathBuf> {
    let rest = url.strip_prefix("sqlite://").or_else(|| url.strip_prefix("sqlite:"))?;
    let path = rest.split('?').next().unwrap_or_default();
    (!path.is_empty() && !path.contains(":memory:")).then(|| PathBuf::from(path))
}

/// A `sqlite://` URL for a file, created when missing.
pub fn sqlite_url(path: &Path) -> String {
    format!("sqlite://{}?mode=rwc", path.display())
}

fn read_file(path: &Path) -> Result<FileValues, ConfigError> {
    let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read { path: path.into(), source })?;
    FileValues::parse(path, &text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn env_of(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let map: HashMap<String, String> = pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        move |k| map.get(k).cloned()
    }

    #[test]
    fn environment_overrides_file_which_overrides_defaults() {
        let file = FileValues::parse(
            Path::new("lg.toml"),
            "[latency-guard]\nsite-addr = \"127.0.0.1:4000\"\ndemo-simulator = false\nconnection-test-timeout-ms = 900\n\
             run-heartbeat-ms = 2000\n",
        )
        .unwrap();
        let s = Settings::merge(file, env_of(&[("LEPTOS_SITE_ADDR", "127.0.0.1:5000")])).unwrap();
        assert_eq!(s.site_addr.port(), 5000);
        assert!(!s.demo_simulator);
        assert_eq!(s.connection_test_timeout, Duration::from_millis(900));
        assert_eq!(s.run_heartbeat, Duration::from_secs(2));
        assert!(s.database_url.starts_with("sqlite://data/latency-guard.db"));
    }

    #[test]
    fn rejects_unknown_file_keys_and_bad_env_values_by_name() {
        let err = FileValues::parse(Path::new("lg.toml"), "[latency-guard]\nsite_adr = 1\n").unwrap_err();
        assert!(err.to_string().contains("site_adr") && err.to_string().contains("site-addr"), "{err}");
        let err = Settings::merge(FileValues::default(), env_of(&[("DATABASE_URL", "mysql://x")])).unwrap_err();
        assert!(err.to_string().contains("DATABASE_URL"), "{err}");
        let err =
            Settings::merge(FileValues::default(), env_of(&[("LATENCY_GUARD_DEMO_SIMULATOR", "maybe")])).unwrap_err();
        assert!(err.to_string().contains("LATENCY_GUARD_DEMO_SIMULATOR"), "{err}");
        let err =
            Settings::merge(FileValues::default(), env_of(&[("LATENCY_GUARD_RUN_HEARTBEAT_MS", "0")])).unwrap_err();
        assert!(err.to_string().contains("run-heartbeat-ms"), "{err}");
    }

    #[test]
    fn a_bad_file_value_is_a_file_error_naming_the_file_and_key() {
        let file = FileValues::parse(Path::new("lg.toml"), "[latency-guard]\nguard-tick-limit = 0\n").unwrap();
        let err = Settings::merge(file, env_of(&[])).unwrap_err();
        assert!(matches!(err, ConfigError::File { key: "guard-tick-limit", .. }), "{err:?}");
        assert_eq!(err.to_string(), "config file lg.toml: guard-tick-limit = 0 is invalid: must be at least 1");
        let file = FileValues::parse(Path::new("lg.toml"), "[latency-guard]\nguard-tick-api-key = \"short-canary\"\n");
        let err = Settings::merge(file.unwrap(), env_of(&[])).unwrap_err();
        assert!(!err.to_string().contains("short-canary") && err.to_string().contains("16 characters"), "{err}");
        let err = FileValues::parse(Path::new("lg.toml"), "[latency-guard]\nsite-addr = [1]\n").unwrap_err();
        assert!(err.to_string().contains("site-addr"), "{err}");
    }

    #[test]
    fn every_setting_is_read_from_the_environment_over_the_file() {
        let file = FileValues::parse(
            Path::new("lg.toml"),
            "[latency-guard]\nsession-ttl-hours = 2\nsmtp-url = \"smtp://f:25\"\n",
        );
        let env = env_of(&[("LATENCY_GUARD_SESSION_TTL_HOURS", "3"), ("LATENCY_GUARD_SMTP_FROM", "lg@example.com")]);
        let s = Settings::merge(file.unwrap(), env).unwrap();
        assert_eq!(s.session_ttl, Duration::from_secs(3 * 3600));
        assert_eq!(s.smtp, Some(SmtpSettings { url: "smtp://f:25".into(), from: "lg@example.com".into() }));
        let err = Settings::merge(FileValues::default(), env_of(&[("LATENCY_GUARD_SMTP_FROM", "a@b")])).unwrap_err();
        assert!(err.to_string().contains("needs smtp-url"), "{err}");
    }

    #[test]
    fn a_bad_secret_is_reported_without_echoing_it() {
        let err =
            Settings::merge(FileValues::default(), env_of(&[("LATENCY_GUARD_SECRET", "short-canary")])).unwrap_err();
        assert!(!err.to_string().contains("short-canary"), "{err}");
    }
}
