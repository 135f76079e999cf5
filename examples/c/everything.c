/*
 * The C everything server: the whole surface of examples/SURFACE.md over stdio or HTTP, written
 * against include/ferrite.h only.
 *
 * Build from the repository root after `cargo build --release -p ferrite-ffi`:
 *   gcc -std=c11 -Iinclude examples/c/everything.c -Ltarget/release -lferrite -lpthread -ldl -lm
 * or statically:
 *   gcc -std=c11 -Iinclude examples/c/everything.c target/release/libferrite.a -lpthread -ldl -lm
 *
 * Usage: everything [--stateless] [--port N]
 *   no --port: serves stdio; --port N: Streamable HTTP at http://127.0.0.1:N/mcp
 *   (stateful, with sessions, unless --stateless). Any other argument: usage, exit status 2.
 *   Both protocol eras are served: the handshake revisions and 2026-07-28.
 *
 * Patterns shown: synchronous handlers that fill the result before returning; slow handlers
 * (logging, progress, test_slow) that return FERRITE_RESULT_PENDING and finish on a thread
 * of their own, so no Ferrite worker is blocked; server-to-client requests (sampling,
 * elicitation) whose reply callback completes the pending request; multi round-trip tools
 * (2026-07-28) that reply "input required" and read the answers on the retry; a skill; a
 * tool and a prompt replaced at run time, with list-changed notifications.
 */
#define _POSIX_C_SOURCE 200809L
#include "ferrite.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* A string literal as a (ptr, len) pair. */
#define S(lit) lit, sizeof(lit) - 1

/* A 1x1 PNG. */
#define PNG "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="

static char *wav_base64;   /* built at start-up: 0.1 s of 8 kHz mono 16-bit silence */
static char *audio_result; /* the test_audio_content result, built from it */

static void die(const char *what, ferrite_result rc) {
    fprintf(stderr, "everything: %s: %s (%s)\n", what, ferrite_result_message(rc), ferrite_last_error());
    exit(1);
}

static void sleep_ms(long ms) {
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* ------------------------------------------------------------------ small helpers */

/* A growable string; the everything server builds its JSON with it. */
typedef struct {
    char *p;
    size_t len, cap;
} buf;

static void buf_add(buf *b, const char *s, size_t n) {
    if (b->len + n + 1 > b->cap) {
        b->cap = (b->len + n + 1) * 2;
        b->p = realloc(b->p, b->cap);
        if (!b->p) {
            abort();
        }
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}
static void buf_str(buf *b, const char *s) { buf_add(b, s, strlen(s)); }
/* Append `s` as a JSON string literal. */
static void buf_quoted(buf *b, const char *s, size_t n) {
    char *q = NULL;
    size_t qlen = 0;
    if (ferrite_json_quote(s, n, &q, &qlen) != FERRITE_RESULT_OK) {
        buf_str(b, "\"\"");
        return;
    }
    buf_add(b, q, qlen);
    ferrite_string_free(q);
}

/* Complete a tool call with one text block. */
static uint32_t complete_text(ferrite_request *req, const char *text, size_t n) {
    return ferrite_request_complete_text(req, text, n, NULL, 0);
}
static uint32_t complete_text_z(ferrite_request *req, const char *text) { return complete_text(req, text, strlen(text)); }

/* A string argument of the request, borrowed from it (empty if absent). */
static ferrite_str arg_str(ferrite_request *req, const char *pointer) {
    ferrite_str s = {"", 0};
    if (ferrite_request_argument_string(req, pointer, strlen(pointer), &s) != FERRITE_RESULT_OK) {
        s.ptr = "";
        s.len = 0;
    }
    return s;
}

/* A string inside a JSON document (NULL if absent); free with ferrite_string_free. */
static char *string_at(ferrite_str json, const char *pointer) {
    char *out = NULL;
    if (ferrite_json_get_string(json.ptr, json.len, pointer, strlen(pointer), &out, NULL) != FERRITE_RESULT_OK) {
        return NULL;
    }
    return out;
}

static char *base64(const unsigned char *data, size_t n) {
    static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char *out = malloc((n + 2) / 3 * 4 + 1), *o = out;
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)data[i] << 16 | (i + 1 < n ? (uint32_t)data[i + 1] << 8 : 0) | (i + 2 < n ? data[i + 2] : 0);
        *o++ = alphabet[v >> 18 & 63];
        *o++ = alphabet[v >> 12 & 63];
        *o++ = i + 1 < n ? alphabet[v >> 6 & 63] : '=';
        *o++ = i + 2 < n ? alphabet[v & 63] : '=';
    }
    *o = '\0';
    return out;
}

static void put_le(unsigned char *p, uint32_t v, int bytes) {
    for (int i = 0; i < bytes; i++) {
        p[i] = (unsigned char)(v >> (8 * i));
    }
}

static char *make_wav_base64(void) {
    const uint32_t samples = 800, data_len = samples * 2;
    unsigned char *b = calloc(44 + data_len, 1);
    memcpy(b, "RIFF", 4);
    put_le(b + 4, 36 + data_len, 4);
    memcpy(b + 8, "WAVEfmt ", 8);
    put_le(b + 16, 16, 4);
    put_le(b + 20, 1, 2);     /* PCM */
    put_le(b + 22, 1, 2);     /* mono */
    put_le(b + 24, 8000, 4);  /* sample rate */
    put_le(b + 28, 16000, 4); /* byte rate */
    put_le(b + 32, 2, 2);     /* block align */
    put_le(b + 34, 16, 2);    /* bits per sample */
    memcpy(b + 36, "data", 4);
    put_le(b + 40, data_len, 4);
    char *out = base64(b, 44 + data_len);
    free(b);
    return out;
}

/* Run `fn(req)` on a detached thread of its own (the handler then returns PENDING). */
static uint32_t run_later(void *(*fn)(void *), ferrite_request *req) {
    pthread_t t;
    if (pthread_create(&t, NULL, fn, req) != 0) {
        ferrite_request_fail(req, S("cannot start a thread"));
        return FERRITE_RESULT_OK;
    }
    pthread_detach(t);
    return FERRITE_RESULT_PENDING;
}

/* ------------------------------------------------------------------ tools */

/* Write `v` in decimal at `out` (at least 20 bytes); returns the length. */
static size_t format_i64(char *out, int64_t v) {
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

static uint32_t tool_add(void *user_data, ferrite_request *req) {
    (void)user_data;
    int64_t a = 0, b = 0;
    ferrite_request_argument_i64(req, S("/a"), &a); /* the input schema guarantees integers */
    ferrite_request_argument_i64(req, S("/b"), &b);
    if ((b > 0 && a > INT64_MAX - b) || (b < 0 && a < INT64_MIN - b)) {
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
static uint32_t tool_fixed(void *user_data, ferrite_request *req) {
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

/* test_slow polls cancellation every 10 ms on its own thread; the count is shared. */
static atomic_ullong cancellations;

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
            atomic_fetch_add(&cancellations, 1);
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

#define NO_ARGS "{\"type\":\"object\",\"additionalProperties\":false}"
#define SIMPLE_TOOL(name, description) \
    "{\"name\":\"" name "\",\"description\":\"" description "\",\"inputSchema\":" NO_ARGS "}"

static void add_tool(ferrite_server *server, const char *json, ferrite_tool_callback fn, const void *user_data) {
    ferrite_result rc = ferrite_server_add_tool(server, json, strlen(json), fn, (void *)user_data, NULL);
    if (rc != FERRITE_RESULT_OK) {
        die(json, rc);
    }
}

static void register_tools(ferrite_server *server) {
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
             "{\"name\":\"echo\",\"description\":\"Echo the text back\",\"inputSchema\":{\"type\":\"object\","
             "\"properties\":{\"text\":{\"type\":\"string\",\"description\":\"The text to echo back.\"}},"
             "\"required\":[\"text\"]}}",
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
             SIMPLE_TOOL("test_reconnection", "Closes the SSE stream mid-call (HTTP); completes at once on stdio"),
             tool_reconnection, NULL);
    add_tool(server,
             "{\"name\":\"test_slow\",\"description\":\"Waits ms milliseconds, stopping early when cancelled\","
             "\"inputSchema\":{\"type\":\"object\",\"properties\":{\"ms\":{\"type\":\"integer\",\"minimum\":0}},"
             "\"required\":[\"ms\"]}}",
             tool_slow, NULL);
    add_tool(server, SIMPLE_TOOL("test_cancellation_count", "How many test_slow calls observed cancellation"),
             tool_cancellation_count, NULL);
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

static void register_resources(ferrite_server *server) {
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

static void add_prompt(ferrite_server *server, const char *json, ferrite_prompt_callback fn, const void *user_data) {
    ferrite_result rc = ferrite_server_add_prompt(server, json, strlen(json), fn, (void *)user_data, NULL);
    if (rc != FERRITE_RESULT_OK) {
        die(json, rc);
    }
}

static void register_prompts(ferrite_server *server) {
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

static void check(const char *what, ferrite_result rc) {
    if (rc != FERRITE_RESULT_OK) {
        die(what, rc);
    }
}

static void register_modern(ferrite_server *server) {
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

/* ------------------------------------------------------------------ main */

/* Streamable HTTP on 127.0.0.1:port at /mcp (default options) until the process is killed. Binding
 * first gives the real port when 0 was asked for; the serve call blocks this thread while
 * Ferrite's workers handle requests. */
static ferrite_result serve_http(ferrite_server *server, uint16_t port) {
    ferrite_http_listener *listener = NULL;
    ferrite_result rc = ferrite_server_http_bind(server, S("127.0.0.1"), port, NULL, &listener);
    if (rc != FERRITE_RESULT_OK) {
        fprintf(stderr, "everything: bind: %s (%s)\n", ferrite_result_message(rc), ferrite_last_error());
        return rc;
    }
    uint16_t bound = 0;
    ferrite_http_listener_port(listener, &bound);
    fprintf(stderr, "everything: Streamable HTTP on http://127.0.0.1:%u/mcp\n", (unsigned)bound);
    rc = ferrite_server_http_run(server, listener);
    if (rc != FERRITE_RESULT_CLOSED) {
        fprintf(stderr, "everything: serve_http: %s (%s)\n", ferrite_result_message(rc), ferrite_last_error());
        return rc;
    }
    return FERRITE_RESULT_OK;
}

int main(int argc, char **argv) {
    static const char USAGE[] = "usage: everything [--stateless] [--port N]\n"
                                "  no --port: serve stdio; --port N: Streamable HTTP on 127.0.0.1:N at /mcp\n";
    bool stateless = false;
    int port = -1; /* -1: stdio */
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--stateless") == 0) {
            stateless = true;
        } else if (strcmp(argv[i], "--port") == 0 && i + 1 < argc) {
            char *end = NULL;
            long p = strtol(argv[++i], &end, 10);
            if (*argv[i] == '\0' || *end != '\0' || p < 0 || p > 65535) {
                fprintf(stderr, "everything: --port needs a port number (0-65535), not %s\n%s", argv[i], USAGE);
                return 2;
            }
            port = (int)p;
        } else {
            fprintf(stderr, "everything: unknown argument %s\n%s", argv[i], USAGE);
            return 2;
        }
    }
    if (ferrite_abi_version() != FERRITE_ABI_VERSION) {
        fprintf(stderr, "everything: libferrite ABI %u, header %u\n", ferrite_abi_version(), FERRITE_ABI_VERSION);
        return 1;
    }
    wav_base64 = make_wav_base64();

    ferrite_server *server = NULL;
    ferrite_result rc = ferrite_server_new(
        S("{\"name\":\"ferrite-everything\",\"version\":\"0.1.0\"}"),
        stateless ? FERRITE_SERVER_MODE_STATELESS : FERRITE_SERVER_MODE_STATEFUL,
        S("Ferrite's everything server: the MCP conformance fixture surface."), &server);
    if (rc != FERRITE_RESULT_OK) {
        die("ferrite_server_new", rc);
    }
    register_tools(server);
    register_resources(server);
    register_prompts(server);
    register_modern(server);
    check("enable logging", ferrite_server_enable_logging(server));
    /* Handshake-era sessions subscribe with resources/subscribe; 2026-07-28 clients (any mode)
     * through listen streams. */
    check("enable subscriptions", ferrite_server_enable_resource_subscriptions(server));
    /* A static resource may be cached by anyone for a minute (2026-07-28 cache hints). */
    check("cache hint", ferrite_server_set_resource_cache_hint(server, S("test://static-text"), 60000, true));

    if (port < 0) {
        rc = ferrite_server_serve_stdio(server);
        if (rc != FERRITE_RESULT_OK) {
            fprintf(stderr, "everything: serve_stdio: %s (%s)\n", ferrite_result_message(rc), ferrite_last_error());
        }
    } else {
        rc = serve_http(server, (uint16_t)port);
    }
    ferrite_server_free(server);
    free(audio_result);
    free(wav_base64);
    return rc == FERRITE_RESULT_OK ? 0 : 1;
}
