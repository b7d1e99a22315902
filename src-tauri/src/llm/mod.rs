//! OpenAI-compatible client (being written).
