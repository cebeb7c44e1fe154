//! `#[server]` functions: the JSON API the pages (and curl, and the CLI) call. Each is a shell: it takes the
//! state and session from context, calls one function of the ssr modules, and maps the error.
//!
//! Every function here is `POST /api/<endpoint>` with a JSON body holding its arguments by name, e.g.
//! `POST /api/connectors/get` with `{"id": "<uuid>"}`. They need a session cookie; without one they answer 401.

pub mod connectors;
pub mod shares;

#[cfg(feature = "ssr")]
pub(crate) mod context;
