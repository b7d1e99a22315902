//! Warm connections: a TCP connection to the model server opened while a turn does its own work
//! before the request (its checks, the history, the prompt), so that the request goes out on a
//! connection already open instead of waiting for one.
//!
//! reqwest's pool cannot help: llama.cpp's server closes the connection after every streamed
//! answer, so there is never one left for the next turn, and reqwest cannot be asked to connect
//! before it has a request. So this one request is sent with hyper on a socket opened here.
//! Only for plain `http://` servers that no proxy stands before (a server on this machine or the
//! local network, what Maru's users mostly run); others take the usual way.
//!
//! Between turns, one connection is kept ready ([`Warm::keep_ready`]): a person's next message
//! then goes out without a connect at all. A server across the network saves a round trip;
//! against llama.cpp on the same 2-core machine, the connect call took 0.13 ms, and with it
//! gone Maru's share of the time to first token (300 pairs each) went 0.59 → 0.34 ms for a
//! regenerate and 0.56 → 0.24 ms for a new message. Servers close idle connections (llama.cpp and uvicorn after 5 s), so the
//! kept one is opened again when the server closes it, for [`READY_FOR`] after a turn. It is
//! taken only by a turn's request ([`Warm::open`]), not by the title or memory requests that
//! follow a turn.

use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use hyper_util::rt::TokioIo;
use reqwest::header::{HeaderValue, HOST, USER_AGENT};
use reqwest::Url;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpSocket, TcpStream};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use super::error::LlmError;

/// A connection not used within this long is closed: the turn that asked for it did not send.
const KEPT_FOR: Duration = Duration::from_secs(2);

/// How long after a turn a connection is kept ready for the next one: a conversation's next
/// message mostly comes within minutes. Against llama.cpp that is a connection every 5 s,
/// holding one of its HTTP threads (it has at least 3 by default).
const READY_FOR: Duration = Duration::from_secs(10 * 60);

/// A server that closes the connection kept ready sooner than this after it opened does not
/// keep idle connections: it is not opened again (it would be, at once, over and over).
const CLOSES_IDLE_AFTER_AT_LEAST: Duration = Duration::from_secs(1);

/// Connections opened ahead of requests to one server, shared by a client's clones.
#[derive(Default)]
pub(crate) struct Warm {
    /// By the number each was asked with, the newest last.
    opening: Mutex<Vec<(u64, Opening)>>,
    asked: AtomicU64,
    /// The connection kept ready between turns, if any.
    ready: Mutex<Option<Ready>>,
}

/// A connection kept ready: its task holds it until it is wanted (and then ends with it), until
/// [`READY_FOR`] is over, or until it is dropped, which closes the connection.
struct Ready {
    wanted: oneshot::Sender<()>,
    kept: Opening,
}

/// A connection being opened (or open).
pub(crate) type Opening = JoinHandle<io::Result<TcpStream>>;

impl Warm {
    /// Starts opening a connection to `url`'s server, if it can take one: see the module docs.
    /// Outside a tokio runtime (a blocking-pool thread is within) it does nothing.
    /// The connection kept ready, when there is one, is taken instead (see [`Warm::keep_ready`]).
    pub(crate) fn open(self: &Arc<Self>, url: &Url, connect_timeout: Duration) {
        let (Some(addr), Ok(runtime)) = (direct_address(url), tokio::runtime::Handle::try_current()) else { return };
        let ready = self.ready.lock().unwrap_or_else(|p| p.into_inner()).take();
        if let Some(Ready { wanted, kept }) = ready.filter(|r| !r.kept.is_finished()) {
            // Its task ends with the connection, which it held until now.
            if wanted.send(()).is_ok() {
                self.keep(&runtime, kept);
                return;
            }
        }
        let connecting = match addr.parse::<SocketAddr>() {
            Ok(addr) => connect_now(addr),
            // A name: resolved first, in the task.
            Err(_) => Box::pin(TcpStream::connect(addr)),
        };
        let task = runtime.spawn(connected(connecting, connect_timeout));
        self.keep(&runtime, task);
    }

    /// Keeps `task`'s connection for the next request, for [`KEPT_FOR`].
    fn keep(self: &Arc<Self>, runtime: &tokio::runtime::Handle, task: Opening) {
        let id = self.asked.fetch_add(1, Ordering::Relaxed);
        self.opening.lock().unwrap_or_else(|p| p.into_inner()).push((id, task));
        // Forgotten after a while: dropping the task's handle closes its connection.
        let warm: Weak<Self> = Arc::downgrade(self);
        runtime.spawn(async move {
            tokio::time::sleep(KEPT_FOR).await;
            if let Some(warm) = warm.upgrade() {
                warm.opening.lock().unwrap_or_else(|p| p.into_inner()).retain(|(i, _)| *i != id);
            }
        });
    }

    /// The newest connection asked for, if any.
    pub(crate) fn take(&self) -> Option<Opening> {
        self.opening.lock().unwrap_or_else(|p| p.into_inner()).pop().map(|(_, task)| task)
    }

    /// Opens a connection to `url`'s server (if it can take one: see the module docs) and keeps
    /// it ready for the next turn's request, opening it again whenever the server closes it,
    /// for [`READY_FOR`]. One at a time: one kept before is closed.
    pub(crate) fn keep_ready(&self, url: &Url, connect_timeout: Duration) {
        let (Some(addr), Ok(runtime)) = (direct_address(url), tokio::runtime::Handle::try_current()) else { return };
        let (wanted, asked) = oneshot::channel();
        let until = tokio::time::Instant::now() + READY_FOR;
        let kept = runtime.spawn(kept_ready(addr, connect_timeout, until, asked));
        // The one before, if still kept, closes as its `wanted` is dropped.
        *self.ready.lock().unwrap_or_else(|p| p.into_inner()) = Some(Ready { wanted, kept });
    }
}

/// `connecting`'s connection, ready for a request.
async fn connected(connecting: Connecting, connect_timeout: Duration) -> io::Result<TcpStream> {
    let stream = tokio::time::timeout(connect_timeout, connecting)
        .await
        .map_err(|_| io::Error::new(io::ErrorKind::TimedOut, "connect timed out"))??;
    stream.set_nodelay(true)?;
    Ok(stream)
}

/// Holds a connection to `addr` until `asked` (then it is the task's result), opening it again
/// when the server closes it, until `until`. Ends with an error, closing any connection, when
/// it is no longer kept: `asked` dropped, `until` passed, the server refused or closes idle
/// connections at once.
async fn kept_ready(
    addr: String,
    connect_timeout: Duration,
    until: tokio::time::Instant,
    mut asked: oneshot::Receiver<()>,
) -> io::Result<TcpStream> {
    let over = |why: &str| io::Error::other(format!("no connection kept ready: {why}"));
    loop {
        let opened = tokio::time::Instant::now();
        let connecting: Connecting = Box::pin(TcpStream::connect(addr.clone()));
        let stream = connected(connecting, connect_timeout).await?;
        loop {
            tokio::select! {
                biased;
                wanted = &mut asked => return wanted.map(|()| stream).map_err(|_| over("no longer wanted")),
                _ = tokio::time::sleep_until(until) => return Err(over("kept long enough")),
                readable = stream.readable() => {
                    readable?;
                    // An idle connection is readable when the server closed it (or, unasked, wrote).
                    match stream.try_read(&mut [0u8; 1]) {
                        Err(e) if e.kind() == io::ErrorKind::WouldBlock => continue,
                        _ => break,
                    }
                }
            }
        }
        drop(stream);
        if opened.elapsed() < CLOSES_IDLE_AFTER_AT_LEAST {
            return Err(over("the server closes idle connections at once"));
        }
    }
}

type Connecting = Pin<Box<dyn Future<Output = io::Result<TcpStream>> + Send>>;

/// A connection to `addr` whose connect call is made now, on the caller's thread: the server
/// takes it while the turn does its own work. Left to the task, the call would wait for the
/// turn's first pause, right before its request (the caller runs on the same worker thread).
fn connect_now(addr: SocketAddr) -> Connecting {
    let socket = if addr.is_ipv4() { TcpSocket::new_v4() } else { TcpSocket::new_v6() };
    let mut connecting: Connecting = match socket {
        Ok(socket) => Box::pin(socket.connect(addr)),
        Err(e) => return Box::pin(std::future::ready(Err(e))),
    };
    // The first poll makes the call; later polls (the task's, with its own waker) wait for the
    // answer. A future that is done is not polled again.
    match connecting.as_mut().poll(&mut Context::from_waker(Waker::noop())) {
        Poll::Ready(done) => Box::pin(std::future::ready(done)),
        Poll::Pending => connecting,
    }
}

/// `host:port` when requests to `url` go straight to it: plain HTTP and no proxy in between
/// (reqwest sends them through one set in the environment, except to this machine).
fn direct_address(url: &Url) -> Option<String> {
    let proxy_set =
        ["http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY"].iter().any(|v| std::env::var(v).is_ok_and(|v| !v.trim().is_empty()));
    address_if_direct(url, proxy_set)
}

fn address_if_direct(url: &Url, proxy_set: bool) -> Option<String> {
    if url.scheme() != "http" || (proxy_set && !super::endpoint::is_loopback(url)) {
        return None;
    }
    Some(format!("{}:{}", url.host_str()?, url.port_or_known_default()?))
}

/// Sends `request` on the connection `opening` gives and returns the answer, its body read as any
/// reqwest response's (its `url()` is not the server's: callers name the URL they sent to). A
/// connection that failed or closed before the answer is `Disconnected`, which the caller sends
/// again the usual way at once.
///
/// `sent` is told as soon as the request's first bytes are written to the connection.
pub(crate) async fn send(opening: Opening, request: reqwest::Request, sent: Option<Sent>) -> Result<reqwest::Response, LlmError> {
    let closed = |e: &dyn std::fmt::Display| LlmError::disconnected(format!("the connection opened ahead failed: {e}"));
    let stream = opening.await.map_err(|e| closed(&e))?.map_err(|e| closed(&e))?;
    let url = request.url().clone();
    let mut request: http::Request<reqwest::Body> = request.try_into().map_err(|e: reqwest::Error| closed(&e))?;
    // The request line names the path only; the server is named by Host, as reqwest sends it.
    let host = match url.port() {
        Some(port) => format!("{}:{port}", url.host_str().unwrap_or_default()),
        None => url.host_str().unwrap_or_default().to_string(),
    };
    let path = match url.query() {
        Some(query) => format!("{}?{query}", url.path()),
        None => url.path().to_string(),
    };
    *request.uri_mut() = path.parse().map_err(|e| closed(&e))?;
    let headers = request.headers_mut();
    headers.insert(HOST, HeaderValue::from_str(&host).map_err(|e| closed(&e))?);
    headers.entry(USER_AGENT).or_insert(HeaderValue::from_static(super::endpoint::USER_AGENT));
    let (mut sender, connection) =
        hyper::client::conn::http1::handshake(TokioIo::new(Noting { stream, sent })).await.map_err(|e| closed(&e))?;
    // Drives the connection until the answer is read or dropped; dropping it mid-answer closes
    // the connection, which is how the server learns to stop generating.
    tokio::spawn(connection);
    let answer = sender.send_request(request).await.map_err(|e| closed(&e))?;
    Ok(answer.map(reqwest::Body::wrap).into())
}

/// Told once a request has gone out; dropped untold when that cannot be known (the request
/// went the usual way, or failed first). Either way, whoever waits on it goes on.
pub type Sent = oneshot::Sender<()>;

/// A connection that tells `sent` when it first writes.
struct Noting {
    stream: TcpStream,
    sent: Option<Sent>,
}

impl Noting {
    fn wrote<T>(&mut self, written: Poll<io::Result<T>>) -> Poll<io::Result<T>> {
        if matches!(written, Poll::Ready(Ok(_))) {
            if let Some(sent) = self.sent.take() {
                let _ = sent.send(());
            }
        }
        written
    }
}

impl AsyncRead for Noting {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_read(cx, buf)
    }
}

impl AsyncWrite for Noting {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        let written = Pin::new(&mut self.stream).poll_write(cx, buf);
        self.wrote(written)
    }

    fn poll_write_vectored(mut self: Pin<&mut Self>, cx: &mut Context<'_>, bufs: &[io::IoSlice<'_>]) -> Poll<io::Result<usize>> {
        let written = Pin::new(&mut self.stream).poll_write_vectored(cx, bufs);
        self.wrote(written)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn direct(url: &str, proxy_set: bool) -> Option<String> {
        address_if_direct(&Url::parse(url).unwrap(), proxy_set)
    }

    #[tokio::test(flavor = "current_thread")]
    async fn the_connection_is_made_when_asked_for_not_when_the_turn_first_pauses() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let warm = Arc::new(Warm::default());
        let url = Url::parse(&format!("http://{}/v1/chat/completions", listener.local_addr().unwrap())).unwrap();
        warm.open(&url, Duration::from_secs(2));
        // Nothing has yielded to the runtime (one thread): only the call itself can have connected.
        let deadline = std::time::Instant::now() + Duration::from_secs(2);
        let accepted = loop {
            match listener.accept() {
                Ok(_) => break true,
                Err(_) if std::time::Instant::now() < deadline => std::thread::sleep(Duration::from_millis(5)),
                Err(_) => break false,
            }
        };
        assert!(accepted, "the server must be taking the connection while the turn still reads its history");
        let opened = warm.take().expect("the connection is kept for the request").await.unwrap();
        assert!(opened.is_ok(), "the connection opened ahead is then the request's");
    }

    /// A listener on this machine, and the chat URL of a server there.
    async fn server() -> (tokio::net::TcpListener, Url) {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = Url::parse(&format!("http://{}/v1/chat/completions", listener.local_addr().unwrap())).unwrap();
        (listener, url)
    }

    /// The next connection the server takes within `within`, if any.
    async fn accepted(listener: &tokio::net::TcpListener, within: Duration) -> Option<TcpStream> {
        tokio::time::timeout(within, listener.accept()).await.ok().map(|a| a.unwrap().0)
    }

    /// A server, a client's connections to it, and the server's side of the one kept ready.
    async fn kept_ready() -> (tokio::net::TcpListener, Url, Arc<Warm>, TcpStream) {
        let (listener, url) = server().await;
        let warm = Arc::new(Warm::default());
        warm.keep_ready(&url, Duration::from_secs(2));
        let kept = accepted(&listener, Duration::from_secs(2)).await.expect("a connection is opened for the next turn");
        (listener, url, warm, kept)
    }

    #[tokio::test]
    async fn the_next_turns_request_goes_out_on_the_connection_kept_ready_with_no_connect() {
        let (listener, url, warm, mut kept) = kept_ready().await;
        assert!(warm.take().is_none(), "a title or memory request, which asks for no connection, must leave the kept one to the turn");
        warm.open(&url, Duration::from_secs(2));
        let mut stream = warm.take().expect("the turn gets a connection").await.unwrap().unwrap();
        tokio::io::AsyncWriteExt::write_all(&mut stream, b"POST").await.unwrap();
        let mut got = [0u8; 4];
        tokio::io::AsyncReadExt::read_exact(&mut kept, &mut got).await.unwrap();
        assert_eq!(&got, b"POST", "the request must go out on the connection kept ready");
        assert!(
            accepted(&listener, Duration::from_millis(200)).await.is_none(),
            "the turn must not connect again: the connect is what keeping one ready saves"
        );
    }

    #[tokio::test]
    async fn a_connection_kept_ready_that_the_server_closes_is_opened_again() {
        let (listener, _url, _warm, first) = kept_ready().await;
        // As llama.cpp and uvicorn close an idle connection (after 5 s; here after a little more
        // than the shortest idle time kept again).
        tokio::time::sleep(CLOSES_IDLE_AFTER_AT_LEAST + Duration::from_millis(100)).await;
        drop(first);
        assert!(
            accepted(&listener, Duration::from_secs(2)).await.is_some(),
            "a server that closed the idle connection must get a new one, or the next turn connects after all"
        );
    }

    #[tokio::test]
    async fn a_server_that_closes_idle_connections_at_once_is_not_asked_over_and_over() {
        let (listener, url, warm, kept) = kept_ready().await;
        drop(kept);
        assert!(
            accepted(&listener, Duration::from_millis(300)).await.is_none(),
            "a server that keeps no idle connection must not be flooded with connections it closes"
        );
        warm.open(&url, Duration::from_secs(2));
        assert!(accepted(&listener, Duration::from_secs(2)).await.is_some(), "the next turn connects as it would without");
        assert!(warm.take().unwrap().await.unwrap().is_ok());
    }

    #[tokio::test]
    async fn a_client_let_go_closes_the_connection_it_kept_ready() {
        let (_listener, _url, warm, mut kept) = kept_ready().await;
        drop(warm);
        let read = tokio::time::timeout(Duration::from_secs(2), tokio::io::AsyncReadExt::read(&mut kept, &mut [0u8; 1])).await;
        assert!(
            matches!(read, Ok(Ok(0))),
            "a server whose settings changed (a new client) must not keep a connection of the old one open: {read:?}"
        );
    }

    #[tokio::test(flavor = "current_thread")]
    async fn a_server_that_is_down_fails_the_connection_opened_ahead() {
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let refused = connect_now(SocketAddr::from(([127, 0, 0, 1], port))).await;
        assert!(refused.is_err(), "a refused connection must fail the warm path, which then goes the usual way and reports why");
    }

    #[test]
    fn only_plain_http_with_no_proxy_between_is_opened_ahead() {
        assert_eq!(direct("http://127.0.0.1:8080/v1/chat/completions", false).as_deref(), Some("127.0.0.1:8080"));
        assert_eq!(direct("http://gpu-box.lan/v1/chat/completions", false).as_deref(), Some("gpu-box.lan:80"), "the scheme's port");
        assert_eq!(direct("http://[::1]:11434/v1/chat/completions", false).as_deref(), Some("[::1]:11434"));
        assert_eq!(direct("https://api.example.com/v1/chat/completions", false), None, "TLS goes the usual way");
        assert_eq!(direct("http://gpu-box.lan:8000/v1/chat/completions", true), None, "a proxy set for the network is honoured");
        assert_eq!(
            direct("http://localhost:8080/v1/chat/completions", true).as_deref(),
            Some("localhost:8080"),
            "no proxy stands before this machine"
        );
    }
}
