//! A file made in the browser handed to the user as a download (a Blob and a link clicked), which every export
//! button of every feature uses.

use crate::ui::browser_error::BrowserError;

/// Hands `text` to the browser as a download named `name`.
#[cfg(feature = "hydrate")]
pub fn save_file(name: &str, media_type: &str, text: &str) -> Result<(), BrowserError> {
    use wasm_bindgen::prelude::Closure;
    use wasm_bindgen::{JsCast, JsValue};

    let failed = |e: JsValue| BrowserError::Browser(e.as_string().unwrap_or_else(|| format!("{e:?}")));
    let window = web_sys::window().ok_or(BrowserError::OnlyInTheBrowser("a download is made"))?;
    let document = window.document().ok_or(BrowserError::OnlyInTheBrowser("a download is made"))?;
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
pub fn save_file(_name: &str, _media_type: &str, _text: &str) -> Result<(), BrowserError> {
    Err(BrowserError::OnlyInTheBrowser("exports are made"))
}
