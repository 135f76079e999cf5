/* The C everything server's shared header: what its files (everything.c: the command line and
 * the transports; everything_handshake.c and everything_modern.c: the fixtures of each protocol
 * era; everything_tasks.c: the task fixtures; everything_fleet.c: the fleet fixture; everything_faults.c: the fault tools;
 * everything_helpers.c: small helpers) use from one another. */
#ifndef FERRITE_EVERYTHING_H
#define FERRITE_EVERYTHING_H

#define _POSIX_C_SOURCE 200809L
#include "ferrite.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A string literal as a (ptr, len) pair. */
#define S(lit) lit, sizeof(lit) - 1

/* A 1x1 PNG. */
#define PNG "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="

/* A tool descriptor taking no arguments. */
#define NO_ARGS "{\"type\":\"object\",\"additionalProperties\":false}"
#define SIMPLE_TOOL(name, description) \
    "{\"name\":\"" name "\",\"description\":\"" description "\",\"inputSchema\":" NO_ARGS "}"

/* A growable string; the everything server builds its JSON with it. */
typedef struct {
    char *p;
    size_t len, cap;
} buf;

/* everything_helpers.c */
extern char *wav_base64;   /* built at start-up: 0.1 s of 8 kHz mono 16-bit silence */
extern char *audio_result; /* the test_audio_content result, built from it */
void die(const char *what, ferrite_result rc);
void check(const char *what, ferrite_result rc);
void sleep_ms(long ms);
void buf_add(buf *b, const char *s, size_t n);
void buf_str(buf *b, const char *s);
void buf_quoted(buf *b, const char *s, size_t n);
uint32_t complete_text(ferrite_request *req, const char *text, size_t n);
uint32_t complete_text_z(ferrite_request *req, const char *text);
ferrite_str arg_str(ferrite_request *req, const char *pointer);
char *string_at(ferrite_str json, const char *pointer);
char *base64(const unsigned char *data, size_t n);
char *make_wav_base64(void);
uint32_t run_later(void *(*fn)(void *), ferrite_request *req);

/* everything_handshake.c */
size_t format_i64(char *out, int64_t v);
void add_tool(ferrite_server *server, const char *json, ferrite_tool_callback fn, const void *user_data);
void add_prompt(ferrite_server *server, const char *json, ferrite_prompt_callback fn, const void *user_data);
/* A tool whose result is the JSON text in user_data. */
uint32_t tool_fixed(void *user_data, ferrite_request *req);
void register_tools(ferrite_server *server);
void register_resources(ferrite_server *server);
void register_prompts(ferrite_server *server);
/* Counts a cancellation that test_slow or test_fault_hang observed (test_cancellation_count). */
void count_cancellation(void);

#define CANCELLATION_COUNT_DESCRIPTION "How many test_slow and test_fault_hang calls observed cancellation"

/* everything_faults.c: the fault tools, listed after test_cancellation_count */
#define FAULT_CRASH_DESCRIPTION "Fails the worst way the language allows inside the handler"
#define FAULT_REJECT_DESCRIPTION "Fails asynchronously, after the handler has returned"
#define FAULT_BAD_RESULT_DESCRIPTION "Returns a result that is not a valid tool result"
#define FAULT_HANG_DESCRIPTION "Never returns unless the request is cancelled"
void register_faults(ferrite_server *server);

/* everything_modern.c */
void register_modern(ferrite_server *server);

/* everything_fleet.c */
void register_fleet(ferrite_server *server);

/* everything_tasks.c */
void register_tasks(ferrite_server *server);

#endif
