/* The everything server's fleet fixture (issue 14): test_trigger_resource_update publishes a
 * resource update, which the core delivers to the uri's subscribers on this instance and, with
 * --redis, on every other instance of the fleet. A multi-instance test calls it through one
 * instance and expects the update on a stream another instance holds. */
#include "everything.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* user_data: the server. */
static uint32_t tool_trigger_resource_update(void *user_data, ferrite_request *req) {
    const ferrite_server *server = user_data;
    ferrite_str uri = arg_str(req, "/uri");
    size_t reached = 0;
    ferrite_result rc = ferrite_server_notify_resource_updated(server, uri.ptr, uri.len, &reached);
    if (rc != FERRITE_RESULT_OK) {
        return ferrite_request_fail(req, ferrite_last_error(), strlen(ferrite_last_error()));
    }
    buf text = {0};
    char count[32];
    snprintf(count, sizeof count, " updated (%zu listeners)", reached);
    buf_str(&text, "resource ");
    buf_add(&text, uri.ptr, uri.len);
    buf_str(&text, count);
    uint32_t out = complete_text(req, text.p, text.len);
    free(text.p);
    return out;
}

void register_fleet(ferrite_server *server) {
    add_tool(server,
             "{\"name\":\"test_trigger_resource_update\",\"description\":\"Announces that the resource uri was "
             "updated (to its subscribers on every instance)\",\"inputSchema\":{\"type\":\"object\",\"properties\":{"
             "\"uri\":{\"type\":\"string\",\"description\":\"The resource that changed\"}},\"required\":[\"uri\"]}}",
             tool_trigger_resource_update, server);
}
