//! `/settings`: the workspace (owner, name, sessions), the owner's alert e-mail address, and API tokens.

use leptos::prelude::*;

use crate::ui::components::{AccountPanel, ApiTokensPanel, ContactPanel, Layout};

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
