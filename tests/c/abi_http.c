/*
 * The checks over Streamable HTTP: the HTTP options' setters, a stateful server bound to a
 * loopback port and driven over raw sockets (sessions, Host and body-size refusals, closing an SSE
 * stream, 2026-07-28 headers and refusals), then closed from another thread.
 */
#include "abi_test.h"
#include "abi_server.h"

static atomic_int stream_closed = -1;
static uint32_t tool_close_stream(void *u, ferrite_request *req) {
    (void)u;
    uint64_t retry = 100;
    bool closed = true;
    ferrite_result rc = ferrite_request_close_sse_stream(req, &retry, &closed);
    atomic_store(&stream_closed, rc == FERRITE_RESULT_OK ? (int)closed : -2);
    return ferrite_request_complete_text(req, S("stream handled"), NULL, 0);
}

typedef struct {
    ferrite_server *server;
    ferrite_http_listener *listener;
    ferrite_result rc;
    atomic_bool returned;
} http_call;

/* The core's diagnostics through ferrite_set_diagnostic_callback: each record kept as
 * "level target message". */
static pthread_mutex_t diag_lock = PTHREAD_MUTEX_INITIALIZER;
static char diag_records[64][512];
static int diag_count;
static atomic_int diag_finalized;
static int diag_user = 7;

static void record_diag(void *user_data, uint32_t level, ferrite_str target, ferrite_str message) {
    if (user_data != &diag_user) {
        return;
    }
    pthread_mutex_lock(&diag_lock);
    if (diag_count < 64) {
        snprintf(diag_records[diag_count++], sizeof diag_records[0], "%u %.*s %.*s", (unsigned)level, (int)target.len,
                 target.ptr, (int)message.len, message.ptr);
    }
    pthread_mutex_unlock(&diag_lock);
}

static void diag_finalizer(void *user_data) {
    (void)user_data;
    atomic_fetch_add(&diag_finalized, 1);
}

/* Whether a record starts with `prefix` and contains `part` (NULL: anything). */
static bool diag_seen(const char *prefix, const char *part) {
    bool found = false;
    pthread_mutex_lock(&diag_lock);
    for (int i = 0; i < diag_count && !found; i++) {
        found = strncmp(diag_records[i], prefix, strlen(prefix)) == 0 && (!part || strstr(diag_records[i], part));
    }
    pthread_mutex_unlock(&diag_lock);
    return found;
}

static void *http_thread(void *arg) {
    http_call *c = arg;
    c->rc = ferrite_server_http_run(c->server, c->listener);
    atomic_store(&c->returned, true);
    return NULL;
}

#define BOTH "application/json, text/event-stream"

#define INIT_BODY                                                                                            \
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\"," \
    "\"capabilities\":{},\"clientInfo\":{\"name\":\"c\",\"version\":\"0\"}}}"

static void check_http_options(void) {
    ferrite_http_options *o = NULL;
    CHECK(ferrite_http_options_new(NULL) == FERRITE_RESULT_NULL_POINTER, "http_options_new(NULL) is NULL_POINTER");
    CHECK(ferrite_http_options_new(&o) == FERRITE_RESULT_OK && o, "http_options_new gives options");
    CHECK(ferrite_http_options_set_path(o, S("mcp")) == FERRITE_RESULT_INVALID_ARGUMENT,
          "a path without a leading / is INVALID_ARGUMENT");
    CHECK(ferrite_http_options_set_path(o, S("/a/{x}")) == FERRITE_RESULT_INVALID_ARGUMENT,
          "a path with a route pattern is INVALID_ARGUMENT");
    CHECK(ferrite_http_options_set_path(o, "/\xff", 2) == FERRITE_RESULT_INVALID_UTF8, "a non-UTF-8 path is INVALID_UTF8");
    CHECK(ferrite_http_options_set_path(NULL, S("/mcp")) == FERRITE_RESULT_NULL_POINTER,
          "a setter on NULL options is NULL_POINTER");
    CHECK(ferrite_http_options_set_response_mode(o, 3) == FERRITE_RESULT_INVALID_ARGUMENT,
          "an unknown response mode is INVALID_ARGUMENT");
    CHECK(ferrite_http_options_set_max_body_bytes(o, 0) == FERRITE_RESULT_INVALID_ARGUMENT,
          "a 0-byte body limit is INVALID_ARGUMENT");
    CHECK(ferrite_http_options_set_allowed_hosts(o, S("[1]")) == FERRITE_RESULT_INVALID_ARGUMENT,
          "allowed hosts that are not strings are INVALID_ARGUMENT");
    CHECK(ferrite_http_options_set_allowed_origins(o, S("[\"http://a\"")) == FERRITE_RESULT_INVALID_JSON,
          "malformed allowed origins are INVALID_JSON");
    CHECK(ferrite_http_options_set_allowed_hosts(o, S("[\"example.com:8080\"]")) == FERRITE_RESULT_INVALID_ARGUMENT,
          "an allowed host with a port (which would never match) is INVALID_ARGUMENT");
    CHECK(ferrite_http_options_set_allowed_origins(o, S("[\"example.com\"]")) == FERRITE_RESULT_INVALID_ARGUMENT,
          "an allowed origin without a scheme is INVALID_ARGUMENT");
    CHECK(ferrite_http_options_set_path(o, S("/mcp")) == FERRITE_RESULT_OK &&
              ferrite_http_options_set_response_mode(o, FERRITE_HTTP_RESPONSE_MODE_AUTO) == FERRITE_RESULT_OK &&
              ferrite_http_options_set_max_body_bytes(o, 1 << 20) == FERRITE_RESULT_OK &&
              ferrite_http_options_set_session_idle_timeout_ms(o, 0) == FERRITE_RESULT_OK &&
              ferrite_http_options_set_sse_retry_ms(o, 500) == FERRITE_RESULT_OK &&
              ferrite_http_options_set_resumable(o, true) == FERRITE_RESULT_OK &&
              ferrite_http_options_set_legacy_sse(o, false) == FERRITE_RESULT_OK &&
              ferrite_http_options_set_allowed_hosts(o, S("[\"127.0.0.1\",\"localhost\"]")) == FERRITE_RESULT_OK &&
              ferrite_http_options_set_allowed_origins(o, NULL, 0) == FERRITE_RESULT_OK &&
              ferrite_http_options_set_allowed_hosts(o, NULL, 0) == FERRITE_RESULT_OK &&
              ferrite_http_options_allow_any_host(o) == FERRITE_RESULT_OK,
          "valid settings are accepted");
    ferrite_http_options_free(o);
    ferrite_http_options_free(NULL);
}

/* The JSON-RPC error code in an HTTP response's JSON body, or INT64_MIN. */
static int64_t http_error_code(const char *response) {
    const char *body = response ? strstr(response, "\r\n\r\n") : NULL;
    return body ? int_at(body + 4, "/error/code") : INT64_MIN;
}

#define MODERN_HEADERS(method) "MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: " method "\r\n"

/* 2026-07-28 over HTTP: a request reads its headers; each refusal has its status and code, and
 * the server keeps serving. */
static void check_http_modern(uint16_t port, const char *host) {
    char *r = http_exchange(port, "POST", host, BOTH, MODERN_HEADERS("tools/call") "Mcp-Name: modern_ctx\r\n",
                            MODERN_CALL(80, "modern_ctx", "{}", ""));
    CHECK(r && strncmp(r, "HTTP/1.1 200", 12) == 0 && strstr(r, "modern=1 header=tools/call ext=none"),
          "HTTP: a 2026-07-28 call is modern and ferrite_request_header reads its Mcp-Method header");
    free(r);
    r = http_exchange(port, "POST", host, BOTH, MODERN_HEADERS("server/discover"),
                      "{\"jsonrpc\":\"2.0\",\"id\":81,\"method\":\"server/discover\",\"params\":{\"_meta\":{"
                      "\"io.modelcontextprotocol/protocolVersion\":\"1999-01-01\","
                      "\"io.modelcontextprotocol/clientCapabilities\":{}}}}");
    CHECK(r && strncmp(r, "HTTP/1.1 400", 12) == 0 && http_error_code(r) == -32020,
          "HTTP: MCP-Protocol-Version differing from the envelope is 400 with -32020");
    free(r);
    r = http_exchange(port, "POST", host, BOTH, MODERN_HEADERS("unknown/method"), MODERN(82, "unknown/method", "", "{}"));
    CHECK(r && strncmp(r, "HTTP/1.1 404", 12) == 0 && http_error_code(r) == -32601,
          "HTTP: an unknown 2026-07-28 method is 404 with -32601");
    free(r);
    r = http_exchange(port, "POST", host, BOTH, MODERN_HEADERS("server/discover"),
                      "{\"jsonrpc\":\"2.0\",\"id\":83,\"method\":\"server/discover\",\"params\":{}}");
    CHECK(r && strncmp(r, "HTTP/1.1 400", 12) == 0 && http_error_code(r) == -32602,
          "HTTP: MCP-Protocol-Version 2026-07-28 without the envelope is 400 with -32602");
    free(r);
    r = http_exchange(port, "POST", host, BOTH, MODERN_HEADERS("tools/call") "Mcp-Name: modern_ctx\r\n",
                      MODERN_CALL(84, "modern_ctx", "{}", ""));
    CHECK(r && strncmp(r, "HTTP/1.1 200", 12) == 0 && strstr(r, "modern=1 header=tools/call"),
          "HTTP: after the refusals the server keeps serving");
    free(r);
}

/* Serve a stateful server on 127.0.0.1:0 from another thread, talk to it over a raw socket,
 * then close it from this thread and see the serving thread return CLOSED. */
void check_http(void) {
    check_http_options();
    ferrite_server *server = new_server();
    register_all(server);
    register_modern(server);
    ferrite_server_add_tool(server, S(TOOL("close_stream")), tool_close_stream, NULL, NULL);
    ferrite_http_options *o = NULL;
    ferrite_http_options_new(&o);
    ferrite_http_options_set_max_body_bytes(o, 4096);

    ferrite_http_listener *l = NULL;
    CHECK(ferrite_server_http_bind(server, S("example.com"), 0, o, &l) == FERRITE_RESULT_INVALID_ARGUMENT && !l,
          "binding a host name that is not an IP address is INVALID_ARGUMENT");
    CHECK(ferrite_server_http_bind(server, S("127.0.0.1"), 0, o, NULL) == FERRITE_RESULT_NULL_POINTER,
          "http_bind with a NULL out is NULL_POINTER");
    CHECK(ferrite_server_http_run(server, NULL) == FERRITE_RESULT_NULL_POINTER, "http_run(NULL listener) is NULL_POINTER");
    CHECK(ferrite_server_http_bind(server, S("127.0.0.1"), 0, o, &l) == FERRITE_RESULT_OK && l,
          "http_bind on 127.0.0.1:0 gives a listener");
    ferrite_http_options_free(o); /* copied at bind */
    uint16_t port = 0;
    CHECK(ferrite_http_listener_port(l, &port) == FERRITE_RESULT_OK && port != 0,
          "the listener reports the port it was given");
    ferrite_http_listener *taken = NULL;
    CHECK(ferrite_server_http_bind(server, S("127.0.0.1"), port, NULL, &taken) == FERRITE_RESULT_IO && !taken,
          "binding a port in use is IO");
    ferrite_http_listener *unused = NULL;
    CHECK(ferrite_server_http_bind(server, NULL, 0, 0, NULL, &unused) == FERRITE_RESULT_OK,
          "a second listener binds (a NULL host is the default, 127.0.0.1)");
    ferrite_http_listener_free(unused); /* never run: freeing closes it */

    http_call c = {server, l, FERRITE_RESULT_OK, false};
    pthread_t t;
    pthread_create(&t, NULL, http_thread, &c);

    char host[32];
    snprintf(host, sizeof host, "127.0.0.1:%u", (unsigned)port);
    CHECK(ferrite_set_diagnostic_callback(record_diag, &diag_user, diag_finalizer, 9) == FERRITE_RESULT_INVALID_ARGUMENT &&
              atomic_load(&diag_finalized) == 1,
          "a diagnostic level past TRACE is INVALID_ARGUMENT, and the finalizer ran");
    CHECK(ferrite_set_diagnostic_callback(record_diag, &diag_user, diag_finalizer, FERRITE_DIAGNOSTIC_LEVEL_INFO) ==
              FERRITE_RESULT_OK,
          "the diagnostic callback installs at INFO");
    char *r = http_exchange(port, "POST", host, BOTH, "", INIT_BODY);
    char session[256] = "";
    CHECK(r && strncmp(r, "HTTP/1.1 200", 12) == 0 && strstr(r, "\"serverInfo\"") && strstr(r, "\"abi-test\""),
          "POST initialize over HTTP gives 200 and the initialize result");
    CHECK(r && http_header(r, "mcp-session-id", session, sizeof session) && strlen(session) >= 16,
          "the initialize response carries an Mcp-Session-Id");
    if (!r || !strstr(r, "abi-test")) {
        printf("# got: %s\n", r ? r : "(no response)");
    }
    free(r);

    char headers[512];
    snprintf(headers, sizeof headers, "Mcp-Session-Id: %s\r\nMCP-Protocol-Version: 2025-06-18\r\n", session);
    r = http_exchange(port, "POST", host, BOTH, headers, CALL_TOOL(2, "add", "{\"a\":40,\"b\":2}"));
    CHECK(r && strncmp(r, "HTTP/1.1 200", 12) == 0 && strstr(r, "\"structuredContent\":{\"sum\":42}"),
          "a tool call in the session is answered by the C handler");
    free(r);
    r = http_exchange(port, "POST", host, "application/json", headers, CALL_TOOL(3, "close_stream", "{}"));
    CHECK(r && strstr(r, "stream handled") && atomic_load(&stream_closed) == 0,
          "close_sse_stream on a JSON-only response reports false and the call still completes");
    free(r);
    atomic_store(&stream_closed, -1);
    r = http_exchange(port, "POST", host, "text/event-stream", headers, CALL_TOOL(7, "close_stream", "{}"));
    CHECK(r && strstr(r, "text/event-stream") && atomic_load(&stream_closed) == 1,
          "close_sse_stream on an SSE response closes it and reports true");
    free(r);
    r = http_exchange(port, "POST", host, BOTH, "", CALL_TOOL(4, "add", "{\"a\":1,\"b\":1}"));
    CHECK(r && strncmp(r, "HTTP/1.1 400", 12) == 0, "a request without the session header is 400");
    free(r);
    r = http_exchange(port, "POST", "evil.example.com", BOTH, headers, CALL_TOOL(5, "add", "{\"a\":1,\"b\":1}"));
    CHECK(r && strncmp(r, "HTTP/1.1 403", 12) == 0, "a foreign Host is 403 (DNS-rebinding protection)");
    free(r);
    CHECK(diag_seen("3 ferrite::session session created", NULL), "diagnostics: the session's creation at INFO");
    CHECK(diag_seen("3 ferrite::http request refused: ", "status=403"),
          "diagnostics: the foreign Host's refusal at INFO, with its status");
    CHECK(!diag_seen("", session), "diagnostics: no record carries the session id");
    CHECK(ferrite_set_diagnostic_callback(NULL, NULL, NULL, FERRITE_DIAGNOSTIC_LEVEL_OFF) == FERRITE_RESULT_OK &&
              atomic_load(&diag_finalized) == 2,
          "diagnostics off: the installed callback's finalizer ran once");
    int before = diag_count;
    r = http_exchange(port, "POST", "evil.example.com", BOTH, headers, CALL_TOOL(5, "add", "{\"a\":1,\"b\":1}"));
    free(r);
    CHECK(diag_count == before, "diagnostics off: no more records");
    char big[5000];
    memset(big, ' ', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    memcpy(big, "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"ping\"}", 39);
    r = http_exchange(port, "POST", host, BOTH, headers, big);
    CHECK(r && strncmp(r, "HTTP/1.1 413", 12) == 0, "a body past the configured max_body_bytes is 413");
    free(r);

    check_http_modern(port, host);

    CHECK(!atomic_load(&c.returned), "http_run keeps serving until closed");
    CHECK(ferrite_server_close(server) == FERRITE_RESULT_OK, "close succeeds while HTTP is served");
    pthread_join(t, NULL);
    CHECK(c.rc == FERRITE_RESULT_CLOSED, "http_run returns CLOSED after ferrite_server_close");
    CHECK(http_exchange(port, "POST", host, BOTH, "", INIT_BODY) == NULL, "the port no longer accepts connections");
    CHECK(ferrite_server_serve_http(server, S("127.0.0.1"), 0, NULL) == FERRITE_RESULT_CLOSED,
          "serve_http on a closed server returns CLOSED");
    ferrite_server_free(server);
}
