//! The report's export buttons: each file is made in the browser by the shared export code and saved through a
//! Blob, with no server round-trip. Each button remembers how long its last export took (`data-export-ms`), which
//! the browser benchmark reads.

use leptos::prelude::*;

use crate::export::{export, file_name, ExportFormat};
use crate::report::ReportSnapshot;

/// One button per format.
#[component]
pub fn ExportButtons(snapshot: ReportSnapshot) -> impl IntoView {
    let snapshot = StoredValue::new(snapshot);
    let failure = RwSignal::new(None::<String>);
    view! {
        <div class="export-buttons" role="group" aria-label="Export">
            <span class="muted">"Export:"</span>
            {ExportFormat::ALL.into_iter().map(|format| {
                let took = RwSignal::new(None::<f64>);
                let on_click = move |_| {
                    let started = now_ms();
                    let result = snapshot.with_value(|s| save_file(&file_name(s, format), format.media_type(), &export(s, format)));
                    took.set(Some(now_ms() - started));
                    failure.set(result.err());
                };
                view! {
                    <button type="button" id=format!("export-{}", format.as_str())
                        data-export-ms=move || took.get().map(|ms| format!("{ms:.1}"))
                        on:click=on_click>{format.as_str().to_uppercase()}</button>
                }
            }).collect_view()}
            {move || failure.get().map(|e| view! { <span class="error" role="alert">{format!("Export failed: {e}")}</span> })}
        </div>
    }
}

#[cfg(feature = "hydrate")]
fn now_ms() -> f64 {
    web_sys::window().and_then(|w| w.performance()).map_or(0.0, |p| p.now())
}

#[cfg(not(feature = "hydrate"))]
fn now_ms() -> f64 {
    0.0
}

/// Hands `text` to the browser as a download named `name`.
#[cfg(feature = "hydrate")]
fn save_file(name: &str, media_type: &str, text: &str) -> Result<(), String> {
    use wasm_bindgen::prelude::Closure;
    use wasm_bindgen::{JsCast, JsValue};

    let failed = |e: JsValue| e.as_string().unwrap_or_else(|| format!("{e:?}"));
    let window = web_sys::window().ok_or("no window")?;
    let document = window.document().ok_or("no document")?;
    let options = web_sys::BlobPropertyBag::new();
    options.set_type(media_type);
    let blob =
        web_sys::Blob::new_with_str_sequence_and_options(&js_sys::Array::of1(&JsValue::from_str(text)), &options)
            .map_err(failed)?;
    let url = web_sys::Url::create_object_url_with_blob(&blob).map_err(failed)?;
    let link: web_sys::HtmlAnchorElement = document.create_element("a").map_err(failed)?.unchecked_into();
    link.set_href(&url);
    link.set_download(name);
    link.click();
    // The download has taken the file by the time a timer fires; then the memory can go.
    let revoke = Closure::once_into_js(move || {
        let _ = web_sys::Url::revoke_object_url(&url);
    });
    window.set_timeout_with_callback_and_timeout_and_arguments_0(revoke.unchecked_ref(), 10_000).map_err(failed)?;
    Ok(())
}

#[cfg(not(feature = "hydrate"))]
fn save_file(_name: &str, _media_type: &str, _text: &str) -> Result<(), String> {
    Err("exports are made in the browser".into())
}
