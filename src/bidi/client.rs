//! The connection: one writer task, one reader task, an id → reply map.

use super::command::Command;
use super::error::{BidiError, ErrorCode, RemoteError, SocketClosed};
use futures::{SinkExt, StreamExt};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::{mpsc, oneshot};
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::{self, Message};

/// Receives the remote end's events, in arrival order, on the reader task. It runs before any
/// later reply is handed out, so state it derives is current when a command returns.
pub trait EventSink: Send + 'static {
    /// One event: its method and params.
    fn on_event(&mut self, method: &str, params: Value);
    /// The socket closed; no more events will come.
    fn on_close(&mut self, reason: &SocketClosed);
}

enum Reply {
    Success(Value),
    Error(RemoteError),
}

type Pending = HashMap<u64, oneshot::Sender<Reply>>;

struct Shared {
    next_id: AtomicU64,
    /// `None` once the socket has closed: new calls fail at once.
    pending: Mutex<Option<Pending>>,
    outbox: mpsc::UnboundedSender<String>,
    /// Cancelled to give the connection up from our side ([`BidiClient::abandon`]).
    abandoned: tokio_util::sync::CancellationToken,
    /// Why it was given up.
    abandon_reason: Mutex<Option<SocketClosed>>,
}

/// A BiDi connection. Clones share it.
#[derive(Clone)]
pub struct BidiClient {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for BidiClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BidiClient").finish_non_exhaustive()
    }
}

impl BidiClient {
    /// Connects to a BiDi websocket URL (`ws://…/session/<id>`) within `deadline`.
    pub async fn connect(url: &str, deadline: Duration, sink: impl EventSink) -> Result<Self, BidiError> {
        let (ws, _) = tokio::time::timeout(deadline, tokio_tungstenite::connect_async(url))
            .await
            .map_err(|_| BidiError::ConnectTimeout { url: url.to_owned(), after: deadline })?
            .map_err(|e| BidiError::Connect { url: url.to_owned(), source: Box::new(e) })?;
        Ok(Self::from_stream(ws, sink))
    }

    /// Runs the protocol over an open websocket (any transport: TCP, or an in-memory duplex in
    /// tests).
    pub fn from_stream<S>(ws: WebSocketStream<S>, sink: impl EventSink) -> Self
    where
        S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
    {
        let (write, read) = ws.split();
        let (outbox, inbox) = mpsc::unbounded_channel();
        let shared = Arc::new(Shared {
            next_id: AtomicU64::new(1),
            pending: Mutex::new(Some(HashMap::new())),
            outbox,
            abandoned: tokio_util::sync::CancellationToken::new(),
            abandon_reason: Mutex::new(None),
        });
        tokio::spawn(write_loop(write, inbox));
        tokio::spawn(read_loop(read, Arc::clone(&shared), sink));
        Self { shared }
    }

    /// Sends a typed command and decodes its result.
    pub async fn send<C: Command>(&self, cmd: &C, deadline: Duration) -> Result<C::Output, BidiError> {
        let params = serde_json::to_value(cmd).map_err(|source| BidiError::Encode { method: C::METHOD, source })?;
        let result = self.call(C::METHOD, params, deadline).await?;
        serde_json::from_value(result).map_err(|source| BidiError::Decode { method: C::METHOD, source })
    }

    /// Sends a raw command and returns its `result`.
    pub async fn call(&self, method: &'static str, params: Value, deadline: Duration) -> Result<Value, BidiError> {
        let (id, reply) = self.register()?;
        let text = json!({ "id": id, "method": method, "params": params }).to_string();
        if self.shared.outbox.send(text).is_err() {
            self.forget(id);
            return Err(BidiError::Disconnected);
        }
        match tokio::time::timeout(deadline, reply).await {
            Err(_) => {
                self.forget(id);
                Err(BidiError::Timeout { method, after: deadline })
            }
            Ok(Err(_)) => Err(BidiError::Disconnected),
            Ok(Ok(Reply::Success(result))) => Ok(result),
            Ok(Ok(Reply::Error(error))) => Err(BidiError::Remote { method, error }),
        }
    }

    /// Gives the connection up as if the socket had closed for `reason`: every pending and later
    /// call fails with `Disconnected` and the sink hears `on_close`. For a remote end that stopped
    /// answering without closing the socket.
    pub fn abandon(&self, reason: SocketClosed) {
        self.shared.abandon_reason.lock().unwrap_or_else(std::sync::PoisonError::into_inner).get_or_insert(reason);
        self.shared.abandoned.cancel();
    }

    pub fn is_closed(&self) -> bool {
        lock(&self.shared).is_none()
    }

    /// How many calls await a reply.
    pub fn pending_calls(&self) -> usize {
        lock(&self.shared).as_ref().map_or(0, HashMap::len)
    }

    fn register(&self) -> Result<(u64, oneshot::Receiver<Reply>), BidiError> {
        let mut pending = lock(&self.shared);
        let map = pending.as_mut().ok_or(BidiError::Disconnected)?;
        let id = self.shared.next_id.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        map.insert(id, tx);
        Ok((id, rx))
    }

    fn forget(&self, id: u64) {
        if let Some(map) = lock(&self.shared).as_mut() {
            map.remove(&id);
        }
    }
}

fn lock(shared: &Shared) -> std::sync::MutexGuard<'_, Option<Pending>> {
    shared.pending.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

async fn write_loop<W>(mut write: W, mut inbox: mpsc::UnboundedReceiver<String>)
where
    W: futures::Sink<Message> + Unpin,
{
    while let Some(text) = inbox.recv().await {
        // Every message on the wire, at `trace` (`RUST_LOG=navguard::wire=trace`): where the
        // time of a call goes between navguard and the browser.
        tracing::trace!(target: "navguard::wire", "-> {}", clipped(&text));
        if write.send(Message::text(text)).await.is_err() {
            return;
        }
    }
    let _ = write.close().await;
}

async fn read_loop<R>(mut read: R, shared: Arc<Shared>, mut sink: impl EventSink)
where
    R: futures::Stream<Item = Result<Message, tungstenite::Error>> + Unpin,
{
    let reason = loop {
        let next = tokio::select! {
            biased;
            // Once the socket is given up nothing more is read from it: every call ends as
            // disconnected at once, however busy the socket is.
            () = shared.abandoned.cancelled() => {
                let reason = shared.abandon_reason.lock().unwrap_or_else(std::sync::PoisonError::into_inner).take();
                break reason.unwrap_or(SocketClosed::Ended);
            }
            next = read.next() => next,
        };
        match next {
            None => break SocketClosed::Ended,
            Some(Err(e)) => break SocketClosed::Failed(Box::new(e)),
            Some(Ok(Message::Close(_))) => break SocketClosed::ByRemote,
            Some(Ok(Message::Text(text))) => dispatch(&text, &shared, &mut sink),
            Some(Ok(_)) => {}
        }
    };
    // Dropping every reply sender fails every pending call with `Disconnected`.
    lock(&shared).take();
    sink.on_close(&reason);
}

/// The first 300 characters of a message, for the wire trace.
fn clipped(text: &str) -> &str {
    text.char_indices().nth(300).map_or(text, |(at, _)| &text[..at])
}

fn dispatch(text: &str, shared: &Shared, sink: &mut impl EventSink) {
    tracing::trace!(target: "navguard::wire", "<- {}", clipped(text));
    let Ok(mut msg) = serde_json::from_str::<Value>(text) else {
        tracing::warn!(%text, "BiDi message is not JSON");
        return;
    };
    let kind = msg.get("type").and_then(Value::as_str).unwrap_or_default().to_owned();
    if kind == "event" {
        let method = msg.get("method").and_then(Value::as_str).unwrap_or_default().to_owned();
        sink.on_event(&method, msg.get_mut("params").map(Value::take).unwrap_or(Value::Null));
        return;
    }
    let Some(id) = msg.get("id").and_then(Value::as_u64) else {
        tracing::warn!(%text, "BiDi message without an id");
        return;
    };
    let reply = match kind.as_str() {
        "success" => Reply::Success(msg.get_mut("result").map(Value::take).unwrap_or(Value::Null)),
        _ => {
            Reply::Error(RemoteError { code: ErrorCode::parse(&field(&msg, "error")), message: field(&msg, "message") })
        }
    };
    let waiter = lock(shared).as_mut().and_then(|map| map.remove(&id));
    if let Some(waiter) = waiter {
        let _ = waiter.send(reply);
    }
}

fn field(msg: &Value, name: &str) -> String {
    msg.get(name).and_then(Value::as_str).unwrap_or_default().to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::DuplexStream;
    use tokio_tungstenite::tungstenite::protocol::Role;

    #[derive(Clone, Default)]
    struct Recorder(Arc<Mutex<Vec<String>>>);

    impl EventSink for Recorder {
        fn on_event(&mut self, method: &str, _params: Value) {
            self.0.lock().unwrap().push(method.to_owned());
        }
        fn on_close(&mut self, reason: &SocketClosed) {
            let mark = match reason {
                SocketClosed::Unresponsive(_) => "<closed: unresponsive>",
                _ => "<closed>",
            };
            self.0.lock().unwrap().push(mark.to_owned());
        }
    }

    async fn pair(sink: Recorder) -> (BidiClient, WebSocketStream<DuplexStream>) {
        let (a, b) = tokio::io::duplex(1 << 16);
        let client_ws = WebSocketStream::from_raw_socket(a, Role::Client, None).await;
        let peer = WebSocketStream::from_raw_socket(b, Role::Server, None).await;
        (BidiClient::from_stream(client_ws, sink), peer)
    }

    async fn next_command(peer: &mut WebSocketStream<DuplexStream>) -> Value {
        let msg = peer.next().await.unwrap().unwrap();
        serde_json::from_str(msg.to_text().unwrap()).unwrap()
    }

    async fn reply(peer: &mut WebSocketStream<DuplexStream>, body: Value) {
        peer.send(Message::text(body.to_string())).await.unwrap();
    }

    const LONG: Duration = Duration::from_secs(10);

    #[tokio::test]
    async fn matches_replies_to_calls_by_id_in_any_order() {
        let (client, mut peer) = pair(Recorder::default()).await;
        let c1 = client.clone();
        let first = tokio::spawn(async move { c1.call("a.one", json!({}), LONG).await });
        let id1 = next_command(&mut peer).await["id"].clone();
        let c2 = client.clone();
        let second = tokio::spawn(async move { c2.call("a.two", json!({}), LONG).await });
        let id2 = next_command(&mut peer).await["id"].clone();
        reply(&mut peer, json!({"type":"success","id":id2,"result":{"n":2}})).await;
        reply(&mut peer, json!({"type":"success","id":id1,"result":{"n":1}})).await;
        assert_eq!(first.await.unwrap().unwrap()["n"], 1);
        assert_eq!(second.await.unwrap().unwrap()["n"], 2);
    }

    #[tokio::test]
    async fn fails_pending_calls_when_socket_closes() {
        let sink = Recorder::default();
        let (client, mut peer) = pair(sink.clone()).await;
        let c = client.clone();
        let call = tokio::spawn(async move { c.call("a.hang", json!({}), LONG).await });
        next_command(&mut peer).await;
        drop(peer);
        assert!(call.await.unwrap().unwrap_err().is_disconnected());
        assert!(client.call("a.after", json!({}), LONG).await.unwrap_err().is_disconnected());
        assert_eq!(sink.0.lock().unwrap().last().unwrap(), "<closed>");
    }

    #[tokio::test]
    async fn an_abandoned_connection_fails_its_calls_at_once_though_the_socket_stays_open() {
        let sink = Recorder::default();
        let (client, mut peer) = pair(sink.clone()).await;
        let c = client.clone();
        let call = tokio::spawn(async move { c.call("a.hang", json!({}), LONG).await });
        next_command(&mut peer).await;
        client.abandon(SocketClosed::Unresponsive(Duration::from_secs(5)));
        let failed = tokio::time::timeout(Duration::from_secs(5), call).await.expect("failed at once");
        assert!(failed.unwrap().unwrap_err().is_disconnected());
        assert!(client.is_closed());
        assert!(client.call("a.after", json!({}), LONG).await.unwrap_err().is_disconnected());
        assert_eq!(*sink.0.lock().unwrap(), vec!["<closed: unresponsive>"]);
        drop(peer);
    }

    #[tokio::test]
    async fn times_out_a_call_without_a_reply_and_forgets_it() {
        let (client, mut peer) = pair(Recorder::default()).await;
        let call = client.call("a.slow", json!({}), Duration::from_millis(50));
        let (result, _) = tokio::join!(call, next_command(&mut peer));
        assert!(result.unwrap_err().is_timeout());
        assert_eq!(client.pending_calls(), 0);
    }

    #[tokio::test]
    async fn reports_the_remote_error_code() {
        let (client, mut peer) = pair(Recorder::default()).await;
        let c = client.clone();
        let call = tokio::spawn(async move { c.call("a.gone", json!({}), LONG).await });
        let id = next_command(&mut peer).await["id"].clone();
        reply(&mut peer, json!({"type":"error","id":id,"error":"no such frame","message":"x"})).await;
        assert!(call.await.unwrap().unwrap_err().is_no_such_frame());
    }

    #[tokio::test]
    async fn hands_events_to_the_sink_in_arrival_order_before_later_replies() {
        let sink = Recorder::default();
        let (client, mut peer) = pair(sink.clone()).await;
        let c = client.clone();
        let call = tokio::spawn(async move { c.call("a.b", json!({}), LONG).await });
        let id = next_command(&mut peer).await["id"].clone();
        reply(&mut peer, json!({"type":"event","method":"e.one","params":{}})).await;
        reply(&mut peer, json!({"type":"event","method":"e.two","params":{}})).await;
        reply(&mut peer, json!({"type":"success","id":id,"result":{}})).await;
        call.await.unwrap().unwrap();
        assert_eq!(*sink.0.lock().unwrap(), vec!["e.one", "e.two"]);
    }
}
