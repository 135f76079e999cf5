/*
 * Composition from C (issue 16): ferrite_server_mount / ferrite_server_unmount. Each check names
 * what it asserts: a child's tool and resource template are served by the parent under the
 * prefix, in both eras; the child's reader gets its own URI and the contents go out under the
 * parent's; the mount is live (a tool the child adds later is served); the child's list-changed
 * notification reaches the parent's clients (ferrite_server_notify_tools_list_changed on the
 * child counts the parent's listeners); a bad prefix and a cycle are INVALID_ARGUMENT; unmount
 * takes the child's entries out (the parent, with no tools left, answers tools/call -32601) and a
 * second unmount is NOT_FOUND; freeing a mounted child unmounts it first (the parent keeps
 * serving, without the child's tools).
 *
 * And proxying (ferrite_server_proxy): a server in front of this very program's "serve" mode (a
 * Ferrite C server on stdio, started as the upstream child) answers tools/call add in both eras
 * through the child; a missing program is FERRITE_RESULT_UPSTREAM and a description without
 * command or url is INVALID_ARGUMENT, each with the core's reason; closing the proxy stops it.
 */
#include "abi_test.h"
#include "abi_server.h"
#include "abi_frames.h"

#define INIT                                                                                                   \
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\"," \
    "\"capabilities\":{},\"clientInfo\":{\"name\":\"abi-compose\",\"version\":\"0\"}}}"
#define ADD_JSON                                                                                         \
    "{\"name\":\"add\",\"inputSchema\":{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"integer\"}," \
    "\"b\":{\"type\":\"integer\"}},\"required\":[\"a\",\"b\"]}}"
#define CITY_TEMPLATE "{\"uriTemplate\":\"data://cities/{city}\",\"name\":\"city\"}"

static char read_uri[128]; /* the URI the child's reader was asked for */

static uint32_t read_city(void *u, ferrite_request *req, ferrite_str uri, ferrite_str vars) {
    (void)u;
    (void)vars;
    size_t n = uri.len < sizeof read_uri - 1 ? uri.len : sizeof read_uri - 1;
    memcpy(read_uri, uri.ptr, n);
    read_uri[n] = '\0';
    char json[256];
    int len = snprintf(json, sizeof json, "{\"contents\":[{\"uri\":\"%s\",\"text\":\"a city\"}]}", read_uri);
    return ferrite_request_complete(req, json, (size_t)len);
}

static ferrite_server *compose_server(const char *name) {
    ferrite_server *server = NULL;
    char info[128];
    int n = snprintf(info, sizeof info, "{\"name\":\"%s\",\"version\":\"1.0.0\"}", name);
    if (ferrite_server_new(info, (size_t)n, FERRITE_SERVER_MODE_STATEFUL, NULL, 0, &server) != FERRITE_RESULT_OK) {
        fprintf(stderr, "abi_compose: server: %s\n", ferrite_last_error());
        exit(2);
    }
    return server;
}

static void check_proxy(void) {
    ferrite_server *proxy = compose_server("abi-proxy");
    char upstream[1024];
    int n = snprintf(upstream, sizeof upstream, "{\"command\":\"%s\",\"args\":[\"serve\"]}", self_path);
    CHECK(n > 0 && (size_t)n < sizeof upstream && ferrite_server_proxy(proxy, upstream, (size_t)n) == FERRITE_RESULT_OK,
          "proxy: this program's stdio server as the upstream child connects");
    ferrite_string_free(call(proxy, INIT));
    CHECK(responds(proxy, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"add\","
                          "\"arguments\":{\"a\":20,\"b\":22}}}",
                   "\"text\":\"42\""),
          "proxy: the upstream's add answers through the proxy (handshake era)");
    CHECK(responds(proxy, MODERN(3, "tools/call", "\"name\":\"add\",\"arguments\":{\"a\":1,\"b\":2},", "{}"),
                   "\"text\":\"3\""),
          "proxy: the upstream's add answers through the proxy (2026-07-28)");
    CHECK(ferrite_server_proxy(proxy, S("{\"command\":\"/nonexistent/mcp-server\"}")) == FERRITE_RESULT_UPSTREAM &&
              strstr(ferrite_last_error(), "upstream server") != NULL,
          "proxy: a program that does not exist is FERRITE_RESULT_UPSTREAM naming the upstream (under valgrind the "
          "failed exec shows as the child exiting)");
    CHECK(ferrite_server_proxy(proxy, S("{\"port\":1}")) == FERRITE_RESULT_INVALID_ARGUMENT &&
              strstr(ferrite_last_error(), "command") != NULL,
          "proxy: a description with neither command nor url is INVALID_ARGUMENT");
    CHECK(ferrite_server_proxy(proxy, S("{\"url\":\"http://127.0.0.1:9/mcp\",\"timeout_ms\":0}")) ==
                  FERRITE_RESULT_INVALID_ARGUMENT &&
              strstr(ferrite_last_error(), "timeout_ms must be a positive whole number") != NULL,
          "proxy: a timeout_ms of 0 is INVALID_ARGUMENT naming it");
    CHECK(ferrite_server_proxy(proxy, S("{\"command\":")) == FERRITE_RESULT_INVALID_JSON,
          "proxy: a description that does not parse is INVALID_JSON");
    ferrite_server_free(proxy);
}

void check_compose(void) {
    check_proxy();
    ferrite_server *parent = compose_server("abi-compose-parent");
    ferrite_server *child = compose_server("abi-compose-child");
    ferrite_server_add_tool(child, S(ADD_JSON), tool_add, NULL, NULL);
    ferrite_server_add_resource_template(child, S(CITY_TEMPLATE), read_city, NULL, NULL);
    CHECK(ferrite_server_mount(parent, S("math"), child) == FERRITE_RESULT_OK, "compose: mount under \"math\" is OK");
    char *r = call(parent, INIT);
    ferrite_string_free(r);
    CHECK(responds(parent, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}", "\"name\":\"math_add\""),
          "compose: the child's tool is listed as math_add");
    CHECK(responds(parent, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"math_add\","
                           "\"arguments\":{\"a\":2,\"b\":3}}}",
                   "\"text\":\"5\""),
          "compose: math_add runs the child's handler (handshake era)");
    CHECK(responds(parent,
                   MODERN(4, "tools/call", "\"name\":\"math_add\",\"arguments\":{\"a\":4,\"b\":4},", "{}"),
                   "\"text\":\"8\""),
          "compose: math_add runs the child's handler (2026-07-28)");
    CHECK(responds(parent, "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"resources/templates/list\"}",
                   "\"uriTemplate\":\"data://math/cities/{city}\""),
          "compose: the child's template is listed under the prefix");
    CHECK(responds(parent, "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"resources/read\",\"params\":{\"uri\":"
                           "\"data://math/cities/oslo\"}}",
                   "\"uri\":\"data://math/cities/oslo\"") &&
              strcmp(read_uri, "data://cities/oslo") == 0,
          "compose: the child reads its own URI; the contents go out under the parent's");

    ferrite_server_add_tool(child, S(TOOL("later")), tool_add, NULL, NULL);
    CHECK(responds(parent, "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/list\"}", "\"name\":\"math_later\""),
          "compose: a tool the child adds after the mount is served by the parent");
    outbox box = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};
    ferrite_connection *conn = NULL;
    ferrite_connection_new(parent, outbox_send, &box, NULL, &conn);
    ferrite_string_free(raw_on(parent, conn, INIT));
    size_t reached = 99;
    CHECK(ferrite_server_notify_tools_list_changed(child, &reached) == FERRITE_RESULT_OK && reached == 1,
          "compose: the child's list-changed reaches the parent's one listening connection");
    const char *frame = outbox_wait(&box, 0);
    CHECK(frame && strstr(frame, "\"method\":\"notifications/tools/list_changed\"") != NULL,
          "compose: the parent's connection receives notifications/tools/list_changed");
    ferrite_connection_free(conn);
    outbox_free(&box);

    CHECK(ferrite_server_mount(parent, S("bad prefix"), child) == FERRITE_RESULT_INVALID_ARGUMENT &&
              strstr(ferrite_last_error(), "mount prefix") != NULL,
          "compose: a prefix with a space is INVALID_ARGUMENT with the core's reason");
    CHECK(ferrite_server_mount(child, S("loop"), parent) == FERRITE_RESULT_INVALID_ARGUMENT &&
              strstr(ferrite_last_error(), "cannot be mounted in itself") != NULL,
          "compose: mounting the parent in its child is a cycle, INVALID_ARGUMENT");
    CHECK(ferrite_server_mount(NULL, S("x"), child) == FERRITE_RESULT_NULL_POINTER, "compose: a NULL parent is NULL_POINTER");

    CHECK(ferrite_server_unmount(parent, S("math"), child) == FERRITE_RESULT_OK, "compose: unmount is OK");
    CHECK(ferrite_server_unmount(parent, S("math"), child) == FERRITE_RESULT_NOT_FOUND,
          "compose: a second unmount is NOT_FOUND");
    r = call(parent, "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"tools/call\",\"params\":{\"name\":\"math_add\","
                     "\"arguments\":{\"a\":1,\"b\":1}}}");
    CHECK(int_at(r, "/error/code") == -32601, "compose: after unmount the parent serves no tools: tools/call is -32601");
    ferrite_string_free(r);

    /* Mounted again without a prefix, then the child is freed: the parent stops serving its tools. */
    CHECK(ferrite_server_mount(parent, NULL, 0, child) == FERRITE_RESULT_OK, "compose: mount without a prefix (NULL, 0)");
    CHECK(responds(parent, "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/call\",\"params\":{\"name\":\"add\","
                           "\"arguments\":{\"a\":20,\"b\":22}}}",
                   "\"text\":\"42\""),
          "compose: without a prefix the child's tool keeps its name");
    ferrite_server_free(child);
    r = call(parent, "{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"tools/call\",\"params\":{\"name\":\"add\","
                     "\"arguments\":{\"a\":1,\"b\":1}}}");
    CHECK(int_at(r, "/error/code") == -32601,
          "compose: freeing a mounted child unmounts it; the parent keeps serving (tools/call is -32601, no tools)");
    ferrite_string_free(r);
    ferrite_server_free(parent);
}
