/* The C everything server: small helpers the fixture files share (JSON building, request
 * completion, a detached worker thread, the WAV fixture). See everything.c. */
#include "everything.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

char *wav_base64;   /* built at start-up: 0.1 s of 8 kHz mono 16-bit silence */
char *audio_result; /* the test_audio_content result, built from it */

void die(const char *what, ferrite_result rc) {
    fprintf(stderr, "everything: %s: %s (%s)\n", what, ferrite_result_message(rc), ferrite_last_error());
    exit(1);
}

void sleep_ms(long ms) {
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* ------------------------------------------------------------------ small helpers */

void buf_add(buf *b, const char *s, size_t n) {
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
void buf_str(buf *b, const char *s) { buf_add(b, s, strlen(s)); }
/* Append `s` as a JSON string literal. */
void buf_quoted(buf *b, const char *s, size_t n) {
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
uint32_t complete_text(ferrite_request *req, const char *text, size_t n) {
    return ferrite_request_complete_text(req, text, n, NULL, 0);
}
uint32_t complete_text_z(ferrite_request *req, const char *text) { return complete_text(req, text, strlen(text)); }

/* A string argument of the request, borrowed from it (empty if absent). */
ferrite_str arg_str(ferrite_request *req, const char *pointer) {
    ferrite_str s = {"", 0};
    if (ferrite_request_argument_string(req, pointer, strlen(pointer), &s) != FERRITE_RESULT_OK) {
        s.ptr = "";
        s.len = 0;
    }
    return s;
}

/* A string inside a JSON document (NULL if absent); free with ferrite_string_free. */
char *string_at(ferrite_str json, const char *pointer) {
    char *out = NULL;
    if (ferrite_json_get_string(json.ptr, json.len, pointer, strlen(pointer), &out, NULL) != FERRITE_RESULT_OK) {
        return NULL;
    }
    return out;
}

char *base64(const unsigned char *data, size_t n) {
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

char *make_wav_base64(void) {
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
uint32_t run_later(void *(*fn)(void *), ferrite_request *req) {
    pthread_t t;
    if (pthread_create(&t, NULL, fn, req) != 0) {
        ferrite_request_fail(req, S("cannot start a thread"));
        return FERRITE_RESULT_OK;
    }
    pthread_detach(t);
    return FERRITE_RESULT_PENDING;
}

/* Exit with the message when a set-up call fails. */
void check(const char *what, ferrite_result rc) {
    if (rc != FERRITE_RESULT_OK) {
        die(what, rc);
    }
}
