/*
 * The parity items of issue 10, from C, each with exact values: the version macros and
 * ferrite_version(); the one set of defaults (a server made with FERRITE_SERVER_MODE_DEFAULT is
 * stateful, logs, validates input); the request context (client capabilities and info,
 * progress token, _meta, cancellation as a callback); the server API (ping_client, the tool
 * listing, input and output validation switches); connections the host holds
 * (ferrite_connection + ferrite_server_handle_raw_on, with a send callback carrying
 * server-to-client requests and their answers); the core's wire shapes (completion request,
 * elicitation params, the sampling maxTokens default); and the HTTP options, whose every error
 * is the core's message. The context, cancellation and ping checks are in abi_context.c, the
 * wire shapes in abi_wire.c; what they share is abi_parity.h.
 */
#include "abi_parity.h"

/* ---------------------------------------------------------------- helpers */

ferrite_server *server_with_mode(uint32_t mode) {
    ferrite_server *server = NULL;
    if (ferrite_server_new(S("{\"name\":\"parity\",\"version\":\"1.0.0\"}"), mode, NULL, 0, &server) != FERRITE_RESULT_OK) {
        fprintf(stderr, "ferrite_server_new: %s\n", ferrite_last_error());
        exit(2);
    }
    return server;
}

/* Whether handle_raw_on gives exactly `expected`; prints both when not. */
bool on_is(ferrite_server *server, ferrite_connection *conn, const char *msg, const char *expected) {
    char *out = raw_on(server, conn, msg);
    bool ok = out && strcmp(out, expected) == 0;
    if (!ok) {
        printf("# sent:     %s\n# got:      %s\n# expected: %s\n", msg, out ? out : "(call failed)", expected);
    }
    ferrite_string_free(out);
    return ok;
}

/* The text of the first content block of a tool result (caller frees), or NULL. */
char *result_text(const char *response) {
    char *text = NULL;
    if (!response ||
        ferrite_json_get_string(response, strlen(response), S("/result/content/0/text"), &text, NULL) != FERRITE_RESULT_OK) {
        return NULL;
    }
    return text;
}

bool text_is(ferrite_server *server, ferrite_connection *conn, const char *msg, const char *expected) {
    char *out = raw_on(server, conn, msg);
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
bool last_error_is(const char *expected) {
    bool ok = strcmp(ferrite_last_error(), expected) == 0;
    if (!ok) {
        printf("# last error: %s\n# expected:   %s\n", ferrite_last_error(), expected);
    }
    return ok;
}

void *async_run(void *arg) {
    async_call *c = arg;
    c->rc = ferrite_server_handle_raw_on(c->server, c->conn, c->msg, strlen(c->msg), &c->out, NULL);
    return NULL;
}

void async_start(async_call *c, ferrite_server *server, ferrite_connection *conn, const char *msg) {
    c->server = server, c->conn = conn, c->msg = msg, c->out = NULL, c->rc = FERRITE_RESULT_OK;
    pthread_create(&c->thread, NULL, async_run, c);
}

/* Wait until `*flag` is at least `n` (10 s at most); whether it got there. */
bool wait_for(atomic_int *flag, int n) {
    for (int i = 0; i < 1000 && atomic_load(flag) < n; i++) {
        sleep_ms(10);
    }
    return atomic_load(flag) >= n;
}

/* ---------------------------------------------------------------- handlers */

uint32_t tool_sum(void *u, ferrite_request *req) {
    (void)u;
    int64_t a = 0, b = 0;
    ferrite_request_argument_i64(req, S("/a"), &a);
    ferrite_request_argument_i64(req, S("/b"), &b);
    char text[32];
    int n = snprintf(text, sizeof text, "%lld", (long long)(a + b));
    return ferrite_request_complete_text(req, text, (size_t)n, NULL, 0);
}

/* Completes the request with the client's answer to a server-to-client request, as text. */
void reply_as_text(void *user_data, ferrite_result result, ferrite_str json, ferrite_str error) {
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

/* shaped: returns structuredContent {"n": "seven"}, which violates its outputSchema. */
static uint32_t tool_shaped(void *u, ferrite_request *req) {
    (void)u;
    return ferrite_request_complete_text(req, S("seven"), S("{\"n\":\"seven\"}"));
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
    CHECK(is(caps, "/logging", "{}"), "defaults: a fresh server declares the logging capability");
    ferrite_string_free(caps);
    ferrite_server *none = NULL;
    CHECK(ferrite_server_new(S("{\"name\":\"x\",\"version\":\"1\"}"), 3, NULL, 0, &none) ==
                  FERRITE_RESULT_INVALID_ARGUMENT && !none &&
              last_error_is("3 is not a ferrite_server_mode"),
          "ferrite_server_new with mode 3 is INVALID_ARGUMENT");

    outbox box = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};
    ferrite_connection *conn = NULL;
    CHECK(ferrite_connection_new(server, outbox_send, &box, outbox_finalize, &conn) == FERRITE_RESULT_OK && conn,
          "ferrite_connection_new with a send callback gives a connection");
    char *init = raw_on(server, conn, INIT(1, "{\"roots\":{}}", "{\"name\":\"c\",\"version\":\"1\"}"));
    CHECK(is(init, "/result/capabilities/logging", "{}"), "defaults: initialize shows logging in capabilities");
    ferrite_string_free(init);
    CHECK(on_is(server, conn, INITIALIZED, ""), "notifications/initialized has an empty answer");
    char *bad = raw_on(server, conn, TOOL_CALL(2, "add", "{\"a\":\"x\",\"b\":1}"));
    CHECK(is(bad, "/result/isError", "true") && is(bad, "/result/content/0/text",
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
    char *sinit = raw_on(stateless, sconn, INIT(1, "{\"roots\":{}}", "{\"name\":\"c\",\"version\":\"1\"}"));
    ferrite_string_free(sinit);
    char *sout = raw_on(stateless, sconn, TOOL_CALL(2, "roots", "{}"));
    char *stext = result_text(sout);
    CHECK(is(sout, "/result/isError", "true") && stext &&
              strcmp(stext, "server-to-client requests need a stateful server") == 0,
          "FERRITE_SERVER_MODE_STATELESS opts out: the roots/list request fails with the core's reason");
    ferrite_string_free(stext);
    ferrite_string_free(sout);
    ferrite_connection_free(sconn);
    ferrite_server_free(stateless);

    CHECK(ferrite_server_disable_logging(server) == FERRITE_RESULT_OK, "ferrite_server_disable_logging succeeds");
    caps = NULL;
    ferrite_server_capabilities(server, &caps, NULL);
    CHECK(caps && at(caps, "/logging") == NULL, "without logging, the capabilities lack it");
    ferrite_string_free(caps);
    char *refused = raw_on(server, conn, "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"logging/setLevel\",\"params\":{\"level\":\"info\"}}");
    CHECK(is(refused, "/error/code", "-32601"), "without logging, logging/setLevel is -32601");
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
    CHECK(logged && is(logged, "/method", "\"notifications/message\"") &&
              is(logged, "/params", "{\"data\":{\"disk\":\"low\"},\"level\":\"warning\",\"logger\":\"ops\"}"),
          "log message: the connection receives exactly that notifications/message (the two refused ones never came)");
    CHECK(ferrite_server_send_log_message(server, 8, S("\"x\""), NULL, 0, NULL, 0, NULL) == FERRITE_RESULT_INVALID_ARGUMENT,
          "log message: a level that is not a ferrite_log_level is FERRITE_RESULT_INVALID_ARGUMENT");

    ferrite_connection_free(conn);
    CHECK(atomic_load(&box.finalized) == 2, "freeing each connection runs its finalizer once");
    ferrite_server_free(server);
    CHECK(atomic_load(&box.finalized) == 2, "closing the server after it does not run it again");
    outbox_free(&box);
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
    char *r = raw_on(server, conn, INIT(1, "{}", "{\"name\":\"c\",\"version\":\"1\"}"));
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
    char *refused = raw_on(server, conn, TOOL_CALL(4, "shaped", "{}"));
    CHECK(is(refused, "/error/code", "-32603") &&
              is(refused, "/error/message",
                      "\"tool shaped returned structuredContent that violates its outputSchema: /n: \\\"seven\\\" is not of "
                      "type \\\"integer\\\"\""),
          "with output validation, a non-conforming result is -32603 naming the violation");
    ferrite_string_free(refused);
    ferrite_connection_free(conn);
    ferrite_server_free(server);
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
