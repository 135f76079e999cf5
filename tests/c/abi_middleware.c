/*
 * Middleware from C (issue 16): ferrite_server_add_middleware, the request handle a middleware
 * answers on (ferrite_request_complete / _fail_rpc, synchronously or from the answer callback),
 * and ferrite_middleware_next_run. Each check names what it asserts, in both eras (a handshake
 * request after initialize, and a 2026-07-28 request carrying the _meta envelope): two
 * middlewares run in the order added around the handler; a middleware changes the params the
 * handler gets, answers without the handler (a result, or an error with its code, message and
 * data), reads and changes the answer; an error from the chain reaches its answer callback; a
 * second next is the core's -32603; a result that is not valid JSON, or not an object, is the
 * core's -32603 "the handler's result is not valid: ..."; returning OK without answering is an
 * error, not a hang; the server keeps serving; the finalizers run once when the server closes.
 */
#include "abi_test.h"
#include "abi_server.h"

#define ADD_TOOL_JSON                                                                                  \
    "{\"name\":\"add\",\"inputSchema\":{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"integer\"}," \
    "\"b\":{\"type\":\"integer\"}},\"required\":[\"a\",\"b\"]}}"
#define INIT                                                                                                   \
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\"," \
    "\"capabilities\":{},\"clientInfo\":{\"name\":\"abi-middleware\",\"version\":\"0\"}}}"
#define INITIALIZED "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}"

/* ---------------------------------------------------------------- what the middlewares saw */

static atomic_int add_calls;        /* how many times the add handler ran */
static atomic_int mw_finalized;     /* middleware finalizers run */
static atomic_int answers_finalized; /* answer-callback finalizers run */
static atomic_int chain_error_code; /* the error code an answer callback saw last */
static atomic_int bad_params_rc;    /* ferrite_middleware_next_run with params that do not parse */
static atomic_int bad_json_rc;      /* ferrite_request_complete with text that is not JSON */
static atomic_int not_object_rc;    /* ferrite_request_complete with JSON that is not an object */

static pthread_mutex_t log_mu = PTHREAD_MUTEX_INITIALIZER;
static char mw_log[1024];
static char seen_text[64];  /* the text the answer-changing middleware read */
static char seen_hooks[256]; /* "method:hook:params;" for each request the gate saw */

static void log_add(const char *entry) {
    pthread_mutex_lock(&log_mu);
    size_t n = strlen(mw_log);
    snprintf(mw_log + n, sizeof mw_log - n, "%s|", entry);
    pthread_mutex_unlock(&log_mu);
}

static void log_reset(void) {
    pthread_mutex_lock(&log_mu);
    mw_log[0] = '\0';
    pthread_mutex_unlock(&log_mu);
}

static bool log_is(const char *expected) {
    pthread_mutex_lock(&log_mu);
    bool ok = strcmp(mw_log, expected) == 0;
    if (!ok) {
        printf("# log:      %s\n# expected: %s\n", mw_log, expected);
    }
    pthread_mutex_unlock(&log_mu);
    return ok;
}

static void count_mw_finalizer(void *u) {
    (void)u;
    atomic_fetch_add(&mw_finalized, 1);
}

static uint32_t counted_add(void *u, ferrite_request *req) {
    atomic_fetch_add(&add_calls, 1);
    return tool_add(u, req);
}

/* ---------------------------------------------------------------- answer callbacks */

/* What an answer callback needs: the request to settle and what to do with the answer. */
typedef enum { PASS, LOG_AND_PASS, EXCLAIM, IGNORE } answer_mode;
typedef struct {
    ferrite_request *req;
    answer_mode mode;
    char name[8];
} pending;

static void *pending_new(ferrite_request *req, answer_mode mode, const char *name) {
    pending *p = calloc(1, sizeof *p);
    if (!p) {
        abort();
    }
    p->req = req;
    p->mode = mode;
    snprintf(p->name, sizeof p->name, "%s", name);
    return p;
}

static void pending_free(void *u) {
    atomic_fetch_add(&answers_finalized, 1);
    free(u);
}

/* Settle `req` with the chain's answer as it came: the result, or the JSON-RPC error. */
static void settle_as_is(ferrite_request *req, ferrite_str result, int32_t code, ferrite_str message, ferrite_str data) {
    if (result.ptr) {
        ferrite_request_complete(req, result.ptr, result.len);
    } else {
        ferrite_request_fail_rpc(req, code, message.ptr, message.len, data.ptr, data.len);
    }
}

/* Settle `req` with the result's first text block and "!" after it. */
static void settle_exclaimed(ferrite_request *req, ferrite_str result) {
    char *text = NULL, *quoted = NULL;
    if (ferrite_json_get_string(result.ptr, result.len, S("/content/0/text"), &text, NULL) != FERRITE_RESULT_OK) {
        ferrite_request_complete(req, result.ptr, result.len);
        return;
    }
    snprintf(seen_text, sizeof seen_text, "%s", text);
    char changed[128], out[256];
    snprintf(changed, sizeof changed, "%s!", text);
    size_t quoted_len = 0;
    ferrite_json_quote(changed, strlen(changed), &quoted, &quoted_len);
    int n = snprintf(out, sizeof out, "{\"content\":[{\"type\":\"text\",\"text\":%s}]}", quoted);
    ferrite_request_complete(req, out, (size_t)n);
    ferrite_string_free(quoted);
    ferrite_string_free(text);
}

static void on_answer(void *u, ferrite_str result, int32_t code, ferrite_str message, ferrite_str data) {
    pending *p = u;
    if (!result.ptr) {
        atomic_store(&chain_error_code, code);
    }
    switch (p->mode) {
    case IGNORE:
        return;
    case LOG_AND_PASS: {
        char entry[16];
        snprintf(entry, sizeof entry, "<%s", p->name);
        log_add(entry);
        settle_as_is(p->req, result, code, message, data);
        return;
    }
    case EXCLAIM:
        if (result.ptr) {
            settle_exclaimed(p->req, result);
            return;
        }
        settle_as_is(p->req, result, code, message, data);
        return;
    case PASS:
        settle_as_is(p->req, result, code, message, data);
        return;
    }
}

/* ---------------------------------------------------------------- middlewares */

/* Logs "<name>> <method> <hook>" on the way in and "<<name>" on the way out. */
static uint32_t mw_logging(void *u, ferrite_request *req, ferrite_str method, ferrite_str params, ferrite_str hook,
                           const ferrite_middleware_next *next) {
    (void)params;
    const char *name = u;
    char entry[96];
    snprintf(entry, sizeof entry, "%s> %.*s %.*s", name, (int)method.len, method.ptr, (int)hook.len,
             hook.ptr ? hook.ptr : "");
    log_add(entry);
    if (ferrite_middleware_next_run(next, NULL, 0, on_answer, pending_new(req, LOG_AND_PASS, name), pending_free) !=
        FERRITE_RESULT_OK) {
        return FERRITE_RESULT_HANDLER_FAILED;
    }
    return FERRITE_RESULT_PENDING;
}

/* The gate: what it does depends on add's argument `a` (see check_gate). */
static uint32_t mw_gate(void *u, ferrite_request *req, ferrite_str method, ferrite_str params, ferrite_str hook,
                        const ferrite_middleware_next *next) {
    (void)u;
    pthread_mutex_lock(&log_mu);
    size_t at = strlen(seen_hooks);
    snprintf(seen_hooks + at, sizeof seen_hooks - at, "%.*s:%.*s:%s;", (int)method.len, method.ptr,
             hook.ptr ? (int)hook.len : 4, hook.ptr ? hook.ptr : "NULL", params.ptr ? "params" : "NULL");
    pthread_mutex_unlock(&log_mu);
    int64_t a = -1, b = 0;
    ferrite_request_argument_i64(req, S("/arguments/a"), &a);
    ferrite_request_argument_i64(req, S("/arguments/b"), &b);
    switch (a) {
    case 1: { /* change the params: the handler gets a = 40 */
        char changed[128];
        int n = snprintf(changed, sizeof changed, "{\"name\":\"add\",\"arguments\":{\"a\":40,\"b\":%lld}}", (long long)b);
        ferrite_middleware_next_run(next, changed, (size_t)n, on_answer, pending_new(req, PASS, ""), pending_free);
        return FERRITE_RESULT_PENDING;
    }
    case 2: /* next twice: the second answers the core's error */
        ferrite_middleware_next_run(next, NULL, 0, on_answer, pending_new(req, IGNORE, ""), pending_free);
        ferrite_middleware_next_run(next, NULL, 0, on_answer, pending_new(req, PASS, ""), pending_free);
        return FERRITE_RESULT_PENDING;
    case 3: /* a result that is not JSON */
        atomic_store(&bad_json_rc, ferrite_request_complete(req, S("{not json")));
        return FERRITE_RESULT_OK;
    case 4: /* a result that is JSON but not an object */
        atomic_store(&not_object_rc, ferrite_request_complete(req, S("[42]")));
        return FERRITE_RESULT_OK;
    case 5: /* read and change the answer */
        ferrite_middleware_next_run(next, NULL, 0, on_answer, pending_new(req, EXCLAIM, ""), pending_free);
        return FERRITE_RESULT_PENDING;
    case 6: /* OK without answering */
        return FERRITE_RESULT_OK;
    case 7: /* a result without the handler */
        return ferrite_request_complete(req, S("{\"content\":[{\"type\":\"text\",\"text\":\"seven, from the middleware\"}]}"));
    case 8: /* params that do not parse are refused; next stays unused */
        atomic_store(&bad_params_rc, ferrite_middleware_next_run(next, S("{bad"), on_answer,
                                                                 pending_new(req, PASS, ""), pending_free));
        ferrite_middleware_next_run(next, NULL, 0, on_answer, pending_new(req, PASS, ""), pending_free);
        return FERRITE_RESULT_PENDING;
    case 13: /* an error without the handler, its data passed through */
        return ferrite_request_fail_rpc(req, -32001, S("thirteen is refused here"), S("{\"why\":\"superstition\"}"));
    default: /* pass through, from the answer callback */
        ferrite_middleware_next_run(next, NULL, 0, on_answer, pending_new(req, PASS, ""), pending_free);
        return FERRITE_RESULT_PENDING;
    }
}

/* ---------------------------------------------------------------- checks */

static ferrite_server *mw_server(const char *name) {
    ferrite_server *server = NULL;
    char info[128];
    int n = snprintf(info, sizeof info, "{\"name\":\"%s\",\"version\":\"1.0.0\"}", name);
    if (ferrite_server_new(info, (size_t)n, FERRITE_SERVER_MODE_STATEFUL, NULL, 0, &server) != FERRITE_RESULT_OK ||
        ferrite_server_add_tool(server, S(ADD_TOOL_JSON), counted_add, NULL, NULL) != FERRITE_RESULT_OK) {
        fprintf(stderr, "abi_middleware: server: %s\n", ferrite_last_error());
        exit(2);
    }
    return server;
}

static void initialize(ferrite_server *server) {
    char *r = call(server, INIT);
    ferrite_string_free(r);
    r = call(server, INITIALIZED);
    ferrite_string_free(r);
}

/* Call add(a, b) in an era (modern: with the 2026-07-28 envelope); the response (caller frees). */
static char *call_add(ferrite_server *server, bool modern, int id, const char *name, int a, int b) {
    char msg[512];
    snprintf(msg, sizeof msg,
             "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":{\"name\":\"%s\","
             "\"arguments\":{\"a\":%d,\"b\":%d}%s}}",
             id, name, a, b, modern ? "," ENVELOPE("{}") : "");
    return call(server, msg);
}

static char *text_of(const char *response) {
    char *text = NULL;
    if (response) {
        ferrite_json_get_string(response, strlen(response), S("/result/content/0/text"), &text, NULL);
    }
    return text;
}

static bool add_text_is(ferrite_server *server, bool modern, int id, int a, int b, const char *expected) {
    char *r = call_add(server, modern, id, "add", a, b);
    char *text = text_of(r);
    bool ok = text && strcmp(text, expected) == 0;
    if (!ok) {
        printf("# add(%d, %d): %s\n# expected text: %s\n", a, b, r ? r : "(call failed)", expected);
    }
    ferrite_string_free(text);
    ferrite_string_free(r);
    return ok;
}

/* Whether the response's error is exactly `expected` (JSON text), or starts with it when
 * `prefix` (then `expected` is the message's start). */
static bool add_error_is(ferrite_server *server, bool modern, int id, const char *name, int a, int32_t code,
                         const char *message, bool prefix) {
    char *r = call_add(server, modern, id, name, a, 0);
    char *got = NULL;
    if (r) {
        ferrite_json_get_string(r, strlen(r), S("/error/message"), &got, NULL);
    }
    bool ok = int_at(r, "/error/code") == code && got &&
              (prefix ? strncmp(got, message, strlen(message)) == 0 : strcmp(got, message) == 0);
    if (!ok) {
        printf("# %s(a=%d): %s\n# expected: %d %s%s\n", name, a, r ? r : "(call failed)", code, message,
               prefix ? "..." : "");
    }
    ferrite_string_free(got);
    ferrite_string_free(r);
    return ok;
}

static void check_order(void) {
    ferrite_server *server = mw_server("abi-mw-order");
    CHECK(ferrite_server_add_middleware(server, mw_logging, "a", count_mw_finalizer) == FERRITE_RESULT_OK &&
              ferrite_server_add_middleware(server, mw_logging, "b", count_mw_finalizer) == FERRITE_RESULT_OK,
          "middleware: ferrite_server_add_middleware adds two middlewares");
    initialize(server);
    log_reset();
    CHECK(add_text_is(server, false, 2, 1, 2, "3") &&
              log_is("a> tools/call call_tool|b> tools/call call_tool|<b|<a|"),
          "middleware (2025-06-18): two middlewares run in the order added, around the handler");
    log_reset();
    CHECK(add_text_is(server, true, 3, 2, 2, "4") && log_is("a> tools/call call_tool|b> tools/call call_tool|<b|<a|"),
          "middleware (2026-07-28): two middlewares run in the order added, around the handler");
    CHECK(atomic_load(&add_calls) == 2, "middleware: the handler ran once per call through the chain");
    ferrite_server_free(server);
    CHECK(atomic_load(&mw_finalized) == 2, "middleware: each middleware's finalizer runs once when the server closes");
}

static void check_gate_in(ferrite_server *server, bool modern) {
    const char *era = modern ? "2026-07-28" : "2025-06-18";
    char name[160];
#define ERA_CHECK(cond, what)                                 \
    do {                                                      \
        snprintf(name, sizeof name, "middleware (%s): %s", era, what); \
        CHECK(cond, name);                                    \
    } while (0)
    int id = modern ? 100 : 10;
    atomic_store(&add_calls, 0);
    ERA_CHECK(add_text_is(server, modern, id++, 1, 2, "42"), "changing the params: add gets a = 40 and answers 42");
    ERA_CHECK(atomic_load(&add_calls) == 1, "the changed request reached the handler once");

    char *r = call_add(server, modern, id++, "add", 13, 1);
    char *error = NULL;
    if (r) {
        ferrite_json_get(r, strlen(r), S("/error"), &error, NULL);
    }
    ERA_CHECK(error && strcmp(error, "{\"code\":-32001,\"message\":\"thirteen is refused here\","
                                     "\"data\":{\"why\":\"superstition\"}}") == 0,
              "answering with an error without the handler: code, message and data as given");
    if (!(error && strstr(error, "superstition"))) {
        printf("# got: %s\n", r ? r : "(call failed)");
    }
    ferrite_string_free(error);
    ferrite_string_free(r);
    ERA_CHECK(add_text_is(server, modern, id++, 7, 1, "seven, from the middleware"),
              "answering with a result without the handler");
    ERA_CHECK(atomic_load(&add_calls) == 1, "the handler did not run for the answers the middleware gave itself");

    seen_text[0] = '\0';
    ERA_CHECK(add_text_is(server, modern, id++, 5, 4, "9!") && strcmp(seen_text, "9") == 0,
              "reading the answer (9) and changing it (9!)");

    atomic_store(&chain_error_code, 0);
    ERA_CHECK(add_error_is(server, modern, id++, "nope", 0, -32602, "", true) &&
                  atomic_load(&chain_error_code) == -32602,
              "an error from the chain (an unknown tool, -32602) reaches the answer callback and the client");
    ERA_CHECK(add_error_is(server, modern, id++, "add", 2, -32603, "a middleware called next twice", false),
              "next run twice: the second answers -32603 \"a middleware called next twice\"");
    ERA_CHECK(add_error_is(server, modern, id++, "add", 3, -32603, "the handler's result is not valid:", true) &&
                  atomic_load(&bad_json_rc) == FERRITE_RESULT_INVALID_JSON,
              "a result that is not JSON: INVALID_JSON, and the client gets -32603 \"the handler's result is not valid: ...\"");
    ERA_CHECK(add_error_is(server, modern, id++, "add", 4, -32603, "the handler's result is not valid:", true) &&
                  atomic_load(&not_object_rc) == FERRITE_RESULT_INVALID_ARGUMENT,
              "a result that is not a JSON object: INVALID_ARGUMENT, and the client gets -32603 \"the handler's result is not valid: ...\"");
    ERA_CHECK(add_error_is(server, modern, id++, "add", 6, -32603, "the handler returned FERRITE_RESULT_OK without completing",
                           true),
              "returning OK without answering is -32603, not a hang");
    atomic_store(&bad_params_rc, 0);
    ERA_CHECK(add_text_is(server, modern, id++, 8, 1, "9") && atomic_load(&bad_params_rc) == FERRITE_RESULT_INVALID_JSON,
              "next with params that do not parse is INVALID_JSON and leaves next to run");
    ERA_CHECK(add_text_is(server, modern, id++, 20, 22, "42"), "the server keeps serving");
#undef ERA_CHECK
}

static void check_gate(void) {
    ferrite_server *server = mw_server("abi-mw-gate");
    atomic_store(&mw_finalized, 0);
    atomic_store(&answers_finalized, 0);
    CHECK(ferrite_server_add_middleware(server, mw_gate, NULL, count_mw_finalizer) == FERRITE_RESULT_OK,
          "middleware: the gate is added");
    initialize(server);
    check_gate_in(server, false);
    check_gate_in(server, true);

    pthread_mutex_lock(&log_mu);
    seen_hooks[0] = '\0';
    pthread_mutex_unlock(&log_mu);
    char *r = call(server, "{\"jsonrpc\":\"2.0\",\"id\":200,\"method\":\"tools/list\"}");
    ferrite_string_free(r);
    r = call(server, MODERN(201, "x/unknown", "", "{}"));
    CHECK(int_at(r, "/error/code") == -32601, "middleware: a method no route answers passes through (-32601)");
    ferrite_string_free(r);
    pthread_mutex_lock(&log_mu);
    bool hooks_ok = strcmp(seen_hooks, "tools/list:list_tools:NULL;x/unknown:NULL:params;") == 0;
    if (!hooks_ok) {
        printf("# seen: %s\n", seen_hooks);
    }
    pthread_mutex_unlock(&log_mu);
    CHECK(hooks_ok, "middleware: the callback gets the method, its typed hook (NULL for none) and the params (NULL "
                    "for none)");

    CHECK(ferrite_server_add_middleware(server, NULL, NULL, count_mw_finalizer) == FERRITE_RESULT_NULL_POINTER &&
              atomic_load(&mw_finalized) == 1,
          "middleware: a NULL callback is NULL_POINTER, and the finalizer has run");
    CHECK(ferrite_middleware_next_run(NULL, NULL, 0, on_answer, pending_new(NULL, PASS, ""), pending_free) ==
                  FERRITE_RESULT_NULL_POINTER,
          "middleware: ferrite_middleware_next_run with a NULL next is NULL_POINTER");
    ferrite_server_free(server);
    CHECK(atomic_load(&mw_finalized) == 2, "middleware: the gate's finalizer runs once when the server closes");
    /* Every answer callback's user_data was finalized: 8 runs per era (a = 1, 2 twice, 5, 8 twice,
     * the unknown tool, the last add), tools/list and x/unknown, and the refused NULL next. */
    CHECK(atomic_load(&answers_finalized) == 2 * 8 + 2 + 1,
          "middleware: every answer callback's finalizer runs exactly once (refused calls included)");
}

/* The core's built-ins (ferrite_server_add_builtin_middleware): no callback, configured by JSON. */
static void check_builtin(void) {
    ferrite_server *server = mw_server("abi-mw-builtin");
    CHECK(ferrite_server_add_builtin_middleware(server, S("rate_limit"),
                                                S("{\"perSecond\":0.01,\"burst\":2,\"methods\":[\"tools/call\"]}")) ==
              FERRITE_RESULT_OK,
          "builtin middleware: rate_limit is added with its JSON configuration");
    initialize(server);
    atomic_store(&add_calls, 0);
    CHECK(add_text_is(server, true, 300, 1, 2, "3") && add_text_is(server, true, 301, 1, 2, "3"),
          "builtin middleware: rate_limit lets the burst through");
    CHECK(add_error_is(server, true, 302, "add", 1, -32000, "Rate limit exceeded: at most 0.01 requests a second", true) &&
              atomic_load(&add_calls) == 2,
          "builtin middleware: rate_limit answers -32000 over the burst, without the handler");
    CHECK(ferrite_server_add_builtin_middleware(server, S("nope"), NULL, 0) == FERRITE_RESULT_INVALID_ARGUMENT &&
              strstr(ferrite_last_error(), "no such built-in middleware \"nope\"") != NULL,
          "builtin middleware: an unknown name is FERRITE_RESULT_INVALID_ARGUMENT with the core's reason");
    CHECK(ferrite_server_add_builtin_middleware(server, S("rate_limit"), S("{\"perSecond\":")) ==
              FERRITE_RESULT_INVALID_JSON,
          "builtin middleware: a configuration that does not parse is FERRITE_RESULT_INVALID_JSON");
    ferrite_server_free(server);
}

/* ---------------------------------------------- notification middleware (issue 16) */

static atomic_int next_twice_rc; /* a second ferrite_notification_next_run */
static char notes_observed[512];       /* "method params;" for each notification the server acted on */

/* Logs "name> method" (and "connection" when it got the connection id), drops
 * notifications/roots/list_changed when user_data is "b", stamps the params with its name. */
static void mw_notes(void *u, ferrite_str method, ferrite_str params, ferrite_str connection,
                     const ferrite_notification_next *next) {
    const char *name = u;
    char entry[160];
    snprintf(entry, sizeof entry, "%s> %.*s%s", name, (int)method.len, method.ptr,
             connection.ptr && connection.len > 0 ? "" : " (no connection)");
    log_add(entry);
    if (strcmp(name, "b") == 0 && method.len == strlen("notifications/roots/list_changed") &&
        strncmp(method.ptr, "notifications/roots/list_changed", method.len) == 0) {
        return; /* dropped: no next */
    }
    char stamped[256];
    if (params.ptr && params.len > 2 && params.ptr[params.len - 1] == '}') {
        snprintf(stamped, sizeof stamped, "%.*s,\"stamped\":\"%s\"}", (int)params.len - 1, params.ptr, name);
        ferrite_notification_next_run(next, stamped, strlen(stamped));
    } else {
        ferrite_notification_next_run(next, NULL, 0);
    }
    if (strcmp(name, "a") == 0) {
        atomic_store(&next_twice_rc, (int)ferrite_notification_next_run(next, NULL, 0));
    }
}

static void observe(void *u, ferrite_str method, ferrite_str params) {
    (void)u;
    pthread_mutex_lock(&log_mu);
    size_t n = strlen(notes_observed);
    snprintf(notes_observed + n, sizeof notes_observed - n, "%.*s %.*s;", (int)method.len, method.ptr, (int)params.len,
             params.ptr ? params.ptr : "");
    pthread_mutex_unlock(&log_mu);
}

static bool observed_is(const char *expected) {
    pthread_mutex_lock(&log_mu);
    bool ok = strcmp(notes_observed, expected) == 0;
    if (!ok) {
        printf("# notes_observed: %s\n# expected: %s\n", notes_observed, expected);
    }
    pthread_mutex_unlock(&log_mu);
    return ok;
}

static void check_notifications(void) {
    ferrite_server *server = mw_server("abi-mw-notifications");
    CHECK(ferrite_server_add_notification_middleware(server, mw_notes, "a", count_mw_finalizer) == FERRITE_RESULT_OK &&
              ferrite_server_add_notification_middleware(server, mw_notes, "b", count_mw_finalizer) ==
                  FERRITE_RESULT_OK &&
              ferrite_server_set_notification_observer(server, observe, NULL, NULL) == FERRITE_RESULT_OK,
          "notification middleware: ferrite_server_add_notification_middleware adds two");
    initialize(server);
    log_reset();
    pthread_mutex_lock(&log_mu);
    notes_observed[0] = '\0';
    pthread_mutex_unlock(&log_mu);
    char *r = call(server, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":"
                           "{\"progressToken\":\"t\",\"progress\":1}}");
    CHECK((r == NULL || r[0] == '\0') && log_is("a> notifications/progress|b> notifications/progress|"),
          "notification middleware: a notification passes the two in the order added, with its connection");
    ferrite_string_free(r);
    /* b stamped after a: the one "stamped" key the server sees is b's (keys in either order). */
    CHECK(observed_is("notifications/progress {\"progress\":1,\"progressToken\":\"t\",\"stamped\":\"b\"};") ||
              observed_is("notifications/progress {\"progressToken\":\"t\",\"progress\":1,\"stamped\":\"b\"};"),
          "notification middleware: the server acts on the params the innermost one passed on");
    CHECK(atomic_load(&next_twice_rc) == FERRITE_RESULT_INVALID_ARGUMENT,
          "notification middleware: a second ferrite_notification_next_run is FERRITE_RESULT_INVALID_ARGUMENT");
    log_reset();
    r = call(server, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/roots/list_changed\"}");
    ferrite_string_free(r);
    pthread_mutex_lock(&log_mu);
    bool roots_seen = strstr(notes_observed, "roots") != NULL;
    pthread_mutex_unlock(&log_mu);
    CHECK(log_is("a> notifications/roots/list_changed|b> notifications/roots/list_changed|") && !roots_seen,
          "notification middleware: one that does not call next drops the notification (the server never sees it)");
    CHECK(add_text_is(server, true, 500, 2, 3, "5") && atomic_load(&add_calls) >= 1,
          "notification middleware: requests pass it by; the server keeps serving");
    CHECK(ferrite_notification_next_run(NULL, NULL, 0) == FERRITE_RESULT_NULL_POINTER &&
              ferrite_server_add_notification_middleware(server, NULL, NULL, NULL) == FERRITE_RESULT_NULL_POINTER,
          "notification middleware: NULL next or callback is FERRITE_RESULT_NULL_POINTER");
    atomic_store(&mw_finalized, 0);
    ferrite_server_free(server);
    CHECK(atomic_load(&mw_finalized) == 2, "notification middleware: each finalizer runs once when the server closes");
}

void check_middleware(void) {
    check_order();
    check_gate();
    check_builtin();
    check_notifications();
}
