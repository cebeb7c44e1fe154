//! Sign-In with Ethereum from the login page, through the browser's injected EIP-1193 provider
//! (`window.ethereum`): the wallet shares an account, the server issues a nonce, the page builds the EIP-4361
//! message (`model::siwe_message_text`), the wallet signs it with `personal_sign`, and the server checks it and
//! sets the session cookie. Nothing here decides whether a login is valid; the server does.

use crate::ui::browser_error::BrowserError;

/// Whether this browser has an injected wallet.
#[cfg(feature = "hydrate")]
pub fn has_browser_wallet() -> bool {
    provider().is_some()
}

/// Whether this browser has an injected wallet (never, while rendering on the server).
#[cfg(not(feature = "hydrate"))]
pub fn has_browser_wallet() -> bool {
    false
}

/// What a person reads when there is no wallet to ask.
pub const NO_WALLET: &str = "No browser wallet was found. Install or enable a wallet extension that supports \
     Ethereum (EIP-1193) and reload this page, or use the owner's login link below.";

/// Signs in with the browser's wallet; the signed-in address, or what went wrong in words.
#[cfg(feature = "hydrate")]
pub async fn sign_in_with_wallet() -> Result<String, BrowserError> {
    use crate::model::{hex_utf8, siwe_message_text, NonceGrant};

    let wallet = provider().ok_or(BrowserError::NeedsAction(NO_WALLET))?;
    let accounts = request(&wallet, "eth_requestAccounts", &[]).await?;
    let address = js_sys::Array::from(&accounts)
        .get(0)
        .as_string()
        .ok_or(BrowserError::NeedsAction("The wallet shared no account; unlock it and allow this site."))?;
    let mut grant: NonceGrant = post_json("/auth/siwe/nonce", None).await?;
    // Sign on the chain the wallet is on when this server accepts it, so the wallet does not warn of a mismatch.
    if let Some(chain) = request(&wallet, "eth_chainId", &[]).await.ok().and_then(|c| c.as_string()) {
        if let Ok(id) = u64::from_str_radix(chain.trim_start_matches("0x"), 16) {
            if grant.chain_ids.contains(&id) {
                grant.chain_id = id;
            }
        }
    }
    let message = siwe_message_text(&grant, &address).map_err(|e| BrowserError::Browser(e.to_string()))?;
    let signature = request(&wallet, "personal_sign", &[hex_utf8(&message).into(), address.clone().into()])
        .await?
        .as_string()
        .ok_or(BrowserError::Browser("The wallet returned no signature.".to_string()))?;
    let body = serde_json::json!({ "message": message, "signature": signature });
    let reply: Verified = post_json("/auth/siwe/verify", Some(body)).await?;
    Ok(reply.address.unwrap_or(address))
}

/// Signs in with the browser's wallet (only in the browser).
#[cfg(not(feature = "hydrate"))]
pub async fn sign_in_with_wallet() -> Result<String, BrowserError> {
    Err(BrowserError::NeedsAction(NO_WALLET))
}

#[cfg(feature = "hydrate")]
fn provider() -> Option<js_sys::Object> {
    use wasm_bindgen::JsCast;
    let window = web_sys::window()?;
    let ethereum = js_sys::Reflect::get(&window, &"ethereum".into()).ok()?;
    ethereum.dyn_into::<js_sys::Object>().ok()
}

/// `provider.request({method, params})`, awaited; a refusal in words (EIP-1193 code 4001: the person declined).
#[cfg(feature = "hydrate")]
async fn request(
    provider: &js_sys::Object,
    method: &str,
    params: &[wasm_bindgen::JsValue],
) -> Result<wasm_bindgen::JsValue, BrowserError> {
    use js_sys::{Array, Function, Object, Promise, Reflect};
    use wasm_bindgen::JsCast;

    let args = Object::new();
    let broken =
        |_| BrowserError::Browser(format!("The browser wallet does not answer {method} (not an EIP-1193 provider)."));
    Reflect::set(&args, &"method".into(), &method.into()).map_err(broken)?;
    if !params.is_empty() {
        Reflect::set(&args, &"params".into(), &params.iter().collect::<Array>()).map_err(broken)?;
    }
    let call: Function = Reflect::get(provider, &"request".into()).map_err(broken)?.dyn_into().map_err(broken)?;
    let promise: Promise = call.call1(provider, &args).map_err(broken)?.dyn_into().map_err(broken)?;
    wasm_bindgen_futures::JsFuture::from(promise).await.map_err(|e| {
        let code = Reflect::get(&e, &"code".into()).ok().and_then(|c| c.as_f64());
        let said = Reflect::get(&e, &"message".into()).ok().and_then(|m| m.as_string()).unwrap_or_default();
        BrowserError::Browser(match code {
            Some(4001.0) => "You declined the request in your wallet; nothing was signed.".to_string(),
            _ => format!("The wallet refused {method}: {said}"),
        })
    })
}

/// The reply to a verified login: the address signed in, as the server writes it.
#[cfg(feature = "hydrate")]
#[derive(serde::Deserialize)]
struct Verified {
    address: Option<String>,
}

/// The body of a refused login: `{"error": "..."}`.
#[cfg(feature = "hydrate")]
#[derive(serde::Deserialize)]
struct Refusal {
    error: String,
}

/// POSTs JSON (or nothing) and reads a JSON reply; a refusal carries the server's reason.
#[cfg(feature = "hydrate")]
async fn post_json<T: serde::de::DeserializeOwned>(
    path: &str,
    body: Option<serde_json::Value>,
) -> Result<T, BrowserError> {
    use gloo_net::http::Request;
    let unreachable = |e: gloo_net::Error| BrowserError::Unreachable(format!("The server could not be reached: {e}"));
    let response = match body {
        Some(body) => Request::post(path).json(&body).map_err(unreachable)?.send().await,
        None => Request::post(path).send().await,
    }
    .map_err(unreachable)?;
    if !response.ok() {
        let status = response.status();
        let reason = response
            .text()
            .await
            .ok()
            .and_then(|text| crate::wire::from_json::<Refusal>(&text).ok())
            .map_or_else(|| format!("HTTP {status}"), |refusal| refusal.error);
        return Err(BrowserError::Refused(format!("The server refused the login: {reason}")));
    }
    let text = response.text().await.map_err(unreachable)?;
    crate::wire::from_json(&text)
        .map_err(|e| BrowserError::Unreachable(format!("The server's reply was not understood: {e}")))
}
