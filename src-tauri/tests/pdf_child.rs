//! PDFs are read in a child process (`maru extract-pdf`), so a damaged or hostile file fails
//! alone with a note, whatever the parser does, and Maru goes on.

use maru::attachments::extract::{self, Note, PdfReader, Text};
use maru::store::attachments::Kind;

fn reader() -> PdfReader {
    PdfReader::Child(env!("CARGO_BIN_EXE_maru").into())
}

async fn read(bytes: &[u8]) -> Result<Text, Note> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("file.pdf");
    std::fs::write(&path, bytes).unwrap();
    extract::text(Kind::Pdf, path, &reader()).await
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
        assert!(err.reason.code.starts_with("pdf_"), "and has a code the UI can word in its language: {err:?}");
    }
}

#[tokio::test]
async fn the_child_reads_a_good_pdf_by_page() {
    // One page, "Hello page one", Helvetica: the smallest PDF most readers accept.
    let body = "BT /F1 12 Tf 72 720 Td (Hello page one) Tj ET";
    let objects = [
        "<< /Type /Catalog /Pages 2 0 R >>".to_string(),
        "<< /Type /Pages /Kids [4 0 R] /Count 1 >>".to_string(),
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>".to_string(),
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 5 0 R /Resources << /Font << /F1 3 0 R >> >> >>".to_string(),
        format!("<< /Length {} >>\nstream\n{body}\nendstream", body.len()),
    ];
    let mut pdf = b"%PDF-1.4\n".to_vec();
    let mut offsets = vec![];
    for (i, o) in objects.iter().enumerate() {
        offsets.push(pdf.len());
        pdf.extend_from_slice(format!("{} 0 obj\n{o}\nendobj\n", i + 1).as_bytes());
    }
    let xref = pdf.len();
    pdf.extend_from_slice(b"xref\n0 6\n0000000000 65535 f \n");
    for off in offsets {
        pdf.extend_from_slice(format!("{off:010} 00000 n \n").as_bytes());
    }
    pdf.extend_from_slice(format!("trailer\n<< /Size 6 /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n").as_bytes());
    match read(&pdf).await {
        Ok(Text::Pages(pages)) => assert!(pages[0].contains("Hello page one"), "{pages:?}"),
        other => panic!("the page's text comes back from the child: {other:?}"),
    }
}
