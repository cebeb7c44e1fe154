//! The Prometheus text exposition format (version 0.0.4), parsed into samples: metric names with colons
//! (`vllm:…`, `llamacpp:…`), labels with escaped values (`\\`, `\"`, `\n`), `NaN`/`±Inf` values, optional
//! timestamps, `# HELP`/`# TYPE` lines. The crates looked at split labels on commas or refuse `:` in names,
//! which every engine here uses, so this is a small parser of our own with its bounds: a body over
//! [`MAX_BODY_BYTES`], a line over [`MAX_LINE_BYTES`] or more than [`MAX_SAMPLES`] samples is refused with a
//! clear error rather than read on (a hostile or broken server must not cost memory).

use std::collections::BTreeMap;

/// The largest exposition read (a busy vLLM server's is ~100 KB).
pub const MAX_BODY_BYTES: usize = 4 * 1024 * 1024;
/// The longest line accepted.
pub const MAX_LINE_BYTES: usize = 64 * 1024;
/// The most samples accepted.
pub const MAX_SAMPLES: usize = 50_000;

/// What a metric family is, from its `# TYPE` line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Only goes up (until the server restarts).
    Counter,
    /// Goes up and down.
    Gauge,
    /// `_bucket{le}`, `_sum`, `_count`.
    Histogram,
    /// `{quantile}`, `_sum`, `_count`.
    Summary,
    /// No `# TYPE` line, or another type.
    Untyped,
}

/// One sample line.
#[derive(Debug, Clone, PartialEq)]
pub struct Sample {
    /// The series name as written (`vllm:spec_decode_num_drafts_total`, `…_bucket`).
    pub name: String,
    /// Its labels, in the order written.
    pub labels: Labels,
    /// Its value.
    pub value: f64,
}

impl Sample {
    /// The value of label `name`.
    pub fn label(&self, name: &str) -> Option<&str> {
        self.labels.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }
}

/// A parsed exposition.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Exposition {
    /// Every sample, in order.
    pub samples: Vec<Sample>,
    /// Family kinds from `# TYPE` lines.
    pub kinds: BTreeMap<String, Kind>,
    /// The answer's `Process-Start-Time-Unix` header (llama.cpp sends one with its metrics), set by the scrape.
    pub start_header: Option<String>,
}

/// Why an exposition was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ExpositionError {
    /// The body is larger than [`MAX_BODY_BYTES`].
    #[error("the metrics body is larger than {} MiB", MAX_BODY_BYTES / 1024 / 1024)]
    TooLarge,
    /// More samples than [`MAX_SAMPLES`].
    #[error("the metrics body has more than {MAX_SAMPLES} samples")]
    TooManySamples,
    /// A line could not be read.
    #[error("line {line}: {reason}")]
    Malformed {
        /// 1-based line number.
        line: usize,
        /// What is wrong (never the line's text).
        reason: LineError,
    },
    /// Nothing in it is a sample.
    #[error("the body holds no metrics (is this a Prometheus /metrics endpoint?)")]
    Empty,
}

/// What is wrong with a line of an exposition. It never quotes the line: a body that is not metrics may be anything,
/// and a user must not read an internal service's answer through a probe's error.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum LineError {
    /// Longer than [`MAX_LINE_BYTES`].
    #[error("longer than {MAX_LINE_BYTES} bytes")]
    TooLong,
    /// It does not start with a metric name.
    #[error("expected a metric name")]
    NoName,
    /// No value after the name and labels.
    #[error("expected a value")]
    NoValue,
    /// The value is not a number (a decimal, `NaN`, `+Inf`, `-Inf`).
    #[error("the value is not a number")]
    NotANumber,
    /// The timestamp is not whole milliseconds.
    #[error("the timestamp is not a whole number of milliseconds")]
    NotATimestamp,
    /// Something follows the value and timestamp.
    #[error("unexpected text after the value")]
    TrailingText,
    /// A label set holds something other than a label name.
    #[error("expected a label name or '}}'")]
    NoLabelName,
    /// A label name without `=`.
    #[error("expected '=' after a label name")]
    NoEquals,
    /// A label value without its opening quote.
    #[error("expected '\"' before a label value")]
    NoOpeningQuote,
    /// A label value without its closing quote.
    #[error("a label value is not closed")]
    UnclosedValue,
    /// A label value followed by neither `,` nor `}`.
    #[error("expected ',' or '}}' after a label value")]
    NoSeparator,
}

impl Exposition {
    /// When the serving process started, as the server says it: llama.cpp's `Process-Start-Time-Unix` header,
    /// else the `process_start_time_seconds` series (prometheus_client's process collector: vLLM, SGLang). Two
    /// readings of one server differ in it only when the server restarted between them.
    pub fn process_start(&self) -> Option<String> {
        self.start_header.clone().or_else(|| {
            self.samples.iter().find(|s| s.name == "process_start_time_seconds").map(|s| s.value.to_string())
        })
    }

    /// Parses `body`.
    pub fn parse(body: &str) -> Result<Self, ExpositionError> {
        if body.len() > MAX_BODY_BYTES {
            return Err(ExpositionError::TooLarge);
        }
        let mut parsed = Exposition::default();
        for (index, raw) in body.lines().enumerate() {
            let malformed = |reason: LineError| ExpositionError::Malformed { line: index + 1, reason };
            if raw.len() > MAX_LINE_BYTES {
                return Err(malformed(LineError::TooLong));
            }
            let line = raw.trim();
            if line.is_empty() {
                continue;
            }
            if let Some(comment) = line.strip_prefix('#') {
                if let Some((name, kind)) = type_line(comment) {
                    parsed.kinds.insert(name.to_string(), kind);
                }
                continue;
            }
            let sample = sample_line(line).map_err(malformed)?;
            if parsed.samples.len() == MAX_SAMPLES {
                return Err(ExpositionError::TooManySamples);
            }
            parsed.samples.push(sample);
        }
        if parsed.samples.is_empty() {
            return Err(ExpositionError::Empty);
        }
        Ok(parsed)
    }

    /// Whether any series name starts with `prefix`.
    pub fn has_prefix(&self, prefix: &str) -> bool {
        self.samples.iter().any(|s| s.name.starts_with(prefix))
    }

    /// Whether series `name` is present.
    pub fn has(&self, name: &str) -> bool {
        self.samples.iter().any(|s| s.name == name)
    }

    /// The sum of series `name` over all its label sets (`engine`, `model_name`, …); `None` when absent.
    pub fn sum(&self, name: &str) -> Option<f64> {
        self.samples.iter().filter(|s| s.name == name).map(|s| s.value).reduce(|a, b| a + b)
    }

    /// Series `name` summed per value of label `label` (`position` → accepted tokens, …).
    pub fn sum_by(&self, name: &str, label: &str) -> BTreeMap<String, f64> {
        let mut sums = BTreeMap::new();
        for sample in self.samples.iter().filter(|s| s.name == name) {
            if let Some(value) = sample.label(label) {
                *sums.entry(value.to_string()).or_insert(0.0) += sample.value;
            }
        }
        sums
    }

    /// The first of `names` that is present, summed: for series renamed across versions (V1 and V0 vLLM).
    pub fn first_sum(&self, names: &[&str]) -> Option<f64> {
        names.iter().find_map(|name| self.sum(name))
    }
}

/// `TYPE name kind` of a comment line.
fn type_line(comment: &str) -> Option<(&str, Kind)> {
    let mut words = comment.split_whitespace();
    if words.next()? != "TYPE" {
        return None;
    }
    let name = words.next()?;
    let kind = match words.next()? {
        "counter" => Kind::Counter,
        "gauge" => Kind::Gauge,
        "histogram" => Kind::Histogram,
        "summary" => Kind::Summary,
        _ => Kind::Untyped,
    };
    Some((name, kind))
}

fn is_name_char(c: char, first: bool) -> bool {
    c.is_ascii_alphabetic() || c == '_' || c == ':' || (!first && c.is_ascii_digit())
}

/// `name{labels} value [timestamp]`.
fn sample_line(line: &str) -> Result<Sample, LineError> {
    let name_end = line.char_indices().find(|&(i, c)| !is_name_char(c, i == 0)).map_or(line.len(), |(i, _)| i);
    if name_end == 0 {
        return Err(LineError::NoName);
    }
    let name = &line[..name_end];
    let mut rest = &line[name_end..];
    let mut labels = Vec::new();
    if let Some(after_brace) = rest.strip_prefix('{') {
        let (parsed, after) = label_set(after_brace)?;
        labels = parsed;
        rest = after;
    }
    let mut fields = rest.split_whitespace();
    let value = number(fields.next().ok_or(LineError::NoValue)?).ok_or(LineError::NotANumber)?;
    if let Some(timestamp) = fields.next() {
        timestamp.parse::<i64>().map_err(|_| LineError::NotATimestamp)?;
    }
    if fields.next().is_some() {
        return Err(LineError::TrailingText);
    }
    Ok(Sample { name: name.to_string(), labels, value })
}

/// A series' labels: (name, unescaped value) in the order written.
type Labels = Vec<(String, String)>;

/// The labels up to the closing brace, and what follows it.
fn label_set(mut text: &str) -> Result<(Labels, &str), LineError> {
    let mut labels = Vec::new();
    loop {
        text = text.trim_start();
        if let Some(after) = text.strip_prefix('}') {
            return Ok((labels, after));
        }
        let name_end = text.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(text.len());
        if name_end == 0 {
            return Err(LineError::NoLabelName);
        }
        let name = &text[..name_end];
        text = text[name_end..].trim_start().strip_prefix('=').ok_or(LineError::NoEquals)?;
        text = text.trim_start().strip_prefix('"').ok_or(LineError::NoOpeningQuote)?;
        let mut value = String::new();
        let mut chars = text.char_indices();
        let end = loop {
            match chars.next() {
                None => return Err(LineError::UnclosedValue),
                Some((i, '"')) => break i,
                Some((_, '\\')) => match chars.next() {
                    Some((_, 'n')) => value.push('\n'),
                    Some((_, '\\')) => value.push('\\'),
                    Some((_, '"')) => value.push('"'),
                    Some((_, other)) => {
                        value.push('\\');
                        value.push(other);
                    }
                    None => return Err(LineError::UnclosedValue),
                },
                Some((_, c)) => value.push(c),
            }
        };
        labels.push((name.to_string(), value));
        text = text[end + 1..].trim_start();
        if let Some(after) = text.strip_prefix(',') {
            text = after;
        } else if !text.starts_with('}') {
            return Err(LineError::NoSeparator);
        }
    }
}

/// A sample value: decimal, `NaN`, `+Inf`, `-Inf`.
fn number(text: &str) -> Option<f64> {
    match text {
        "NaN" => Some(f64::NAN),
        "+Inf" | "Inf" => Some(f64::INFINITY),
        "-Inf" => Some(f64::NEG_INFINITY),
        other => other.parse().ok(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_names_with_colons_labels_with_escapes_and_special_values() {
        let body = concat!(
            "# HELP vllm:spec_decode_num_drafts_total Number of spec decoding drafts.\n",
            "# TYPE vllm:spec_decode_num_drafts_total counter\n",
            "vllm:spec_decode_num_drafts_total{engine=\"0\",model_name=\"m\"} 22.0\n",
            "vllm:spec_decode_num_drafts_total{engine=\"1\",model_name=\"m\"} 8\n",
            "odd{path=\"C:\\\\x, \\\"y\\\"\\n\" , other=\"}\"} NaN 1700000000000\n",
            "up +Inf\n",
            "\n",
        );
        let parsed = Exposition::parse(body).unwrap();
        assert_eq!(parsed.sum("vllm:spec_decode_num_drafts_total"), Some(30.0), "summed over engines");
        assert_eq!(parsed.kinds.get("vllm:spec_decode_num_drafts_total"), Some(&Kind::Counter));
        let odd = &parsed.samples[2];
        assert_eq!(odd.label("path"), Some("C:\\x, \"y\"\n"));
        assert_eq!(odd.label("other"), Some("}"));
        assert!(odd.value.is_nan());
        assert_eq!(parsed.sum("up"), Some(f64::INFINITY));
        assert_eq!(parsed.sum("absent"), None);
    }

    #[test]
    fn sums_by_label_and_takes_the_first_name_present() {
        let body = "a{position=\"0\",engine=\"0\"} 3\na{position=\"0\",engine=\"1\"} 2\na{position=\"1\"} 1\nb 7\n";
        let parsed = Exposition::parse(body).unwrap();
        let by = parsed.sum_by("a", "position");
        assert_eq!(by.get("0"), Some(&5.0));
        assert_eq!(by.get("1"), Some(&1.0));
        assert_eq!(parsed.first_sum(&["missing", "b", "a"]), Some(7.0));
    }

    #[test]
    fn refuses_broken_huge_and_empty_bodies_with_a_reason() {
        for (body, expected) in [
            ("ok 1\nbad{a=\"1\" 2\n", "line 2: expected ',' or '}'"),
            ("x{a=1} 2\n", "expected '\"' before a label value"),
            ("x{a=\"1} 2\n", "a label value is not closed"),
            ("x one\n", "the value is not a number"),
            ("x 1 2 3\n", "unexpected text"),
            ("{a=\"b\"} 1\n", "expected a metric name"),
            ("x 1 soon\n", "the timestamp is not a whole number of milliseconds"),
        ] {
            let err = Exposition::parse(body).unwrap_err().to_string();
            assert!(err.contains(expected), "{body:?}: {err}");
        }
        let internal = Exposition::parse("x internal-secret 17\n").unwrap_err().to_string();
        assert!(!internal.contains("secret"), "a refusal never quotes the body it refuses: {internal}");
        assert_eq!(Exposition::parse("# only comments\n\n"), Err(ExpositionError::Empty));
        let html = Exposition::parse("<html>not metrics</html>").unwrap_err().to_string();
        assert!(html.starts_with("line 1: expected a metric name"), "{html}");
        let huge = "a 1\n".repeat(MAX_BODY_BYTES / 4 + 1);
        assert_eq!(Exposition::parse(&huge), Err(ExpositionError::TooLarge));
        let many = "a 1\n".repeat(MAX_SAMPLES + 1);
        assert_eq!(Exposition::parse(&many), Err(ExpositionError::TooManySamples));
        let long = format!("a{{l=\"{}\"}} 1\n", "x".repeat(MAX_LINE_BYTES));
        assert!(Exposition::parse(&long).unwrap_err().to_string().contains("longer than"));
    }

    #[test]
    fn the_process_start_comes_from_the_header_or_the_process_collector() {
        let collector = "# TYPE process_start_time_seconds gauge\nprocess_start_time_seconds 1.75673679873e+09\n";
        let vllm = Exposition::parse(collector).unwrap();
        assert_eq!(vllm.process_start().as_deref(), Some("1756736798.73"));
        let llama = Exposition { start_header: Some("1170567060".into()), ..Exposition::parse("a 1\n").unwrap() };
        assert_eq!(llama.process_start().as_deref(), Some("1170567060"));
        assert_eq!(Exposition::parse("a 1\n").unwrap().process_start(), None);
    }
}
