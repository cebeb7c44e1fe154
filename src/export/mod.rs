//! What every exported file shares: one self-contained, printable page around the sections the server rendered
//! for the page itself ([`standalone_page`]; a report's, a sweep's and an A/B test's HTML export are each that), and
//! a file's name. A report's own files (JSON, CSV, its HTML page) are the runs feature's (`runs::report`).

mod document;

pub use self::document::{job_page_file, standalone_page, MEASURED_BY_THE_CLIENT};

/// `<kind>-<title>-<date>.<extension>`: the title reduced to lowercase letters, digits and single dashes (at most
/// 60 characters; "report" when nothing is left), the date the first ten characters of an ISO 8601 time.
pub fn named_file(kind: &str, title: &str, created_at: &str, extension: &str) -> String {
    let mut slug = String::new();
    for c in title.chars().flat_map(char::to_lowercase) {
        if c.is_ascii_alphanumeric() {
            slug.push(c);
        } else if !slug.ends_with('-') {
            slug.push('-');
        }
    }
    let slug: String = slug.trim_matches('-').chars().take(60).collect();
    let date = created_at.get(..10).unwrap_or("undated");
    let name = if slug.is_empty() { "report".to_string() } else { slug };
    format!("{kind}-{name}-{date}.{extension}")
}
