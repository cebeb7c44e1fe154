//! A report's workload section: what the workload asked for beside what the server did (lengths drawn as
//! histograms, with their summaries), the cache (prompt tokens served from it, per request and by the server's own
//! metrics) and, for a multi-turn workload, the figures by turn.

use leptos::prelude::*;

use crate::report::tenths;
use crate::runs::report::{cache_words, length_rows, CountSummary, TurnSummary, WorkloadSection};

/// The workload section of a finished report; `server_metrics` is false on a share link's page, which shows none
/// of the server's own metrics.
#[component]
pub(super) fn WorkloadPanel(section: WorkloadSection, server_metrics: bool) -> impl IntoView {
    let report = section.report;
    let rows = length_rows(&report);
    view! {
        <section class="workload-section" id="workload">
            <h3>"Workload"</h3>
            <p class="muted" id="workload-spec">{report.spec.describe()}</p>
            <div class="chart-pair">
                <figure id="input-lengths">
                    <figcaption>"Prompt lengths: asked, and the server's count"</figcaption>
                    <div class="chart-box" inner_html=section.input_svg></div>
                </figure>
                <figure id="output-lengths">
                    <figcaption>"Answer lengths: asked, and the server's count"</figcaption>
                    <div class="chart-box" inner_html=section.output_svg></div>
                </figure>
            </div>
            <table class="table" id="workload-lengths">
                <thead><tr><th>"Tokens"</th><th>"Requests"</th><th>"Min"</th><th>"Median"</th><th>"Mean"</th>
                    <th>"Max"</th></tr></thead>
                <tbody>{rows.into_iter().map(|(label, summary)| length_row(label, summary)).collect_view()}</tbody>
            </table>
            <p class="muted" id="ended-early">{format!(
                "{} answer(s) ended before their asked length.", report.ended_early
            )}</p>
            <CachePanel
                cached=report.cached_tokens
                share=section.cached_share
                server_hit_rate=section.server_hit_rate.filter(|_| server_metrics)
            />
            <TurnTable turns=report.by_turn conversations=report.conversations/>
        </section>
    }
}

/// One row of the lengths table, medians by the report's percentile method.
fn length_row(label: &'static str, s: CountSummary) -> impl IntoView {
    view! {
        <tr><td>{label}</td><td>{s.n}</td><td>{tenths(s.min)}</td><td>{tenths(s.p50)}</td><td>{tenths(s.mean)}</td>
            <td>{tenths(s.max)}</td></tr>
    }
}

/// The cache: prompt tokens the server said it served from its cache (usage.prompt_tokens_details.cached_tokens,
/// or llama.cpp's timings.cache_n), and its own hit rate when its metrics were recorded.
#[component]
fn CachePanel(cached: Option<CountSummary>, share: Option<f64>, server_hit_rate: Option<String>) -> impl IntoView {
    let per_request = cache_words(cached, share);
    view! {
        <div class="cache-section" id="cache">
            <h4>"Cache"</h4>
            <p id="cache-per-request">{per_request}</p>
            {server_hit_rate.map(|rate| view! {
                <p id="cache-server">{format!("The server's own prefix-cache hit rate over the run: {rate}.")}</p>
            })}
        </div>
    }
}

/// A multi-turn workload's figures by turn (nothing for other workloads).
#[component]
fn TurnTable(turns: Vec<TurnSummary>, conversations: Option<crate::runs::report::Conversations>) -> impl IntoView {
    let n = |v: Option<f64>| v.map_or_else(|| "—".to_string(), tenths);
    (!turns.is_empty()).then(|| view! {
        <div class="by-turn">
            <h4>"By turn"</h4>
            {conversations.map(|c| view! {
                <p class="muted" id="conversations">{format!(
                    "{} conversation(s) started, {} sent every turn.", c.started, c.completed
                )}</p>
            })}
            <table class="table" id="by-turn">
                <thead><tr><th>"Turn"</th><th>"Done"</th><th>"Failed"</th><th>"TTFT p50 / p95 (ms)"</th>
                    <th>"TPOT p50 (ms)"</th><th>"Prompt tokens (mean)"</th><th>"Cached tokens (mean)"</th></tr></thead>
                <tbody>{turns.into_iter().map(|t| view! {
                    <tr>
                        <td>{t.turn}</td>
                        <td>{t.requests}</td>
                        <td>{t.failed}</td>
                        <td>{format!("{} / {}", n(t.ttft_p50_ms), n(t.ttft_p95_ms))}</td>
                        <td>{n(t.tpot_p50_ms)}</td>
                        <td>{n(t.prompt_tokens_mean)}</td>
                        <td>{n(t.cached_tokens_mean)}</td>
                    </tr>
                }).collect_view()}</tbody>
            </table>
        </div>
    })
}

#[cfg(test)]
mod tests {
    use crate::model::fixtures::{completed_run, iteration_record, plan_input};
    use crate::model::{IterationRecord, LengthDist, TokenSource, Workload};

    /// Turn `index % 2` of conversation `index / 2`: its prompt `prompt` tokens, `cached` of them from the cache.
    fn turn(index: u32, prompt: u64, cached: u64) -> IterationRecord {
        let asked = if index.is_multiple_of(2) { 30 } else { 10 };
        IterationRecord {
            prompt_index: index,
            asked_input_tokens: Some(asked),
            made_input_tokens: Some(asked),
            asked_output_tokens: Some(5),
            tokens_in: Some(prompt),
            tokens_out: Some(5),
            cached_tokens: Some(cached),
            token_source: TokenSource::Reported,
            ..iteration_record(u64::from(index), Some(20.0 + f64::from(index)), 80.0, false)
        }
    }

    #[test]
    fn a_multi_turn_report_shows_its_lengths_cache_and_turns_in_a_file() {
        let mut input = plan_input(&[], 64, 1);
        input.iterations = 1;
        input.workload = Some(Workload::MultiTurn {
            users: 2,
            turns: 2,
            first: LengthDist::fixed(30),
            follow_up: LengthDist::fixed(10),
            output: LengthDist::fixed(5),
            think: Default::default(),
            seed: 4,
        });
        let run = completed_run(input, "m");
        let (snapshot, _) =
            crate::runs::report::snapshot(&run, vec![turn(0, 32, 0), turn(1, 47, 32), turn(2, 32, 0), turn(3, 47, 40)]);
        let html = crate::runs::fragments::report_file_sections(&snapshot).into_string();
        let section = &html[html.find("id=\"workload\"").unwrap()..html.find("id=\"server\"").unwrap()];
        assert!(section.contains("multi-turn: 2 conversation(s) of 2 turns"), "{section}");
        // Asked prompts 30, 10, 30, 10: median 20; the server counted first turns at 32 (2 more than asked).
        assert!(section.contains("<td>Prompt, asked</td><td>4</td><td>10</td><td>20</td>"), "{section}");
        let deviation = "count − asked (first turns)</td><td>2</td><td>2</td>";
        assert!(section.contains(deviation), "{section}");
        // Turn 2 is requests 1 and 3, TTFT 21 and 23 ms: numpy.percentile([21, 23], [50, 95]) = 22, 22.9.
        // (0 + 32 + 0 + 40) / (32 + 47 + 32 + 47) = 45.6 %.
        assert!(section.contains("; 45.6% of their prompt tokens"), "{section}");
        assert!(section.contains("<tr><td>2</td><td>2</td><td>0</td><td>22 / 22.9</td>"), "{section}");
        assert!(section.contains("class=\"bar asked\"") && section.contains("class=\"bar served\""));
        let (without, _) = crate::runs::report::snapshot(&completed_run(plan_input(&["p"], 64, 1), "m"), vec![]);
        assert!(!crate::runs::fragments::report_file_sections(&without).as_str().contains("id=\"workload\""));
    }
}
