//! The report's export buttons: each file is made in the browser by the shared export code and saved through a
//! Blob. The page holds only a view of the report, so the whole snapshot is fetched once — when the page is idle
//! after it hydrated (reports of up to [`IDLE_PREFETCH_MAX_ITERATIONS`] iterations), else as soon as the pointer or
//! focus reaches the buttons — so it is usually there by the click, and every export is made from it without
//! another request. The group remembers how long the fetch took (`data-fetch-ms`) and each button how long its
//! last export took (`data-export-ms`), which the browser benchmark reads.
//!
//! The code that reads the snapshot and makes the files (CSV, JSON, the standalone HTML with its charts) is not
//! part of the page's first load: [`load_exports`] is a lazily loaded function, so that code travels in a WASM
//! chunk of its own, fetched together with the snapshot.

use leptos::prelude::*;

use crate::runs::report::{file_name, ExportFormat, ReportFiles};
use crate::runs::ui::ReportSource;
use crate::ui::browser_error::BrowserError;
use crate::ui::components::save_file;

/// Reports of up to this many iterations are fetched for export as soon as the page is idle (about 0.3 MB of
/// compressed JSON at 10,000), so that the first click finds the snapshot here; larger ones wait for the pointer to
/// reach the buttons, so that merely viewing a very large report does not download it.
pub const IDLE_PREFETCH_MAX_ITERATIONS: usize = 20_000;

/// A report's whole snapshot with its rendered sections and the function that makes its files, as
/// [`load_exports`] hands them over.
struct LoadedExports {
    files: ReportFiles,
    /// [`crate::runs::report::export`], reached through this pointer so that its code stays in the lazily loaded chunk.
    make: fn(&ReportFiles, ExportFormat) -> String,
}

/// Fetches the report's snapshot and brings the export code with it (a lazily loaded chunk in the browser).
#[leptos::lazy]
async fn load_exports(source: ReportSource) -> Result<LoadedExports, BrowserError> {
    let files = source.files().await?;
    Ok(LoadedExports { files, make: crate::runs::report::export })
}

/// The snapshot the exports are made from, fetched once, and the export asked for while it was on its way.
#[derive(Clone, Copy)]
struct Exporter {
    source: StoredValue<ReportSource>,
    loaded: StoredValue<Option<LoadedExports>>,
    fetching: RwSignal<bool>,
    fetch_ms: RwSignal<Option<f64>>,
    waiting: RwSignal<Option<ExportFormat>>,
    failure: RwSignal<Option<BrowserError>>,
    /// Milliseconds each format's last export took, in [`ExportFormat::ALL`] order.
    export_ms: RwSignal<[Option<f64>; 3]>,
}

impl Exporter {
    fn new(source: ReportSource) -> Self {
        Self {
            source: StoredValue::new(source),
            loaded: StoredValue::new(None),
            fetching: RwSignal::new(false),
            fetch_ms: RwSignal::new(None),
            waiting: RwSignal::new(None),
            failure: RwSignal::new(None),
            export_ms: RwSignal::new([None; 3]),
        }
    }

    /// Starts fetching the snapshot unless it is here or on its way (or the page has gone: an idle callback may
    /// come after the user left).
    fn prefetch(self) {
        match self.fetching.try_get_untracked() {
            Some(false) if self.loaded.try_with_value(Option::is_none) == Some(true) => {}
            _ => return,
        }
        self.fetching.set(true);
        leptos::task::spawn_local(async move {
            let started = now_ms();
            let fetched = load_exports(self.source.get_value()).await;
            self.fetching.set(false);
            match fetched {
                Ok(loaded) => {
                    self.loaded.set_value(Some(loaded));
                    self.fetch_ms.set(Some(now_ms() - started));
                    if let Some(format) = self.waiting.get_untracked() {
                        self.waiting.set(None);
                        self.write(format);
                    }
                }
                Err(e) => {
                    self.waiting.set(None);
                    self.failure.set(Some(e));
                }
            }
        });
    }

    /// Exports now if the snapshot is here, else as soon as it arrives.
    fn request(self, format: ExportFormat) {
        self.failure.set(None);
        if self.loaded.with_value(Option::is_none) {
            self.waiting.set(Some(format));
            self.prefetch();
        } else {
            self.write(format);
        }
    }

    fn write(self, format: ExportFormat) {
        let started = now_ms();
        let result = self.loaded.with_value(|loaded| {
            let LoadedExports { files, make } =
                loaded.as_ref().ok_or(BrowserError::NeedsAction("the report was not fetched"))?;
            save_file(&file_name(&files.snapshot, format), format.media_type(), &make(files, format))
        });
        let took = now_ms() - started;
        self.failure.set(result.err());
        let slot = ExportFormat::ALL.iter().position(|f| *f == format);
        self.export_ms.update(|all| slot.into_iter().for_each(|i| all[i] = Some(took)));
    }

    fn export_ms(self, format: ExportFormat) -> Option<f64> {
        let slot = ExportFormat::ALL.iter().position(|f| *f == format)?;
        self.export_ms.get()[slot]
    }
}

/// One button per format, for the report `source` with `iterations` iterations.
#[component]
pub fn ExportButtons(source: ReportSource, iterations: usize) -> impl IntoView {
    let exporter = Exporter::new(source);
    // Effects run only in the browser, once these buttons have hydrated: `data-hydrated` tells a test (and the
    // page-timing benchmark) that a click now is handled. The page's frame can hydrate a moment earlier.
    let live = RwSignal::new(false);
    Effect::new(move |_| {
        live.set(true);
        if iterations <= IDLE_PREFETCH_MAX_ITERATIONS {
            when_idle(move || exporter.prefetch());
        }
    });
    view! {
        <div class="export-buttons" role="group" aria-label="Export"
            data-hydrated=move || live.get().to_string()
            data-fetch-ms=move || exporter.fetch_ms.get().map(|ms| format!("{ms:.1}"))
            on:pointerenter=move |_| exporter.prefetch()
            on:focusin=move |_| exporter.prefetch()>
            <span class="muted">"Export:"</span>
            {ExportFormat::ALL.iter().copied().map(|format| view! {
                <button type="button" id=format!("export-{}", format.as_str())
                    data-export-ms=move || exporter.export_ms(format).map(|ms| format!("{ms:.1}"))
                    disabled=move || exporter.waiting.get().is_some()
                    on:click=move |_| exporter.request(format)>{format.as_str().to_uppercase()}</button>
            }).collect_view()}
            {move || exporter.waiting.get().map(|format| view! {
                <span class="muted" role="status" id="export-progress">
                    {format!("Preparing {}: fetching {iterations} iteration(s)…", format.as_str().to_uppercase())}
                </span>
            })}
            {move || exporter.failure.get().map(|e| view! { <span class="error" role="alert">{format!("Export failed: {e}")}</span> })}
        </div>
    }
}

/// Runs `task` when the browser is idle (`requestIdleCallback`), or after a short delay where that is missing.
#[cfg(feature = "hydrate")]
fn when_idle(task: impl Fn() + Copy + 'static) {
    use wasm_bindgen::JsCast;
    let callback = wasm_bindgen::prelude::Closure::once_into_js(task);
    let scheduled = web_sys::window().map(|w| w.request_idle_callback(callback.unchecked_ref()));
    if !matches!(scheduled, Some(Ok(_))) {
        set_timeout(task, std::time::Duration::from_millis(200));
    }
}

#[cfg(not(feature = "hydrate"))]
fn when_idle(_task: impl Fn() + Copy + 'static) {}

#[cfg(feature = "hydrate")]
fn now_ms() -> f64 {
    web_sys::window().and_then(|w| w.performance()).map_or(0.0, |p| p.now())
}

#[cfg(not(feature = "hydrate"))]
fn now_ms() -> f64 {
    0.0
}
