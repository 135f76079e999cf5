/* The C everything server: the 2026-07-28 fixtures (multi round-trip tools, request state,
 * headers, tools and prompts replaced at run time, a skill). See everything.c. */
#include "everything.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ 2026-07-28 fixtures */

/* The multi round-trip (MRTR) tools reply "input required" with ferrite_request_input_required
 * and read the client's answers with ferrite_request_input_response. The same handler serves
 * both eras: a 2026-07-28 client retries with the answers; on a handshake-era session the core
 * asks the client itself and calls the handler again. Each answer is checked to have the shape
 * of its result (ElicitResult, CreateMessageResult, ListRootsResult); one that does not is
 * -32602, and a missing one is asked for again. */

#define FORM(field) \
    "{\"type\":\"object\",\"properties\":{\"" field "\":{\"type\":\"string\"}},\"required\":[\"" field "\"]}"
#define ELICIT(message, schema) \
    "{\"method\":\"elicitation/create\",\"params\":{\"message\":\"" message "\",\"requestedSchema\":" schema "}}"
#define SAMPLE(text, max_tokens)                                                                                    \
    "{\"method\":\"sampling/createMessage\",\"params\":{\"messages\":[{\"role\":\"user\",\"content\":{\"type\":" \
    "\"text\",\"text\":\"" text "\"}}],\"maxTokens\":" #max_tokens "}}"
#define ASK_NAME ELICIT("What is your name?", FORM("name"))
#define ASK_CAPITAL SAMPLE("What is the capital of France?", 100)
#define ASK_ROOTS "{\"method\":\"roots/list\"}"
#define ASK_CONFIRM \
    ELICIT("Please confirm", "{\"type\":\"object\",\"properties\":{\"ok\":{\"type\":\"boolean\"}},\"required\":[\"ok\"]}")

typedef enum { ANSWER_ABSENT, ANSWER_OK, ANSWER_BAD } answer_state;

/* The raw JSON at `pointer` in `json` (NULL if absent); free with ferrite_string_free. */
static char *raw_at(ferrite_str json, const char *pointer) {
    char *out = NULL;
    if (ferrite_json_get(json.ptr, json.len, pointer, strlen(pointer), &out, NULL) != FERRITE_RESULT_OK) {
        return NULL;
    }
    return out;
}

/* Whether the value at `pointer` is absent, null or a string (an optional string field). */
static bool optional_string_at(ferrite_str json, const char *pointer) {
    char *raw = raw_at(json, pointer);
    bool ok = !raw || raw[0] == '"' || strcmp(raw, "null") == 0;
    ferrite_string_free(raw);
    return ok;
}

/* Whether the string at `pointer` is one of `choices` (NULL-terminated). */
static bool string_in(ferrite_str json, const char *pointer, const char *const *choices) {
    char *s = string_at(json, pointer);
    bool ok = false;
    for (; s && *choices; choices++) {
        ok = ok || strcmp(s, *choices) == 0;
    }
    ferrite_string_free(s);
    return ok;
}

static bool is_elicit_result(ferrite_str a) {
    static const char *const actions[] = {"accept", "decline", "cancel", NULL};
    char *content = raw_at(a, "/content");
    bool ok = string_in(a, "/action", actions) && (!content || content[0] == '{' || strcmp(content, "null") == 0);
    ferrite_string_free(content);
    return ok;
}

static bool is_create_message_result(ferrite_str a) {
    static const char *const roles[] = {"user", "assistant", NULL};
    char *model = string_at(a, "/model"), *content = raw_at(a, "/content");
    bool ok = model && content && string_in(a, "/role", roles) && optional_string_at(a, "/stopReason");
    ferrite_string_free(model);
    ferrite_string_free(content);
    return ok;
}

static bool is_list_roots_result(ferrite_str a) {
    char *roots = raw_at(a, "/roots");
    bool ok = roots && roots[0] == '[';
    ferrite_string_free(roots);
    for (int i = 0; ok; i++) {
        char pointer[64];
        snprintf(pointer, sizeof pointer, "/roots/%d", i);
        char *root = raw_at(a, pointer);
        if (!root) {
            break;
        }
        ferrite_string_free(root);
        snprintf(pointer, sizeof pointer, "/roots/%d/uri", i);
        char *uri = string_at(a, pointer);
        snprintf(pointer, sizeof pointer, "/roots/%d/name", i);
        ok = uri && optional_string_at(a, pointer);
        ferrite_string_free(uri);
    }
    return ok;
}

/* The answer to input request `key`, checked with `valid`. */
static answer_state answer(ferrite_request *req, const char *key, bool (*valid)(ferrite_str), ferrite_str *out) {
    if (ferrite_request_input_response(req, key, strlen(key), out) != FERRITE_RESULT_OK || out->ptr == NULL) {
        return ANSWER_ABSENT;
    }
    return valid(*out) ? ANSWER_OK : ANSWER_BAD;
}

/* Fail with -32602 for an answer of the wrong shape. */
static uint32_t bad_answer(ferrite_request *req, const char *key, const char *expected) {
    char message[160];
    int n = snprintf(message, sizeof message, "input response \"%s\": not a valid %s", key, expected);
    return ferrite_request_fail_rpc(req, -32602, message, (size_t)n, NULL, 0);
}

/* Append the `field` of an accepted elicitation (a string as is, anything else as JSON), or
 * why there is none; returns whether it was accepted with the field. */
static bool accepted(buf *b, ferrite_str a, const char *field) {
    char *action = string_at(a, "/action");
    bool ok = action && strcmp(action, "accept") == 0;
    if (ok) {
        char pointer[64];
        snprintf(pointer, sizeof pointer, "/content/%s", field);
        char *raw = raw_at(a, pointer);
        if (!raw) {
            buf_str(b, "the form has no ");
            buf_str(b, field);
            ok = false;
        } else if (raw[0] == '"') {
            char *s = string_at(a, pointer);
            buf_str(b, s ? s : "");
            ferrite_string_free(s);
        } else {
            buf_str(b, raw);
        }
        ferrite_string_free(raw);
    } else {
        buf_str(b, "the user chose \"");
        buf_str(b, action ? action : "");
        buf_str(b, "\"");
    }
    ferrite_string_free(action);
    return ok;
}

/* Append the text of the first text block of a CreateMessageResult (nothing if none). */
static void sampled(buf *b, ferrite_str a) {
    char *content = raw_at(a, "/content"), *text = NULL;
    if (content && content[0] == '[') {
        for (int i = 0;; i++) {
            char pointer[64];
            snprintf(pointer, sizeof pointer, "/content/%d", i);
            char *block = raw_at(a, pointer);
            if (!block) {
                break;
            }
            ferrite_string_free(block);
            snprintf(pointer, sizeof pointer, "/content/%d/type", i);
            char *type = string_at(a, pointer);
            bool is_text = type && strcmp(type, "text") == 0;
            ferrite_string_free(type);
            if (is_text) {
                snprintf(pointer, sizeof pointer, "/content/%d/text", i);
                text = string_at(a, pointer);
                break;
            }
        }
    } else if (content) {
        text = string_at(a, "/content/text");
    }
    buf_str(b, text ? text : "");
    ferrite_string_free(text);
    ferrite_string_free(content);
}

/* Append the roots' URIs, comma-separated. */
static void root_uris(buf *b, ferrite_str a) {
    for (int i = 0;; i++) {
        char pointer[64];
        snprintf(pointer, sizeof pointer, "/roots/%d/uri", i);
        char *uri = string_at(a, pointer);
        if (!uri) {
            break;
        }
        if (i > 0) {
            buf_str(b, ", ");
        }
        buf_str(b, uri);
        ferrite_string_free(uri);
    }
}

/* Complete with the text in `b` and free it. */
static uint32_t complete_buf(ferrite_request *req, buf *b) {
    uint32_t rc = complete_text(req, b->p ? b->p : "", b->len);
    free(b->p);
    return rc;
}

static uint32_t ask(ferrite_request *req, const char *requests, const char *state) {
    return ferrite_request_input_required(req, requests, strlen(requests), state, state ? strlen(state) : 0);
}

static uint32_t tool_mrtr_elicitation(void *user_data, ferrite_request *req) {
    (void)user_data;
    ferrite_str a;
    switch (answer(req, "user_name", is_elicit_result, &a)) {
    case ANSWER_OK: {
        buf b = {0}, name = {0};
        if (accepted(&name, a, "name")) {
            buf_str(&b, "Hello, ");
            buf_str(&b, name.p);
            buf_str(&b, "!");
        } else {
            buf_str(&b, "No name: ");
            buf_str(&b, name.p);
        }
        free(name.p);
        return complete_buf(req, &b);
    }
    case ANSWER_BAD:
        return bad_answer(req, "user_name", "ElicitResult");
    default:
        return ask(req, "{\"user_name\":" ASK_NAME "}", NULL);
    }
}

static uint32_t tool_mrtr_sampling(void *user_data, ferrite_request *req) {
    (void)user_data;
    ferrite_str a;
    switch (answer(req, "capital_question", is_create_message_result, &a)) {
    case ANSWER_OK: {
        buf b = {0};
        buf_str(&b, "The model answered: ");
        sampled(&b, a);
        return complete_buf(req, &b);
    }
    case ANSWER_BAD:
        return bad_answer(req, "capital_question", "CreateMessageResult");
    default:
        return ask(req, "{\"capital_question\":" ASK_CAPITAL "}", NULL);
    }
}

static uint32_t tool_mrtr_list_roots(void *user_data, ferrite_request *req) {
    (void)user_data;
    ferrite_str a;
    switch (answer(req, "client_roots", is_list_roots_result, &a)) {
    case ANSWER_OK: {
        buf b = {0};
        buf_str(&b, "Roots: ");
        root_uris(&b, a);
        return complete_buf(req, &b);
    }
    case ANSWER_BAD:
        return bad_answer(req, "client_roots", "ListRootsResult");
    default:
        return ask(req, "{\"client_roots\":" ASK_ROOTS "}", NULL);
    }
}

/* Whether the request state is `expected`; *present says whether there is one. */
static bool state_is(ferrite_request *req, const char *expected, bool *present, ferrite_str *state) {
    ferrite_request_request_state(req, state);
    *present = state->ptr != NULL;
    return *present && state->len == strlen(expected) && memcmp(state->ptr, expected, state->len) == 0;
}

static uint32_t tool_mrtr_request_state(void *user_data, ferrite_request *req) {
    (void)user_data;
    static const char STATE[] = "awaiting-confirmation";
    bool present = false;
    ferrite_str state, a;
    bool ours = state_is(req, STATE, &present, &state);
    answer_state confirm = answer(req, "confirm", is_elicit_result, &a);
    if (ours && confirm == ANSWER_OK) {
        buf b = {0};
        buf_str(&b, "state-ok: confirmed=");
        accepted(&b, a, "ok");
        return complete_buf(req, &b);
    }
    if (present && !ours) {
        buf b = {0};
        buf_str(&b, "unexpected request state ");
        buf_quoted(&b, state.ptr, state.len);
        uint32_t rc = ferrite_request_fail_rpc(req, -32602, b.p, b.len, NULL, 0);
        free(b.p);
        return rc;
    }
    if (confirm == ANSWER_BAD) {
        return bad_answer(req, "confirm", "ElicitResult");
    }
    return ask(req, "{\"confirm\":" ASK_CONFIRM "}", STATE);
}

static uint32_t tool_mrtr_multiple_inputs(void *user_data, ferrite_request *req) {
    (void)user_data;
    ferrite_str name, greeting, roots;
    answer_state n = answer(req, "user_name", is_elicit_result, &name);
    answer_state g = answer(req, "greeting", is_create_message_result, &greeting);
    answer_state r = answer(req, "client_roots", is_list_roots_result, &roots);
    if (n == ANSWER_OK && g == ANSWER_OK && r == ANSWER_OK) {
        buf b = {0};
        buf_str(&b, "name=");
        accepted(&b, name, "name");
        buf_str(&b, "; greeting=");
        sampled(&b, greeting);
        buf_str(&b, "; roots=");
        root_uris(&b, roots);
        return complete_buf(req, &b);
    }
    if (n == ANSWER_BAD) {
        return bad_answer(req, "user_name", "ElicitResult");
    }
    if (g == ANSWER_BAD) {
        return bad_answer(req, "greeting", "CreateMessageResult");
    }
    if (r == ANSWER_BAD) {
        return bad_answer(req, "client_roots", "ListRootsResult");
    }
    return ask(req,
               "{\"user_name\":" ASK_NAME ",\"greeting\":" SAMPLE("Generate a greeting", 50) ",\"client_roots\":" ASK_ROOTS
               "}",
               "multiple-inputs");
}

/* test_input_required_result_multi_round: the state is JSON {"step":N,"name":...}. */
static uint32_t tool_mrtr_multi_round(void *user_data, ferrite_request *req) {
    (void)user_data;
    static const char STEP1[] = "{\"step1\":" ELICIT("Step 1: What is your name?", FORM("name")) "}";
    static const char STEP2[] = "{\"step2\":" ELICIT("Step 2: What is your favorite color?", FORM("color")) "}";
    ferrite_str state, a;
    ferrite_request_request_state(req, &state);
    int64_t step = 1;
    char *name = NULL;
    if (state.ptr) {
        char *raw_name = raw_at(state, "/name");
        bool ok = ferrite_json_get_i64(state.ptr, state.len, S("/step"), &step) == FERRITE_RESULT_OK && step >= 0 &&
                  step <= 255 && (!raw_name || raw_name[0] == '"' || strcmp(raw_name, "null") == 0);
        ferrite_string_free(raw_name);
        if (!ok) {
            return ferrite_request_fail_rpc(req, -32602, S("request state: not a round"), NULL, 0);
        }
        name = string_at(state, "/name");
    }
    buf b = {0};
    uint32_t rc;
    if (step == 1) {
        switch (answer(req, "step1", is_elicit_result, &a)) {
        case ANSWER_OK: {
            buf first = {0};
            accepted(&first, a, "name");
            buf_str(&b, "{\"step\":2,\"name\":");
            buf_quoted(&b, first.p, first.len);
            buf_str(&b, "}");
            free(first.p);
            rc = ask(req, STEP2, b.p);
            break;
        }
        case ANSWER_BAD:
            rc = bad_answer(req, "step1", "ElicitResult");
            break;
        default:
            buf_str(&b, "{\"step\":1,\"name\":");
            if (name) {
                buf_quoted(&b, name, strlen(name));
            } else {
                buf_str(&b, "null");
            }
            buf_str(&b, "}");
            rc = ask(req, STEP1, b.p);
        }
    } else {
        char text[32];
        switch (answer(req, "step2", is_elicit_result, &a)) {
        case ANSWER_OK:
            buf_str(&b, name ? name : "");
            buf_str(&b, " likes ");
            accepted(&b, a, "color");
            rc = complete_buf(req, &b);
            b.p = NULL;
            break;
        case ANSWER_BAD:
            rc = bad_answer(req, "step2", "ElicitResult");
            break;
        default:
            snprintf(text, sizeof text, "{\"step\":%d,\"name\":", (int)step);
            buf_str(&b, text);
            if (name) {
                buf_quoted(&b, name, strlen(name));
            } else {
                buf_str(&b, "null");
            }
            buf_str(&b, "}");
            rc = ask(req, STEP2, b.p);
        }
    }
    free(b.p);
    ferrite_string_free(name);
    return rc;
}

static uint32_t tool_mrtr_tampered_state(void *user_data, ferrite_request *req) {
    (void)user_data;
    bool present = false;
    ferrite_str state, a;
    bool ours = state_is(req, "tamper-check", &present, &state);
    answer_state confirm = answer(req, "confirm", is_elicit_result, &a);
    if (ours && confirm == ANSWER_OK) {
        return complete_text_z(req, "state verified");
    }
    if (confirm == ANSWER_BAD) {
        return bad_answer(req, "confirm", "ElicitResult");
    }
    return ask(req, "{\"confirm\":" ASK_CONFIRM "}", "tamper-check");
}

/* The keys of a JSON object (compact, as Ferrite writes it) as Rust prints a list of them:
 * ["a", "b"]. */
static void object_keys(buf *b, ferrite_str json) {
    int depth = 0;
    bool in_string = false, expect_key = false, is_key = false, first = true;
    size_t start = 0;
    buf_str(b, "[");
    for (size_t i = 0; i < json.len; i++) {
        char c = json.ptr[i];
        if (in_string) {
            if (c == '\\') {
                i++;
            } else if (c == '"') {
                in_string = false;
                if (is_key) {
                    if (!first) {
                        buf_str(b, ", ");
                    }
                    first = false;
                    buf_add(b, json.ptr + start, i - start + 1);
                }
            }
            continue;
        }
        switch (c) {
        case '"':
            in_string = true;
            is_key = depth == 1 && expect_key;
            expect_key = false;
            start = i;
            break;
        case '{':
            expect_key = ++depth == 1;
            break;
        case '[':
            depth++;
            break;
        case '}':
        case ']':
            depth--;
            break;
        case ',':
            expect_key = depth == 1;
            break;
        default:
            break;
        }
    }
    buf_str(b, "]");
}

static uint32_t tool_mrtr_capabilities(void *user_data, ferrite_request *req) {
    (void)user_data;
    bool again = false, elicitation = false, sampling = false, roots = false;
    ferrite_request_is_resubmission(req, &again);
    if (again) {
        ferrite_str all = {"{}", 2};
        ferrite_request_input_responses(req, &all);
        buf b = {0};
        buf_str(&b, "answered: ");
        object_keys(&b, all);
        return complete_buf(req, &b);
    }
    ferrite_request_client_supports(req, S("elicitation"), &elicitation);
    ferrite_request_client_supports(req, S("sampling"), &sampling);
    ferrite_request_client_supports(req, S("roots"), &roots);
    if (!elicitation && !sampling && !roots) {
        return complete_text_z(req, "the client declared no capability to ask with");
    }
    buf b = {0};
    buf_str(&b, "{");
    if (elicitation) {
        buf_str(&b, "\"user_name\":" ASK_NAME);
    }
    if (sampling) {
        buf_str(&b, elicitation ? "," : "");
        buf_str(&b, "\"capital_question\":" ASK_CAPITAL);
    }
    if (roots) {
        buf_str(&b, elicitation || sampling ? "," : "");
        buf_str(&b, "\"client_roots\":" ASK_ROOTS);
    }
    buf_str(&b, "}");
    uint32_t rc = ask(req, b.p, NULL);
    free(b.p);
    return rc;
}

static uint32_t tool_streaming_elicitation(void *user_data, ferrite_request *req) {
    (void)user_data;
    ferrite_str a;
    switch (answer(req, "user_name", is_elicit_result, &a)) {
    case ANSWER_OK: {
        buf b = {0};
        buf_str(&b, "Hello, ");
        accepted(&b, a, "name");
        buf_str(&b, "!");
        return complete_buf(req, &b);
    }
    case ANSWER_BAD:
        return bad_answer(req, "user_name", "ElicitResult");
    default:
        return ask(req, "{\"user_name\":" ASK_NAME "}", NULL);
    }
}

static uint32_t tool_logging_tool(void *user_data, ferrite_request *req) {
    (void)user_data;
    ferrite_request_log(req, FERRITE_LOG_LEVEL_INFO, S("\"Logging tool started\""), NULL, 0, NULL);
    ferrite_request_log(req, FERRITE_LOG_LEVEL_INFO, S("\"Logging tool finished\""), NULL, 0, NULL);
    return complete_text_z(req, "Logging tool executed");
}

static uint32_t tool_x_mcp_header(void *user_data, ferrite_request *req) {
    (void)user_data;
    ferrite_str region = arg_str(req, "/region");
    buf b = {0};
    buf_str(&b, "region: ");
    buf_add(&b, region.ptr, region.len);
    return complete_buf(req, &b);
}

/* test_dynamic_tool and test_dynamic_prompt: user_data is their version (malloc'd, freed by the
 * finalizer when a trigger replaces them). The triggers share one counter. */
static atomic_ullong dynamic_version;

static uint32_t tool_dynamic(void *user_data, ferrite_request *req) {
    char text[64];
    snprintf(text, sizeof text, "dynamic tool version %llu", *(unsigned long long *)user_data);
    return complete_text_z(req, text);
}

static uint32_t prompt_dynamic(void *user_data, ferrite_request *req) {
    char json[160];
    int n = snprintf(json, sizeof json,
                     "{\"messages\":[{\"role\":\"user\",\"content\":{\"type\":\"text\",\"text\":\"dynamic prompt version "
                     "%llu\"}}]}",
                     *(unsigned long long *)user_data);
    return ferrite_request_complete(req, json, (size_t)n);
}

static unsigned long long *version_box(unsigned long long version) {
    unsigned long long *v = malloc(sizeof *v);
    if (!v) {
        abort();
    }
    *v = version;
    return v;
}

static ferrite_result add_dynamic_tool(const ferrite_server *server, unsigned long long version) {
    char json[256];
    int n = snprintf(json, sizeof json,
                     "{\"name\":\"test_dynamic_tool\",\"description\":\"A tool test_trigger_tool_change replaces (version "
                     "%llu)\",\"inputSchema\":" NO_ARGS "}",
                     version);
    return ferrite_server_add_tool(server, json, (size_t)n, tool_dynamic, version_box(version), free);
}

static ferrite_result add_dynamic_prompt(const ferrite_server *server, unsigned long long version) {
    char json[256];
    int n = snprintf(json, sizeof json,
                     "{\"name\":\"test_dynamic_prompt\",\"description\":\"A prompt test_trigger_prompt_change replaces "
                     "(version %llu)\"}",
                     version);
    return ferrite_server_add_prompt(server, json, (size_t)n, prompt_dynamic, version_box(version), free);
}

/* user_data: the server. */
static uint32_t tool_trigger_change(ferrite_request *req, const ferrite_server *server, bool tools) {
    unsigned long long version = atomic_fetch_add(&dynamic_version, 1) + 1;
    ferrite_result rc = tools ? add_dynamic_tool(server, version) : add_dynamic_prompt(server, version);
    if (rc != FERRITE_RESULT_OK) {
        return ferrite_request_fail(req, ferrite_last_error(), strlen(ferrite_last_error()));
    }
    size_t reached = 0;
    if (tools) {
        ferrite_server_notify_tools_list_changed(server, &reached);
    } else {
        ferrite_server_notify_prompts_list_changed(server, &reached);
    }
    char text[96];
    snprintf(text, sizeof text, "%s list changed (version %llu, %zu listeners)", tools ? "tools" : "prompts", version,
             reached);
    return complete_text_z(req, text);
}
static uint32_t tool_trigger_tool_change(void *user_data, ferrite_request *req) {
    return tool_trigger_change(req, user_data, true);
}
static uint32_t tool_trigger_prompt_change(void *user_data, ferrite_request *req) {
    return tool_trigger_change(req, user_data, false);
}

static uint32_t prompt_mrtr(void *user_data, ferrite_request *req) {
    (void)user_data;
    ferrite_str a;
    switch (answer(req, "user_context", is_elicit_result, &a)) {
    case ANSWER_OK: {
        buf text = {0}, b = {0};
        buf_str(&text, "Context: ");
        accepted(&text, a, "context");
        buf_str(&b, "{\"messages\":[{\"role\":\"user\",\"content\":{\"type\":\"text\",\"text\":");
        buf_quoted(&b, text.p, text.len);
        buf_str(&b, "}}]}");
        uint32_t rc = ferrite_request_complete(req, b.p, b.len);
        free(text.p);
        free(b.p);
        return rc;
    }
    case ANSWER_BAD:
        return bad_answer(req, "user_context", "ElicitResult");
    default:
        return ask(req, "{\"user_context\":" ELICIT("What context should the prompt use?", FORM("context")) "}", NULL);
    }
}

/* The skill the conformance suite reads (SEP-2640): path -> text, as JSON. */
static const char SKILL_FILES[] =
    "{\"SKILL.md\":\"---\\nname: add-numbers\\ndescription: Add two integers with the add tool and report the "
    "sum\\n---\\n\\n# Add numbers\\n\\nCall the add tool with integer arguments a and b, then report the "
    "sum.\\nWorked examples are in references/EXAMPLES.md.\\n\","
    "\"references/EXAMPLES.md\":\"# Examples\\n\\n- add(a=2, b=3) returns 5\\n- add(a=-4, b=10) returns 6\\n\"}";

void register_modern(ferrite_server *server) {
    add_tool(server,
             SIMPLE_TOOL("test_input_required_result_elicitation", "Asks for the user's name, then greets them (MRTR)"),
             tool_mrtr_elicitation, NULL);
    add_tool(server, SIMPLE_TOOL("test_input_required_result_sampling", "Asks the client's LLM a question (MRTR)"),
             tool_mrtr_sampling, NULL);
    add_tool(server, SIMPLE_TOOL("test_input_required_result_list_roots", "Asks for the client's roots (MRTR)"),
             tool_mrtr_list_roots, NULL);
    add_tool(server,
             SIMPLE_TOOL("test_input_required_result_request_state",
                         "Asks for a confirmation and carries state (MRTR)"),
             tool_mrtr_request_state, NULL);
    add_tool(server,
             SIMPLE_TOOL("test_input_required_result_multiple_inputs",
                         "Asks for a name, a greeting and the roots at once (MRTR)"),
             tool_mrtr_multiple_inputs, NULL);
    add_tool(server, SIMPLE_TOOL("test_input_required_result_multi_round", "Asks two questions in two rounds (MRTR)"),
             tool_mrtr_multi_round, NULL);
    add_tool(server,
             SIMPLE_TOOL("test_input_required_result_tampered_state",
                         "Carries sealed state; an altered one is refused (MRTR)"),
             tool_mrtr_tampered_state, NULL);
    add_tool(server,
             SIMPLE_TOOL("test_input_required_result_capabilities",
                         "Asks only with what the client declared: elicitation, sampling, roots (MRTR)"),
             tool_mrtr_capabilities, NULL);
    add_tool(server,
             SIMPLE_TOOL("test_streaming_elicitation", "Needs elicitation; asks the MRTR way, never with a request"),
             tool_streaming_elicitation, NULL);
    check("test_streaming_elicitation capabilities",
          ferrite_server_set_tool_required_client_capabilities(server, S("test_streaming_elicitation"),
                                                               S("{\"elicitation\":{}}")));
    add_tool(server, SIMPLE_TOOL("test_missing_capability", "Needs the client's sampling capability"), tool_fixed,
             "{\"content\":[{\"type\":\"text\",\"text\":\"the client declared sampling\"}]}");
    check("test_missing_capability capabilities",
          ferrite_server_set_tool_required_client_capabilities(server, S("test_missing_capability"),
                                                               S("{\"sampling\":{}}")));
    add_tool(server,
             SIMPLE_TOOL("test_logging_tool", "Logs two messages (sent only when the request asked for a log level)"),
             tool_logging_tool, NULL);
    check("test_dynamic_tool", add_dynamic_tool(server, 0));
    check("test_dynamic_prompt", add_dynamic_prompt(server, 0));
    add_tool(server,
             SIMPLE_TOOL("test_trigger_tool_change", "Replaces test_dynamic_tool and announces the tools list changed"),
             tool_trigger_tool_change, server);
    add_tool(server,
             SIMPLE_TOOL("test_trigger_prompt_change",
                         "Replaces test_dynamic_prompt and announces the prompts list changed"),
             tool_trigger_prompt_change, server);
    register_fleet(server); /* test_trigger_resource_update, in the same place on every surface */
    add_tool(server,
             "{\"name\":\"test_x_mcp_header\",\"description\":\"Echoes a region that HTTP clients mirror into the "
             "Mcp-Param-Region header\",\"inputSchema\":{\"type\":\"object\",\"properties\":{\"region\":{\"type\":"
             "\"string\",\"description\":\"A region name\",\"x-mcp-header\":\"Region\"}},\"required\":[\"region\"]}}",
             tool_x_mcp_header, NULL);
    add_prompt(server,
               "{\"name\":\"test_input_required_result_prompt\",\"description\":\"Asks for context before it is built "
               "(MRTR)\"}",
               prompt_mrtr, NULL);
    check("skill", ferrite_server_add_skill(server, S("skill://add-numbers"), SKILL_FILES, sizeof SKILL_FILES - 1));
    check("tools listChanged", ferrite_server_enable_tools_list_changed(server));
    check("prompts listChanged", ferrite_server_enable_prompts_list_changed(server));
    check("resources listChanged", ferrite_server_enable_resources_list_changed(server));
}
