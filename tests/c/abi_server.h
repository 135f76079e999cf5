/*
 * The abi-test server, shared by the files split from abi_test.c (abi_test.c, abi_handlers.c,
 * abi_checks.c, abi_modern.c, abi_http.c) and by no other: the request macros they build messages
 * with, the handlers' registration and what the handlers record, and the handle_raw helpers. A
 * header of its own because abi_tasks.c and abi_elicit.c define a TOOL (and abi_tasks.c an
 * ENVELOPE and a finalized counter) of their own, which declarations in abi_test.h would clash with.
 */
#ifndef ABI_SERVER_H
#define ABI_SERVER_H

#include "abi_test.h"

/* Messages: a tool descriptor without arguments, a handshake-era tool call, and 2026-07-28
 * requests carrying the _meta envelope (ENVELOPE's caps: the client capabilities JSON). */
#define NO_ARGS "{\"type\":\"object\",\"properties\":{}}"
#define TOOL(name) "{\"name\":\"" name "\",\"inputSchema\":" NO_ARGS "}"
#define CALL_TOOL(id, name, args) \
    "{\"jsonrpc\":\"2.0\",\"id\":" #id ",\"method\":\"tools/call\",\"params\":{\"name\":\"" name "\",\"arguments\":" args "}}"
#define ENVELOPE(caps)                                                                                          \
    "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\",\"io.modelcontextprotocol/"         \
    "clientCapabilities\":" caps "}"
#define MODERN_CALL(id, name, caps, extra)                                                                       \
    "{\"jsonrpc\":\"2.0\",\"id\":" #id ",\"method\":\"tools/call\",\"params\":{\"name\":\"" name "\","          \
    "\"arguments\":{}," extra ENVELOPE(caps) "}}"
#define MODERN(id, method, params, caps)                                                                         \
    "{\"jsonrpc\":\"2.0\",\"id\":" #id ",\"method\":\"" method "\",\"params\":{" params ENVELOPE(caps) "}}"
#define NAME_FORM "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"}},\"required\":[\"name\"]}"
#define ASK_NAME \
    "{\"user_name\":{\"method\":\"elicitation/create\",\"params\":{\"message\":\"Name?\",\"requestedSchema\":" NAME_FORM "}}}"

/* abi_handlers.c: the server and its registrations. new_server makes a stateful "abi-test"
 * server (exits 2 on failure); register_all adds the handshake-era handlers and returns how many
 * finalizers it handed over; register_modern adds the 2026-07-28 tools and custom methods and
 * returns how many method finalizers it handed over. */
ferrite_server *new_server(void);
int register_all(ferrite_server *server);
int register_modern(ferrite_server *server);

/* abi_handlers.c: the finalizer count_finalizer counts in `finalized`, and the add tool (also
 * registered on its own by the checks). */
extern atomic_int finalized;
void count_finalizer(void *user_data);
uint32_t tool_add(void *user_data, ferrite_request *req);

/* abi_handlers.c: what the handshake-era handlers saw, for the checks to read: the codes of
 * completions they attempted, the notifications observed (the first one's method), and whether
 * notifications/test/close arrived. */
extern atomic_int second_complete_rc;
extern atomic_int bad_shape_rc;
extern atomic_int reentrant_rc;
extern atomic_int text_on_prompt_rc;
extern atomic_int observed;
extern char observed_method[64];
extern atomic_int close_requested;

/* abi_handlers.c: what the 2026-07-28 handlers saw. first_call_checks: 1 when ask_name's first
 * call saw what it should; ir_rc/ir_error: the code and last error of each ir_bad case;
 * getter_codes: 1 when modern_ctx's bad-argument codes were as documented; the method_*_rc: the
 * codes of completions the custom methods attempted; method_finalized: what count_method_finalizer
 * counted. method_echo is the custom method the checks register themselves. */
#define IR_CASES 6
extern atomic_int first_call_checks;
extern atomic_int ir_rc[IR_CASES];
extern char ir_error[IR_CASES][256];
extern atomic_int getter_codes;
extern atomic_int method_finalized;
void count_method_finalizer(void *user_data);
uint32_t method_echo(void *u, ferrite_request *req, ferrite_str params);
extern atomic_int method_bad_rc, method_ir_rc, method_text_rc;

/* abi_test.c: send one message through handle_raw (the response, caller frees, or NULL); whether
 * the response contains `expected` (printing both when not); the integer at a JSON Pointer in
 * `json`, or INT64_MIN. */
char *call(ferrite_server *server, const char *msg);
bool responds(ferrite_server *server, const char *msg, const char *expected);
int64_t int_at(const char *json, const char *pointer);

#endif
