//! `/connectors`: the list, with edit links and delete-with-confirmation.

use leptos::prelude::*;
use leptos_router::components::A;

use crate::api::connectors::{list_connectors, DeleteConnector};
use crate::model::{Connector, ConnectorId};
use crate::ui::components::{ErrorBox, Layout};
use crate::ui::hooks::resource;

/// The connectors page.
#[component]
pub fn ConnectorsPage() -> impl IntoView {
    let delete = ServerAction::<DeleteConnector>::new();
    let connectors = resource(move || delete.version().get(), |_| list_connectors());
    let confirming = RwSignal::new(None::<ConnectorId>);
    view! {
        <Layout title="Connectors">
            <p class="lead">
                "Endpoints that speak the OpenAI chat-completions format: hosted APIs, vLLM, TGI, llama.cpp, routers and gateways."
            </p>
            <A href="/connectors/new" attr:id="new-connector" attr:class="button primary">"New connector"</A>
            {move || delete.value().get().and_then(Result::err).map(|e| view! { <ErrorBox message=e.to_string()/> })}
            <Suspense fallback=|| view! { <p>"Loading connectors…"</p> }>
                {move || Suspend::new(async move {
                    match connectors.await {
                        Err(e) => view! { <ErrorBox message=e.to_string()/> }.into_any(),
                        Ok(list) if list.is_empty() => view! { <p id="no-connectors">"No connectors yet: New connector adds your endpoint (a base URL, a model, a key if it needs one)."</p> }.into_any(),
                        Ok(list) => view! {
                            <table id="connectors" class="table">
                                <thead><tr>
                                    <th>"Name"</th><th>"Base URL"</th><th>"Model"</th><th>"Key"</th>
                                    <th>"Headers"</th><th>"Price in / out (USD per 1M tok)"</th><th></th>
                                </tr></thead>
                                <tbody>
                                    {list.into_iter().map(|c| view! { <ConnectorRow connector=c confirming delete/> }).collect_view()}
                                </tbody>
                            </table>
                        }.into_any(),
                    }
                })}
            </Suspense>
        </Layout>
    }
}

fn price(p: Option<f64>) -> String {
    p.map_or_else(|| "—".to_string(), |p| format!("{p}"))
}

#[component]
fn ConnectorRow(
    connector: Connector,
    confirming: RwSignal<Option<ConnectorId>>,
    delete: ServerAction<DeleteConnector>,
) -> impl IntoView {
    let id = connector.id;
    let headers = connector.headers.iter().map(|h| h.name.clone()).collect::<Vec<_>>().join(", ");
    view! {
        <tr class="connector-row" data-id=id.to_string()>
            <td class="name">
                {connector.name.clone()}
                {connector.is_demo.then(|| view! { <span class="badge">"demo"</span> })}
                {connector.server_kind.map(|kind| view! {
                    <span class="badge server-kind" title="the engine the last Spec Lab probe found at this connector's server">{kind.label()}</span>
                })}
            </td>
            <td class="mono">{connector.base_url.clone()}</td>
            <td class="mono">{connector.model.clone()}</td>
            <td>{if connector.has_api_key { "set" } else { "none" }}</td>
            <td class="mono">{if headers.is_empty() { "—".to_string() } else { headers }}</td>
            <td>{price(connector.input_price_per_mtok)} " / " {price(connector.output_price_per_mtok)}</td>
            <td class="row-actions">
                <A href=format!("/connectors/{id}")>"Edit"</A>
                <Show
                    when=move || confirming.get() == Some(id)
                    fallback=move || view! {
                        <button type="button" class="link danger" on:click=move |_| confirming.set(Some(id))>"Delete"</button>
                    }
                >
                    <span class="confirm">
                        "Delete this connector? "
                        <button type="button" class="danger confirm-delete" on:click=move |_| {
                            delete.dispatch(DeleteConnector { id });
                            confirming.set(None);
                        }>"Delete"</button>
                        <button type="button" class="link" on:click=move |_| confirming.set(None)>"Cancel"</button>
                    </span>
                </Show>
            </td>
        </tr>
    }
}
