//! Long-term memory the model works with: the tools to propose, correct, forget and look up facts
//! (`tools`). The facts themselves, their review and the refusal of secrets are `store::memories`.

pub mod extract;
pub mod tools;
