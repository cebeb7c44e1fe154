//! The settings table of `docs/CONFIGURATION.md` is the code's table: every setting with its file key, environment variable,
//! default and meaning, in order, and nothing else. On a mismatch the message prints the rows to paste.
#![cfg(feature = "ssr")]
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a failing test should panic loudly")]

use latency_guard::config::SETTINGS;

const HEADER: &str = "| setting (file key / environment) | default | meaning |";

#[test]
fn the_configuration_page_lists_every_setting_as_the_code_reads_it() {
    let page = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/CONFIGURATION.md")).unwrap();
    let documented: Vec<&str> =
        page.lines().skip_while(|line| *line != HEADER).skip(2).take_while(|line| line.starts_with('|')).collect();
    let expected: Vec<String> = SETTINGS.iter().map(|s| s.readme_row()).collect();
    assert!(!expected.is_empty());
    assert_eq!(
        documented,
        expected,
        "docs/CONFIGURATION.md's settings table should read:\n{HEADER}\n|---|---|---|\n{}",
        expected.join("\n")
    );
}
