/*
 * The handshake-era checks through handle_raw: the handlers' results and errors, NULL and bad
 * UTF-8 inputs, a panic surfaced as a code, the JSON helpers, finalizers over a server's life,
 * closing under a pending request, and closing while another thread serves stdio.
 */
#include "abi_test.h"
#include "abi_server.h"

void check_handlers(ferrite_server *server) {
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

void check_bad_inputs(ferrite_server *server) {
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

void check_json_helpers(void) {
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

void check_lifecycle(void) {
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

void check_close_with_pending_request(void) {
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
int serve_until_close(void) {
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
