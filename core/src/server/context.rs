//! The per-request context, and the transport's side of it (the [`Peer`]).
//!
//! A handler gets a [`RequestContext`] built for its request alone: the request id, the
//! revision in effect for this request, the connection's state, the progress token, the
//! cancellation token, and the channel back to the client. Nothing in it is shared with a
//! concurrent request, so one request can never flip another's version or cancellation.
//!
//! On a 2026-07-28 request it also carries what the client sent back for a multi
//! round-trip request (`input_responses`, the opened `request_state`), and the blocking
//! server-to-client calls fail fast: such a handler returns `InputRequired` instead.

use std::sync::{Arc, OnceLock};

use serde::de::DeserializeOwned;
use serde_json::{json, Map, Value};
use tokio_util::sync::CancellationToken;

use super::connection::ConnectionState;
use super::handler::BoxFuture;
use super::request_info::RequestInfo;
use crate::protocol::classifier::RequestEnvelope;
use crate::protocol::jsonrpc::notification_text;
use crate::protocol::model::{
    decode_response, ClientCapabilities, CreateMessageParams, CreateMessageResult, ElicitAction, ElicitRequestParams,
    ElicitResult, Elicited, InputResponses, ListRootsResult, LoggingLevel, RequestMeta,
};
use crate::protocol::{ErrorObject, ProtocolVersion, RequestId, Response};

/// A request's `_meta`, as read at parse time, assembled into a map on first use (most
/// handlers never read it).
#[derive(Debug, Default)]
pub(crate) struct MetaField {
    read: Option<Box<RequestMeta>>,
    assembled: OnceLock<Option<Map<String, Value>>>,
}

impl MetaField {
    pub(crate) fn new(read: Option<Box<RequestMeta>>) -> Self {
        MetaField { read, assembled: OnceLock::new() }
    }

    fn get(&self) -> Option<&Map<String, Value>> {
        self.assembled.get_or_init(|| self.read.as_deref().and_then(RequestMeta::to_map)).as_ref()
    }

    /// The keys of `_meta` the core does not read itself (`traceparent`, ...), without
    /// assembling the whole map.
    fn other(&self) -> Option<&Map<String, Value>> {
        self.read.as_deref().map(|m| &m.other)
    }
}

impl Clone for MetaField {
    fn clone(&self) -> Self {
        MetaField::new(self.read.clone())
    }
}

/// What a client sent back on the retry of a multi round-trip request.
#[derive(Debug, Clone, Default)]
pub(crate) struct MrtrInput {
    pub(crate) input_responses: InputResponses,
    pub(crate) request_state: Option<String>,
}

impl MrtrInput {
    /// Shared, for the requests that carry nothing back (most): no allocation per request.
    pub(crate) fn shared(self) -> Arc<MrtrInput> {
        static NONE: OnceLock<Arc<MrtrInput>> = OnceLock::new();
        if self.input_responses.is_empty() && self.request_state.is_none() {
            NONE.get_or_init(|| Arc::new(MrtrInput::default())).clone()
        } else {
            Arc::new(self)
        }
    }
}

/// Why a server-to-client request did not produce a result.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum PeerError {
    /// This transport cannot carry server-to-client requests (in-process, or stateless).
    #[error("this transport has no server-to-client request channel")]
    NoChannel,
    /// The server is stateless, so it cannot correlate a server-to-client request.
    #[error("server-to-client requests need a stateful server")]
    Stateless,
    /// The client did not declare the capability the request needs.
    #[error("the client did not declare the {0} capability")]
    MissingCapability(String),
    /// The connection closed before the client answered.
    #[error("the connection closed before the client answered")]
    Closed,
    /// The client answered with an error.
    #[error("client error {}: {}", .0.code, .0.message)]
    Rpc(ErrorObject),
    /// The client did not answer in time.
    #[error("the client did not answer in time")]
    Timeout,
    /// The client's answer did not have the expected shape.
    #[error("malformed answer from the client: {0}")]
    Malformed(String),
    /// A 2026-07-28 request: the server cannot send the client requests. The handler asks
    /// for input by returning `InputRequired` and reads the answers from the context's
    /// `input_responses` when the client retries.
    #[error(
        "this request uses the 2026-07-28 revision, where the server cannot send the client requests: return InputRequired from the handler and read the answers from input_responses on the retry"
    )]
    UseInputRequired,
    /// The elicitation form asks for something the spec does not let a form ask (nothing was
    /// sent).
    #[error(transparent)]
    InvalidElicitation(#[from] crate::protocol::model::ElicitSchemaError),
    /// The client accepted a form with values that do not fit it (a missing required field, a
    /// value of the wrong type or outside its options or bounds).
    #[error(transparent)]
    InvalidAnswer(#[from] crate::protocol::model::ElicitAnswerError),
    /// The client cancelled the request this one was made for (`notifications/cancelled`):
    /// nothing more is sent on its behalf.
    #[error("the request was cancelled by the client")]
    Cancelled,
}

/// The transport's channel to one client: where notifications and server-to-client requests
/// go while a request is handled (stdio: the process's stdout; HTTP: that POST's stream).
pub trait Peer: Send + Sync + 'static {
    /// Send one serialized JSON-RPC message (a notification) to the client.
    fn send(&self, frame: String);

    /// Send a request to the client and wait for its answer.
    fn request(&self, method: &str, params: Option<Value>) -> BoxFuture<'static, Result<Value, PeerError>> {
        let _ = (method, params);
        Box::pin(async { Err(PeerError::NoChannel) })
    }

    /// Whether [`Peer::request`] can reach the client.
    fn can_request(&self) -> bool {
        false
    }

    /// Close the stream carrying this request's messages without ending the request (an
    /// SSE stream the client can resume with `Last-Event-ID`), asking the client to reconnect
    /// after `retry`. Returns whether the transport did so.
    fn close_stream(&self, retry: Option<std::time::Duration>) -> bool {
        let _ = retry;
        false
    }

    /// A response from the client to a request this peer sent. Returns whether it was
    /// expected.
    fn on_response(&self, response: Response) -> bool {
        let _ = response;
        false
    }
}

/// A peer that drops everything: in-process use without a channel back.
#[derive(Debug, Default, Clone, Copy)]
pub struct NullPeer;

impl Peer for NullPeer {
    fn send(&self, _frame: String) {}
}

/// A request's connection state: the transport connection's (the handshake era), or, for a
/// 2026-07-28 request, a transient one built from its envelope. The transient state is made
/// only when something asks for it whole ([`RequestContext::connection`]); what handlers read
/// on every request (capabilities, log level, the id) comes from the envelope directly.
#[derive(Clone)]
pub(crate) enum RequestConnection {
    /// The transport connection's state.
    Shared(Arc<ConnectionState>),
    /// A 2026-07-28 request's own.
    Transient { envelope: Box<RequestEnvelope>, state: OnceLock<Arc<ConnectionState>> },
}

impl RequestConnection {
    /// The transient state of a 2026-07-28 request with this envelope.
    pub(crate) fn transient(envelope: Box<RequestEnvelope>) -> Self {
        RequestConnection::Transient { envelope, state: OnceLock::new() }
    }
}

pub(crate) struct ContextInner {
    pub(crate) request_id: RequestId,
    pub(crate) version: ProtocolVersion,
    pub(crate) connection: RequestConnection,
    pub(crate) progress_token: Option<Value>,
    pub(crate) meta: MetaField,
    pub(crate) cancel: CancellationToken,
    pub(crate) peer: Arc<dyn Peer>,
    pub(crate) logging_enabled: bool,
    pub(crate) stateless: bool,
    pub(crate) modern: bool,
    pub(crate) mrtr: Arc<MrtrInput>,
    pub(crate) info: RequestInfo,
    /// The connection the request arrived on (for a 2026-07-28 request, not the transient
    /// state in `connection`): its closing ends long-lived requests.
    pub(crate) transport: Arc<ConnectionState>,
    /// Set when the handler runs as a task's body: its input requests go to the task.
    pub(crate) in_task: bool,
}

impl ContextInner {
    /// The request's connection state (a 2026-07-28 request's transient one is made now, on
    /// first use, with the id of the transport connection it arrived on).
    pub(crate) fn connection(&self) -> &Arc<ConnectionState> {
        match &self.connection {
            RequestConnection::Shared(c) => c,
            RequestConnection::Transient { envelope, state } => state
                .get_or_init(|| Arc::new(ConnectionState::modern(self.transport.shared_id(), (**envelope).clone()))),
        }
    }

    /// The same request, called again with the client's answers (MRTR).
    pub(crate) fn with_mrtr(&self, mrtr: MrtrInput) -> ContextInner {
        ContextInner {
            request_id: self.request_id.clone(),
            version: self.version,
            connection: self.connection.clone(),
            progress_token: self.progress_token.clone(),
            meta: self.meta.clone(),
            cancel: self.cancel.clone(),
            peer: self.peer.clone(),
            logging_enabled: self.logging_enabled,
            stateless: self.stateless,
            modern: self.modern,
            mrtr: Arc::new(mrtr),
            info: self.info.clone(),
            transport: self.transport.clone(),
            in_task: self.in_task,
        }
    }

    /// The same request, run as a task's body: cancelled with the task, its input requests
    /// going to `peer` (the task), never to the request's own stream.
    pub(crate) fn for_task(&self, peer: Arc<dyn Peer>, cancel: CancellationToken) -> ContextInner {
        ContextInner { peer, cancel, in_task: true, ..self.with_mrtr((*self.mrtr).clone()) }
    }
}

/// Everything a handler can know and do about the request it serves.
#[derive(Clone)]
pub struct RequestContext {
    pub(crate) inner: Arc<ContextInner>,
}

impl std::fmt::Debug for RequestContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RequestContext")
            .field("request_id", &self.inner.request_id)
            .field("version", &self.inner.version)
            .field("connection", &self.connection_id())
            .finish_non_exhaustive()
    }
}

impl RequestContext {
    /// The id of the request being handled.
    pub fn request_id(&self) -> &RequestId {
        &self.inner.request_id
    }

    /// The protocol revision in effect for this request.
    pub fn protocol_version(&self) -> ProtocolVersion {
        self.inner.version
    }

    /// A stable, non-empty identifier of this request's connection or session.
    pub fn connection_id(&self) -> &str {
        match &self.inner.connection {
            RequestConnection::Shared(c) => c.id(),
            // A transient state shares the id of the connection the request arrived on.
            RequestConnection::Transient { .. } => self.inner.transport.id(),
        }
    }

    /// The connection's state (for a 2026-07-28 request, its own transient state, built
    /// from its envelope).
    pub fn connection(&self) -> &Arc<ConnectionState> {
        self.inner.connection()
    }

    /// The request's `_meta.progressToken`, if any.
    pub fn progress_token(&self) -> Option<&Value> {
        self.inner.progress_token.as_ref()
    }

    /// The request's `_meta`, if any (parsed on first use).
    pub fn meta(&self) -> Option<&Map<String, Value>> {
        self.inner.meta.get()
    }

    /// The keys of `_meta` that are not the envelope's or `progressToken` (`traceparent`,
    /// `tracestate`, ...): what telemetry reads on every request, without assembling [`Self::meta`].
    pub(crate) fn meta_other(&self) -> Option<&Map<String, Value>> {
        self.inner.meta.other()
    }

    /// Whether the client cancelled this request (`notifications/cancelled`). Handlers
    /// should stop work when it turns true; the late response is suppressed regardless.
    pub fn is_cancelled(&self) -> bool {
        self.inner.cancel.is_cancelled()
    }

    /// Resolves when the request is cancelled.
    pub async fn cancelled(&self) {
        self.inner.cancel.cancelled().await
    }

    /// The request's cancellation token.
    pub fn cancellation_token(&self) -> &CancellationToken {
        &self.inner.cancel
    }

    /// Close the transport stream this request's messages ride on (Streamable HTTP: the
    /// POST's SSE stream) while the request keeps running; later messages are kept for the
    /// client, which reconnects with `Last-Event-ID` after `retry`. Returns false on
    /// transports that cannot do this (stdio, in-process, JSON responses).
    pub fn close_sse_stream(&self, retry: Option<std::time::Duration>) -> bool {
        self.inner.peer.close_stream(retry)
    }

    /// Whether the request has no server-to-client channel: a stateless server, or a
    /// 2026-07-28 request (which asks for input the MRTR way).
    pub fn is_stateless(&self) -> bool {
        self.inner.stateless || self.inner.modern
    }

    /// Whether the request uses the 2026-07-28 revision (per-request envelope, MRTR).
    pub fn is_modern(&self) -> bool {
        self.inner.modern
    }

    /// Whether the handler runs as a task's body: its input requests (an `InputRequired`
    /// reply, `elicit`, `sample`, `list_roots`) wait in the task until the client answers.
    pub fn is_task(&self) -> bool {
        self.inner.in_task
    }

    /// What the transport knows about the request (HTTP head, verified subject).
    pub fn request_info(&self) -> &RequestInfo {
        &self.inner.info
    }

    /// A request header (HTTP only), by case-insensitive name.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.inner.info.header(name)
    }

    /// A value the host application attached to the HTTP request ([`super::HostValues`]).
    pub fn host_value(&self, name: &str) -> Option<&Value> {
        self.inner.info.host_value(name)
    }

    /// A request extension an outer middleware inserted (HTTP only).
    pub fn extension<T: Send + Sync + 'static>(&self) -> Option<&T> {
        self.inner.info.extension::<T>()
    }

    /// The caller's verified identity (subject, client, scopes, expiry, claims), when the
    /// request was authenticated.
    pub fn identity(&self) -> Option<&crate::auth::Identity> {
        self.inner.info.identity()
    }

    /// The caller's verified subject, when the request was authenticated.
    pub fn subject(&self) -> Option<&str> {
        self.inner.info.subject()
    }

    /// The answers the client attached to this retry of a multi round-trip request, by the
    /// keys of the input requests the handler returned. Empty on a first call.
    pub fn input_responses(&self) -> &InputResponses {
        &self.inner.mrtr.input_responses
    }

    /// Whether the client answered input request `key`.
    pub fn has_input_response(&self, key: &str) -> bool {
        self.inner.mrtr.input_responses.contains_key(key)
    }

    /// The answer to input request `key`, decoded (`ElicitResult`, `CreateMessageResult`,
    /// `ListRootsResult`, or any type of that shape). `None` when not answered.
    pub fn input_response_as<T: DeserializeOwned>(&self, key: &str) -> Option<Result<T, String>> {
        decode_response(&self.inner.mrtr.input_responses, key)
    }

    /// The answer to a form asked with `InputRequest::elicit_for::<T>`, decoded into `T`.
    /// `None` when not answered.
    pub fn elicited_as<T: DeserializeOwned>(&self, key: &str) -> Option<Result<Elicited<T>, String>> {
        self.input_response_as::<ElicitResult>(key).map(|r| r.and_then(ElicitResult::decode))
    }

    /// Whether this call is a retry carrying the client's answers or request state.
    pub fn is_resubmission(&self) -> bool {
        !self.inner.mrtr.input_responses.is_empty() || self.inner.mrtr.request_state.is_some()
    }

    /// The request state the handler returned with `InputRequired`, as it wrote it (Ferrite
    /// sealed it on the way out and verified it on the way back). `None` on a first call.
    pub fn request_state(&self) -> Option<&str> {
        self.inner.mrtr.request_state.as_deref()
    }

    /// The request state decoded from JSON (see `InputRequired::with_state_json`). `None`
    /// when there is none.
    pub fn request_state_as<T: DeserializeOwned>(&self) -> Option<Result<T, String>> {
        self.request_state().map(|s| serde_json::from_str(s).map_err(|e| format!("request state: {e}")))
    }

    /// The settings of extension `id` the client declared for this request, if it did.
    pub fn client_extension(&self, id: &str) -> Option<Value> {
        self.client_capabilities().extensions.and_then(|mut e| e.remove(id))
    }

    /// Resolves when the connection closes (shutdown, EOF, session end).
    pub(crate) async fn closing(&self) {
        self.inner.transport.closing_token().cancelled().await
    }

    /// Whether the client declared a capability, by dotted path (`"sampling"`,
    /// `"elicitation.url"`, `"roots.listChanged"`).
    pub fn client_supports(&self, capability: &str) -> bool {
        match &self.inner.connection {
            RequestConnection::Shared(c) => c.client_supports(capability),
            RequestConnection::Transient { envelope, .. } => envelope.client_capabilities.supports(capability),
        }
    }

    /// The client's declared capabilities.
    pub fn client_capabilities(&self) -> ClientCapabilities {
        match &self.inner.connection {
            RequestConnection::Shared(c) => c.client_capabilities(),
            RequestConnection::Transient { envelope, .. } => envelope.client_capabilities.clone(),
        }
    }

    /// Send a notification related to this request, written before the request's response.
    /// Once the request is cancelled nothing more is sent for it (the client stopped
    /// listening: its progress, logs and requests would only be noise).
    pub fn notify(&self, method: &str, params: Option<Value>) {
        if !self.is_cancelled() {
            self.inner.peer.send(notification_text(method, params.as_ref()));
        }
    }

    /// Emit `notifications/message`, unless the server has no logging capability or the
    /// level is below the client's minimum (RFC 5424 order). Returns whether it was sent.
    /// On a 2026-07-28 request the minimum level is the one the request carried, and a
    /// request that carried none gets no log messages.
    pub fn log(&self, level: LoggingLevel, data: Value, logger: Option<&str>) -> bool {
        if !self.inner.logging_enabled || self.is_cancelled() {
            return false;
        }
        let min = match &self.inner.connection {
            // A 2026-07-28 request that asked for no level gets no log messages.
            RequestConnection::Transient { envelope, .. } => match envelope.log_level {
                Some(l) => l,
                None => return false,
            },
            RequestConnection::Shared(c) => c.log_level(),
        };
        if level < min {
            return false;
        }
        let mut params = json!({ "level": level.as_str(), "data": data });
        if let Some(l) = logger {
            params["logger"] = Value::from(l);
        }
        self.notify("notifications/message", Some(params));
        true
    }

    /// `log` at debug level with a text message.
    pub fn debug(&self, message: &str) -> bool {
        self.log(LoggingLevel::Debug, Value::from(message), None)
    }
    /// `log` at info level with a text message.
    pub fn info(&self, message: &str) -> bool {
        self.log(LoggingLevel::Info, Value::from(message), None)
    }
    /// `log` at warning level with a text message.
    pub fn warning(&self, message: &str) -> bool {
        self.log(LoggingLevel::Warning, Value::from(message), None)
    }
    /// `log` at error level with a text message.
    pub fn error(&self, message: &str) -> bool {
        self.log(LoggingLevel::Error, Value::from(message), None)
    }

    /// Emit `notifications/progress`. A no-op (returning false) when the request carried no
    /// progress token. `message` is sent only from 2025-03-26 on.
    pub fn report_progress(&self, progress: f64, total: Option<f64>, message: Option<&str>) -> bool {
        let Some(token) = self.progress_token_live() else {
            return false;
        };
        let mut params = Map::new();
        params.insert("progressToken".into(), token.clone());
        params.insert("progress".into(), json!(progress));
        if let Some(t) = total {
            params.insert("total".into(), json!(t));
        }
        if let Some(m) = message {
            if self.inner.version >= ProtocolVersion::V2025_03_26 {
                params.insert("message".into(), Value::from(m));
            }
        }
        self.notify("notifications/progress", Some(Value::Object(params)));
        true
    }

    /// Integer-step progress: `done` of `total`.
    pub fn report_progress_steps(&self, done: u64, total: u64) -> bool {
        let Some(token) = self.progress_token_live() else {
            return false;
        };
        self.notify("notifications/progress", Some(json!({"progressToken": token, "progress": done, "total": total})));
        true
    }

    /// The progress token, unless the request was cancelled (then progress is not sent).
    fn progress_token_live(&self) -> Option<&Value> {
        self.inner.progress_token.as_ref().filter(|_| !self.is_cancelled())
    }

    /// Send a request to the client and wait for its result. Fails on a stateless server,
    /// on a transport without a channel back, when the client answers with an error, and
    /// with [`PeerError::Cancelled`] when this request is (or gets) cancelled: the request is
    /// then not sent, or no longer awaited.
    pub async fn send_request(&self, method: &str, params: Option<Value>) -> Result<Value, PeerError> {
        if self.is_cancelled() {
            return Err(PeerError::Cancelled);
        }
        if self.inner.in_task {
            return self.until_cancelled(self.inner.peer.request(method, params)).await;
        }
        if self.inner.modern {
            return Err(PeerError::UseInputRequired);
        }
        if self.inner.stateless {
            return Err(PeerError::Stateless);
        }
        if !self.inner.peer.can_request() {
            return Err(PeerError::NoChannel);
        }
        self.until_cancelled(self.inner.peer.request(method, params)).await
    }

    async fn until_cancelled(&self, asked: BoxFuture<'static, Result<Value, PeerError>>) -> Result<Value, PeerError> {
        tokio::select! {
            biased;
            answer = asked => answer,
            _ = self.inner.cancel.cancelled() => Err(PeerError::Cancelled),
        }
    }

    fn require(&self, capability: &str) -> Result<(), PeerError> {
        if self.inner.in_task {
            return if self.client_supports(capability) {
                Ok(())
            } else {
                Err(PeerError::MissingCapability(capability.to_owned()))
            };
        }
        if self.inner.modern {
            return Err(PeerError::UseInputRequired);
        }
        if self.inner.stateless {
            return Err(PeerError::Stateless);
        }
        if !self.client_supports(capability) {
            return Err(PeerError::MissingCapability(capability.to_owned()));
        }
        Ok(())
    }

    /// `sampling/createMessage`: ask the client's LLM. Needs the client's `sampling`.
    pub async fn sample(&self, params: CreateMessageParams) -> Result<CreateMessageResult, PeerError> {
        self.require("sampling")?;
        if params.tools.is_some() || params.tool_choice.is_some() {
            self.require("sampling.tools")?;
        }
        // Context from other servers or this one is the client's to give, and only when it
        // said it can.
        if params.include_context.as_deref().is_some_and(|c| c != "none") {
            self.require("sampling.context")?;
        }
        let params = serde_json::to_value(params).map_err(|e| PeerError::Malformed(e.to_string()))?;
        let v = self.send_request("sampling/createMessage", Some(params)).await?;
        serde_json::from_value(v).map_err(|e| PeerError::Malformed(e.to_string()))
    }

    /// `elicitation/create` in form mode. Needs the client's `elicitation` (form).
    pub async fn elicit(&self, message: &str, requested_schema: Value) -> Result<ElicitResult, PeerError> {
        self.require("elicitation")?;
        // A schema generated from a type (pydantic, zod, schemars) is first spelled the
        // restricted way, then checked.
        let requested_schema = crate::protocol::model::elicit_schema::normalize(requested_schema);
        crate::protocol::model::check_requested_schema(&requested_schema)?;
        let params = ElicitRequestParams::form(message, requested_schema.clone());
        let v = self.send_request("elicitation/create", Some(self.elicit_params(&params))).await?;
        let result: ElicitResult = serde_json::from_value(v).map_err(|e| PeerError::Malformed(e.to_string()))?;
        // The client should have validated its user's input; the handler need not trust it.
        if let (ElicitAction::Accept, Some(content)) = (&result.action, &result.content) {
            crate::protocol::model::check_answer(&requested_schema, content)?;
        }
        Ok(result)
    }

    /// `elicitation/create` with a form made from `T`'s JSON Schema (a flat struct of
    /// primitive and enum fields, doc comments as descriptions), the answer decoded into `T`.
    /// A type the spec's forms cannot express is refused before anything is sent.
    pub async fn elicit_as<T: schemars::JsonSchema + DeserializeOwned>(
        &self,
        message: &str,
    ) -> Result<Elicited<T>, PeerError> {
        let schema = crate::protocol::model::elicit_schema::normalize(super::typed::schema_of::<T>());
        self.elicit(message, schema).await?.decode().map_err(PeerError::Malformed)
    }

    /// Tell the client a URL elicitation it was sent to has completed
    /// (`notifications/elicitation/complete`, 2025-11-25 on).
    pub fn notify_elicitation_complete(&self, elicitation_id: &str) {
        self.notify("notifications/elicitation/complete", Some(json!({ "elicitationId": elicitation_id })));
    }

    /// `elicitation/create` in URL mode (2025-11-25). Needs the client's `elicitation.url`.
    pub async fn elicit_url(&self, message: &str, url: &str, elicitation_id: &str) -> Result<ElicitResult, PeerError> {
        self.require("elicitation.url")?;
        let params = ElicitRequestParams::Url {
            message: message.to_owned(),
            url: url.to_owned(),
            elicitation_id: Some(elicitation_id.to_owned()),
        };
        let v = self.send_request("elicitation/create", Some(self.elicit_params(&params))).await?;
        serde_json::from_value(v).map_err(|e| PeerError::Malformed(e.to_string()))
    }

    /// `roots/list`. Needs the client's `roots`.
    pub async fn list_roots(&self) -> Result<ListRootsResult, PeerError> {
        self.require("roots")?;
        let v = self.send_request("roots/list", None).await?;
        serde_json::from_value(v).map_err(|e| PeerError::Malformed(e.to_string()))
    }

    /// The wire params of an elicitation at this request's revision (`mode` exists from
    /// 2025-11-25 on).
    pub(crate) fn elicit_params(&self, params: &ElicitRequestParams) -> Value {
        params.to_params(self.inner.version >= ProtocolVersion::V2025_11_25)
    }

    /// The wire params of an elicitation another server spelled (a proxy's upstream), as this
    /// request's client reads them: a form's `mode` is left out before 2025-11-25.
    pub(crate) fn respell_elicitation(&self, params: &mut Value) {
        if self.inner.version < ProtocolVersion::V2025_11_25 {
            if let Some(p) = params.as_object_mut().filter(|p| p.get("mode").and_then(Value::as_str) == Some("form")) {
                p.remove("mode");
            }
        }
    }
}
