/*
 * The parity items of issue 10, from C, each with exact values: the version macros and
 * ferrite_version(); the one set of defaults (a server made with FERRITE_SERVER_MODE_DEFAULT is
 * stateful, logs, validates input); the request context (client capabilities and info,
 * progress token, _meta, cancellation as a callback); the server API (ping_client, the tool
 * listing, input and output validation switches); connections the host holds
 * (ferrite_connection + ferrite_server_handle_raw_on, with a send callback carrying
 * server-to-client requests and their answers); the core's wire shapes (completion request,
 * elicitation params, the sampling maxTokens default); and the HTTP options, whose every error
 * is the core's message.
 */
#include "abi_test.h"

/* ---------------------------------------------------------------- helpers */

#define INIT(id, caps, client)                                                                             \
    "{\"jsonrpc\":\"2.0\",\"id\":" #id ",\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\"," \
    "\"capabilities\":" caps ",\"clientInfo\":" client "}}"
#define INITIALIZED "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}"
#define TOOL_CALL(id, name, args) \
    "{\"jsonrpc\":\"2.0\",\"id\":" #id ",\"method\":\"tools/call\",\"params\":{\"name\":\"" name "\",\"arguments\":" args "}}"
#define TOOL_CALL_META(id, name, args, meta)                                                                  \
    "{\"jsonrpc\":\"2.0\",\"id\":" #id ",\"method\":\"tools/call\",\"params\":{\"name\":\"" name "\",\"arguments\":" args \
    ",\"_meta\":" meta "}}"
#define NO_ARGS_SCHEMA "{\"type\":\"object\",\"properties\":{}}"
#define SIMPLE_TOOL(name) "{\"name\":\"" name "\",\"inputSchema\":" NO_ARGS_SCHEMA "}"
#define ADD_SCHEMA                                                                                      \
    "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"integer\"},\"b\":{\"type\":\"integer\"}},\"required\":" \
    "[\"a\",\"b\"]}"

static ferrite_server *server_with_mode(uint32_t mode) {
    ferrite_server *server = NULL;
    if (ferrite_server_new(S("{\"name\":\"parity\",\"version\":\"1.0.0\"}"), mode, NULL, 0, &server) != FERRITE_RESULT_OK) {
        fprintf(stderr, "ferrite_server_new: %s\n", ferrite_last_error());
        exit(2);
    }
    return server;
}

/* The frames a connection's send callback received, in order. */
#define MAX_FRAMES 32
typedef struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    char *frames[MAX_FRAMES];
    int count;
    atomic_int finalized;
} outbox;

static void outbox_init(outbox *o) {
    memset(o, 0, sizeof *o);
    pthread_mutex_init(&o->mu, NULL);
    pthread_cond_init(&o->cv, NULL);
}

static void outbox_send(void *user_data, ferrite_str frame) {
    outbox *o = user_data;
    pthread_mutex_lock(&o->mu);
    if (o->count < MAX_FRAMES) {
        char *copy = malloc(frame.len + 1);
        memcpy(copy, frame.ptr, frame.len);
        copy[frame.len] = '\0';
        o->frames[o->count++] = copy;
    }
    pthread_cond_broadcast(&o->cv);
    pthread_mutex_unlock(&o->mu);
}

static void outbox_finalize(void *user_data) {
    atomic_fetch_add(&((outbox *)user_data)->finalized, 1);
}

/* Frame number n (0-based), waiting up to 10 s for it; borrowed, NULL if it never came. */
static const char *outbox_wait(outbox *o, int n) {
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += 10;
    pthread_mutex_lock(&o->mu);
    while (o->count <= n) {
        if (pthread_cond_timedwait(&o->cv, &o->mu, &deadline) != 0) {
            break;
        }
    }
    const char *frame = o->count > n ? o->frames[n] : NULL;
    pthread_mutex_unlock(&o->mu);
    return frame;
}

static void outbox_destroy(outbox *o) {
    for (int i = 0; i < o->count; i++) {
        free(o->frames[i]);
    }
    pthread_mutex_destroy(&o->mu);
    pthread_cond_destroy(&o->cv);
}

/* handle_raw_on; the response (caller frees) or NULL on failure. */
static char *on(ferrite_server *server, ferrite_connection *conn, const char *msg) {
    char *out = NULL;
    if (ferrite_server_handle_raw_on(server, conn, msg, strlen(msg), &out, NULL) != FERRITE_RESULT_OK) {
        return NULL;
    }
    return out;
}

/* Whether handle_raw_on gives exactly `expected`; prints both when not. */
static bool on_is(ferrite_server *server, ferrite_connection *conn, const char *msg, const char *expected) {
    char *out = on(server, conn, msg);
    bool ok = out && strcmp(out, expected) == 0;
    if (!ok) {
        printf("# sent:     %s\n# got:      %s\n# expected: %s\n", msg, out ? out : "(call failed)", expected);
    }
    ferrite_string_free(out);
    return ok;
}

/* The JSON text at `pointer` in `json` (caller frees), or NULL. */
static char *json_at(const char *json, const char *pointer) {
    char *out = NULL;
    if (!json || ferrite_json_get(json, strlen(json), pointer, strlen(pointer), &out, NULL) != FERRITE_RESULT_OK) {
        return NULL;
    }
    return out;
}

/* Whether the JSON text at `pointer` in `json` is exactly `expected`; prints both when not. */
static bool json_is(const char *json, const char *pointer, const char *expected) {
    char *got = json_at(json, pointer);
    bool ok = got && strcmp(got, expected) == 0;
    if (!ok) {
        printf("# in:       %s\n# at %s: %s\n# expected: %s\n", json ? json : "(none)", pointer, got ? got : "(absent)",
               expected);
    }
    ferrite_string_free(got);
    return ok;
}

/* The text of the first content block of a tool result (caller frees), or NULL. */
static char *result_text(const char *response) {
    char *text = NULL;
    if (!response ||
        ferrite_json_get_string(response, strlen(response), S("/result/content/0/text"), &text, NULL) != FERRITE_RESULT_OK) {
        return NULL;
    }
    return text;
}

static bool text_is(ferrite_server *server, ferrite_connection *conn, const char *msg, const char *expected) {
    char *out = on(server, conn, msg);
    char *text = result_text(out);
    bool ok = text && strcmp(text, expected) == 0;
    if (!ok) {
        printf("# sent:     %s\n# got:      %s\n# expected text: %s\n", msg, out ? out : "(call failed)", expected);
    }
    ferrite_string_free(text);
    ferrite_string_free(out);
    return ok;
}

/* Whether the last error is exactly `expected`; prints it when not. */
static bool last_error_is(const char *expected) {
    bool ok = strcmp(ferrite_last_error(), expected) == 0;
    if (!ok) {
        printf("# last error: %s\n# expected:   %s\n", ferrite_last_error(), expected);
    }
    return ok;
}

/* handle_raw_on on a thread of its own (for requests that wait on the client). */
typedef struct {
    ferrite_server *server;
    ferrite_connection *conn;
    const char *msg;
    char *out;
    ferrite_result rc;
    pthread_t thread;
} async_call;

static void *async_run(void *arg) {
    async_call *c = arg;
    c->rc = ferrite_server_handle_raw_on(c->server, c->conn, c->msg, strlen(c->msg), &c->out, NULL);
    return NULL;
}

static void async_start(async_call *c, ferrite_server *server, ferrite_connection *conn, const char *msg) {
    c->server = server, c->conn = conn, c->msg = msg, c->out = NULL, c->rc = FERRITE_RESULT_OK;
    pthread_create(&c->thread, NULL, async_run, c);
}

/* Wait until `*flag` is at least `n` (10 s at most); whether it got there. */
static bool wait_for(atomic_int *flag, int n) {
    for (int i = 0; i < 1000 && atomic_load(flag) < n; i++) {
        sleep_ms(10);
    }
    return atomic_load(flag) >= n;
}

/* ---------------------------------------------------------------- handlers */

static uint32_t tool_sum(void *u, ferrite_request *req) {
    (void)u;
    int64_t a = 0, b = 0;
    ferrite_request_argument_i64(req, S("/a"), &a);
    ferrite_request_argument_i64(req, S("/b"), &b);
    char text[32];
    int n = snprintf(text, sizeof text, "%lld", (long long)(a + b));
    return ferrite_request_complete_text(req, text, (size_t)n, NULL, 0);
}

/* Completes the request with the client's answer to a server-to-client request, as text. */
static void reply_as_text(void *user_data, ferrite_result result, ferrite_str json, ferrite_str error) {
    ferrite_request *req = user_data;
    if (result == FERRITE_RESULT_OK) {
        ferrite_request_complete_text(req, json.ptr, json.len, NULL, 0);
    } else {
        ferrite_request_fail(req, error.ptr, error.len);
    }
}

static uint32_t tool_roots(void *u, ferrite_request *req) {
    (void)u;
    ferrite_result rc = ferrite_request_list_roots(req, reply_as_text, req, NULL);
    return rc == FERRITE_RESULT_OK ? FERRITE_RESULT_PENDING : rc;
}

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

/* shaped: returns structuredContent {"n": "seven"}, which violates its outputSchema. */
static uint32_t tool_shaped(void *u, ferrite_request *req) {
    (void)u;
    return ferrite_request_complete_text(req, S("seven"), S("{\"n\":\"seven\"}"));
}

/* elicit_bad: ferrite_request_elicit with the params picked by "case"; records code and error. */
#define ELICIT_CASES 3
static const char *const ELICIT_PARAMS[ELICIT_CASES] = {
    "{\"message\":\"Name?\"}",
    "{\"mode\":\"url\",\"message\":\"Go\",\"url\":\"https://example.com\"}",
    "{\"mode\":\"bogus\",\"message\":\"m\"}",
};
static atomic_int elicit_rc[ELICIT_CASES], elicit_finalized;
static char elicit_error[ELICIT_CASES][256];
static void elicit_finalizer(void *user_data) {
    (void)user_data;
    atomic_fetch_add(&elicit_finalized, 1);
}
static uint32_t tool_elicit_bad(void *u, ferrite_request *req) {
    (void)u;
    int64_t i = 0;
    ferrite_request_argument_i64(req, S("/case"), &i);
    if (i < 0 || i >= ELICIT_CASES) {
        return FERRITE_RESULT_HANDLER_FAILED;
    }
    const char *p = ELICIT_PARAMS[i];
    ferrite_result rc = ferrite_request_elicit(req, p, strlen(p), reply_as_text, req, elicit_finalizer);
    atomic_store(&elicit_rc[i], (int)rc);
    snprintf(elicit_error[i], sizeof elicit_error[i], "%s", ferrite_last_error());
    return ferrite_request_complete_text(req, S("checked"), NULL, 0);
}

/* sample: asks the client's LLM without naming maxTokens. */
static uint32_t tool_sample(void *u, ferrite_request *req) {
    (void)u;
    ferrite_result rc = ferrite_request_sample(
        req, S("{\"messages\":[{\"role\":\"user\",\"content\":{\"type\":\"text\",\"text\":\"Hi\"}}]}"), reply_as_text,
        req, NULL);
    return rc == FERRITE_RESULT_OK ? FERRITE_RESULT_PENDING : rc;
}

/* echo_request: completes with the completion request's JSON as its only value. */
static uint32_t complete_echo_request(void *u, ferrite_request *req, ferrite_str request_json) {
    (void)u;
    char *quoted = NULL;
    ferrite_json_quote(request_json.ptr, request_json.len, &quoted, NULL);
    char buf[1024];
    int n = snprintf(buf, sizeof buf, "{\"completion\":{\"values\":[%s]}}", quoted);
    ferrite_string_free(quoted);
    return ferrite_request_complete(req, buf, (size_t)n);
}

static uint32_t prompt_hello(void *u, ferrite_request *req) {
    (void)u;
    return ferrite_request_complete(req, S("{\"messages\":[{\"role\":\"user\",\"content\":{\"type\":\"text\",\"text\":\"hello\"}}]}"));
}

/* many: 150 candidates, capped by the core. */
static atomic_int values_on_tool_rc;
static uint32_t complete_many(void *u, ferrite_request *req, ferrite_str request_json) {
    (void)u, (void)request_json;
    char buf[2048];
    size_t n = 0;
    buf[n++] = '[';
    for (int i = 0; i < 150; i++) {
        n += (size_t)snprintf(buf + n, sizeof buf - n, "%s\"v%d\"", i ? "," : "", i);
    }
    buf[n++] = ']';
    return ferrite_request_complete_values(req, buf, n);
}
static uint32_t tool_values(void *u, ferrite_request *req) {
    (void)u;
    atomic_store(&values_on_tool_rc, (int)ferrite_request_complete_values(req, S("[\"a\"]")));
    return FERRITE_RESULT_OK;
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

static void check_version(void) {
    char built[64];
    snprintf(built, sizeof built, "%d.%d.%d", FERRITE_VERSION_MAJOR, FERRITE_VERSION_MINOR, FERRITE_VERSION_PATCH);
    CHECK(strcmp(built, FERRITE_VERSION) == 0, "FERRITE_VERSION is MAJOR.MINOR.PATCH of the version macros");
    CHECK(strcmp(ferrite_version(), FERRITE_VERSION) == 0, "ferrite_version() agrees with the header's FERRITE_VERSION");
}

/* A fresh server with the default mode: stateful, logging on, input validated, and a
 * server-to-client request reaches the client over a connection with a channel back. */
static void check_defaults(void) {
    ferrite_server *server = server_with_mode(FERRITE_SERVER_MODE_DEFAULT);
    ferrite_server_add_tool(server, S("{\"name\":\"add\",\"inputSchema\":" ADD_SCHEMA "}"), tool_sum, NULL, NULL);
    ferrite_server_add_tool(server, S(SIMPLE_TOOL("roots")), tool_roots, NULL, NULL);
    char *caps = NULL;
    ferrite_server_capabilities(server, &caps, NULL);
    CHECK(json_is(caps, "/logging", "{}"), "defaults: a fresh server declares the logging capability");
    ferrite_string_free(caps);
    ferrite_server *none = NULL;
    CHECK(ferrite_server_new(S("{\"name\":\"x\",\"version\":\"1\"}"), 3, NULL, 0, &none) ==
                  FERRITE_RESULT_INVALID_ARGUMENT && !none &&
              last_error_is("3 is not a ferrite_server_mode"),
          "ferrite_server_new with mode 3 is INVALID_ARGUMENT");

    outbox box;
    outbox_init(&box);
    ferrite_connection *conn = NULL;
    CHECK(ferrite_connection_new(server, outbox_send, &box, outbox_finalize, &conn) == FERRITE_RESULT_OK && conn,
          "ferrite_connection_new with a send callback gives a connection");
    char *init = on(server, conn, INIT(1, "{\"roots\":{}}", "{\"name\":\"c\",\"version\":\"1\"}"));
    CHECK(json_is(init, "/result/capabilities/logging", "{}"), "defaults: initialize shows logging in capabilities");
    ferrite_string_free(init);
    CHECK(on_is(server, conn, INITIALIZED, ""), "notifications/initialized has an empty answer");
    char *bad = on(server, conn, TOOL_CALL(2, "add", "{\"a\":\"x\",\"b\":1}"));
    CHECK(json_is(bad, "/result/isError", "true") && json_is(bad, "/result/content/0/text",
                                                               "\"Invalid arguments for tool add: /a: \\\"x\\\" is not of type \\\"integer\\\"\""),
          "defaults: a schema-violating argument is an isError result naming the violation");
    ferrite_string_free(bad);
    CHECK(on_is(server, conn, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"logging/setLevel\",\"params\":{\"level\":\"debug\"}}",
                "{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{}}"),
          "defaults: logging/setLevel works");

    async_call c;
    async_start(&c, server, conn, TOOL_CALL(4, "roots", "{}"));
    const char *ask = outbox_wait(&box, 0);
    CHECK(ask && strcmp(ask, "{\"jsonrpc\":\"2.0\",\"id\":\"ferrite-0\",\"method\":\"roots/list\"}") == 0,
          "defaults: a tool's roots/list reaches the client through the send callback");
    CHECK(on_is(server, conn,
                "{\"jsonrpc\":\"2.0\",\"id\":\"ferrite-0\",\"result\":{\"roots\":[{\"uri\":\"file:///project\"}]}}", ""),
          "the client's answer, handled on the connection, has an empty answer");
    pthread_join(c.thread, NULL);
    char *text = result_text(c.out);
    CHECK(c.rc == FERRITE_RESULT_OK && text && strcmp(text, "{\"roots\":[{\"uri\":\"file:///project\"}]}") == 0,
          "defaults: the tool completes with the client's roots (a stateful session)");
    ferrite_string_free(text);
    ferrite_string_free(c.out);

    /* The opt-out: the same tool on a stateless server has no channel back. */
    ferrite_server *stateless = server_with_mode(FERRITE_SERVER_MODE_STATELESS);
    ferrite_server_add_tool(stateless, S(SIMPLE_TOOL("roots")), tool_roots, NULL, NULL);
    ferrite_connection *sconn = NULL;
    ferrite_connection_new(stateless, outbox_send, &box, outbox_finalize, &sconn);
    char *sinit = on(stateless, sconn, INIT(1, "{\"roots\":{}}", "{\"name\":\"c\",\"version\":\"1\"}"));
    ferrite_string_free(sinit);
    char *sout = on(stateless, sconn, TOOL_CALL(2, "roots", "{}"));
    char *stext = result_text(sout);
    CHECK(json_is(sout, "/result/isError", "true") && stext &&
              strcmp(stext, "server-to-client requests need a stateful server") == 0,
          "FERRITE_SERVER_MODE_STATELESS opts out: the roots/list request fails with the core's reason");
    ferrite_string_free(stext);
    ferrite_string_free(sout);
    ferrite_connection_free(sconn);
    ferrite_server_free(stateless);

    CHECK(ferrite_server_disable_logging(server) == FERRITE_RESULT_OK, "ferrite_server_disable_logging succeeds");
    caps = NULL;
    ferrite_server_capabilities(server, &caps, NULL);
    CHECK(caps && json_at(caps, "/logging") == NULL, "without logging, the capabilities lack it");
    ferrite_string_free(caps);
    char *refused = on(server, conn, "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"logging/setLevel\",\"params\":{\"level\":\"info\"}}");
    CHECK(json_is(refused, "/error/code", "-32601"), "without logging, logging/setLevel is -32601");
    ferrite_string_free(refused);
    CHECK(ferrite_server_enable_logging(server) == FERRITE_RESULT_OK, "ferrite_server_enable_logging turns it back on");

    /* The server-wide log message (the official SDKs' sendLoggingMessage): to the connections
     * whose logging/setLevel minimum it reaches, or to the session named. */
    CHECK(on_is(server, conn, "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"logging/setLevel\",\"params\":{\"level\":\"warning\"}}",
                "{\"jsonrpc\":\"2.0\",\"id\":6,\"result\":{}}"),
          "log message: the connection's level set to warning");
    ferrite_str cid = {0};
    ferrite_connection_id(conn, &cid);
    pthread_mutex_lock(&box.mu);
    int before = box.count;
    pthread_mutex_unlock(&box.mu);
    size_t reached = 99;
    CHECK(ferrite_server_send_log_message(server, FERRITE_LOG_LEVEL_INFO, S("\"quiet\""), NULL, 0, NULL, 0, &reached) ==
                  FERRITE_RESULT_OK &&
              reached == 0,
          "log message: below the connection's level it reaches no one");
    reached = 99;
    CHECK(ferrite_server_send_log_message(server, FERRITE_LOG_LEVEL_ERROR, S("\"elsewhere\""), NULL, 0, S("no-such-session"),
                                          &reached) == FERRITE_RESULT_OK &&
              reached == 0,
          "log message: for another session it reaches no one");
    CHECK(ferrite_server_send_log_message(server, FERRITE_LOG_LEVEL_WARNING, S("{\"disk\":\"low\"}"), S("ops"), cid.ptr,
                                          cid.len, &reached) == FERRITE_RESULT_OK &&
              reached == 1,
          "log message: at the connection's level, for its session, it reaches it");
    const char *logged = outbox_wait(&box, before);
    CHECK(logged && json_is(logged, "/method", "\"notifications/message\"") &&
              json_is(logged, "/params", "{\"data\":{\"disk\":\"low\"},\"level\":\"warning\",\"logger\":\"ops\"}"),
          "log message: the connection receives exactly that notifications/message (the two refused ones never came)");
    CHECK(ferrite_server_send_log_message(server, 8, S("\"x\""), NULL, 0, NULL, 0, NULL) == FERRITE_RESULT_INVALID_ARGUMENT,
          "log message: a level that is not a ferrite_log_level is FERRITE_RESULT_INVALID_ARGUMENT");

    ferrite_connection_free(conn);
    CHECK(atomic_load(&box.finalized) == 2, "freeing each connection runs its finalizer once");
    ferrite_server_free(server);
    CHECK(atomic_load(&box.finalized) == 2, "closing the server after it does not run it again");
    outbox_destroy(&box);
}

/* The request context: client capabilities and info, progress token, _meta; per connection. */
static void check_context(void) {
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
    char *r = on(server, a, INIT(1, "{\"roots\":{\"listChanged\":true},\"sampling\":{}}",
                                 "{\"name\":\"client-a\",\"version\":\"1.2.3\"}"));
    ferrite_string_free(r);
    r = on(server, b, INIT(1, "{}", "{\"name\":\"client-b\",\"version\":\"9\",\"title\":\"B\"}"));
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
static void check_cancel(void) {
    ferrite_server *server = server_with_mode(FERRITE_SERVER_MODE_DEFAULT);
    ferrite_server_add_tool(server, S(SIMPLE_TOOL("wait")), tool_wait, NULL, NULL);
    ferrite_server_add_tool(server, S(SIMPLE_TOOL("quick")), tool_quick, NULL, NULL);
    ferrite_connection *conn = NULL;
    ferrite_connection_new(server, NULL, NULL, NULL, &conn);
    char *r = on(server, conn, INIT(1, "{}", "{\"name\":\"c\",\"version\":\"1\"}"));
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
    r = on(server, conn, INIT(1, "{}", "{\"name\":\"c\",\"version\":\"1\"}"));
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
static void check_ping(void) {
    ferrite_server *server = server_with_mode(FERRITE_SERVER_MODE_DEFAULT);
    outbox box;
    outbox_init(&box);
    ferrite_connection *conn = NULL;
    ferrite_connection_new(server, outbox_send, &box, outbox_finalize, &conn);
    char *r = on(server, conn, INIT(1, "{}", "{\"name\":\"c\",\"version\":\"1\"}"));
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
    char *refused = on(server, conn,
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
    outbox_destroy(&box);
}

/* The tool listing, and the validation switches. */
static void check_tools_and_validation(void) {
    ferrite_server *server = server_with_mode(FERRITE_SERVER_MODE_DEFAULT);
    char *list = NULL;
    size_t len = 0;
    CHECK(ferrite_server_list_tools(server, &list, &len) == FERRITE_RESULT_OK && list && strcmp(list, "[]") == 0 && len == 2,
          "a server without tools lists []");
    ferrite_string_free(list);
    ferrite_server_add_tool(server, S("{\"name\":\"add\",\"description\":\"Add two integers\",\"inputSchema\":" ADD_SCHEMA "}"),
                            tool_sum, NULL, NULL);
    ferrite_server_add_tool(server,
                            S("{\"name\":\"shaped\",\"inputSchema\":" NO_ARGS_SCHEMA ",\"outputSchema\":{\"type\":\"object\","
                              "\"properties\":{\"n\":{\"type\":\"integer\"}},\"required\":[\"n\"]}}"),
                            tool_shaped, NULL, NULL);
    list = NULL;
    ferrite_server_list_tools(server, &list, NULL);
    /* The schemas as the core keeps them (serde_json objects: keys in order). */
    const char *expected =
        "[{\"name\":\"add\",\"description\":\"Add two integers\",\"inputSchema\":{\"properties\":{\"a\":{\"type\":"
        "\"integer\"},\"b\":{\"type\":\"integer\"}},\"required\":[\"a\",\"b\"],\"type\":\"object\"}},{\"name\":"
        "\"shaped\",\"inputSchema\":{\"properties\":{},\"type\":\"object\"},\"outputSchema\":{\"properties\":{\"n\":"
        "{\"type\":\"integer\"}},\"required\":[\"n\"],\"type\":\"object\"}}]";
    CHECK(list && strcmp(list, expected) == 0, "ferrite_server_list_tools gives the descriptors in registration order");
    if (!list || strcmp(list, expected) != 0) {
        printf("# got:      %s\n# expected: %s\n", list ? list : "(none)", expected);
    }
    ferrite_string_free(list);
    ferrite_server_remove_tool(server, S("add"));
    list = NULL;
    ferrite_server_list_tools(server, &list, NULL);
    CHECK(list && strncmp(list, "[{\"name\":\"shaped\"", 17) == 0, "a removed tool leaves the listing");
    ferrite_string_free(list);
    ferrite_server_add_tool(server, S("{\"name\":\"add\",\"inputSchema\":" ADD_SCHEMA "}"), tool_sum, NULL, NULL);
    CHECK(ferrite_server_list_tools(server, NULL, NULL) == FERRITE_RESULT_NULL_POINTER,
          "list_tools with a NULL out is NULL_POINTER");

    ferrite_connection *conn = NULL;
    ferrite_connection_new(server, NULL, NULL, NULL, &conn);
    char *r = on(server, conn, INIT(1, "{}", "{\"name\":\"c\",\"version\":\"1\"}"));
    ferrite_string_free(r);
    const char *bad = TOOL_CALL(2, "add", "{\"a\":2,\"b\":\"3\"}");
    CHECK(text_is(server, conn, bad, "Invalid arguments for tool add: /b: \"3\" is not of type \"integer\""),
          "input validation is on: the violation is the result's text");
    CHECK(ferrite_server_disable_input_validation(server) == FERRITE_RESULT_OK, "disable_input_validation succeeds");
    CHECK(text_is(server, conn, bad, "2"), "without input validation the handler runs (and reads b as absent)");
    CHECK(ferrite_server_enable_input_validation(server) == FERRITE_RESULT_OK, "enable_input_validation succeeds");
    CHECK(text_is(server, conn, bad, "Invalid arguments for tool add: /b: \"3\" is not of type \"integer\""),
          "input validation is back on");

    CHECK(text_is(server, conn, TOOL_CALL(3, "shaped", "{}"), "seven"),
          "output validation is off by default: the non-conforming result goes out");
    CHECK(ferrite_server_enable_output_validation(server) == FERRITE_RESULT_OK, "enable_output_validation succeeds");
    char *refused = on(server, conn, TOOL_CALL(4, "shaped", "{}"));
    CHECK(json_is(refused, "/error/code", "-32603") &&
              json_is(refused, "/error/message",
                      "\"tool shaped returned structuredContent that violates its outputSchema: /n: \\\"seven\\\" is not of "
                      "type \\\"integer\\\"\""),
          "with output validation, a non-conforming result is -32603 naming the violation");
    ferrite_string_free(refused);
    ferrite_connection_free(conn);
    ferrite_server_free(server);
}

/* The core's wire shapes: completion requests as sent, elicitation params read by the core,
 * the sampling maxTokens default. */
static void check_wire_shapes(void) {
    ferrite_server *server = server_with_mode(FERRITE_SERVER_MODE_DEFAULT);
    ferrite_server_add_prompt(server, S("{\"name\":\"greet\",\"arguments\":[{\"name\":\"who\"},{\"name\":\"lang\"}]}"),
                              prompt_hello, NULL, NULL);
    ferrite_server_set_argument_completer(server, S("{\"type\":\"ref/prompt\",\"name\":\"greet\"}"), S("who"),
                                          complete_echo_request, NULL, NULL);
    ferrite_server_add_tool(server,
                            S("{\"name\":\"elicit_bad\",\"inputSchema\":{\"type\":\"object\",\"properties\":{\"case\":{\"type\":"
                              "\"integer\"}}}}"),
                            tool_elicit_bad, NULL, NULL);
    ferrite_server_add_tool(server, S(SIMPLE_TOOL("sample")), tool_sample, NULL, NULL);
    outbox box;
    outbox_init(&box);
    ferrite_connection *conn = NULL;
    ferrite_connection_new(server, outbox_send, &box, outbox_finalize, &conn);
    char *r = on(server, conn, INIT(1, "{\"sampling\":{},\"elicitation\":{\"url\":{}}}", "{\"name\":\"c\",\"version\":\"1\"}"));
    ferrite_string_free(r);

    r = on(server, conn,
           "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"completion/complete\",\"params\":{\"ref\":{\"type\":\"ref/prompt\","
           "\"name\":\"greet\"},\"argument\":{\"name\":\"who\",\"value\":\"p\"},\"context\":{\"arguments\":{\"lang\":\"fr\"}}}}");
    CHECK(json_is(r, "/result/completion/values/0",
                  "\"{\\\"ref\\\":{\\\"type\\\":\\\"ref/prompt\\\",\\\"name\\\":\\\"greet\\\"},\\\"argument\\\":{\\\"name\\\":"
                  "\\\"who\\\",\\\"value\\\":\\\"p\\\"},\\\"context\\\":{\\\"arguments\\\":{\\\"lang\\\":\\\"fr\\\"}}}\""),
          "a completer gets the completion/complete params in the core's wire shape");
    ferrite_string_free(r);

    ferrite_server_set_argument_completer(server, S("{\"type\":\"ref/prompt\",\"name\":\"greet\"}"), S("lang"),
                                          complete_many, NULL, NULL);
    r = on(server, conn,
           "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"completion/complete\",\"params\":{\"ref\":{\"type\":\"ref/prompt\","
           "\"name\":\"greet\"},\"argument\":{\"name\":\"lang\",\"value\":\"\"}}}");
    CHECK(json_is(r, "/result/completion/total", "150") && json_is(r, "/result/completion/hasMore", "true") &&
              json_is(r, "/result/completion/values/99", "\"v99\"") && json_at(r, "/result/completion/values/100") == NULL,
          "ferrite_request_complete_values: the core keeps 100 of 150 values, with total and hasMore");
    ferrite_string_free(r);
    ferrite_server_add_tool(server, S(SIMPLE_TOOL("values")), tool_values, NULL, NULL);
    r = on(server, conn, TOOL_CALL(4, "values", "{}"));
    CHECK(atomic_load(&values_on_tool_rc) == FERRITE_RESULT_INVALID_ARGUMENT && json_is(r, "/error/code", "-32603"),
          "ferrite_request_complete_values on a tool call is INVALID_ARGUMENT and fails the call");
    ferrite_string_free(r);

    static const char *const expected[ELICIT_CASES] = {
        "params_json: missing field `requestedSchema`",
        "params_json: a URL-mode elicitation needs an elicitationId",
        "params_json: unknown elicitation mode \"bogus\"",
    };
    for (int i = 0; i < ELICIT_CASES; i++) {
        char msg[256];
        snprintf(msg, sizeof msg, "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":{\"name\":\"elicit_bad\","
                 "\"arguments\":{\"case\":%d}}}", 10 + i, i);
        char *out = on(server, conn, msg);
        ferrite_string_free(out);
        bool ok = atomic_load(&elicit_rc[i]) == FERRITE_RESULT_INVALID_ARGUMENT && strncmp(elicit_error[i], expected[i], strlen(expected[i])) == 0;
        if (!ok) {
            printf("# case %d: rc %d, error %s\n# expected: %s\n", i, atomic_load(&elicit_rc[i]), elicit_error[i], expected[i]);
        }
        CHECK(ok, "ferrite_request_elicit refuses params the core's ElicitRequestParams does not read");
    }
    CHECK(atomic_load(&elicit_finalized) == ELICIT_CASES, "each refused elicitation ran its finalizer once");

    async_call c;
    async_start(&c, server, conn, TOOL_CALL(20, "sample", "{}"));
    const char *ask = outbox_wait(&box, 0);
    CHECK(ask && strcmp(ask, "{\"jsonrpc\":\"2.0\",\"id\":\"ferrite-0\",\"method\":\"sampling/createMessage\",\"params\":{"
                             "\"maxTokens\":1000,\"messages\":[{\"content\":{\"text\":\"Hi\",\"type\":\"text\"},\"role\":"
                             "\"user\"}]}}") == 0,
          "sampling without maxTokens sends the core's default, 1000");
    r = on(server, conn,
           "{\"jsonrpc\":\"2.0\",\"id\":\"ferrite-0\",\"result\":{\"role\":\"assistant\",\"content\":{\"type\":\"text\","
           "\"text\":\"Hello\"},\"model\":\"m\"}}");
    ferrite_string_free(r);
    pthread_join(c.thread, NULL);
    char *text = result_text(c.out);
    CHECK(text && strstr(text, "\"Hello\""), "the sampling answer completes the tool");
    ferrite_string_free(text);
    ferrite_string_free(c.out);
    ferrite_connection_free(conn);
    ferrite_server_free(server);
    outbox_destroy(&box);
}

/* The HTTP options are the core's HttpConfig: every refusal is the core's message. */
static void check_http_config(void) {
    ferrite_http_options *o = NULL;
    ferrite_http_options_new(&o);
    char *json = NULL;
    CHECK(ferrite_http_options_get_json(o, &json, NULL) == FERRITE_RESULT_OK && json && strcmp(json, "{}") == 0,
          "fresh options are {} (every option at the core's default)");
    ferrite_string_free(json);
    CHECK(ferrite_http_options_set_max_body_bytes(o, 0) == FERRITE_RESULT_INVALID_ARGUMENT &&
              last_error_is("invalid HTTP option max_body_bytes: must be at least 1 byte, not 0"),
          "max_body_bytes 0 is the core's error");
    CHECK(ferrite_http_options_set_json(o, S("{\"max_body_bytes\":0}")) == FERRITE_RESULT_INVALID_ARGUMENT &&
              last_error_is("invalid HTTP option max_body_bytes: must be at least 1 byte, not 0"),
          "the same option through set_json gives the same message");
    CHECK(ferrite_http_options_set_allowed_hosts(o, S("[]")) == FERRITE_RESULT_INVALID_ARGUMENT &&
              last_error_is("invalid HTTP option allowed_hosts: is empty, which would refuse every request "
                            "(allow_any_host accepts any)"),
          "an empty allowed_hosts list is the core's error");
    CHECK(ferrite_http_options_set_json(o, S("{\"nope\":1}")) == FERRITE_RESULT_INVALID_ARGUMENT &&
              last_error_is("invalid HTTP option nope: unknown option"),
          "an unknown key through set_json is the core's error");
    CHECK(ferrite_http_options_set_json(o, S("[1]")) == FERRITE_RESULT_INVALID_ARGUMENT &&
              last_error_is("invalid HTTP option options: expected an object of options"),
          "set_json with a non-object is the core's error");
    CHECK(ferrite_http_options_set_json(o, S("{")) == FERRITE_RESULT_INVALID_JSON, "set_json with bad JSON is INVALID_JSON");
    CHECK(ferrite_http_options_set_path(o, S("mcp")) == FERRITE_RESULT_INVALID_ARGUMENT &&
              last_error_is("invalid HTTP option path: \"mcp\" is not a literal path starting with '/'"),
          "a relative path is the core's error");
    CHECK(ferrite_http_options_set_response_mode(o, 7) == FERRITE_RESULT_INVALID_ARGUMENT &&
              last_error_is("invalid HTTP option response_mode: invalid type: integer `7`, expected string or map"),
          "an unknown response mode is the core's error");
    json = NULL;
    ferrite_http_options_get_json(o, &json, NULL);
    CHECK(json && strcmp(json, "{}") == 0, "refused options changed nothing");
    ferrite_string_free(json);

    CHECK(ferrite_http_options_set_json(o, S("{\"maxBodyBytes\":10,\"session_idle_timeout_ms\":0,\"sse_keep_alive_ms\":0}")) ==
              FERRITE_RESULT_OK,
          "set_json takes camelCase and snake_case keys, 0 timeouts (never)");
    CHECK(ferrite_http_options_set_response_mode(o, FERRITE_HTTP_RESPONSE_MODE_SSE) == FERRITE_RESULT_OK &&
              ferrite_http_options_set_allowed_hosts(o, S("[\"mcp.example.com\"]")) == FERRITE_RESULT_OK,
          "setters write their key");
    json = NULL;
    ferrite_http_options_get_json(o, &json, NULL);
    const char *want = "{\"response_mode\":\"sse\",\"max_body_bytes\":10,\"session_idle_timeout_ms\":0,"
                       "\"allowed_hosts\":[\"mcp.example.com\"],\"sse_keep_alive_ms\":0}";
    CHECK(json && strcmp(json, want) == 0, "get_json shows the keys set, snake_case");
    if (!json || strcmp(json, want) != 0) {
        printf("# got:      %s\n# expected: %s\n", json ? json : "(none)", want);
    }
    ferrite_string_free(json);
    CHECK(ferrite_http_options_allow_any_host(o) == FERRITE_RESULT_INVALID_ARGUMENT &&
              last_error_is("invalid HTTP option allowed_hosts: contradicts allow_any_host, which turns the Host and "
                            "Origin checks off"),
          "allow_any_host with allowed_hosts set is the core's contradiction");
    CHECK(ferrite_http_options_set_allowed_hosts(o, NULL, 0) == FERRITE_RESULT_OK &&
              ferrite_http_options_allow_any_host(o) == FERRITE_RESULT_OK,
          "NULL puts allowed_hosts back to its default; then allow_any_host is accepted");
    CHECK(ferrite_http_options_set_json(o, S("{\"allow_any_host\":null,\"max_body_bytes\":null}")) == FERRITE_RESULT_OK,
          "null in set_json puts keys back to their defaults");
    json = NULL;
    ferrite_http_options_get_json(o, &json, NULL);
    CHECK(json && strcmp(json, "{\"response_mode\":\"sse\",\"session_idle_timeout_ms\":0,\"sse_keep_alive_ms\":0}") == 0,
          "the nulled keys are gone");
    ferrite_string_free(json);

    ferrite_server *server = server_with_mode(FERRITE_SERVER_MODE_DEFAULT);
    ferrite_http_listener *l = NULL;
    CHECK(ferrite_server_http_bind(server, S("localhost"), 0, o, &l) == FERRITE_RESULT_INVALID_ARGUMENT && !l &&
              last_error_is("invalid HTTP option host: \"localhost\" is not an IP address (bind to 127.0.0.1, 0.0.0.0 or ::)"),
          "binding a host name is the core's host error");
    CHECK(ferrite_http_options_set_json(o, S("{\"host\":\"127.0.0.1\",\"port\":0}")) == FERRITE_RESULT_OK &&
              ferrite_server_http_bind(server, NULL, 0, 0, o, &l) == FERRITE_RESULT_OK && l,
          "http_bind with a NULL host takes the options' host");
    ferrite_http_listener_free(l);
    ferrite_server_free(server);
    CHECK(ferrite_http_options_set_json(NULL, S("{}")) == FERRITE_RESULT_NULL_POINTER,
          "set_json on NULL options is NULL_POINTER");
    ferrite_http_options_free(o);
}

void check_parity(void) {
    check_version();
    check_defaults();
    check_context();
    check_cancel();
    check_ping();
    check_tools_and_validation();
    check_wire_shapes();
    check_http_config();
}
