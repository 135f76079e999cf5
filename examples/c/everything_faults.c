/* The fault tools (examples/SURFACE.md, "Fault tools"; tests/faults): handlers that fail the
 * ways a C handler can, so a test can show the server keeps serving and leaks nothing. */
#include "everything.h"

#include <pthread.h>
#include <stdlib.h>

#define FAULT_REJECT_MESSAGE "test_fault_reject: the handler failed after it returned"

/* The worst a C handler can do through the ABI: return a failure code without settling. */
static uint32_t tool_fault_crash(void *user_data, ferrite_request *req) {
    (void)user_data;
    (void)req;
    return FERRITE_RESULT_HANDLER_FAILED;
}

static void *reject_thread(void *arg) {
    ferrite_request *req = arg;
    sleep_ms(1);
    ferrite_request_fail(req, S(FAULT_REJECT_MESSAGE));
    return NULL;
}

/* Pending, then failed from another thread. */
static uint32_t tool_fault_reject(void *user_data, ferrite_request *req) {
    (void)user_data;
    return run_later(reject_thread, req);
}

/* A result that is not JSON at all; the core settles the request anyway. */
static uint32_t tool_fault_bad_result(void *user_data, ferrite_request *req) {
    (void)user_data;
    ferrite_request_complete(req, S("{\"content\": ["));
    return FERRITE_RESULT_OK;
}

/* Never completes unless cancelled; then counts the cancellation with test_slow's. */
static void *hang_thread(void *arg) {
    ferrite_request *req = arg;
    for (;;) {
        bool cancelled = false;
        ferrite_request_is_cancelled(req, &cancelled);
        if (cancelled) {
            count_cancellation();
            complete_text_z(req, "cancelled");
            return NULL;
        }
        sleep_ms(10);
    }
}

static uint32_t tool_fault_hang(void *user_data, ferrite_request *req) {
    (void)user_data;
    return run_later(hang_thread, req);
}

void register_faults(ferrite_server *server) {
    add_tool(server, SIMPLE_TOOL("test_fault_crash", FAULT_CRASH_DESCRIPTION), tool_fault_crash, NULL);
    add_tool(server, SIMPLE_TOOL("test_fault_reject", FAULT_REJECT_DESCRIPTION), tool_fault_reject, NULL);
    add_tool(server, SIMPLE_TOOL("test_fault_bad_result", FAULT_BAD_RESULT_DESCRIPTION), tool_fault_bad_result, NULL);
    add_tool(server, SIMPLE_TOOL("test_fault_hang", FAULT_HANG_DESCRIPTION), tool_fault_hang, NULL);
}
