//! Spec Lab: what self-hosted servers (vLLM, SGLang, TGI, llama.cpp) say about themselves — their metrics
//! parsed, the engine identified, and what they show of speculative decoding. Pure parsing here; probing a
//! server over HTTP and scraping it during runs build on it. Knows nothing of HTTP serving or storage.

mod engines;
mod exposition;
mod probe;

pub use engines::{identify, spec_evidence, SpecEvidence};
pub use exposition::{Exposition, ExpositionError, Kind, Sample, MAX_BODY_BYTES, MAX_LINE_BYTES, MAX_SAMPLES};
pub use probe::{probe, scrape, server_root, PROBE_TIMEOUT};
