//! What a file is, from its name and its first bytes, and which files are refused before
//! anything is stored: names that look like paths, empty files, binary files with no text, and
//! contents that contradict their extension.

use crate::error::{Code, Error, Result};
use crate::store::attachments::Kind;
use crate::store::text;

pub const NAME_MAX_CHARS: usize = 255;

/// A display name: one line, no folders. "../etc/passwd" and "C:\x.txt" are refused rather than
/// cut, since the user should see the name they chose.
pub fn clean_name(raw: &str) -> Result<String> {
    let name = text::one_line(raw, NAME_MAX_CHARS, Code::InvalidFileName, "a file name")?;
    if name.is_empty() {
        return Err(Error::invalid(Code::InvalidFileName, "the file has no name"));
    }
    if name.contains(['/', '\\']) || name == "." || name == ".." || name.contains('\0') {
        return Err(Error::invalid(
            Code::InvalidFileName,
            format!("{name:?} looks like a path; attach the file itself, named without folders"),
        ));
    }
    Ok(name)
}

/// The kind and MIME type of `bytes` named `name`.
pub fn detect(name: &str, bytes: &[u8]) -> Result<(Kind, &'static str)> {
    if bytes.is_empty() {
        return Err(Error::invalid(Code::EmptyFile, format!("{name} is empty (0 bytes): there is nothing to read")).with("file", name));
    }
    let ext = name.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase()).unwrap_or_default();
    let image = image_type(bytes);
    let pdf = bytes.starts_with(b"%PDF-");
    let claimed_image = matches!(ext.as_str(), "png" | "jpg" | "jpeg" | "gif" | "webp");
    if let Some(mime) = image {
        if !claimed_image && !ext.is_empty() && ext != "img" {
            return Err(mismatch(name, &ext, "an image"));
        }
        // A PNG named .jpg is sent to the model as what it is not.
        if claimed_image && image_ext_mime(&ext) != mime {
            return Err(mismatch(name, &ext, &format!("a {} image", &mime["image/".len()..].to_uppercase())));
        }
        return Ok((Kind::Image, mime));
    }
    if claimed_image {
        return Err(mismatch(name, &ext, "not an image"));
    }
    if pdf {
        if !ext.is_empty() && ext != "pdf" {
            return Err(mismatch(name, &ext, "a PDF"));
        }
        return Ok((Kind::Pdf, "application/pdf"));
    }
    if ext == "pdf" {
        return Err(mismatch(name, &ext, "not a PDF"));
    }
    if std::str::from_utf8(bytes).is_err() || bytes.contains(&0) {
        return Err(Error::invalid(
            Code::BinaryFile,
            format!("{name} is a binary file with no text Maru can read; attach text, Markdown, code, CSV, JSON, HTML, PDF or an image"),
        )
        .with("file", name));
    }
    Ok(match ext.as_str() {
        "md" | "markdown" => (Kind::Markdown, "text/markdown"),
        "csv" | "tsv" => (Kind::Csv, "text/csv"),
        "json" | "jsonl" => (Kind::Json, "application/json"),
        "html" | "htm" => (Kind::Html, "text/html"),
        "rs" | "py" | "js" | "ts" | "tsx" | "jsx" | "go" | "c" | "h" | "cpp" | "hpp" | "cc" | "java" | "kt" | "swift" | "rb" | "php"
        | "cs" | "sh" | "bash" | "zsh" | "sql" | "toml" | "yaml" | "yml" | "xml" | "css" | "scss" | "lua" | "r" | "scala" | "hs" | "ml"
        | "ex" | "exs" | "dart" | "vue" | "svelte" => (Kind::Code, "text/plain"),
        _ => (Kind::Text, "text/plain"),
    })
}

/// The image type an extension names.
fn image_ext_mime(ext: &str) -> &'static str {
    match ext {
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        _ => "image/webp",
    }
}

fn image_type(bytes: &[u8]) -> Option<&'static str> {
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        Some("image/png")
    } else if bytes.starts_with(b"\xff\xd8\xff") {
        Some("image/jpeg")
    } else if bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a") {
        Some("image/gif")
    } else if bytes.len() > 12 && &bytes[..4] == b"RIFF" && &bytes[8..12] == b"WEBP" {
        Some("image/webp")
    } else {
        None
    }
}

fn mismatch(name: &str, ext: &str, is: &str) -> Error {
    Error::invalid(Code::TypeMismatch, format!("{name} is named .{ext} but its content is {is}; rename it to match what it is"))
        .with("file", name)
        .with("ext", ext)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_that_look_like_paths_are_refused() {
        for bad in ["../etc/passwd", "a/b.txt", "C:\\x.txt", "..", "\u{200b}"] {
            assert!(clean_name(bad).is_err(), "{bad:?} must never name a stored file");
        }
        assert_eq!(clean_name(" 회의록.md ").unwrap(), "회의록.md");
    }

    #[test]
    fn content_decides_and_must_match_the_name() {
        assert_eq!(detect("a.md", b"# hi").unwrap().0, Kind::Markdown);
        assert_eq!(detect("a.pdf", b"%PDF-1.7 ...").unwrap().0, Kind::Pdf);
        assert_eq!(detect("a.png", b"\x89PNG\r\n\x1a\n....").unwrap().0, Kind::Image);
        assert_eq!(detect("a.pdf", b"hello").unwrap_err().code(), "type_mismatch");
        assert_eq!(detect("a.txt", b"%PDF-1.7").unwrap_err().code(), "type_mismatch");
        assert_eq!(detect("a.txt", b"").unwrap_err().code(), "empty_file");
        assert_eq!(detect("a.bin", b"\x00\x01\x02\xff").unwrap_err().code(), "binary_file");
    }

    #[test]
    fn an_image_named_as_another_image_type_is_refused() {
        let png = b"\x89PNG\r\n\x1a\n....";
        let jpeg = b"\xff\xd8\xff\xe0....";
        for (name, bytes) in [("photo.jpg", &png[..]), ("photo.gif", &png[..]), ("photo.png", &jpeg[..]), ("photo.webp", &jpeg[..])] {
            let err = detect(name, bytes).expect_err(name);
            assert_eq!(err.code(), "type_mismatch", "{name} would reach the model labelled as what it is not");
        }
        assert_eq!(detect("photo.jpeg", jpeg).unwrap().1, "image/jpeg");
        assert_eq!(detect("photo.img", png).unwrap().1, "image/png", "a generic name takes the type of its content");
    }
}
