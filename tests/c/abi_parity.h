/*
 * What the parity checks share (abi_parity.c, abi_context.c, abi_wire.c): the requests they
 * send, a server of a mode, answers on a held connection compared with what they must be, and
 * the handlers more than one of them registers. The frames a connection sent are collected in
 * abi_frames.h's outbox. A header of its own, not abi_test.h: other test files keep private
 * helpers by these names.
 */
#ifndef FERRITE_ABI_PARITY_H
#define FERRITE_ABI_PARITY_H

#include "abi_frames.h"
#include "abi_test.h"

#define INIT(id, caps, client)                                                                             \
    "{\"jsonrpc\":\"2.0\",\"id\":" #id ",\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\"," \
    "\"capabilities\":" caps ",\"clientInfo\":" client "}}"
#define INITIALIZED "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}"
#define TOOL_CALL(id, name, args) \
    "{\"jsonrpc\":\"2.0\",\"id\":" #id ",\"method\":\"tools/call\",\"params\":{\"name\":\"" name "\",\"arguments\":" args "}}"
#define TOOL_CALL_META(id, name, args, meta)                                                                  \
    "{\"jsonrpc\":\"2.0\",\"id\":" #id ",\"method\":\"tools/call\",\"params\":{\"name\":\"" name "\",\"arguments\":" args \
    ",\"_meta\":" meta "}}"
#define NO_ARGS_SCHEMA "{\"type\":\"object\",\"properties\":{}}"
#define SIMPLE_TOOL(name) "{\"name\":\"" name "\",\"inputSchema\":" NO_ARGS_SCHEMA "}"
#define ADD_SCHEMA                                                                                      \
    "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"integer\"},\"b\":{\"type\":\"integer\"}},\"required\":" \
    "[\"a\",\"b\"]}"

/* A server of `mode` (exits the program if it cannot be made). */
ferrite_server *server_with_mode(uint32_t mode);
/* Whether handle_raw_on gives exactly `expected`; prints both when not. */
bool on_is(ferrite_server *server, ferrite_connection *conn, const char *msg, const char *expected);
/* The text of the first content block of a tool result (caller frees), or NULL. */
char *result_text(const char *response);
/* Whether a tools/call's first text block is exactly `expected`; prints both when not. */
bool text_is(ferrite_server *server, ferrite_connection *conn, const char *msg, const char *expected);
/* Whether the last error is exactly `expected`; prints it when not. */
bool last_error_is(const char *expected);

/* handle_raw_on on a thread of its own (for requests that wait on the client). */
typedef struct {
    ferrite_server *server;
    ferrite_connection *conn;
    const char *msg;
    char *out;
    ferrite_result rc;
    pthread_t thread;
} async_call;
void async_start(async_call *c, ferrite_server *server, ferrite_connection *conn, const char *msg);
/* Wait until `*flag` is at least `n` (10 s at most); whether it got there. */
bool wait_for(atomic_int *flag, int n);

/* sum: a + b as text. */
uint32_t tool_sum(void *u, ferrite_request *req);
/* Completes the request with the client's answer to a server-to-client request, as text. */
void reply_as_text(void *user_data, ferrite_result result, ferrite_str json, ferrite_str error);

/* abi_context.c: the request context, cancellation as a callback, ping_client. */
void check_context(void);
void check_cancel(void);
void check_ping(void);
/* abi_wire.c: the core's wire shapes. */
void check_wire_shapes(void);

#endif
