/* The Go functions libferrite calls back (defined with //export in callbacks.go), declared for
 * the files that hand them to C. */
#ifndef FERRITE_GO_BRIDGE_H
#define FERRITE_GO_BRIDGE_H
#include <stdint.h>
#include <stdlib.h>
#include "ferrite.h"

extern uint32_t goToolCallback(void *user_data, ferrite_request *request);
extern uint32_t goResourceCallback(void *user_data, ferrite_request *request, ferrite_str uri, ferrite_str variables_json);
extern uint32_t goPromptCallback(void *user_data, ferrite_request *request);
extern uint32_t goCompletionCallback(void *user_data, ferrite_request *request, ferrite_str request_json);
extern uint32_t goMethodCallback(void *user_data, ferrite_request *request, ferrite_str params_json);
extern uint32_t goMiddlewareCallback(void *user_data, ferrite_request *request, ferrite_str method, ferrite_str params_json,
                                     ferrite_str hook, ferrite_middleware_next *next);
extern void goMiddlewareAnswer(void *user_data, ferrite_str result_json, int32_t error_code, ferrite_str error_message,
                               ferrite_str error_data_json);
extern void goNotificationMiddlewareCallback(void *user_data, ferrite_str method, ferrite_str params_json,
                                             ferrite_str connection_id, ferrite_notification_next *next);
extern void goReplyCallback(void *user_data, ferrite_result result, ferrite_str result_json, ferrite_str error_message);
extern void goCancelCallback(void *user_data);
extern void goSendCallback(void *user_data, ferrite_str frame);
extern uint32_t goVerifyCallback(void *user_data, ferrite_str token, ferrite_verification *verification);
extern void goFinalizer(void *user_data);
extern void goDiagnosticCallback(void *user_data, uint32_t level, ferrite_str target, ferrite_str message);
extern uint32_t goHTTPHead(void *user_data, uint16_t status, ferrite_http_header *headers, size_t headers_len,
                           bool event_stream);
extern uint32_t goHTTPChunk(void *user_data, char *data, size_t len);
#endif
