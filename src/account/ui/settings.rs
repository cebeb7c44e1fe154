//! `/settings`: the workspace (owner, name, sessions), the owner's alert e-mail address, and API tokens.

use leptos::prelude::*;

use super::account_panel::AccountPanel;
use super::api_tokens_panel::ApiTokensPanel;
use super::contact_panel::ContactPanel;
use crate::ui::components::Layout;

/// The settings page.
#[component]
pub fn SettingsPage() -> impl IntoView {
    view! {
        <Layout title="Settings">
            <AccountPanel/>
            <ContactPanel/>
            <ApiTokensPanel/>
        </Layout>
    }
}
