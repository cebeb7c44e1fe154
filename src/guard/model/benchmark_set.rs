//! Benchmark sets: a named list of prompts, with the system prompt and `max_tokens` a Guard schedule sends them
//! with. A set is what a schedule runs, once per prompt, against its connector.

use serde::{Deserialize, Serialize};

use super::cost::{CostEstimate, RunVolume};
use super::schedule::Cadence;
use crate::model::limits::MAX_TOKEN_BUDGET;
use crate::model::BenchmarkSetId;
use crate::model::ValidationError;

/// Prompts a set may hold at most (each is one request per scheduled run).
pub const MAX_SET_PROMPTS: usize = 100;
/// Characters a prompt may hold at most.
pub const MAX_PROMPT_CHARS: usize = 20_000;
/// Prompts below which a set's Welch test says little (the UI warns).
pub const ADVISED_MIN_PROMPTS: usize = 3;

/// One prompt of a set.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SetPrompt {
    /// The user message sent.
    pub text: String,
}

/// A set as the user enters it.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BenchmarkSetInput {
    /// Name, 1 to 100 characters.
    pub name: String,
    /// The prompts, 1 to [`MAX_SET_PROMPTS`].
    pub prompts: Vec<SetPrompt>,
    /// System prompt, if any.
    #[serde(default)]
    pub system_prompt: Option<String>,
    /// `max_tokens` of each request.
    pub max_tokens: u32,
}

/// A stored set.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BenchmarkSet {
    /// Id.
    pub id: BenchmarkSetId,
    /// Name.
    pub name: String,
    /// Prompts.
    pub prompts: Vec<SetPrompt>,
    /// System prompt.
    pub system_prompt: Option<String>,
    /// `max_tokens`.
    pub max_tokens: u32,
    /// Created, unix ms.
    pub created_at_ms: i64,
    /// Last changed, unix ms.
    pub updated_at_ms: i64,
}

impl BenchmarkSet {
    /// Requests and USD a day of running this set on `cadence` at `prices` (input, output USD per million tokens).
    pub fn cost_estimate(&self, cadence: Cadence, prices: (Option<f64>, Option<f64>)) -> CostEstimate {
        self.volume().per_day(cadence, prices)
    }

    /// What one run of the set sends.
    pub fn volume(&self) -> RunVolume {
        let prompts: Vec<&str> = self.prompts.iter().map(|p| p.text.as_str()).collect();
        RunVolume::of(&prompts, self.system_prompt.as_deref(), self.max_tokens)
    }
}

impl BenchmarkSetInput {
    /// Trims the name, prompts and system prompt, and checks every field.
    pub fn validate(&self) -> Result<Self, ValidationError> {
        let name = crate::model::display_name(&self.name, "name", 100)?;
        if self.prompts.is_empty() {
            return Err(ValidationError::new("prompts", "add at least one prompt"));
        }
        if self.prompts.len() > MAX_SET_PROMPTS {
            return Err(ValidationError::new("prompts", format!("at most {MAX_SET_PROMPTS} prompts")));
        }
        let mut prompts = Vec::with_capacity(self.prompts.len());
        for (i, p) in self.prompts.iter().enumerate() {
            let text = p.text.trim();
            crate::model::prompt_text(text, &format!("prompts.{i}"), MAX_PROMPT_CHARS)?;
            prompts.push(SetPrompt { text: text.to_string() });
        }
        if !(1..=MAX_TOKEN_BUDGET).contains(&self.max_tokens) {
            return Err(ValidationError::new("maxTokens", format!("must be between 1 and {MAX_TOKEN_BUDGET}")));
        }
        let system_prompt = self.system_prompt.as_deref().map(str::trim).filter(|s| !s.is_empty()).map(String::from);
        Ok(Self { name, prompts, system_prompt, max_tokens: self.max_tokens })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(prompts: &[&str]) -> BenchmarkSetInput {
        BenchmarkSetInput {
            name: " Checkout prompts ".into(),
            prompts: prompts.iter().map(|t| SetPrompt { text: t.to_string() }).collect(),
            system_prompt: Some("  ".into()),
            max_tokens: 64,
        }
    }

    #[test]
    fn a_valid_set_is_trimmed() {
        let set = input(&[" a ", "b"]).validate().unwrap();
        assert_eq!(
            (set.name.as_str(), set.prompts[0].text.as_str(), set.system_prompt),
            ("Checkout prompts", "a", None)
        );
    }

    #[test]
    fn each_bad_field_is_named() {
        let field = |i: BenchmarkSetInput| i.validate().unwrap_err().field;
        assert_eq!(field(input(&[])), "prompts");
        assert_eq!(field(input(&["a", " "])), "prompts.1");
        assert_eq!(field(BenchmarkSetInput { name: " ".into(), ..input(&["a"]) }), "name");
        assert_eq!(field(BenchmarkSetInput { max_tokens: 0, ..input(&["a"]) }), "maxTokens");
        let many: Vec<&str> = vec!["p"; MAX_SET_PROMPTS + 1];
        assert_eq!(field(input(&many)), "prompts");
    }
}
