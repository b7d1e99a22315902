//! Long-term memory the model works with: the tools to propose, correct, forget and look up facts
//! (`tools`), and the refusal of a secret as a fact, whoever asks (`refuse_secret`). The facts
//! themselves and their review are `store::memories`.

pub mod extract;
pub mod tools;

use crate::error::{Code, Error, Result};

/// Refuses `fact` when it holds a secret: facts go into every request of every chat. Every path
/// that writes a fact's text (the model's tools, extraction, the API) asks this first; it reads
/// the text as it will be stored, so characters that draw nothing cannot hide a key.
pub fn refuse_secret(fact: &str) -> Result<()> {
    let Some(secret) = crate::secrets::find(&crate::store::text::visible_text(fact)) else { return Ok(()) };
    let why = secret.reason();
    Err(Error::invalid(
        Code::SecretRefused,
        format!("Maru does not keep this as a fact because {why}; long-term memory goes into every chat, so secrets never belong there"),
    )
    .with("kind", secret.code()))
}
