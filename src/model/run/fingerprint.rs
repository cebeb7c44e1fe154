//! What answered a run: each reply's own word on it (`AnsweredBy`: the body's `model` and `system_fingerprint`, the
//! `Server` header) and, over a run, every distinct value with how many replies said it (`Fingerprint`). A provider
//! that moves a model to new hardware changes its `system_fingerprint`; a gateway that routes to another model says
//! so in `model`; a self-hosted engine upgraded often says so in `Server`. A run keeps its fingerprint so that two
//! runs can be told apart by what answered them, not only by how fast.

use serde::{Deserialize, Serialize};

/// The longest value kept, characters (a reply's word is a name or a hash, not a text).
pub const IDENTITY_CHARS: usize = 120;
/// The longest value held as read, before a run scrubs the echoes of its secrets and cuts it to
/// [`IDENTITY_CHARS`]: scrubbing before the cut means no secret survives as a prefix.
pub const RAW_IDENTITY_CHARS: usize = 1_024;
/// Distinct values kept of each field over a run; replies with further values are counted under `others`.
pub const MAX_DISTINCT: usize = 8;

/// What one reply said of what answered it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AnsweredBy {
    /// The body's `model`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The body's `system_fingerprint`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_fingerprint: Option<String>,
    /// The `Server` header.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server: Option<String>,
}

impl AnsweredBy {
    /// Nothing said.
    pub fn is_empty(&self) -> bool {
        self.model.is_none() && self.system_fingerprint.is_none() && self.server.is_none()
    }

    /// `value` as read, bounded to [`RAW_IDENTITY_CHARS`] (not yet scrubbed: see [`Fingerprint::cleaned`]).
    pub fn raw(value: &str) -> String {
        value.chars().take(RAW_IDENTITY_CHARS).collect()
    }

    /// `value` cut to [`IDENTITY_CHARS`], with control characters dropped; `None` when empty.
    pub fn kept(value: &str) -> Option<String> {
        let kept: String = value.chars().filter(|c| !c.is_control()).take(IDENTITY_CHARS).collect();
        let kept = kept.trim();
        (!kept.is_empty()).then(|| kept.to_string())
    }
}

/// A value and how many replies said it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Seen {
    /// The value.
    pub value: String,
    /// Replies that said it.
    pub replies: u64,
}

/// The distinct values of one field over a run, most said first once [`Fingerprint::sorted`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SeenValues {
    /// Each value kept.
    pub values: Vec<Seen>,
    /// Replies whose value was not kept (beyond [`MAX_DISTINCT`]).
    #[serde(default)]
    pub others: u64,
}

impl SeenValues {
    fn add(&mut self, value: Option<&String>) {
        let Some(value) = value else { return };
        match self.values.iter().position(|s| &s.value == value) {
            Some(at) => self.values[at].replies += 1,
            None if self.values.len() < MAX_DISTINCT => self.values.push(Seen { value: value.clone(), replies: 1 }),
            None => self.others += 1,
        }
    }

    /// The value every reply that said one said, if there is exactly one.
    pub fn only(&self) -> Option<&str> {
        match self.values.as_slice() {
            [one] if self.others == 0 => Some(&one.value),
            _ => None,
        }
    }

    /// `a (9), b (1)`.
    fn describe(&self) -> String {
        let mut parts: Vec<String> = self.values.iter().map(|s| format!("{} ({})", s.value, s.replies)).collect();
        if self.others > 0 {
            parts.push(format!("{} more", self.others));
        }
        parts.join(", ")
    }
}

/// What answered a run's requests.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Fingerprint {
    /// Replies counted (every response with a status, failed ones included).
    pub replies: u64,
    /// The bodies' `model`.
    pub models: SeenValues,
    /// The bodies' `system_fingerprint`.
    pub system_fingerprints: SeenValues,
    /// The `Server` headers.
    pub servers: SeenValues,
}

impl Fingerprint {
    /// Counts one reply.
    pub fn add(&mut self, reply: &AnsweredBy) {
        self.replies += 1;
        self.models.add(reply.model.as_ref());
        self.system_fingerprints.add(reply.system_fingerprint.as_ref());
        self.servers.add(reply.server.as_ref());
    }

    /// The same, each field's values most said first (ties in the order first seen).
    pub fn sorted(mut self) -> Self {
        for field in [&mut self.models, &mut self.system_fingerprints, &mut self.servers] {
            field.values.sort_by_key(|seen| std::cmp::Reverse(seen.replies));
        }
        self
    }

    /// The same with every value passed through `scrub` (a run's secrets' echoes removed), then cut and cleaned
    /// as [`AnsweredBy::kept`]; replies whose value is left empty are counted under `others`.
    pub fn cleaned(mut self, scrub: impl Fn(&str) -> String) -> Self {
        for field in [&mut self.models, &mut self.system_fingerprints, &mut self.servers] {
            let mut others = field.others;
            field.values.retain_mut(|seen| match AnsweredBy::kept(&scrub(&seen.value)) {
                Some(value) => {
                    seen.value = value;
                    true
                }
                None => {
                    others += seen.replies;
                    false
                }
            });
            field.others = others;
        }
        self
    }

    /// In words, for the report's notes.
    pub fn describe(&self) -> String {
        let field = |name: &str, seen: &SeenValues| {
            let said: u64 = seen.values.iter().map(|s| s.replies).sum::<u64>() + seen.others;
            match said {
                0 => format!("no reply gave a {name}"),
                _ => format!("{name} {} in {said} of {} replies", seen.describe(), self.replies),
            }
        };
        format!(
            "What answered: {}; {}; {}.",
            field("model", &self.models),
            field("system_fingerprint", &self.system_fingerprints),
            field("Server header", &self.servers)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reply(model: &str, fingerprint: Option<&str>) -> AnsweredBy {
        AnsweredBy {
            model: Some(model.into()),
            system_fingerprint: fingerprint.map(str::to_string),
            server: Some("llama.cpp".into()),
        }
    }

    #[test]
    fn a_run_counts_each_value_and_keeps_a_bounded_few() {
        let mut f = Fingerprint::default();
        for _ in 0..3 {
            f.add(&reply("m-a", Some("fp_1")));
        }
        f.add(&reply("m-b", Some("fp_2")));
        f.add(&AnsweredBy::default());
        let f = f.sorted();
        assert_eq!(f.replies, 5);
        assert_eq!(f.models.values[0], Seen { value: "m-a".into(), replies: 3 });
        assert_eq!(f.servers.only(), Some("llama.cpp"));
        assert_eq!(f.models.only(), None);
        assert_eq!(
            f.describe(),
            "What answered: model m-a (3), m-b (1) in 4 of 5 replies; system_fingerprint fp_1 (3), fp_2 (1) in 4 of 5 \
             replies; Server header llama.cpp (4) in 4 of 5 replies."
        );
        let mut many = Fingerprint::default();
        for i in 0..20 {
            many.add(&reply(&format!("m-{i}"), None));
        }
        assert_eq!((many.models.values.len(), many.models.others), (MAX_DISTINCT, 12));
        assert!(many.describe().contains("no reply gave a system_fingerprint"));
    }

    #[test]
    fn a_value_is_cut_and_cleaned_before_it_is_kept() {
        assert_eq!(AnsweredBy::kept("  vllm/0.10.0\r\n"), Some("vllm/0.10.0".into()));
        assert_eq!(AnsweredBy::kept(&"x".repeat(500)).map(|v| v.len()), Some(IDENTITY_CHARS));
        assert_eq!(AnsweredBy::kept(" \t"), None);
    }

    #[test]
    fn what_a_run_keeps_is_scrubbed_before_it_is_cut() {
        let key = "sk-live-0123456789abcdef";
        let mut f = Fingerprint::default();
        let long = format!("{}{key}", "m".repeat(110));
        f.add(&AnsweredBy { model: Some(AnsweredBy::raw(&long)), server: Some(key.into()), ..AnsweredBy::default() });
        let f = f.cleaned(|v| v.replace(key, ""));
        // Cut first, 10 characters of the key would have stayed; scrubbed first, none does.
        assert_eq!(f.models.values[0].value, "m".repeat(110));
        assert_eq!((f.servers.values.len(), f.servers.others), (0, 1), "a value scrubbed to nothing is not kept");
    }
}
