/* The C everything server: the task fixtures of examples/SURFACE.md ("Task fixtures"). See
 * everything.c.
 *
 * Each tool declares its task support at registration (ferrite_server_add_tool_with_task_support);
 * the handlers are ordinary handlers, and the core decides per call whether one runs inline or
 * as a task's body (ferrite_request_is_task tells it which). Slow work runs on a thread of its own
 * after the handler returned FERRITE_RESULT_PENDING, polling ferrite_request_is_cancelled, which
 * inside a task is the task's cancellation (tasks/cancel). confirm_delete and multi_input ask the
 * user with ferrite_request_elicit inside the task (the request waits in the task until the
 * client answers); test_tool_with_task replies "input required" before any task exists (MRTR),
 * then works as a task. */
#include "everything.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TASK_ELICIT(message, schema) \
    "{\"method\":\"elicitation/create\",\"params\":{\"message\":\"" message "\",\"requestedSchema\":" schema "}}"
#define NAME_FORM "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"}},\"required\":[\"name\"]}"
#define CONFIRM_FORM                                                                                    \
    "{\"type\":\"object\",\"properties\":{\"confirm\":{\"type\":\"boolean\"}},\"required\":[\"confirm\"]}"
#define TWO_FIELD_FORM \
    "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"},\"confirm\":{\"type\":\"boolean\"}}}"

/* ------------------------------------------------------------------ work on a thread */

/* What a job does once its wait is over (it settles the request); `text` is the job's own. */
typedef uint32_t (*job_done)(ferrite_request *req, const char *text);

typedef struct {
    ferrite_request *req;
    long ms;
    job_done done;
    char *text;
} job;

/* Wait job->ms in 10 ms steps; cancelled first (the call, or the task): fail with "cancelled". */
static void *job_thread(void *arg) {
    job *j = arg;
    struct timespec start, now;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (;;) {
        bool cancelled = false;
        ferrite_request_is_cancelled(j->req, &cancelled);
        if (cancelled) {
            ferrite_request_fail(j->req, S("cancelled"));
            break;
        }
        clock_gettime(CLOCK_MONOTONIC, &now);
        long elapsed = (long)(now.tv_sec - start.tv_sec) * 1000L + (now.tv_nsec - start.tv_nsec) / 1000000L;
        if (elapsed >= j->ms) {
            j->done(j->req, j->text);
            break;
        }
        sleep_ms(j->ms - elapsed < 10 ? j->ms - elapsed : 10);
    }
    free(j->text);
    free(j);
    return NULL;
}

/* Run `done` after `ms` on a thread of its own; `text` (copied, may be NULL) is handed to it. */
static uint32_t after(ferrite_request *req, long ms, job_done done, const char *text, size_t len) {
    job *j = malloc(sizeof *j);
    *j = (job){req, ms, done, NULL};
    if (text) {
        j->text = malloc(len + 1);
        memcpy(j->text, text, len);
        j->text[len] = '\0';
    }
    pthread_t t;
    if (pthread_create(&t, NULL, job_thread, j) != 0) {
        free(j->text);
        free(j);
        return ferrite_request_fail(req, S("cannot start a thread"));
    }
    pthread_detach(t);
    return FERRITE_RESULT_PENDING;
}

static uint32_t done_text(ferrite_request *req, const char *text) { return complete_text_z(req, text); }

/* ------------------------------------------------------------------ the fixtures */

/* greet (forbidden): at once. */
static uint32_t tool_greet(void *user_data, ferrite_request *req) {
    (void)user_data;
    ferrite_str name = arg_str(req, "/name");
    buf b = {0};
    buf_str(&b, "Hello, ");
    buf_add(&b, name.ptr, name.len);
    buf_str(&b, "!");
    uint32_t rc = complete_text(req, b.p, b.len);
    free(b.p);
    return rc;
}

/* slow_compute (optional): waits `seconds` (default 1), then "<label>: computed for <seconds> s". */
static uint32_t tool_slow_compute(void *user_data, ferrite_request *req) {
    (void)user_data;
    double seconds = 1;
    ferrite_str args = {"{}", 2};
    ferrite_request_arguments(req, &args);
    char *raw = NULL;
    if (ferrite_json_get(args.ptr, args.len, S("/seconds"), &raw, NULL) == FERRITE_RESULT_OK) {
        seconds = strtod(raw, NULL);
        ferrite_string_free(raw);
    }
    seconds = seconds < 0 ? 0 : seconds > 3600 ? 3600 : seconds;
    ferrite_str label = {"slow_compute", 12};
    ferrite_request_argument_string(req, S("/label"), &label); /* absent: unchanged */
    char text[256];
    int n = snprintf(text, sizeof text, "%.*s: computed for %g s", (int)label.len, label.ptr, seconds);
    return after(req, (long)(seconds * 1000 + 0.5), done_text, text, n < (int)sizeof text ? (size_t)n : sizeof text - 1);
}

/* failing_job (required): a tool error after a second. */
static uint32_t done_tool_error(ferrite_request *req, const char *text) {
    (void)text;
    static const char RESULT[] =
        "{\"content\":[{\"type\":\"text\",\"text\":\"failing_job failed, as it always does\"}],\"isError\":true}";
    return ferrite_request_complete(req, S(RESULT));
}
static uint32_t tool_failing_job(void *user_data, ferrite_request *req) {
    (void)user_data;
    return after(req, 1000, done_tool_error, NULL, 0);
}

/* protocol_error_job (required): the JSON-RPC error -32603 after 300 ms. */
static uint32_t done_protocol_error(ferrite_request *req, const char *text) {
    (void)text;
    return ferrite_request_fail_rpc(req, -32603, S("protocol_error_job failed with a protocol error"), NULL, 0);
}
static uint32_t tool_protocol_error_job(void *user_data, ferrite_request *req) {
    (void)user_data;
    return after(req, 300, done_protocol_error, NULL, 0);
}

/* Whether an ElicitResult accepted. */
static bool accepted_answer(ferrite_str json) {
    char *action = string_at(json, "/action");
    bool yes = action && strcmp(action, "accept") == 0;
    ferrite_string_free(action);
    return yes;
}

/* Fail the request with why the client could not answer. */
static void no_answer(ferrite_request *req, const char *what, ferrite_str error) {
    buf b = {0};
    buf_str(&b, what);
    buf_add(&b, error.ptr, error.len);
    ferrite_request_fail(req, b.p, b.len);
    free(b.p);
}

/* confirm_delete (required): asks in the task, then "Deleted <filename>" or "Kept <filename>". */
static void confirm_reply(void *user_data, ferrite_result result, ferrite_str json, ferrite_str error) {
    ferrite_request *req = user_data;
    if (result != FERRITE_RESULT_OK) {
        no_answer(req, "no confirmation: ", error);
        return;
    }
    ferrite_str file = arg_str(req, "/filename");
    buf b = {0};
    buf_str(&b, accepted_answer(json) ? "Deleted " : "Kept ");
    buf_add(&b, file.ptr, file.len);
    complete_text(req, b.p, b.len);
    free(b.p);
}
static uint32_t tool_confirm_delete(void *user_data, ferrite_request *req) {
    (void)user_data;
    ferrite_str file = arg_str(req, "/filename");
    buf message = {0}, params = {0};
    buf_str(&message, "Delete ");
    buf_add(&message, file.ptr, file.len);
    buf_str(&message, "?");
    buf_str(&params, "{\"message\":");
    buf_quoted(&params, message.p, message.len);
    buf_str(&params, ",\"requestedSchema\":" CONFIRM_FORM "}");
    ferrite_result rc = ferrite_request_elicit(req, params.p, params.len, confirm_reply, req, NULL);
    free(message.p);
    free(params.p);
    if (rc != FERRITE_RESULT_OK) {
        const char *why = ferrite_last_error();
        return ferrite_request_fail(req, why, strlen(why));
    }
    return FERRITE_RESULT_PENDING;
}

/* multi_input (required): two questions at once; the second answer to arrive completes it. The
 * shared state is freed by the second finalizer. */
typedef struct {
    ferrite_request *req;
    atomic_int answers, finalized, failed;
    atomic_bool accepted[2];
} two_questions;

typedef struct {
    two_questions *q;
    int which;
} question;

static void question_reply(void *user_data, ferrite_result result, ferrite_str json, ferrite_str error) {
    question *one = user_data;
    two_questions *q = one->q;
    if (result != FERRITE_RESULT_OK) {
        if (atomic_fetch_add(&q->failed, 1) == 0) {
            no_answer(q->req, "no answer: ", error); /* settles it: the other answer is ignored */
        }
    } else {
        atomic_store(&q->accepted[one->which], accepted_answer(json));
    }
    if (atomic_fetch_add(&q->answers, 1) == 1 && atomic_load(&q->failed) == 0) {
        char text[64];
        int n = snprintf(text, sizeof text, "first accepted: %s, second accepted: %s",
                         atomic_load(&q->accepted[0]) ? "true" : "false", atomic_load(&q->accepted[1]) ? "true" : "false");
        complete_text(q->req, text, (size_t)n);
    }
}
static void question_finalize(void *user_data) {
    question *one = user_data;
    two_questions *q = one->q;
    free(one);
    if (atomic_fetch_add(&q->finalized, 1) == 1) {
        free(q);
    }
}
static uint32_t tool_multi_input(void *user_data, ferrite_request *req) {
    (void)user_data;
    static const char *const PARAMS[2] = {
        "{\"message\":\"First question\",\"requestedSchema\":" TWO_FIELD_FORM "}",
        "{\"message\":\"Second question\",\"requestedSchema\":" TWO_FIELD_FORM "}",
    };
    two_questions *q = calloc(1, sizeof *q);
    q->req = req;
    for (int i = 0; i < 2; i++) {
        question *one = malloc(sizeof *one);
        *one = (question){q, i};
        if (ferrite_request_elicit(req, PARAMS[i], strlen(PARAMS[i]), question_reply, one, question_finalize) !=
            FERRITE_RESULT_OK) {
            /* Its finalizer ran. Nothing asked yet: q is ours alone. The first question asked:
             * its reply (if it fails first, it settles the request) and finalizer free q. */
            const char *why = ferrite_last_error();
            if (i == 0) {
                free(q);
                return ferrite_request_fail(req, why, strlen(why));
            }
            return atomic_fetch_add(&q->failed, 1) == 0 ? ferrite_request_fail(req, why, strlen(why)) : FERRITE_RESULT_OK;
        }
    }
    return FERRITE_RESULT_PENDING;
}

/* test_tool_with_task (required): MRTR first (before the task exists), then a task that greets
 * after 200 ms. */
static uint32_t tool_with_task(void *user_data, ferrite_request *req) {
    (void)user_data;
    ferrite_str answer = {NULL, 0};
    ferrite_request_input_response(req, S("user_name"), &answer);
    if (!answer.ptr) {
        static const char ASK[] = "{\"user_name\":" TASK_ELICIT("What is your name?", NAME_FORM) "}";
        return ferrite_request_input_required(req, S(ASK), NULL, 0);
    }
    char *name = string_at(answer, "/content/name");
    char text[256];
    int n = snprintf(text, sizeof text, "Hello, %s!", name ? name : "stranger");
    ferrite_string_free(name);
    return after(req, 200, done_text, text, n < (int)sizeof text ? (size_t)n : sizeof text - 1);
}

/* ------------------------------------------------------------------ registration */

static void add_task_tool(ferrite_server *server, const char *json, ferrite_task_support support,
                          ferrite_tool_callback fn) {
    ferrite_result rc = ferrite_server_add_tool_with_task_support(server, json, strlen(json), support, fn, NULL, NULL);
    if (rc != FERRITE_RESULT_OK) {
        die(json, rc);
    }
}

void register_tasks(ferrite_server *server) {
    add_task_tool(server,
                  "{\"name\":\"greet\",\"description\":\"Greets someone at once (never a task)\",\"inputSchema\":{"
                  "\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"}},\"required\":[\"name\"]}}",
                  FERRITE_TASK_SUPPORT_FORBIDDEN, tool_greet);
    add_task_tool(server,
                  "{\"name\":\"slow_compute\",\"description\":\"Works for `seconds` seconds, then answers (a task when "
                  "the client can take one)\",\"inputSchema\":{\"type\":\"object\",\"properties\":{\"seconds\":{\"type\":"
                  "\"number\",\"minimum\":0},\"label\":{\"type\":\"string\"}}}}",
                  FERRITE_TASK_SUPPORT_OPTIONAL, tool_slow_compute);
    add_task_tool(server,
                  SIMPLE_TOOL("failing_job", "Fails as a tool (isError) after a second; only as a task"),
                  FERRITE_TASK_SUPPORT_REQUIRED, tool_failing_job);
    add_task_tool(server,
                  SIMPLE_TOOL("protocol_error_job", "Fails with a JSON-RPC error after 300 ms; only as a task"),
                  FERRITE_TASK_SUPPORT_REQUIRED, tool_protocol_error_job);
    add_task_tool(server,
                  "{\"name\":\"confirm_delete\",\"description\":\"Asks the user to confirm deleting a file; only as a "
                  "task\",\"inputSchema\":{\"type\":\"object\",\"properties\":{\"filename\":{\"type\":\"string\"}},"
                  "\"required\":[\"filename\"]}}",
                  FERRITE_TASK_SUPPORT_REQUIRED, tool_confirm_delete);
    add_task_tool(server, SIMPLE_TOOL("multi_input", "Asks two questions at once; only as a task"),
                  FERRITE_TASK_SUPPORT_REQUIRED, tool_multi_input);
    add_task_tool(server,
                  SIMPLE_TOOL("test_tool_with_task", "Asks for a name (before the task exists), then greets as a task"),
                  FERRITE_TASK_SUPPORT_REQUIRED, tool_with_task);
}
