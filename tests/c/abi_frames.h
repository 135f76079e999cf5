/*
 * What the task, elicitation and parity checks read back (abi_tasks.c, abi_elicit.c, ...): a request's
 * answer on a connection, the JSON at a pointer in it, and the frames a connection's send
 * callback received (its outbox). A header of its own, not abi_test.h: other test files keep
 * private helpers by these names.
 */
#ifndef FERRITE_ABI_FRAMES_H
#define FERRITE_ABI_FRAMES_H

#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* clock_gettime, pthread_cond_timedwait */
#endif

#include "ferrite.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

/* handle_raw_on's answer (caller frees with ferrite_string_free), or NULL. */
char *raw_on(ferrite_server *server, ferrite_connection *conn, const char *msg);
/* The JSON text at `pointer` (caller frees), or NULL. */
char *at(const char *json, const char *pointer);
/* Whether the JSON text at `pointer` is exactly `expected`; prints the document when not. */
bool is(const char *json, const char *pointer, const char *expected);

/* The frames a connection's send callback received (zero-initialise; outbox_free at the end),
 * and how often the connection's finalizer ran (outbox_finalize as its finalizer). */
#define OUTBOX_FRAMES 32
typedef struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    char *frames[OUTBOX_FRAMES];
    int count;
    atomic_int finalized;
} outbox;

/* A ferrite_send_callback keeping a copy of each frame (the first OUTBOX_FRAMES). */
void outbox_send(void *u, ferrite_str frame);
/* A connection finalizer counting its calls in `finalized`. */
void outbox_finalize(void *u);
/* Free the frames kept. */
void outbox_free(outbox *o);
/* Frame n, waiting up to 10 s; borrowed, NULL if it never came. */
const char *outbox_wait(outbox *o, int n);
/* How many frames arrived so far. */
int outbox_count(outbox *o);

#endif
