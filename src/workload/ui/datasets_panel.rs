//! The workspace's uploaded datasets on the workloads page: a file to upload (sent as it is, checked row by row by
//! the server, which names a bad row), and each dataset with its rows, size and length histogram, to delete.

use leptos::prelude::*;

use crate::error::AppError;
use crate::ui::browser_error::BrowserError;
use crate::ui::components::{ErrorBox, ServerPart};
use crate::wire::JsonWire;
use crate::workload::api::delete_dataset;
use crate::workload::model::{DatasetListing, WorkloadShelf};

/// The workloads page's saved workloads and datasets, read in one call.
pub type Shelf = Resource<Result<WorkloadShelf, AppError>, JsonWire>;

/// The panel; `changed` goes up by one when the list changes (an upload, a deletion).
#[component]
pub fn DatasetsPanel(shelf: Shelf, changed: RwSignal<u32>) -> impl IntoView {
    let file = NodeRef::<leptos::html::Input>::new();
    let upload = Action::new_local(move |_: &()| send(file));
    Effect::new(move |_| {
        if let Some(Ok(())) = upload.value().get() {
            changed.update(|n| *n += 1);
        }
    });
    view! {
        <section id="datasets">
            <h2>"Datasets"</h2>
            <p class="muted">"A JSONL, JSON or CSV file of prompts ({\"prompt\": …}, {\"messages\": […]} or ShareGPT's \
                conversations, with an optional output_tokens), up to 16 MiB; a larger one is sent with \
                latency-guard bench --dataset, which streams it from disk."</p>
            <form class="inline-form" on:submit=move |ev| { ev.prevent_default(); upload.dispatch(()); }>
                <input type="file" id="dataset-file" accept=".jsonl,.ndjson,.json,.csv" node_ref=file/>
                <button type="submit" id="upload-dataset" disabled=move || upload.pending().get()>
                    {move || if upload.pending().get() { "Uploading…" } else { "Upload" }}
                </button>
            </form>
            {move || upload.value().get().and_then(Result::err).map(|error| view! { <ErrorBox message=error.to_string()/> })}
            <Transition fallback=|| view! { <p>"Loading datasets…"</p> }>
                {move || Suspend::new(async move {
                    match shelf.await.map(|shelf| shelf.datasets) {
                        Err(e) => view! { <ErrorBox message=e.to_string()/> }.into_any(),
                        Ok(list) if list.is_empty() => view! { <p class="muted" id="no-datasets">"No datasets yet: upload a file of prompts above, and a workload can send it row by row."</p> }.into_any(),
                        Ok(list) => view! {
                            <table class="table" id="dataset-list">
                                <thead><tr><th>"Name"</th><th>"Rows and lengths"</th><th></th></tr></thead>
                                <tbody>{list.into_iter().map(|listing| view! { <DatasetRow listing changed/> }).collect_view()}</tbody>
                            </table>
                        }.into_any(),
                    }
                })}
            </Transition>
        </section>
    }
}

#[component]
fn DatasetRow(listing: DatasetListing, changed: RwSignal<u32>) -> impl IntoView {
    let id = listing.choice.id;
    let remove = Action::new(move |_: &()| delete_dataset(id));
    Effect::new(move |_| {
        if let Some(Ok(())) = remove.value().get() {
            changed.update(|n| *n += 1);
        }
    });
    view! {
        <tr id=format!("dataset-{id}")>
            <td class="dataset-name">{listing.choice.name}</td>
            <td>
                <div class="muted dataset-summary">{listing.summary}</div>
                <div class="chart-box"><ServerPart html=listing.lengths/></div>
            </td>
            <td>
                <button type="button" class="link danger" on:click=move |_| { remove.dispatch(()); }>"Delete"</button>
                {move || remove.value().get().and_then(Result::err).map(|e| view! { <ErrorBox message=e.to_string()/> })}
            </td>
        </tr>
    }
}

/// Sends the file chosen in `file` to `POST /api/datasets/upload`; the server's reason when it refuses it. The
/// browser's own `fetch` sends the file as it is, read from disk by the browser.
#[cfg(feature = "hydrate")]
async fn send(file: NodeRef<leptos::html::Input>) -> Result<(), BrowserError> {
    use wasm_bindgen::JsCast;
    use wasm_bindgen_futures::JsFuture;
    let chosen = file.get_untracked().and_then(|input| input.files()).and_then(|files| files.get(0));
    let Some(chosen) = chosen else { return Err(BrowserError::NeedsAction("Choose a file to upload first.")) };
    let url = format!("/api/datasets/upload?name={}", js_sys::encode_uri_component(&chosen.name()));
    let init = web_sys::RequestInit::new();
    init.set_method("POST");
    init.set_body(&chosen);
    let window = web_sys::window().ok_or(BrowserError::OnlyInTheBrowser("an upload is sent"))?;
    let unreachable = |_| BrowserError::Unreachable("The server could not be reached.".to_string());
    let response: web_sys::Response =
        JsFuture::from(window.fetch_with_str_and_init(&url, &init)).await.map_err(unreachable)?.unchecked_into();
    if response.ok() {
        if let Some(input) = file.get_untracked() {
            input.set_value("");
        }
        return Ok(());
    }
    #[derive(serde::Deserialize)]
    struct Refusal {
        error: String,
    }
    let status = response.status();
    let text = match response.text() {
        Ok(promise) => JsFuture::from(promise).await.ok().and_then(|t| t.as_string()).unwrap_or_default(),
        Err(_) => String::new(),
    };
    Err(BrowserError::Refused(
        crate::wire::from_json::<Refusal>(&text).map_or_else(|_| format!("HTTP {status}"), |r| r.error),
    ))
}

/// On the server no file is chosen: an upload is sent from the browser.
#[cfg(not(feature = "hydrate"))]
async fn send(_: NodeRef<leptos::html::Input>) -> Result<(), BrowserError> {
    Err(BrowserError::OnlyInTheBrowser("uploads are sent"))
}
