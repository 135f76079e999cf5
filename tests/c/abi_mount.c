/*
 * The endpoint driven by a host's own HTTP server (issue 11): a ferrite_http_service and its
 * exchanges, played by a tiny host in this file (the head, the body in chunks, the response
 * through the callbacks), and the request info handlers read (method, path, headers, remote
 * address, host values; NULL outside HTTP). Each check names what it asserts: initialize and a
 * tool call through the exchange with the body pushed in small chunks, a handler reading a
 * header and a host value, 413 and FERRITE_RESULT_BODY_CLOSED past max_body_bytes, 400 for a bad
 * header name, a callback returning nonzero mid-SSE cancelling the handler (it observes the
 * cancellation), ferrite_http_exchange_cancel from another thread ending a blocked respond, and
 * ferrite_server_close ending one with FERRITE_RESULT_CLOSED.
 */
#include "abi_test.h"

#define BOTH "application/json, text/event-stream"
#define INIT                                                                                                 \
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\"," \
    "\"capabilities\":{},\"clientInfo\":{\"name\":\"c\",\"version\":\"0\"}}}"
#define INITIALIZED "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}"
#define CALL(id, name)                                                                                       \
    "{\"jsonrpc\":\"2.0\",\"id\":" #id ",\"method\":\"tools/call\",\"params\":{\"name\":\"" name "\"," \
    "\"arguments\":{}}}"
#define CALL_WITH_PROGRESS(id, name)                                                                         \
    "{\"jsonrpc\":\"2.0\",\"id\":" #id ",\"method\":\"tools/call\",\"params\":{\"name\":\"" name "\"," \
    "\"arguments\":{},\"_meta\":{\"progressToken\":\"p1\"}}}"
#define NO_ARGS_TOOL(name) "{\"name\":\"" name "\",\"inputSchema\":{\"type\":\"object\"}}"

/* ---------------------------------------------------------------- tools */

/* request_info (also registered on abi_test's own server, for the stdio test): the request info
 * JSON as text, "null" outside HTTP. */
uint32_t mount_tool_request_info(void *u, ferrite_request *req) {
    (void)u;
    ferrite_str info = {NULL, 0};
    if (ferrite_request_info(req, &info) != FERRITE_RESULT_OK) {
        return ferrite_request_fail(req, S("ferrite_request_info failed"));
    }
    return info.ptr ? ferrite_request_complete_text(req, info.ptr, info.len, NULL, 0)
                    : ferrite_request_complete_text(req, S("null"), NULL, 0);
}

static void put(char **at, const char *what, ferrite_str s) {
    *at += sprintf(*at, "%s=%.*s;", what, s.ptr ? (int)s.len : 4, s.ptr ? s.ptr : "NULL");
}

/* getters: each getter's answer, "name=value;" ("NULL" for absent). */
static uint32_t tool_getters(void *u, ferrite_request *req) {
    (void)u;
    char text[1024], *at = text;
    ferrite_str s = {NULL, 0};
    ferrite_request_http_method(req, &s);
    put(&at, "method", s);
    ferrite_request_http_path(req, &s);
    put(&at, "path", s);
    ferrite_request_header(req, S("X-Tenant"), &s);
    put(&at, "tenant", s);
    ferrite_request_remote_addr(req, &s);
    put(&at, "remote", s);
    ferrite_request_host_value(req, S("user"), &s);
    put(&at, "user", s);
    ferrite_request_host_value(req, S("missing"), &s);
    put(&at, "missing", s);
    return ferrite_request_complete_text(req, text, (size_t)(at - text), NULL, 0);
}

/* wait_for_cancel: reports progress (so the answer becomes an SSE stream), then stays pending
 * until its request is cancelled, which it records. */
static atomic_int handler_saw_cancel;
static void on_cancelled(void *u) {
    ferrite_request *req = u;
    atomic_store(&handler_saw_cancel, 1);
    ferrite_request_complete_text(req, S("cancelled"), NULL, 0); /* discarded: no one listens */
}
static uint32_t tool_wait_for_cancel(void *u, ferrite_request *req) {
    (void)u;
    ferrite_request_report_progress(req, 1, NULL, S("started"), NULL);
    ferrite_request_on_cancel(req, on_cancelled, req, NULL);
    return FERRITE_RESULT_PENDING;
}

/* ---------------------------------------------------------------- the host */

typedef struct {
    uint16_t status;
    bool event_stream;
    bool head_seen;
    char session[128];
    char *body;
    size_t len;
    int chunks;
    int stop_after_chunks; /* return nonzero at this chunk (0: never) */
} response;

static uint32_t on_head(void *u, uint16_t status, const ferrite_http_header *headers, size_t n, bool sse) {
    response *r = u;
    r->status = status;
    r->event_stream = sse;
    r->head_seen = true;
    for (size_t i = 0; i < n; i++) {
        if (headers[i].name_len == 14 && memcmp(headers[i].name, "mcp-session-id", 14) == 0 &&
            headers[i].value_len < sizeof r->session) {
            memcpy(r->session, headers[i].value, headers[i].value_len);
            r->session[headers[i].value_len] = '\0';
        }
    }
    return 0;
}

static uint32_t on_chunk(void *u, const char *data, size_t len) {
    response *r = u;
    r->body = realloc(r->body, r->len + len + 1);
    memcpy(r->body + r->len, data, len);
    r->len += len;
    r->body[r->len] = '\0';
    r->chunks++;
    return r->stop_after_chunks && r->chunks >= r->stop_after_chunks ? 1 : 0;
}

#define HDR(n, v) {n, sizeof(n) - 1, v, sizeof(v) - 1}

/* POST `body` (in `chunk`-byte writes) with the usual MCP headers, the session when given, and
 * `extra`; fills *r; returns what respond returned (or the failing write's code). */
static ferrite_result post(ferrite_http_service *svc, const char *body, size_t chunk, const char *session,
                           const ferrite_http_header *extra, size_t extra_n, const char *host_values, response *r) {
    ferrite_http_header h[12] = {
        HDR("host", "127.0.0.1"),
        HDR("content-type", "application/json"),
        HDR("accept", BOTH),
        HDR("mcp-protocol-version", "2025-06-18"),
    };
    size_t n = 4;
    if (session) {
        h[n++] = (ferrite_http_header){"mcp-session-id", 14, session, strlen(session)};
    }
    for (size_t i = 0; i < extra_n && n < 12; i++) {
        h[n++] = extra[i];
    }
    ferrite_http_exchange *ex = NULL;
    ferrite_result rc = ferrite_http_exchange_begin(svc, S("POST"), S("/mcp"), h, n, S("127.0.0.1:5000"), host_values,
                                                    host_values ? strlen(host_values) : 0, &ex);
    if (rc != FERRITE_RESULT_OK) {
        return rc;
    }
    size_t total = strlen(body);
    for (size_t off = 0; off < total && rc == FERRITE_RESULT_OK; off += chunk) {
        size_t k = total - off < chunk ? total - off : chunk;
        rc = ferrite_http_exchange_write(ex, body + off, k);
    }
    ferrite_result wrote = rc;
    rc = ferrite_http_exchange_respond(ex, on_head, on_chunk, r);
    ferrite_http_exchange_free(ex);
    return wrote != FERRITE_RESULT_OK ? wrote : rc;
}

static void response_free(response *r) {
    free(r->body);
    memset(r, 0, sizeof *r);
}

/* ---------------------------------------------------------------- threads */

typedef struct {
    ferrite_http_exchange *ex;
    response r;
    ferrite_result rc;
    atomic_int done;
} responder;

static void *respond_thread(void *arg) {
    responder *t = arg;
    t->rc = ferrite_http_exchange_respond(t->ex, on_head, on_chunk, &t->r);
    atomic_store(&t->done, 1);
    return NULL;
}

static bool wait_flag(atomic_int *flag, int ms) {
    for (int i = 0; i < ms / 10 && !atomic_load(flag); i++) {
        sleep_ms(10);
    }
    return atomic_load(flag) != 0;
}

/* A GET (the session's standalone SSE stream) answered on another thread. */
static void begin_get_stream(ferrite_http_service *svc, const char *session, responder *t) {
    ferrite_http_header h[] = {
        HDR("host", "127.0.0.1"),
        HDR("accept", "text/event-stream"),
        HDR("mcp-protocol-version", "2025-06-18"),
        {"mcp-session-id", 14, session, strlen(session)},
    };
    memset(t, 0, sizeof *t);
    ferrite_http_exchange_begin(svc, S("GET"), S("/mcp"), h, 4, NULL, 0, NULL, 0, &t->ex);
    ferrite_http_exchange_end_body(t->ex);
}

/* ---------------------------------------------------------------- checks */

static ferrite_server *mount_server(void) {
    ferrite_server *server = NULL;
    if (ferrite_server_new(S("{\"name\":\"abi-mount\",\"version\":\"1.0.0\"}"), FERRITE_SERVER_MODE_STATEFUL, NULL, 0,
                           &server) != FERRITE_RESULT_OK ||
        ferrite_server_add_tool(server, S(NO_ARGS_TOOL("getters")), tool_getters, NULL, NULL) != FERRITE_RESULT_OK ||
        ferrite_server_add_tool(server, S(NO_ARGS_TOOL("request_info")), mount_tool_request_info, NULL, NULL) !=
            FERRITE_RESULT_OK ||
        ferrite_server_add_tool(server, S(NO_ARGS_TOOL("wait_for_cancel")), tool_wait_for_cancel, NULL, NULL) !=
            FERRITE_RESULT_OK) {
        fprintf(stderr, "abi_mount: setup: %s\n", ferrite_last_error());
        exit(2);
    }
    return server;
}

/* initialize + notifications/initialized on `svc`; the session id in `session`. */
static bool open_session(ferrite_http_service *svc, char *session, size_t cap) {
    response r = {0};
    ferrite_result rc = post(svc, INIT, 16, NULL, NULL, 0, NULL, &r);
    bool ok = rc == FERRITE_RESULT_OK && r.status == 200 && r.session[0] && strlen(r.session) < cap;
    if (ok) {
        strcpy(session, r.session);
    }
    response_free(&r);
    rc = post(svc, INITIALIZED, 1024, session, NULL, 0, NULL, &r);
    ok = ok && rc == FERRITE_RESULT_OK && r.status == 202;
    response_free(&r);
    return ok;
}

static void check_exchange(ferrite_server *server, ferrite_http_service *svc) {
    ferrite_str path = {NULL, 0};
    CHECK(ferrite_http_service_path(svc, &path) == FERRITE_RESULT_OK && path.len == 4 &&
              memcmp(path.ptr, "/mcp", 4) == 0,
          "ferrite_http_service_path is the options' path (/mcp by default)");

    response r = {0};
    ferrite_result rc = post(svc, INIT, 7, NULL, NULL, 0, NULL, &r);
    CHECK(rc == FERRITE_RESULT_OK && r.status == 200 && r.session[0] && r.body &&
              strstr(r.body, "\"serverInfo\"") && strstr(r.body, "\"abi-mount\""),
          "initialize through the exchange, its body pushed in 7-byte chunks: 200, a session id, the serverInfo");
    char session[128];
    snprintf(session, sizeof session, "%s", r.session);
    response_free(&r);
    rc = post(svc, INITIALIZED, 5, session, NULL, 0, NULL, &r);
    CHECK(rc == FERRITE_RESULT_OK && r.status == 202, "notifications/initialized through the exchange: 202");
    response_free(&r);

    ferrite_http_header extra[] = {HDR("x-tenant", "acme"), HDR("authorization", "Bearer secret")};
    rc = post(svc, CALL(2, "getters"), 3, session, extra, 2, "{\"user\":\"ada\",\"n\":7}", &r);
    CHECK(rc == FERRITE_RESULT_OK && r.status == 200 && r.body &&
              strstr(r.body, "method=POST;path=/mcp;tenant=acme;remote=127.0.0.1:5000;user=\\\"ada\\\";missing=NULL;"),
          "a handler reads the method, path, a header, the remote address and a host value the host passed");
    if (r.body && !strstr(r.body, "tenant=acme")) {
        printf("# %s\n", r.body);
    }
    response_free(&r);

    rc = post(svc, CALL(3, "request_info"), 64, session, extra, 2, "{\"user\":\"ada\"}", &r);
    CHECK(rc == FERRITE_RESULT_OK && r.body && strstr(r.body, "\\\"hostValues\\\":{\\\"user\\\":\\\"ada\\\"}") &&
              strstr(r.body, "\\\"x-tenant\\\":\\\"acme\\\"") && strstr(r.body, "\\\"remoteAddr\\\":\\\"127.0.0.1:5000\\\""),
          "ferrite_request_info is the core's JSON: headers, remoteAddr, hostValues");
    response_free(&r);

    CHECK(ferrite_http_header_is_sensitive(S("Authorization")) && ferrite_http_header_is_sensitive(S("cookie")) &&
              ferrite_http_header_is_sensitive(S("X-API-Key")) && !ferrite_http_header_is_sensitive(S("x-tenant")) &&
              !ferrite_http_header_is_sensitive(NULL, 0),
          "ferrite_http_header_is_sensitive: the core's list, case-insensitive");

    /* A bad head: 400 from the core, never a panic or an error code. */
    ferrite_http_header bad[] = {HDR("bad name", "x")};
    rc = post(svc, CALL(4, "getters"), 1024, session, bad, 1, NULL, &r);
    CHECK((rc == FERRITE_RESULT_OK || rc == FERRITE_RESULT_BODY_CLOSED) && r.status == 400 && r.body &&
              strstr(r.body, "bad header name"),
          "a header name with a space is answered 400 (bad header name)");
    response_free(&r);

    /* The host's arguments. */
    ferrite_http_exchange *ex = NULL;
    CHECK(ferrite_http_exchange_begin(svc, NULL, 0, S("/mcp"), NULL, 0, NULL, 0, NULL, 0, &ex) ==
              FERRITE_RESULT_NULL_POINTER,
          "begin without a method is NULL_POINTER");
    CHECK(ferrite_http_exchange_begin(svc, S("POST"), S("/mcp"), NULL, 0, NULL, 0, S("[1]"), &ex) ==
              FERRITE_RESULT_INVALID_ARGUMENT,
          "host values that are not a JSON object are INVALID_ARGUMENT");
    CHECK(ferrite_http_exchange_begin(svc, S("POST"), S("/mcp"), NULL, 0, NULL, 0, S("{"), &ex) ==
              FERRITE_RESULT_INVALID_JSON,
          "host values that do not parse are INVALID_JSON");
    CHECK(ferrite_http_exchange_begin(svc, S("DELETE"), S("/mcp"), NULL, 0, S("not an address"), NULL, 0, &ex) ==
              FERRITE_RESULT_OK,
          "a remote address that is not IP:port is accepted (unknown)");
    CHECK(ferrite_http_exchange_end_body(ex) == FERRITE_RESULT_OK &&
              ferrite_http_exchange_write(ex, S("late")) == FERRITE_RESULT_BODY_CLOSED,
          "a write after the body ended is BODY_CLOSED");
    response r2 = {0};
    CHECK(ferrite_http_exchange_respond(ex, on_head, on_chunk, &r2) == FERRITE_RESULT_OK && r2.status >= 400,
          "a DELETE without Host is refused through the exchange");
    CHECK(ferrite_http_exchange_respond(ex, on_head, on_chunk, &r2) == FERRITE_RESULT_ALREADY_COMPLETED,
          "responding twice is ALREADY_COMPLETED");
    response_free(&r2);
    ferrite_http_exchange_free(ex);
    ferrite_http_exchange_free(NULL);

    /* A callback returning nonzero mid-SSE: the host's client went away. A stream the client
     * could resume (the default) keeps its requests running, as with Ferrite's own listener:
     * this one cannot be resumed. */
    ferrite_http_options *opts = NULL;
    ferrite_http_options_new(&opts);
    ferrite_http_options_set_resumable(opts, false);
    ferrite_http_service *once = NULL;
    ferrite_http_service_new(server, opts, &once);
    ferrite_http_options_free(opts);
    char once_session[128] = "";
    CHECK(open_session(once, once_session, sizeof once_session), "a session on a service without resumable streams");
    atomic_store(&handler_saw_cancel, 0);
    r.stop_after_chunks = 1;
    rc = post(once, CALL_WITH_PROGRESS(5, "wait_for_cancel"), 1024, once_session, NULL, 0, NULL, &r);
    CHECK(rc == FERRITE_RESULT_CANCELLED && r.event_stream && r.chunks == 1,
          "on_chunk returning nonzero on the first SSE event ends respond with CANCELLED");
    CHECK(wait_flag(&handler_saw_cancel, 5000), "the handler observes the cancellation (its on_cancel callback ran)");
    response_free(&r);
    ferrite_http_service_free(once);

    /* ferrite_http_exchange_cancel from another thread while respond waits on an idle stream. */
    responder t;
    begin_get_stream(svc, session, &t);
    pthread_t th;
    pthread_create(&th, NULL, respond_thread, &t);
    sleep_ms(100);
    CHECK(!atomic_load(&t.done), "respond blocks while the standalone SSE stream is idle");
    CHECK(ferrite_http_exchange_cancel(t.ex) == FERRITE_RESULT_OK, "ferrite_http_exchange_cancel from another thread");
    pthread_join(th, NULL);
    CHECK(t.rc == FERRITE_RESULT_CANCELLED && t.r.head_seen && t.r.status == 200 && t.r.event_stream,
          "the blocked respond returns CANCELLED after the SSE head");
    ferrite_http_exchange_free(t.ex);
    response_free(&t.r);

    /* ferrite_http_service_close ends the sessions: a request with the old id is 404. */
    CHECK(ferrite_http_service_close(svc) == FERRITE_RESULT_OK, "ferrite_http_service_close");
    rc = post(svc, CALL(6, "getters"), 1024, session, NULL, 0, NULL, &r);
    CHECK(rc == FERRITE_RESULT_OK && r.status == 404, "after ferrite_http_service_close the session is gone (404)");
    response_free(&r);
}

static void check_oversized(ferrite_server *server) {
    ferrite_http_options *opts = NULL;
    ferrite_http_options_new(&opts);
    ferrite_http_options_set_max_body_bytes(opts, 64);
    ferrite_http_service *svc = NULL;
    CHECK(ferrite_http_service_new(server, opts, &svc) == FERRITE_RESULT_OK, "a service with max_body_bytes 64");
    ferrite_http_options_free(opts);
    char big[4096];
    memset(big, ' ', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    response r = {0};
    ferrite_result rc = post(svc, big, 16, NULL, NULL, 0, NULL, &r);
    CHECK(rc == FERRITE_RESULT_BODY_CLOSED, "writing past max_body_bytes gets BODY_CLOSED");
    CHECK(r.status == 413, "and the response is 413");
    response_free(&r);
    ferrite_http_service_free(svc);

}

static void check_close(void) {
    ferrite_server *server = mount_server();
    ferrite_http_service *svc = NULL;
    ferrite_http_service_new(server, NULL, &svc);
    char session[128] = "";
    CHECK(open_session(svc, session, sizeof session), "a session through a fresh service");
    responder t;
    begin_get_stream(svc, session, &t);
    pthread_t th;
    pthread_create(&th, NULL, respond_thread, &t);
    sleep_ms(100);
    CHECK(ferrite_server_close(server) == FERRITE_RESULT_OK, "ferrite_server_close while a respond is blocked");
    pthread_join(th, NULL);
    CHECK(t.rc == FERRITE_RESULT_CLOSED, "the blocked respond returns CLOSED");
    ferrite_http_exchange_free(t.ex);
    response_free(&t.r);
    ferrite_http_exchange *ex = NULL;
    CHECK(ferrite_http_exchange_begin(svc, S("GET"), S("/mcp"), NULL, 0, NULL, 0, NULL, 0, &ex) ==
              FERRITE_RESULT_CLOSED,
          "begin on a closed server is CLOSED");
    ferrite_http_service *other = NULL;
    CHECK(ferrite_http_service_new(server, NULL, &other) == FERRITE_RESULT_CLOSED,
          "ferrite_http_service_new on a closed server is CLOSED");
    ferrite_http_service_free(svc);
    ferrite_server_free(server);
}

void check_mount(void) {
    ferrite_server *server = mount_server();
    ferrite_http_service *svc = NULL;
    CHECK(ferrite_http_service_new(server, NULL, &svc) == FERRITE_RESULT_OK && svc,
          "ferrite_http_service_new with default options");
    check_exchange(server, svc);
    check_oversized(server);

    char *out = NULL;
    ferrite_server_handle_raw(server, S(INIT), &out, NULL);
    ferrite_string_free(out);
    out = NULL;
    ferrite_server_handle_raw(server, S(CALL(2, "getters")), &out, NULL);
    CHECK(out && strstr(out, "method=NULL;path=NULL;tenant=NULL;remote=NULL;user=NULL;missing=NULL;"),
          "every request-info getter is absent (NULL) through handle_raw");
    ferrite_string_free(out);
    out = NULL;
    ferrite_server_handle_raw(server, S(CALL(3, "request_info")), &out, NULL);
    CHECK(out && strstr(out, "\"text\":\"null\""), "ferrite_request_info is NULL through handle_raw");
    ferrite_string_free(out);

    ferrite_http_service_free(svc);
    ferrite_server_free(server);
    check_close();
}
