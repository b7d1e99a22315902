//! A file's text, read in pieces so that no file, however large its text, is ever held whole:
//! as written for text, Markdown, code, CSV and JSON; the readable text of HTML; and for PDF,
//! text per page, read in a child process. At most `max_chars` characters are read; past them
//! the text is cut and the file says so.
//!
//! PDF parsers panic, loop and allocate without bound on real files. A child process (Maru's own
//! binary, `maru extract-pdf`) with a time limit and an address-space limit makes such a file fail
//! alone, with a clear note, whatever the parser does. The child is used whenever the running
//! program is Maru's command (whatever its file is called: [`this_binary_reads_pdfs`]); test and
//! benchmark binaries read PDFs in a thread instead: a panic still fails the file alone, but a
//! runaway parse is only abandoned, not killed.

use crate::error::ReasonCode;
use std::io::Read as _;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncReadExt};
use tokio::sync::mpsc;

use crate::error::Reason;
use crate::store::attachments::Kind;

pub use crate::store::attachments::Note;

fn pdf_timeout() -> Note {
    let secs = PDF_TIME_LIMIT.as_secs();
    Note {
        reason: Reason::new(ReasonCode::PdfTimeout).with("seconds", secs),
        text: format!("reading the PDF took longer than {secs} s; it was given up"),
    }
}

fn pdf_reader_failed() -> Note {
    Note::new(ReasonCode::PdfReaderFailed, "the PDF reader failed on this file (it may be damaged)")
}

/// How long a PDF may take before it is given up on.
pub const PDF_TIME_LIMIT: Duration = Duration::from_secs(60);
/// The PDF reader's address-space limit.
const PDF_MEMORY_LIMIT: u64 = 2 << 30;

/// Some whole lines of a file's text (the last may go on in the next piece), in order.
#[derive(Debug, Clone, PartialEq)]
pub struct Piece {
    /// 1-based; `None` for files without pages.
    pub page: Option<i64>,
    /// The 1-based line of the page (or file) the piece starts on.
    pub first_line: i64,
    pub text: String,
}

/// What reading a file found, once its pieces are all sent.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Outcome {
    /// Pages, for files that have them.
    pub pages: Option<i64>,
    /// Pages with no text (1-based).
    pub empty_pages: Vec<usize>,
    /// The text went past the limit and was cut: the characters kept, and the page it stopped on.
    pub cut: Option<(usize, Option<i64>)>,
}

/// Pieces aim at this size: small enough that memory stays flat, large enough to keep a
/// paragraph together.
const PIECE_BYTES: usize = 256 * 1024;

/// Cuts text into pieces of whole lines, counting lines, and stops at the character limit.
struct Pieces {
    page: Option<i64>,
    line: i64,
    buf: String,
    left: usize,
    kept: usize,
    cut: bool,
    out: Vec<Piece>,
}

impl Pieces {
    fn new(max_chars: usize) -> Pieces {
        Pieces { page: None, line: 1, buf: String::new(), left: max_chars, kept: 0, cut: false, out: vec![] }
    }

    /// Adds text; false once the limit is reached (the rest is not wanted).
    fn push(&mut self, text: &str) -> bool {
        if self.cut {
            return false;
        }
        let n = text.chars().count();
        if n > self.left {
            let end = text.char_indices().nth(self.left).map_or(text.len(), |(i, _)| i);
            self.buf.push_str(&text[..end]);
            self.kept += self.left;
            self.left = 0;
            self.cut = true;
            self.flush();
            return false;
        }
        self.left -= n;
        self.kept += n;
        self.buf.push_str(text);
        let mut start = 0;
        while self.buf.len() - start >= PIECE_BYTES {
            // At the last line end; a single line longer than a piece is cut where it is.
            let mut end = start + PIECE_BYTES;
            while !self.buf.is_char_boundary(end) {
                end -= 1;
            }
            let at = self.buf[start..end].rfind('\n').map_or(end, |i| start + i + 1);
            let piece = self.buf[start..at].to_string();
            start = at;
            self.emit(piece);
        }
        // Once per push, and less than a piece is left: linear in the text, however long.
        self.buf.drain(..start);
        true
    }

    /// The page is over: what is buffered goes out, and lines count from 1 again.
    fn end_page(&mut self) {
        self.flush();
        self.line = 1;
    }

    fn flush(&mut self) {
        let piece = std::mem::take(&mut self.buf);
        if !piece.is_empty() {
            self.emit(piece);
        }
    }

    fn emit(&mut self, text: String) {
        let first_line = self.line;
        self.line += text.matches('\n').count() as i64;
        self.out.push(Piece { page: self.page, first_line, text });
    }

    fn take(&mut self) -> Vec<Piece> {
        std::mem::take(&mut self.out)
    }
}

/// Where PDFs are read.
#[derive(Debug, Clone)]
pub enum PdfReader {
    /// `program extract-pdf <file> --max-chars N` prints the pages as JSON, one per line.
    Child(PathBuf),
    InThread,
}

static THIS_BINARY_READS_PDFS: AtomicBool = AtomicBool::new(false);

/// Called by Maru's `main`: this program answers `extract-pdf`, so PDFs are read in a child
/// process running it, whatever its file is named.
pub fn this_binary_reads_pdfs() {
    THIS_BINARY_READS_PDFS.store(true, Ordering::Relaxed);
}

impl PdfReader {
    /// `MARU_PDF_READER` when set, else this program when it is Maru's command, else a thread.
    pub fn detect() -> PdfReader {
        if let Some(program) = std::env::var_os("MARU_PDF_READER") {
            return PdfReader::Child(program.into());
        }
        match std::env::current_exe() {
            Ok(exe) if THIS_BINARY_READS_PDFS.load(Ordering::Relaxed) => PdfReader::Child(exe),
            _ => PdfReader::InThread,
        }
    }
}

/// Reads the text of a stored file into `pieces`, at most `max_chars` characters. `Err` is a
/// note for the user: why no text could be read. A closed receiver stops the reading early.
pub async fn read(kind: Kind, path: PathBuf, pdf: &PdfReader, max_chars: usize, pieces: mpsc::Sender<Piece>) -> Result<Outcome, Note> {
    match kind {
        Kind::Image => Err(Note::new(ReasonCode::ImageNoText, "images are sent to models that can see them; they have no text to search")),
        Kind::Pdf => {
            let read = match pdf {
                PdfReader::Child(program) => pdf_in_child(program, &path, max_chars, &pieces).await?,
                PdfReader::InThread => pdf_in_thread(&path, max_chars, &pieces).await?,
            };
            match read.pages {
                Some(0) | None => Err(Note::new(ReasonCode::PdfNoPages, "the PDF has no pages Maru can read (it may be damaged)")),
                Some(_) => Ok(read),
            }
        }
        Kind::Html => {
            let bytes = tokio::fs::read(&path).await.map_err(unreadable)?;
            tokio::task::spawn_blocking(move || {
                let text = html2text::from_read(&bytes[..], 100)
                    .map_err(|e| Note::new(ReasonCode::HtmlUnreadable, format!("the HTML could not be read: {e}")))?;
                drop(bytes);
                let mut p = Pieces::new(max_chars);
                p.push(&text);
                p.flush();
                for piece in p.take() {
                    if pieces.blocking_send(piece).is_err() {
                        break;
                    }
                }
                Ok(Outcome { cut: p.cut.then_some((p.kept, None)), ..Outcome::default() })
            })
            .await
            .map_err(|e| Note::new(ReasonCode::HtmlUnreadable, format!("reading the HTML failed: {e}")))?
        }
        _ => tokio::task::spawn_blocking(move || text_file(&path, max_chars, &pieces))
            .await
            .map_err(|e| Note::new(ReasonCode::StoredFileUnreadable, format!("reading the file failed: {e}")))?,
    }
}

fn unreadable(e: std::io::Error) -> Note {
    Note::new(ReasonCode::StoredFileUnreadable, format!("the stored file cannot be read: {e}"))
}

/// A UTF-8 text file, a block at a time: memory stays at a few pieces whatever its size.
fn text_file(path: &std::path::Path, max_chars: usize, pieces: &mpsc::Sender<Piece>) -> Result<Outcome, Note> {
    let mut file = std::fs::File::open(path).map_err(unreadable)?;
    let mut p = Pieces::new(max_chars);
    let mut block = vec![0u8; 64 * 1024];
    let mut pending: Vec<u8> = vec![];
    loop {
        let n = file.read(&mut block).map_err(unreadable)?;
        if n == 0 {
            break;
        }
        pending.extend_from_slice(&block[..n]);
        // A character split between two blocks waits for the rest of its bytes.
        let valid = match std::str::from_utf8(&pending) {
            Ok(_) => pending.len(),
            Err(e) if e.error_len().is_none() => e.valid_up_to(),
            Err(_) => return Err(Note::new(ReasonCode::NotUtf8, "the file is not UTF-8 text")),
        };
        let more = p.push(std::str::from_utf8(&pending[..valid]).expect("checked above"));
        pending.drain(..valid);
        for piece in p.take() {
            if pieces.blocking_send(piece).is_err() {
                return Ok(Outcome::default());
            }
        }
        if !more {
            break;
        }
    }
    if !pending.is_empty() && !p.cut {
        return Err(Note::new(ReasonCode::NotUtf8, "the file is not UTF-8 text"));
    }
    p.flush();
    for piece in p.take() {
        if pieces.blocking_send(piece).is_err() {
            break;
        }
    }
    Ok(Outcome { cut: p.cut.then_some((p.kept, None)), ..Outcome::default() })
}

/// Pages as they come (from the child, or the thread), into pieces.
struct PageSink {
    pieces: Pieces,
    read: Outcome,
}

impl PageSink {
    fn new(max_chars: usize) -> PageSink {
        PageSink { pieces: Pieces::new(max_chars), read: Outcome { pages: Some(0), ..Outcome::default() } }
    }

    /// Adds the next page; false once the limit is reached.
    fn page(&mut self, text: &str) -> bool {
        let n = self.read.pages.unwrap_or(0) + 1;
        self.read.pages = Some(n);
        if text.trim().is_empty() {
            self.read.empty_pages.push(n as usize);
        }
        self.pieces.page = Some(n);
        let more = self.pieces.push(text);
        self.pieces.end_page();
        if !more {
            self.read.cut = Some((self.pieces.kept, Some(n)));
        }
        more
    }
}

async fn pdf_in_thread(path: &std::path::Path, max_chars: usize, pieces: &mpsc::Sender<Piece>) -> Result<Outcome, Note> {
    let bytes = tokio::fs::read(path).await.map_err(unreadable)?;
    let (tx, rx) = tokio::sync::oneshot::channel();
    std::thread::spawn(move || {
        let _ = tx.send(std::panic::catch_unwind(|| pdf_pages_bounded(&bytes, max_chars)));
    });
    let (pages, cut) = match tokio::time::timeout(PDF_TIME_LIMIT, rx).await {
        Err(_) => return Err(pdf_timeout()),
        Ok(Err(_)) | Ok(Ok(Err(_))) => return Err(pdf_reader_failed()),
        Ok(Ok(Ok(pages))) => pages?,
    };
    let mut sink = PageSink::new(max_chars);
    for page in &pages {
        let more = sink.page(page);
        for piece in sink.pieces.take() {
            if pieces.send(piece).await.is_err() {
                return Ok(sink.read);
            }
        }
        if !more {
            break;
        }
    }
    if let (None, Some(page)) = (sink.read.cut, cut) {
        sink.read.cut = Some((sink.pieces.kept, Some(page as i64)));
    }
    Ok(sink.read)
}

/// The PDF's pages, stopping as soon as `max_chars` characters are read: a page that inflates to
/// gigabytes of text costs only what the limit allows. Returns the pages (every page is counted;
/// those past the cut are empty) and the page where the text was cut.
pub fn pdf_pages_bounded(bytes: &[u8], max_chars: usize) -> Result<(Vec<String>, Option<usize>), Note> {
    let unreadable = |e: &dyn std::fmt::Display| Note::new(ReasonCode::PdfUnreadable, format!("the PDF could not be read: {e}"));
    let mut doc = pdf_extract::Document::load_mem(bytes).map_err(|e| unreadable(&e))?;
    if doc.is_encrypted() {
        // Encrypted with an empty user password is common and readable; anything else fails here.
        doc.decrypt("").map_err(|e| unreadable(&e))?;
    }
    let count = doc.get_pages().len();
    let (mut pages, left, mut cut) = (Vec::with_capacity(count), std::cell::Cell::new(max_chars), None);
    for n in 1..=count {
        let mut text = String::new();
        if cut.is_none() {
            let over = std::cell::Cell::new(false);
            let mut out = pdf_extract::PlainTextOutput::new(Capped { text: &mut text, left: &left, over: &over });
            match pdf_extract::output_doc_page(&doc, &mut out, n as u32) {
                Ok(()) => {}
                Err(_) if over.get() => cut = Some(n),
                // As the reader's own loop does: the pages before the first bad one are kept.
                Err(_) => break,
            }
        }
        pages.push(text);
    }
    Ok((pages, cut))
}

/// A page's text that refuses to grow past the characters `left` (shared by the pages): the
/// reader stops the page at the first refused write, so the work ends with the limit.
struct Capped<'a> {
    text: &'a mut String,
    left: &'a std::cell::Cell<usize>,
    over: &'a std::cell::Cell<bool>,
}

impl std::fmt::Write for Capped<'_> {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        let left = self.left.get();
        let n = s.chars().count();
        if n <= left {
            self.text.push_str(s);
            self.left.set(left - n);
            return Ok(());
        }
        self.text.extend(s.chars().take(left));
        self.left.set(0);
        self.over.set(true);
        Err(std::fmt::Error)
    }
}

impl pdf_extract::ConvertToFmt for Capped<'_> {
    type Writer = Self;
    fn convert(self) -> Self {
        self
    }
}

/// What `maru extract-pdf` prints: one line of JSON per page (a string), at most `max_chars`
/// characters in all, then one line with the outcome (or why the PDF could not be read: the
/// English and the reason's code).
pub fn print_pdf_pages(bytes: &[u8], max_chars: usize, out: &mut impl std::io::Write) -> std::io::Result<()> {
    let pages = std::panic::catch_unwind(|| pdf_pages_bounded(bytes, max_chars)).unwrap_or_else(|_| Err(pdf_reader_failed()));
    let (pages, cut_page) = match pages {
        Ok(read) => read,
        Err(note) => return writeln!(out, "{}", serde_json::json!({ "error": note.text, "reason": note.reason })),
    };
    // Already within the limit: the pages past the cut are empty, so they still count.
    for page in &pages {
        serde_json::to_writer(&mut *out, page).map_err(std::io::Error::from)?;
        writeln!(out)?;
    }
    writeln!(out, "{}", serde_json::json!({ "done": pages.len(), "cut_page": cut_page }))
}

async fn pdf_in_child(
    program: &std::path::Path,
    path: &std::path::Path,
    max_chars: usize,
    pieces: &mpsc::Sender<Piece>,
) -> Result<Outcome, Note> {
    let mut cmd = tokio::process::Command::new(program);
    cmd.arg("extract-pdf")
        .arg(path)
        .arg("--max-chars")
        .arg(max_chars.to_string())
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true);
    #[cfg(unix)]
    // SAFETY: only async-signal-safe calls (setrlimit) between fork and exec.
    unsafe {
        cmd.pre_exec(|| {
            let limit = libc::rlimit { rlim_cur: PDF_MEMORY_LIMIT, rlim_max: PDF_MEMORY_LIMIT };
            libc::setrlimit(libc::RLIMIT_AS, &limit);
            Ok(())
        });
    }
    let mut child = cmd.spawn().map_err(|e| Note::new(ReasonCode::PdfReaderFailed, format!("the PDF reader could not start: {e}")))?;
    let stdout = child.stdout.take().expect("stdout is piped");
    let work = async {
        // A line is one page, at most the whole limit in UTF-8 plus its JSON escapes.
        let line_max = (max_chars as u64) * 6 + 1024;
        let mut lines = tokio::io::BufReader::new(stdout);
        let mut sink = PageSink::new(max_chars);
        let mut line = vec![];
        loop {
            line.clear();
            let n = (&mut lines).take(line_max).read_until(b'\n', &mut line).await.map_err(|_| pdf_reader_failed())?;
            if n == 0 || line.last() != Some(&b'\n') {
                return Err(pdf_reader_failed()); // it died, or wrote more than it may
            }
            let value: serde_json::Value = serde_json::from_slice(&line).map_err(|_| pdf_reader_failed())?;
            match value {
                serde_json::Value::String(page) => {
                    if sink.read.cut.is_some() {
                        continue; // counted, not read
                    }
                    sink.page(&page);
                    for piece in sink.pieces.take() {
                        if pieces.send(piece).await.is_err() {
                            return Ok(sink.read);
                        }
                    }
                }
                serde_json::Value::Object(end) => match end.get("error").and_then(|e| e.as_str()) {
                    Some(e) => {
                        let reason = end.get("reason").and_then(|r| serde_json::from_value::<Reason>(r.clone()).ok());
                        return Err(Note { reason: reason.unwrap_or(Reason::new(ReasonCode::PdfUnreadable)), text: e.to_string() });
                    }
                    None => {
                        if let Some(total) = end.get("done").and_then(|d| d.as_i64()) {
                            sink.read.pages = Some(total);
                        }
                        // The child cut the text to the limit: the pages here add up to it.
                        if let (None, Some(page)) = (sink.read.cut, end.get("cut_page").and_then(|p| p.as_i64())) {
                            sink.read.cut = Some((sink.pieces.kept, Some(page)));
                        }
                        return Ok(sink.read);
                    }
                },
                _ => return Err(pdf_reader_failed()),
            }
        }
    };
    let read = match tokio::time::timeout(PDF_TIME_LIMIT, work).await {
        Err(_) => return Err(pdf_timeout()),
        Ok(read) => read?,
    };
    let _ = child.kill().await;
    Ok(read)
}

/// Thumbnails fit in this square.
pub const THUMBNAIL_PX: u32 = 256;

/// A PNG thumbnail of an image, decoded with limits so that a decompression bomb fails alone.
pub fn thumbnail(bytes: &[u8]) -> Result<Vec<u8>, Note> {
    let mut reader = image::ImageReader::new(std::io::Cursor::new(bytes))
        .with_guessed_format()
        .map_err(|e| Note::new(ReasonCode::ImageUnreadable, format!("the image could not be read: {e}")))?;
    let mut limits = image::Limits::default();
    limits.max_image_width = Some(20_000);
    limits.max_image_height = Some(20_000);
    limits.max_alloc = Some(512 << 20);
    reader.limits(limits);
    let img = reader.decode().map_err(|e| Note::new(ReasonCode::ImageUnreadable, format!("the image could not be read: {e}")))?;
    let small = img.thumbnail(THUMBNAIL_PX, THUMBNAIL_PX);
    let mut png = vec![];
    small
        .write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
        .map_err(|e| Note::new(ReasonCode::ImageUnreadable, format!("the thumbnail could not be made: {e}")))?;
    Ok(png)
}
