/*
 * The abi-test server's handlers: the tools, resource template, prompts, completer and
 * notification observer of the handshake-era checks (register_all), the MRTR tools and custom
 * methods of the 2026-07-28 checks (register_modern), and what they record for the checks to read.
 */
#include "abi_test.h"
#include "abi_server.h"

/* ---------------------------------------------------------------- handshake-era handlers */

atomic_int finalized;

void count_finalizer(void *user_data) {
    (void)user_data;
    atomic_fetch_add(&finalized, 1);
}

/* add: synchronous, reads its arguments from the request. */
uint32_t tool_add(void *user_data, ferrite_request *req) {
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
atomic_int second_complete_rc;
atomic_int bad_shape_rc;
static uint32_t tool_bad_shape(void *u, ferrite_request *req) {
    (void)u;
    atomic_store(&bad_shape_rc, (int)ferrite_request_complete(req, S("{\"content\":5}")));
    atomic_store(&second_complete_rc, (int)ferrite_request_complete(req, S("{\"content\":[]}")));
    return FERRITE_RESULT_OK;
}
atomic_int reentrant_rc;
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

atomic_int text_on_prompt_rc;
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

atomic_int observed;
char observed_method[64];
atomic_int close_requested;
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

/* Register everything; returns how many finalizers were handed over. */
int register_all(ferrite_server *server) {
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
    ADD_TOOL(TOOL("request_info"), mount_tool_request_info, NULL);
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

ferrite_server *new_server(void) {
    ferrite_server *server = NULL;
    ferrite_result rc = ferrite_server_new(S("{\"name\":\"abi-test\",\"version\":\"1.0.0\"}"),
                                           FERRITE_SERVER_MODE_STATEFUL, S("C ABI test server"), &server);
    if (rc != FERRITE_RESULT_OK) {
        fprintf(stderr, "ferrite_server_new: %s\n", ferrite_last_error());
        exit(2);
    }
    return server;
}

/* ---------------------------------------------------------------- 2026-07-28 handlers */

/* What the first call of ask_name saw (1 = as expected). */
atomic_int first_call_checks = -1;

/* ask_name: MRTR through ferrite_request_input_required. The first call asks user_name,
 * carrying state "step-1"; the retry reports the answer and everything the request says. */
static uint32_t tool_ask_name(void *u, ferrite_request *req) {
    (void)u;
    ferrite_str answer = {"x", 1}, state = {"x", 1}, all = {NULL, 0};
    bool resubmission = true, modern = false;
    if (ferrite_request_input_response(req, S("user_name"), &answer) != FERRITE_RESULT_OK ||
        ferrite_request_request_state(req, &state) != FERRITE_RESULT_OK ||
        ferrite_request_is_resubmission(req, &resubmission) != FERRITE_RESULT_OK ||
        ferrite_request_is_modern(req, &modern) != FERRITE_RESULT_OK ||
        ferrite_request_input_responses(req, &all) != FERRITE_RESULT_OK) {
        return FERRITE_RESULT_HANDLER_FAILED;
    }
    if (answer.ptr == NULL) {
        atomic_store(&first_call_checks, answer.len == 0 && state.ptr == NULL && state.len == 0 && !resubmission &&
                                             modern && all.len == 2 && memcmp(all.ptr, "{}", 2) == 0);
        return ferrite_request_input_required(req, S(ASK_NAME), S("step-1"));
    }
    char *name = NULL, text[512];
    ferrite_json_get_string(answer.ptr, answer.len, S("/content/name"), &name, NULL);
    int n = snprintf(text, sizeof text, "hello %s state=%.*s resubmission=%d responses=%.*s", name ? name : "?",
                     (int)state.len, state.ptr ? state.ptr : "", resubmission, (int)all.len, all.ptr);
    ferrite_string_free(name);
    return ferrite_request_complete_text(req, text, (size_t)n, NULL, 0);
}

/* ask_roots: MRTR through ferrite_request_complete and the wire shape. */
static uint32_t tool_ask_roots(void *u, ferrite_request *req) {
    (void)u;
    ferrite_str roots;
    ferrite_request_input_response(req, S("client_roots"), &roots);
    if (roots.ptr == NULL) {
        return ferrite_request_complete(
            req, S("{\"resultType\":\"input_required\",\"inputRequests\":{\"client_roots\":{\"method\":\"roots/list\"}}}"));
    }
    return ferrite_request_complete_text(req, roots.ptr, roots.len, NULL, 0);
}

/* ir_bad: ferrite_request_input_required with a bad argument, picked by "case". */
atomic_int ir_rc[IR_CASES];
char ir_error[IR_CASES][256];
static uint32_t tool_ir_bad(void *u, ferrite_request *req) {
    (void)u;
    int64_t c = -1;
    ferrite_request_argument_i64(req, S("/case"), &c);
    ferrite_result rc;
    switch (c) {
    case 0:
        rc = ferrite_request_input_required(req, S("{\"k\":{\"method\":\"tools/call\",\"params\":{}}}"), NULL, 0);
        break;
    case 1:
        rc = ferrite_request_input_required(req, NULL, 0, NULL, 0);
        break;
    case 2:
        rc = ferrite_request_input_required(req, S("{\"k\":"), NULL, 0);
        break;
    case 3:
        rc = ferrite_request_input_required(req, S("[1]"), NULL, 0);
        break;
    case 4:
        rc = ferrite_request_input_required(req, NULL, 0, "\xff\xfe", 2);
        break;
    case 5:
        rc = ferrite_request_input_required(req, "{\"\xff\":1}", 6, NULL, 0);
        break;
    default:
        return FERRITE_RESULT_HANDLER_FAILED;
    }
    atomic_store(&ir_rc[c], (int)rc);
    snprintf(ir_error[c], sizeof ir_error[c], "%s", ferrite_last_error());
    /* The rejected reply settled the request: a second completion is refused. */
    return ferrite_request_complete_text(req, S("late"), NULL, 0) == FERRITE_RESULT_ALREADY_COMPLETED
               ? FERRITE_RESULT_OK
               : FERRITE_RESULT_HANDLER_FAILED;
}

/* modern_ctx: what the request says about its revision, an HTTP header and an extension; and
 * how the new getters treat bad arguments (1 = every code as documented). */
atomic_int getter_codes = -1;
static uint32_t tool_modern_ctx(void *u, ferrite_request *req) {
    (void)u;
    bool modern = false, b;
    ferrite_str header = {"x", 1}, ext = {"x", 1}, s;
    if (ferrite_request_is_modern(req, &modern) != FERRITE_RESULT_OK ||
        ferrite_request_header(req, S("mcp-METHOD"), &header) != FERRITE_RESULT_OK ||
        ferrite_request_client_extension(req, S("io.example/ext"), &ext) != FERRITE_RESULT_OK) {
        return FERRITE_RESULT_HANDLER_FAILED;
    }
    atomic_store(&getter_codes,
                 ferrite_request_is_modern(req, NULL) == FERRITE_RESULT_NULL_POINTER &&
                     ferrite_request_is_resubmission(req, NULL) == FERRITE_RESULT_NULL_POINTER &&
                     ferrite_request_header(req, "\xff", 1, &s) == FERRITE_RESULT_INVALID_UTF8 &&
                     ferrite_request_header(req, NULL, 0, &s) == FERRITE_RESULT_NULL_POINTER &&
                     ferrite_request_header(req, S("x"), NULL) == FERRITE_RESULT_NULL_POINTER &&
                     ferrite_request_input_response(req, NULL, 0, &s) == FERRITE_RESULT_NULL_POINTER &&
                     ferrite_request_input_response(req, "\xc3\x28", 2, &s) == FERRITE_RESULT_INVALID_UTF8 &&
                     ferrite_request_input_response(req, S("k"), NULL) == FERRITE_RESULT_NULL_POINTER &&
                     ferrite_request_input_responses(req, NULL) == FERRITE_RESULT_NULL_POINTER &&
                     ferrite_request_request_state(req, NULL) == FERRITE_RESULT_NULL_POINTER &&
                     ferrite_request_client_extension(req, NULL, 0, &s) == FERRITE_RESULT_NULL_POINTER &&
                     ferrite_request_client_extension(req, "\xff", 1, &s) == FERRITE_RESULT_INVALID_UTF8 &&
                     ferrite_request_client_extension(req, S("x/y"), NULL) == FERRITE_RESULT_NULL_POINTER &&
                     ferrite_request_is_modern(NULL, &b) == FERRITE_RESULT_NULL_POINTER);
    char text[256];
    int n = snprintf(text, sizeof text, "modern=%d header=%.*s ext=%.*s", modern, header.ptr ? (int)header.len : 4,
                     header.ptr ? header.ptr : "none", ext.ptr ? (int)ext.len : 4, ext.ptr ? ext.ptr : "none");
    return ferrite_request_complete_text(req, text, (size_t)n, NULL, 0);
}

/* Custom methods. */
atomic_int method_finalized;
void count_method_finalizer(void *user_data) {
    (void)user_data;
    atomic_fetch_add(&method_finalized, 1);
}
uint32_t method_echo(void *u, ferrite_request *req, ferrite_str params) {
    (void)u;
    ferrite_str text = {"", 0}, args;
    ferrite_request_argument_string(req, S("/text"), &text);
    ferrite_request_arguments(req, &args);
    char *quoted = NULL, buf[512];
    ferrite_json_quote(text.ptr, text.len, &quoted, NULL);
    bool same = args.len == params.len && memcmp(args.ptr, params.ptr, params.len) == 0;
    int n = snprintf(buf, sizeof buf, "{\"echo\":%s,\"params\":%.*s,\"same\":%s}", quoted, (int)params.len, params.ptr,
                     same ? "true" : "false");
    ferrite_string_free(quoted);
    return ferrite_request_complete(req, buf, (size_t)n);
}
atomic_int method_bad_rc, method_ir_rc, method_text_rc;
static uint32_t method_bad(void *u, ferrite_request *req, ferrite_str params) {
    (void)u, (void)params;
    atomic_store(&method_bad_rc, (int)ferrite_request_complete(req, S("[1]")));
    return FERRITE_RESULT_OK;
}
static uint32_t method_ir(void *u, ferrite_request *req, ferrite_str params) {
    (void)u, (void)params;
    atomic_store(&method_ir_rc, (int)ferrite_request_input_required(req, S(ASK_NAME), NULL, 0));
    return FERRITE_RESULT_OK;
}
static uint32_t method_text(void *u, ferrite_request *req, ferrite_str params) {
    (void)u, (void)params;
    atomic_store(&method_text_rc, (int)ferrite_request_complete_text(req, S("t"), NULL, 0));
    return FERRITE_RESULT_OK;
}
static uint32_t method_rpc(void *u, ferrite_request *req, ferrite_str params) {
    (void)u, (void)params;
    return ferrite_request_fail_rpc(req, -32001, S("custom failure"), NULL, 0);
}

static void *method_later_thread(void *arg) {
    sleep_ms(20);
    ferrite_request_complete(arg, S("{\"later\":true}"));
    return NULL;
}
static uint32_t method_later(void *u, ferrite_request *req, ferrite_str params) {
    (void)u, (void)params;
    pthread_t t;
    if (pthread_create(&t, NULL, method_later_thread, req) != 0) {
        return FERRITE_RESULT_HANDLER_FAILED;
    }
    pthread_detach(t);
    return FERRITE_RESULT_PENDING;
}

/* Tools and methods of the 2026-07-28 checks; returns how many method finalizers it handed over. */
int register_modern(ferrite_server *server) {
    int methods = 0;
    if (ferrite_server_add_tool(server, S(TOOL("ask_name")), tool_ask_name, NULL, NULL) != FERRITE_RESULT_OK ||
        ferrite_server_add_tool(server, S(TOOL("ask_roots")), tool_ask_roots, NULL, NULL) != FERRITE_RESULT_OK ||
        ferrite_server_add_tool(server, S("{\"name\":\"ir_bad\",\"inputSchema\":{\"type\":\"object\"}}"), tool_ir_bad,
                                NULL, NULL) != FERRITE_RESULT_OK ||
        ferrite_server_add_tool(server, S(TOOL("modern_ctx")), tool_modern_ctx, NULL, NULL) != FERRITE_RESULT_OK) {
        fprintf(stderr, "modern registration failed: %s\n", ferrite_last_error());
        exit(2);
    }
    static const struct {
        const char *name;
        ferrite_method_callback fn;
    } m[] = {{"com.example/echo", method_echo}, {"com.example/bad", method_bad}, {"com.example/ir", method_ir},
             {"com.example/text", method_text}, {"com.example/rpc", method_rpc}, {"com.example/later", method_later}};
    for (size_t i = 0; i < sizeof m / sizeof m[0]; i++) {
        methods++;
        if (ferrite_server_add_method(server, m[i].name, strlen(m[i].name), m[i].fn, NULL, count_method_finalizer) !=
            FERRITE_RESULT_OK) {
            fprintf(stderr, "add_method %s: %s\n", m[i].name, ferrite_last_error());
            exit(2);
        }
    }
    return methods;
}
