//! The self-contained page every HTML export is: the document around the sections the server rendered for the
//! page (the `fragments` module), styled by the app's own stylesheet, with no script and no external URL. A
//! section is written once, by the page's renderer; an export only puts it in a file.

use crate::wire::{JobPage, ServerHtml};

/// The app's stylesheet and what a file needs beyond it (no frame, the full table, print).
pub(crate) const STYLE: &str = concat!(include_str!("../../style/main.css"), include_str!("../../style/export.css"));

/// One printable page: `<title>{title}</title>`, the app's styles inline, each part as it is (trusted HTML from
/// the server's renderer, or from this module), then `footer` in a `<footer>`.
pub fn standalone_page(title: &str, parts: &[&str], footer: &str) -> String {
    let length = parts.iter().map(|p| p.len()).sum::<usize>() + STYLE.len() + 512;
    let mut page = String::with_capacity(length);
    page.push_str("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">");
    page.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>");
    page.push_str(&crate::charts::escape_text(title));
    page.push_str("</title><style>");
    page.push_str(STYLE);
    page.push_str("</style></head><body>");
    for part in parts {
        page.push_str(part);
    }
    page.push_str("<footer>");
    page.push_str(&crate::charts::escape_text(footer));
    page.push_str("</footer></body></html>\n");
    page
}

/// A job's page (a sweep, an A/B test) in a file: its header, report and notes as the server rendered them for a
/// file, titled `{title} — {kind}`.
pub fn job_page_file<S>(title: &str, kind: &str, page: &JobPage<S>) -> String {
    let parts: Vec<&str> = [Some(&page.header), page.report.as_ref(), page.notes.as_ref()]
        .into_iter()
        .flatten()
        .map(ServerHtml::as_str)
        .collect();
    standalone_page(&format!("{title} — {kind}"), &parts, MEASURED_BY_THE_CLIENT)
}

/// The footer of a file whose figures the client measured.
pub const MEASURED_BY_THE_CLIENT: &str =
    "Exported from latency-guard · all times in milliseconds, measured by the client.";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_escapes_its_title_and_footer_and_keeps_its_parts_as_rendered() {
        let page = standalone_page("A <b>&</b> B", &["<section id=\"a\">one</section>", "<p>two</p>"], "x < y");
        assert!(page.starts_with("<!DOCTYPE html>\n"));
        assert!(page.contains("<title>A &lt;b&gt;&amp;&lt;/b&gt; B</title>"));
        assert!(page.contains("</head><body><section id=\"a\">one</section><p>two</p><footer>x &lt; y</footer>"));
        assert!(page.contains(".stat-card {"), "the app's own stylesheet travels with the file");
        assert!(page.contains("@media print"));
    }
}
