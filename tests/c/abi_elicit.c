/*
 * Task options and URL elicitation from C (issue 12). Each check names what it asserts:
 * ferrite_server_set_task_options applied (a task-augmented call's pollInterval and ttl reflect
 * them, 0 keeps a setting, a ttl past the maximum is cut to it) and refused with
 * FERRITE_RESULT_TASKS_STARTED and the core's message once tasks have begun; URL elicitation on a
 * 2025-11-25 connection whose send callback plays the client: the elicitation/create frame of
 * ferrite_request_elicit_url (mode url, url, elicitationId) and its answer reaching the reply
 * callback, the notifications/elicitation/complete frame of
 * ferrite_request_notify_elicitation_complete, the -32042 error of
 * ferrite_request_fail_url_elicitation_required (code, message, data), elicitations JSON that
 * does not parse or has the wrong shape giving an error code (the request still settled),
 * ferrite_server_notify_elicitation_complete sent to a listening connection and not to an
 * unknown id, and an open elicitation withdrawn (notifications/cancelled) when its call is cancelled.
 */
#include "abi_frames.h"
#include "abi_test.h"

#define INIT(caps)                                                                                             \
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\"," \
    "\"capabilities\":" caps ",\"clientInfo\":{\"name\":\"c-elicit\",\"version\":\"0\"}}}"
#define INITIALIZED "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}"
#define CALL(id, name, args, extra)                                                                     \
    "{\"jsonrpc\":\"2.0\",\"id\":" #id ",\"method\":\"tools/call\",\"params\":{\"name\":\"" name "\"," \
    "\"arguments\":" args extra "}}"
#define TOOL(name) "{\"name\":\"" name "\",\"inputSchema\":{\"type\":\"object\"}}"
#define LOGIN_URL "https://example.com/login"
#define TASKS_STARTED_MESSAGE "the task options cannot change after the first task was created"

/* ---------------------------------------------------------------- helpers */

/* A request on the connection, on a thread of its own (it waits for the client's answer). */
typedef struct {
    ferrite_server *server;
    ferrite_connection *conn;
    const char *msg;
    char *out;
    pthread_t thread;
} pending_call;

static void *pending_run(void *arg) {
    pending_call *c = arg;
    c->out = raw_on(c->server, c->conn, c->msg);
    return NULL;
}

/* ---------------------------------------------------------------- handlers */

static uint32_t tool_quick(void *u, ferrite_request *req) {
    (void)u;
    return ferrite_request_complete_text(req, S("quick"), NULL, 0);
}

/* login: ferrite_request_elicit_url; the reply tells the client the elicitation completed
 * (ferrite_request_notify_elicitation_complete) and completes with the action. */
static void login_reply(void *u, ferrite_result result, ferrite_str json, ferrite_str error) {
    ferrite_request *req = u;
    if (result != FERRITE_RESULT_OK) {
        ferrite_request_fail(req, error.ptr, error.len);
        return;
    }
    char *action = NULL;
    ferrite_json_get_string(json.ptr, json.len, S("/action"), &action, NULL);
    ferrite_request_notify_elicitation_complete(req, S("login-1"));
    char text[64];
    int n = snprintf(text, sizeof text, "login: %s", action ? action : "?");
    ferrite_string_free(action);
    ferrite_request_complete_text(req, text, (size_t)n, NULL, 0);
}
static uint32_t tool_login(void *u, ferrite_request *req) {
    (void)u;
    if (ferrite_request_elicit_url(req, S("Sign in first"), S(LOGIN_URL), S("login-1"), login_reply, req, NULL) !=
        FERRITE_RESULT_OK) {
        return FERRITE_RESULT_HANDLER_FAILED;
    }
    return FERRITE_RESULT_PENDING;
}

/* export: refused with -32042 until the user signs in. */
static uint32_t tool_export(void *u, ferrite_request *req) {
    (void)u;
    return ferrite_request_fail_url_elicitation_required(
        req, S("[{\"message\":\"Sign in to export\",\"url\":\"" LOGIN_URL "\",\"elicitationId\":\"login-2\"}]"));
}

/* fail_with: ferrite_request_fail_url_elicitation_required with the argument "json" as the
 * elicitations, recording the code and the detail (the last error is per thread). */
static ferrite_result fail_with_code;
static char fail_with_detail[256];
static uint32_t tool_fail_with(void *u, ferrite_request *req) {
    (void)u;
    ferrite_str json = {0};
    ferrite_request_argument_string(req, S("/json"), &json);
    fail_with_code = ferrite_request_fail_url_elicitation_required(req, json.ptr ? json.ptr : "", json.len);
    snprintf(fail_with_detail, sizeof fail_with_detail, "%s", ferrite_last_error());
    return FERRITE_RESULT_OK;
}

/* ---------------------------------------------------------------- checks */

static void check_task_options(ferrite_server *server) {
    CHECK(ferrite_server_set_task_options(server, 7000, 20000, 250, 0) == FERRITE_RESULT_OK &&
              ferrite_server_set_task_options(server, 0, 0, 0, 50) == FERRITE_RESULT_OK,
          "task options: set before any task (twice; the second keeps what its zeros leave)");
    CHECK(ferrite_server_add_tool_with_task_support(server, S(TOOL("t_quick")), FERRITE_TASK_SUPPORT_OPTIONAL, tool_quick,
                                                    NULL, NULL) == FERRITE_RESULT_OK,
          "task options: a tool with a task support registers");
    ferrite_connection *conn = NULL;
    ferrite_connection_new(server, NULL, NULL, NULL, &conn);
    ferrite_string_free(raw_on(server, conn, INIT("{}")));
    ferrite_string_free(raw_on(server, conn, INITIALIZED));

    char *r = raw_on(server, conn, CALL(2, "t_quick", "{}", ",\"task\":{}"));
    CHECK(is(r, "/result/task/pollInterval", "250") && is(r, "/result/task/ttl", "7000"),
          "task options: a task-augmented call's pollInterval and ttl are the options set (0 kept them)");
    ferrite_string_free(r);
    r = raw_on(server, conn, CALL(3, "t_quick", "{}", ",\"task\":{\"ttl\":600000}"));
    CHECK(is(r, "/result/task/ttl", "20000"), "task options: a ttl past max_ttl_ms is cut to it");
    ferrite_string_free(r);

    CHECK(ferrite_server_set_task_options(server, 1000, 0, 0, 0) == FERRITE_RESULT_TASKS_STARTED &&
              strcmp(ferrite_last_error(), TASKS_STARTED_MESSAGE) == 0 &&
              strcmp(ferrite_result_message(FERRITE_RESULT_TASKS_STARTED), "the task options are fixed once tasks have begun") ==
                  0,
          "task options: refused after the first task with FERRITE_RESULT_TASKS_STARTED and the core's message");
    r = raw_on(server, conn, CALL(4, "t_quick", "{}", ",\"task\":{}"));
    CHECK(is(r, "/result/task/ttl", "7000") && is(r, "/result/task/pollInterval", "250"),
          "task options: the refused call changed nothing");
    ferrite_string_free(r);
    ferrite_connection_free(conn);
}

static void check_url_elicitation(ferrite_server *server) {
    bool ok = ferrite_server_add_tool(server, S(TOOL("login")), tool_login, NULL, NULL) == FERRITE_RESULT_OK;
    ok &= ferrite_server_add_tool(server, S(TOOL("export")), tool_export, NULL, NULL) == FERRITE_RESULT_OK;
    ok &= ferrite_server_add_tool(server, S(TOOL("fail_with")), tool_fail_with, NULL, NULL) == FERRITE_RESULT_OK;
    CHECK(ok, "url elicitation: the tools register");

    outbox box = {0};
    pthread_mutex_init(&box.mu, NULL);
    pthread_cond_init(&box.cv, NULL);
    ferrite_connection *conn = NULL;
    ferrite_connection_new(server, outbox_send, &box, NULL, &conn);
    ferrite_string_free(raw_on(server, conn, INIT("{\"elicitation\":{\"url\":{}}}")));
    ferrite_string_free(raw_on(server, conn, INITIALIZED));

    /* ferrite_request_elicit_url: the request frame, the answer, the completion notification. */
    pending_call login = {server, conn, CALL(10, "login", "{}", ""), NULL, 0};
    pthread_create(&login.thread, NULL, pending_run, &login);
    const char *ask = outbox_wait(&box, 0);
    CHECK(is(ask, "/method", "\"elicitation/create\"") && is(ask, "/params/mode", "\"url\"") &&
              is(ask, "/params/url", "\"" LOGIN_URL "\"") && is(ask, "/params/elicitationId", "\"login-1\"") &&
              is(ask, "/params/message", "\"Sign in first\""),
          "url elicitation: ferrite_request_elicit_url sends elicitation/create with mode url, the url and the "
          "elicitationId");
    char *ask_id = NULL;
    if (ask) {
        ferrite_json_get(ask, strlen(ask), S("/id"), &ask_id, NULL);
    }
    char answer[128];
    snprintf(answer, sizeof answer, "{\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"action\":\"accept\"}}",
             ask_id ? ask_id : "0");
    ferrite_string_free(ask_id);
    ferrite_string_free(raw_on(server, conn, answer));
    pthread_join(login.thread, NULL);
    CHECK(is(login.out, "/result/content/0/text", "\"login: accept\""),
          "url elicitation: the client's answer reaches the reply callback (action accept)");
    ferrite_string_free(login.out);
    const char *done = outbox_wait(&box, 1);
    CHECK(is(done, "/method", "\"notifications/elicitation/complete\"") &&
              is(done, "/params/elicitationId", "\"login-1\""),
          "url elicitation: ferrite_request_notify_elicitation_complete sends notifications/elicitation/complete "
          "with the elicitationId");

    /* The call cancelled while its question is open: the question is withdrawn from the client. */
    int asked_at = outbox_count(&box);
    pending_call again = {server, conn, CALL(20, "login", "{}", ""), NULL, 0};
    pthread_create(&again.thread, NULL, pending_run, &again);
    const char *ask2 = outbox_wait(&box, asked_at);
    char *ask2_id = ask2 ? at(ask2, "/id") : NULL;
    ferrite_string_free(
        raw_on(server, conn, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":20}}"));
    pthread_join(again.thread, NULL);
    const char *withdrawn = outbox_wait(&box, asked_at + 1);
    CHECK(is(ask2, "/method", "\"elicitation/create\"") && is(withdrawn, "/method", "\"notifications/cancelled\"") &&
              ask2_id != NULL && is(withdrawn, "/params/requestId", ask2_id),
          "url elicitation: a call cancelled while its elicitation is open has the elicitation withdrawn "
          "(notifications/cancelled with its id)");
    CHECK(again.out == NULL || again.out[0] == '\0', "url elicitation: the cancelled call gets no response");
    ferrite_string_free(ask2_id);
    ferrite_string_free(again.out);

    /* -32042. */
    char *r = raw_on(server, conn, CALL(11, "export", "{}", ""));
    CHECK(is(r, "/error/code", "-32042") && is(r, "/error/message", "\"URL elicitation required\"") &&
              is(r, "/error/data/elicitations/0/mode", "\"url\"") &&
              is(r, "/error/data/elicitations/0/url", "\"" LOGIN_URL "\"") &&
              is(r, "/error/data/elicitations/0/elicitationId", "\"login-2\"") &&
              is(r, "/error/data/elicitations/0/message", "\"Sign in to export\""),
          "url elicitation: ferrite_request_fail_url_elicitation_required answers -32042 with the core's message and "
          "data.elicitations");
    ferrite_string_free(r);

    /* Elicitations that do not parse, or of the wrong shape: a code, and the request still settled. */
    r = raw_on(server, conn, CALL(12, "fail_with", "{\"json\":\"[{\\\"message\\\":\"}", ""));
    CHECK(fail_with_code == FERRITE_RESULT_INVALID_JSON && strncmp(fail_with_detail, "elicitations_json: ", 19) == 0 &&
              is(r, "/error/code", "-32603"),
          "url elicitation: elicitations JSON that does not parse is FERRITE_RESULT_INVALID_JSON, the request fails "
          "with -32603");
    ferrite_string_free(r);
    r = raw_on(server, conn, CALL(13, "fail_with", "{\"json\":\"[{\\\"message\\\":\\\"m\\\",\\\"url\\\":\\\"u\\\"}]\"}", ""));
    CHECK(fail_with_code == FERRITE_RESULT_INVALID_ARGUMENT && strstr(fail_with_detail, "elicitationId") != NULL &&
              is(r, "/error/code", "-32603"),
          "url elicitation: an elicitation without elicitationId is FERRITE_RESULT_INVALID_ARGUMENT naming it");
    ferrite_string_free(r);

    /* The server-level notification, to this listening connection and to an unknown id. */
    ferrite_str id = {0};
    ferrite_connection_id(conn, &id);
    int before = outbox_count(&box);
    bool sent = false;
    CHECK(ferrite_server_notify_elicitation_complete(server, id.ptr, id.len, S("login-3"), &sent) == FERRITE_RESULT_OK &&
              sent,
          "url elicitation: ferrite_server_notify_elicitation_complete to a listening connection: sent is true");
    done = outbox_wait(&box, before);
    CHECK(is(done, "/method", "\"notifications/elicitation/complete\"") &&
              is(done, "/params/elicitationId", "\"login-3\""),
          "url elicitation: that connection receives notifications/elicitation/complete with the elicitationId");
    sent = true;
    CHECK(ferrite_server_notify_elicitation_complete(server, S("no-such-connection"), S("login-4"), &sent) ==
                  FERRITE_RESULT_OK &&
              !sent && outbox_count(&box) == before + 1,
          "url elicitation: to an unknown connection id sent is false and nothing goes out");

    ferrite_connection_free(conn);
    outbox_free(&box);
    pthread_mutex_destroy(&box.mu);
    pthread_cond_destroy(&box.cv);
}

void check_elicit(void) {
    ferrite_server *server = NULL;
    if (ferrite_server_new(S("{\"name\":\"abi-elicit\",\"version\":\"1.0.0\"}"), FERRITE_SERVER_MODE_STATEFUL, NULL, 0,
                           &server) != FERRITE_RESULT_OK) {
        fprintf(stderr, "ferrite_server_new: %s\n", ferrite_last_error());
        exit(2);
    }
    check_task_options(server);
    check_url_elicitation(server);
    ferrite_server_free(server);
}
