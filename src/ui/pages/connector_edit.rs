//! `/connectors/new` and `/connectors/:id`: the connector form, empty or filled from the stored connector.

use leptos::prelude::*;
use leptos_router::hooks::use_params_map;

use crate::api::connectors::get_connector;
use crate::error::AppError;
use crate::lab::ui::ServerProbe;
use crate::model::ConnectorId;
use crate::ui::components::{ConnectorForm, ErrorBox, Layout};
use crate::ui::hooks::resource;

/// A new connector.
#[component]
pub fn NewConnectorPage() -> impl IntoView {
    view! {
        <Layout title="New connector">
            <ConnectorForm existing=None/>
        </Layout>
    }
}

/// Editing a stored connector.
#[component]
pub fn EditConnectorPage() -> impl IntoView {
    let params = use_params_map();
    let id = move || params.with(|p| p.get("id").and_then(|raw| raw.parse::<ConnectorId>().ok()));
    let connector = resource(id, |id| async move {
        match id {
            Some(id) => get_connector(id).await,
            None => Err(AppError::NotFound),
        }
    });
    view! {
        <Layout title="Edit connector">
            <Suspense fallback=|| view! { <p>"Loading…"</p> }>
                {move || Suspend::new(async move {
                    match connector.await {
                        Ok(c) => {
                            let id = c.id;
                            view! { <ConnectorForm existing=Some(c)/><ServerProbe id/> }.into_any()
                        }
                        Err(e) => view! { <ErrorBox message=e.to_string()/> }.into_any(),
                    }
                })}
            </Suspense>
        </Layout>
    }
}
