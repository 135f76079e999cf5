/*
 * What the translation units of the abi_test program share: the header, the check counters
 * and macros. abi_test.c defines the counters and main(); abi_parity.c adds the checks of the
 * surface parity items (see check_parity).
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

/* abi_parity.c: the version, the defaults, the request context and server API of the parity
 * table, host-held connections, the HTTP options' core errors. */
void check_parity(void);

/* abi_auth.c: authorization (the core's configuration and its errors, a host token verifier,
 * the identity getters, over HTTP with RS256 JWTs). */
void check_auth(void);

/* abi_test.c: one HTTP/1.1 exchange on a fresh loopback connection (the whole response, malloc'd,
 * or NULL), and a response header's value (lower-case name). */
char *http_exchange(uint16_t port, const char *method, const char *host, const char *accept,
                    const char *extra_headers, const char *body);
bool http_header(const char *response, const char *name, char *value, size_t cap);

#endif
