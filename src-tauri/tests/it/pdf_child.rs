//! PDFs are read in a child process (`maru extract-pdf`), so a damaged or hostile file fails
//! alone with a note, whatever the parser does, and Maru goes on.

use maru::attachments::extract::{self, Note, Outcome, PdfReader, Piece};
use maru::store::attachments::Kind;

fn reader() -> PdfReader {
    PdfReader::Child(env!("CARGO_BIN_EXE_maru").into())
}

async fn read_at_most(bytes: &[u8], max_chars: usize) -> Result<(Outcome, Vec<Piece>), Note> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("file.pdf");
    std::fs::write(&path, bytes).unwrap();
    let (tx, mut rx) = tokio::sync::mpsc::channel(4);
    let collect = async move {
        let mut pieces = vec![];
        while let Some(p) = rx.recv().await {
            pieces.push(p);
        }
        pieces
    };
    let pdf_reader = reader();
    let (read, pieces) = tokio::join!(extract::read(Kind::Pdf, path, &pdf_reader, max_chars, tx), collect);
    read.map(|r| (r, pieces))
}

async fn read(bytes: &[u8]) -> Result<(Outcome, Vec<Piece>), Note> {
    read_at_most(bytes, 1_000_000).await
}

/// A PDF of `objects` (object 1 the catalog), with its cross-reference table.
fn assemble(objects: &[String]) -> Vec<u8> {
    let mut pdf = b"%PDF-1.4\n".to_vec();
    let mut offsets = vec![];
    for (i, o) in objects.iter().enumerate() {
        offsets.push(pdf.len());
        pdf.extend_from_slice(format!("{} 0 obj\n{o}\nendobj\n", i + 1).as_bytes());
    }
    let xref = pdf.len();
    pdf.extend_from_slice(format!("xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1).as_bytes());
    for off in offsets {
        pdf.extend_from_slice(format!("{off:010} 00000 n \n").as_bytes());
    }
    pdf.extend_from_slice(format!("trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n", objects.len() + 1).as_bytes());
    pdf
}

/// A PDF with one page per text, in Helvetica: the smallest PDF most readers accept.
fn pdf(pages: &[&str]) -> Vec<u8> {
    let n = pages.len();
    let kids: Vec<String> = (0..n).map(|i| format!("{} 0 R", 4 + 2 * i)).collect();
    let mut objects = vec![
        "<< /Type /Catalog /Pages 2 0 R >>".to_string(),
        format!("<< /Type /Pages /Kids [{}] /Count {n} >>", kids.join(" ")),
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>".to_string(),
    ];
    for (i, text) in pages.iter().enumerate() {
        let body = format!("BT /F1 12 Tf 72 720 Td ({text}) Tj ET");
        objects.push(format!(
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents {} 0 R /Resources << /Font << /F1 3 0 R >> >> >>",
            5 + 2 * i
        ));
        objects.push(format!("<< /Length {} >>\nstream\n{body}\nendstream", body.len()));
    }
    assemble(&objects)
}

#[tokio::test]
async fn damaged_pdfs_fail_alone_with_a_note() {
    let cases: [&[u8]; 4] = [
        b"%PDF-1.7\n",
        b"%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF",
        b"%PDF-1.4\nxref\n0 99999999\n0000000000 65535 f \ntrailer << /Size 99999999 /Root 1 0 R >>\nstartxref\n9\n%%EOF",
        &[b'%', b'P', b'D', b'F', b'-', 0xff, 0xfe, 0, 0, 1, 2, 3],
    ];
    for bytes in cases {
        let err = read(bytes).await.expect_err("a damaged PDF has no text to give");
        assert!(err.text.contains("PDF"), "the note says what failed: {err:?}");
        let code = serde_json::to_value(err.reason.code).unwrap();
        assert!(code.as_str().is_some_and(|c| c.starts_with("pdf_")), "and has a code the UI can word in its language: {err:?}");
    }
}

#[tokio::test]
async fn the_child_reads_a_good_pdf_by_page() {
    let (read, pieces) = read(&pdf(&["Hello page one", "And page two"])).await.expect("a good PDF is read");
    assert_eq!(read.pages, Some(2), "{read:?}");
    assert_eq!(read.cut, None, "nothing was cut");
    assert!(pieces.iter().any(|p| p.page == Some(1) && p.text.contains("Hello page one")), "{pieces:?}");
    assert!(pieces.iter().any(|p| p.page == Some(2) && p.text.contains("And page two")), "{pieces:?}");
}

#[tokio::test]
async fn text_past_the_limit_is_cut_and_said() {
    let long = "lorem ipsum dolor ".repeat(20);
    let (read, pieces) = read_at_most(&pdf(&[&long, &long, &long]), 500).await.expect("a long PDF is read up to the limit");
    let kept: usize = pieces.iter().map(|p| p.text.chars().count()).sum();
    assert!(kept <= 500, "no more than the limit reaches the index: {kept}");
    let (chars, page) = read.cut.expect("the cut is reported, so the file can say so");
    assert_eq!((chars, page), (500, Some(2)), "it says how much was kept and where it stopped");
    assert_eq!(read.pages, Some(3), "the pages are still counted");
}

/// One page that draws a form 100 times, which draws another 100 times, which draws a third 100
/// times, which shows 1,000 letters: a PDF of a few kilobytes whose page is a billion characters.
fn inflating_pdf() -> Vec<u8> {
    let text = format!("BT /F1 12 Tf 72 720 Td ({}) Tj ET", "A".repeat(1000));
    let calls = |name: &str| format!("/{name} Do ").repeat(100);
    let form = |body: &str, resources: &str| {
        format!(
            "<< /Type /XObject /Subtype /Form /BBox [0 0 612 792] /Resources << {resources} >> /Length {} >>\nstream\n{body}\nendstream",
            body.len()
        )
    };
    let font = "/Font << /F1 3 0 R >>";
    let objects = [
        "<< /Type /Catalog /Pages 2 0 R >>".to_string(),
        "<< /Type /Pages /Kids [4 0 R] /Count 1 >>".to_string(),
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>".to_string(),
        format!("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 5 0 R /Resources << {font} /XObject << /X2 6 0 R >> >> >>"),
        format!("<< /Length {} >>\nstream\n{}\nendstream", calls("X2").len(), calls("X2")),
        form(&calls("X1"), &format!("{font} /XObject << /X1 7 0 R >>")),
        form(&calls("X0"), &format!("{font} /XObject << /X0 8 0 R >>")),
        form(&text, font),
    ];
    assemble(&objects)
}

#[tokio::test]
async fn a_page_that_inflates_to_a_billion_characters_stops_at_the_limit() {
    let pdf = inflating_pdf();
    assert!(pdf.len() < 8_000, "a small file: {} bytes", pdf.len());
    let (read, pieces) = read_at_most(&pdf, 50_000).await.expect("read up to the limit, not given up on after a minute");
    let kept: usize = pieces.iter().map(|p| p.text.chars().count()).sum();
    assert!(kept > 40_000 && kept <= 50_000, "the text up to the limit is there: {kept}");
    assert_eq!(read.cut.map(|c| c.1), Some(Some(1)), "and the file says it was cut on page 1: {read:?}");
}
