//! Text a user types that is stored and shown: names, titles and prompts. Names must have something visible in
//! them (not only spaces or zero-width characters), no control characters (NUL breaks PostgreSQL text and
//! terminals) and a bounded length; prompts may hold line breaks and tabs but nothing else invisible-only.

use crate::model::ValidationError;

/// Characters that render as nothing: zero-width spaces and joiners, direction marks and isolates, the word
/// joiner, the soft hyphen and the byte-order mark.
fn is_invisible(c: char) -> bool {
    c.is_whitespace()
        || matches!(c, '\u{00AD}' | '\u{180E}' | '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2060}'..='\u{2064}' | '\u{2066}'..='\u{2069}' | '\u{FEFF}')
}

/// Embeddings, overrides and isolates: they reorder the characters after them, so a name can show as another
/// (`U+202E` turns `gpt-4o-mini` into what reads as something else).
fn is_direction_override(c: char) -> bool {
    matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// The number typed in `field`, or a refusal that names the field and quotes what was typed.
pub fn typed_number<T: std::str::FromStr>(raw: &str, field: &str) -> Result<T, ValidationError> {
    raw.trim().parse().map_err(|_| ValidationError::new(field, format!("{:?} is not a valid number", raw.trim())))
}

/// A name or title: trimmed, 1 to `max_chars` characters, something visible, no control characters.
pub fn display_name(raw: &str, field: &str, max_chars: usize) -> Result<String, ValidationError> {
    let text = raw.trim_matches(is_invisible);
    if text.is_empty() {
        return Err(ValidationError::new(field, "is empty (spaces and invisible characters do not count)"));
    }
    if text.chars().any(char::is_control) {
        return Err(ValidationError::new(field, "contains a control character (such as NUL or a line break)"));
    }
    if let Some(c) = text.chars().find(|c| is_direction_override(*c)) {
        return Err(ValidationError::new(
            field,
            format!(
                "contains the text-direction control U+{:04X}, which makes a name read as another; type it without",
                u32::from(c)
            ),
        ));
    }
    let chars = text.chars().count();
    if chars > max_chars {
        return Err(ValidationError::new(field, format!("has {chars} characters; at most {max_chars}")));
    }
    Ok(text.to_string())
}

/// A prompt (or system prompt): something visible, at most `max_chars` characters, no control characters but
/// line breaks and tabs.
pub fn prompt_text(raw: &str, field: &str, max_chars: usize) -> Result<(), ValidationError> {
    if raw.chars().all(is_invisible) {
        return Err(ValidationError::new(field, "prompt is empty (spaces and invisible characters do not count)"));
    }
    if raw.chars().any(|c| c.is_control() && !matches!(c, '\n' | '\r' | '\t')) {
        return Err(ValidationError::new(field, "contains a control character other than a line break or tab"));
    }
    let chars = raw.chars().count();
    if chars > max_chars {
        return Err(ValidationError::new(field, format!("has {chars} characters; at most {max_chars}")));
    }
    Ok(())
}

/// Whether `address` is one plausible e-mail address (a local part, `@`, a dotted domain; no spaces, commas or
/// semicolons, so a list is refused rather than half-used). Delivery is the proof; this catches typos.
pub fn is_one_email_address(address: &str) -> bool {
    address.len() <= 254
        && !address.chars().any(|c| c.is_whitespace() || c.is_control() || c == ',' || c == ';')
        && address.split_once('@').is_some_and(|(local, domain)| {
            !local.is_empty() && domain.contains('.') && !domain.contains('@') && !domain.starts_with('.')
        })
}

/// A level as people write it: `4`, `12.5`, `0.3` (at most 3 decimals, no trailing zeros).
pub fn trim_number(value: f64) -> String {
    let text = format!("{value:.3}");
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_need_something_visible_and_nothing_invisible_only() {
        assert_eq!(display_name("  Prod gateway \u{200B}", "name", 100).unwrap(), "Prod gateway");
        for invisible in ["", "   ", "\u{200B}\u{200C}\u{200D}", "\u{FEFF}\u{2060}", "\u{00AD}"] {
            let err = display_name(invisible, "name", 100).unwrap_err();
            assert!(err.reason.contains("is empty"), "{invisible:?}: {err:?}");
        }
        for control in ["a\0b", "a\nb", "bell\u{7}"] {
            assert!(display_name(control, "name", 100).unwrap_err().reason.contains("control"), "{control:?}");
        }
        for reordered in ["prod\u{202E}lmth.exe", "a\u{2066}b", "a\u{202A}b"] {
            assert!(
                display_name(reordered, "name", 100).unwrap_err().reason.contains("text-direction"),
                "{reordered:?}"
            );
        }
        let long = "é".repeat(101);
        assert_eq!(display_name(&long, "title", 100).unwrap_err().reason, "has 101 characters; at most 100");
        assert_eq!(display_name(&"é".repeat(100), "title", 100).unwrap().chars().count(), 100);
    }

    #[test]
    fn prompts_keep_line_breaks_and_refuse_nul_and_emptiness() {
        assert!(prompt_text("line one\n\tline two", "prompts[0]", 100).is_ok());
        assert!(prompt_text("a\0b", "prompts[0]", 100).unwrap_err().reason.contains("control character"));
        assert!(prompt_text("\u{200B} \n", "prompts[0]", 100).unwrap_err().reason.contains("empty"));
        assert!(prompt_text(&"x".repeat(101), "prompts[0]", 100).unwrap_err().reason.contains("at most 100"));
    }
}
