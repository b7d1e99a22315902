//! Byte-level Server-Sent Events parser: bytes in (split anywhere), complete `data` payloads out.
//!
//! Works on bytes, not strings, because a read can end in the middle of a UTF-8 character or
//! between the `\r` and `\n` of a line end. Follows the WHATWG event-stream rules that matter
//! here: `\n`, `\r\n` and `\r` all end a line; a blank line ends an event; lines starting with
//! `:` are comments (pings); only the `data` field is kept, multi-line data joined with `\n`.

/// One dispatched event: the joined `data` lines, decoded as UTF-8 (invalid bytes replaced).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SseEvent {
    pub data: String,
}

#[derive(Debug, Default)]
pub(crate) struct SseParser {
    /// Bytes of the line being read (no line end yet).
    line: Vec<u8>,
    /// `data` values of the event being read, each followed by `\n`.
    data: Vec<u8>,
    /// The previous read ended in `\r`: a `\n` at the start of the next one belongs to it.
    after_cr: bool,
    /// No line completed yet: a UTF-8 byte-order mark may precede the first one.
    at_start: bool,
}

impl SseParser {
    pub fn new() -> Self {
        SseParser { at_start: true, ..Default::default() }
    }

    /// Feeds one read; appends every event it completes to `out`.
    pub fn feed(&mut self, mut bytes: &[u8], out: &mut Vec<SseEvent>) {
        if self.after_cr && !bytes.is_empty() {
            self.after_cr = false;
            if bytes[0] == b'\n' {
                bytes = &bytes[1..];
            }
        }
        while let Some(end) = bytes.iter().position(|&b| b == b'\n' || b == b'\r') {
            self.line.extend_from_slice(&bytes[..end]);
            let line = std::mem::take(&mut self.line);
            self.on_line(&line, out);
            self.line = line;
            self.line.clear();
            match bytes[end] {
                b'\r' if end + 1 == bytes.len() => {
                    self.after_cr = true;
                    bytes = &[];
                }
                b'\r' if bytes[end + 1] == b'\n' => bytes = &bytes[end + 2..],
                _ => bytes = &bytes[end + 1..],
            }
        }
        self.line.extend_from_slice(bytes);
    }

    /// At end of input: the event still being read when the body ended, if it has data.
    /// The spec discards it; the caller decides (a final `[DONE]` without its blank line is fine,
    /// half a JSON chunk means the server died).
    pub fn finish(&mut self) -> Option<SseEvent> {
        if !self.line.is_empty() {
            let line = std::mem::take(&mut self.line);
            let line = self.strip_bom(&line);
            self.on_field_line(line);
        }
        self.take_event()
    }

    /// Bytes held while waiting for a line or event end: lets the caller cap runaway input.
    pub fn buffered_len(&self) -> usize {
        self.line.len() + self.data.len()
    }

    fn strip_bom<'a>(&mut self, line: &'a [u8]) -> &'a [u8] {
        if std::mem::take(&mut self.at_start) {
            line.strip_prefix(b"\xEF\xBB\xBF".as_slice()).unwrap_or(line)
        } else {
            line
        }
    }

    fn on_line(&mut self, line: &[u8], out: &mut Vec<SseEvent>) {
        let line = self.strip_bom(line);
        if line.is_empty() {
            out.extend(self.take_event());
        } else {
            self.on_field_line(line);
        }
    }

    fn on_field_line(&mut self, line: &[u8]) {
        if line.first() == Some(&b':') {
            return; // comment, e.g. ": ping"
        }
        let (name, value) = match line.iter().position(|&b| b == b':') {
            Some(colon) => {
                let value = &line[colon + 1..];
                (&line[..colon], value.strip_prefix(b" ".as_slice()).unwrap_or(value))
            }
            None => (line, &[][..]),
        };
        if name == b"data" {
            self.data.extend_from_slice(value);
            self.data.push(b'\n');
        }
    }

    fn take_event(&mut self) -> Option<SseEvent> {
        if self.data.is_empty() {
            return None; // an event with no data field is not dispatched
        }
        self.data.pop(); // the `\n` after the last data line
        let data = String::from_utf8_lossy(&self.data).into_owned();
        self.data.clear();
        Some(SseEvent { data })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn parse_reads(reads: &[&[u8]]) -> (Vec<String>, Option<String>) {
        let mut p = SseParser::new();
        let mut out = Vec::new();
        for r in reads {
            p.feed(r, &mut out);
        }
        let tail = p.finish().map(|e| e.data);
        (out.into_iter().map(|e| e.data).collect(), tail)
    }

    fn parse(bytes: &[u8]) -> Vec<String> {
        parse_reads(&[bytes]).0
    }

    #[test]
    fn events_end_at_blank_lines_with_any_line_ending() {
        assert_eq!(parse(b"data: a\n\ndata: b\r\n\r\ndata: c\r\rdata: d\n\n"), ["a", "b", "c", "d"]);
    }

    #[test]
    fn comments_other_fields_and_empty_events_are_ignored() {
        let got = parse(b": ping\n\nevent: message\nid: 7\nretry: 10\ndata: x\n\n: keep-alive\n\n\n\n");
        assert_eq!(got, ["x"], "pings must not reach the chat as text");
    }

    #[test]
    fn multi_line_data_is_joined_with_newline() {
        assert_eq!(parse(b"data: one\ndata:two\ndata\n\n"), ["one\ntwo\n"]);
    }

    #[test]
    fn a_character_split_between_reads_survives() {
        let whole = "data: 마루 🙂\n\n".as_bytes();
        for cut in 0..whole.len() {
            let (a, b) = whole.split_at(cut);
            assert_eq!(parse_reads(&[a, b]).0, ["마루 🙂"], "cut at {cut}");
        }
    }

    #[test]
    fn crlf_split_between_reads_is_one_line_end() {
        assert_eq!(parse_reads(&[b"data: a\r", b"\n\r", b"\ndata: b\n\n"]).0, ["a", "b"]);
    }

    #[test]
    fn byte_order_mark_at_start_is_skipped() {
        assert_eq!(parse_reads(&[b"\xEF\xBB", b"\xBFdata: a\n\n"]).0, ["a"]);
    }

    #[test]
    fn unterminated_last_event_is_handed_to_finish() {
        assert_eq!(parse_reads(&[b"data: a\n\ndata: [DONE]"]), (vec!["a".to_string()], Some("[DONE]".to_string())));
        assert_eq!(parse_reads(&[b"data: a\n\n: ping"]).1, None);
    }

    fn split_at_points(bytes: &[u8], mut points: Vec<usize>) -> Vec<&[u8]> {
        points.iter_mut().for_each(|p| *p %= bytes.len() + 1);
        points.sort_unstable();
        let mut reads = Vec::new();
        let mut start = 0;
        for p in points {
            reads.push(&bytes[start..p]);
            start = p;
        }
        reads.push(&bytes[start..]);
        reads
    }

    /// A plausible stream: data lines (with multi-byte text), comments, stray fields, all three
    /// line endings.
    fn stream_strategy() -> impl Strategy<Value = Vec<u8>> {
        let line = prop_oneof![
            "[a-z{}\":,\\[\\] 마루🙂]{0,12}".prop_map(|s| format!("data: {s}")),
            Just(": ping".to_string()),
            Just("event: x".to_string()),
            Just(String::new()),
            Just("data: [DONE]".to_string()),
        ];
        let eol = prop_oneof![Just("\n"), Just("\r\n"), Just("\r")];
        proptest::collection::vec((line, eol), 0..40)
            .prop_map(|ls| ls.into_iter().flat_map(|(l, e)| format!("{l}{e}").into_bytes()).collect())
    }

    proptest! {
        #[test]
        fn any_split_of_a_valid_stream_gives_the_same_events(
            bytes in stream_strategy(),
            points in proptest::collection::vec(any::<usize>(), 0..20),
        ) {
            let whole = parse_reads(&[&bytes]);
            prop_assert_eq!(parse_reads(&split_at_points(&bytes, points)), whole);
        }

        #[test]
        fn arbitrary_bytes_never_panic_and_split_the_same(
            bytes in proptest::collection::vec(any::<u8>(), 0..300),
            points in proptest::collection::vec(any::<usize>(), 0..20),
        ) {
            let whole = parse_reads(&[&bytes]);
            prop_assert_eq!(parse_reads(&split_at_points(&bytes, points)), whole);
        }

        #[test]
        fn byte_by_byte_equals_whole(bytes in stream_strategy()) {
            let reads: Vec<&[u8]> = bytes.chunks(1).collect();
            prop_assert_eq!(parse_reads(&reads), parse_reads(&[&bytes]));
        }
    }
}
