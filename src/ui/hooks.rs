//! Browser-side subscriptions. During server rendering they yield nothing; after hydration they connect.

use leptos::prelude::*;

use crate::model::{RunId, RunProgress};
use crate::wire::JsonWire;

/// A resource whose value travels in the page as JSON that the browser's own parser reads ([`crate::wire`]):
/// `Resource::new` with that encoding. Every page's resources are made with it.
pub fn resource<T, S, Fut>(
    source: impl Fn() -> S + Send + Sync + 'static,
    fetcher: impl Fn(S) -> Fut + Send + Sync + 'static,
) -> Resource<T, JsonWire>
where
    T: serde::Serialize + serde::de::DeserializeOwned + Send + Sync + 'static,
    S: PartialEq + Clone + Send + Sync + 'static,
    Fut: std::future::Future<Output = T> + Send + 'static,
{
    Resource::new_with_options(source, fetcher, false)
}

/// A counter that goes up every `every` while `running` holds (in the browser only): a resource that reads it is
/// fetched again each time, so a page follows something that runs on the server (an A/B test, a sweep) until it
/// ends.
pub fn use_poll_while(running: RwSignal<bool>, every: std::time::Duration) -> RwSignal<u64> {
    let tick = RwSignal::new(0_u64);
    Effect::new(move |_| {
        if let Ok(handle) = set_interval_with_handle(
            move || {
                if running.get_untracked() {
                    tick.update(|t| *t += 1);
                }
            },
            every,
        ) {
            on_cleanup(move || handle.clear());
        }
    });
    tick
}

/// A run's live counters, once [`LiveRun::follow`] is called. Nothing is followed unless asked. The events come
/// without their points (`?points=false`): the page shows the scatter the server draws, not one of its own.
#[derive(Clone, Copy)]
pub struct LiveRun {
    run: RunId,
    progress: (ReadSignal<Option<RunProgress>>, WriteSignal<Option<RunProgress>>),
}

impl LiveRun {
    /// Nothing followed yet.
    pub fn new(run: RunId) -> Self {
        Self { run, progress: signal(None) }
    }

    /// The latest counters, once followed.
    pub fn progress(self) -> ReadSignal<Option<RunProgress>> {
        self.progress.0
    }

    /// Follows `/api/runs/{id}/events` (in the browser) until the run's `end` event or until the view that called
    /// this goes away: called by the view of a run shown as running.
    pub fn follow(self) {
        #[cfg(feature = "hydrate")]
        connect(self.run, self.progress.1);
        #[cfg(not(feature = "hydrate"))]
        let _ = self.run; // the server renders the run as stored; only the browser follows it
    }
}

/// What the page reads of an event: the counters (the points, had any been sent, would be skipped unread).
#[cfg(feature = "hydrate")]
#[derive(serde::Deserialize)]
struct Counters {
    progress: RunProgress,
}

#[cfg(feature = "hydrate")]
fn connect(run: RunId, set_progress: WriteSignal<Option<RunProgress>>) {
    use send_wrapper::SendWrapper;
    use wasm_bindgen::prelude::Closure;
    use wasm_bindgen::JsCast;

    let Ok(source) = web_sys::EventSource::new(&format!("/api/runs/{run}/events?points=false")) else {
        return;
    };
    let apply = move |event: web_sys::MessageEvent| {
        let Some(text) = event.data().as_string() else { return };
        if let Ok(update) = crate::wire::from_json::<Counters>(&text) {
            set_progress.set(Some(update.progress));
        }
    };
    let on_update = Closure::<dyn FnMut(web_sys::MessageEvent)>::new(apply);
    let closer = source.clone();
    let on_end = Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |event: web_sys::MessageEvent| {
        apply(event);
        closer.close();
    });
    let _ = source.add_event_listener_with_callback("update", on_update.as_ref().unchecked_ref());
    let _ = source.add_event_listener_with_callback("end", on_end.as_ref().unchecked_ref());
    // The listeners live as long as the page shows this run; leaving it closes the stream.
    let held = SendWrapper::new((source, on_update, on_end));
    on_cleanup(move || held.take().0.close());
}
