//! A tiny OpenAI-compatible chat-completions server on 127.0.0.1, for tests and
//! benchmarks: it answers each request with whatever a script returns (a reply
//! text, an HTTP error, a delay, a malformed body). It is never used as a model
//! by the product; it exists so tests exercise the real HTTP client.
//!
//! Plain `std::net` HTTP/1.1, one thread per connection, `Connection: close`.
//! `GET /health` answers 200 (what a router asks of its workers); `GET /props`
//! answers llama.cpp's `total_slots` when the server was given slots.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use serde_json::{Value, json};

/// What the server sends back for one request.
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    /// A normal completion with this content; prompt tokens are estimated from the request.
    Text(String),
    /// A completion reporting this many prompt tokens.
    TextWithPromptTokens(String, u64),
    /// A completion cut at the token limit (`finish_reason: "length"`).
    Truncated(String),
    /// An HTTP error status with an optional `Retry-After` (seconds) and a body.
    Status(u16, Option<u32>, String),
    /// A raw 200 body (e.g. malformed JSON).
    Raw(String),
    /// Wait, then send the inner reply.
    Delay(Duration, Box<Reply>),
    /// An HTTP error status with a raw `Retry-After` header value (e.g. `1e20` or an
    /// HTTP date) and a body.
    StatusRetryAfter(u16, String, String),
    /// A 200 whose body never ends: bytes keep coming, slowly or fast.
    Endless {
        /// Pause between chunks.
        every: Duration,
        /// Bytes per chunk.
        chunk: usize,
    },
    /// A 200 with a body of this many bytes of JSON-looking filler.
    Huge(usize),
    /// Close the connection without replying (a reset).
    Reset,
}

/// Largest request body the server reads; longer requests are cut off.
const MAX_REQUEST_BYTES: usize = 64 * 1024 * 1024;

/// Decides the reply to a request body; gets the parsed request and its 0-based number.
pub type Script = dyn Fn(&Value, usize) -> Reply + Send + Sync;

/// A running server. Dropping it stops accepting connections (requests
/// already in flight are still answered); [`ChatServer::kill`] also cuts them.
pub struct ChatServer {
    addr: std::net::SocketAddr,
    requests: Arc<Mutex<Vec<Value>>>,
    stop: Arc<AtomicBool>,
    open: Arc<Mutex<HashMap<u64, TcpStream>>>,
}

/// At most `max` requests worked on at once; the others wait for a slot.
struct Slots {
    max: usize,
    busy: Mutex<usize>,
    freed: Condvar,
}

/// A slot of [`Slots`], given back when dropped.
struct SlotGuard<'a>(&'a Slots);

impl Slots {
    fn take(&self) -> SlotGuard<'_> {
        let mut busy = self
            .busy
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        while *busy >= self.max {
            busy = self
                .freed
                .wait(busy)
                .unwrap_or_else(std::sync::PoisonError::into_inner);
        }
        *busy += 1;
        SlotGuard(self)
    }
}

impl Drop for SlotGuard<'_> {
    fn drop(&mut self) {
        let mut busy = self
            .0
            .busy
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        *busy = busy.saturating_sub(1);
        self.0.freed.notify_one();
    }
}

impl std::fmt::Debug for ChatServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ChatServer")
            .field("addr", &self.addr)
            .finish_non_exhaustive()
    }
}

impl ChatServer {
    /// Start a server answering with `script`.
    pub fn start(
        script: impl Fn(&Value, usize) -> Reply + Send + Sync + 'static,
    ) -> std::io::Result<Self> {
        Self::start_with_slots(None, script)
    }

    /// Start a server that also answers `GET /props` with `{"total_slots": n}`, as
    /// llama.cpp's server does, when `slots` is given (404 otherwise).
    pub fn start_with_slots(
        slots: Option<usize>,
        script: impl Fn(&Value, usize) -> Reply + Send + Sync + 'static,
    ) -> std::io::Result<Self> {
        Self::start_inner(slots, None, Arc::new(script))
    }

    /// Start a server with `slots` parallel slots, as a model server has: it
    /// says so at `GET /props` and works on at most that many requests at
    /// once; the others wait for a slot (their [`Reply::Delay`] starts then).
    pub fn start_serving(
        slots: usize,
        script: impl Fn(&Value, usize) -> Reply + Send + Sync + 'static,
    ) -> std::io::Result<Self> {
        let gate = Arc::new(Slots {
            max: slots.max(1),
            busy: Mutex::new(0),
            freed: Condvar::new(),
        });
        Self::start_inner(Some(slots.max(1)), Some(gate), Arc::new(script))
    }

    fn start_inner(
        slots: Option<usize>,
        gate: Option<Arc<Slots>>,
        script: Arc<Script>,
    ) -> std::io::Result<Self> {
        let listener = TcpListener::bind("127.0.0.1:0")?;
        let addr = listener.local_addr()?;
        let requests = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let open = Arc::new(Mutex::new(HashMap::new()));
        let (reqs, stop2, open2) = (requests.clone(), stop.clone(), open.clone());
        std::thread::spawn(move || {
            for (id, conn) in (0u64..).zip(listener.incoming()) {
                if stop2.load(Ordering::Relaxed) {
                    break;
                }
                let Ok(stream) = conn else { continue };
                if let (Ok(clone), Ok(mut o)) = (stream.try_clone(), open2.lock()) {
                    o.insert(id, clone);
                }
                let (script, reqs, open, gate) =
                    (script.clone(), reqs.clone(), open2.clone(), gate.clone());
                std::thread::spawn(move || {
                    let _ = serve(stream, script.as_ref(), &reqs, slots, gate.as_deref());
                    if let Ok(mut o) = open.lock() {
                        o.remove(&id);
                    }
                });
            }
        });
        Ok(Self {
            addr,
            requests,
            stop,
            open,
        })
    }

    /// Stop at once, as a killed server does: no new connection is accepted
    /// and every request in flight is cut off without a reply.
    pub fn kill(&self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Ok(mut open) = self.open.lock() {
            for (_, conn) in open.drain() {
                let _ = conn.shutdown(Shutdown::Both);
            }
        }
        let _ = TcpStream::connect_timeout(&self.addr, Duration::from_millis(100));
    }

    /// Base URL including `/v1`.
    pub fn base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    /// Request bodies received so far, in arrival order.
    pub fn requests(&self) -> Vec<Value> {
        self.requests.lock().map(|r| r.clone()).unwrap_or_default()
    }
}

impl Drop for ChatServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        // Wake the accept loop so it sees the flag.
        let _ = TcpStream::connect_timeout(&self.addr, Duration::from_millis(100));
    }
}

fn serve(
    stream: TcpStream,
    script: &Script,
    reqs: &Mutex<Vec<Value>>,
    slots: Option<usize>,
    gate: Option<&Slots>,
) -> std::io::Result<()> {
    stream.set_read_timeout(Some(Duration::from_secs(10)))?;
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut len = 0usize;
    let mut line = String::new();
    let mut first = None;
    loop {
        line.clear();
        if reader.read_line(&mut line)? == 0 {
            return Ok(());
        }
        let l = line.trim_end();
        if first.is_none() {
            first = Some(l.to_string());
        }
        if l.is_empty() {
            break;
        }
        if let Some((k, v)) = l.split_once(':')
            && k.eq_ignore_ascii_case("content-length")
        {
            len = v.trim().parse().unwrap_or(0);
        }
    }
    if first.as_deref().is_some_and(|l| l.starts_with("GET ")) {
        let path = first
            .as_deref()
            .and_then(|l| l.split_whitespace().nth(1))
            .unwrap_or_default();
        let (status, body) = match slots {
            _ if path == "/health" => (200, "{}".to_owned()),
            Some(n) if path.ends_with("/props") => (200, json!({"total_slots": n}).to_string()),
            _ => (404, String::new()),
        };
        return write_reply(stream, status, None, &body);
    }
    let mut body = Vec::new();
    reader
        .by_ref()
        .take(len.min(MAX_REQUEST_BYTES) as u64)
        .read_to_end(&mut body)?;
    let req: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let n = {
        let mut r = reqs.lock().map_err(|_| std::io::Error::other("poisoned"))?;
        r.push(req.clone());
        r.len() - 1
    };
    let _slot = gate.map(Slots::take);
    let mut reply = script(&req, n);
    while let Reply::Delay(d, inner) = reply {
        std::thread::sleep(d);
        reply = *inner;
    }
    let prompt_chars: usize = req["messages"]
        .as_array()
        .map(|ms| {
            ms.iter()
                .map(|m| m["content"].as_str().map_or(0, |s| s.chars().count()))
                .sum()
        })
        .unwrap_or(0);
    let estimated = (prompt_chars / 4) as u64 + 1;
    let completion = |content: &str, prompt_tokens: u64, finish: &str| {
        json!({
            "id": format!("chatcmpl-{n}"),
            "object": "chat.completion",
            "model": req["model"].as_str().unwrap_or("test"),
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": finish}],
            "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": (content.len() / 4) as u64 + 1,
                      "total_tokens": prompt_tokens + (content.len() / 4) as u64 + 1}
        })
        .to_string()
    };
    let (status, retry_after, body) = match reply {
        Reply::Text(t) => (200, None, completion(&t, estimated, "stop")),
        Reply::TextWithPromptTokens(t, p) => (200, None, completion(&t, p, "stop")),
        Reply::Truncated(t) => (200, None, completion(&t, estimated, "length")),
        Reply::Status(s, ra, b) => (s, ra.map(|r| r.to_string()), b),
        Reply::StatusRetryAfter(s, ra, b) => (s, Some(ra), b),
        Reply::Raw(b) => (200, None, b),
        Reply::Delay(..) => (500, None, String::new()),
        Reply::Reset => return Ok(()),
        Reply::Endless { every, chunk } => return endless(stream, every, chunk),
        Reply::Huge(n) => return huge(stream, n),
    };
    write_reply(stream, status, retry_after.as_deref(), &body)
}

fn write_reply(
    mut out: TcpStream,
    status: u16,
    retry_after: Option<&str>,
    body: &str,
) -> std::io::Result<()> {
    let mut head = format!(
        "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n",
        body.len()
    );
    if let Some(s) = retry_after {
        head.push_str(&format!("Retry-After: {s}\r\n"));
    }
    head.push_str("\r\n");
    out.write_all(head.as_bytes())?;
    out.write_all(body.as_bytes())?;
    out.flush()
}

/// A chunked 200 body that goes on until the client hangs up.
fn endless(mut out: TcpStream, every: Duration, chunk: usize) -> std::io::Result<()> {
    out.write_all(
        b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n",
    )?;
    let write_chunk = |out: &mut TcpStream, data: &str| {
        out.write_all(format!("{:x}\r\n{data}\r\n", data.len()).as_bytes())
    };
    write_chunk(&mut out, "{\"choices\": [")?;
    let piece = " ".repeat(chunk.max(1));
    loop {
        write_chunk(&mut out, &piece)?;
        out.flush()?;
        if !every.is_zero() {
            std::thread::sleep(every);
        }
    }
}

/// A 200 of `n` bytes, streamed.
fn huge(mut out: TcpStream, n: usize) -> std::io::Result<()> {
    out.write_all(
        format!("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {n}\r\nConnection: close\r\n\r\n")
            .as_bytes(),
    )?;
    let block = vec![b' '; 64 * 1024];
    let mut left = n;
    while left > 0 {
        let k = left.min(block.len());
        out.write_all(&block[..k])?;
        left -= k;
    }
    out.flush()
}

/// A port on 127.0.0.1 that was free a moment ago (the OS picked it for a
/// listener that is closed again), for a test to hand to a server it starts.
pub fn free_port() -> std::io::Result<u16> {
    Ok(TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

/// The base URL (`http://127.0.0.1:PORT/v1`) of a model server that refuses
/// every connection: nothing listens at a [`free_port`].
pub fn refused_url() -> std::io::Result<String> {
    Ok(format!("http://127.0.0.1:{}/v1", free_port()?))
}

/// Whether a request is a root-loop call (it starts with a system message).
pub fn is_root_request(req: &Value) -> bool {
    req["messages"][0]["role"].as_str() == Some("system")
}

/// The last user message of a request.
pub fn last_user(req: &Value) -> String {
    req["messages"]
        .as_array()
        .and_then(|ms| ms.iter().rev().find(|m| m["role"] == "user"))
        .and_then(|m| m["content"].as_str())
        .unwrap_or_default()
        .to_string()
}

/// A REPL host offering one function, answered by a closure over its
/// positional arguments (for tests and benchmarks that need a host call).
pub struct FnHost<F> {
    name: &'static str,
    f: F,
}

impl<F> FnHost<F>
where
    F: Fn(Vec<serde_json::Value>) -> serde_json::Value + Send + Sync,
{
    /// A host whose function `name(...)` returns `f(args)`.
    pub fn new(name: &'static str, f: F) -> Self {
        Self { name, f }
    }
}

#[async_trait::async_trait]
impl<F> crate::ReplHost for FnHost<F>
where
    F: Fn(Vec<serde_json::Value>) -> serde_json::Value + Send + Sync,
{
    fn has_function(&self, name: &str) -> bool {
        name == self.name
    }

    async fn call(
        &self,
        _: &str,
        args: Vec<serde_json::Value>,
        _: serde_json::Map<String, serde_json::Value>,
    ) -> Result<serde_json::Value, crate::HostError> {
        Ok((self.f)(args))
    }
}
