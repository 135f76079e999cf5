/* The C everything server: the handshake-era fixtures of examples/SURFACE.md (tools, resources,
 * prompts, completions). See everything.c. */
#include "everything.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ tools */

/* Write `v` in decimal at `out` (at least 20 bytes); returns the length. */
size_t format_i64(char *out, int64_t v) {
    char digits[20];
    size_t n = 0;
    uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    do {
        digits[n++] = (char)('0' + u % 10);
        u /= 10;
    } while (u > 0);
    size_t len = 0;
    if (v < 0) {
        out[len++] = '-';
    }
    while (n > 0) {
        out[len++] = digits[--n];
    }
    return len;
}

/* The largest integer magnitude add takes or answers: 2^53 - 1, what every JSON peer
 * (JavaScript's numbers included) reads exactly (RFC 7493). */
#define MAX_EXACT (((int64_t)1 << 53) - 1)

static bool exact(int64_t v) { return v >= -MAX_EXACT && v <= MAX_EXACT; }

static uint32_t tool_add(void *user_data, ferrite_request *req) {
    (void)user_data;
    int64_t a = 0, b = 0;
    /* The input schema guarantees integers; one beyond 64 bits is not read, and an operand or a
     * sum beyond MAX_EXACT is the same tool error on every surface. */
    if (ferrite_request_argument_i64(req, S("/a"), &a) != FERRITE_RESULT_OK ||
        ferrite_request_argument_i64(req, S("/b"), &b) != FERRITE_RESULT_OK || !exact(a) || !exact(b) ||
        !exact(a + b)) {
        return ferrite_request_fail(req, S("integer overflow"));
    }
    /* add is the benchmark's hot path: format the sum by hand (snprintf costs more than
     * the rest of this handler). */
    char structured[40] = "{\"sum\":";
    size_t prefix = strlen(structured);
    size_t t = format_i64(structured + prefix, a + b);
    structured[prefix + t] = '}';
    return ferrite_request_complete_text(req, structured + prefix, t, structured, prefix + t + 1);
}

static uint32_t tool_echo(void *user_data, ferrite_request *req) {
    (void)user_data;
    ferrite_str text = arg_str(req, "/text");
    return complete_text(req, text.ptr, text.len);
}

/* A tool whose result is fixed: user_data is the result JSON (static storage). */
uint32_t tool_fixed(void *user_data, ferrite_request *req) {
    const char *json = user_data;
    return ferrite_request_complete(req, json, strlen(json));
}

/* test_reconnection: over HTTP, close the POST's SSE stream (the client reconnects with
 * Last-Event-ID after the 200 ms retry hint), then finish ~300 ms later on a thread of its own;
 * the result reaches the client on the resumed stream. Elsewhere (stdio) it completes at once. */
static const char RECONNECTED[] = "Reconnection test completed";

static void *reconnection_thread(void *arg) {
    ferrite_request *req = arg;
    sleep_ms(300);
    ferrite_request_complete_text(req, S(RECONNECTED), NULL, 0);
    return NULL;
}

static uint32_t tool_reconnection(void *user_data, ferrite_request *req) {
    (void)user_data;
    const uint64_t retry_ms = 200;
    bool closed = false;
    ferrite_result rc = ferrite_request_close_sse_stream(req, &retry_ms, &closed);
    if (rc != FERRITE_RESULT_OK) {
        return ferrite_request_fail(req, ferrite_last_error(), strlen(ferrite_last_error()));
    }
    if (!closed) {
        return ferrite_request_complete_text(req, S(RECONNECTED), NULL, 0);
    }
    return run_later(reconnection_thread, req);
}

static uint32_t tool_error(void *user_data, ferrite_request *req) {
    (void)user_data;
    return ferrite_request_fail(req, S("This tool intentionally returns an error for testing"));
}

static void *logging_thread(void *arg) {
    ferrite_request *req = arg;
    static const char *messages[] = {"\"Tool execution started\"", "\"Tool processing data\"",
                                     "\"Tool execution completed\""};
    for (int i = 0; i < 3; i++) {
        if (i > 0) {
            sleep_ms(50);
        }
        ferrite_request_log(req, FERRITE_LOG_LEVEL_INFO, messages[i], strlen(messages[i]), NULL, 0, NULL);
    }
    complete_text_z(req, "Tool with logging executed successfully");
    return NULL;
}
static uint32_t tool_logging(void *user_data, ferrite_request *req) {
    (void)user_data;
    return run_later(logging_thread, req);
}

static void *progress_thread(void *arg) {
    ferrite_request *req = arg;
    const double total = 100.0;
    for (int i = 0; i < 3; i++) {
        if (i > 0) {
            sleep_ms(50);
        }
        ferrite_request_report_progress(req, 50.0 * i, &total, NULL, 0, NULL);
    }
    complete_text_z(req, "Tool with progress executed successfully");
    return NULL;
}
static uint32_t tool_progress(void *user_data, ferrite_request *req) {
    (void)user_data;
    return run_later(progress_thread, req);
}

/* Sampling: ask the client's LLM; the reply callback completes the pending call. */
static void sampling_reply(void *user_data, ferrite_result result, ferrite_str json, ferrite_str error) {
    ferrite_request *req = user_data;
    if (result != FERRITE_RESULT_OK) {
        ferrite_request_fail(req, error.ptr, error.len);
        return;
    }
    char *text = string_at(json, "/content/text");
    if (!text) {
        text = string_at(json, "/content/0/text");
    }
    buf b = {0};
    buf_str(&b, "LLM response: ");
    buf_str(&b, text ? text : "");
    complete_text(req, b.p, b.len);
    free(b.p);
    ferrite_string_free(text);
}
static uint32_t tool_sampling(void *user_data, ferrite_request *req) {
    (void)user_data;
    ferrite_str prompt = arg_str(req, "/prompt");
    buf b = {0};
    buf_str(&b, "{\"messages\":[{\"role\":\"user\",\"content\":{\"type\":\"text\",\"text\":");
    buf_quoted(&b, prompt.ptr, prompt.len);
    buf_str(&b, "}}],\"maxTokens\":100}");
    ferrite_result rc = ferrite_request_sample(req, b.p, b.len, sampling_reply, req, NULL);
    free(b.p);
    if (rc != FERRITE_RESULT_OK) {
        const char *why = ferrite_last_error();
        return ferrite_request_fail(req, why, strlen(why));
    }
    return FERRITE_RESULT_PENDING;
}

/* Elicitation: two result formats, one reply callback each. */
static void elicit_reply(ferrite_request *req, ferrite_result result, ferrite_str json, ferrite_str error,
                         const char *prefix, const char *separator, const char *no_content) {
    if (result != FERRITE_RESULT_OK) {
        ferrite_request_fail(req, error.ptr, error.len);
        return;
    }
    char *action = string_at(json, "/action"), *content = NULL;
    if (ferrite_json_get(json.ptr, json.len, S("/content"), &content, NULL) != FERRITE_RESULT_OK) {
        content = NULL;
    }
    buf b = {0};
    buf_str(&b, prefix);
    buf_str(&b, action ? action : "");
    buf_str(&b, separator);
    buf_str(&b, content ? content : no_content);
    complete_text(req, b.p, b.len);
    free(b.p);
    ferrite_string_free(action);
    ferrite_string_free(content);
}
static void user_response_reply(void *user_data, ferrite_result result, ferrite_str json, ferrite_str error) {
    elicit_reply(user_data, result, json, error, "User response: ", " ", "null");
}
static void form_reply(void *user_data, ferrite_result result, ferrite_str json, ferrite_str error) {
    elicit_reply(user_data, result, json, error, "Elicitation completed: action=", ", content=", "{}");
}
static uint32_t start_elicit(ferrite_request *req, const char *params, size_t len, ferrite_reply_callback reply) {
    ferrite_result rc = ferrite_request_elicit(req, params, len, reply, req, NULL);
    if (rc != FERRITE_RESULT_OK) {
        const char *why = ferrite_last_error();
        return ferrite_request_fail(req, why, strlen(why));
    }
    return FERRITE_RESULT_PENDING;
}

static uint32_t tool_elicitation(void *user_data, ferrite_request *req) {
    (void)user_data;
    ferrite_str message = arg_str(req, "/message");
    buf b = {0};
    buf_str(&b, "{\"message\":");
    buf_quoted(&b, message.ptr, message.len);
    buf_str(&b, ",\"requestedSchema\":{\"type\":\"object\",\"properties\":{"
                "\"username\":{\"type\":\"string\",\"description\":\"User's response\"},"
                "\"email\":{\"type\":\"string\",\"description\":\"User's email address\"}},"
                "\"required\":[\"username\",\"email\"]}}");
    uint32_t rc = start_elicit(req, b.p, b.len, user_response_reply);
    free(b.p);
    return rc;
}

static const char SEP1034_PARAMS[] =
    "{\"message\":\"Please review and update the form fields with defaults\",\"requestedSchema\":{"
    "\"type\":\"object\",\"properties\":{"
    "\"name\":{\"type\":\"string\",\"description\":\"User name\",\"default\":\"John Doe\"},"
    "\"age\":{\"type\":\"integer\",\"description\":\"User age\",\"default\":30},"
    "\"score\":{\"type\":\"number\",\"description\":\"User score\",\"default\":95.5},"
    "\"status\":{\"type\":\"string\",\"description\":\"User status\",\"enum\":[\"active\",\"inactive\",\"pending\"],"
    "\"default\":\"active\"},"
    "\"verified\":{\"type\":\"boolean\",\"description\":\"Verification status\",\"default\":true}},"
    "\"required\":[]}}";

static const char SEP1330_PARAMS[] =
    "{\"message\":\"Please select options from the enum fields\",\"requestedSchema\":{"
    "\"type\":\"object\",\"properties\":{"
    "\"untitledSingle\":{\"type\":\"string\",\"description\":\"Select one option\","
    "\"enum\":[\"option1\",\"option2\",\"option3\"]},"
    "\"titledSingle\":{\"type\":\"string\",\"description\":\"Select one option with titles\",\"oneOf\":["
    "{\"const\":\"value1\",\"title\":\"First Option\"},{\"const\":\"value2\",\"title\":\"Second Option\"},"
    "{\"const\":\"value3\",\"title\":\"Third Option\"}]},"
    "\"legacyEnum\":{\"type\":\"string\",\"description\":\"Select one option (legacy)\","
    "\"enum\":[\"opt1\",\"opt2\",\"opt3\"],\"enumNames\":[\"Option One\",\"Option Two\",\"Option Three\"]},"
    "\"untitledMulti\":{\"type\":\"array\",\"description\":\"Select multiple options\",\"minItems\":1,\"maxItems\":3,"
    "\"items\":{\"type\":\"string\",\"enum\":[\"option1\",\"option2\",\"option3\"]}},"
    "\"titledMulti\":{\"type\":\"array\",\"description\":\"Select multiple options with titles\",\"minItems\":1,"
    "\"maxItems\":3,\"items\":{\"anyOf\":[{\"const\":\"value1\",\"title\":\"First Choice\"},"
    "{\"const\":\"value2\",\"title\":\"Second Choice\"},{\"const\":\"value3\",\"title\":\"Third Choice\"}]}}},"
    "\"required\":[]}}";

/* user_data: the elicitation params (static storage). */
static uint32_t tool_elicit_form(void *user_data, ferrite_request *req) {
    const char *params = user_data;
    return start_elicit(req, params, strlen(params), form_reply);
}

static uint32_t tool_json_schema(void *user_data, ferrite_request *req) {
    (void)user_data;
    ferrite_str args = {"{}", 2};
    ferrite_request_arguments(req, &args);
    buf b = {0};
    buf_str(&b, "JSON Schema 2020-12 tool called with: ");
    buf_add(&b, args.ptr, args.len);
    uint32_t rc = complete_text(req, b.p, b.len);
    free(b.p);
    return rc;
}

/* test_slow polls cancellation every 10 ms on its own thread; the count is shared with
 * test_fault_hang (everything_faults.c). */
static atomic_ullong cancellations;

void count_cancellation(void) {
    atomic_fetch_add(&cancellations, 1);
}

typedef struct {
    ferrite_request *req;
    long long ms;
} slow_job;

static void *slow_thread(void *arg) {
    slow_job job = *(slow_job *)arg;
    free(arg);
    struct timespec start, now;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (;;) {
        clock_gettime(CLOCK_MONOTONIC, &now);
        long long elapsed = (now.tv_sec - start.tv_sec) * 1000LL + (now.tv_nsec - start.tv_nsec) / 1000000LL;
        if (elapsed >= job.ms) {
            break;
        }
        bool cancelled = false;
        ferrite_request_is_cancelled(job.req, &cancelled);
        if (cancelled) {
            count_cancellation();
            complete_text_z(job.req, "cancelled");
            return NULL;
        }
        sleep_ms(10);
    }
    char text[64];
    snprintf(text, sizeof text, "completed after %lld ms", job.ms);
    complete_text_z(job.req, text);
    return NULL;
}

static uint32_t tool_slow(void *user_data, ferrite_request *req) {
    (void)user_data;
    int64_t ms = 0;
    ferrite_request_argument_i64(req, S("/ms"), &ms);
    slow_job *job = malloc(sizeof *job);
    job->req = req;
    job->ms = ms < 0 ? 0 : (long long)ms;
    pthread_t t;
    if (pthread_create(&t, NULL, slow_thread, job) != 0) {
        free(job);
        return ferrite_request_fail(req, S("cannot start a thread"));
    }
    pthread_detach(t);
    return FERRITE_RESULT_PENDING;
}

static uint32_t tool_cancellation_count(void *user_data, ferrite_request *req) {
    (void)user_data;
    char text[32];
    snprintf(text, sizeof text, "%llu", (unsigned long long)atomic_load(&cancellations));
    return complete_text_z(req, text);
}

void add_tool(ferrite_server *server, const char *json, ferrite_tool_callback fn, const void *user_data) {
    ferrite_result rc = ferrite_server_add_tool(server, json, strlen(json), fn, (void *)user_data, NULL);
    if (rc != FERRITE_RESULT_OK) {
        die(json, rc);
    }
}

void register_tools(ferrite_server *server) {
    /* First: clients may call the first tool listed with no arguments. */
    add_tool(server, SIMPLE_TOOL("test_simple_text", "Returns a simple text response"), tool_fixed,
             "{\"content\":[{\"type\":\"text\",\"text\":\"This is a simple text response for testing.\"}]}");
    add_tool(server,
             "{\"name\":\"add\",\"description\":\"Add two integers and return their sum\",\"inputSchema\":{\"type\":"
             "\"object\",\"properties\":{\"a\":{\"type\":\"integer\"},\"b\":{\"type\":\"integer\"}},\"required\":[\"a\","
             "\"b\"]},\"outputSchema\":{\"type\":\"object\",\"properties\":{\"sum\":{\"type\":\"integer\"}},"
             "\"required\":[\"sum\"]}}",
             tool_add, NULL);
    add_tool(server,
             "{\"name\":\"echo\",\"description\":\"Echo the text back\",\"inputSchema\":{\"$schema\":"
             "\"https://json-schema.org/draft/2020-12/schema\",\"description\":\"The arguments of echo.\","
             "\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\",\"description\":"
             "\"The text to echo back.\"}},\"required\":[\"text\"]}}",
             tool_echo, NULL);
    add_tool(server, SIMPLE_TOOL("test_image_content", "Returns an image (PNG)"), tool_fixed,
             "{\"content\":[{\"type\":\"image\",\"data\":\"" PNG "\",\"mimeType\":\"image/png\"}]}");

    buf b = {0};
    buf_str(&b, "{\"content\":[{\"type\":\"audio\",\"data\":\"");
    buf_str(&b, wav_base64);
    buf_str(&b, "\",\"mimeType\":\"audio/wav\"}]}");
    audio_result = b.p;
    add_tool(server, SIMPLE_TOOL("test_audio_content", "Returns audio (WAV)"), tool_fixed, audio_result);

    add_tool(server, SIMPLE_TOOL("test_embedded_resource", "Returns an embedded resource"), tool_fixed,
             "{\"content\":[{\"type\":\"resource\",\"resource\":{\"uri\":\"test://embedded-resource\",\"mimeType\":"
             "\"text/plain\",\"text\":\"This is an embedded resource content.\"}}]}");
    add_tool(server, SIMPLE_TOOL("test_multiple_content_types", "Returns text, an image and a resource"), tool_fixed,
             "{\"content\":[{\"type\":\"text\",\"text\":\"Multiple content types test:\"},{\"type\":\"image\",\"data\":"
             "\"" PNG "\",\"mimeType\":\"image/png\"},{\"type\":\"resource\",\"resource\":{\"uri\":"
             "\"test://mixed-content-resource\",\"mimeType\":\"application/json\",\"text\":"
             "\"{\\\"test\\\":\\\"data\\\",\\\"value\\\":123}\"}}]}");
    add_tool(server, SIMPLE_TOOL("test_tool_with_logging", "Logs three messages while it runs"), tool_logging, NULL);
    add_tool(server, SIMPLE_TOOL("test_tool_with_progress", "Reports progress 0, 50, 100 of 100"), tool_progress, NULL);
    add_tool(server, SIMPLE_TOOL("test_error_handling", "Always fails with isError"), tool_error, NULL);
    add_tool(server,
             "{\"name\":\"test_sampling\",\"description\":\"Asks the client's LLM to answer a prompt\",\"inputSchema\":{"
             "\"type\":\"object\",\"properties\":{\"prompt\":{\"type\":\"string\",\"description\":\"The prompt to send\"}},"
             "\"required\":[\"prompt\"]}}",
             tool_sampling, NULL);
    add_tool(server,
             "{\"name\":\"test_elicitation\",\"description\":\"Asks the user for a username and an email\","
             "\"inputSchema\":{\"type\":\"object\",\"properties\":{\"message\":{\"type\":\"string\",\"description\":"
             "\"The message to show the user\"}},\"required\":[\"message\"]}}",
             tool_elicitation, NULL);
    add_tool(server,
             SIMPLE_TOOL("test_elicitation_sep1034_defaults", "Elicits fields with default values (SEP-1034)"),
             tool_elicit_form, SEP1034_PARAMS);
    add_tool(server, SIMPLE_TOOL("test_elicitation_sep1330_enums", "Elicits every enum schema variant (SEP-1330)"),
             tool_elicit_form, SEP1330_PARAMS);
    add_tool(server,
             "{\"name\":\"json_schema_2020_12_tool\",\"description\":\"A tool whose input schema uses JSON Schema "
             "2020-12 features\",\"inputSchema\":{\"$schema\":\"https://json-schema.org/draft/2020-12/schema\","
             "\"type\":\"object\",\"$defs\":{\"address\":{\"$anchor\":\"addressDef\",\"type\":\"object\","
             "\"properties\":{\"street\":{\"type\":\"string\"},\"city\":{\"type\":\"string\"}}}},"
             "\"properties\":{\"name\":{\"type\":\"string\"},\"address\":{\"$ref\":\"#/$defs/address\"},"
             "\"contactMethod\":{\"type\":\"string\",\"enum\":[\"phone\",\"email\"]},\"phone\":{\"type\":"
             "\"string\"},\"email\":{\"type\":\"string\"}},"
             "\"allOf\":[{\"anyOf\":[{\"required\":[\"phone\"]},{\"required\":[\"email\"]}]}],"
             "\"if\":{\"properties\":{\"contactMethod\":{\"const\":\"phone\"}},\"required\":[\"contactMethod\"]},"
             "\"then\":{\"required\":[\"phone\"]},\"else\":{\"required\":[\"email\"]},"
             "\"additionalProperties\":false}}",
             tool_json_schema, NULL);
    add_tool(server,
             SIMPLE_TOOL("test_reconnection", "Closes the SSE stream mid-call (HTTP); the result arrives after the client reconnects"),
             tool_reconnection, NULL);
    add_tool(server,
             "{\"name\":\"test_slow\",\"description\":\"Waits ms milliseconds, stopping early when cancelled\","
             "\"inputSchema\":{\"type\":\"object\",\"properties\":{\"ms\":{\"type\":\"integer\",\"minimum\":0}},"
             "\"required\":[\"ms\"]}}",
             tool_slow, NULL);
    add_tool(server, SIMPLE_TOOL("test_cancellation_count", CANCELLATION_COUNT_DESCRIPTION),
             tool_cancellation_count, NULL);
    register_faults(server);
}

/* ------------------------------------------------------------------ resources */

/* user_data: the contents' JSON fields after "uri" (static storage). */
static uint32_t read_fixed(void *user_data, ferrite_request *req, ferrite_str uri, ferrite_str vars) {
    (void)vars;
    buf b = {0};
    buf_str(&b, "{\"contents\":[{\"uri\":");
    buf_quoted(&b, uri.ptr, uri.len);
    buf_str(&b, user_data);
    buf_str(&b, "}]}");
    uint32_t rc = ferrite_request_complete(req, b.p, b.len);
    free(b.p);
    return rc;
}

static uint32_t read_template(void *user_data, ferrite_request *req, ferrite_str uri, ferrite_str vars) {
    (void)user_data;
    char *id = string_at(vars, "/id");
    const char *i = id ? id : "";
    buf text = {0}, b = {0};
    buf_str(&text, "{\"id\":");
    buf_quoted(&text, i, strlen(i));
    buf_str(&text, ",\"templateTest\":true,\"data\":");
    buf data = {0};
    buf_str(&data, "Data for ID: ");
    buf_str(&data, i);
    buf_quoted(&text, data.p, data.len);
    buf_str(&text, "}");
    buf_str(&b, "{\"contents\":[{\"uri\":");
    buf_quoted(&b, uri.ptr, uri.len);
    buf_str(&b, ",\"mimeType\":\"application/json\",\"text\":");
    buf_quoted(&b, text.p, text.len);
    buf_str(&b, "}]}");
    uint32_t rc = ferrite_request_complete(req, b.p, b.len);
    free(text.p);
    free(data.p);
    free(b.p);
    ferrite_string_free(id);
    return rc;
}

void register_resources(ferrite_server *server) {
    static const char *resources[][2] = {
        {"{\"uri\":\"test://static-text\",\"name\":\"static-text\",\"description\":\"A static text resource\","
         "\"mimeType\":\"text/plain\"}",
         ",\"mimeType\":\"text/plain\",\"text\":\"This is the content of the static text resource.\""},
        {"{\"uri\":\"test://static-binary\",\"name\":\"static-binary\",\"description\":\"A static PNG image\","
         "\"mimeType\":\"image/png\"}",
         ",\"mimeType\":\"image/png\",\"blob\":\"" PNG "\""},
        {"{\"uri\":\"test://watched-resource\",\"name\":\"watched-resource\",\"description\":\"A resource clients "
         "can subscribe to\",\"mimeType\":\"text/plain\"}",
         ",\"mimeType\":\"text/plain\",\"text\":\"Watched resource content\""},
    };
    for (size_t i = 0; i < sizeof resources / sizeof resources[0]; i++) {
        ferrite_result rc = ferrite_server_add_resource(server, resources[i][0], strlen(resources[i][0]), read_fixed,
                                                        (void *)resources[i][1], NULL);
        if (rc != FERRITE_RESULT_OK) {
            die(resources[i][0], rc);
        }
    }
    ferrite_result rc = ferrite_server_add_resource_template(
        server,
        S("{\"uriTemplate\":\"test://template/{id}/data\",\"name\":\"template\",\"description\":\"Data for an id\","
          "\"mimeType\":\"application/json\"}"),
        read_template, NULL, NULL);
    if (rc != FERRITE_RESULT_OK) {
        die("resource template", rc);
    }
}

/* ------------------------------------------------------------------ prompts */

static uint32_t prompt_fixed(void *user_data, ferrite_request *req) {
    const char *json = user_data;
    return ferrite_request_complete(req, json, strlen(json));
}

static uint32_t prompt_with_arguments(void *user_data, ferrite_request *req) {
    (void)user_data;
    ferrite_str a1 = arg_str(req, "/arg1"), a2 = arg_str(req, "/arg2");
    buf text = {0}, b = {0};
    buf_str(&text, "Prompt with arguments: arg1='");
    buf_add(&text, a1.ptr, a1.len);
    buf_str(&text, "', arg2='");
    buf_add(&text, a2.ptr, a2.len);
    buf_str(&text, "'");
    buf_str(&b, "{\"messages\":[{\"role\":\"user\",\"content\":{\"type\":\"text\",\"text\":");
    buf_quoted(&b, text.p, text.len);
    buf_str(&b, "}}]}");
    uint32_t rc = ferrite_request_complete(req, b.p, b.len);
    free(text.p);
    free(b.p);
    return rc;
}

static uint32_t prompt_with_embedded_resource(void *user_data, ferrite_request *req) {
    (void)user_data;
    ferrite_str uri = arg_str(req, "/resourceUri");
    buf b = {0};
    buf_str(&b, "{\"messages\":[{\"role\":\"user\",\"content\":{\"type\":\"resource\",\"resource\":{\"uri\":");
    buf_quoted(&b, uri.ptr, uri.len);
    buf_str(&b, ",\"mimeType\":\"text/plain\",\"text\":\"Embedded resource content for testing.\"}}},"
                "{\"role\":\"user\",\"content\":{\"type\":\"text\",\"text\":\"Please process the embedded resource "
                "above.\"}}]}");
    uint32_t rc = ferrite_request_complete(req, b.p, b.len);
    free(b.p);
    return rc;
}

void add_prompt(ferrite_server *server, const char *json, ferrite_prompt_callback fn, const void *user_data) {
    ferrite_result rc = ferrite_server_add_prompt(server, json, strlen(json), fn, (void *)user_data, NULL);
    if (rc != FERRITE_RESULT_OK) {
        die(json, rc);
    }
}

void register_prompts(ferrite_server *server) {
    add_prompt(server, "{\"name\":\"test_simple_prompt\",\"description\":\"A simple prompt without arguments\"}",
               prompt_fixed,
               "{\"messages\":[{\"role\":\"user\",\"content\":{\"type\":\"text\",\"text\":\"This is a simple prompt "
               "for testing.\"}}]}");
    add_prompt(server,
               "{\"name\":\"test_prompt_with_arguments\",\"description\":\"A prompt with two arguments\",\"arguments\":["
               "{\"name\":\"arg1\",\"description\":\"First test argument\",\"required\":true},"
               "{\"name\":\"arg2\",\"description\":\"Second test argument\",\"required\":true}]}",
               prompt_with_arguments, NULL);
    add_prompt(server,
               "{\"name\":\"test_prompt_with_embedded_resource\",\"description\":\"A prompt that embeds a resource\","
               "\"arguments\":[{\"name\":\"resourceUri\",\"description\":\"URI of the resource to embed\","
               "\"required\":true}]}",
               prompt_with_embedded_resource, NULL);
    add_prompt(server, "{\"name\":\"test_prompt_with_image\",\"description\":\"A prompt with an image\"}", prompt_fixed,
               "{\"messages\":[{\"role\":\"user\",\"content\":{\"type\":\"image\",\"data\":\"" PNG
               "\",\"mimeType\":\"image/png\"}},{\"role\":\"user\",\"content\":{\"type\":\"text\",\"text\":\"Please "
               "analyze the image above.\"}}]}");
    ferrite_result rc = ferrite_server_set_argument_candidates(
        server, S("{\"type\":\"ref/prompt\",\"name\":\"test_prompt_with_arguments\"}"), S("arg1"),
        S("[\"paris\",\"park\",\"party\",\"pasta\",\"zebra\"]"));
    if (rc != FERRITE_RESULT_OK) {
        die("completion candidates", rc);
    }
}
