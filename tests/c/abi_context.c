/*
 * The parity items about a request and its connection, from C: the request context (client
 * capabilities and info, progress token, _meta, per connection), cancellation as a callback
 * (by notifications/cancelled and by the connection ending, never after completion), and
 * ferrite_server_ping_client over a connection the host holds. Part of check_parity
 * (abi_parity.c).
 */
#include "abi_parity.h"

/* ---------------------------------------------------------------- handlers */

/* who: what the request context says about the client and the request. */
static uint32_t tool_who(void *u, ferrite_request *req) {
    (void)u;
    ferrite_str caps, info, token, meta;
    if (ferrite_request_client_capabilities(req, &caps) || ferrite_request_client_info(req, &info) ||
        ferrite_request_progress_token(req, &token) || ferrite_request_meta(req, &meta)) {
        return FERRITE_RESULT_HANDLER_FAILED;
    }
#define OR_DASH(s) (int)((s).ptr ? (s).len : 1), ((s).ptr ? (s).ptr : "-")
    char text[1024];
    int n = snprintf(text, sizeof text, "caps=%.*s info=%.*s token=%.*s meta=%.*s", OR_DASH(caps), OR_DASH(info),
                     OR_DASH(token), OR_DASH(meta));
#undef OR_DASH
    return ferrite_request_complete_text(req, text, (size_t)n, NULL, 0);
}

/* wait: registers a cancellation callback and returns PENDING; the callback completes it. */
static atomic_int wait_started, cancel_calls, cancel_finalized;
static void on_cancelled(void *user_data) {
    atomic_fetch_add(&cancel_calls, 1);
    ferrite_request_complete_text(user_data, S("stopped"), NULL, 0);
}
static void cancel_finalizer(void *user_data) {
    (void)user_data;
    atomic_fetch_add(&cancel_finalized, 1);
}
static uint32_t tool_wait(void *u, ferrite_request *req) {
    (void)u;
    ferrite_result rc = ferrite_request_on_cancel(req, on_cancelled, req, cancel_finalizer);
    atomic_fetch_add(&wait_started, 1);
    return rc == FERRITE_RESULT_OK ? FERRITE_RESULT_PENDING : rc;
}
/* quick: registers a cancellation callback, then completes at once: it must never run. */
static atomic_int quick_null_rc;
static uint32_t tool_quick(void *u, ferrite_request *req) {
    (void)u;
    atomic_store(&quick_null_rc, (int)ferrite_request_on_cancel(req, NULL, NULL, cancel_finalizer));
    ferrite_request_on_cancel(req, on_cancelled, req, cancel_finalizer);
    return ferrite_request_complete_text(req, S("done"), NULL, 0);
}

/* A ping's answer. */
static atomic_int ping_rc = -1, ping_finalized;
static char ping_json[64], ping_error[256];
static void ping_reply(void *u, ferrite_result result, ferrite_str json, ferrite_str error) {
    (void)u;
    snprintf(ping_json, sizeof ping_json, "%.*s", (int)json.len, json.ptr);
    snprintf(ping_error, sizeof ping_error, "%.*s", (int)error.len, error.ptr);
    atomic_store(&ping_rc, (int)result);
}
static void ping_finalizer(void *u) {
    (void)u;
    atomic_fetch_add(&ping_finalized, 1);
}

/* ---------------------------------------------------------------- checks */

/* The request context: client capabilities and info, progress token, _meta; per connection. */
void check_context(void) {
    ferrite_server *server = server_with_mode(FERRITE_SERVER_MODE_DEFAULT);
    ferrite_server_add_tool(server, S(SIMPLE_TOOL("who")), tool_who, NULL, NULL);
    ferrite_connection *a = NULL, *b = NULL;
    CHECK(ferrite_connection_new(server, NULL, NULL, NULL, &a) == FERRITE_RESULT_OK &&
              ferrite_connection_new(server, NULL, NULL, NULL, &b) == FERRITE_RESULT_OK,
          "ferrite_connection_new without a send callback gives connections");
    ferrite_str ida = {0}, idb = {0};
    CHECK(ferrite_connection_id(a, &ida) == FERRITE_RESULT_OK && ferrite_connection_id(b, &idb) == FERRITE_RESULT_OK &&
              ida.len > 5 && memcmp(ida.ptr, "conn-", 5) == 0 &&
              !(ida.len == idb.len && memcmp(ida.ptr, idb.ptr, ida.len) == 0),
          "each connection has its own conn-N id");
    char *r = raw_on(server, a, INIT(1, "{\"roots\":{\"listChanged\":true},\"sampling\":{}}",
                                 "{\"name\":\"client-a\",\"version\":\"1.2.3\"}"));
    ferrite_string_free(r);
    r = raw_on(server, b, INIT(1, "{}", "{\"name\":\"client-b\",\"version\":\"9\",\"title\":\"B\"}"));
    ferrite_string_free(r);
    CHECK(text_is(server, a,
                  TOOL_CALL_META(2, "who", "{}", "{\"progressToken\":\"tok-1\",\"com.example/trace\":\"t1\"}"),
                  "caps={\"roots\":{\"listChanged\":true},\"sampling\":{}} info={\"name\":\"client-a\",\"version\":\"1.2.3\"} "
                  "token=\"tok-1\" meta={\"com.example/trace\":\"t1\",\"progressToken\":\"tok-1\"}"),
          "the request reads the client's capabilities and info, its progress token and _meta");
    CHECK(text_is(server, a, TOOL_CALL_META(3, "who", "{}", "{\"progressToken\":7}"),
                  "caps={\"roots\":{\"listChanged\":true},\"sampling\":{}} info={\"name\":\"client-a\",\"version\":\"1.2.3\"} "
                  "token=7 meta={\"progressToken\":7}"),
          "a numeric progress token is JSON text 7");
    CHECK(text_is(server, b, TOOL_CALL(2, "who", "{}"),
                  "caps={} info={\"name\":\"client-b\",\"title\":\"B\",\"version\":\"9\"} token=- meta=-"),
          "another connection has its own client; no token or _meta gives ptr NULL");
    ferrite_connection *fresh = NULL;
    ferrite_connection_new(server, NULL, NULL, NULL, &fresh);
    CHECK(text_is(server, fresh, TOOL_CALL(1, "who", "{}"), "caps={} info=- token=- meta=-"),
          "before initialize there is no client info and no capabilities");
    ferrite_connection_free(fresh);

    ferrite_server *other = server_with_mode(FERRITE_SERVER_MODE_DEFAULT);
    char *out = NULL;
    CHECK(ferrite_server_handle_raw_on(other, a, S(INITIALIZED), &out, NULL) == FERRITE_RESULT_INVALID_ARGUMENT &&
              last_error_is("the connection was made by another server") && !out,
          "handle_raw_on with another server's connection is INVALID_ARGUMENT");
    CHECK(ferrite_server_handle_raw_on(server, NULL, S(INITIALIZED), &out, NULL) == FERRITE_RESULT_NULL_POINTER,
          "handle_raw_on with a NULL connection is NULL_POINTER");
    CHECK(ferrite_connection_new(server, NULL, NULL, NULL, NULL) == FERRITE_RESULT_NULL_POINTER,
          "ferrite_connection_new with a NULL out is NULL_POINTER");
    ferrite_server_free(other);
    ferrite_connection_free(a);
    ferrite_connection_free(b);
    ferrite_connection_free(NULL);
    ferrite_server_free(server);
}

/* Cancellation as a callback: by notifications/cancelled, by the connection ending; never
 * after the request was settled. */
void check_cancel(void) {
    ferrite_server *server = server_with_mode(FERRITE_SERVER_MODE_DEFAULT);
    ferrite_server_add_tool(server, S(SIMPLE_TOOL("wait")), tool_wait, NULL, NULL);
    ferrite_server_add_tool(server, S(SIMPLE_TOOL("quick")), tool_quick, NULL, NULL);
    ferrite_connection *conn = NULL;
    ferrite_connection_new(server, NULL, NULL, NULL, &conn);
    char *r = raw_on(server, conn, INIT(1, "{}", "{\"name\":\"c\",\"version\":\"1\"}"));
    ferrite_string_free(r);

    async_call c;
    async_start(&c, server, conn, TOOL_CALL(41, "wait", "{}"));
    CHECK(wait_for(&wait_started, 1), "the waiting tool started");
    CHECK(on_is(server, conn,
                "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":41}}", ""),
          "notifications/cancelled has an empty answer");
    pthread_join(c.thread, NULL);
    CHECK(c.rc == FERRITE_RESULT_OK && c.out && strcmp(c.out, "") == 0,
          "a cancelled request gets no response (empty text)");
    ferrite_string_free(c.out);
    CHECK(wait_for(&cancel_finalized, 1) && atomic_load(&cancel_calls) == 1,
          "the cancellation callback ran once, then its finalizer once");

    async_start(&c, server, conn, TOOL_CALL(42, "wait", "{}"));
    CHECK(wait_for(&wait_started, 2), "the second waiting tool started");
    ferrite_connection_free(conn); /* the client went away */
    pthread_join(c.thread, NULL);
    CHECK(c.rc == FERRITE_RESULT_OK && c.out && strcmp(c.out, "") == 0,
          "freeing the connection ends the blocked handle_raw_on with no response");
    ferrite_string_free(c.out);
    CHECK(wait_for(&cancel_finalized, 2) && atomic_load(&cancel_calls) == 2,
          "the end of the connection ran the cancellation callback once");

    ferrite_connection_new(server, NULL, NULL, NULL, &conn);
    r = raw_on(server, conn, INIT(1, "{}", "{\"name\":\"c\",\"version\":\"1\"}"));
    ferrite_string_free(r);
    CHECK(text_is(server, conn, TOOL_CALL(2, "quick", "{}"), "done"), "a tool completing at once answers");
    CHECK(atomic_load(&quick_null_rc) == FERRITE_RESULT_NULL_POINTER,
          "ferrite_request_on_cancel with a NULL callback is NULL_POINTER");
    CHECK(wait_for(&cancel_finalized, 4) && atomic_load(&cancel_calls) == 2,
          "a callback on a request settled first never runs; both finalizers ran once");
    ferrite_connection_free(conn);
    ferrite_server_free(server);
    CHECK(atomic_load(&cancel_finalized) == 4 && atomic_load(&cancel_calls) == 2, "nothing ran again at close");
}

/* ferrite_server_ping_client over a connection: answered, refused, unanswered, unknown. */
void check_ping(void) {
    ferrite_server *server = server_with_mode(FERRITE_SERVER_MODE_DEFAULT);
    outbox box = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};
    ferrite_connection *conn = NULL;
    ferrite_connection_new(server, outbox_send, &box, outbox_finalize, &conn);
    char *r = raw_on(server, conn, INIT(1, "{}", "{\"name\":\"c\",\"version\":\"1\"}"));
    ferrite_string_free(r);
    ferrite_str id;
    ferrite_connection_id(conn, &id);

    CHECK(ferrite_server_ping_client(server, id.ptr, id.len, 10000, ping_reply, NULL, ping_finalizer) == FERRITE_RESULT_OK,
          "ping_client returns at once");
    const char *ping = outbox_wait(&box, 0);
    CHECK(ping && strcmp(ping, "{\"jsonrpc\":\"2.0\",\"id\":\"ferrite-0\",\"method\":\"ping\"}") == 0,
          "the ping reaches the client through the send callback");
    CHECK(on_is(server, conn, "{\"jsonrpc\":\"2.0\",\"id\":\"ferrite-0\",\"result\":{}}", ""), "the client answers it");
    CHECK(wait_for(&ping_finalized, 1) && atomic_load(&ping_rc) == FERRITE_RESULT_OK && strcmp(ping_json, "{}") == 0,
          "the reply callback gets OK and {}, then the finalizer runs once");

    atomic_store(&ping_rc, -1);
    ferrite_server_ping_client(server, id.ptr, id.len, 10000, ping_reply, NULL, ping_finalizer);
    ping = outbox_wait(&box, 1);
    CHECK(ping && strcmp(ping, "{\"jsonrpc\":\"2.0\",\"id\":\"ferrite-1\",\"method\":\"ping\"}") == 0,
          "a second ping has the next id");
    char *refused = raw_on(server, conn,
                       "{\"jsonrpc\":\"2.0\",\"id\":\"ferrite-1\",\"error\":{\"code\":-32601,\"message\":\"no ping here\"}}");
    ferrite_string_free(refused);
    CHECK(wait_for(&ping_finalized, 2) && atomic_load(&ping_rc) == FERRITE_RESULT_PEER_ERROR &&
              strcmp(ping_error, "client error -32601: no ping here") == 0,
          "a client's error answer is PEER_ERROR with the client's code and message");

    atomic_store(&ping_rc, -1);
    ferrite_server_ping_client(server, id.ptr, id.len, 50, ping_reply, NULL, ping_finalizer);
    CHECK(wait_for(&ping_finalized, 3) && atomic_load(&ping_rc) == FERRITE_RESULT_PEER_ERROR &&
              strcmp(ping_error, "the client did not answer in time") == 0,
          "an unanswered ping is PEER_ERROR after its timeout");

    atomic_store(&ping_rc, -1);
    ferrite_server_ping_client(server, S("conn-none"), 1000, ping_reply, NULL, ping_finalizer);
    CHECK(wait_for(&ping_finalized, 4) && atomic_load(&ping_rc) == FERRITE_RESULT_PEER_ERROR &&
              strcmp(ping_error, "this transport has no server-to-client request channel") == 0,
          "pinging an unknown connection is PEER_ERROR (no channel)");
    CHECK(ferrite_server_ping_client(server, S("x"), 10, NULL, NULL, ping_finalizer) == FERRITE_RESULT_NULL_POINTER &&
              atomic_load(&ping_finalized) == 5,
          "ping_client with a NULL callback is NULL_POINTER and runs the finalizer");

    ferrite_connection_free(conn);
    ferrite_server_free(server);
    outbox_free(&box);
}
