//! Settings: defaults < config file (`Leptos.toml`'s `[latency-guard]` table, or `LATENCY_GUARD_CONFIG`) < environment.

mod secret;

pub use secret::Secret;

use serde::Deserialize;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

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
    /// The config file is not valid TOML or has wrong types.
    #[error("config file {path} is invalid: {source}")]
    Parse {
        /// The file.
        path: PathBuf,
        /// Why.
        source: Box<toml::de::Error>,
    },
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
    #[error("environment variable {name}={value:?} is invalid: {reason}")]
    Env {
        /// The variable.
        name: &'static str,
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
    /// How often this process renews the heartbeat of the runs it drives (and looks for orphaned ones); a run
    /// whose owner misses six is marked interrupted.
    pub run_heartbeat: Duration,
    /// Mark the session cookie `Secure` (set when serving over https behind a proxy).
    pub secure_cookies: bool,
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
    pub webhook_allow: String,
    /// Where alert e-mail goes out; `None`: e-mail is off.
    pub smtp: Option<SmtpSettings>,
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
    pub fn parse(text: &str) -> Result<Self, String> {
        let text = text.trim();
        if text.chars().count() < 16 {
            return Err("must be at least 16 characters (e.g. `openssl rand -hex 24`)".into());
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

/// The `[latency-guard]` table of the config file; every key optional.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct FileSettings {
    database_url: Option<String>,
    site_addr: Option<SocketAddr>,
    data_dir: Option<PathBuf>,
    demo_simulator: Option<bool>,
    connection_test_timeout_ms: Option<u64>,
    request_timeout_ms: Option<u64>,
    session_ttl_hours: Option<u64>,
    run_heartbeat_ms: Option<u64>,
    secure_cookies: Option<bool>,
    public_url: Option<String>,
    guard_tick_interval_s: Option<u64>,
    guard_tick_limit: Option<u32>,
    guard_tick_parallelism: Option<usize>,
    guard_tick_api_key: Option<String>,
    webhook_allow: Option<String>,
    smtp_url: Option<String>,
    smtp_from: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
struct ConfigFile {
    #[serde(rename = "latency-guard", default)]
    latency_guard: FileSettings,
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
            run_heartbeat: Duration::from_secs(5),
            secure_cookies: false,
            public_url: None,
            guard_tick_interval: Some(Duration::from_secs(300)),
            guard_tick_limit: 25,
            guard_tick_parallelism: 4,
            guard_tick_api_key: None,
            webhook_allow: String::new(),
            smtp: None,
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
            None => FileSettings::default(),
        };
        Self::merge(from_file, env)
    }

    fn merge(file: FileSettings, env: impl Fn(&str) -> Option<String>) -> Result<Self, ConfigError> {
        let data_dir =
            env("LATENCY_GUARD_DATA_DIR").map(PathBuf::from).or(file.data_dir).unwrap_or_else(|| PathBuf::from("data"));
        let mut s = Self::defaults(data_dir);
        if let Some(url) = file.database_url {
            s.database_url = url;
        }
        if let Some(addr) = file.site_addr {
            s.site_addr = addr;
        }
        s.demo_simulator = file.demo_simulator.unwrap_or(s.demo_simulator);
        if let Some(ms) = file.connection_test_timeout_ms {
            s.connection_test_timeout = Duration::from_millis(ms);
        }
        if let Some(ms) = file.request_timeout_ms {
            s.request_timeout = Duration::from_millis(ms);
        }
        if let Some(ms) = file.run_heartbeat_ms {
            s.run_heartbeat = Duration::from_millis(ms);
        }
        if let Some(h) = file.session_ttl_hours {
            s.session_ttl = Duration::from_secs(h * 3600);
        }
        s.secure_cookies = file.secure_cookies.unwrap_or(s.secure_cookies);
        s.public_url = file.public_url;
        let interval = |seconds: u64| (seconds > 0).then(|| Duration::from_secs(seconds));
        if let Some(seconds) = file.guard_tick_interval_s {
            s.guard_tick_interval = interval(seconds);
        }
        s.guard_tick_limit = file.guard_tick_limit.unwrap_or(s.guard_tick_limit);
        s.guard_tick_parallelism = file.guard_tick_parallelism.unwrap_or(s.guard_tick_parallelism);
        let api_key = |name: &'static str, text: &str| {
            ApiKey::parse(text).map_err(|reason| ConfigError::Env { name, value: "[redacted]".into(), reason })
        };
        if let Some(allow) = file.webhook_allow {
            s.webhook_allow = allow;
        }
        if let Some(key) = &file.guard_tick_api_key {
            s.guard_tick_api_key = Some(api_key("guard-tick-api-key", key)?);
        }

        if let Some(url) = env("DATABASE_URL") {
            s.database_url = url;
        }
        if let Some(addr) = env("LEPTOS_SITE_ADDR") {
            s.site_addr = parse_env("LEPTOS_SITE_ADDR", &addr)?;
        }
        if let Some(v) = env("LATENCY_GUARD_DEMO_SIMULATOR") {
            s.demo_simulator = parse_bool("LATENCY_GUARD_DEMO_SIMULATOR", &v)?;
        }
        if let Some(v) = env("LATENCY_GUARD_CONNECTION_TEST_TIMEOUT_MS") {
            s.connection_test_timeout =
                Duration::from_millis(parse_env("LATENCY_GUARD_CONNECTION_TEST_TIMEOUT_MS", &v)?);
        }
        if let Some(v) = env("LATENCY_GUARD_REQUEST_TIMEOUT_MS") {
            s.request_timeout = Duration::from_millis(parse_env("LATENCY_GUARD_REQUEST_TIMEOUT_MS", &v)?);
        }
        if let Some(v) = env("LATENCY_GUARD_RUN_HEARTBEAT_MS") {
            s.run_heartbeat = Duration::from_millis(parse_env("LATENCY_GUARD_RUN_HEARTBEAT_MS", &v)?);
        }
        if let Some(v) = env("LATENCY_GUARD_SECURE_COOKIES") {
            s.secure_cookies = parse_bool("LATENCY_GUARD_SECURE_COOKIES", &v)?;
        }
        if let Some(v) = env("LATENCY_GUARD_PUBLIC_URL") {
            s.public_url = Some(v);
        }
        if let Some(v) = env("LATENCY_GUARD_GUARD_TICK_INTERVAL_S") {
            s.guard_tick_interval = interval(parse_env("LATENCY_GUARD_GUARD_TICK_INTERVAL_S", &v)?);
        }
        if let Some(v) = env("LATENCY_GUARD_GUARD_TICK_LIMIT") {
            s.guard_tick_limit = parse_env("LATENCY_GUARD_GUARD_TICK_LIMIT", &v)?;
        }
        if let Some(v) = env("LATENCY_GUARD_GUARD_TICK_PARALLELISM") {
            s.guard_tick_parallelism = parse_env("LATENCY_GUARD_GUARD_TICK_PARALLELISM", &v)?;
        }
        let smtp_url = env("LATENCY_GUARD_SMTP_URL").or(file.smtp_url);
        let smtp_from = env("LATENCY_GUARD_SMTP_FROM").or(file.smtp_from);
        s.smtp = match (smtp_url, smtp_from) {
            (Some(url), from) => Some(SmtpSettings {
                url,
                from: from.unwrap_or_else(|| "latency-guard <latency-guard@localhost>".into()),
            }),
            (None, Some(_)) => {
                return Err(ConfigError::Env {
                    name: "smtp-from / LATENCY_GUARD_SMTP_FROM",
                    value: "set".into(),
                    reason: "needs smtp-url / LATENCY_GUARD_SMTP_URL too".into(),
                })
            }
            (None, None) => None,
        };
        if let Some(v) = env("LATENCY_GUARD_WEBHOOK_ALLOW") {
            s.webhook_allow = v;
        }
        if let Some(v) = env("GUARD_TICK_API_KEY") {
            s.guard_tick_api_key = Some(api_key("GUARD_TICK_API_KEY", &v)?);
        }
        if let Some(v) = env("LATENCY_GUARD_SECRET") {
            s.secret = Some(Secret::from_text(&v).map_err(|reason| ConfigError::Env {
                name: "LATENCY_GUARD_SECRET",
                value: "[redacted]".into(),
                reason,
            })?);
        }
        if !(s.database_url.starts_with("sqlite:")
            || s.database_url.starts_with("postgres://")
            || s.database_url.starts_with("postgresql://"))
        {
            return Err(ConfigError::Env {
                name: "DATABASE_URL",
                value: s.database_url.clone(),
                reason: "must start with sqlite:, postgres:// or postgresql://".into(),
            });
        }
        if s.guard_tick_limit == 0 || s.guard_tick_parallelism == 0 {
            return Err(ConfigError::Env {
                name: "guard-tick-limit / guard-tick-parallelism",
                value: "0".into(),
                reason: "must be at least 1".into(),
            });
        }
        for (name, value) in [
            ("connection-test-timeout-ms / LATENCY_GUARD_CONNECTION_TEST_TIMEOUT_MS", s.connection_test_timeout),
            ("request-timeout-ms / LATENCY_GUARD_REQUEST_TIMEOUT_MS", s.request_timeout),
            ("run-heartbeat-ms / LATENCY_GUARD_RUN_HEARTBEAT_MS", s.run_heartbeat),
        ] {
            if value.is_zero() {
                return Err(ConfigError::Env { name, value: "0".into(), reason: "must be at least 1".into() });
            }
        }
        Ok(s)
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

fn read_file(path: &Path) -> Result<FileSettings, ConfigError> {
    let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read { path: path.into(), source })?;
    let parsed: ConfigFile =
        toml::from_str(&text).map_err(|source| ConfigError::Parse { path: path.into(), source: Box::new(source) })?;
    Ok(parsed.latency_guard)
}

fn parse_env<T: std::str::FromStr>(name: &'static str, value: &str) -> Result<T, ConfigError>
where
    T::Err: std::fmt::Display,
{
    value.parse().map_err(|e: T::Err| ConfigError::Env { name, value: value.into(), reason: e.to_string() })
}

fn parse_bool(name: &'static str, value: &str) -> Result<bool, ConfigError> {
    match value.to_ascii_lowercase().as_str() {
        "1" | "true" | "yes" | "on" => Ok(true),
        "0" | "false" | "no" | "off" => Ok(false),
        _ => Err(ConfigError::Env { name, value: value.into(), reason: "expected true or false".into() }),
    }
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
        let file: ConfigFile = toml::from_str(
            "[latency-guard]\nsite-addr = \"127.0.0.1:4000\"\ndemo-simulator = false\nconnection-test-timeout-ms = 900\n\
             run-heartbeat-ms = 2000\n",
        )
        .unwrap();
        let s = Settings::merge(file.latency_guard, env_of(&[("LEPTOS_SITE_ADDR", "127.0.0.1:5000")])).unwrap();
        assert_eq!(s.site_addr.port(), 5000);
        assert!(!s.demo_simulator);
        assert_eq!(s.connection_test_timeout, Duration::from_millis(900));
        assert_eq!(s.run_heartbeat, Duration::from_secs(2));
        assert!(s.database_url.starts_with("sqlite://data/latency-guard.db"));
    }

    #[test]
    fn rejects_unknown_file_keys_and_bad_env_values_by_name() {
        let err = toml::from_str::<ConfigFile>("[latency-guard]\nsite_adr = 1\n").unwrap_err();
        assert!(err.to_string().contains("site_adr"), "{err}");
        let err = Settings::merge(FileSettings::default(), env_of(&[("DATABASE_URL", "mysql://x")])).unwrap_err();
        assert!(err.to_string().contains("DATABASE_URL"), "{err}");
        let err =
            Settings::merge(FileSettings::default(), env_of(&[("LATENCY_GUARD_DEMO_SIMULATOR", "maybe")])).unwrap_err();
        assert!(err.to_string().contains("LATENCY_GUARD_DEMO_SIMULATOR"), "{err}");
        let err =
            Settings::merge(FileSettings::default(), env_of(&[("LATENCY_GUARD_RUN_HEARTBEAT_MS", "0")])).unwrap_err();
        assert!(err.to_string().contains("run-heartbeat-ms"), "{err}");
    }

    #[test]
    fn a_bad_secret_is_reported_without_echoing_it() {
        let err =
            Settings::merge(FileSettings::default(), env_of(&[("LATENCY_GUARD_SECRET", "short-canary")])).unwrap_err();
        assert!(!err.to_string().contains("short-canary"), "{err}");
    }
}
