//! What every form that starts something ends with: the submit button (busy while the request is on its way) and
//! the reason it was refused; and the helpers that read typed values out of a form's text fields.

use leptos::prelude::*;

use super::ErrorBox;
use crate::error::AppError;
use crate::model::ValidationError;

/// A refusal of `field` for `reason`, as the server would word it.
pub fn invalid(field: &str, reason: String) -> AppError {
    AppError::Invalid(ValidationError::new(field, reason))
}

/// The number typed in `field`.
pub fn number<T: std::str::FromStr>(raw: &str, field: &str) -> Result<T, AppError> {
    crate::model::typed_number(raw, field).map_err(AppError::Invalid)
}

/// The submit button `id` reading `label` ("Starting…" while `pending`) and the refusal `error`, if any.
#[component]
pub fn SubmitRow(
    id: &'static str,
    label: &'static str,
    #[prop(into)] pending: Signal<bool>,
    #[prop(into)] error: Signal<Option<String>>,
) -> impl IntoView {
    view! {
        <div class="actions">
            <button type="submit" id=id class="primary" disabled=move || pending.get()>
                {move || if pending.get() { "Starting…" } else { label }}
            </button>
        </div>
        {move || error.get().map(|message| view! { <ErrorBox message/> })}
    }
}
