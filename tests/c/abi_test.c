/*
 * The C ABI exercised from C: registration, handle_raw, synchronous and pending (completed
 * from another thread) handlers, finalizers, NULL and bad UTF-8 inputs, a panic surfaced as
 * a code, the JSON helpers; the 2026-07-28 revision (bad modern input, multi round-trip
 * requests with sealed and tampered state, the new request getters, custom methods, request
 * state keys, extensions, cache hints, skills) in-process and over HTTP; and, in abi_parity.c,
 * the version, the defaults, the request context and server API items every surface has, host
 * connections and the HTTP options' core errors; in abi_auth.c, authorization. Built and run by ffi/tests/c_programs.rs (and
 * under valgrind by tests/c/run.sh).
 *
 *   abi_test          run every check, print "ok"/"not ok" lines and a summary; exit 1 on failure
 *   abi_test serve    register the same handlers and serve stdio (for the stdio test)
 *   abi_test serve-until-close
 *                     the same, but close the server from the main thread while serve_stdio
 *                     runs on another, once the client sends notifications/test/close
 *
 * Needs a libferrite built with the cargo feature "testing" (ferrite_testing_panic).
 */
#include "abi_test.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <limits.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>
#include <time.h>

int failures = 0;
int checks = 0;

/* ---------------------------------------------------------------- handlers */

static atomic_int finalized;

static void count_finalizer(void *user_data) {
    (void)user_data;
    atomic_fetch_add(&finalized, 1);
}

/* add: synchronous, reads its arguments from the request. */
static uint32_t tool_add(void *user_data, ferrite_request *req) {
    (void)user_data;
    int64_t a = 0, b = 0;
    if (ferrite_request_argument_i64(req, S("/a"), &a) != FERRITE_RESULT_OK ||
        ferrite_request_argument_i64(req, S("/b"), &b) != FERRITE_RESULT_OK) {
        ferrite_request_fail(req, S("a and b must be integers"));
        return FERRITE_RESULT_OK;
    }
    char text[32], structured[64];
    int t = snprintf(text, sizeof text, "%lld", (long long)(a + b));
    int n = snprintf(structured, sizeof structured, "{\"sum\":%lld}", (long long)(a + b));
    return ferrite_request_complete_text(req, text, (size_t)t, structured, (size_t)n);
}

/* echo: builds its result JSON by hand, quoting arbitrary text. */
static uint32_t tool_echo(void *user_data, ferrite_request *req) {
    (void)user_data;
    ferrite_str text;
    char *quoted = NULL;
    size_t quoted_len = 0;
    if (ferrite_request_argument_string(req, S("/text"), &text) != FERRITE_RESULT_OK) {
        return FERRITE_RESULT_HANDLER_FAILED;
    }
    ferrite_json_quote(text.ptr, text.len, &quoted, &quoted_len);
    size_t cap = quoted_len + 64;
    char *buf = malloc(cap);
    int n = snprintf(buf, cap, "{\"content\":[{\"type\":\"text\",\"text\":%s}]}", quoted);
    uint32_t rc = ferrite_request_complete(req, buf, (size_t)n);
    free(buf);
    ferrite_string_free(quoted);
    return rc;
}

/* args: returns its arguments' JSON text and what the typed accessors say about them. */
static uint32_t tool_args(void *user_data, ferrite_request *req) {
    (void)user_data;
    ferrite_str json, s;
    int64_t n = 0;
    char text[512];
    ferrite_request_arguments(req, &json);
    int missing = (int)ferrite_request_argument_i64(req, S("/missing"), &n);
    int wrong = (int)ferrite_request_argument_i64(req, S("/s"), &n);
    int not_string = (int)ferrite_request_argument_string(req, S("/n/0"), &s);
    ferrite_request_argument_i64(req, S("/n/0"), &n);
    int len = snprintf(text, sizeof text, "%.*s missing=%d wrong=%d not_string=%d n0=%lld", (int)json.len, json.ptr,
                       missing, wrong, not_string, (long long)n);
    return ferrite_request_complete_text(req, text, (size_t)len, NULL, 0);
}

/* later: returns PENDING; a thread of its own logs, then completes 30 ms later. */
static void *later_thread(void *arg) {
    ferrite_request *req = arg;
    sleep_ms(30);
    ferrite_request_log(req, FERRITE_LOG_LEVEL_INFO, S("\"working in another thread\""), NULL, 0, NULL);
    ferrite_request_complete(req, S("{\"content\":[{\"type\":\"text\",\"text\":\"completed later\"}]}"));
    return NULL;
}

static uint32_t tool_later(void *user_data, ferrite_request *req) {
    (void)user_data;
    pthread_t t;
    if (pthread_create(&t, NULL, later_thread, req) != 0) {
        return FERRITE_RESULT_HANDLER_FAILED;
    }
    pthread_detach(t);
    return FERRITE_RESULT_PENDING;
}

/* Misbehaving handlers, each checked for the error it must produce. */
static uint32_t tool_fail(void *u, ferrite_request *req) {
    (void)u;
    return ferrite_request_fail(req, S("deliberate tool failure"));
}
static uint32_t tool_fail_rpc(void *u, ferrite_request *req) {
    (void)u;
    return ferrite_request_fail_rpc(req, -32602, S("bad things"), S("{\"why\":\"test\"}"));
}
static uint32_t tool_ok_without_completing(void *u, ferrite_request *req) {
    (void)u, (void)req;
    return FERRITE_RESULT_OK;
}
static uint32_t tool_garbage_status(void *u, ferrite_request *req) {
    (void)u, (void)req;
    return 987654u;
}
static atomic_int second_complete_rc;
static atomic_int bad_shape_rc;
static uint32_t tool_bad_shape(void *u, ferrite_request *req) {
    (void)u;
    atomic_store(&bad_shape_rc, (int)ferrite_request_complete(req, S("{\"content\":5}")));
    atomic_store(&second_complete_rc, (int)ferrite_request_complete(req, S("{\"content\":[]}")));
    return FERRITE_RESULT_OK;
}
static atomic_int reentrant_rc;
static uint32_t tool_reentrant(void *user_data, ferrite_request *req) {
    const ferrite_server *server = user_data;
    char *out = NULL;
    atomic_store(&reentrant_rc, (int)ferrite_server_handle_raw(server, S("{}"), &out, NULL));
    ferrite_string_free(out);
    return ferrite_request_complete(req, S("{\"content\":[]}"));
}
/* context: reports what the request context says. */
static uint32_t tool_context(void *u, ferrite_request *req) {
    (void)u;
    ferrite_str id, version, conn;
    bool cancelled = true, sampling = true;
    if (ferrite_request_id(req, &id) || ferrite_request_protocol_version(req, &version) ||
        ferrite_request_connection_id(req, &conn) || ferrite_request_is_cancelled(req, &cancelled) ||
        ferrite_request_client_supports(req, S("sampling"), &sampling)) {
        return FERRITE_RESULT_HANDLER_FAILED;
    }
    char text[256], *quoted = NULL, buf[512];
    snprintf(text, sizeof text, "id=%.*s version=%.*s conn=%s cancelled=%d sampling=%d", (int)id.len, id.ptr,
             (int)version.len, version.ptr, conn.len > 0 ? "yes" : "no", cancelled, sampling);
    ferrite_json_quote(text, strlen(text), &quoted, NULL);
    int n = snprintf(buf, sizeof buf, "{\"content\":[{\"type\":\"text\",\"text\":%s}]}", quoted);
    ferrite_string_free(quoted);
    return ferrite_request_complete(req, buf, (size_t)n);
}

static uint32_t read_resource(void *u, ferrite_request *req, ferrite_str uri, ferrite_str vars) {
    (void)u;
    char *id = NULL, buf[512];
    if (ferrite_json_get_string(vars.ptr, vars.len, S("/id"), &id, NULL) != FERRITE_RESULT_OK) {
        id = NULL;
    }
    int n = snprintf(buf, sizeof buf, "{\"contents\":[{\"uri\":\"%.*s\",\"mimeType\":\"text/plain\",\"text\":\"item %s\"}]}",
                     (int)uri.len, uri.ptr, id ? id : "-");
    ferrite_string_free(id);
    return ferrite_request_complete(req, buf, (size_t)n);
}

static uint32_t get_prompt(void *u, ferrite_request *req) {
    (void)u;
    ferrite_str who = {"?", 1};
    char buf[256];
    ferrite_request_argument_string(req, S("/who"), &who);
    int n = snprintf(buf, sizeof buf,
                     "{\"messages\":[{\"role\":\"user\",\"content\":{\"type\":\"text\",\"text\":\"hello %.*s\"}}]}",
                     (int)who.len, who.ptr);
    return ferrite_request_complete(req, buf, (size_t)n);
}

static atomic_int text_on_prompt_rc;
static uint32_t prompt_text_result(void *u, ferrite_request *req) {
    (void)u;
    atomic_store(&text_on_prompt_rc, (int)ferrite_request_complete_text(req, S("hi"), NULL, 0));
    return FERRITE_RESULT_OK;
}

static uint32_t complete_city(void *u, ferrite_request *req, ferrite_str params) {
    (void)u;
    char *typed = NULL;
    ferrite_json_get_string(params.ptr, params.len, S("/argument/value"), &typed, NULL);
    bool p = typed && typed[0] == 'p';
    ferrite_string_free(typed);
    if (p) {
        return ferrite_request_complete(req, S("{\"completion\":{\"values\":[\"paris\",\"porto\"]}}"));
    }
    return ferrite_request_complete(req, S("{\"completion\":{\"values\":[]}}"));
}

static atomic_int observed;
static char observed_method[64];
static atomic_int close_requested;
static void observe(void *u, ferrite_str method, ferrite_str params) {
    (void)u, (void)params;
    if (method.len == strlen("notifications/test/close") && memcmp(method.ptr, "notifications/test/close", method.len) == 0) {
        atomic_store(&close_requested, 1);
    }
    if (method.len < sizeof observed_method && atomic_load(&observed) == 0) {
        memcpy(observed_method, method.ptr, method.len);
        observed_method[method.len] = '\0';
    }
    atomic_fetch_add(&observed, 1);
}

#define NO_ARGS "{\"type\":\"object\",\"properties\":{}}"
#define TOOL(name) "{\"name\":\"" name "\",\"inputSchema\":" NO_ARGS "}"

/* Register everything; returns how many finalizers were handed over. */
static int register_all(ferrite_server *server) {
    int owned = 0;
#define ADD_TOOL(json, fn, ud)                                                                          \
    do {                                                                                                \
        ferrite_result rc_ = ferrite_server_add_tool(server, S(json), fn, ud, count_finalizer);         \
        owned++;                                                                                        \
        if (rc_ != FERRITE_RESULT_OK) {                                                                 \
            fprintf(stderr, "add_tool %s: %s: %s\n", #fn, ferrite_result_message(rc_), ferrite_last_error()); \
            exit(2);                                                                                    \
        }                                                                                               \
    } while (0)
    ADD_TOOL("{\"name\":\"add\",\"inputSchema\":{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"integer\"},"
             "\"b\":{\"type\":\"integer\"}},\"required\":[\"a\",\"b\"]}}",
             tool_add, NULL);
    ADD_TOOL("{\"name\":\"echo\",\"inputSchema\":{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"}},"
             "\"required\":[\"text\"]}}",
             tool_echo, NULL);
    ADD_TOOL(TOOL("later"), tool_later, NULL);
    ADD_TOOL("{\"name\":\"args\",\"inputSchema\":{\"type\":\"object\"}}", tool_args, NULL);
    ADD_TOOL(TOOL("fail"), tool_fail, NULL);
    ADD_TOOL(TOOL("fail_rpc"), tool_fail_rpc, NULL);
    ADD_TOOL(TOOL("ok_without_completing"), tool_ok_without_completing, NULL);
    ADD_TOOL(TOOL("garbage_status"), tool_garbage_status, NULL);
    ADD_TOOL(TOOL("bad_shape"), tool_bad_shape, NULL);
    ADD_TOOL(TOOL("reentrant"), tool_reentrant, server);
    ADD_TOOL(TOOL("context"), tool_context, NULL);
    ADD_TOOL(TOOL("request_info"), mount_tool_request_info, NULL);
    if (ferrite_server_add_resource_template(server, S("{\"uriTemplate\":\"test://item/{id}\",\"name\":\"item\"}"),
                                             read_resource, NULL, count_finalizer) != FERRITE_RESULT_OK ||
        ferrite_server_add_prompt(server,
                                  S("{\"name\":\"greet\",\"arguments\":[{\"name\":\"who\",\"required\":true}]}"),
                                  get_prompt, NULL, count_finalizer) != FERRITE_RESULT_OK ||
        ferrite_server_add_prompt(server, S("{\"name\":\"text_on_prompt\"}"), prompt_text_result, NULL,
                                  count_finalizer) != FERRITE_RESULT_OK ||
        ferrite_server_set_argument_completer(server, S("{\"type\":\"ref/prompt\",\"name\":\"greet\"}"), S("who"),
                                              complete_city, NULL, count_finalizer) != FERRITE_RESULT_OK ||
        ferrite_server_set_notification_observer(server, observe, NULL, count_finalizer) != FERRITE_RESULT_OK ||
        ferrite_server_enable_logging(server) != FERRITE_RESULT_OK) {
        fprintf(stderr, "registration failed: %s\n", ferrite_last_error());
        exit(2);
    }
    return owned + 5;
}

static ferrite_server *new_server(void) {
    ferrite_server *server = NULL;
    ferrite_result rc = ferrite_server_new(S("{\"name\":\"abi-test\",\"version\":\"1.0.0\"}"),
                                           FERRITE_SERVER_MODE_STATEFUL, S("C ABI test server"), &server);
    if (rc != FERRITE_RESULT_OK) {
        fprintf(stderr, "ferrite_server_new: %s\n", ferrite_last_error());
        exit(2);
    }
    return server;
}

/* ---------------------------------------------------------------- checks */

/* Send one message through handle_raw; returns the response (caller frees) or NULL. */
static char *call(ferrite_server *server, const char *msg) {
    char *out = NULL;
    if (ferrite_server_handle_raw(server, msg, strlen(msg), &out, NULL) != FERRITE_RESULT_OK) {
        return NULL;
    }
    return out;
}

static bool responds(ferrite_server *server, const char *msg, const char *expected) {
    char *out = call(server, msg);
    bool ok = out && strstr(out, expected);
    if (!ok) {
        printf("# sent:     %s\n# got:      %s\n# expected: %s\n", msg, out ? out : "(call failed)", expected);
    }
    ferrite_string_free(out);
    return ok;
}

#define CALL_TOOL(id, name, args) \
    "{\"jsonrpc\":\"2.0\",\"id\":" #id ",\"method\":\"tools/call\",\"params\":{\"name\":\"" name "\",\"arguments\":" args "}}"

static void check_handlers(ferrite_server *server) {
    CHECK(responds(server,
                   "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\","
                   "\"capabilities\":{},\"clientInfo\":{\"name\":\"abi-test\",\"version\":\"0\"}}}",
                   "\"name\":\"abi-test\""),
          "initialize through handle_raw");
    char *none = call(server, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
    CHECK(none && none[0] == '\0', "a notification gives an empty response");
    ferrite_string_free(none);
    CHECK(atomic_load(&observed) == 1 && strcmp(observed_method, "notifications/initialized") == 0,
          "the notification observer saw notifications/initialized");
    CHECK(responds(server, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}", "\"name\":\"add\""),
          "tools/list lists the registered tools");
    CHECK(responds(server, CALL_TOOL(3, "add", "{\"a\":2,\"b\":40}"), "\"structuredContent\":{\"sum\":42}"),
          "a synchronous tool completes with its result");
    CHECK(responds(server, CALL_TOOL(4, "echo", "{\"text\":\"quote \\\" and \\u00e9\"}"), "quote \\\" and \xc3\xa9"),
          "echo round-trips escaped text");
    CHECK(responds(server, CALL_TOOL(40, "args", "{\"s\":\"x\",\"n\":[7]}"),
                   "{\\\"n\\\":[7],\\\"s\\\":\\\"x\\\"} missing=6 wrong=5 not_string=5 n0=7"),
          "arguments on the request: JSON text, and typed reads that report NOT_FOUND and INVALID_ARGUMENT");
    CHECK(responds(server, CALL_TOOL(5, "add", "{\"a\":\"x\",\"b\":1}"), "\"isError\":true"),
          "arguments are validated against the input schema before the callback");
    CHECK(responds(server, CALL_TOOL(6, "later", "{}"), "completed later"),
          "a PENDING handler completed later from another thread");
    CHECK(responds(server, CALL_TOOL(7, "fail", "{}"), "deliberate tool failure"), "ferrite_request_fail gives isError");
    CHECK(responds(server, CALL_TOOL(8, "fail_rpc", "{}"), "\"code\":-32602"),
          "ferrite_request_fail_rpc gives the JSON-RPC error");
    CHECK(responds(server, CALL_TOOL(9, "ok_without_completing", "{}"), "without completing"),
          "returning OK without completing is an error, not a hang");
    CHECK(responds(server, CALL_TOOL(10, "garbage_status", "{}"), "unknown status 987654"),
          "an unknown status from a callback is an error");
    CHECK(responds(server, CALL_TOOL(11, "bad_shape", "{}"), "\"code\":-32603"),
          "a result of the wrong shape fails the request");
    CHECK(atomic_load(&bad_shape_rc) == FERRITE_RESULT_INVALID_ARGUMENT,
          "completing with the wrong shape returns INVALID_ARGUMENT");
    CHECK(atomic_load(&second_complete_rc) == FERRITE_RESULT_ALREADY_COMPLETED,
          "a second completion inside the callback returns ALREADY_COMPLETED");
    CHECK(responds(server, CALL_TOOL(12, "reentrant", "{}"), "\"content\":[]"), "a reentrant tool still completes");
    CHECK(atomic_load(&reentrant_rc) == FERRITE_RESULT_WRONG_THREAD,
          "handle_raw from a callback returns WRONG_THREAD instead of deadlocking");
    CHECK(responds(server, CALL_TOOL(13, "context", "{}"), "id=13 version=2025-06-18 conn=yes cancelled=0 sampling=0"),
          "the request context reports id, version, connection, cancellation, capabilities");
    CHECK(responds(server,
                   "{\"jsonrpc\":\"2.0\",\"id\":14,\"method\":\"resources/read\",\"params\":{\"uri\":\"test://item/42\"}}",
                   "\"text\":\"item 42\""),
          "a resource template reader gets the captured variables");
    CHECK(responds(server,
                   "{\"jsonrpc\":\"2.0\",\"id\":15,\"method\":\"prompts/get\",\"params\":{\"name\":\"greet\","
                   "\"arguments\":{\"who\":\"ada\"}}}",
                   "hello ada"),
          "a prompt handler gets its arguments");
    CHECK(responds(server,
                   "{\"jsonrpc\":\"2.0\",\"id\":16,\"method\":\"completion/complete\",\"params\":{\"ref\":{\"type\":"
                   "\"ref/prompt\",\"name\":\"greet\"},\"argument\":{\"name\":\"who\",\"value\":\"p\"}}}",
                   "[\"paris\",\"porto\"]"),
          "an argument completer answers completion/complete");
    CHECK(responds(server,
                   "{\"jsonrpc\":\"2.0\",\"id\":17,\"method\":\"prompts/get\",\"params\":{\"name\":\"text_on_prompt\"}}",
                   "\"code\":-32603"),
          "ferrite_request_complete_text on a prompt fails the request");
    CHECK(atomic_load(&text_on_prompt_rc) == FERRITE_RESULT_INVALID_ARGUMENT,
          "ferrite_request_complete_text on a prompt returns INVALID_ARGUMENT");
}

static void check_bad_inputs(ferrite_server *server) {
    ferrite_server *none = NULL;
    CHECK(ferrite_server_new(NULL, 0, 0, NULL, 0, &none) == FERRITE_RESULT_NULL_POINTER && none == NULL,
          "ferrite_server_new with NULL info returns NULL_POINTER");
    CHECK(strstr(ferrite_last_error(), "info_json") != NULL, "the last error names the NULL argument");
    CHECK(ferrite_server_new(S("{\"name\":\"x\",\"version\":\"1\"}"), 0, NULL, 0, NULL) == FERRITE_RESULT_NULL_POINTER,
          "ferrite_server_new with NULL out returns NULL_POINTER");
    CHECK(ferrite_server_new(S("{\"name\":"), 0, NULL, 0, &none) == FERRITE_RESULT_INVALID_JSON,
          "truncated JSON returns INVALID_JSON");
    CHECK(ferrite_server_new(S("{\"name\":\"x\",\"version\":\"1\"}"), 7, NULL, 0, &none) ==
              FERRITE_RESULT_INVALID_ARGUMENT,
          "an unknown mode returns INVALID_ARGUMENT");
    CHECK(ferrite_server_enable_logging(NULL) == FERRITE_RESULT_NULL_POINTER, "a NULL server returns NULL_POINTER");

    int before = atomic_load(&finalized);
    CHECK(ferrite_server_add_tool(server, S("{\"name\":\"\xff\xfe\",\"inputSchema\":{\"type\":\"object\"}}"), tool_add,
                                  NULL, count_finalizer) == FERRITE_RESULT_INVALID_UTF8,
          "a descriptor with invalid UTF-8 returns INVALID_UTF8");
    CHECK(ferrite_server_add_tool(server, S("{\"name\":\"t\",\"inputSchema\":{\"type\":\"string\"}}"), tool_add, NULL,
                                  count_finalizer) == FERRITE_RESULT_INVALID_ARGUMENT,
          "a tool whose input schema is not an object schema is refused");
    CHECK(ferrite_server_add_tool(server, S(TOOL("t")), NULL, NULL, count_finalizer) == FERRITE_RESULT_NULL_POINTER,
          "a NULL callback returns NULL_POINTER");
    CHECK(atomic_load(&finalized) == before + 3, "a failed registration runs the finalizer once, at once");

    char *out = NULL;
    CHECK(ferrite_server_handle_raw(server, S("\xc3\x28"), &out, NULL) == FERRITE_RESULT_INVALID_UTF8 && out == NULL,
          "handle_raw with invalid UTF-8 returns INVALID_UTF8");
    CHECK(responds(server, "{not json", "\"code\":-32700"), "handle_raw with bad JSON answers a parse error");
    CHECK(ferrite_server_remove_tool(server, S("no-such-tool")) == FERRITE_RESULT_NOT_FOUND,
          "removing an unknown tool returns NOT_FOUND");
    CHECK(ferrite_request_complete(NULL, S("{}")) == FERRITE_RESULT_NULL_POINTER,
          "completing a NULL request returns NULL_POINTER");
    CHECK(ferrite_request_log(NULL, 99, S("1"), NULL, 0, NULL) == FERRITE_RESULT_NULL_POINTER,
          "logging on a NULL request returns NULL_POINTER");
    CHECK(strcmp(ferrite_result_message(FERRITE_RESULT_INVALID_UTF8), "a string argument was not valid UTF-8") == 0,
          "ferrite_result_message renders a code");
    CHECK(strcmp(ferrite_result_message(424242), "unknown result code") == 0,
          "ferrite_result_message tolerates unknown codes");
    CHECK(ferrite_testing_panic() == FERRITE_RESULT_PANIC, "a panic inside the boundary returns PANIC");
    CHECK(strstr(ferrite_last_error(), "deliberate panic") != NULL, "the last error carries the panic message");
    CHECK(ferrite_abi_version() == FERRITE_ABI_VERSION, "the library's ABI version matches the header");
}

static void check_json_helpers(void) {
    const char *doc = "{\"a\":{\"b\":[1,\"two\",{\"c\":-7}]},\"s\":\"x\\u0000y\"}";
    char *out = NULL;
    size_t len = 0;
    int64_t n = 0;
    CHECK(ferrite_json_get(doc, strlen(doc), S("/a/b/2"), &out, &len) == FERRITE_RESULT_OK && strcmp(out, "{\"c\":-7}") == 0 &&
              len == 8,
          "ferrite_json_get returns the value at a JSON Pointer");
    ferrite_string_free(out);
    CHECK(ferrite_json_get_i64(doc, strlen(doc), S("/a/b/2/c"), &n) == FERRITE_RESULT_OK && n == -7,
          "ferrite_json_get_i64 reads an integer");
    CHECK(ferrite_json_get_i64(doc, strlen(doc), S("/a/b/1"), &n) == FERRITE_RESULT_INVALID_ARGUMENT,
          "ferrite_json_get_i64 refuses a string");
    CHECK(ferrite_json_get(doc, strlen(doc), S("/nope"), &out, NULL) == FERRITE_RESULT_NOT_FOUND,
          "a missing pointer returns NOT_FOUND");
    out = NULL;
    CHECK(ferrite_json_get_string(doc, strlen(doc), S("/s"), &out, &len) == FERRITE_RESULT_OK && len == 3 &&
              out[0] == 'x' && out[1] == '\0' && out[2] == 'y',
          "ferrite_json_get_string keeps an embedded NUL and its exact length");
    ferrite_string_free(out);
    const char *odd = "{\"a/b\":{\"m~n\":[10, 20]}, \"arr\": [ 1 , { \"k\" : \"v\" } ]}";
    CHECK(ferrite_json_get_i64(odd, strlen(odd), S("/a~1b/m~0n/1"), &n) == FERRITE_RESULT_OK && n == 20,
          "JSON Pointer escapes ~1 and ~0 are decoded");
    CHECK(ferrite_json_get_i64(odd, strlen(odd), S("/a~1b/m~0n/01"), &n) == FERRITE_RESULT_NOT_FOUND,
          "an array index with a leading zero matches nothing");
    out = NULL;
    CHECK(ferrite_json_get(odd, strlen(odd), S("/arr/1"), &out, NULL) == FERRITE_RESULT_OK &&
              strcmp(out, "{ \"k\" : \"v\" }") == 0,
          "ferrite_json_get returns the value's own text");
    ferrite_string_free(out);
    CHECK(ferrite_json_get(S("{\"a\":1} trailing"), S("/a"), &out, NULL) == FERRITE_RESULT_INVALID_JSON,
          "a document with trailing garbage returns INVALID_JSON");
    CHECK(ferrite_json_quote(S("a\"b\n"), &out, &len) == FERRITE_RESULT_OK && strcmp(out, "\"a\\\"b\\n\"") == 0,
          "ferrite_json_quote escapes");
    ferrite_string_free(out);
}

static void check_lifecycle(void) {
    atomic_store(&finalized, 0);
    ferrite_server *server = new_server();
    int owned = register_all(server);
    CHECK(atomic_load(&finalized) == 0, "no finalizer runs while handlers are registered");
    ferrite_server_add_tool(server, S(TOOL("add")), tool_add, NULL, count_finalizer);
    CHECK(atomic_load(&finalized) == 1, "replacing a tool runs the old finalizer once");
    CHECK(ferrite_server_remove_tool(server, S("echo")) == FERRITE_RESULT_OK && atomic_load(&finalized) == 2,
          "removing a tool runs its finalizer once");
    CHECK(ferrite_server_close(server) == FERRITE_RESULT_OK, "ferrite_server_close succeeds");
    /* owned registrations plus the replacement "add" */
    CHECK(atomic_load(&finalized) == owned + 1, "close runs every remaining finalizer exactly once");
    CHECK(ferrite_server_close(server) == FERRITE_RESULT_OK, "closing twice is a no-op");
    CHECK(ferrite_server_add_tool(server, S(TOOL("x")), tool_add, NULL, count_finalizer) == FERRITE_RESULT_CLOSED,
          "registering on a closed server returns CLOSED");
    CHECK(atomic_load(&finalized) == owned + 2, "even then the finalizer runs once");
    char *out = NULL;
    CHECK(ferrite_server_handle_raw(server, S("{}"), &out, NULL) == FERRITE_RESULT_CLOSED,
          "handle_raw on a closed server returns CLOSED");
    ferrite_server_free(server);
    CHECK(atomic_load(&finalized) == owned + 2, "free after close runs no finalizer again");
}

/* park: holds the request without completing it, to close the server under it. */
static _Atomic(ferrite_request *) parked;
static uint32_t tool_park(void *u, ferrite_request *req) {
    (void)u;
    atomic_store(&parked, req);
    return FERRITE_RESULT_PENDING;
}

typedef struct {
    ferrite_server *server;
    ferrite_result rc;
} raw_call;

static void *call_park(void *arg) {
    raw_call *c = arg;
    char *out = NULL;
    const char *msg = CALL_TOOL(1, "park", "{}");
    c->rc = ferrite_server_handle_raw(c->server, msg, strlen(msg), &out, NULL);
    ferrite_string_free(out);
    return NULL;
}

static void check_close_with_pending_request(void) {
    atomic_store(&finalized, 0);
    atomic_store(&parked, NULL);
    ferrite_server *server = new_server();
    ferrite_server_add_tool(server, S(TOOL("park")), tool_park, NULL, count_finalizer);
    raw_call c = {server, FERRITE_RESULT_OK};
    pthread_t caller;
    pthread_create(&caller, NULL, call_park, &c);
    for (int i = 0; i < 5000 && atomic_load(&parked) == NULL; i++) {
        sleep_ms(1);
    }
    CHECK(atomic_load(&parked) != NULL, "the parked handler was called");
    CHECK(ferrite_server_close(server) == FERRITE_RESULT_OK, "close succeeds with a request still pending");
    pthread_join(caller, NULL);
    CHECK(c.rc == FERRITE_RESULT_CLOSED, "a handle_raw waiting on a pending request returns CLOSED when closed");
    CHECK(atomic_load(&finalized) == 1, "close runs the finalizer even with a request pending");
    if (atomic_load(&parked) != NULL) {
        CHECK(ferrite_request_complete(atomic_load(&parked), S("{\"content\":[]}")) == FERRITE_RESULT_OK,
              "completing a request after its server closed is a harmless no-op that frees it");
    }
    ferrite_server_free(server);
}

typedef struct {
    ferrite_server *server;
    ferrite_result rc;
} serve_call;

static void *serve_thread(void *arg) {
    serve_call *c = arg;
    c->rc = ferrite_server_serve_stdio(c->server);
    return NULL;
}

/* Close from this thread while another serves; serve_stdio must return CLOSED. */
static int serve_until_close(void) {
    serve_call c = {new_server(), FERRITE_RESULT_OK};
    register_all(c.server);
    pthread_t t;
    pthread_create(&t, NULL, serve_thread, &c);
    while (!atomic_load(&close_requested)) {
        sleep_ms(1);
    }
    ferrite_result rc = ferrite_server_close(c.server);
    pthread_join(t, NULL);
    ferrite_server_free(c.server);
    fprintf(stderr, "abi_test: close %s, serve_stdio %s\n", ferrite_result_message(rc), ferrite_result_message(c.rc));
    return rc == FERRITE_RESULT_OK && c.rc == FERRITE_RESULT_CLOSED ? 0 : 1;
}

/* ---------------------------------------------------------------- 2026-07-28 */

#define ENVELOPE(caps)                                                                                          \
    "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\",\"io.modelcontextprotocol/"         \
    "clientCapabilities\":" caps "}"
#define MODERN_CALL(id, name, caps, extra)                                                                       \
    "{\"jsonrpc\":\"2.0\",\"id\":" #id ",\"method\":\"tools/call\",\"params\":{\"name\":\"" name "\","          \
    "\"arguments\":{}," extra ENVELOPE(caps) "}}"
#define MODERN(id, method, params, caps)                                                                         \
    "{\"jsonrpc\":\"2.0\",\"id\":" #id ",\"method\":\"" method "\",\"params\":{" params ENVELOPE(caps) "}}"
#define NAME_FORM "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"}},\"required\":[\"name\"]}"
#define ASK_NAME \
    "{\"user_name\":{\"method\":\"elicitation/create\",\"params\":{\"message\":\"Name?\",\"requestedSchema\":" NAME_FORM "}}}"
#define KEY_A "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
#define KEY_B "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=" /* the same 32 bytes as KEY_A, base64 */
#define KEY_C "ffeeddccbbaa99887766554433221100ffeeddccbbaa99887766554433221100"

/* What the first call of ask_name saw (1 = as expected). */
static atomic_int first_call_checks = -1;

/* ask_name: MRTR through ferrite_request_input_required. The first call asks user_name,
 * carrying state "step-1"; the retry reports the answer and everything the request says. */
static uint32_t tool_ask_name(void *u, ferrite_request *req) {
    (void)u;
    ferrite_str answer = {"x", 1}, state = {"x", 1}, all = {NULL, 0};
    bool resubmission = true, modern = false;
    if (ferrite_request_input_response(req, S("user_name"), &answer) != FERRITE_RESULT_OK ||
        ferrite_request_request_state(req, &state) != FERRITE_RESULT_OK ||
        ferrite_request_is_resubmission(req, &resubmission) != FERRITE_RESULT_OK ||
        ferrite_request_is_modern(req, &modern) != FERRITE_RESULT_OK ||
        ferrite_request_input_responses(req, &all) != FERRITE_RESULT_OK) {
        return FERRITE_RESULT_HANDLER_FAILED;
    }
    if (answer.ptr == NULL) {
        atomic_store(&first_call_checks, answer.len == 0 && state.ptr == NULL && state.len == 0 && !resubmission &&
                                             modern && all.len == 2 && memcmp(all.ptr, "{}", 2) == 0);
        return ferrite_request_input_required(req, S(ASK_NAME), S("step-1"));
    }
    char *name = NULL, text[512];
    ferrite_json_get_string(answer.ptr, answer.len, S("/content/name"), &name, NULL);
    int n = snprintf(text, sizeof text, "hello %s state=%.*s resubmission=%d responses=%.*s", name ? name : "?",
                     (int)state.len, state.ptr ? state.ptr : "", resubmission, (int)all.len, all.ptr);
    ferrite_string_free(name);
    return ferrite_request_complete_text(req, text, (size_t)n, NULL, 0);
}

/* ask_roots: MRTR through ferrite_request_complete and the wire shape. */
static uint32_t tool_ask_roots(void *u, ferrite_request *req) {
    (void)u;
    ferrite_str roots;
    ferrite_request_input_response(req, S("client_roots"), &roots);
    if (roots.ptr == NULL) {
        return ferrite_request_complete(
            req, S("{\"resultType\":\"input_required\",\"inputRequests\":{\"client_roots\":{\"method\":\"roots/list\"}}}"));
    }
    return ferrite_request_complete_text(req, roots.ptr, roots.len, NULL, 0);
}

/* ir_bad: ferrite_request_input_required with a bad argument, picked by "case". */
#define IR_CASES 6
static atomic_int ir_rc[IR_CASES];
static char ir_error[IR_CASES][256];
static uint32_t tool_ir_bad(void *u, ferrite_request *req) {
    (void)u;
    int64_t c = -1;
    ferrite_request_argument_i64(req, S("/case"), &c);
    ferrite_result rc;
    switch (c) {
    case 0:
        rc = ferrite_request_input_required(req, S("{\"k\":{\"method\":\"tools/call\",\"params\":{}}}"), NULL, 0);
        break;
    case 1:
        rc = ferrite_request_input_required(req, NULL, 0, NULL, 0);
        break;
    case 2:
        rc = ferrite_request_input_required(req, S("{\"k\":"), NULL, 0);
        break;
    case 3:
        rc = ferrite_request_input_required(req, S("[1]"), NULL, 0);
        break;
    case 4:
        rc = ferrite_request_input_required(req, NULL, 0, "\xff\xfe", 2);
        break;
    case 5:
        rc = ferrite_request_input_required(req, "{\"\xff\":1}", 6, NULL, 0);
        break;
    default:
        return FERRITE_RESULT_HANDLER_FAILED;
    }
    atomic_store(&ir_rc[c], (int)rc);
    snprintf(ir_error[c], sizeof ir_error[c], "%s", ferrite_last_error());
    /* The rejected reply settled the request: a second completion is refused. */
    return ferrite_request_complete_text(req, S("late"), NULL, 0) == FERRITE_RESULT_ALREADY_COMPLETED
               ? FERRITE_RESULT_OK
               : FERRITE_RESULT_HANDLER_FAILED;
}

/* modern_ctx: what the request says about its revision, an HTTP header and an extension; and
 * how the new getters treat bad arguments (1 = every code as documented). */
static atomic_int getter_codes = -1;
static uint32_t tool_modern_ctx(void *u, ferrite_request *req) {
    (void)u;
    bool modern = false, b;
    ferrite_str header = {"x", 1}, ext = {"x", 1}, s;
    if (ferrite_request_is_modern(req, &modern) != FERRITE_RESULT_OK ||
        ferrite_request_header(req, S("mcp-METHOD"), &header) != FERRITE_RESULT_OK ||
        ferrite_request_client_extension(req, S("io.example/ext"), &ext) != FERRITE_RESULT_OK) {
        return FERRITE_RESULT_HANDLER_FAILED;
    }
    atomic_store(&getter_codes,
                 ferrite_request_is_modern(req, NULL) == FERRITE_RESULT_NULL_POINTER &&
                     ferrite_request_is_resubmission(req, NULL) == FERRITE_RESULT_NULL_POINTER &&
                     ferrite_request_header(req, "\xff", 1, &s) == FERRITE_RESULT_INVALID_UTF8 &&
                     ferrite_request_header(req, NULL, 0, &s) == FERRITE_RESULT_NULL_POINTER &&
                     ferrite_request_header(req, S("x"), NULL) == FERRITE_RESULT_NULL_POINTER &&
                     ferrite_request_input_response(req, NULL, 0, &s) == FERRITE_RESULT_NULL_POINTER &&
                     ferrite_request_input_response(req, "\xc3\x28", 2, &s) == FERRITE_RESULT_INVALID_UTF8 &&
                     ferrite_request_input_response(req, S("k"), NULL) == FERRITE_RESULT_NULL_POINTER &&
                     ferrite_request_input_responses(req, NULL) == FERRITE_RESULT_NULL_POINTER &&
                     ferrite_request_request_state(req, NULL) == FERRITE_RESULT_NULL_POINTER &&
                     ferrite_request_client_extension(req, NULL, 0, &s) == FERRITE_RESULT_NULL_POINTER &&
                     ferrite_request_client_extension(req, "\xff", 1, &s) == FERRITE_RESULT_INVALID_UTF8 &&
                     ferrite_request_client_extension(req, S("x/y"), NULL) == FERRITE_RESULT_NULL_POINTER &&
                     ferrite_request_is_modern(NULL, &b) == FERRITE_RESULT_NULL_POINTER);
    char text[256];
    int n = snprintf(text, sizeof text, "modern=%d header=%.*s ext=%.*s", modern, header.ptr ? (int)header.len : 4,
                     header.ptr ? header.ptr : "none", ext.ptr ? (int)ext.len : 4, ext.ptr ? ext.ptr : "none");
    return ferrite_request_complete_text(req, text, (size_t)n, NULL, 0);
}

/* Custom methods. */
static atomic_int method_finalized;
static void count_method_finalizer(void *user_data) {
    (void)user_data;
    atomic_fetch_add(&method_finalized, 1);
}
static uint32_t method_echo(void *u, ferrite_request *req, ferrite_str params) {
    (void)u;
    ferrite_str text = {"", 0}, args;
    ferrite_request_argument_string(req, S("/text"), &text);
    ferrite_request_arguments(req, &args);
    char *quoted = NULL, buf[512];
    ferrite_json_quote(text.ptr, text.len, &quoted, NULL);
    bool same = args.len == params.len && memcmp(args.ptr, params.ptr, params.len) == 0;
    int n = snprintf(buf, sizeof buf, "{\"echo\":%s,\"params\":%.*s,\"same\":%s}", quoted, (int)params.len, params.ptr,
                     same ? "true" : "false");
    ferrite_string_free(quoted);
    return ferrite_request_complete(req, buf, (size_t)n);
}
static atomic_int method_bad_rc, method_ir_rc, method_text_rc;
static uint32_t method_bad(void *u, ferrite_request *req, ferrite_str params) {
    (void)u, (void)params;
    atomic_store(&method_bad_rc, (int)ferrite_request_complete(req, S("[1]")));
    return FERRITE_RESULT_OK;
}
static uint32_t method_ir(void *u, ferrite_request *req, ferrite_str params) {
    (void)u, (void)params;
    atomic_store(&method_ir_rc, (int)ferrite_request_input_required(req, S(ASK_NAME), NULL, 0));
    return FERRITE_RESULT_OK;
}
static uint32_t method_text(void *u, ferrite_request *req, ferrite_str params) {
    (void)u, (void)params;
    atomic_store(&method_text_rc, (int)ferrite_request_complete_text(req, S("t"), NULL, 0));
    return FERRITE_RESULT_OK;
}
static uint32_t method_rpc(void *u, ferrite_request *req, ferrite_str params) {
    (void)u, (void)params;
    return ferrite_request_fail_rpc(req, -32001, S("custom failure"), NULL, 0);
}

static void *method_later_thread(void *arg) {
    sleep_ms(20);
    ferrite_request_complete(arg, S("{\"later\":true}"));
    return NULL;
}
static uint32_t method_later(void *u, ferrite_request *req, ferrite_str params) {
    (void)u, (void)params;
    pthread_t t;
    if (pthread_create(&t, NULL, method_later_thread, req) != 0) {
        return FERRITE_RESULT_HANDLER_FAILED;
    }
    pthread_detach(t);
    return FERRITE_RESULT_PENDING;
}

#define SKILL_MD                                                                                                   \
    "---\\nname: add-numbers\\ndescription: Add two integers with the add tool and report the sum\\n---\\n\\n# Add " \
    "numbers\\n\\nCall the add tool with integer arguments a and b, then report the sum.\\nWorked examples are in "    \
    "references/EXAMPLES.md.\\n"
#define SKILL_EXAMPLES "# Examples\\n\\n- add(a=2, b=3) returns 5\\n- add(a=-4, b=10) returns 6\\n"

/* Tools and methods of the 2026-07-28 checks; returns how many method finalizers it handed over. */
static int register_modern(ferrite_server *server) {
    int methods = 0;
    if (ferrite_server_add_tool(server, S(TOOL("ask_name")), tool_ask_name, NULL, NULL) != FERRITE_RESULT_OK ||
        ferrite_server_add_tool(server, S(TOOL("ask_roots")), tool_ask_roots, NULL, NULL) != FERRITE_RESULT_OK ||
        ferrite_server_add_tool(server, S("{\"name\":\"ir_bad\",\"inputSchema\":{\"type\":\"object\"}}"), tool_ir_bad,
                                NULL, NULL) != FERRITE_RESULT_OK ||
        ferrite_server_add_tool(server, S(TOOL("modern_ctx")), tool_modern_ctx, NULL, NULL) != FERRITE_RESULT_OK) {
        fprintf(stderr, "modern registration failed: %s\n", ferrite_last_error());
        exit(2);
    }
    static const struct {
        const char *name;
        ferrite_method_callback fn;
    } m[] = {{"com.example/echo", method_echo}, {"com.example/bad", method_bad}, {"com.example/ir", method_ir},
             {"com.example/text", method_text}, {"com.example/rpc", method_rpc}, {"com.example/later", method_later}};
    for (size_t i = 0; i < sizeof m / sizeof m[0]; i++) {
        methods++;
        if (ferrite_server_add_method(server, m[i].name, strlen(m[i].name), m[i].fn, NULL, count_method_finalizer) !=
            FERRITE_RESULT_OK) {
            fprintf(stderr, "add_method %s: %s\n", m[i].name, ferrite_last_error());
            exit(2);
        }
    }
    return methods;
}

/* The text of the first content block of a tool result (caller frees), or NULL. */
static char *tool_text(const char *response) {
    char *text = NULL;
    if (!response ||
        ferrite_json_get_string(response, strlen(response), S("/result/content/0/text"), &text, NULL) != FERRITE_RESULT_OK) {
        return NULL;
    }
    return text;
}

static bool text_is(ferrite_server *server, const char *msg, const char *expected) {
    char *out = call(server, msg);
    char *text = tool_text(out);
    bool ok = text && strcmp(text, expected) == 0;
    if (!ok) {
        printf("# sent:     %s\n# got:      %s\n# expected: %s\n", msg, out ? out : "(call failed)", expected);
    }
    ferrite_string_free(text);
    ferrite_string_free(out);
    return ok;
}

/* The integer at `pointer` in `json`, or INT64_MIN. */
static int64_t int_at(const char *json, const char *pointer) {
    int64_t n = INT64_MIN;
    if (!json || ferrite_json_get_i64(json, strlen(json), pointer, strlen(pointer), &n) != FERRITE_RESULT_OK) {
        return INT64_MIN;
    }
    return n;
}

/* Whether the response to `msg` contains both fragments. */
static bool responds_both(ferrite_server *server, const char *msg, const char *a, const char *b) {
    char *out = call(server, msg);
    bool ok = out && strstr(out, a) && strstr(out, b);
    if (!ok) {
        printf("# sent:     %s\n# got:      %s\n# expected: %s and %s\n", msg, out ? out : "(call failed)", a, b);
    }
    ferrite_string_free(out);
    return ok;
}

/* A growable string. */
typedef struct {
    char *p;
    size_t len, cap;
} buf_t;

static void buf_cat(buf_t *b, const char *s) {
    size_t n = strlen(s);
    if (b->len + n + 1 > b->cap) {
        b->cap = (b->len + n + 1) * 2;
        b->p = realloc(b->p, b->cap);
        if (!b->p) {
            abort();
        }
    }
    memcpy(b->p + b->len, s, n + 1);
    b->len += n;
}

/* Round one of ask_name: the sealed state (caller frees), or NULL. */
static char *ask_name_round_one(ferrite_server *server, bool check) {
    char *r = call(server, MODERN_CALL(1, "ask_name", "{\"elicitation\":{}}", ""));
    char *state = NULL, *type = NULL, *method = NULL;
    if (r) {
        ferrite_json_get_string(r, strlen(r), S("/result/requestState"), &state, NULL);
        ferrite_json_get_string(r, strlen(r), S("/result/resultType"), &type, NULL);
        ferrite_json_get_string(r, strlen(r), S("/result/inputRequests/user_name/method"), &method, NULL);
    }
    if (check) {
        CHECK(type && strcmp(type, "input_required") == 0 && method && strcmp(method, "elicitation/create") == 0,
              "an MRTR tool's first reply is resultType input_required with its inputRequests");
        CHECK(state && strlen(state) > 20 && !strstr(state, "step-1"),
              "the requestState leaves the server sealed (not the handler's plaintext)");
        CHECK(atomic_load(&first_call_checks) == 1,
              "on a first call: no input response (NULL), no request state, not a resubmission, modern, responses {}");
    }
    if (!state) {
        printf("# round one: %s\n", r ? r : "(call failed)");
    }
    ferrite_string_free(type);
    ferrite_string_free(method);
    ferrite_string_free(r);
    return state;
}

/* Retry ask_name with an answer and `state`; the whole response (caller frees). */
static char *ask_name_retry(ferrite_server *server, const char *state) {
    buf_t b = {0};
    buf_cat(&b, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"ask_name\",\"arguments\":{},"
                "\"inputResponses\":{\"user_name\":{\"action\":\"accept\",\"content\":{\"name\":\"Ada\"}}},"
                "\"requestState\":\"");
    buf_cat(&b, state);
    buf_cat(&b, "\"," ENVELOPE("{\"elicitation\":{}}") "}}");
    char *r = call(server, b.p);
    free(b.p);
    return r;
}

static void check_modern_input(ferrite_server *server) {
    char *r = call(server, "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/list\",\"params\":{\"_meta\":{"
                           "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"}}}");
    CHECK(int_at(r, "/error/code") == -32602 && int_at(r, "/id") == 9,
          "handle_raw: an envelope without clientCapabilities is -32602");
    ferrite_string_free(r);
    r = call(server, "{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"tools/list\",\"params\":{\"_meta\":{"
                     "\"io.modelcontextprotocol/protocolVersion\":\"1999-01-01\","
                     "\"io.modelcontextprotocol/clientCapabilities\":{}}}}");
    char *requested = NULL, *supported = NULL;
    if (r) {
        ferrite_json_get_string(r, strlen(r), S("/error/data/requested"), &requested, NULL);
        ferrite_json_get_string(r, strlen(r), S("/error/data/supported/0"), &supported, NULL);
    }
    CHECK(int_at(r, "/error/code") == -32022 && requested && strcmp(requested, "1999-01-01") == 0 && supported &&
              strcmp(supported, "2026-07-28") == 0,
          "handle_raw: an unsupported version is -32022 with data.supported and data.requested");
    ferrite_string_free(requested);
    ferrite_string_free(supported);
    ferrite_string_free(r);
    r = call(server, MODERN(11, "ping", "", "{}"));
    CHECK(int_at(r, "/error/code") == -32601, "handle_raw: ping (removed in 2026-07-28) with an envelope is -32601");
    ferrite_string_free(r);
    r = call(server, "[" MODERN(12, "tools/list", "", "{}") "]");
    CHECK(int_at(r, "/error/code") == -32600, "handle_raw: a batch holding an enveloped request is -32600");
    ferrite_string_free(r);
    r = call(server, MODERN(13, "tools/list", "", "{}"));
    char *type = NULL;
    if (r) {
        ferrite_json_get_string(r, strlen(r), S("/result/resultType"), &type, NULL);
    }
    CHECK(type && strcmp(type, "complete") == 0, "handle_raw: the connection still serves after the refusals");
    ferrite_string_free(type);
    ferrite_string_free(r);
}

static void check_mrtr(ferrite_server *server) {
    char *state = ask_name_round_one(server, true);
    char *r = state ? ask_name_retry(server, state) : NULL;
    char *text = tool_text(r);
    CHECK(text && strcmp(text, "hello Ada state=step-1 resubmission=1 responses={\"user_name\":{\"action\":\"accept\","
                               "\"content\":{\"name\":\"Ada\"}}}") == 0,
          "the retry with inputResponses and the sealed requestState completes; the handler reads its plaintext "
          "state and the answers");
    if (!text) {
        printf("# retry: %s\n", r ? r : "(call failed)");
    }
    ferrite_string_free(text);
    ferrite_string_free(r);
    if (state) {
        size_t n = strlen(state);
        state[n / 2] = state[n / 2] == 'A' ? 'B' : 'A';
        r = ask_name_retry(server, state);
        CHECK(int_at(r, "/error/code") == -32602, "a tampered requestState is refused with -32602");
        ferrite_string_free(r);
    }
    ferrite_string_free(state);

    r = call(server, MODERN_CALL(3, "ask_roots", "{\"roots\":{}}", ""));
    char *method = NULL;
    if (r) {
        ferrite_json_get_string(r, strlen(r), S("/result/inputRequests/client_roots/method"), &method, NULL);
    }
    CHECK(method && strcmp(method, "roots/list") == 0,
          "completing with {\"resultType\":\"input_required\",...} through ferrite_request_complete still works");
    ferrite_string_free(method);
    ferrite_string_free(r);
    CHECK(text_is(server,
                  MODERN_CALL(4, "ask_roots", "{\"roots\":{}}",
                              "\"inputResponses\":{\"client_roots\":{\"roots\":[{\"uri\":\"file:///a\"}]}},"),
                  "{\"roots\":[{\"uri\":\"file:///a\"}]}"),
          "ferrite_request_input_response gives the bare result the client returned");

    const int expected[IR_CASES] = {FERRITE_RESULT_INVALID_ARGUMENT, FERRITE_RESULT_INVALID_ARGUMENT,
                                    FERRITE_RESULT_INVALID_JSON,     FERRITE_RESULT_INVALID_ARGUMENT,
                                    FERRITE_RESULT_INVALID_UTF8,     FERRITE_RESULT_INVALID_UTF8};
    const char *names[IR_CASES] = {"an unknown method in the input requests is INVALID_ARGUMENT",
                                   "both arguments NULL is INVALID_ARGUMENT",
                                   "malformed input requests are INVALID_JSON",
                                   "input requests that are not an object are INVALID_ARGUMENT",
                                   "a request state that is not UTF-8 is INVALID_UTF8",
                                   "input requests that are not UTF-8 are INVALID_UTF8"};
    for (int c = 0; c < IR_CASES; c++) {
        char msg[512];
        snprintf(msg, sizeof msg,
                 "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":{\"name\":\"ir_bad\","
                 "\"arguments\":{\"case\":%d}," ENVELOPE("{}") "}}",
                 20 + c, c);
        atomic_store(&ir_rc[c], -1);
        r = call(server, msg);
        CHECK(atomic_load(&ir_rc[c]) == expected[c] && int_at(r, "/error/code") == -32603, names[c]);
        ferrite_string_free(r);
    }
    CHECK(strstr(ir_error[0], "tools/call") != NULL && strstr(ir_error[0], "elicitation/create") != NULL,
          "the last error names the unknown method and the known ones");
    CHECK(strstr(ir_error[1], "NULL") != NULL, "the last error says both were NULL");
    ferrite_str s;
    bool b;
    CHECK(ferrite_request_input_required(NULL, S(ASK_NAME), NULL, 0) == FERRITE_RESULT_NULL_POINTER &&
              ferrite_request_input_response(NULL, S("k"), &s) == FERRITE_RESULT_NULL_POINTER &&
              ferrite_request_input_responses(NULL, &s) == FERRITE_RESULT_NULL_POINTER &&
              ferrite_request_request_state(NULL, &s) == FERRITE_RESULT_NULL_POINTER &&
              ferrite_request_is_resubmission(NULL, &b) == FERRITE_RESULT_NULL_POINTER &&
              ferrite_request_client_extension(NULL, S("x/y"), &s) == FERRITE_RESULT_NULL_POINTER &&
              ferrite_request_header(NULL, S("x"), &s) == FERRITE_RESULT_NULL_POINTER,
          "every new request function on a NULL request is NULL_POINTER");

    CHECK(text_is(server, MODERN_CALL(30, "modern_ctx", "{\"extensions\":{\"io.example/ext\":{\"x\":1}}}", ""),
                  "modern=1 header=none ext={\"x\":1}"),
          "is_modern, header (NULL off HTTP), client_extension read a 2026-07-28 request");
    CHECK(atomic_load(&getter_codes) == 1, "the new getters return NULL_POINTER / INVALID_UTF8 for bad arguments");
    CHECK(text_is(server, CALL_TOOL(31, "modern_ctx", "{}"), "modern=0 header=none ext=none"),
          "a handshake-era request is not modern and declares no extension");
}

static void check_methods(ferrite_server *server) {
    CHECK(responds(server,
                   "{\"jsonrpc\":\"2.0\",\"id\":40,\"method\":\"com.example/echo\",\"params\":{\"text\":\"hi\"}}",
                   "\"result\":{\"echo\":\"hi\",\"params\":{\"text\":\"hi\"},\"same\":true}"),
          "a custom method gets its params (JSON and on the request) and completes with an object");
    CHECK(responds(server, MODERN(41, "com.example/echo", "\"text\":\"yo\",", "{}"), "\"resultType\":\"complete\""),
          "a custom method serves 2026-07-28 requests too (params without _meta; resultType added)");
    CHECK(responds(server, MODERN(42, "com.example/echo", "\"text\":\"yo\",", "{}"), "\"params\":{\"text\":\"yo\"}"),
          "the params a custom method gets exclude _meta");
    CHECK(responds(server, "{\"jsonrpc\":\"2.0\",\"id\":43,\"method\":\"com.example/bad\"}", "\"code\":-32603") &&
              atomic_load(&method_bad_rc) == FERRITE_RESULT_INVALID_ARGUMENT,
          "completing a custom method with a non-object is INVALID_ARGUMENT and -32603");
    CHECK(responds(server, "{\"jsonrpc\":\"2.0\",\"id\":44,\"method\":\"com.example/ir\"}", "\"code\":-32603") &&
              atomic_load(&method_ir_rc) == FERRITE_RESULT_INVALID_ARGUMENT,
          "a custom method cannot reply input required (INVALID_ARGUMENT)");
    CHECK(responds(server, "{\"jsonrpc\":\"2.0\",\"id\":45,\"method\":\"com.example/text\"}", "\"code\":-32603") &&
              atomic_load(&method_text_rc) == FERRITE_RESULT_INVALID_ARGUMENT,
          "ferrite_request_complete_text on a custom method is INVALID_ARGUMENT");
    CHECK(responds(server, "{\"jsonrpc\":\"2.0\",\"id\":46,\"method\":\"com.example/rpc\"}", "\"code\":-32001"),
          "ferrite_request_fail_rpc from a custom method gives its error");
    CHECK(responds(server, "{\"jsonrpc\":\"2.0\",\"id\":47,\"method\":\"com.example/later\"}", "{\"later\":true}"),
          "a custom method returning PENDING completes later from another thread");
    CHECK(responds(server, "{\"jsonrpc\":\"2.0\",\"id\":48,\"method\":\"com.example/none\"}", "\"code\":-32601"),
          "an unregistered method is still -32601");

    int before = atomic_load(&method_finalized);
    CHECK(ferrite_server_add_method(server, S("tools/call"), method_echo, NULL, count_method_finalizer) ==
                  FERRITE_RESULT_INVALID_ARGUMENT &&
              atomic_load(&method_finalized) == before + 1,
          "add_method refuses a core method (INVALID_ARGUMENT) and runs the finalizer once, at once");
    CHECK(ferrite_server_add_method(server, S("x/y"), NULL, NULL, count_method_finalizer) ==
                  FERRITE_RESULT_NULL_POINTER &&
              atomic_load(&method_finalized) == before + 2,
          "add_method with a NULL callback is NULL_POINTER and runs the finalizer once");
    CHECK(ferrite_server_add_method(NULL, S("x/y"), method_echo, NULL, count_method_finalizer) ==
                  FERRITE_RESULT_NULL_POINTER &&
              atomic_load(&method_finalized) == before + 3,
          "add_method on a NULL server is NULL_POINTER and runs the finalizer once");
    CHECK(ferrite_server_add_method(server, "\xff", 1, method_echo, NULL, count_method_finalizer) ==
                  FERRITE_RESULT_INVALID_UTF8 &&
              atomic_load(&method_finalized) == before + 4,
          "add_method with a non-UTF-8 name is INVALID_UTF8 and runs the finalizer once");
    CHECK(ferrite_server_add_method(server, S("com.example/tmp"), method_echo, NULL, count_method_finalizer) ==
                  FERRITE_RESULT_OK &&
              ferrite_server_add_method(server, S("com.example/tmp"), method_echo, NULL, count_method_finalizer) ==
                  FERRITE_RESULT_OK &&
              atomic_load(&method_finalized) == before + 5,
          "replacing a custom method runs the old finalizer once");
    CHECK(ferrite_server_remove_method(server, S("com.example/tmp")) == FERRITE_RESULT_OK &&
              atomic_load(&method_finalized) == before + 6,
          "removing a custom method runs its finalizer once");
    CHECK(ferrite_server_remove_method(server, S("com.example/tmp")) == FERRITE_RESULT_NOT_FOUND &&
              atomic_load(&method_finalized) == before + 6,
          "removing it again is NOT_FOUND and runs nothing");
    CHECK(ferrite_server_remove_method(server, NULL, 0) == FERRITE_RESULT_NULL_POINTER &&
              ferrite_server_remove_method(server, "\xff", 1) == FERRITE_RESULT_INVALID_UTF8 &&
              ferrite_server_remove_method(NULL, S("x/y")) == FERRITE_RESULT_NULL_POINTER,
          "remove_method: NULL name or server is NULL_POINTER, a non-UTF-8 name INVALID_UTF8");
}

static void check_settings(ferrite_server *server) {
    /* Request-state keys and TTL. */
    CHECK(ferrite_server_set_request_state_keys(NULL, S(KEY_A), NULL, 0) == FERRITE_RESULT_NULL_POINTER,
          "set_request_state_keys on a NULL server is NULL_POINTER");
    CHECK(ferrite_server_set_request_state_keys(server, NULL, 0, NULL, 0) == FERRITE_RESULT_NULL_POINTER,
          "set_request_state_keys without a current key is NULL_POINTER");
    CHECK(ferrite_server_set_request_state_keys(server, "\xff", 1, NULL, 0) == FERRITE_RESULT_INVALID_UTF8,
          "a non-UTF-8 key is INVALID_UTF8");
    CHECK(ferrite_server_set_request_state_keys(server, S("secret-but-short"), NULL, 0) ==
                  FERRITE_RESULT_INVALID_ARGUMENT &&
              strstr(ferrite_last_error(), "secret-but-short") == NULL,
          "a malformed key is INVALID_ARGUMENT, and the error does not repeat it");
    CHECK(ferrite_server_set_request_state_keys(server, S(KEY_A), S("[\"nope\"]")) == FERRITE_RESULT_INVALID_ARGUMENT &&
              strstr(ferrite_last_error(), "previous_json[0]") != NULL,
          "a malformed previous key is INVALID_ARGUMENT naming which");
    CHECK(ferrite_server_set_request_state_keys(server, S(KEY_A), S("[\"" KEY_C "\"")) == FERRITE_RESULT_INVALID_JSON,
          "malformed previous keys JSON is INVALID_JSON");
    CHECK(ferrite_server_set_request_state_keys(server, S(KEY_A), NULL, 0) == FERRITE_RESULT_OK,
          "a hex key is accepted");
    char *state = ask_name_round_one(server, false);
    CHECK(ferrite_server_set_request_state_keys(server, S(KEY_C), S("[\"" KEY_B "\"]")) == FERRITE_RESULT_OK,
          "rotating keys (a base64 previous key) is accepted");
    char *r = state ? ask_name_retry(server, state) : NULL;
    char *text = tool_text(r);
    CHECK(text && strncmp(text, "hello Ada", 9) == 0, "a state sealed with a previous key still opens");
    ferrite_string_free(text);
    ferrite_string_free(r);
    ferrite_server_set_request_state_keys(server, S(KEY_C), NULL, 0);
    r = state ? ask_name_retry(server, state) : NULL;
    CHECK(int_at(r, "/error/code") == -32602, "once the old key is retired its states are refused (-32602)");
    ferrite_string_free(r);
    ferrite_string_free(state);
    CHECK(ferrite_server_set_request_state_ttl_ms(server, 0) == FERRITE_RESULT_INVALID_ARGUMENT,
          "a request-state TTL of 0 is INVALID_ARGUMENT");
    CHECK(ferrite_server_set_request_state_ttl_ms(NULL, 10) == FERRITE_RESULT_NULL_POINTER,
          "set_request_state_ttl_ms on a NULL server is NULL_POINTER");
    CHECK(ferrite_server_set_request_state_ttl_ms(server, 1) == FERRITE_RESULT_OK, "a 1 ms TTL is accepted");
    state = ask_name_round_one(server, false);
    sleep_ms(50);
    r = state ? ask_name_retry(server, state) : NULL;
    CHECK(int_at(r, "/error/code") == -32602, "a state past its TTL is refused (-32602)");
    ferrite_string_free(r);
    ferrite_string_free(state);
    ferrite_server_set_request_state_ttl_ms(server, 15 * 60 * 1000);

    /* Extensions. */
    CHECK(ferrite_server_add_extension(server, S("io.example/ext"), S("{\"level\":2}")) == FERRITE_RESULT_OK &&
              ferrite_server_add_extension(server, S("io.example/bare"), NULL, 0) == FERRITE_RESULT_OK,
          "add_extension accepts a prefixed id with settings, or NULL settings");
    CHECK(responds(server, MODERN(50, "server/discover", "", "{}"), "\"io.example/ext\":{\"level\":2}") &&
              responds(server, MODERN(51, "server/discover", "", "{}"), "\"io.example/bare\":{}"),
          "server/discover advertises the extensions and their settings");
    CHECK(ferrite_server_add_extension(server, S("noprefix"), NULL, 0) == FERRITE_RESULT_INVALID_ARGUMENT,
          "an extension id without a prefix is INVALID_ARGUMENT");
    CHECK(ferrite_server_add_extension(server, S("io.example/x"), S("[1]")) == FERRITE_RESULT_INVALID_ARGUMENT,
          "extension settings that are not an object are INVALID_ARGUMENT");
    CHECK(ferrite_server_add_extension(server, S("io.example/x"), S("{")) == FERRITE_RESULT_INVALID_JSON,
          "malformed extension settings are INVALID_JSON");
    CHECK(ferrite_server_add_extension(server, "\xff/x", 3, NULL, 0) == FERRITE_RESULT_INVALID_UTF8,
          "a non-UTF-8 extension id is INVALID_UTF8");
    CHECK(ferrite_server_add_extension(server, NULL, 0, NULL, 0) == FERRITE_RESULT_NULL_POINTER,
          "a NULL extension id is NULL_POINTER");

    /* Cache hints. */
    CHECK(ferrite_server_set_cache_hints(server, S("{\"toolsList\":{\"ttlMs\":60000,\"cacheScope\":\"public\"}}")) ==
              FERRITE_RESULT_OK,
          "set_cache_hints accepts the core's CacheHints JSON");
    CHECK(responds_both(server, MODERN(52, "tools/list", "", "{}"), "\"ttlMs\":60000", "\"cacheScope\":\"public\""),
          "tools/list carries the hint");
    CHECK(ferrite_server_set_cache_hints(server, S("{\"bogus\":{}}")) == FERRITE_RESULT_INVALID_ARGUMENT,
          "an unknown cache hint member is INVALID_ARGUMENT");
    CHECK(ferrite_server_set_cache_hints(server, S("{\"toolsList\":{\"ttlMs\":1,\"cacheScope\":\"everyone\"}}")) ==
              FERRITE_RESULT_INVALID_ARGUMENT,
          "an unknown cache scope is INVALID_ARGUMENT");
    CHECK(ferrite_server_set_cache_hints(server, S("{\"toolsList\":")) == FERRITE_RESULT_INVALID_JSON,
          "malformed cache hints are INVALID_JSON");
    CHECK(ferrite_server_set_cache_hints(server, NULL, 0) == FERRITE_RESULT_NULL_POINTER,
          "NULL cache hints are NULL_POINTER");
    CHECK(ferrite_server_set_cache_hints(server, "{\"\xff\":{}}", 6) == FERRITE_RESULT_INVALID_UTF8,
          "cache hints that are not UTF-8 are INVALID_UTF8");
    CHECK(ferrite_server_set_cache_hints(NULL, S("{}")) == FERRITE_RESULT_NULL_POINTER,
          "set_cache_hints on a NULL server is NULL_POINTER");
    CHECK(ferrite_server_set_resource_cache_hint(server, S("test://item/{id}"), 5000, true) == FERRITE_RESULT_OK,
          "set_resource_cache_hint accepts a registered template");
    CHECK(responds_both(server, MODERN(54, "resources/read", "\"uri\":\"test://item/7\",", "{}"), "\"ttlMs\":5000",
                        "\"cacheScope\":\"public\""),
          "reads of that template carry its hint");
    CHECK(ferrite_server_set_resource_cache_hint(server, S("test://nothing"), 1, false) == FERRITE_RESULT_NOT_FOUND,
          "a hint for an unregistered resource is NOT_FOUND");
    CHECK(ferrite_server_set_resource_cache_hint(server, NULL, 0, 1, false) == FERRITE_RESULT_NULL_POINTER,
          "a NULL resource URI is NULL_POINTER");
    CHECK(ferrite_server_set_resource_cache_hint(server, "test://\xff", 8, 1, false) == FERRITE_RESULT_INVALID_UTF8,
          "a resource URI that is not UTF-8 is INVALID_UTF8");
    CHECK(ferrite_server_add_extension(NULL, S("io.example/x"), NULL, 0) == FERRITE_RESULT_NULL_POINTER,
          "add_extension on a NULL server is NULL_POINTER");
}

/* Skills, on a server of their own; closing it must still run its handlers' finalizers. */
static void check_skills(void) {
    atomic_store(&finalized, 0);
    ferrite_server *server = new_server();
    ferrite_server_add_tool(server, S(TOOL("t")), tool_add, NULL, count_finalizer);
    CHECK(ferrite_server_add_skill(server, S("skill://add-numbers"),
                                   S("{\"SKILL.md\":\"" SKILL_MD "\",\"references/EXAMPLES.md\":\"" SKILL_EXAMPLES "\"}")) ==
              FERRITE_RESULT_OK,
          "add_skill serves a skill from path -> text");
    CHECK(responds(server, MODERN(60, "skills/list", "", "{}"), "skill://add-numbers"), "skills/list lists it");
    CHECK(responds(server, MODERN(61, "resources/read", "\"uri\":\"skill://add-numbers/references/EXAMPLES.md\",", "{}"),
                   "add(a=2, b=3) returns 5"),
          "its files read as resources");
    CHECK(responds(server, MODERN(62, "server/discover", "", "{}"), "io.modelcontextprotocol/skills"),
          "the skills extension is advertised");
    CHECK(ferrite_server_add_skill(server, S("skill://add-numbers"), S("[]")) == FERRITE_RESULT_INVALID_ARGUMENT,
          "skill files that are not an object are INVALID_ARGUMENT");
    CHECK(ferrite_server_add_skill(server, S("skill://add-numbers"), S("{\"SKILL.md\":1}")) ==
              FERRITE_RESULT_INVALID_ARGUMENT,
          "a skill file that is not text is INVALID_ARGUMENT");
    CHECK(ferrite_server_add_skill(server, S("skill://add-numbers"), S("{\"README.md\":\"x\"}")) ==
              FERRITE_RESULT_INVALID_ARGUMENT,
          "a skill without SKILL.md is INVALID_ARGUMENT");
    CHECK(ferrite_server_add_skill(server, S("skill://other"), S("{\"SKILL.md\":\"" SKILL_MD "\"}")) ==
              FERRITE_RESULT_INVALID_ARGUMENT,
          "a skill whose name differs from its root is INVALID_ARGUMENT");
    CHECK(ferrite_server_add_skill(server, S("skill://add-numbers"), S("{\"SKILL.md\":")) == FERRITE_RESULT_INVALID_JSON,
          "malformed skill files are INVALID_JSON");
    CHECK(ferrite_server_add_skill(server, NULL, 0, S("{}")) == FERRITE_RESULT_NULL_POINTER,
          "a NULL skill root is NULL_POINTER");
    CHECK(ferrite_server_add_skill(server, S("skill://add-numbers"), NULL, 0) == FERRITE_RESULT_NULL_POINTER,
          "NULL skill files are NULL_POINTER");
    CHECK(ferrite_server_add_skill(server, "skill://\xff", 9, S("{}")) == FERRITE_RESULT_INVALID_UTF8,
          "a skill root that is not UTF-8 is INVALID_UTF8");
    CHECK(ferrite_server_add_skill(server, S("not-a-uri"), S("{\"SKILL.md\":\"" SKILL_MD "\"}")) ==
              FERRITE_RESULT_INVALID_ARGUMENT,
          "a skill root that is not scheme://path is INVALID_ARGUMENT");

    char dir[] = "/tmp/ferrite-skill-XXXXXX";
    char path[128];
    bool made = mkdtemp(dir) != NULL;
    static const char md[] = "---\nname: from-disk\ndescription: A skill read from a directory\n---\n\nBody.\n";
    if (made) {
        snprintf(path, sizeof path, "%s/SKILL.md", dir);
        FILE *f = fopen(path, "w");
        if (f) {
            fputs(md, f);
            fclose(f);
        }
    }
    CHECK(made && ferrite_server_add_skill_dir(server, S("skill://from-disk"), dir, strlen(dir)) == FERRITE_RESULT_OK,
          "add_skill_dir serves a skill from a directory");
    CHECK(responds(server, MODERN(63, "resources/read", "\"uri\":\"skill://from-disk/SKILL.md\",", "{}"),
                   "A skill read from a directory"),
          "its SKILL.md reads as a resource");
    if (made) {
        unlink(path);
        rmdir(dir);
    }
    CHECK(ferrite_server_add_skill_dir(server, S("skill://from-disk"), S("/nonexistent/ferrite-skill")) ==
              FERRITE_RESULT_IO,
          "add_skill_dir on a missing directory is IO");
    CHECK(ferrite_server_add_skill_dir(server, S("skill://from-disk"), NULL, 0) == FERRITE_RESULT_NULL_POINTER &&
              ferrite_server_add_skill_dir(server, S("skill://from-disk"), "/tmp/\xff", 6) == FERRITE_RESULT_INVALID_UTF8,
          "add_skill_dir: a NULL directory is NULL_POINTER, a non-UTF-8 one INVALID_UTF8");
    CHECK(ferrite_server_close(server) == FERRITE_RESULT_OK && atomic_load(&finalized) == 1,
          "closing a server that serves skills drops its handlers (the tool's finalizer runs once)");
    ferrite_server_free(server);
}

/* A dedicated server: MRTR, bad modern input, custom methods, settings, skills; then close
 * and count the custom methods' finalizers. */
static void check_modern(void) {
    atomic_store(&method_finalized, 0);
    ferrite_server *server = new_server();
    register_all(server);
    int methods = register_modern(server);
    CHECK(responds(server,
                   "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\","
                   "\"capabilities\":{},\"clientInfo\":{\"name\":\"abi-test\",\"version\":\"0\"}}}",
                   "\"serverInfo\""),
          "the in-process connection serves a handshake session beside 2026-07-28 requests");
    check_modern_input(server);
    check_mrtr(server);
    check_methods(server);
    check_settings(server);
    int before = atomic_load(&method_finalized);
    CHECK(ferrite_server_close(server) == FERRITE_RESULT_OK && atomic_load(&method_finalized) == before + methods,
          "close runs every registered custom method's finalizer exactly once");
    CHECK(ferrite_server_add_method(server, S("x/y"), method_echo, NULL, count_method_finalizer) ==
                  FERRITE_RESULT_CLOSED &&
              atomic_load(&method_finalized) == before + methods + 1,
          "add_method on a closed server is CLOSED, and its finalizer still runs once");
    ferrite_server_free(server);
    CHECK(atomic_load(&method_finalized) == before + methods + 1, "free after close runs no finalizer again");
}

/* ---------------------------------------------------------------- HTTP */

/* One HTTP/1.1 exchange on a fresh loopback connection (Connection: close), with a 10 s
 * receive timeout so a hang fails instead of blocking. Returns the whole response
 * (status line, headers, body) in a malloc'd buffer, or NULL. */
char *http_exchange(uint16_t port, const char *method, const char *host, const char *accept,
                    const char *extra_headers, const char *body) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) {
        return NULL;
    }
    struct timeval tv = {10, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    struct sockaddr_in addr;
    memset(&addr, 0, sizeof addr);
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, (struct sockaddr *)&addr, sizeof addr) != 0) {
        close(fd);
        return NULL;
    }
    char head[1024];
    int n = snprintf(head, sizeof head,
                     "%s /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\n"
                     "Accept: %s\r\n%sContent-Length: %zu\r\nConnection: close\r\n\r\n",
                     method, host, accept, extra_headers, strlen(body));
    if (n < 0 || (size_t)n >= sizeof head || write(fd, head, (size_t)n) != n ||
        write(fd, body, strlen(body)) != (ssize_t)strlen(body)) {
        close(fd);
        return NULL;
    }
    size_t cap = 4096, len = 0;
    char *out = malloc(cap);
    for (;;) {
        if (len + 1024 + 1 > cap) {
            cap *= 2;
            out = realloc(out, cap);
        }
        ssize_t got = read(fd, out + len, cap - len - 1);
        if (got <= 0) {
            break;
        }
        len += (size_t)got;
    }
    close(fd);
    out[len] = '\0';
    return out;
}

/* The value of header `name` (lower case) in `response`, copied into `value`; false if absent. */
bool http_header(const char *response, const char *name, char *value, size_t cap) {
    size_t name_len = strlen(name);
    for (const char *line = strstr(response, "\r\n"); line && strncmp(line, "\r\n\r\n", 4) != 0;
         line = strstr(line + 2, "\r\n")) {
        const char *h = line + 2;
        size_t i = 0;
        while (i < name_len && h[i] && tolower((unsigned char)h[i]) == name[i]) {
            i++;
        }
        if (i == name_len && h[i] == ':') {
            const char *v = h + i + 1;
            while (*v == ' ') {
                v++;
            }
            size_t vlen = strcspn(v, "\r");
            if (vlen >= cap) {
                return false;
            }
            memcpy(value, v, vlen);
            value[vlen] = '\0';
            return true;
        }
    }
    return false;
}

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
static void check_http(void) {
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

int main(int argc, char **argv) {
    if (argc > 1 && strcmp(argv[1], "serve-until-close") == 0) {
        return serve_until_close();
    }
    if (argc > 1 && strcmp(argv[1], "serve") == 0) {
        ferrite_server *server = new_server();
        register_all(server);
        ferrite_result rc = ferrite_server_serve_stdio(server);
        ferrite_server_free(server);
        return rc == FERRITE_RESULT_OK ? 0 : 1;
    }
    ferrite_server *server = new_server();
    register_all(server);
    check_handlers(server);
    check_bad_inputs(server);
    ferrite_server_free(server);
    check_json_helpers();
    check_lifecycle();
    check_close_with_pending_request();
    check_modern();
    check_skills();
    check_http();
    check_parity();
    check_auth();
    check_mount();
    check_tasks();
    check_elicit();
    printf("%d checks, %d failed\n", checks, failures);
    return failures == 0 ? 0 : 1;
}
