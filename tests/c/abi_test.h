/*
 * What the translation units of the abi_test program share: the header, the check counters
 * and macros. abi_test.c defines the counters, the shared helpers and main(); abi_checks.c,
 * abi_modern.c, abi_http.c, abi_parity.c, abi_auth.c, abi_mount.c, abi_tasks.c, abi_elicit.c
 * and abi_limits.c add checks of their own (see each declaration). The abi-test server those
 * from abi_test.c share (its handlers in abi_handlers.c, the request macros) is declared in
 * abi_server.h.
 */
#ifndef ABI_TEST_H
#define ABI_TEST_H

#define _POSIX_C_SOURCE 200809L
#define FERRITE_TESTING 1
#include "ferrite.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* A string literal as a (ptr, len) pair. */
#define S(lit) lit, sizeof(lit) - 1

extern int failures;
extern int checks;

#define CHECK(cond, name)                                                                  \
    do {                                                                                   \
        checks++;                                                                          \
        if (cond) {                                                                        \
            printf("ok %d - %s\n", checks, name);                                          \
        } else {                                                                           \
            failures++;                                                                    \
            printf("not ok %d - %s (line %d; last error: %s)\n", checks, name, __LINE__, \
                   ferrite_last_error());                                                  \
        }                                                                                  \
    } while (0)

static inline void sleep_ms(long ms) {
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* abi_checks.c: the handshake-era checks through handle_raw (check_handlers and check_bad_inputs
 * on a server register_all filled; the rest on servers of their own), and serve_until_close, the
 * "serve-until-close" mode (0 when closing from this thread made serve_stdio return CLOSED). */
void check_handlers(ferrite_server *server);
void check_bad_inputs(ferrite_server *server);
void check_json_helpers(void);
void check_lifecycle(void);
void check_close_with_pending_request(void);
int serve_until_close(void);

/* abi_modern.c: the 2026-07-28 checks in-process (bad modern input, MRTR, the new getters, custom
 * methods, request state keys, extensions, cache hints), and skills on a server of their own. */
void check_modern(void);
void check_skills(void);

/* abi_http.c: the HTTP options' setters and a stateful server over Streamable HTTP on a loopback
 * port, 2026-07-28 included. */
void check_http(void);

/* abi_parity.c: the version, the defaults, the request context and server API of the parity
 * table, host-held connections, the HTTP options' core errors. */
void check_parity(void);

/* abi_auth.c: authorization (the core's configuration and its errors, a host token verifier,
 * the identity getters, over HTTP with RS256 JWTs). */
void check_auth(void);

/* abi_jwt.c: RSA keys generated per run (OpenSSL's libcrypto) and RS256 JWTs they sign. */
typedef struct test_key test_key;
test_key *test_key_new(const char *kid);
const char *test_key_jwk(const test_key *key);
/* A JWT of `claims_json` signed by `key` (its kid in the header); NULL key: `alg: none`,
 * unsigned. malloc'd; NULL if signing failed. */
char *test_jwt(const test_key *key, const char *claims_json);
void test_key_free(test_key *key);

/* abi_mount.c: the endpoint driven by a host's own HTTP server (ferrite_http_service and its
 * exchanges) and the request info handlers read; the request_info tool (the request info JSON,
 * "null" outside HTTP), which abi_test's own server registers too. */
void check_mount(void);
uint32_t mount_tool_request_info(void *user_data, ferrite_request *request);

/* abi_tasks.c: tasks (a tool's task support at registration and its errors, synchronous and
 * PENDING handlers as task bodies, cancellation observed, failures ending tasks failed, elicitation
 * inside a task answered through tasks/result and tasks/update). */
void check_tasks(void);

/* abi_elicit.c: task options (applied to a task-augmented call, refused once tasks began) and URL
 * elicitation (the request and its answer, the completion notification from a request and from
 * the server, the -32042 failure and its bad-JSON codes). */
void check_elicit(void);

/* abi_limits.c: the dispatch limits (ferrite_server_set_limits and ferrite_server_limits, their
 * core errors, a call past max_in_flight_per_connection or max_in_flight, a batch past
 * max_batch_len) and the HTTP session cap (max_sessions 1 over HTTP: the first session evicted). */
void check_limits(void);

/* abi_middleware.c: middleware (ferrite_server_add_middleware, ferrite_middleware_next_run):
 * order, changed params, answers without the handler, changed answers, errors from the chain, next
 * twice, invalid results, in both eras, and the finalizers. */
void check_middleware(void);
void check_compose(void);
/* argv[0] of the test program (abi_compose.c starts it as a proxy's upstream). */
extern const char *self_path;

/* abi_test.c: one HTTP/1.1 exchange on a fresh loopback connection (the whole response, malloc'd,
 * or NULL), and a response header's value (lower-case name). */
char *http_exchange(uint16_t port, const char *method, const char *host, const char *accept,
                    const char *extra_headers, const char *body);
bool http_header(const char *response, const char *name, char *value, size_t cap);

#endif
