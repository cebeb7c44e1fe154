//! Charts as SVG text, drawn with plotters' SVG backend: pure functions from data to markup, so the live page,
//! reports and exports draw the same picture on the server and in the browser. Large inputs are thinned for
//! drawing only (statistics always use every point).

mod bottleneck;
mod cdf;
mod histogram;
mod markup;
pub mod plot;
mod scatter;
mod server_load;
mod slices;

pub use bottleneck::{bottleneck, BottleneckBar};
pub use cdf::{cdf_overlay, ecdf_points, CdfSeries};
pub use histogram::{latency_histogram, length_histogram, token_histogram, Series};
pub use markup::escape_text;
pub use scatter::{latency_scatter, sampled_scatter, ScatterPoint, ScatterSample};
pub use server_load::server_load;
pub use slices::time_slices_chart;
