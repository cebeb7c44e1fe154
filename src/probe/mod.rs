//! What a self-hosted server (vLLM, SGLang, TGI, llama.cpp) says about itself: its Prometheus metrics parsed
//! (`exposition`, bounded before it is read), the engine identified and what it shows of speculative decoding
//! (`engines`), its own queueing and prefill times (`latency`), the probe that reads it once (`report`), and the
//! recorder that reads it during a run (`recorder`). Runs, Spec Lab's A/B tests and the connection page use it;
//! it knows nothing of HTTP serving or the store.

mod engines;
mod exposition;
mod latency;
mod recorder;
mod report;

pub use engines::{identify, spec_evidence, SpecEvidence};
pub use exposition::{
    Exposition, ExpositionError, Kind, LineError, Sample, MAX_BODY_BYTES, MAX_LINE_BYTES, MAX_SAMPLES,
};
pub use recorder::{record_during, SCRAPE_EVERY};
pub use report::{probe, scrape, server_version, FetchFailure, ScrapeError, PROBE_TIMEOUT};
