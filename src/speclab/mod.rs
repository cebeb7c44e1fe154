//! Spec Lab: what self-hosted servers (vLLM, SGLang, TGI, llama.cpp) say about themselves — their metrics
//! parsed, the engine identified, what they show of speculative decoding, the probe, and the recorder that reads
//! a server during a run — and A/B tests of two connectors: the rounds, the report, and the manager that runs them
//! in the server as background jobs (`manager`, the only part that knows the store). Knows nothing of HTTP
//! serving.

mod ab;
mod ab_report;
mod engines;
mod exposition;
mod latency;
mod manager;
mod probe;
mod recorder;

pub use ab::{run_ab, AbArm, AbProgress, AbWorkload, MeasuredArm, MeasuredCell, TimedRecord};
pub use ab_report::ab_report;
pub use engines::{identify, spec_evidence, SpecEvidence};
pub use exposition::{Exposition, ExpositionError, Kind, Sample, MAX_BODY_BYTES, MAX_LINE_BYTES, MAX_SAMPLES};
pub use manager::AbManager;
pub use probe::{probe, scrape, FetchFailure, ScrapeError, PROBE_TIMEOUT};
pub use recorder::{record_during, SCRAPE_EVERY};
