//! The account feature's pages: `/login` (a wallet, or the owner's login link) and `/settings` (the workspace's
//! name, the owner's contact address, API tokens), their panels, and the browser wallet the login page asks.

mod account_panel;
mod api_tokens_panel;
mod contact_panel;
mod login;
mod settings;
mod wallet;

pub use login::LoginPage;
pub use settings::SettingsPage;
