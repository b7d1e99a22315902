//! Finding a model server: the ones answering on the usual local ports, and the demo model Maru
//! can start itself.

use crate::app::demo::DemoModel;
use crate::app::App;
use crate::error::Result;
use crate::llm;

/// Model servers answering on the usual local ports (vLLM, llama.cpp, Ollama, LM Studio).
pub async fn probe_servers() -> Result<Vec<llm::FoundServer>> {
    Ok(llm::probe_local_servers().await)
}

pub async fn demo_model(app: &App) -> Result<DemoModel> {
    app.demo_status().await
}

/// Starts the demo model and keeps its one saved server at its address (the default server when
/// there was none).
pub async fn start_demo_model(app: &App) -> Result<DemoModel> {
    Ok(app.start_demo().await?.0)
}
