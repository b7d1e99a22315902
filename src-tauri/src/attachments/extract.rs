//! A file's text: as written for text, Markdown, code, CSV and JSON; the readable text of HTML;
//! and for PDF, text per page, read in a child process.
//!
//! PDF parsers panic, loop and allocate without bound on real files. A child process (the `maru`
//! binary itself, `maru extract-pdf`) with a time limit and an address-space limit makes such a
//! file fail alone, with a clear note, whatever the parser does. Builds that are not the `maru`
//! binary (tests, benchmarks) read PDFs in a thread instead: a panic still fails the file alone,
//! but a runaway parse is only abandoned, not killed.

use std::path::PathBuf;
use std::time::Duration;

use crate::error::Reason;
use crate::store::attachments::Kind;

/// Why a file's text could not be read: a code the UI words in its language, and the English.
#[derive(Debug, Clone, PartialEq)]
pub struct Note {
    pub reason: Reason,
    pub text: String,
}

impl Note {
    pub fn new(code: &str, text: impl Into<String>) -> Note {
        Note { reason: Reason::new(code), text: text.into() }
    }
}

fn pdf_timeout() -> Note {
    let secs = PDF_TIME_LIMIT.as_secs();
    Note {
        reason: Reason::new("pdf_timeout").with("seconds", secs),
        text: format!("reading the PDF took longer than {secs} s; it was given up"),
    }
}

fn pdf_reader_failed() -> Note {
    Note::new("pdf_reader_failed", "the PDF reader failed on this file (it may be damaged)")
}

/// How long a PDF may take before it is given up on.
pub const PDF_TIME_LIMIT: Duration = Duration::from_secs(60);
/// The PDF reader's address-space limit.
const PDF_MEMORY_LIMIT: u64 = 2 << 30;

/// The text of a file, by page when it has pages.
#[derive(Debug, Clone, PartialEq)]
pub enum Text {
    Whole(String),
    Pages(Vec<String>),
}

/// Where PDFs are read.
#[derive(Debug, Clone)]
pub enum PdfReader {
    /// `program extract-pdf <file>` prints the pages as JSON.
    Child(PathBuf),
    InThread,
}

impl PdfReader {
    /// The running `maru` binary when this is it (or `MARU_PDF_READER` names one), else a thread.
    pub fn detect() -> PdfReader {
        if let Some(program) = std::env::var_os("MARU_PDF_READER") {
            return PdfReader::Child(program.into());
        }
        match std::env::current_exe() {
            Ok(exe) if exe.file_stem().is_some_and(|s| s == "maru") => PdfReader::Child(exe),
            _ => PdfReader::InThread,
        }
    }
}

/// Reads the text of a stored file. `Err` is a note for the user: why no text could be read.
pub async fn text(kind: Kind, path: PathBuf, pdf: &PdfReader) -> Result<Text, Note> {
    match kind {
        Kind::Image => Err(Note::new("image_no_text", "images are sent to models that can see them; they have no text to search")),
        Kind::Pdf => match pdf_pages(path, pdf).await? {
            pages if pages.is_empty() => Err(Note::new("pdf_no_pages", "the PDF has no pages Maru can read (it may be damaged)")),
            pages => Ok(Text::Pages(pages)),
        },
        Kind::Html => {
            let bytes = read(&path).await?;
            tokio::task::spawn_blocking(move || {
                html2text::from_read(&bytes[..], 100).map_err(|e| Note::new("html_unreadable", format!("the HTML could not be read: {e}")))
            })
            .await
            .map_err(|e| Note::new("html_unreadable", format!("reading the HTML failed: {e}")))?
            .map(Text::Whole)
        }
        _ => String::from_utf8(read(&path).await?).map(Text::Whole).map_err(|_| Note::new("not_utf8", "the file is not UTF-8 text")),
    }
}

async fn read(path: &std::path::Path) -> Result<Vec<u8>, Note> {
    tokio::fs::read(path).await.map_err(|e| Note::new("stored_file_unreadable", format!("the stored file cannot be read: {e}")))
}

async fn pdf_pages(path: PathBuf, reader: &PdfReader) -> Result<Vec<String>, Note> {
    match reader {
        PdfReader::Child(program) => pdf_in_child(program, &path).await,
        PdfReader::InThread => {
            let bytes = read(&path).await?;
            let (tx, rx) = tokio::sync::oneshot::channel();
            std::thread::spawn(move || {
                let _ = tx.send(std::panic::catch_unwind(|| pdf_pages_here(&bytes)));
            });
            match tokio::time::timeout(PDF_TIME_LIMIT, rx).await {
                Err(_) => Err(pdf_timeout()),
                Ok(Err(_)) | Ok(Ok(Err(_))) => Err(pdf_reader_failed()),
                Ok(Ok(Ok(pages))) => pages.map_err(|text| Note::new("pdf_unreadable", text)),
            }
        }
    }
}

/// The PDF's pages, read in this process: only for `maru extract-pdf` and the thread fallback.
pub fn pdf_pages_here(bytes: &[u8]) -> Result<Vec<String>, String> {
    pdf_extract::extract_text_from_mem_by_pages(bytes).map_err(|e| format!("the PDF could not be read: {e}"))
}

async fn pdf_in_child(program: &std::path::Path, path: &std::path::Path) -> Result<Vec<String>, Note> {
    let mut cmd = tokio::process::Command::new(program);
    cmd.arg("extract-pdf").arg(path).stdin(std::process::Stdio::null()).stderr(std::process::Stdio::null()).kill_on_drop(true);
    #[cfg(unix)]
    // SAFETY: only async-signal-safe calls (setrlimit) between fork and exec.
    unsafe {
        cmd.pre_exec(|| {
            let limit = libc::rlimit { rlim_cur: PDF_MEMORY_LIMIT, rlim_max: PDF_MEMORY_LIMIT };
            libc::setrlimit(libc::RLIMIT_AS, &limit);
            Ok(())
        });
    }
    let out = match tokio::time::timeout(PDF_TIME_LIMIT, cmd.output()).await {
        Err(_) => return Err(pdf_timeout()),
        Ok(Err(e)) => return Err(Note::new("pdf_reader_failed", format!("the PDF reader could not start: {e}"))),
        Ok(Ok(out)) => out,
    };
    if !out.status.success() {
        return Err(pdf_reader_failed());
    }
    let result: Result<Vec<String>, String> =
        serde_json::from_slice(&out.stdout).map_err(|_| Note::new("pdf_reader_failed", "the PDF reader gave no readable answer"))?;
    result.map_err(|text| Note::new("pdf_unreadable", text))
}

/// Thumbnails fit in this square.
pub const THUMBNAIL_PX: u32 = 256;

/// A PNG thumbnail of an image, decoded with limits so that a decompression bomb fails alone.
pub fn thumbnail(bytes: &[u8]) -> Result<Vec<u8>, Note> {
    let mut reader = image::ImageReader::new(std::io::Cursor::new(bytes))
        .with_guessed_format()
        .map_err(|e| Note::new("image_unreadable", format!("the image could not be read: {e}")))?;
    let mut limits = image::Limits::default();
    limits.max_image_width = Some(20_000);
    limits.max_image_height = Some(20_000);
    limits.max_alloc = Some(512 << 20);
    reader.limits(limits);
    let img = reader.decode().map_err(|e| Note::new("image_unreadable", format!("the image could not be read: {e}")))?;
    let small = img.thumbnail(THUMBNAIL_PX, THUMBNAIL_PX);
    let mut png = vec![];
    small
        .write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
        .map_err(|e| Note::new("image_unreadable", format!("the thumbnail could not be made: {e}")))?;
    Ok(png)
}
