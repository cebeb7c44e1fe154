//! `router(state)`: the whole HTTP surface — login routes, live events, public reads and the tick hook, server
//! functions and pages behind the session check, assets — usable without a socket (`oneshot` in tests).

use axum::routing::{get, post};
use axum::Router;
use leptos::prelude::*;
use leptos_axum::{generate_route_list, LeptosRoutes};

use super::middleware::{log_request, require_session, same_origin_writes, undecodable_arguments_are_bad_requests};
use super::routes;
use crate::state::AppState;
use crate::ui::{shell, App};

/// The whole HTTP surface: login routes, server functions and pages behind the session guard, assets.
pub fn router(state: AppState) -> Router {
    let routes = generate_route_list(App);
    let context_state = state.clone();
    let shell_options = state.leptos_options.clone();
    Router::new()
        .route("/healthz", get(|| async { "ok" }))
        .route("/metrics", get(routes::service_metrics))
        .merge(routes::login_routes())
        .merge(routes::wallet_login_routes())
        .merge(routes::contact_link_routes())
        .route("/api/runs/{id}/events", get(routes::live_events))
        .route("/api/datasets/upload", post(routes::dataset_upload))
        .route(crate::home::fragments::DEMO_RUN_PATH, post(routes::demo_run))
        .route("/api/public/reports/{id}", get(routes::shared_report))
        .route("/api/public/reports/{id}/export", get(routes::shared_export))
        .route("/api/public/reports/{id}/view", get(routes::shared_report_view))
        .route("/api/public/reports/{id}/page", get(routes::shared_report_page))
        .route("/api/public/reports/{id}/iterations", get(routes::shared_iterations))
        .route("/api/public/reports/{id}/table", get(routes::shared_table))
        .route("/api/public/hooks/guard-tick", post(routes::guard_tick_hook))
        .leptos_routes_with_context(
            &state,
            routes,
            move || provide_context(context_state.clone()),
            move || shell(shell_options.clone()),
        )
        .nest_service("/pkg", bundle_files(&state.leptos_options))
        .fallback(leptos_axum::file_and_error_handler::<AppState, _>(shell))
        .layer(axum::middleware::from_fn_with_state(state.clone(), require_session))
        .layer(axum::middleware::from_fn(undecodable_arguments_are_bad_requests))
        .layer(axum::middleware::from_fn_with_state(state.clone(), same_origin_writes))
        .layer(axum::middleware::from_fn(log_request))
        // Pages, JSON and assets without a precompressed copy go out gzip-compressed when the browser accepts it
        // (zstd on the fly would add zstd's C library to every build for pages of a few kilobytes); live events
        // (`text/event-stream`) never are, so each arrives when sent.
        .layer(tower_http::compression::CompressionLayer::new())
        .with_state(state)
}

/// The browser bundle (`/pkg`): the release build leaves `.zst` and `.gz` copies beside each file, compressed
/// once at their best level, which are sent to browsers that accept them.
fn bundle_files(options: &leptos::config::LeptosOptions) -> tower_http::services::ServeDir {
    let dir = std::path::Path::new(options.site_root.as_ref()).join(options.site_pkg_dir.as_ref());
    tower_http::services::ServeDir::new(dir).precompressed_zstd().precompressed_gzip()
}
