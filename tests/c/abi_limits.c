/*
 * The dispatch limits from C (issue 15). Each check names what it asserts:
 * ferrite_server_limits gives the core's defaults; ferrite_server_set_limits applies keys in
 * either spelling and leaves the others; text that is not JSON is FERRITE_RESULT_INVALID_JSON,
 * and 0, an unknown key or a non-object are FERRITE_RESULT_INVALID_ARGUMENT with the core's
 * message, changing nothing; with max_in_flight_per_connection 1, a second call on a connection
 * whose first call is still running is answered -32603 naming the limit while the first one
 * finishes; with max_in_flight 1, a call on another connection is refused the same way naming
 * max_in_flight; a batch longer than max_batch_len is refused whole with -32600 and data.limit.
 * And the new HTTP options through ferrite_http_options_set_json: max_sessions,
 * header_read_timeout_ms, body_read_timeout_ms and max_event_streams accepted and read back, a
 * bad max_sessions or max_events_per_stream refused with the core's message; with max_sessions
 * 1 a second initialize evicts the first session, whose next request gets 404.
 */
#include "abi_frames.h"
#include "abi_test.h"

#define INIT(version)                                                                                  \
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"" version \
    "\",\"capabilities\":{},\"clientInfo\":{\"name\":\"c-limits\",\"version\":\"0\"}}}"
#define HOLD(id) "{\"jsonrpc\":\"2.0\",\"id\":" #id ",\"method\":\"tools/call\",\"params\":{\"name\":\"hold\"}}"
#define PING(id) "{\"jsonrpc\":\"2.0\",\"id\":" #id ",\"method\":\"ping\"}"

/* ---------------------------------------------------------------- the hold tool */

/* The first call of hold is held (PENDING) until release() completes it; a call arriving while
 * one is held answers at once, so a call the limits wrongly admit shows up as a result, not a
 * hang. */
static pthread_mutex_t held_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t held_cv = PTHREAD_COND_INITIALIZER;
static ferrite_request *held;

static uint32_t tool_hold(void *u, ferrite_request *req) {
    (void)u;
    pthread_mutex_lock(&held_mu);
    bool take = held == NULL;
    if (take) {
        held = req;
        pthread_cond_broadcast(&held_cv);
    }
    pthread_mutex_unlock(&held_mu);
    if (!take) {
        return ferrite_request_complete_text(req, S("admitted while another was held"), NULL, 0);
    }
    return FERRITE_RESULT_PENDING;
}

/* Wait up to 10 s for a call of hold to be held. */
static bool wait_held(void) {
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += 10;
    pthread_mutex_lock(&held_mu);
    while (held == NULL && pthread_cond_timedwait(&held_cv, &held_mu, &deadline) == 0) {
    }
    bool ok = held != NULL;
    pthread_mutex_unlock(&held_mu);
    return ok;
}

/* Complete the held call. */
static void release(void) {
    pthread_mutex_lock(&held_mu);
    ferrite_request *req = held;
    held = NULL;
    pthread_mutex_unlock(&held_mu);
    if (req) {
        ferrite_request_complete_text(req, S("released"), NULL, 0);
    }
}

/* A call on a connection, on a thread of its own (it is held until release()). */
typedef struct {
    ferrite_server *server;
    ferrite_connection *conn;
    const char *msg;
    char *out;
    pthread_t thread;
} held_call;

static void *held_run(void *arg) {
    held_call *c = arg;
    c->out = raw_on(c->server, c->conn, c->msg);
    return NULL;
}

/* ---------------------------------------------------------------- helpers */

static ferrite_server *limits_server(void) {
    ferrite_server *server = NULL;
    if (ferrite_server_new(S("{\"name\":\"abi-limits\",\"version\":\"1.0.0\"}"), FERRITE_SERVER_MODE_STATEFUL, NULL, 0,
                           &server) != FERRITE_RESULT_OK ||
        ferrite_server_add_tool(server, S("{\"name\":\"hold\",\"inputSchema\":{\"type\":\"object\"}}"), tool_hold, NULL,
                                NULL) != FERRITE_RESULT_OK) {
        fprintf(stderr, "abi_limits: server: %s\n", ferrite_last_error());
        exit(2);
    }
    return server;
}

/* The limits in force (caller frees), or NULL. */
static char *limits_json(ferrite_server *server) {
    char *out = NULL;
    return ferrite_server_limits(server, &out, NULL) == FERRITE_RESULT_OK ? out : NULL;
}

/* A connection with an initialized session at `init`. */
static ferrite_connection *session(ferrite_server *server, const char *init) {
    ferrite_connection *conn = NULL;
    ferrite_connection_new(server, NULL, NULL, NULL, &conn);
    ferrite_string_free(raw_on(server, conn, init));
    ferrite_string_free(raw_on(server, conn, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}"));
    return conn;
}

/* Whether setting `json` fails with `code` and exactly `message`. */
static bool refused(ferrite_server *server, const char *json, ferrite_result code, const char *message) {
    ferrite_result rc = ferrite_server_set_limits(server, json, strlen(json));
    bool ok = rc == code && (message == NULL || strcmp(ferrite_last_error(), message) == 0);
    if (!ok) {
        printf("# %s: code %u, last error %s\n", json, (unsigned)rc, ferrite_last_error());
    }
    return ok;
}

/* ---------------------------------------------------------------- checks */

static void check_setting(ferrite_server *server) {
    char *l = limits_json(server);
    CHECK(is(l, "/max_batch_len", "100") && is(l, "/max_in_flight_per_connection", "256") &&
              is(l, "/max_in_flight", "10000") && is(l, "/max_json_depth", "127"),
          "limits: ferrite_server_limits gives the core's defaults, snake_case");
    ferrite_string_free(l);

    CHECK(ferrite_server_set_limits(server, S("{\"maxBatchLen\":7,\"max_in_flight\":50}")) == FERRITE_RESULT_OK,
          "limits: keys in either spelling are accepted");
    l = limits_json(server);
    CHECK(is(l, "/max_batch_len", "7") && is(l, "/max_in_flight", "50") &&
              is(l, "/max_in_flight_per_connection", "256"),
          "limits: the keys given changed, the one left out kept its value");
    CHECK(refused(server, "{", FERRITE_RESULT_INVALID_JSON, NULL),
          "limits: text that is not JSON is FERRITE_RESULT_INVALID_JSON");
    CHECK(refused(server, "{\"max_batch_len\":3,\"max_in_flight\":0}", FERRITE_RESULT_INVALID_ARGUMENT,
                  "invalid limit max_in_flight: must be at least 1"),
          "limits: 0 is refused with the core's message");
    CHECK(refused(server, "{\"maxSessions\":3}", FERRITE_RESULT_INVALID_ARGUMENT,
                  "invalid limit max_sessions: unknown limit"),
          "limits: an unknown key is refused with the core's message");
    CHECK(refused(server, "{\"maxJsonDepth\":128}", FERRITE_RESULT_INVALID_ARGUMENT,
                  "invalid limit max_json_depth: must be at most 127"),
          "limits: max_json_depth past serde_json's 127 is refused with the core's message");
    CHECK(refused(server, "[1]", FERRITE_RESULT_INVALID_ARGUMENT, "invalid limit limits: expected an object of limits"),
          "limits: a non-object is refused with the core's message");
    CHECK(ferrite_server_set_limits(NULL, S("{}")) == FERRITE_RESULT_NULL_POINTER &&
              ferrite_server_set_limits(server, NULL, 0) == FERRITE_RESULT_NULL_POINTER,
          "limits: a NULL server or JSON is FERRITE_RESULT_NULL_POINTER");
    char *after = limits_json(server);
    CHECK(l && after && strcmp(l, after) == 0, "limits: the refused settings changed nothing");
    ferrite_string_free(l);
    ferrite_string_free(after);
}

static void check_per_connection(ferrite_server *server) {
    CHECK(ferrite_server_set_limits(server, S("{\"max_in_flight_per_connection\":1,\"max_in_flight\":10000}")) ==
              FERRITE_RESULT_OK,
          "limits: max_in_flight_per_connection set to 1");
    ferrite_connection *conn = session(server, INIT("2025-11-25"));
    held_call first = {.server = server, .conn = conn, .msg = HOLD(2)};
    pthread_create(&first.thread, NULL, held_run, &first);
    bool holding = wait_held();
    CHECK(holding, "limits: the first slow call is running");
    char *second = raw_on(server, conn, HOLD(3));
    CHECK(is(second, "/id", "3") && is(second, "/error/code", "-32603") &&
              is(second, "/error/data", "{\"limit\":\"max_in_flight_per_connection\",\"value\":1}"),
          "limits: a second call on the connection is -32603 with data.limit max_in_flight_per_connection");
    ferrite_string_free(second);

    /* Another connection is not affected by this one's limit (its call answers at once). */
    ferrite_connection *other = session(server, INIT("2025-11-25"));
    char *elsewhere = raw_on(server, other, HOLD(4));
    CHECK(is(elsewhere, "/result/content/0/text", "\"admitted while another was held\""),
          "limits: a call on another connection is admitted");
    ferrite_string_free(elsewhere);

    release();
    pthread_join(first.thread, NULL);
    CHECK(is(first.out, "/result/content/0/text", "\"released\""), "limits: the first call finishes with its result");
    ferrite_string_free(first.out);
    char *again = raw_on(server, conn, PING(5));
    CHECK(is(again, "/result", "{}"), "limits: the connection is served again once its call ended");
    ferrite_string_free(again);
    ferrite_connection_free(other);
    ferrite_connection_free(conn);
}

static void check_server_wide(ferrite_server *server) {
    CHECK(ferrite_server_set_limits(server, S("{\"max_in_flight_per_connection\":256,\"max_in_flight\":1}")) ==
              FERRITE_RESULT_OK,
          "limits: max_in_flight set to 1");
    ferrite_connection *a = session(server, INIT("2025-11-25"));
    ferrite_connection *b = session(server, INIT("2025-11-25"));
    held_call first = {.server = server, .conn = a, .msg = HOLD(2)};
    pthread_create(&first.thread, NULL, held_run, &first);
    CHECK(wait_held(), "limits: a slow call runs on one connection");
    char *r = raw_on(server, b, HOLD(3));
    CHECK(is(r, "/error/code", "-32603") && is(r, "/error/data/limit", "\"max_in_flight\"") &&
              is(r, "/error/data/value", "1"),
          "limits: a call on another connection is -32603 with data.limit max_in_flight");
    ferrite_string_free(r);
    release();
    pthread_join(first.thread, NULL);
    ferrite_string_free(first.out);
    ferrite_connection_free(b);
    ferrite_connection_free(a);
}

static void check_batch(ferrite_server *server) {
    CHECK(ferrite_server_set_limits(server, S("{\"max_batch_len\":2,\"max_in_flight\":10000}")) == FERRITE_RESULT_OK,
          "limits: max_batch_len set to 2");
    ferrite_connection *conn = session(server, INIT("2025-03-26"));
    char *ok = raw_on(server, conn, "[" PING(2) "," PING(3) "]");
    CHECK(is(ok, "/1/id", "3"), "limits: a batch of max_batch_len messages is answered");
    ferrite_string_free(ok);
    char *r = raw_on(server, conn, "[" PING(4) "," PING(5) "," PING(6) "]");
    CHECK(is(r, "/error/code", "-32600") && is(r, "/error/data", "{\"limit\":\"max_batch_len\",\"value\":2}"),
          "limits: a longer batch is refused whole with -32600 and data.limit max_batch_len");
    ferrite_string_free(r);
    ferrite_connection_free(conn);
}

/* A ping nested 7 deep (the envelope, params and five arrays) and one 6 deep. */
#define DEEP_PING(id) "{\"jsonrpc\":\"2.0\",\"id\":" #id ",\"method\":\"ping\",\"params\":{\"a\":[[[[[1]]]]]}}"
#define LESS_DEEP_PING(id) "{\"jsonrpc\":\"2.0\",\"id\":" #id ",\"method\":\"ping\",\"params\":{\"a\":[[[[1]]]]}}"
#define DEPTH_REFUSED "{\"limit\":\"max_json_depth\",\"value\":6}"

static void check_depth(ferrite_server *server) {
    CHECK(ferrite_server_set_limits(server, S("{\"max_json_depth\":6}")) == FERRITE_RESULT_OK,
          "limits: max_json_depth set to 6");
    ferrite_connection *conn = session(server, INIT("2025-11-25"));
    char *r = raw_on(server, conn, DEEP_PING(2));
    CHECK(is(r, "/id", "null") && is(r, "/error/code", "-32700") && is(r, "/error/data", DEPTH_REFUSED),
          "limits: a message nested past max_json_depth is -32700 with data.limit max_json_depth, id null");
    ferrite_string_free(r);
    r = raw_on(server, conn, LESS_DEEP_PING(3));
    CHECK(is(r, "/result", "{}"), "limits: a message nested max_json_depth deep is served");
    ferrite_string_free(r);
    ferrite_connection_free(conn);
    CHECK(ferrite_server_set_limits(server, S("{\"max_json_depth\":127}")) == FERRITE_RESULT_OK,
          "limits: max_json_depth back to 127");
}

/* ---------------------------------------------------------------- the HTTP session cap */

typedef struct {
    ferrite_server *server;
    ferrite_http_listener *listener;
    ferrite_result rc;
} http_serving;

static void *http_serve(void *arg) {
    http_serving *c = arg;
    c->rc = ferrite_server_http_run(c->server, c->listener);
    return NULL;
}

#define BOTH "application/json, text/event-stream"

/* The session id of a new session (into `session`), or false. */
static bool new_session(uint16_t port, const char *host, char *session, size_t cap) {
    char *r = http_exchange(port, "POST", host, BOTH, "", INIT("2025-06-18"));
    bool ok = r && strncmp(r, "HTTP/1.1 200", 12) == 0 && http_header(r, "mcp-session-id", session, cap);
    if (!ok) {
        printf("# initialize: %s\n", r ? r : "(no response)");
    }
    free(r);
    return ok;
}

/* The status of a ping in `session`. */
static int ping_status(uint16_t port, const char *host, const char *session) {
    char headers[512];
    snprintf(headers, sizeof headers, "Mcp-Session-Id: %s\r\nMCP-Protocol-Version: 2025-06-18\r\n", session);
    char *r = http_exchange(port, "POST", host, BOTH, headers, PING(2));
    int status = r && strncmp(r, "HTTP/1.1 ", 9) == 0 ? atoi(r + 9) : -1;
    free(r);
    return status;
}

static void check_http_sessions(void) {
    ferrite_http_options *o = NULL;
    ferrite_http_options_new(&o);
    CHECK(ferrite_http_options_set_json(o, S("{\"max_sessions\":-1}")) == FERRITE_RESULT_INVALID_ARGUMENT &&
              strncmp(ferrite_last_error(), "invalid HTTP option max_sessions: ", 34) == 0,
          "http options: a bad max_sessions is refused with the core's message");
    CHECK(ferrite_http_options_set_json(o, S("{\"max_events_per_stream\":0}")) == FERRITE_RESULT_INVALID_ARGUMENT &&
              strcmp(ferrite_last_error(), "invalid HTTP option max_events_per_stream: must be at least 1, not 0") == 0,
          "http options: max_events_per_stream 0 is refused with the core's message");
    CHECK(ferrite_http_options_set_json(
              o, S("{\"max_sessions\":1,\"headerReadTimeoutMs\":5000,\"body_read_timeout_ms\":5000,"
                   "\"max_event_streams\":8}")) ==
              FERRITE_RESULT_OK,
          "http options: max_sessions, the read timeouts and max_event_streams are accepted");
    char *json = NULL;
    ferrite_http_options_get_json(o, &json, NULL);
    CHECK(is(json, "/max_sessions", "1") && is(json, "/header_read_timeout_ms", "5000") &&
              is(json, "/body_read_timeout_ms", "5000") && is(json, "/max_event_streams", "8"),
          "http options: the new options read back, snake_case");
    ferrite_string_free(json);

    ferrite_server *server = limits_server();
    ferrite_http_listener *l = NULL;
    uint16_t port = 0;
    if (ferrite_server_http_bind(server, S("127.0.0.1"), 0, o, &l) != FERRITE_RESULT_OK ||
        ferrite_http_listener_port(l, &port) != FERRITE_RESULT_OK) {
        CHECK(false, "http sessions: bind with max_sessions 1");
        ferrite_http_options_free(o);
        ferrite_server_free(server);
        return;
    }
    ferrite_http_options_free(o);
    http_serving c = {server, l, FERRITE_RESULT_OK};
    pthread_t t;
    pthread_create(&t, NULL, http_serve, &c);
    char host[32];
    snprintf(host, sizeof host, "127.0.0.1:%u", (unsigned)port);
    char first[256] = "", second[256] = "";
    CHECK(new_session(port, host, first, sizeof first) && new_session(port, host, second, sizeof second) &&
              strcmp(first, second) != 0,
          "http sessions: two initializes each get a session");
    CHECK(ping_status(port, host, first) == 404,
          "http sessions: with max_sessions 1 the first session was evicted (404)");
    CHECK(ping_status(port, host, second) == 200, "http sessions: the second session is served");
    CHECK(ferrite_server_set_limits(server, S("{\"max_json_depth\":6}")) == FERRITE_RESULT_OK,
          "http: max_json_depth set to 6 on a serving server");
    char headers[512];
    snprintf(headers, sizeof headers, "Mcp-Session-Id: %s\r\nMCP-Protocol-Version: 2025-06-18\r\n", second);
    char *deep = http_exchange(port, "POST", host, BOTH, headers, DEEP_PING(4));
    const char *body = deep ? strstr(deep, "\r\n\r\n") : NULL;
    CHECK(deep && strncmp(deep, "HTTP/1.1 400", 12) == 0 && body && is(body + 4, "/error/code", "-32700") &&
              is(body + 4, "/error/data", DEPTH_REFUSED),
          "http: a body nested past max_json_depth is 400 with -32700 and data.limit max_json_depth");
    free(deep);
    CHECK(ping_status(port, host, second) == 200, "http: the session is served after the refused body");
    ferrite_server_close(server);
    pthread_join(t, NULL);
    ferrite_server_free(server);
}

void check_limits(void) {
    ferrite_server *server = limits_server();
    check_setting(server);
    check_per_connection(server);
    check_server_wide(server);
    check_batch(server);
    check_depth(server);
    ferrite_server_free(server);
    check_http_sessions();
}
