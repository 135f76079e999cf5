/*
 * The C ABI exercised from C: registration, handle_raw, synchronous and pending (completed
 * from another thread) handlers, finalizers, NULL and bad UTF-8 inputs, a panic surfaced as
 * a code, the JSON helpers. Built and run by ffi/tests/c_programs.rs (and under valgrind by
 * tests/c/run.sh).
 *
 *   abi_test          run every check, print "ok"/"not ok" lines and a summary; exit 1 on failure
 *   abi_test serve    register the same handlers and serve stdio (for the stdio test)
 *   abi_test serve-until-close
 *                     the same, but close the server from the main thread while serve_stdio
 *                     runs on another, once the client sends notifications/test/close
 *
 * Needs a libferrite built with the cargo feature "testing" (ferrite_testing_panic).
 */
#define _POSIX_C_SOURCE 200809L
#define FERRITE_TESTING 1
#include "ferrite.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define S(lit) lit, sizeof(lit) - 1

static int failures = 0;
static int checks = 0;

#define CHECK(cond, name)                                                                  \
    do {                                                                                   \
        checks++;                                                                          \
        if (cond) {                                                                        \
            printf("ok %d - %s\n", checks, name);                                          \
        } else {                                                                           \
            failures++;                                                                    \
            printf("not ok %d - %s (line %d; last error: %s)\n", checks, name, __LINE__, \
                   ferrite_last_error());                                                  \
        }                                                                                  \
    } while (0)

static void sleep_ms(long ms) {
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

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

/* ---------------------------------------------------------------- HTTP */

/* One HTTP/1.1 exchange on a fresh loopback connection (Connection: close), with a 10 s
 * receive timeout so a hang fails instead of blocking. Returns the whole response
 * (status line, headers, body) in a malloc'd buffer, or NULL. */
static char *http_exchange(uint16_t port, const char *method, const char *host, const char *accept,
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
static bool http_header(const char *response, const char *name, char *value, size_t cap) {
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
              ferrite_http_options_allow_any_host(o) == FERRITE_RESULT_OK,
          "valid settings are accepted");
    ferrite_http_options_free(o);
    ferrite_http_options_free(NULL);
}

/* Serve a stateful server on 127.0.0.1:0 from another thread, talk to it over a raw socket,
 * then close it from this thread and see the serving thread return CLOSED. */
static void check_http(void) {
    check_http_options();
    ferrite_server *server = new_server();
    register_all(server);
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
    CHECK(ferrite_server_http_bind(server, S("localhost"), 0, NULL, &unused) == FERRITE_RESULT_OK,
          "a second listener binds");
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
    check_http();
    printf("%d checks, %d failed\n", checks, failures);
    return failures == 0 ? 0 : 1;
}
