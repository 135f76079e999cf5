/*
 * The 2026-07-28 checks in-process: bad modern input, multi round-trip requests with sealed and
 * tampered state, the new request getters, custom methods, request state keys and their TTL,
 * extensions, cache hints, and skills (on a server of their own).
 */
#include "abi_test.h"
#include "abi_server.h"

#include <unistd.h>

#define KEY_A "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
#define KEY_B "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=" /* the same 32 bytes as KEY_A, base64 */
#define KEY_C "ffeeddccbbaa99887766554433221100ffeeddccbbaa99887766554433221100"
#define SKILL_MD                                                                                                   \
    "---\\nname: add-numbers\\ndescription: Add two integers with the add tool and report the sum\\n---\\n\\n# Add " \
    "numbers\\n\\nCall the add tool with integer arguments a and b, then report the sum.\\nWorked examples are in "    \
    "references/EXAMPLES.md.\\n"
#define SKILL_EXAMPLES "# Examples\\n\\n- add(a=2, b=3) returns 5\\n- add(a=-4, b=10) returns 6\\n"

/* The text of the first content block of a tool result (caller frees), or NULL. */
static char *tool_text(const char *response) {
    char *text = NULL;
    if (!response ||
        ferrite_json_get_string(response, strlen(response), S("/result/content/0/text"), &text, NULL) != FERRITE_RESULT_OK) {
        return NULL;
    }
    return text;
}

static bool text_is(ferrite_server *server, const char *msg, const char *expected) {
    char *out = call(server, msg);
    char *text = tool_text(out);
    bool ok = text && strcmp(text, expected) == 0;
    if (!ok) {
        printf("# sent:     %s\n# got:      %s\n# expected: %s\n", msg, out ? out : "(call failed)", expected);
    }
    ferrite_string_free(text);
    ferrite_string_free(out);
    return ok;
}
/* Whether the response to `msg` contains both fragments. */
static bool responds_both(ferrite_server *server, const char *msg, const char *a, const char *b) {
    char *out = call(server, msg);
    bool ok = out && strstr(out, a) && strstr(out, b);
    if (!ok) {
        printf("# sent:     %s\n# got:      %s\n# expected: %s and %s\n", msg, out ? out : "(call failed)", a, b);
    }
    ferrite_string_free(out);
    return ok;
}

/* A growable string. */
typedef struct {
    char *p;
    size_t len, cap;
} buf_t;

static void buf_cat(buf_t *b, const char *s) {
    size_t n = strlen(s);
    if (b->len + n + 1 > b->cap) {
        b->cap = (b->len + n + 1) * 2;
        b->p = realloc(b->p, b->cap);
        if (!b->p) {
            abort();
        }
    }
    memcpy(b->p + b->len, s, n + 1);
    b->len += n;
}

/* Round one of ask_name: the sealed state (caller frees), or NULL. */
static char *ask_name_round_one(ferrite_server *server, bool check) {
    char *r = call(server, MODERN_CALL(1, "ask_name", "{\"elicitation\":{}}", ""));
    char *state = NULL, *type = NULL, *method = NULL;
    if (r) {
        ferrite_json_get_string(r, strlen(r), S("/result/requestState"), &state, NULL);
        ferrite_json_get_string(r, strlen(r), S("/result/resultType"), &type, NULL);
        ferrite_json_get_string(r, strlen(r), S("/result/inputRequests/user_name/method"), &method, NULL);
    }
    if (check) {
        CHECK(type && strcmp(type, "input_required") == 0 && method && strcmp(method, "elicitation/create") == 0,
              "an MRTR tool's first reply is resultType input_required with its inputRequests");
        CHECK(state && strlen(state) > 20 && !strstr(state, "step-1"),
              "the requestState leaves the server sealed (not the handler's plaintext)");
        CHECK(atomic_load(&first_call_checks) == 1,
              "on a first call: no input response (NULL), no request state, not a resubmission, modern, responses {}");
    }
    if (!state) {
        printf("# round one: %s\n", r ? r : "(call failed)");
    }
    ferrite_string_free(type);
    ferrite_string_free(method);
    ferrite_string_free(r);
    return state;
}

/* Retry ask_name with an answer and `state`; the whole response (caller frees). */
static char *ask_name_retry(ferrite_server *server, const char *state) {
    buf_t b = {0};
    buf_cat(&b, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"ask_name\",\"arguments\":{},"
                "\"inputResponses\":{\"user_name\":{\"action\":\"accept\",\"content\":{\"name\":\"Ada\"}}},"
                "\"requestState\":\"");
    buf_cat(&b, state);
    buf_cat(&b, "\"," ENVELOPE("{\"elicitation\":{}}") "}}");
    char *r = call(server, b.p);
    free(b.p);
    return r;
}

static void check_modern_input(ferrite_server *server) {
    char *r = call(server, "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/list\",\"params\":{\"_meta\":{"
                           "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"}}}");
    CHECK(int_at(r, "/error/code") == -32602 && int_at(r, "/id") == 9,
          "handle_raw: an envelope without clientCapabilities is -32602");
    ferrite_string_free(r);
    r = call(server, "{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"tools/list\",\"params\":{\"_meta\":{"
                     "\"io.modelcontextprotocol/protocolVersion\":\"1999-01-01\","
                     "\"io.modelcontextprotocol/clientCapabilities\":{}}}}");
    char *requested = NULL, *supported = NULL;
    if (r) {
        ferrite_json_get_string(r, strlen(r), S("/error/data/requested"), &requested, NULL);
        ferrite_json_get_string(r, strlen(r), S("/error/data/supported/0"), &supported, NULL);
    }
    CHECK(int_at(r, "/error/code") == -32022 && requested && strcmp(requested, "1999-01-01") == 0 && supported &&
              strcmp(supported, "2026-07-28") == 0,
          "handle_raw: an unsupported version is -32022 with data.supported and data.requested");
    ferrite_string_free(requested);
    ferrite_string_free(supported);
    ferrite_string_free(r);
    r = call(server, MODERN(11, "ping", "", "{}"));
    CHECK(int_at(r, "/error/code") == -32601, "handle_raw: ping (removed in 2026-07-28) with an envelope is -32601");
    ferrite_string_free(r);
    r = call(server, "[" MODERN(12, "tools/list", "", "{}") "]");
    CHECK(int_at(r, "/error/code") == -32600, "handle_raw: a batch holding an enveloped request is -32600");
    ferrite_string_free(r);
    r = call(server, MODERN(13, "tools/list", "", "{}"));
    char *type = NULL;
    if (r) {
        ferrite_json_get_string(r, strlen(r), S("/result/resultType"), &type, NULL);
    }
    CHECK(type && strcmp(type, "complete") == 0, "handle_raw: the connection still serves after the refusals");
    ferrite_string_free(type);
    ferrite_string_free(r);
}

static void check_mrtr(ferrite_server *server) {
    char *state = ask_name_round_one(server, true);
    char *r = state ? ask_name_retry(server, state) : NULL;
    char *text = tool_text(r);
    CHECK(text && strcmp(text, "hello Ada state=step-1 resubmission=1 responses={\"user_name\":{\"action\":\"accept\","
                               "\"content\":{\"name\":\"Ada\"}}}") == 0,
          "the retry with inputResponses and the sealed requestState completes; the handler reads its plaintext "
          "state and the answers");
    if (!text) {
        printf("# retry: %s\n", r ? r : "(call failed)");
    }
    ferrite_string_free(text);
    ferrite_string_free(r);
    if (state) {
        size_t n = strlen(state);
        state[n / 2] = state[n / 2] == 'A' ? 'B' : 'A';
        r = ask_name_retry(server, state);
        CHECK(int_at(r, "/error/code") == -32602, "a tampered requestState is refused with -32602");
        ferrite_string_free(r);
    }
    ferrite_string_free(state);

    r = call(server, MODERN_CALL(3, "ask_roots", "{\"roots\":{}}", ""));
    char *method = NULL;
    if (r) {
        ferrite_json_get_string(r, strlen(r), S("/result/inputRequests/client_roots/method"), &method, NULL);
    }
    CHECK(method && strcmp(method, "roots/list") == 0,
          "completing with {\"resultType\":\"input_required\",...} through ferrite_request_complete still works");
    ferrite_string_free(method);
    ferrite_string_free(r);
    CHECK(text_is(server,
                  MODERN_CALL(4, "ask_roots", "{\"roots\":{}}",
                              "\"inputResponses\":{\"client_roots\":{\"roots\":[{\"uri\":\"file:///a\"}]}},"),
                  "{\"roots\":[{\"uri\":\"file:///a\"}]}"),
          "ferrite_request_input_response gives the bare result the client returned");

    const int expected[IR_CASES] = {FERRITE_RESULT_INVALID_ARGUMENT, FERRITE_RESULT_INVALID_ARGUMENT,
                                    FERRITE_RESULT_INVALID_JSON,     FERRITE_RESULT_INVALID_ARGUMENT,
                                    FERRITE_RESULT_INVALID_UTF8,     FERRITE_RESULT_INVALID_UTF8};
    const char *names[IR_CASES] = {"an unknown method in the input requests is INVALID_ARGUMENT",
                                   "both arguments NULL is INVALID_ARGUMENT",
                                   "malformed input requests are INVALID_JSON",
                                   "input requests that are not an object are INVALID_ARGUMENT",
                                   "a request state that is not UTF-8 is INVALID_UTF8",
                                   "input requests that are not UTF-8 are INVALID_UTF8"};
    for (int c = 0; c < IR_CASES; c++) {
        char msg[512];
        snprintf(msg, sizeof msg,
                 "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":{\"name\":\"ir_bad\","
                 "\"arguments\":{\"case\":%d}," ENVELOPE("{}") "}}",
                 20 + c, c);
        atomic_store(&ir_rc[c], -1);
        r = call(server, msg);
        CHECK(atomic_load(&ir_rc[c]) == expected[c] && int_at(r, "/error/code") == -32603, names[c]);
        ferrite_string_free(r);
    }
    CHECK(strstr(ir_error[0], "tools/call") != NULL && strstr(ir_error[0], "elicitation/create") != NULL,
          "the last error names the unknown method and the known ones");
    CHECK(strstr(ir_error[1], "NULL") != NULL, "the last error says both were NULL");
    ferrite_str s;
    bool b;
    CHECK(ferrite_request_input_required(NULL, S(ASK_NAME), NULL, 0) == FERRITE_RESULT_NULL_POINTER &&
              ferrite_request_input_response(NULL, S("k"), &s) == FERRITE_RESULT_NULL_POINTER &&
              ferrite_request_input_responses(NULL, &s) == FERRITE_RESULT_NULL_POINTER &&
              ferrite_request_request_state(NULL, &s) == FERRITE_RESULT_NULL_POINTER &&
              ferrite_request_is_resubmission(NULL, &b) == FERRITE_RESULT_NULL_POINTER &&
              ferrite_request_client_extension(NULL, S("x/y"), &s) == FERRITE_RESULT_NULL_POINTER &&
              ferrite_request_header(NULL, S("x"), &s) == FERRITE_RESULT_NULL_POINTER,
          "every new request function on a NULL request is NULL_POINTER");

    CHECK(text_is(server, MODERN_CALL(30, "modern_ctx", "{\"extensions\":{\"io.example/ext\":{\"x\":1}}}", ""),
                  "modern=1 header=none ext={\"x\":1}"),
          "is_modern, header (NULL off HTTP), client_extension read a 2026-07-28 request");
    CHECK(atomic_load(&getter_codes) == 1, "the new getters return NULL_POINTER / INVALID_UTF8 for bad arguments");
    CHECK(text_is(server, CALL_TOOL(31, "modern_ctx", "{}"), "modern=0 header=none ext=none"),
          "a handshake-era request is not modern and declares no extension");
}

static void check_methods(ferrite_server *server) {
    CHECK(responds(server,
                   "{\"jsonrpc\":\"2.0\",\"id\":40,\"method\":\"com.example/echo\",\"params\":{\"text\":\"hi\"}}",
                   "\"result\":{\"echo\":\"hi\",\"params\":{\"text\":\"hi\"},\"same\":true}"),
          "a custom method gets its params (JSON and on the request) and completes with an object");
    CHECK(responds(server, MODERN(41, "com.example/echo", "\"text\":\"yo\",", "{}"), "\"resultType\":\"complete\""),
          "a custom method serves 2026-07-28 requests too (params without _meta; resultType added)");
    CHECK(responds(server, MODERN(42, "com.example/echo", "\"text\":\"yo\",", "{}"), "\"params\":{\"text\":\"yo\"}"),
          "the params a custom method gets exclude _meta");
    CHECK(responds(server, "{\"jsonrpc\":\"2.0\",\"id\":43,\"method\":\"com.example/bad\"}", "\"code\":-32603") &&
              atomic_load(&method_bad_rc) == FERRITE_RESULT_INVALID_ARGUMENT,
          "completing a custom method with a non-object is INVALID_ARGUMENT and -32603");
    CHECK(responds(server, "{\"jsonrpc\":\"2.0\",\"id\":44,\"method\":\"com.example/ir\"}", "\"code\":-32603") &&
              atomic_load(&method_ir_rc) == FERRITE_RESULT_INVALID_ARGUMENT,
          "a custom method cannot reply input required (INVALID_ARGUMENT)");
    CHECK(responds(server, "{\"jsonrpc\":\"2.0\",\"id\":45,\"method\":\"com.example/text\"}", "\"code\":-32603") &&
              atomic_load(&method_text_rc) == FERRITE_RESULT_INVALID_ARGUMENT,
          "ferrite_request_complete_text on a custom method is INVALID_ARGUMENT");
    CHECK(responds(server, "{\"jsonrpc\":\"2.0\",\"id\":46,\"method\":\"com.example/rpc\"}", "\"code\":-32001"),
          "ferrite_request_fail_rpc from a custom method gives its error");
    CHECK(responds(server, "{\"jsonrpc\":\"2.0\",\"id\":47,\"method\":\"com.example/later\"}", "{\"later\":true}"),
          "a custom method returning PENDING completes later from another thread");
    CHECK(responds(server, "{\"jsonrpc\":\"2.0\",\"id\":48,\"method\":\"com.example/none\"}", "\"code\":-32601"),
          "an unregistered method is still -32601");

    int before = atomic_load(&method_finalized);
    CHECK(ferrite_server_add_method(server, S("tools/call"), method_echo, NULL, count_method_finalizer) ==
                  FERRITE_RESULT_INVALID_ARGUMENT &&
              atomic_load(&method_finalized) == before + 1,
          "add_method refuses a core method (INVALID_ARGUMENT) and runs the finalizer once, at once");
    CHECK(ferrite_server_add_method(server, S("x/y"), NULL, NULL, count_method_finalizer) ==
                  FERRITE_RESULT_NULL_POINTER &&
              atomic_load(&method_finalized) == before + 2,
          "add_method with a NULL callback is NULL_POINTER and runs the finalizer once");
    CHECK(ferrite_server_add_method(NULL, S("x/y"), method_echo, NULL, count_method_finalizer) ==
                  FERRITE_RESULT_NULL_POINTER &&
              atomic_load(&method_finalized) == before + 3,
          "add_method on a NULL server is NULL_POINTER and runs the finalizer once");
    CHECK(ferrite_server_add_method(server, "\xff", 1, method_echo, NULL, count_method_finalizer) ==
                  FERRITE_RESULT_INVALID_UTF8 &&
              atomic_load(&method_finalized) == before + 4,
          "add_method with a non-UTF-8 name is INVALID_UTF8 and runs the finalizer once");
    CHECK(ferrite_server_add_method(server, S("com.example/tmp"), method_echo, NULL, count_method_finalizer) ==
                  FERRITE_RESULT_OK &&
              ferrite_server_add_method(server, S("com.example/tmp"), method_echo, NULL, count_method_finalizer) ==
                  FERRITE_RESULT_OK &&
              atomic_load(&method_finalized) == before + 5,
          "replacing a custom method runs the old finalizer once");
    CHECK(ferrite_server_remove_method(server, S("com.example/tmp")) == FERRITE_RESULT_OK &&
              atomic_load(&method_finalized) == before + 6,
          "removing a custom method runs its finalizer once");
    CHECK(ferrite_server_remove_method(server, S("com.example/tmp")) == FERRITE_RESULT_NOT_FOUND &&
              atomic_load(&method_finalized) == before + 6,
          "removing it again is NOT_FOUND and runs nothing");
    CHECK(ferrite_server_remove_method(server, NULL, 0) == FERRITE_RESULT_NULL_POINTER &&
              ferrite_server_remove_method(server, "\xff", 1) == FERRITE_RESULT_INVALID_UTF8 &&
              ferrite_server_remove_method(NULL, S("x/y")) == FERRITE_RESULT_NULL_POINTER,
          "remove_method: NULL name or server is NULL_POINTER, a non-UTF-8 name INVALID_UTF8");
}

static void check_settings(ferrite_server *server) {
    /* Request-state keys and TTL. */
    CHECK(ferrite_server_set_request_state_keys(NULL, S(KEY_A), NULL, 0) == FERRITE_RESULT_NULL_POINTER,
          "set_request_state_keys on a NULL server is NULL_POINTER");
    CHECK(ferrite_server_set_request_state_keys(server, NULL, 0, NULL, 0) == FERRITE_RESULT_NULL_POINTER,
          "set_request_state_keys without a current key is NULL_POINTER");
    CHECK(ferrite_server_set_request_state_keys(server, "\xff", 1, NULL, 0) == FERRITE_RESULT_INVALID_UTF8,
          "a non-UTF-8 key is INVALID_UTF8");
    CHECK(ferrite_server_set_request_state_keys(server, S("secret-but-short"), NULL, 0) ==
                  FERRITE_RESULT_INVALID_ARGUMENT &&
              strstr(ferrite_last_error(), "secret-but-short") == NULL,
          "a malformed key is INVALID_ARGUMENT, and the error does not repeat it");
    CHECK(ferrite_server_set_request_state_keys(server, S(KEY_A), S("[\"nope\"]")) == FERRITE_RESULT_INVALID_ARGUMENT &&
              strstr(ferrite_last_error(), "previous_json[0]") != NULL,
          "a malformed previous key is INVALID_ARGUMENT naming which");
    CHECK(ferrite_server_set_request_state_keys(server, S(KEY_A), S("[\"" KEY_C "\"")) == FERRITE_RESULT_INVALID_JSON,
          "malformed previous keys JSON is INVALID_JSON");
    CHECK(ferrite_server_set_request_state_keys(server, S(KEY_A), NULL, 0) == FERRITE_RESULT_OK,
          "a hex key is accepted");
    char *state = ask_name_round_one(server, false);
    CHECK(ferrite_server_set_request_state_keys(server, S(KEY_C), S("[\"" KEY_B "\"]")) == FERRITE_RESULT_OK,
          "rotating keys (a base64 previous key) is accepted");
    char *r = state ? ask_name_retry(server, state) : NULL;
    char *text = tool_text(r);
    CHECK(text && strncmp(text, "hello Ada", 9) == 0, "a state sealed with a previous key still opens");
    ferrite_string_free(text);
    ferrite_string_free(r);
    ferrite_server_set_request_state_keys(server, S(KEY_C), NULL, 0);
    r = state ? ask_name_retry(server, state) : NULL;
    CHECK(int_at(r, "/error/code") == -32602, "once the old key is retired its states are refused (-32602)");
    ferrite_string_free(r);
    ferrite_string_free(state);
    CHECK(ferrite_server_set_request_state_ttl_ms(server, 0) == FERRITE_RESULT_INVALID_ARGUMENT,
          "a request-state TTL of 0 is INVALID_ARGUMENT");
    CHECK(ferrite_server_set_request_state_ttl_ms(NULL, 10) == FERRITE_RESULT_NULL_POINTER,
          "set_request_state_ttl_ms on a NULL server is NULL_POINTER");
    CHECK(ferrite_server_set_request_state_ttl_ms(server, 1) == FERRITE_RESULT_OK, "a 1 ms TTL is accepted");
    state = ask_name_round_one(server, false);
    sleep_ms(50);
    r = state ? ask_name_retry(server, state) : NULL;
    CHECK(int_at(r, "/error/code") == -32602, "a state past its TTL is refused (-32602)");
    ferrite_string_free(r);
    ferrite_string_free(state);
    ferrite_server_set_request_state_ttl_ms(server, 15 * 60 * 1000);

    /* Extensions. */
    CHECK(ferrite_server_add_extension(server, S("io.example/ext"), S("{\"level\":2}")) == FERRITE_RESULT_OK &&
              ferrite_server_add_extension(server, S("io.example/bare"), NULL, 0) == FERRITE_RESULT_OK,
          "add_extension accepts a prefixed id with settings, or NULL settings");
    CHECK(responds(server, MODERN(50, "server/discover", "", "{}"), "\"io.example/ext\":{\"level\":2}") &&
              responds(server, MODERN(51, "server/discover", "", "{}"), "\"io.example/bare\":{}"),
          "server/discover advertises the extensions and their settings");
    CHECK(ferrite_server_add_extension(server, S("noprefix"), NULL, 0) == FERRITE_RESULT_INVALID_ARGUMENT,
          "an extension id without a prefix is INVALID_ARGUMENT");
    CHECK(ferrite_server_add_extension(server, S("io.example/x"), S("[1]")) == FERRITE_RESULT_INVALID_ARGUMENT,
          "extension settings that are not an object are INVALID_ARGUMENT");
    CHECK(ferrite_server_add_extension(server, S("io.example/x"), S("{")) == FERRITE_RESULT_INVALID_JSON,
          "malformed extension settings are INVALID_JSON");
    CHECK(ferrite_server_add_extension(server, "\xff/x", 3, NULL, 0) == FERRITE_RESULT_INVALID_UTF8,
          "a non-UTF-8 extension id is INVALID_UTF8");
    CHECK(ferrite_server_add_extension(server, NULL, 0, NULL, 0) == FERRITE_RESULT_NULL_POINTER,
          "a NULL extension id is NULL_POINTER");

    /* Cache hints. */
    CHECK(ferrite_server_set_cache_hints(server, S("{\"toolsList\":{\"ttlMs\":60000,\"cacheScope\":\"public\"}}")) ==
              FERRITE_RESULT_OK,
          "set_cache_hints accepts the core's CacheHints JSON");
    CHECK(responds_both(server, MODERN(52, "tools/list", "", "{}"), "\"ttlMs\":60000", "\"cacheScope\":\"public\""),
          "tools/list carries the hint");
    CHECK(ferrite_server_set_cache_hints(server, S("{\"bogus\":{}}")) == FERRITE_RESULT_INVALID_ARGUMENT,
          "an unknown cache hint member is INVALID_ARGUMENT");
    CHECK(ferrite_server_set_cache_hints(server, S("{\"toolsList\":{\"ttlMs\":1,\"cacheScope\":\"everyone\"}}")) ==
              FERRITE_RESULT_INVALID_ARGUMENT,
          "an unknown cache scope is INVALID_ARGUMENT");
    CHECK(ferrite_server_set_cache_hints(server, S("{\"toolsList\":")) == FERRITE_RESULT_INVALID_JSON,
          "malformed cache hints are INVALID_JSON");
    CHECK(ferrite_server_set_cache_hints(server, NULL, 0) == FERRITE_RESULT_NULL_POINTER,
          "NULL cache hints are NULL_POINTER");
    CHECK(ferrite_server_set_cache_hints(server, "{\"\xff\":{}}", 6) == FERRITE_RESULT_INVALID_UTF8,
          "cache hints that are not UTF-8 are INVALID_UTF8");
    CHECK(ferrite_server_set_cache_hints(NULL, S("{}")) == FERRITE_RESULT_NULL_POINTER,
          "set_cache_hints on a NULL server is NULL_POINTER");
    CHECK(ferrite_server_set_resource_cache_hint(server, S("test://item/{id}"), 5000, true) == FERRITE_RESULT_OK,
          "set_resource_cache_hint accepts a registered template");
    CHECK(responds_both(server, MODERN(54, "resources/read", "\"uri\":\"test://item/7\",", "{}"), "\"ttlMs\":5000",
                        "\"cacheScope\":\"public\""),
          "reads of that template carry its hint");
    CHECK(ferrite_server_set_resource_cache_hint(server, S("test://nothing"), 1, false) == FERRITE_RESULT_NOT_FOUND,
          "a hint for an unregistered resource is NOT_FOUND");
    CHECK(ferrite_server_set_resource_cache_hint(server, NULL, 0, 1, false) == FERRITE_RESULT_NULL_POINTER,
          "a NULL resource URI is NULL_POINTER");
    CHECK(ferrite_server_set_resource_cache_hint(server, "test://\xff", 8, 1, false) == FERRITE_RESULT_INVALID_UTF8,
          "a resource URI that is not UTF-8 is INVALID_UTF8");
    CHECK(ferrite_server_add_extension(NULL, S("io.example/x"), NULL, 0) == FERRITE_RESULT_NULL_POINTER,
          "add_extension on a NULL server is NULL_POINTER");
}

/* Skills, on a server of their own; closing it must still run its handlers' finalizers. */
void check_skills(void) {
    atomic_store(&finalized, 0);
    ferrite_server *server = new_server();
    ferrite_server_add_tool(server, S(TOOL("t")), tool_add, NULL, count_finalizer);
    CHECK(ferrite_server_add_skill(server, S("skill://add-numbers"),
                                   S("{\"SKILL.md\":\"" SKILL_MD "\",\"references/EXAMPLES.md\":\"" SKILL_EXAMPLES "\"}")) ==
              FERRITE_RESULT_OK,
          "add_skill serves a skill from path -> text");
    CHECK(responds(server, MODERN(60, "skills/list", "", "{}"), "skill://add-numbers"), "skills/list lists it");
    CHECK(responds(server, MODERN(61, "resources/read", "\"uri\":\"skill://add-numbers/references/EXAMPLES.md\",", "{}"),
                   "add(a=2, b=3) returns 5"),
          "its files read as resources");
    CHECK(responds(server, MODERN(62, "server/discover", "", "{}"), "io.modelcontextprotocol/skills"),
          "the skills extension is advertised");
    CHECK(ferrite_server_add_skill(server, S("skill://add-numbers"), S("[]")) == FERRITE_RESULT_INVALID_ARGUMENT,
          "skill files that are not an object are INVALID_ARGUMENT");
    CHECK(ferrite_server_add_skill(server, S("skill://add-numbers"), S("{\"SKILL.md\":1}")) ==
              FERRITE_RESULT_INVALID_ARGUMENT,
          "a skill file that is not text is INVALID_ARGUMENT");
    CHECK(ferrite_server_add_skill(server, S("skill://add-numbers"), S("{\"README.md\":\"x\"}")) ==
              FERRITE_RESULT_INVALID_ARGUMENT,
          "a skill without SKILL.md is INVALID_ARGUMENT");
    CHECK(ferrite_server_add_skill(server, S("skill://other"), S("{\"SKILL.md\":\"" SKILL_MD "\"}")) ==
              FERRITE_RESULT_INVALID_ARGUMENT,
          "a skill whose name differs from its root is INVALID_ARGUMENT");
    CHECK(ferrite_server_add_skill(server, S("skill://add-numbers"), S("{\"SKILL.md\":")) == FERRITE_RESULT_INVALID_JSON,
          "malformed skill files are INVALID_JSON");
    CHECK(ferrite_server_add_skill(server, NULL, 0, S("{}")) == FERRITE_RESULT_NULL_POINTER,
          "a NULL skill root is NULL_POINTER");
    CHECK(ferrite_server_add_skill(server, S("skill://add-numbers"), NULL, 0) == FERRITE_RESULT_NULL_POINTER,
          "NULL skill files are NULL_POINTER");
    CHECK(ferrite_server_add_skill(server, "skill://\xff", 9, S("{}")) == FERRITE_RESULT_INVALID_UTF8,
          "a skill root that is not UTF-8 is INVALID_UTF8");
    CHECK(ferrite_server_add_skill(server, S("not-a-uri"), S("{\"SKILL.md\":\"" SKILL_MD "\"}")) ==
              FERRITE_RESULT_INVALID_ARGUMENT,
          "a skill root that is not scheme://path is INVALID_ARGUMENT");

    char dir[] = "/tmp/ferrite-skill-XXXXXX";
    char path[128];
    bool made = mkdtemp(dir) != NULL;
    static const char md[] = "---\nname: from-disk\ndescription: A skill read from a directory\n---\n\nBody.\n";
    if (made) {
        snprintf(path, sizeof path, "%s/SKILL.md", dir);
        FILE *f = fopen(path, "w");
        if (f) {
            fputs(md, f);
            fclose(f);
        }
    }
    CHECK(made && ferrite_server_add_skill_dir(server, S("skill://from-disk"), dir, strlen(dir)) == FERRITE_RESULT_OK,
          "add_skill_dir serves a skill from a directory");
    CHECK(responds(server, MODERN(63, "resources/read", "\"uri\":\"skill://from-disk/SKILL.md\",", "{}"),
                   "A skill read from a directory"),
          "its SKILL.md reads as a resource");
    if (made) {
        unlink(path);
        rmdir(dir);
    }
    CHECK(ferrite_server_add_skill_dir(server, S("skill://from-disk"), S("/nonexistent/ferrite-skill")) ==
              FERRITE_RESULT_IO,
          "add_skill_dir on a missing directory is IO");
    CHECK(ferrite_server_add_skill_dir(server, S("skill://from-disk"), NULL, 0) == FERRITE_RESULT_NULL_POINTER &&
              ferrite_server_add_skill_dir(server, S("skill://from-disk"), "/tmp/\xff", 6) == FERRITE_RESULT_INVALID_UTF8,
          "add_skill_dir: a NULL directory is NULL_POINTER, a non-UTF-8 one INVALID_UTF8");
    CHECK(ferrite_server_close(server) == FERRITE_RESULT_OK && atomic_load(&finalized) == 1,
          "closing a server that serves skills drops its handlers (the tool's finalizer runs once)");
    ferrite_server_free(server);
}

/* A dedicated server: MRTR, bad modern input, custom methods, settings, skills; then close
 * and count the custom methods' finalizers. */
void check_modern(void) {
    atomic_store(&method_finalized, 0);
    ferrite_server *server = new_server();
    register_all(server);
    int methods = register_modern(server);
    CHECK(responds(server,
                   "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\","
                   "\"capabilities\":{},\"clientInfo\":{\"name\":\"abi-test\",\"version\":\"0\"}}}",
                   "\"serverInfo\""),
          "the in-process connection serves a handshake session beside 2026-07-28 requests");
    check_modern_input(server);
    check_mrtr(server);
    check_methods(server);
    check_settings(server);
    int before = atomic_load(&method_finalized);
    CHECK(ferrite_server_close(server) == FERRITE_RESULT_OK && atomic_load(&method_finalized) == before + methods,
          "close runs every registered custom method's finalizer exactly once");
    CHECK(ferrite_server_add_method(server, S("x/y"), method_echo, NULL, count_method_finalizer) ==
                  FERRITE_RESULT_CLOSED &&
              atomic_load(&method_finalized) == before + methods + 1,
          "add_method on a closed server is CLOSED, and its finalizer still runs once");
    ferrite_server_free(server);
    CHECK(atomic_load(&method_finalized) == before + methods + 1, "free after close runs no finalizer again");
}
