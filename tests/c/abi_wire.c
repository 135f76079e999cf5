/*
 * The core's wire shapes, from C: completion requests as the core sends them to a handler,
 * elicitation params read by the core (form, url, and a bad mode refused with the core's
 * message), the sampling maxTokens default, and completion values capped. Part of
 * check_parity (abi_parity.c).
 */
#include "abi_parity.h"

/* ---------------------------------------------------------------- handlers */

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

/* ---------------------------------------------------------------- checks */

/* The core's wire shapes: completion requests as sent, elicitation params read by the core,
 * the sampling maxTokens default. */
void check_wire_shapes(void) {
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
    outbox box = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};
    ferrite_connection *conn = NULL;
    ferrite_connection_new(server, outbox_send, &box, outbox_finalize, &conn);
    char *r = raw_on(server, conn, INIT(1, "{\"sampling\":{},\"elicitation\":{\"url\":{}}}", "{\"name\":\"c\",\"version\":\"1\"}"));
    ferrite_string_free(r);

    r = raw_on(server, conn,
           "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"completion/complete\",\"params\":{\"ref\":{\"type\":\"ref/prompt\","
           "\"name\":\"greet\"},\"argument\":{\"name\":\"who\",\"value\":\"p\"},\"context\":{\"arguments\":{\"lang\":\"fr\"}}}}");
    CHECK(is(r, "/result/completion/values/0",
                  "\"{\\\"ref\\\":{\\\"type\\\":\\\"ref/prompt\\\",\\\"name\\\":\\\"greet\\\"},\\\"argument\\\":{\\\"name\\\":"
                  "\\\"who\\\",\\\"value\\\":\\\"p\\\"},\\\"context\\\":{\\\"arguments\\\":{\\\"lang\\\":\\\"fr\\\"}}}\""),
          "a completer gets the completion/complete params in the core's wire shape");
    ferrite_string_free(r);

    ferrite_server_set_argument_completer(server, S("{\"type\":\"ref/prompt\",\"name\":\"greet\"}"), S("lang"),
                                          complete_many, NULL, NULL);
    r = raw_on(server, conn,
           "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"completion/complete\",\"params\":{\"ref\":{\"type\":\"ref/prompt\","
           "\"name\":\"greet\"},\"argument\":{\"name\":\"lang\",\"value\":\"\"}}}");
    CHECK(is(r, "/result/completion/total", "150") && is(r, "/result/completion/hasMore", "true") &&
              is(r, "/result/completion/values/99", "\"v99\"") && at(r, "/result/completion/values/100") == NULL,
          "ferrite_request_complete_values: the core keeps 100 of 150 values, with total and hasMore");
    ferrite_string_free(r);
    ferrite_server_add_tool(server, S(SIMPLE_TOOL("values")), tool_values, NULL, NULL);
    r = raw_on(server, conn, TOOL_CALL(4, "values", "{}"));
    CHECK(atomic_load(&values_on_tool_rc) == FERRITE_RESULT_INVALID_ARGUMENT && is(r, "/error/code", "-32603"),
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
        char *out = raw_on(server, conn, msg);
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
    r = raw_on(server, conn,
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
    outbox_free(&box);
}
