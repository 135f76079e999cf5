/*
 * Tasks from C (issue 12): a tool declares its task support at registration
 * (ferrite_server_add_tool_with_task_support, or execution.taskSupport in its JSON), and its
 * ordinary handler is the task's body. Each check names what it asserts: the registration and
 * its errors (a number that is not a ferrite_task_support, a taskSupport word the core does not
 * know; the finalizer runs either way); a synchronous handler and a PENDING handler completed
 * later from another thread each completing as a task (ferrite_request_is_task true inside, false
 * for an ordinary call of the same tool); a cancelled task's handler observing the cancellation
 * (ferrite_request_on_cancel and ferrite_request_is_cancelled); a failing handler (a failing
 * status, ferrite_request_fail later) ending its task failed with -32603 while the server keeps
 * serving; ferrite_request_elicit inside a task answered through tasks/result (2025-11-25, on a
 * connection whose send callback plays the client) and through tasks/update (2026-07-28).
 */
#include "abi_frames.h"
#include "abi_test.h"

#define V2025_INIT                                                                                            \
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\"," \
    "\"capabilities\":{\"elicitation\":{}},\"clientInfo\":{\"name\":\"c-tasks\",\"version\":\"0\"}}}"
#define INITIALIZED "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}"
#define CALL(id, name, extra) \
    "{\"jsonrpc\":\"2.0\",\"id\":" #id ",\"method\":\"tools/call\",\"params\":{\"name\":\"" name "\",\"arguments\":{}" extra "}}"
#define AS_TASK ",\"task\":{\"ttl\":60000}"
/* The 2026-07-28 envelope of a client declaring the tasks extension (and elicitation). */
#define ENVELOPE                                                                                       \
    ",\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","                         \
    "\"io.modelcontextprotocol/clientCapabilities\":{\"extensions\":{\"io.modelcontextprotocol/tasks\":{}}," \
    "\"elicitation\":{}}}"
#define TOOL(name) "{\"name\":\"" name "\",\"inputSchema\":{\"type\":\"object\"}}"
#define CONFIRM_PARAMS                                                                                         \
    "{\"message\":\"Sure?\",\"requestedSchema\":{\"type\":\"object\",\"properties\":{\"ok\":{\"type\":\"boolean\"}}}}"

/* ---------------------------------------------------------------- helpers */

static char *raw(ferrite_server *server, const char *msg) {
    char *out = NULL;
    return ferrite_server_handle_raw(server, msg, strlen(msg), &out, NULL) == FERRITE_RESULT_OK ? out : NULL;
}

/* The string at `pointer` copied into out (empty when absent). */
static void string_at(const char *json, const char *pointer, char *out, size_t cap) {
    char *s = NULL;
    out[0] = '\0';
    if (json && ferrite_json_get_string(json, strlen(json), pointer, strlen(pointer), &s, NULL) == FERRITE_RESULT_OK) {
        snprintf(out, cap, "%s", s);
    }
    ferrite_string_free(s);
}

/* Poll a 2026-07-28 tasks/get until the task's status is `status` (10 s at most); the last
 * response (caller frees). */
static char *poll_modern(ferrite_server *server, const char *id, const char *status) {
    char msg[1024], want[64];
    snprintf(msg, sizeof msg, "{\"jsonrpc\":\"2.0\",\"id\":900,\"method\":\"tasks/get\",\"params\":{\"taskId\":\"%s\"" ENVELOPE "}}",
             id);
    snprintf(want, sizeof want, "\"%s\"", status);
    char *out = NULL;
    for (int i = 0; i < 500; i++) {
        ferrite_string_free(out);
        out = raw(server, msg);
        char *got = at(out, "/result/status");
        bool done = got && strcmp(got, want) == 0;
        ferrite_string_free(got);
        if (done) {
            break;
        }
        sleep_ms(20);
    }
    return out;
}

/* A 2026-07-28 request for task `id`: tasks/update (with `responses`) or tasks/cancel. */
static char *modern_task_call(ferrite_server *server, const char *method, const char *id, const char *responses) {
    char msg[1024];
    snprintf(msg, sizeof msg,
             "{\"jsonrpc\":\"2.0\",\"id\":901,\"method\":\"%s\",\"params\":{\"taskId\":\"%s\"%s%s" ENVELOPE "}}", method,
             id, responses ? ",\"inputResponses\":" : "", responses ? responses : "");
    return raw(server, msg);
}

/* A request on the connection, on a thread of its own (tasks/result waits for the task). */
typedef struct {
    ferrite_server *server;
    ferrite_connection *conn;
    char msg[256];
    char *out;
    pthread_t thread;
} pending_call;

static void *pending_run(void *arg) {
    pending_call *c = arg;
    c->out = raw_on(c->server, c->conn, c->msg);
    return NULL;
}

static bool wait_for(atomic_int *flag, int n) {
    for (int i = 0; i < 1000 && atomic_load(flag) < n; i++) {
        sleep_ms(10);
    }
    return atomic_load(flag) >= n;
}

/* ---------------------------------------------------------------- handlers */

static atomic_int finalized;
static void count_finalized(void *u) {
    (void)u;
    atomic_fetch_add(&finalized, 1);
}

static uint32_t complete_with_flag(ferrite_request *req, const char *what) {
    bool task = false;
    ferrite_request_is_task(req, &task);
    char text[64];
    int n = snprintf(text, sizeof text, "%s is_task=%d", what, task ? 1 : 0);
    return ferrite_request_complete_text(req, text, (size_t)n, NULL, 0);
}

/* t_sync: completes before its callback returns. */
static uint32_t tool_sync(void *u, ferrite_request *req) {
    (void)u;
    return complete_with_flag(req, "sync");
}

/* t_pending: returns PENDING; another thread completes it 300 ms later (past the 100 ms a
 * 2026-07-28 call runs inline, so it becomes a task). */
static void *pending_thread(void *arg) {
    sleep_ms(300);
    complete_with_flag(arg, "pending");
    return NULL;
}
static uint32_t tool_pending(void *u, ferrite_request *req) {
    (void)u;
    pthread_t t;
    pthread_create(&t, NULL, pending_thread, req);
    pthread_detach(t);
    return FERRITE_RESULT_PENDING;
}

/* t_wait: PENDING until cancelled; the cancellation callback counts the calls in which
 * ferrite_request_is_cancelled said true (and those it did not) and settles the request. */
static atomic_int saw_cancel, not_cancelled, cancel_finalized;
static void on_cancelled(void *u) {
    ferrite_request *req = u;
    bool cancelled = false;
    ferrite_request_is_cancelled(req, &cancelled);
    atomic_fetch_add(cancelled ? &saw_cancel : &not_cancelled, 1);
    ferrite_request_fail(req, S("cancelled"));
}
static void on_cancel_finalized(void *u) {
    (void)u;
    atomic_fetch_add(&cancel_finalized, 1);
}
static uint32_t tool_wait(void *u, ferrite_request *req) {
    (void)u;
    ferrite_request_on_cancel(req, on_cancelled, req, on_cancel_finalized);
    return FERRITE_RESULT_PENDING;
}

/* t_fail_status: fails by its status, without settling (C's way of throwing). */
static uint32_t tool_fail_status(void *u, ferrite_request *req) {
    (void)u;
    (void)req;
    return FERRITE_RESULT_HANDLER_FAILED;
}

/* t_fail_later: PENDING, then ferrite_request_fail from another thread. */
static void *fail_thread(void *arg) {
    sleep_ms(250);
    ferrite_request_fail(arg, S("it went wrong"));
    return NULL;
}
static uint32_t tool_fail_later(void *u, ferrite_request *req) {
    (void)u;
    pthread_t t;
    pthread_create(&t, NULL, fail_thread, req);
    pthread_detach(t);
    return FERRITE_RESULT_PENDING;
}

/* t_confirm: asks the user with ferrite_request_elicit; the reply completes the request. */
static void confirm_reply(void *u, ferrite_result result, ferrite_str json, ferrite_str error) {
    ferrite_request *req = u;
    if (result != FERRITE_RESULT_OK) {
        ferrite_request_fail(req, error.ptr, error.len);
        return;
    }
    char *action = NULL;
    ferrite_json_get_string(json.ptr, json.len, S("/action"), &action, NULL);
    char text[64];
    int n = snprintf(text, sizeof text, "confirmed %s", action ? action : "?");
    ferrite_string_free(action);
    ferrite_request_complete_text(req, text, (size_t)n, NULL, 0);
}
static uint32_t tool_confirm(void *u, ferrite_request *req) {
    (void)u;
    if (ferrite_request_elicit(req, S(CONFIRM_PARAMS), confirm_reply, req, NULL) != FERRITE_RESULT_OK) {
        return FERRITE_RESULT_HANDLER_FAILED;
    }
    return FERRITE_RESULT_PENDING;
}

static uint32_t tool_plain(void *u, ferrite_request *req) {
    (void)u;
    return ferrite_request_complete_text(req, S("plain"), NULL, 0);
}

/* ---------------------------------------------------------------- checks */

static void check_registration(ferrite_server *server) {
    int before = atomic_load(&finalized);
    CHECK(ferrite_server_add_tool_with_task_support(server, S(TOOL("bad")), 7, tool_sync, NULL, count_finalized) ==
                  FERRITE_RESULT_INVALID_ARGUMENT &&
              strcmp(ferrite_last_error(), "7 is not a ferrite_task_support (0, 1 or 2)") == 0 &&
              atomic_load(&finalized) == before + 1,
          "tasks: a task support that is not a ferrite_task_support is INVALID_ARGUMENT, and the finalizer ran");
    CHECK(ferrite_server_add_tool(server,
                                  S("{\"name\":\"odd\",\"inputSchema\":{\"type\":\"object\"},"
                                    "\"execution\":{\"taskSupport\":\"sometimes\"}}"),
                                  tool_sync, NULL, count_finalized) == FERRITE_RESULT_INVALID_ARGUMENT &&
              strcmp(ferrite_last_error(), "tool \"odd\": execution.taskSupport must be one of \"forbidden\", \"optional\", "
                                           "\"required\", not \"sometimes\"") == 0 &&
              atomic_load(&finalized) == before + 2,
          "tasks: an execution.taskSupport the core does not know is INVALID_ARGUMENT naming it, and the finalizer ran");

    /* Registration order is the tools/list order checked below. */
    bool ok = ferrite_server_add_tool_with_task_support(
                  server, S("{\"name\":\"t_sync\",\"inputSchema\":{\"type\":\"object\"},\"execution\":{\"x\":1}}"),
                  FERRITE_TASK_SUPPORT_OPTIONAL, tool_sync, NULL, NULL) == FERRITE_RESULT_OK;
    ok &= ferrite_server_add_tool(server,
                                  S("{\"name\":\"t_pending\",\"inputSchema\":{\"type\":\"object\"},"
                                    "\"execution\":{\"taskSupport\":\"optional\"}}"),
                                  tool_pending, NULL, NULL) == FERRITE_RESULT_OK;
    ok &= ferrite_server_add_tool_with_task_support(server, S(TOOL("t_wait")), FERRITE_TASK_SUPPORT_OPTIONAL, tool_wait,
                                                    NULL, NULL) == FERRITE_RESULT_OK;
    ok &= ferrite_server_add_tool_with_task_support(server, S(TOOL("t_fail_status")), FERRITE_TASK_SUPPORT_REQUIRED,
                                                    tool_fail_status, NULL, NULL) == FERRITE_RESULT_OK;
    ok &= ferrite_server_add_tool_with_task_support(server, S(TOOL("t_fail_later")), FERRITE_TASK_SUPPORT_REQUIRED,
                                                    tool_fail_later, NULL, NULL) == FERRITE_RESULT_OK;
    ok &= ferrite_server_add_tool_with_task_support(server, S(TOOL("t_confirm")), FERRITE_TASK_SUPPORT_REQUIRED,
                                                    tool_confirm, NULL, NULL) == FERRITE_RESULT_OK;
    ok &= ferrite_server_add_tool_with_task_support(server, S(TOOL("plain")), FERRITE_TASK_SUPPORT_FORBIDDEN, tool_plain,
                                                    NULL, NULL) == FERRITE_RESULT_OK;
    CHECK(ok, "tasks: tools register with each task support, by parameter and by execution.taskSupport");
}

/* 2025-11-25: a session on a connection whose send callback plays the client. */
static void check_2025(ferrite_server *server) {
    outbox box = {0};
    pthread_mutex_init(&box.mu, NULL);
    pthread_cond_init(&box.cv, NULL);
    ferrite_connection *conn = NULL;
    ferrite_connection_new(server, outbox_send, &box, NULL, &conn);
    char *r = raw_on(server, conn, V2025_INIT);
    CHECK(is(r, "/result/capabilities/tasks/requests/tools/call", "{}"),
          "tasks 2025-11-25: a server with task tools advertises tasks.requests.tools.call");
    ferrite_string_free(r);
    ferrite_string_free(raw_on(server, conn, INITIALIZED));

    r = raw_on(server, conn, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}");
    CHECK(is(r, "/result/tools/0/execution", "{\"taskSupport\":\"optional\",\"x\":1}") ||
              is(r, "/result/tools/0/execution", "{\"x\":1,\"taskSupport\":\"optional\"}"),
          "tasks 2025-11-25: the registration's task support is listed in execution, its other keys kept");
    CHECK(is(r, "/result/tools/1/execution/taskSupport", "\"optional\"") &&
              is(r, "/result/tools/4/execution/taskSupport", "\"required\"") &&
              is(r, "/result/tools/6/execution/taskSupport", "\"forbidden\""),
          "tasks 2025-11-25: execution.taskSupport from the JSON and from the parameter are listed");
    ferrite_string_free(r);

    r = raw_on(server, conn, CALL(3, "t_sync", ""));
    CHECK(is(r, "/result/content/0/text", "\"sync is_task=0\""),
          "tasks 2025-11-25: an ordinary call of a task tool runs inline and ferrite_request_is_task is false");
    ferrite_string_free(r);

    char id[128], msg[512];
    r = raw_on(server, conn, CALL(4, "t_sync", AS_TASK));
    string_at(r, "/result/task/taskId", id, sizeof id);
    CHECK(strlen(id) == 32 && is(r, "/result/task/ttl", "60000"),
          "tasks 2025-11-25: a synchronous handler's task-augmented call returns the task at once");
    ferrite_string_free(r);
    snprintf(msg, sizeof msg, "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tasks/result\",\"params\":{\"taskId\":\"%s\"}}", id);
    r = raw_on(server, conn, msg);
    char related[160];
    snprintf(related, sizeof related, "{\"taskId\":\"%s\"}", id);
    CHECK(is(r, "/result/content/0/text", "\"sync is_task=1\"") &&
              is(r, "/result/_meta/io.modelcontextprotocol~1related-task", related),
          "tasks 2025-11-25: a synchronous handler completes as a task (is_task true), tasks/result gives its result");
    ferrite_string_free(r);

    r = raw_on(server, conn, CALL(6, "t_fail_status", AS_TASK));
    string_at(r, "/result/task/taskId", id, sizeof id);
    ferrite_string_free(r);
    snprintf(msg, sizeof msg, "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tasks/result\",\"params\":{\"taskId\":\"%s\"}}", id);
    r = raw_on(server, conn, msg);
    CHECK(is(r, "/error/code", "-32603"),
          "tasks 2025-11-25: a handler returning a failing status ends its task failed, tasks/result gives -32603");
    ferrite_string_free(r);
    snprintf(msg, sizeof msg, "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"tasks/get\",\"params\":{\"taskId\":\"%s\"}}", id);
    r = raw_on(server, conn, msg);
    CHECK(is(r, "/result/status", "\"failed\""), "tasks 2025-11-25: that task's status is failed");
    ferrite_string_free(r);

    r = raw_on(server, conn, CALL(9, "t_confirm", AS_TASK));
    string_at(r, "/result/task/taskId", id, sizeof id);
    ferrite_string_free(r);
    pending_call result = {server, conn, "", NULL, 0};
    snprintf(result.msg, sizeof result.msg,
             "{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"tasks/result\",\"params\":{\"taskId\":\"%s\"}}", id);
    pthread_create(&result.thread, NULL, pending_run, &result);
    const char *ask = outbox_wait(&box, 0);
    snprintf(related, sizeof related, "{\"taskId\":\"%s\"}", id);
    CHECK(is(ask, "/method", "\"elicitation/create\"") && is(ask, "/params/message", "\"Sure?\"") &&
              is(ask, "/params/_meta/io.modelcontextprotocol~1related-task", related),
          "tasks 2025-11-25: ferrite_request_elicit in a task sends elicitation/create tied to the task");
    char ask_id[64] = "", answer[256];
    char *raw_id = at(ask, "/id");
    snprintf(ask_id, sizeof ask_id, "%s", raw_id ? raw_id : "0");
    ferrite_string_free(raw_id);
    snprintf(answer, sizeof answer, "{\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"action\":\"accept\",\"content\":{\"ok\":true}}}",
             ask_id);
    ferrite_string_free(raw_on(server, conn, answer));
    pthread_join(result.thread, NULL);
    CHECK(is(result.out, "/result/content/0/text", "\"confirmed accept\""),
          "tasks 2025-11-25: ferrite_request_elicit in a task reaches the client through tasks/result and its answer "
          "completes the task");
    ferrite_string_free(result.out);

    r = raw_on(server, conn, CALL(11, "plain", ""));
    CHECK(is(r, "/result/content/0/text", "\"plain\""), "tasks 2025-11-25: after a failed task the server keeps serving");
    ferrite_string_free(r);

    /* A task outlives the connection that created it: only tasks/cancel or its ttl ends it. */
    ferrite_connection *other = NULL;
    ferrite_connection_new(server, NULL, NULL, NULL, &other);
    ferrite_string_free(raw_on(server, other, V2025_INIT));
    ferrite_string_free(raw_on(server, other, INITIALIZED));
    r = raw_on(server, other, CALL(12, "t_wait", ",\"task\":{\"ttl\":600}"));
    CHECK(is(r, "/result/task/status", "\"working\""), "tasks 2025-11-25: a task that waits is created");
    ferrite_string_free(r);
    ferrite_connection_free(other);
    sleep_ms(200);
    CHECK(atomic_load(&saw_cancel) == 0 && atomic_load(&not_cancelled) == 0,
          "tasks 2025-11-25: freeing the connection that created a task does not cancel its handler");
    CHECK(wait_for(&saw_cancel, 1),
          "tasks 2025-11-25: a task still running when its ttl passes ends, and its handler observes the cancellation");

    ferrite_connection_free(conn);
    outbox_free(&box);
    pthread_mutex_destroy(&box.mu);
    pthread_cond_destroy(&box.cv);
}

/* 2026-07-28: stateless requests declaring the tasks extension, through handle_raw. */
static void check_2026(ferrite_server *server) {
    char id[128];
    char *r = raw(server, CALL(20, "t_pending", ENVELOPE));
    string_at(r, "/result/taskId", id, sizeof id);
    CHECK(is(r, "/result/resultType", "\"task\"") && strlen(id) == 32,
          "tasks 2026-07-28: a PENDING handler still running after the inline window becomes a task");
    ferrite_string_free(r);
    r = poll_modern(server, id, "completed");
    CHECK(is(r, "/result/result/content/0/text", "\"pending is_task=1\""),
          "tasks 2026-07-28: a handler completed later from another thread completes as a task (is_task true)");
    ferrite_string_free(r);

    r = raw(server, CALL(21, "t_fail_later", ENVELOPE));
    string_at(r, "/result/taskId", id, sizeof id);
    ferrite_string_free(r);
    r = poll_modern(server, id, "failed");
    CHECK(is(r, "/result/status", "\"failed\"") && is(r, "/result/error/code", "-32603") &&
              is(r, "/result/error/message", "\"it went wrong\""),
          "tasks 2026-07-28: ferrite_request_fail from another thread ends the task failed with -32603 and its message");
    ferrite_string_free(r);
    r = raw(server, CALL(22, "plain", ENVELOPE));
    CHECK(is(r, "/result/content/0/text", "\"plain\""), "tasks 2026-07-28: after a failed task the server keeps serving");
    ferrite_string_free(r);

    r = raw(server, CALL(23, "t_confirm", ENVELOPE));
    string_at(r, "/result/taskId", id, sizeof id);
    ferrite_string_free(r);
    r = poll_modern(server, id, "input_required");
    /* The one input request's key: the first member of inputRequests. */
    char key[64] = "";
    const char *members = r ? strstr(r, "\"inputRequests\":{\"") : NULL;
    if (members) {
        members += strlen("\"inputRequests\":{\"");
        size_t n = strcspn(members, "\"");
        snprintf(key, sizeof key, "%.*s", (int)(n < sizeof key ? n : sizeof key - 1), members);
    }
    char pointer[128];
    snprintf(pointer, sizeof pointer, "/result/inputRequests/%s/params/message", key);
    CHECK(key[0] && is(r, pointer, "\"Sure?\""),
          "tasks 2026-07-28: ferrite_request_elicit in a task shows as the task's input request");
    ferrite_string_free(r);
    char responses[160];
    snprintf(responses, sizeof responses, "{\"%s\":{\"action\":\"decline\"}}", key);
    ferrite_string_free(modern_task_call(server, "tasks/update", id, responses));
    r = poll_modern(server, id, "completed");
    CHECK(is(r, "/result/result/content/0/text", "\"confirmed decline\""),
          "tasks 2026-07-28: tasks/update answers it and the reply callback completes the task");
    ferrite_string_free(r);

    int before = atomic_load(&cancel_finalized);
    r = raw(server, CALL(24, "t_wait", ENVELOPE));
    string_at(r, "/result/taskId", id, sizeof id);
    ferrite_string_free(r);
    ferrite_string_free(modern_task_call(server, "tasks/cancel", id, NULL));
    r = poll_modern(server, id, "cancelled");
    CHECK(is(r, "/result/status", "\"cancelled\""), "tasks 2026-07-28: tasks/cancel cancels the running task");
    ferrite_string_free(r);
    CHECK(wait_for(&saw_cancel, 2) && atomic_load(&not_cancelled) == 0 && wait_for(&cancel_finalized, before + 1),
          "tasks 2026-07-28: the cancelled task's handler observes it (on_cancel runs, is_cancelled is true)");
}

/* ferrite_server_stats: the core's counters as JSON. */
static bool stats_are(ferrite_server *server, const char *expected) {
    char *out = NULL;
    bool ok = ferrite_server_stats(server, &out, NULL) == FERRITE_RESULT_OK && out && strcmp(out, expected) == 0;
    if (!ok) {
        printf("# stats: %s\n# expected: %s\n", out ? out : "(failed)", expected);
    }
    ferrite_string_free(out);
    return ok;
}

void check_tasks(void) {
    ferrite_server *server = NULL;
    if (ferrite_server_new(S("{\"name\":\"abi-tasks\",\"version\":\"1.0.0\"}"), FERRITE_SERVER_MODE_STATEFUL, NULL, 0,
                           &server) != FERRITE_RESULT_OK) {
        fprintf(stderr, "ferrite_server_new: %s\n", ferrite_last_error());
        exit(2);
    }
    CHECK(stats_are(server, "{\"sseStreams\":0,\"tasksRunning\":0,\"tasksCreated\":0,\"storeRoundTrips\":0}"),
          "ferrite_server_stats: a new server has counted nothing");
    check_registration(server);
    check_2025(server);
    /* check_2025 created four tasks (t_sync, t_fail_status, t_confirm, t_wait), all ended. */
    for (int i = 0; i < 100; i++) {
        char *out = NULL;
        ferrite_server_stats(server, &out, NULL);
        bool idle = out && strstr(out, "\"tasksRunning\":0");
        ferrite_string_free(out);
        if (idle) {
            break;
        }
        sleep_ms(20);
    }
    CHECK(stats_are(server, "{\"sseStreams\":0,\"tasksRunning\":0,\"tasksCreated\":4,\"storeRoundTrips\":0}"),
          "ferrite_server_stats: the tasks created, none running once they ended");
    check_2026(server);
    /* A fleet's store (ferrite_server_use_redis; the fleet conformance run uses a real Redis):
     * refused once tasks have begun, and a malformed URL is the core's message. */
    CHECK(ferrite_server_use_redis(server, S("redis://127.0.0.1:1/"), NULL, 0) == FERRITE_RESULT_TASKS_STARTED,
          "use_redis after the first task: TASKS_STARTED");
    ferrite_server_free(server);
    ferrite_server *fresh = NULL;
    if (ferrite_server_new(S("{\"name\":\"abi-fleet\",\"version\":\"1.0.0\"}"), FERRITE_SERVER_MODE_STATELESS, NULL, 0,
                           &fresh) != FERRITE_RESULT_OK) {
        fprintf(stderr, "ferrite_server_new: %s\n", ferrite_last_error());
        exit(2);
    }
    CHECK(ferrite_server_use_redis(fresh, S("not a url"), NULL, 0) == FERRITE_RESULT_INVALID_ARGUMENT &&
              strncmp(ferrite_last_error(), "redis URL \"not a url\": ", 23) == 0,
          "use_redis with a malformed URL: INVALID_ARGUMENT naming it");
    CHECK(ferrite_server_use_redis(fresh, S("redis://127.0.0.1:1/"), S("abi:")) == FERRITE_RESULT_OK,
          "use_redis connects lazily: an unreachable Redis is not an error here");
    ferrite_server_free(fresh);
}
