//! Logging: human-readable lines on stderr and a daily-rolling file in the data folder's `logs/`.
//! Secrets never reach a log: `Settings` and the LLM endpoint redact the API key in `Debug`.

use std::path::Path;

use tracing_appender::non_blocking::WorkerGuard;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::{fmt, EnvFilter};

/// Starts logging; keep the guard alive for as long as the process runs (it flushes the file).
pub fn init(data_dir: &Path) -> Option<WorkerGuard> {
    let filter = EnvFilter::try_from_env("MARU_LOG").unwrap_or_else(|_| EnvFilter::new("info,maru=info"));
    let logs = data_dir.join("logs");
    let file = crate::paths::create_private_dir(&logs).ok().and_then(|_| {
        tracing_appender::rolling::Builder::new()
            .rotation(tracing_appender::rolling::Rotation::DAILY)
            .filename_prefix("maru")
            .filename_suffix("log")
            .max_log_files(14)
            .build(&logs)
            .ok()
    });
    let (file_layer, guard) = match file {
        Some(appender) => {
            let (writer, guard) = tracing_appender::non_blocking(appender);
            (Some(fmt::layer().with_ansi(false).with_writer(writer)), Some(guard))
        }
        None => (None, None),
    };
    let _ = tracing_subscriber::registry().with(filter).with(fmt::layer().with_writer(std::io::stderr)).with(file_layer).try_init();
    guard
}
