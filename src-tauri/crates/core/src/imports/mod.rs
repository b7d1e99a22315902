//! Chats from another app: ChatGPT's and Claude's data exports, as downloaded (a zip) or their
//! `conversations.json` alone. An export is read twice, conversation by conversation, never
//! whole: first to check it (its shape, that it is whole JSON, how many conversations), so that
//! a damaged one changes nothing; then to store each conversation as a chat ([`jobs`]), in the
//! background. Memory stays at about one conversation, however large the export.
//!
//! - `chatgpt`, `claude`: one conversation of each app as a [`ForeignChat`]
//! - `tree`: a conversation's messages as Maru's message tree (main line and versions)
//! - `jobs`: the imports under way, and how far each is

pub mod chatgpt;
pub mod claude;
pub mod jobs;
mod tree;

use std::io::{BufRead, BufReader, Read};
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::error::{Code, Error, Result};
use crate::store::imports::ForeignChat;

/// The most an export's `conversations.json` may hold unpacked: well past the largest real
/// exports (hundreds of MB), and a ceiling for a zip bomb.
pub const UNPACKED_MAX_BYTES: u64 = 1 << 30;

/// Which app an export comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum ExportSource {
    Chatgpt,
    Claude,
}

impl ExportSource {
    /// The project an import goes to when the user picks none.
    pub fn project_name(self) -> &'static str {
        match self {
            ExportSource::Chatgpt => "Imported from ChatGPT",
            ExportSource::Claude => "Imported from Claude",
        }
    }

    /// One conversation of this app as a chat, and how many of its messages were left out.
    pub fn chat(self, conversation: &serde_json::Value) -> (ForeignChat, usize) {
        match self {
            ExportSource::Chatgpt => chatgpt::chat(conversation),
            ExportSource::Claude => claude::chat(conversation),
        }
    }

    /// Which app wrote this conversation, by its shape.
    fn of(conversation: &serde_json::Value) -> Option<ExportSource> {
        if conversation.get("mapping").is_some_and(|m| m.is_object()) {
            Some(ExportSource::Chatgpt)
        } else if conversation.get("chat_messages").is_some_and(|m| m.is_array()) {
            Some(ExportSource::Claude)
        } else {
            None
        }
    }
}

/// What an uploaded file is.
pub enum Upload {
    /// One JSON object: a chat Maru exported (read whole; it is small).
    Object,
    /// Another app's export, checked whole: its conversations are in `file`.
    Export(Export),
}

/// An export checked whole: where its conversations are, which app wrote them, how many.
pub struct Export {
    pub file: ExportFile,
    pub source: ExportSource,
    pub conversations: usize,
}

/// A JSON file, or the `conversations.json` of a zip.
pub enum ExportFile {
    Json(std::path::PathBuf),
    Zip { path: std::path::PathBuf, entry: String },
}

impl ExportFile {
    /// Opens the conversations to read, at most [`UNPACKED_MAX_BYTES`] of them.
    fn read<T>(&self, f: impl FnOnce(&mut dyn Read) -> Result<T>) -> Result<T> {
        match self {
            ExportFile::Json(path) => {
                let file = std::fs::File::open(path).map_err(anyhow::Error::from)?;
                f(&mut Capped::new(file, UNPACKED_MAX_BYTES))
            }
            ExportFile::Zip { path, entry } => {
                let file = std::fs::File::open(path).map_err(anyhow::Error::from)?;
                let mut zip = zip::ZipArchive::new(BufReader::new(file)).map_err(|e| damaged(format!("the zip cannot be read: {e}")))?;
                let entry = zip.by_name(entry).map_err(|e| damaged(format!("{entry} cannot be read: {e}")))?;
                // Bound before the archive it borrows from goes.
                #[allow(clippy::let_and_return)]
                let out = f(&mut Capped::new(entry, UNPACKED_MAX_BYTES));
                out
            }
        }
    }

    /// Each conversation in turn, with its index; stops at the first error `each` returns.
    pub fn each(&self, mut each: impl FnMut(usize, serde_json::Value) -> Result<()>) -> Result<usize> {
        self.read(|r| conversations(r, &mut each))
    }
}

/// Looks at an upload (a file in the data folder) and checks it whole when it is an export:
/// every conversation read once, so that a damaged, cut or unknown one is refused before
/// anything is stored.
pub fn check(path: &Path) -> Result<Upload> {
    let mut head = [0u8; 4];
    let n = std::fs::File::open(path).and_then(|mut f| f.read(&mut head)).map_err(anyhow::Error::from)?;
    let file = if head[..n].starts_with(b"PK\x03\x04") {
        ExportFile::Zip { path: path.to_path_buf(), entry: conversations_entry(path)? }
    } else {
        let file = std::fs::File::open(path).map_err(anyhow::Error::from)?;
        match first_byte(&mut BufReader::new(file))? {
            Some(b'[') => ExportFile::Json(path.to_path_buf()),
            Some(b'{') => return Ok(Upload::Object),
            None => return Err(Error::invalid(Code::EmptyFile, "the file is empty").with("file", "conversations.json")),
            Some(_) => {
                return Err(Error::invalid(
                    Code::UnsupportedImport,
                    "this is neither a zip nor JSON: import ChatGPT's or Claude's export as downloaded, its conversations.json, or a chat Maru exported as JSON",
                ))
            }
        }
    };
    let mut source = None;
    let conversations = file.each(|i, conversation| {
        let this = ExportSource::of(&conversation).ok_or_else(|| {
            Error::invalid(
                Code::UnsupportedImport,
                format!(
                    "conversation {} of the export is not in ChatGPT's or Claude's shape (no \"mapping\", no \"chat_messages\")",
                    i + 1
                ),
            )
        })?;
        match source {
            Some(s) if s != this => Err(Error::invalid(Code::UnsupportedImport, "the export mixes ChatGPT's and Claude's conversations")),
            _ => {
                source = Some(this);
                Ok(())
            }
        }
    })?;
    let source =
        source.ok_or_else(|| Error::invalid(Code::EmptyFile, "the export holds no conversations").with("file", "conversations.json"))?;
    Ok(Upload::Export(Export { file, source, conversations }))
}

/// The zip's `conversations.json` (at its top, or in one folder), refused when it says it
/// unpacks to more than Maru reads: a zip bomb is refused before it is unpacked.
fn conversations_entry(path: &Path) -> Result<String> {
    let file = std::fs::File::open(path).map_err(anyhow::Error::from)?;
    let mut zip = zip::ZipArchive::new(BufReader::new(file)).map_err(|e| damaged(format!("the zip cannot be read: {e}")))?;
    let name = zip
        .file_names()
        .filter(|n| *n == "conversations.json" || n.ends_with("/conversations.json"))
        .min_by_key(|n| n.len())
        .map(str::to_string)
        .ok_or_else(|| {
            Error::invalid(
                Code::UnsupportedImport,
                "this zip holds no conversations.json: it is not ChatGPT's or Claude's export (a project Maru exported is imported with \"Import a project\")",
            )
        })?;
    let size = zip.by_name(&name).map_err(|e| damaged(format!("{name} cannot be read: {e}")))?.size();
    if size > UNPACKED_MAX_BYTES {
        return Err(too_large(&name));
    }
    Ok(name)
}

fn too_large(name: &str) -> Error {
    Error::invalid(Code::FileTooLarge, format!("{name} unpacks to more than Maru reads ({} MB)", UNPACKED_MAX_BYTES >> 20))
        .with("file", name)
        .with("max_mb", UNPACKED_MAX_BYTES >> 20)
}

fn damaged(why: String) -> Error {
    Error::invalid(Code::InvalidImport, why)
}

/// The first byte that is not white space (a BOM skipped), without consuming it.
fn first_byte(r: &mut impl BufRead) -> Result<Option<u8>> {
    loop {
        let buf = r.fill_buf().map_err(anyhow::Error::from)?;
        let Some(at) = buf.iter().position(|b| !b" \t\r\n\xEF\xBB\xBF".contains(b)) else {
            if buf.is_empty() {
                return Ok(None);
            }
            let n = buf.len();
            r.consume(n);
            continue;
        };
        return Ok(Some(buf[at]));
    }
}

/// Reads a JSON list element by element, handing each to `each`: one conversation in memory at
/// a time. A list cut short, or anything after it, is refused as damaged.
fn conversations(r: &mut dyn Read, each: &mut dyn FnMut(usize, serde_json::Value) -> Result<()>) -> Result<usize> {
    use serde::de::{Deserializer as _, SeqAccess, Visitor};

    struct Each<'a> {
        each: &'a mut dyn FnMut(usize, serde_json::Value) -> Result<()>,
        /// Why `each` stopped the reading, kept whole (serde's error would keep only its text).
        stopped: &'a mut Option<Error>,
    }
    impl<'de> Visitor<'de> for Each<'_> {
        type Value = usize;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a list of conversations")
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> std::result::Result<usize, A::Error> {
            let mut n = 0;
            while let Some(conversation) = seq.next_element::<serde_json::Value>()? {
                if let Err(e) = (self.each)(n, conversation) {
                    *self.stopped = Some(e);
                    return Err(serde::de::Error::custom("stopped"));
                }
                n += 1;
            }
            Ok(n)
        }
    }

    let mut stopped = None;
    let mut de = serde_json::Deserializer::from_reader(BufReader::with_capacity(1 << 16, r));
    let read = de.deserialize_seq(Each { each, stopped: &mut stopped }).and_then(|n| de.end().map(|()| n));
    if let Some(e) = stopped {
        return Err(e);
    }
    read.map_err(|e| match e.io_error_kind() {
        Some(std::io::ErrorKind::FileTooLarge) => too_large("conversations.json"),
        _ if e.is_eof() => damaged(format!("the export is cut short ({e}); download it again")),
        _ => damaged(format!("the export is not whole JSON: {e}")),
    })
}

/// A reader that fails past `max` bytes, whatever a header claimed.
struct Capped<R> {
    inner: R,
    left: u64,
}

impl<R> Capped<R> {
    fn new(inner: R, max: u64) -> Self {
        Capped { inner, left: max }
    }
}

impl<R: Read> Read for Capped<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        if n as u64 > self.left {
            return Err(std::io::Error::new(std::io::ErrorKind::FileTooLarge, "larger than Maru reads"));
        }
        self.left -= n as u64;
        Ok(n)
    }
}

/// Seconds since the epoch (ChatGPT's times, with a fraction) as milliseconds.
fn seconds(v: &serde_json::Value) -> Option<i64> {
    v.as_f64().filter(|s| s.is_finite() && *s > 0.0).map(|s| (s * 1000.0) as i64)
}

/// An RFC 3339 time (Claude's) as milliseconds since the epoch.
fn rfc3339(v: &serde_json::Value) -> Option<i64> {
    chrono::DateTime::parse_from_rfc3339(v.as_str()?).ok().map(|t| t.timestamp_millis())
}

/// A source id for a conversation that carries none: the hash of its JSON, the same for the
/// same export.
fn hashed(conversation: &serde_json::Value) -> String {
    use sha2::{Digest, Sha256};
    hex::encode(&Sha256::digest(conversation.to_string().as_bytes())[..12])
}

/// `text` as a fenced Markdown block that no run of backticks inside it can close.
fn fenced(language: &str, text: &str) -> String {
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest.max(2) + 1);
    format!("{fence}{language}\n{}\n{fence}", text.trim_end_matches('\n'))
}

#[cfg(test)]
mod tests;
