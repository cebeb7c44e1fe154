//! Accounts, one feature in one folder: signing in with a wallet (Sign-In with Ethereum, EIP-1271 contract
//! wallets, who may sign in), a workspace's account page (its name, the owner's contact address confirmed by a
//! link) and its API tokens. Who is calling once signed in (sessions, login links, a token's scope) is the
//! kernel's `auth`; a workspace's limits and the wallet-admission rule are the kernel's model (settings read them).
//!
//! Inside, each layer imports only those before it (`tests/app/architecture.rs` checks it): `model` (the account
//! page's view, pure, in the browser build too) < `store` (API tokens, contact addresses, sign-in nonces) <
//! `service` (wallet login, issuing a token, confirming a contact address) < `api` (its server functions) < `ui`
//! (the login and settings pages, their panels, the browser wallet).

pub mod api;
pub mod model;
pub mod ui;

#[cfg(feature = "ssr")]
pub mod service;
#[cfg(feature = "ssr")]
pub mod store;
