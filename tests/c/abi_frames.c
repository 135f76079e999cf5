/* What the task and elicitation checks read back: see abi_frames.h. */
#include "abi_frames.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

char *raw_on(ferrite_server *server, ferrite_connection *conn, const char *msg) {
    char *out = NULL;
    return ferrite_server_handle_raw_on(server, conn, msg, strlen(msg), &out, NULL) == FERRITE_RESULT_OK ? out : NULL;
}

char *at(const char *json, const char *pointer) {
    char *out = NULL;
    if (!json || ferrite_json_get(json, strlen(json), pointer, strlen(pointer), &out, NULL) != FERRITE_RESULT_OK) {
        return NULL;
    }
    return out;
}

bool is(const char *json, const char *pointer, const char *expected) {
    char *got = at(json, pointer);
    bool ok = got && strcmp(got, expected) == 0;
    if (!ok) {
        printf("# in: %s\n# at %s: %s, expected %s\n", json ? json : "(none)", pointer, got ? got : "(absent)", expected);
    }
    ferrite_string_free(got);
    return ok;
}

void outbox_send(void *u, ferrite_str frame) {
    outbox *o = u;
    pthread_mutex_lock(&o->mu);
    if (o->count < OUTBOX_FRAMES) {
        char *copy = malloc(frame.len + 1);
        memcpy(copy, frame.ptr, frame.len);
        copy[frame.len] = '\0';
        o->frames[o->count++] = copy;
    }
    pthread_cond_broadcast(&o->cv);
    pthread_mutex_unlock(&o->mu);
}

void outbox_finalize(void *u) {
    atomic_fetch_add(&((outbox *)u)->finalized, 1);
}

void outbox_free(outbox *o) {
    pthread_mutex_lock(&o->mu);
    for (int i = 0; i < o->count; i++) {
        free(o->frames[i]);
        o->frames[i] = NULL;
    }
    o->count = 0;
    pthread_mutex_unlock(&o->mu);
}

const char *outbox_wait(outbox *o, int n) {
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += 10;
    pthread_mutex_lock(&o->mu);
    while (o->count <= n && pthread_cond_timedwait(&o->cv, &o->mu, &deadline) == 0) {
    }
    const char *frame = o->count > n ? o->frames[n] : NULL;
    pthread_mutex_unlock(&o->mu);
    return frame;
}

int outbox_count(outbox *o) {
    pthread_mutex_lock(&o->mu);
    int n = o->count;
    pthread_mutex_unlock(&o->mu);
    return n;
}
