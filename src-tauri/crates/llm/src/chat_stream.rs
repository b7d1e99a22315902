//! `ChatStream`: reads a streaming reply off the wire (first-byte and idle timeouts,
//! cancellation), feeds the SSE parser and the chunk decoder, and yields `Delta`s.
//!
//! The HTTP response is dropped as soon as the stream ends for any reason other than a clean
//! finish, which closes the TCP connection: that is how a server learns to stop generating.

use std::collections::VecDeque;
use std::fmt;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use futures_util::stream::{self, Stream, StreamExt};
use reqwest::Response;
use tokio_util::sync::CancellationToken;
use tracing::debug;

use super::endpoint::{shown_url, Endpoint, Timeouts};
use super::error::{body_failure_detail, LlmError, TimeoutPhase};
use super::sse::{SseEvent, SseParser};
use super::stream::{ChunkDecoder, Delta, Flow};

/// No sane event is this large; a server sending endless bytes without a blank line is broken.
const MAX_EVENT_BYTES: usize = 32 * 1024 * 1024;
/// After the finish reason, how long to wait for the usage chunk and `[DONE]`.
const AFTER_FINISH_WAIT: Duration = Duration::from_secs(5);
/// After `[DONE]`, how long the rest of the body (the chunked-encoding end) may take before the
/// connection is given up instead of returned to the pool.
const DRAIN_AFTER_DONE: Duration = Duration::from_secs(5);

/// The deltas of one streamed reply. Ends (`None`) after `[DONE]`, after a clean end of body
/// once the reply finished, or after yielding one error.
pub struct ChatStream {
    inner: Pin<Box<dyn Stream<Item = Result<Delta, LlmError>> + Send>>,
}

impl ChatStream {
    pub(crate) fn new(
        resp: Response,
        url: &reqwest::Url,
        started: Instant,
        timeouts: Timeouts,
        cancel: CancellationToken,
        endpoint: Endpoint,
    ) -> ChatStream {
        let reader = Reader {
            url: shown_url(url),
            resp: Some(resp),
            parser: SseParser::new(),
            decoder: ChunkDecoder::default(),
            queue: VecDeque::new(),
            cancel,
            first_byte_deadline: Some(started + timeouts.first_byte),
            timeouts,
            failed: false,
            endpoint,
        };
        let inner = stream::unfold(reader, |mut r| async move { r.next().await.map(|item| (item, r)) });
        ChatStream { inner: Box::pin(inner) }
    }

    /// Puts `first` back before what is left of this stream (taken off to look at).
    pub fn prepend(&mut self, first: Result<Delta, LlmError>) {
        let rest = std::mem::replace(&mut self.inner, Box::pin(stream::empty()));
        self.inner = Box::pin(stream::iter([first]).chain(rest));
    }

    /// A stream already at its end (one that yielded its last item).
    pub fn ended() -> ChatStream {
        ChatStream { inner: Box::pin(stream::empty()) }
    }
}

impl Stream for ChatStream {
    type Item = Result<Delta, LlmError>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.inner.as_mut().poll_next(cx)
    }
}

impl fmt::Debug for ChatStream {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ChatStream")
    }
}

struct Reader {
    /// `None` once the body is finished with (dropped, closing the connection, or drained).
    resp: Option<Response>,
    parser: SseParser,
    decoder: ChunkDecoder,
    queue: VecDeque<Result<Delta, LlmError>>,
    cancel: CancellationToken,
    /// Until the first byte arrives, the wait is bounded by this instant instead of `idle`.
    first_byte_deadline: Option<Instant>,
    timeouts: Timeouts,
    /// An error was queued: it is the stream's last item.
    failed: bool,
    /// Shown in timeout messages.
    url: String,
    endpoint: Endpoint,
}

impl Reader {
    async fn next(&mut self) -> Option<Result<Delta, LlmError>> {
        loop {
            if let Some(item) = self.queue.pop_front() {
                return Some(item);
            }
            let resp = self.resp.as_mut()?;
            let (wait, phase) = match self.first_byte_deadline {
                Some(deadline) => (deadline.saturating_duration_since(Instant::now()), TimeoutPhase::FirstByte),
                // Finished: only usage and `[DONE]` are left, so do not keep the user waiting.
                None if self.decoder.is_finished() => (self.timeouts.idle.min(AFTER_FINISH_WAIT), TimeoutPhase::Idle),
                None => (self.timeouts.idle, TimeoutPhase::Idle),
            };
            let read = tokio::select! {
                biased;
                _ = self.cancel.cancelled() => {
                    self.close();
                    return Some(Err(LlmError::Cancelled));
                }
                r = tokio::time::timeout(wait, resp.chunk()) => r,
            };
            match read {
                Err(_) => {
                    let after = match phase {
                        TimeoutPhase::FirstByte => self.timeouts.first_byte,
                        _ => self.timeouts.idle,
                    };
                    self.fail(LlmError::Timeout { phase, after, url: self.url.clone() });
                }
                Ok(Err(e)) => self.fail(LlmError::disconnected(self.endpoint.redact(&body_failure_detail(&e)))),
                Ok(Ok(None)) => self.end_of_body(),
                Ok(Ok(Some(bytes))) => {
                    if !bytes.is_empty() {
                        self.first_byte_deadline = None;
                    }
                    let mut events = Vec::new();
                    self.parser.feed(&bytes, &mut events);
                    self.on_events(events);
                    if self.resp.is_some() && self.parser.buffered_len() > MAX_EVENT_BYTES {
                        self.fail(LlmError::bad_response("an event is larger than 32 MiB"));
                    }
                }
            }
        }
    }

    fn on_events(&mut self, events: Vec<SseEvent>) {
        let mut deltas = Vec::new();
        for event in events {
            match self.decoder.on_event(&event.data, &mut deltas) {
                Ok(Flow::Continue) => {}
                Ok(Flow::Done) => {
                    self.queue.extend(deltas.drain(..).map(Ok));
                    self.drain_and_release();
                    return;
                }
                Err(e) => {
                    self.queue.extend(deltas.drain(..).map(Ok));
                    self.fail(self.redacted(e));
                    return;
                }
            }
        }
        self.queue.extend(deltas.into_iter().map(Ok));
    }

    fn end_of_body(&mut self) {
        self.resp = None;
        // A last event without its blank line: `[DONE]` or a whole chunk is fine; half a chunk
        // means the server died while writing it.
        if let Some(tail) = self.parser.finish() {
            let whole = tail.data.trim() == "[DONE]" || serde_json::from_str::<serde_json::Value>(&tail.data).is_ok();
            if whole {
                self.on_events(vec![tail]);
            }
        }
        if let Err(e) = self.decoder.on_end_of_body() {
            self.fail(e);
        }
    }

    /// Ends the stream with `e`, unless the reply already finished: then what is missing
    /// (at most the usage chunk) is not worth failing a complete answer for.
    fn fail(&mut self, e: LlmError) {
        self.close();
        if self.failed {
            return; // one error per stream
        }
        if self.decoder.is_finished() && !matches!(e, LlmError::StreamError { .. }) {
            debug!(error = %e, "ignoring a failure after the reply finished");
        } else {
            self.failed = true;
            self.queue.push_back(Err(e));
        }
    }

    /// Drops the response mid-body, which closes the connection.
    fn close(&mut self) {
        self.resp = None;
    }

    /// After `[DONE]`: read the body's remaining bytes in the background so the connection
    /// can be reused, without making the caller wait for them.
    fn drain_and_release(&mut self) {
        if let Some(mut resp) = self.resp.take() {
            tokio::spawn(async move {
                let _ = tokio::time::timeout(DRAIN_AFTER_DONE, async { while let Ok(Some(_)) = resp.chunk().await {} }).await;
            });
        }
    }

    fn redacted(&self, e: LlmError) -> LlmError {
        match e {
            LlmError::StreamError { message } => LlmError::StreamError { message: self.endpoint.redact(&message) },
            LlmError::ContextTooLong { message } => LlmError::ContextTooLong { message: self.endpoint.redact(&message) },
            LlmError::BadResponse { detail } => LlmError::BadResponse { detail: self.endpoint.redact(&detail) },
            other => other,
        }
    }
}
