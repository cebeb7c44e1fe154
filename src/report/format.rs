//! How figures are written for people, the same on the page and in exports.

use crate::stats::Percentiles;

/// Milliseconds: whole from 100 ms, one decimal below, two below 1 ms (a local server's time per token).
pub fn ms(v: f64) -> String {
    format!("{} ms", ms_number(v))
}

/// [`ms`] without its unit, for a column whose heading says it.
pub fn ms_number(v: f64) -> String {
    if v >= 100.0 {
        format!("{v:.0}")
    } else if v < 1.0 {
        format!("{v:.2}")
    } else {
        format!("{v:.1}")
    }
}

/// `p50 / p95 / p99`, or that it could not be measured.
pub fn percentile_triple(p: Option<Percentiles>) -> String {
    p.map_or_else(|| "not measurable".into(), |p| format!("{} / {} / {}", ms(p.p50), ms(p.p95), ms(p.p99)))
}

/// A total cost in USD, or that no prices were set.
pub fn total_cost(usd: Option<f64>) -> String {
    usd.map_or_else(|| "no prices set".to_string(), |c| format!("${c:.6}"))
}

/// A p-value: four decimals, or two significant digits in scientific notation below 0.0001 (never "0.0000").
pub fn p_value(p: f64) -> String {
    if p > 0.0 && p < 0.0001 {
        format!("{p:.1e}")
    } else {
        format!("{p:.4}")
    }
}

/// A figure as the workload tables show it (tokens, ms): to a tenth, without a trailing `.0`.
pub fn tenths(v: f64) -> String {
    crate::model::trim_number((v * 10.0).round() / 10.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_p_values_keep_their_digits() {
        assert_eq!(
            (p_value(0.04321), p_value(6.0905791809414e-06), p_value(0.0), p_value(1.0)),
            ("0.0432".into(), "6.1e-6".into(), "0.0000".into(), "1.0000".into())
        );
    }

    #[test]
    fn milliseconds_keep_a_decimal_only_where_it_matters() {
        assert_eq!(ms(12.345), "12.3 ms");
        assert_eq!(ms(1234.4), "1234 ms");
        assert_eq!(ms(0.234), "0.23 ms");
        assert_eq!(percentile_triple(None), "not measurable");
        assert_eq!(percentile_triple(Some(Percentiles { p50: 1.0, p95: 2.0, p99: 300.0 })), "1.0 ms / 2.0 ms / 300 ms");
        assert_eq!(total_cost(None), "no prices set");
        assert_eq!(total_cost(Some(0.0123)), "$0.012300");
    }
}
