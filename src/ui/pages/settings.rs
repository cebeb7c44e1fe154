//! `/settings`: the workspace (owner, name, sessions) and its API tokens.

use leptos::prelude::*;

use crate::ui::components::{AccountPanel, ApiTokensPanel, Layout};

/// The settings page.
#[component]
pub fn SettingsPage() -> impl IntoView {
    view! {
        <Layout title="Settings">
            <AccountPanel/>
            <ApiTokensPanel/>
        </Layout>
    }
}
