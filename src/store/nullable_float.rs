//! An optional figure (a TTFT, a cost, a price, a p-value) bound as one SQL type whether it is there or not.
//!
//! sqlx 0.8's `Any` driver binds a missing `f64` as a missing `f32` (`AnyArguments::convert_into` maps the two float
//! kinds of `NULL` the wrong way round), and PostgreSQL keeps the parameter types a cached statement was first
//! prepared with. A statement first run with a missing figure then refused every present one ("incorrect binary
//! data format in bind parameter"): a run whose first request failed lost its later iterations, and a Guard
//! evaluation compared after one without a baseline was never recorded. A missing figure here is bound as a missing
//! `f32` (the driver's `NULL` of the `Real` kind), which that same mapping turns into PostgreSQL's `double
//! precision`, the type of a present one. `tests/app/store.rs` (`a_missing_figure_then_a_present_one_are_both_stored`) fails on PostgreSQL if a later
//! sqlx corrects the mapping; this file then binds a missing `f64` instead.

use sqlx::any::{Any, AnyTypeInfo};
use sqlx::encode::IsNull;
use sqlx::error::BoxDynError;
use sqlx::{Database, Encode, Type};

/// `Option<f64>` for a bind: `float(record.ttft_ms)`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NullableFloat(Option<f64>);

/// `value`, bound as `double precision` whether it is there or not.
pub fn float(value: Option<f64>) -> NullableFloat {
    NullableFloat(value)
}

impl Type<Any> for NullableFloat {
    fn type_info() -> AnyTypeInfo {
        <f64 as Type<Any>>::type_info()
    }
}

impl<'q> Encode<'q, Any> for NullableFloat {
    fn encode_by_ref(&self, buf: &mut <Any as Database>::ArgumentBuffer<'q>) -> Result<IsNull, BoxDynError> {
        match self.0 {
            Some(value) => <f64 as Encode<'q, Any>>::encode_by_ref(&value, buf),
            // A missing `f32` is the driver's `NULL` of the `Real` kind.
            None => <Option<f32> as Encode<'q, Any>>::encode_by_ref(&None, buf),
        }
    }
}
