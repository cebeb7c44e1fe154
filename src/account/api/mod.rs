//! The account feature's server functions: the signed-in account — who it is (the sidebar), its name, the owner's
//! contact address for alert e-mail, and signing out of every session — here, and its API tokens in `tokens`.

pub mod tokens;

use leptos::prelude::*;

use crate::account::model::AccountView;
use crate::error::AppError;
use crate::wire::Json;

#[cfg(feature = "ssr")]
use crate::api::context::with_session;

/// `POST /api/account/whoami`: the workspace's name and how its owner signs in.
#[server(prefix = "/api", endpoint = "account/whoami", input = Json, output = Json)]
pub async fn whoami() -> Result<AccountView, AppError> {
    with_session(|state, session| async move {
        Ok(crate::account::service::account_of(&state.store, session.workspace_id, state.guard.mail().is_some())
            .await?)
    })
    .await
}

/// `POST /api/account/rename`, `{"name"}`: the workspace's display name (1–80 characters).
#[server(prefix = "/api", endpoint = "account/rename", input = Json, output = Json)]
pub async fn rename_workspace(name: String) -> Result<AccountView, AppError> {
    with_session(|state, session| async move {
        let name = crate::account::model::validate_workspace_name(&name)?;
        state.store.rename_workspace(session.workspace_id, &name).await?;
        Ok(crate::account::service::account_of(&state.store, session.workspace_id, state.guard.mail().is_some())
            .await?)
    })
    .await
}

/// `POST /api/account/sign-out-everywhere`: ends every browser session of the workspace, this one included; how
/// many ended. API tokens are not sessions: revoke them one by one.
#[server(prefix = "/api", endpoint = "account/sign-out-everywhere", input = Json, output = Json)]
pub async fn sign_out_everywhere() -> Result<u64, AppError> {
    with_session(|state, session| async move {
        let ended = state.store.delete_sessions_of(session.workspace_id).await?;
        tracing::info!(workspace = %session.workspace_id, ended, "signed out everywhere");
        Ok(ended)
    })
    .await
}

/// `POST /api/account/contact`, `{"email"}`: sends a one-time link to the address; following it makes it the
/// owner's contact for alert e-mail. The reply is the address the link went to.
#[server(prefix = "/api", endpoint = "account/contact", input = Json, output = Json)]
pub async fn set_contact_email(email: String) -> Result<String, AppError> {
    with_session(|state, session| async move {
        let invalid = |reason: String| AppError::Invalid(crate::model::ValidationError::new("email", reason));
        let Some(mail) = state.guard.mail() else {
            return Err(invalid("e-mail is off on this server: its operator must set smtp-url".into()));
        };
        // Only messages that would go out count against the budget.
        crate::account::service::contact_address(&email)?;
        let bucket = crate::rate_limit::Caller::ContactLinks(session.workspace_id).key();
        let taken = state
            .store
            .take_rate_token(&bucket, crate::account::service::CONTACT_LINK_BUDGET, state.clock.now_ms())
            .await?;
        if let Err(wait) = taken {
            return Err(invalid(format!("too many links asked for; try again in {} minutes", wait.as_secs() / 60 + 1)));
        }
        let (base, now) = (state.settings.public_base(), state.clock.now_ms());
        let message = match crate::account::service::start_contact_verification(
            &state.store,
            &state.tokens,
            session.workspace_id,
            &email,
            &base,
            now,
        )
        .await
        {
            Ok(message) => message,
            Err(crate::account::service::ContactError::Invalid(v)) => return Err(AppError::Invalid(v)),
            Err(crate::account::service::ContactError::Store(e)) => return Err(e.into()),
        };
        if let Err(e) = mail.send_now(&message.to, &message.subject, &message.body).await {
            tracing::warn!(workspace = %session.workspace_id, error = %e, "a contact verification e-mail failed");
            return Err(invalid(format!("the SMTP server did not take the message: {e}")));
        }
        tracing::info!(workspace = %session.workspace_id, "contact verification e-mail sent");
        Ok(message.to)
    })
    .await
}

/// `POST /api/account/contact/clear`: forgets the owner's contact address; alert e-mail to the owner stops.
#[server(prefix = "/api", endpoint = "account/contact/clear", input = Json, output = Json)]
pub async fn clear_contact_email() -> Result<(), AppError> {
    with_session(|state, session| async move { Ok(state.store.clear_owner_contact(session.workspace_id).await?) }).await
}
