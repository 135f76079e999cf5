/*
 * Authorization through the C ABI: ferrite_auth_new with the core's configuration and its
 * exact errors, the verifier's finalizer exactly once, the metadata document, the identity
 * getters (NULL without authentication), and over Streamable HTTP on a loopback port: a JWT
 * server with a static RSA key (RS256 tokens signed once, by PyJWT, expiring in 2100: valid,
 * expired, another audience, a bad signature, no scope, another subject; a second key the issuer
 * rotated to, not valid yet, another issuer, alg none; the same keys from a JWK Set this program
 * serves on loopback, where the issuer rotates and an unknown kid refetches it), RFC 7662
 * introspection against an endpoint it serves the same way, and a host verifier
 * answering synchronously, later from another thread, refusing, unavailable and without an
 * answer. Each case checks the exact status and WWW-Authenticate (core/tests/auth.rs), and a
 * valid request afterwards.
 */
#include "abi_test.h"

#include <arpa/inet.h>
#include <strings.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#define RESOURCE "http://127.0.0.1/mcp"
#define META "http://127.0.0.1/.well-known/oauth-protected-resource/mcp"
#define ISSUER "https://as.example"

/* The issuer's public key (kid c1) and tokens it signed for RESOURCE (exp 4102444800). */
#define JWK "{\"kty\":\"RSA\",\"kid\":\"c1\",\"alg\":\"RS256\",\"n\":\"0c9JMvl1EAZ0ceNh6RvcNRxftg4Jl-AC9wgTfzwzj97w7vKVMctJ0b6JEKQRxcJiSmK0tOiMXGEejvZGgr7IWWyVLkpAads7SjpM1zUEaehoiCElWJa2wE0VkqjW5q2kc3HAQrGb6jQyfZPcnn0-OH_CtkbPSgywvw1tIWnZXDSVt7ekt0I_BVuZmCV1-yOpMQAi0ABy4uGQ9VJmXgXBhcsWGbop3EPGk9wWMi5tuu331wdoU8PL73PUKo8EadsSncf-jequQfEDn5Bt6Btb_W0JZMsOmoeWom8i_gRWuPD4-3MGWvwYASXbvic6dLo_8ib_qtm7vg0bkY3Gnnga9Q\",\"e\":\"AQAB\"}"
/* sub alice, scope mcp:whoami, client_id c-client, team red */
#define ALICE "eyJhbGciOiJSUzI1NiIsImtpZCI6ImMxIiwidHlwIjoiSldUIn0.eyJpc3MiOiJodHRwczovL2FzLmV4YW1wbGUiLCJhdWQiOiJodHRwOi8vMTI3LjAuMC4xL21jcCIsImV4cCI6NDEwMjQ0NDgwMCwiaWF0IjoxNzAwMDAwMDAwLCJzdWIiOiJhbGljZSIsInNjb3BlIjoibWNwOndob2FtaSIsImNsaWVudF9pZCI6ImMtY2xpZW50IiwidGVhbSI6InJlZCJ9.CBpmIuUdc7DoK3VkV26en88m4xUzXF9t7GnojwZeg2WGXzMVKk0pB9V_075ht2B4MnFNSEAxLaYWQctbtawMgmT8xRhehUEj3scvWHyg7fZnDP2NxhurQ07pXxQ6lEwRy8GXRezbSnEMbIl1AYx_FY6-GnN4hSiR04ES_38YNRCGoUZm3WJkBz1rrp59tA12XotJxu_wBEOOnhum_OdFp1CtTgwxPvhFMwbKbFs7aJrk-Ov1qkmeI43FwaCb2WBBFT-qBxrjH1M-SeUmXK1hwGulKAocyktVO3eJtPD9YX2hloHeBXxJMjvIxodNiQHjk7TF8BFzG-xQQUUunskVrQ"
/* sub bob, no scope */
#define BOB "eyJhbGciOiJSUzI1NiIsImtpZCI6ImMxIiwidHlwIjoiSldUIn0.eyJpc3MiOiJodHRwczovL2FzLmV4YW1wbGUiLCJhdWQiOiJodHRwOi8vMTI3LjAuMC4xL21jcCIsImV4cCI6NDEwMjQ0NDgwMCwiaWF0IjoxNzAwMDAwMDAwLCJzdWIiOiJib2IiLCJzY29wZSI6IiJ9.wF0rwdssN3j7tMg7eAaaTvv1UEbv56g57trHxtyJRM4RpiVCNc_ipbtZLY1i5Mwzp5pTnprNO4dOvshsMK_xwiKlofhOkKxFqft_ha5NxfUVqELKWlUPjN5oTglkDzNKe4ZPNPM_Wps8gXI4s9Zq2-M03x3zharm6KGINxMpBwJDdAySzy_IDb_OX66Xnxlv3Uf7EB6Nos71qlWC4gmayvIgYjpIeUWvcLABw4NLXr0zut0_Zrt2G65w38sXwQHLs2zf64ZvaAapEROsD9VioTmnh0_AaSRLQychwErS7Ok6l_zvA-LhRZwQFhXri53oLEerUYWzlxLW9rlsJlJjJg"
/* sub alice, exp 1000000000 */
#define EXPIRED "eyJhbGciOiJSUzI1NiIsImtpZCI6ImMxIiwidHlwIjoiSldUIn0.eyJpc3MiOiJodHRwczovL2FzLmV4YW1wbGUiLCJhdWQiOiJodHRwOi8vMTI3LjAuMC4xL21jcCIsImV4cCI6MTAwMDAwMDAwMCwiaWF0IjoxNzAwMDAwMDAwLCJzdWIiOiJhbGljZSJ9.Y9lPRrIA6z_we4Vdjh7dtCT6_dgj4nkIrZbsYB5v6IeM3jK3iSQW4i6UfZ5mypYACEqsYSPlgd-5qjWtPVUwZG5_c_D6JAHyTE0tCZVzKIcepN2eeamtLqpmvANSYEKcJGCpWqR7z-SUXq6l6-WJIcEgjroGPcLDpKux2UE6-YmfRJNttu5q81ruH4ctqirTlGn8SnGxJY8EovY1T1hiZNpoK2SwqjKwtjDNDNGnY-uos89Vgq64ITiZXujveskhpShin_XsvbhurFIqXMaSyKDTSH4o5mFsJ3H0FODNXi1ZBRyf2b5EMes--079h39lJZEITfogh9VGY23yI5lU0Q"
/* sub alice, aud https://other.example/mcp */
#define OTHER_AUD "eyJhbGciOiJSUzI1NiIsImtpZCI6ImMxIiwidHlwIjoiSldUIn0.eyJpc3MiOiJodHRwczovL2FzLmV4YW1wbGUiLCJhdWQiOiJodHRwczovL290aGVyLmV4YW1wbGUvbWNwIiwiZXhwIjo0MTAyNDQ0ODAwLCJpYXQiOjE3MDAwMDAwMDAsInN1YiI6ImFsaWNlIn0.B5YnKeFErfX2JZA-lPnrxiA1nGcAUfOV1dAvRFTZomo_XwS2VmjWuwFewNWDiZHZSXBSLjhrXifMzyToq_qIiutQyg0gj64ghzhwhu-v8oeTRRJjg6EGhQ2gTHb69YfjQ0nxHY0swc4H7vEA0rUeGvu-3y3Xi6RFTLe1kj1R8MDRhm7OUWoKLX7Gw9rox-GklQYLQzEvL5tOK3aRV9m8N1XAURNL1_O8ektDLYlHTJS4_MMvUFb0eGnGuKs-FyXyp-7h1xTnXln4VqEt5BEpAP9cyjh8mPCkeL04vOaenpTElAJkCmdWyuEB-jmcynaiFhH8KitSNys1W70oFtQgpw"

/* A second key (kid c2: the issuer rotated to it) and tokens it signed (PyJWT, once):
 * sub carol with scope mcp:whoami; the same not valid before 4000000000 (nbf); the same from
 * another issuer (https://evil.example); and an unsigned token (alg none). */
#define JWK2 "{\"kty\":\"RSA\",\"kid\":\"c2\",\"alg\":\"RS256\",\"n\":\"oxpUIh1Evz_7Ag2fa46ZRDdkEVx90JzzmTW5QXBLn5tArr4s6L-xDUzXVTAoa_y8a41vrj9_pbLd0qxKDJ7KkyxQclLMfUBqV3BFBWBZ0Imp_fEZM90sb16UkeIcDrYr0s5mD9hitz6I4yEuI8QBttyu5gzE1FMZRJ0kPFAn8XmrBusvRsZ1sYtXXxCgQ2RHF_n_TjlDRDXEb_H6SKue0-9WtoMX-mNnCYIv0GilzUbMQ7E9HAk7VeCAqk0lVe6kfTBOmpPdg1sevhzj1yFk2pmfc7hbgbjphyN3j4QY35LBgLN5kkozrLI2eGokmJ2rWCEyDkr_mn5r5T9_0WeS2Q\",\"e\":\"AQAB\"}"
#define CAROL "eyJhbGciOiJSUzI1NiIsImtpZCI6ImMyIiwidHlwIjoiSldUIn0.eyJpc3MiOiJodHRwczovL2FzLmV4YW1wbGUiLCJhdWQiOiJodHRwOi8vMTI3LjAuMC4xL21jcCIsImV4cCI6NDEwMjQ0NDgwMCwiaWF0IjoxNzAwMDAwMDAwLCJzdWIiOiJjYXJvbCIsInNjb3BlIjoibWNwOndob2FtaSJ9.ToSCixJy_FMGypmAcKeOwsnk_CLNDiPwGcc8KBQm3PAPnF__k3hkXw9baq_KgwIcrmCd1aNnxqUS5-DDfAFKrbrUabw4vxj1C3TmtUE9bhjO-S4JVcKmIOKXfh264mpYEopJ4gIyG9I-ii8VgsSU5YFp3QYA9-eGf2zxSZVogyCy_CiC5PKFs82PoPnQ8q1MtaKmS3Nu40plEx0rdpj-11KUtFIViHjrMAjRJ2eau-6WIzHBfVAyUbnHJ_Y69mro8UTjTEXy9DtLV1usC33qITYCIiuNmt8rJT5qr6fQxzLQ4ut7uDGojN04V1NwYJM6A4faaS4pXlhFkMRGcFhj3A"
#define NOT_YET "eyJhbGciOiJSUzI1NiIsImtpZCI6ImMyIiwidHlwIjoiSldUIn0.eyJpc3MiOiJodHRwczovL2FzLmV4YW1wbGUiLCJhdWQiOiJodHRwOi8vMTI3LjAuMC4xL21jcCIsImV4cCI6NDEwMjQ0NDgwMCwiaWF0IjoxNzAwMDAwMDAwLCJzdWIiOiJjYXJvbCIsInNjb3BlIjoibWNwOndob2FtaSIsIm5iZiI6NDAwMDAwMDAwMH0.ij7zPSkvMNOgPciF59lxqoFxMDlidLFEyxXLj2FLuR2hesXHEe2XzqnhflYNIDw-TjN_2rf0GUezEMiD8MCg-jYlUGniycuSBoz9942cD1coaxXHoVjgotps7bpXTgKcJeOV32MmYpLGxFQ-eGeLiOLZ6xC5V9yRnHxot41IUt9g1coq8TbZir6tfsyQABk47PeFsL8J69Tt2kKW1rwBgbjLULXfOQ8Y1I7Cyg5A2T81d8peJYrR4487qw3vzNszDJP2R84oquFbkIb1sqQpO7la8ur3Gb_6IHpenOB6SCeHRvF4pxu7ZYSZQHKpUKDlYQeBprmTBeO04QPoDjZ3uw"
#define OTHER_ISS "eyJhbGciOiJSUzI1NiIsImtpZCI6ImMyIiwidHlwIjoiSldUIn0.eyJpc3MiOiJodHRwczovL2V2aWwuZXhhbXBsZSIsImF1ZCI6Imh0dHA6Ly8xMjcuMC4wLjEvbWNwIiwiZXhwIjo0MTAyNDQ0ODAwLCJpYXQiOjE3MDAwMDAwMDAsInN1YiI6ImNhcm9sIiwic2NvcGUiOiJtY3A6d2hvYW1pIn0.AtKQiTLpA1OzqrulJKdn6RCoxW7m894p0_HwoA3aAnnyPym4ZWpe7vOtwgFYxypbg7mcma_bEiJn5X6GsYYukwxbud7t8KieJH9jpfqg9ETxYubqAPglVkzpmixH_MCHifhlcudvf7R04uu4rdC7Kft36v__cVuDBr0SVHxBqqFNsVBXNf3x1t7-f1AlR1M6nTHfSEt61pDI3NcD270fjLOV7JVx8dYycymmQL4RtAxgZ2L9BhaaYuR1BbNkESHRGSwKxPHdNTKLJHn2eTHbHXvt_vrxSPFvCS8v418AF3ZveP4-b0y6Maf3797UorzCkUco8iZ1BWzSQrOxtLwaqg"
#define ALG_NONE "eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0.eyJpc3MiOiJodHRwczovL2FzLmV4YW1wbGUiLCJhdWQiOiJodHRwOi8vMTI3LjAuMC4xL21jcCIsImV4cCI6NDEwMjQ0NDgwMCwiaWF0IjoxNzAwMDAwMDAwLCJzdWIiOiJjYXJvbCIsInNjb3BlIjoibWNwOndob2FtaSJ9."

#define BASE_CONFIG \
    "\"resource\":\"" RESOURCE "\",\"authorization_servers\":[\"" ISSUER "\"],\"tool_scopes\":{\"whoami\":[\"mcp:whoami\"]}"
#define JWT_CONFIG "{" BASE_CONFIG ",\"jwt\":{\"issuer\":\"" ISSUER "\",\"keys\":[" JWK "]}}"
#define VERIFIER_CONFIG "{" BASE_CONFIG "}"
/* After the rotation: both keys. */
#define ROTATED_CONFIG "{" BASE_CONFIG ",\"jwt\":{\"issuer\":\"" ISSUER "\",\"keys\":[" JWK "," JWK2 "]}}"

#define BOTH "application/json, text/event-stream"
#define INIT                                                                                                 \
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\"," \
    "\"capabilities\":{},\"clientInfo\":{\"name\":\"c\",\"version\":\"0\"}}}"
#define CALL(id, name)                                                                                       \
    "{\"jsonrpc\":\"2.0\",\"id\":" #id ",\"method\":\"tools/call\",\"params\":{\"name\":\"" name "\"," \
    "\"arguments\":{}}}"
#define NO_ARGS_TOOL(name) "{\"name\":\"" name "\",\"inputSchema\":{\"type\":\"object\"}}"

/* ---------------------------------------------------------------- tools */

/* me: the identity JSON as text ("none" without one). */
static uint32_t tool_me(void *u, ferrite_request *req) {
    (void)u;
    ferrite_str id = {NULL, 0};
    if (ferrite_request_identity(req, &id) != FERRITE_RESULT_OK) {
        return ferrite_request_fail(req, S("ferrite_request_identity failed"));
    }
    return id.ptr ? ferrite_request_complete_text(req, id.ptr, id.len, NULL, 0)
                  : ferrite_request_complete_text(req, S("none"), NULL, 0);
}

static uint32_t tool_whoami(void *u, ferrite_request *req) {
    (void)u;
    ferrite_str subject = {NULL, 0};
    ferrite_request_subject(req, &subject);
    return subject.ptr ? ferrite_request_complete_text(req, subject.ptr, subject.len, NULL, 0)
                       : ferrite_request_complete_text(req, S("nobody"), NULL, 0);
}

/* ---------------------------------------------------------------- the host verifier */

static atomic_int verifier_finalized;
static void verifier_finalizer(void *u) {
    (void)u;
    atomic_fetch_add(&verifier_finalized, 1);
}

static void *accept_later(void *arg) {
    ferrite_verification *v = arg;
    sleep_ms(20);
    ferrite_str token = {NULL, 0};
    ferrite_verification_token(v, &token);
    if (token.len == 5 && memcmp(token.ptr, "later", 5) == 0) {
        ferrite_verification_accept(v, S("{\"sub\":\"dave\",\"scope\":\"mcp:whoami\"}"));
    } else {
        ferrite_verification_reject(v, S("the token changed"));
    }
    return NULL;
}

static atomic_int bad_accept_rc = -1;
static uint32_t verify(void *u, ferrite_str token, ferrite_verification *v) {
    (void)u;
#define IS(lit) (token.len == sizeof(lit) - 1 && memcmp(token.ptr, lit, sizeof(lit) - 1) == 0)
    if (IS("good")) {
        ferrite_verification_accept(v, S("{\"sub\":\"carol\",\"scope\":\"mcp:whoami\",\"client_id\":\"app\",\"exp\":4102444800,"
                                         "\"iss\":\"" ISSUER "\",\"team\":\"blue\"}"));
        return FERRITE_RESULT_OK;
    }
    if (IS("later")) {
        pthread_t t;
        pthread_create(&t, NULL, accept_later, v);
        pthread_detach(t);
        return FERRITE_RESULT_PENDING;
    }
    if (IS("revoked")) {
        ferrite_verification_reject(v, S("the token was revoked"));
        return FERRITE_RESULT_OK;
    }
    if (IS("down")) {
        ferrite_verification_unavailable(v, S("the issuer is down"));
        return FERRITE_RESULT_OK;
    }
    if (IS("no-answer")) {
        return FERRITE_RESULT_OK;
    }
    if (IS("aud-ours")) {
        ferrite_verification_accept(v, S("{\"sub\":\"carol\",\"aud\":[\"https://other.example\",\"" RESOURCE "\"]}"));
        return FERRITE_RESULT_OK;
    }
    if (IS("aud-theirs")) {
        ferrite_verification_accept(v, S("{\"sub\":\"carol\",\"aud\":\"https://other.example\"}"));
        return FERRITE_RESULT_OK;
    }
    if (IS("no-subject")) {
        ferrite_verification_accept(v, S("{\"scope\":\"mcp:whoami\"}"));
        return FERRITE_RESULT_OK;
    }
    if (IS("bad-json")) {
        atomic_store(&bad_accept_rc, (int)ferrite_verification_accept(v, S("{")));
        return FERRITE_RESULT_OK;
    }
    return FERRITE_RESULT_HANDLER_FAILED;
#undef IS
}

/* ---------------------------------------------------------------- configuration */

static void check_config_errors(void) {
    ferrite_auth *auth = NULL;
    CHECK(ferrite_auth_new(S("{\"resource\":\"" RESOURCE "\",\"tool_scope\":{}}"), NULL, NULL, NULL, &auth) ==
                  FERRITE_RESULT_INVALID_ARGUMENT &&
              !auth && strcmp(ferrite_last_error(), "invalid auth option tool_scope: unknown option") == 0,
          "an unknown auth option is INVALID_ARGUMENT with the core's text");
    CHECK(ferrite_auth_new(S("{\"resource\":\"" RESOURCE "\",\"authorization_servers\":[\"" ISSUER "\"]}"), NULL, NULL,
                           NULL, &auth) == FERRITE_RESULT_INVALID_ARGUMENT &&
              strcmp(ferrite_last_error(), "invalid auth option verifier: exactly one of jwt and introspection is required") == 0,
          "no verifier at all is the core's error");
    CHECK(ferrite_auth_new(S("{\"resource\":\"" RESOURCE "\",\"authorization_servers\":[\"" ISSUER "\"],"
                             "\"jwt\":{\"jwks_url\":\"https://as.example/jwks\"}}"),
                           NULL, NULL, NULL, &auth) == FERRITE_RESULT_INVALID_ARGUMENT &&
              strncmp(ferrite_last_error(), "invalid auth option jwt.issuer: ", 32) == 0,
          "a jwt without an issuer names jwt.issuer");
    CHECK(ferrite_auth_new(S("{nope"), NULL, NULL, NULL, &auth) == FERRITE_RESULT_INVALID_JSON,
          "configuration text that is not JSON is INVALID_JSON");
    atomic_store(&verifier_finalized, 0);
    CHECK(ferrite_auth_new(S(JWT_CONFIG), verify, NULL, verifier_finalizer, &auth) == FERRITE_RESULT_INVALID_ARGUMENT &&
              strcmp(ferrite_last_error(),
                     "invalid auth option verifier: a verifier given in code replaces jwt and introspection; name neither") == 0,
          "a host verifier with jwt configured is the core's error");
    CHECK(atomic_load(&verifier_finalized) == 1, "the refused verifier's finalizer ran once");
    CHECK(ferrite_auth_new(S(VERIFIER_CONFIG), verify, NULL, verifier_finalizer, NULL) == FERRITE_RESULT_NULL_POINTER &&
              atomic_load(&verifier_finalized) == 2,
          "a NULL out is NULL_POINTER, and the finalizer still runs once");

    CHECK(ferrite_auth_new(S(JWT_CONFIG), NULL, NULL, NULL, &auth) == FERRITE_RESULT_OK && auth,
          "a JWT configuration with a static key builds");
    char *meta = NULL;
    CHECK(ferrite_auth_metadata(auth, &meta, NULL) == FERRITE_RESULT_OK && meta &&
              strcmp(meta, "{\"authorization_servers\":[\"" ISSUER "\"],\"bearer_methods_supported\":[\"header\"],"
                           "\"resource\":\"" RESOURCE "\",\"scopes_supported\":[\"mcp:whoami\"]}") == 0,
          "ferrite_auth_metadata is the RFC 9728 document");
    if (meta) {
        printf("# metadata: %s\n", meta);
    }
    ferrite_string_free(meta);
    ferrite_auth_free(auth);
    ferrite_auth_free(NULL);
}

static void check_identity_without_auth(void) {
    ferrite_server *server = NULL;
    ferrite_server_new_with_auth(S("{\"name\":\"plain\",\"version\":\"1\"}"), FERRITE_SERVER_MODE_DEFAULT, NULL, 0, NULL,
                                 &server);
    ferrite_server_add_tool(server, S(NO_ARGS_TOOL("me")), tool_me, NULL, NULL);
    ferrite_server_add_tool(server, S(NO_ARGS_TOOL("whoami")), tool_whoami, NULL, NULL);
    char *out = NULL;
    ferrite_server_handle_raw(server, S(INIT), &out, NULL);
    ferrite_string_free(out);
    out = NULL;
    ferrite_server_handle_raw(server, S(CALL(2, "me")), &out, NULL);
    CHECK(out && strstr(out, "\"text\":\"none\""), "ferrite_request_identity is NULL without authentication");
    ferrite_string_free(out);
    out = NULL;
    ferrite_server_handle_raw(server, S(CALL(3, "whoami")), &out, NULL);
    CHECK(out && strstr(out, "\"text\":\"nobody\""), "ferrite_request_subject is NULL without authentication");
    ferrite_string_free(out);
    ferrite_str s;
    CHECK(ferrite_request_identity(NULL, &s) == FERRITE_RESULT_NULL_POINTER, "ferrite_request_identity(NULL) is NULL_POINTER");
    ferrite_server_free(server);
}

/* ---------------------------------------------------------------- over HTTP */

typedef struct {
    ferrite_server *server;
    ferrite_http_listener *listener;
    pthread_t thread;
    uint16_t port;
    char host[32];
} served;

static void *run_http(void *arg) {
    served *s = arg;
    ferrite_server_http_run(s->server, s->listener);
    return NULL;
}

static bool serve_protected(served *s, const char *config, size_t config_len, ferrite_verify_callback cb) {
    ferrite_auth *auth = NULL;
    if (ferrite_auth_new(config, config_len, cb, NULL, cb ? verifier_finalizer : NULL, &auth) != FERRITE_RESULT_OK) {
        return false;
    }
    ferrite_result rc = ferrite_server_new_with_auth(S("{\"name\":\"protected\",\"version\":\"1\"}"),
                                                     FERRITE_SERVER_MODE_DEFAULT, NULL, 0, auth, &s->server);
    ferrite_auth_free(auth); /* the server keeps what it needs */
    if (rc != FERRITE_RESULT_OK) {
        return false;
    }
    ferrite_server_add_tool(s->server, S(NO_ARGS_TOOL("me")), tool_me, NULL, NULL);
    ferrite_server_add_tool(s->server, S(NO_ARGS_TOOL("whoami")), tool_whoami, NULL, NULL);
    if (ferrite_server_http_bind(s->server, S("127.0.0.1"), 0, NULL, &s->listener) != FERRITE_RESULT_OK) {
        return false;
    }
    ferrite_http_listener_port(s->listener, &s->port);
    snprintf(s->host, sizeof s->host, "127.0.0.1:%u", (unsigned)s->port);
    pthread_create(&s->thread, NULL, run_http, s);
    return true;
}

static void stop(served *s) {
    ferrite_server_close(s->server);
    pthread_join(s->thread, NULL);
    ferrite_server_free(s->server);
}

/* POST body with `Authorization: <authz>` (NULL: none) and a session (NULL: none). */
static char *post(served *s, const char *authz, const char *session, const char *body) {
    char headers[2048] = "";
    size_t n = 0;
    if (authz) {
        n += (size_t)snprintf(headers + n, sizeof headers - n, "Authorization: %s\r\n", authz);
    }
    if (session) {
        snprintf(headers + n, sizeof headers - n, "Mcp-Session-Id: %s\r\nMCP-Protocol-Version: 2025-06-18\r\n", session);
    }
    return http_exchange(s->port, "POST", s->host, BOTH, headers, body);
}

static bool status_is(const char *r, int status) {
    char want[16];
    snprintf(want, sizeof want, "HTTP/1.1 %d", status);
    return r && strncmp(r, want, strlen(want)) == 0;
}

/* The response has `status` and exactly this WWW-Authenticate; prints what came otherwise. */
static bool challenged(char *r, int status, const char *challenge) {
    char got[1024] = "";
    bool ok = status_is(r, status) && http_header(r, "www-authenticate", got, sizeof got) && strcmp(got, challenge) == 0;
    if (!ok) {
        printf("# got: %s\n", r ? r : "(no response)");
    }
    free(r);
    return ok;
}

static bool ok_200(char *r) {
    bool ok = status_is(r, 200);
    free(r);
    return ok;
}

#define INVALID(why) "Bearer error=\"invalid_token\", error_description=\"" why "\", resource_metadata=\"" META "\""

static void check_jwt_over_http(void) {
    served s;
    CHECK(serve_protected(&s, S(JWT_CONFIG), NULL), "a protected server (JWT, static key) serves HTTP");
    CHECK(challenged(post(&s, NULL, NULL, INIT), 401, "Bearer resource_metadata=\"" META "\""),
          "no token: 401 naming the metadata");
    char *r = post(&s, "Bearer " ALICE, NULL, INIT);
    char session[256] = "";
    CHECK(status_is(r, 200) && http_header(r, "mcp-session-id", session, sizeof session),
          "a valid RS256 token: initialize is 200");
    free(r);
    r = post(&s, "Bearer " ALICE, session, CALL(2, "me"));
    CHECK(r && strstr(r, "\\\"subject\\\":\\\"alice\\\"") && strstr(r, "\\\"clientId\\\":\\\"c-client\\\"") &&
              strstr(r, "\\\"scopes\\\":[\\\"mcp:whoami\\\"]") && strstr(r, "\\\"expiresAt\\\":4102444800") &&
              strstr(r, "\\\"team\\\":\\\"red\\\"") && !strstr(r, ALICE + 40),
          "ferrite_request_identity gives subject, client, scopes, expiry and claims, never the token");
    free(r);
    r = post(&s, "Bearer " ALICE, session, CALL(3, "whoami"));
    CHECK(r && strstr(r, "\"text\":\"alice\""), "ferrite_request_subject gives the subject");
    free(r);
    CHECK(challenged(post(&s, "Bearer " EXPIRED, NULL, INIT), 401, INVALID("the token has expired")),
          "an expired token: 401 with the reason");
    CHECK(challenged(post(&s, "Bearer " OTHER_AUD, NULL, INIT), 401, INVALID("the token is for another audience")),
          "a token for another audience: 401 with the reason");
    char forged[sizeof ALICE];
    memcpy(forged, ALICE, sizeof ALICE);
    char *sig = strrchr(forged, '.') + 1;
    sig[0] = sig[0] == 'C' ? 'D' : 'C';
    char authz[sizeof ALICE + 16];
    snprintf(authz, sizeof authz, "Bearer %s", forged);
    CHECK(challenged(post(&s, authz, NULL, INIT), 401, INVALID("the token's signature does not verify")),
          "a bad signature: 401 with the reason");
    CHECK(challenged(post(&s, "Bearer a b", NULL, INIT), 400,
                     "Bearer error=\"invalid_request\", error_description=\"the bearer token has characters RFC 6750 "
                     "does not allow (b64token)\", resource_metadata=\"" META "\""),
          "a malformed Authorization header: 400 invalid_request");
    char *bob_init = post(&s, "Bearer " BOB, NULL, INIT);
    char bob_session[256] = "";
    CHECK(status_is(bob_init, 200) && http_header(bob_init, "mcp-session-id", bob_session, sizeof bob_session),
          "bob's token opens a session");
    free(bob_init);
    CHECK(challenged(post(&s, "Bearer " BOB, bob_session, CALL(4, "whoami")), 403,
                     "Bearer error=\"insufficient_scope\", error_description=\"the request needs the scopes: "
                     "mcp:whoami\", scope=\"mcp:whoami\", resource_metadata=\"" META "\""),
          "a token lacking the tool's scope: 403 with the step-up challenge");
    r = post(&s, "Bearer " BOB, session, CALL(5, "me"));
    CHECK(status_is(r, 404), "another subject's token on a session: 404");
    free(r);
    r = post(&s, "Bearer " ALICE, session, CALL(6, "whoami"));
    CHECK(r && strstr(r, "\"text\":\"alice\""), "the server keeps serving the session's owner");
    free(r);
    stop(&s);
}

/* A token signed with a key the server does not hold, then the same server configuration after
 * the issuer rotated (both keys); a token not valid yet, from another issuer, and unsigned. */
static void check_jwt_rotation_and_claims(void) {
    served s;
    CHECK(serve_protected(&s, S(JWT_CONFIG), NULL), "a protected server with the first key serves HTTP");
    CHECK(challenged(post(&s, "Bearer " CAROL, NULL, INIT), 401, INVALID("no key of the issuer verifies this token")),
          "a token signed with a key the server does not hold: 401 with the reason");
    stop(&s);
    CHECK(serve_protected(&s, S(ROTATED_CONFIG), NULL), "the same server with both keys (rotated) serves HTTP");
    CHECK(ok_200(post(&s, "Bearer " CAROL, NULL, INIT)), "after the rotation, the new key's token: 200");
    CHECK(ok_200(post(&s, "Bearer " ALICE, NULL, INIT)), "and the old key's token still: 200");
    CHECK(challenged(post(&s, "Bearer " NOT_YET, NULL, INIT), 401, INVALID("the token is not valid yet (nbf)")),
          "a token not valid yet: 401 with the reason");
    CHECK(challenged(post(&s, "Bearer " OTHER_ISS, NULL, INIT), 401, INVALID("the token's issuer is not trusted")),
          "a token from another issuer: 401 with the reason");
    CHECK(challenged(post(&s, "Bearer " ALG_NONE, NULL, INIT), 401, INVALID("the token is not a well-formed signed JWT")),
          "an unsigned token (alg none): 401 with the reason");
    CHECK(ok_200(post(&s, "Bearer " CAROL, NULL, INIT)), "the server keeps serving");
    stop(&s);
}

/* ---------------------------------------------------------------- a JWK Set over HTTP */

/* A one-document HTTP server on a loopback port: every request gets `doc` (swapped to rotate
 * the issuer's keys), counted in `fetches`. */
typedef struct {
    int fd;
    uint16_t port;
    pthread_t thread;
    _Atomic(const char *) doc;
    atomic_int fetches;
    pthread_mutex_t lock;
    char last[4096]; /* the last request, head and body */
} jwks_server;

/* The Content-Length a request head names (0 without one), any spelling of the name. */
static size_t content_length(const char *head) {
    for (const char *p = head; (p = strchr(p, '\n')) != NULL; p++) {
        if (strncasecmp(p + 1, "content-length:", 15) == 0) {
            return (size_t)strtoul(p + 16, NULL, 10);
        }
    }
    return 0;
}

static void *serve_jwks(void *arg) {
    jwks_server *j = arg;
    for (;;) {
        int c = accept(j->fd, NULL, NULL);
        if (c < 0) {
            return NULL; /* the listening socket was shut down */
        }
        char req[4096];
        size_t got = 0;
        req[0] = '\0';
        char *end = NULL;
        while (got < sizeof req - 1) { /* the head, then the body its Content-Length names */
            ssize_t n = read(c, req + got, sizeof req - 1 - got);
            if (n <= 0) {
                break;
            }
            got += (size_t)n;
            req[got] = '\0';
            if (!end && (end = strstr(req, "\r\n\r\n")) != NULL) {
                end += 4;
            }
            if (end && got >= (size_t)(end - req) + content_length(req)) {
                break;
            }
        }
        pthread_mutex_lock(&j->lock);
        memcpy(j->last, req, got + 1);
        pthread_mutex_unlock(&j->lock);
        const char *doc = atomic_load(&j->doc);
        char head[256];
        int h = snprintf(head, sizeof head,
                         "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %zu\r\n"
                         "Connection: close\r\n\r\n",
                         strlen(doc));
        atomic_fetch_add(&j->fetches, 1);
        if (write(c, head, (size_t)h) != h || write(c, doc, strlen(doc)) != (ssize_t)strlen(doc)) {
            fprintf(stderr, "# the JWKS server's write failed\n");
        }
        close(c);
    }
}

static bool jwks_start(jwks_server *j, const char *doc) {
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    atomic_store(&j->doc, doc);
    atomic_store(&j->fetches, 0);
    pthread_mutex_init(&j->lock, NULL);
    j->last[0] = '\0';
    j->fd = socket(AF_INET, SOCK_STREAM, 0);
    if (j->fd < 0 || bind(j->fd, (struct sockaddr *)&a, sizeof a) != 0 || listen(j->fd, 16) != 0 ||
        getsockname(j->fd, (struct sockaddr *)&a, &len) != 0) {
        return false;
    }
    j->port = ntohs(a.sin_port);
    return pthread_create(&j->thread, NULL, serve_jwks, j) == 0;
}

static void jwks_stop(jwks_server *j) {
    shutdown(j->fd, SHUT_RDWR); /* wakes accept() */
    pthread_join(j->thread, NULL);
    close(j->fd);
}

/* Keys from a JWKS URL (`jwt.jwks_url`, refetches at most every millisecond): the issuer holds
 * c1, a token of c2 is refused; the issuer rotates to both; the next c2 token's unknown kid
 * refetches the set and passes, with no restart; c1's tokens still pass. */
static void check_jwks_url_rotation(void) {
    jwks_server j;
    served s;
    CHECK(jwks_start(&j, "{\"keys\":[" JWK "]}"), "a JWK Set is served on a loopback port");
    char config[4096];
    int n = snprintf(config, sizeof config,
                     "{" BASE_CONFIG ",\"jwt\":{\"issuer\":\"" ISSUER "\",\"jwks_url\":\"http://127.0.0.1:%u/jwks\","
                     "\"jwks_min_refresh_ms\":1}}",
                     (unsigned)j.port);
    CHECK(serve_protected(&s, config, (size_t)n, NULL), "a protected server with keys from the JWKS URL serves HTTP");
    CHECK(ok_200(post(&s, "Bearer " ALICE, NULL, INIT)), "a token of the served key: 200");
    int before = atomic_load(&j.fetches);
    CHECK(before >= 1, "the server fetched the JWK Set");
    sleep_ms(5);
    CHECK(challenged(post(&s, "Bearer " CAROL, NULL, INIT), 401, INVALID("no key of the issuer verifies this token")),
          "a token of a key the issuer does not publish yet: 401 with the reason");
    CHECK(atomic_load(&j.fetches) == before + 1, "its unknown kid refetched the JWK Set once");
    atomic_store(&j.doc, "{\"keys\":[" JWK "," JWK2 "]}");
    sleep_ms(5);
    CHECK(ok_200(post(&s, "Bearer " CAROL, NULL, INIT)), "after the issuer rotated, the new key's token: 200");
    CHECK(ok_200(post(&s, "Bearer " ALICE, NULL, INIT)), "and the old key's token still: 200");
    stop(&s);
    jwks_stop(&j);
}

/* require_audience: the core checks the host verifier's aud against the resource. */
static void check_verifier_audience(void) {
    served s;
    CHECK(serve_protected(&s, S("{" BASE_CONFIG ",\"require_audience\":true}"), verify),
          "a protected server with a host verifier and require_audience serves HTTP");
    CHECK(ok_200(post(&s, "Bearer aud-ours", NULL, INIT)), "require_audience: an aud naming the resource: 200");
    CHECK(challenged(post(&s, "Bearer aud-theirs", NULL, INIT), 401, INVALID("the token is for another audience")),
          "require_audience: another audience: 401 with the reason");
    CHECK(challenged(post(&s, "Bearer good", NULL, INIT), 401, INVALID("the token names no audience (aud)")),
          "require_audience: no aud: 401 with the reason");
    stop(&s);
}

/* Whether the last request the server got contains `part`. */
static bool last_request_has(jwks_server *j, const char *part) {
    pthread_mutex_lock(&j->lock);
    bool has = strstr(j->last, part) != NULL;
    pthread_mutex_unlock(&j->lock);
    return has;
}

/* RFC 7662 introspection against an endpoint this program serves on loopback: an active
 * answer passes and is remembered (no second call for the same token), an inactive one and
 * one for another audience are 401 with the reason. */
static void check_introspection(void) {
    jwks_server j;
    served s;
    CHECK(jwks_start(&j, "{\"active\":true,\"sub\":\"dave\",\"scope\":\"mcp:whoami\",\"aud\":\"" RESOURCE "\"}"),
          "an introspection endpoint is served on a loopback port");
    char config[1024];
    int n = snprintf(config, sizeof config,
                     "{" BASE_CONFIG ",\"introspection\":{\"url\":\"http://127.0.0.1:%u/introspect\","
                     "\"client_id\":\"rs-client\",\"client_secret\":\"rs-secret\"}}",
                     (unsigned)j.port);
    CHECK(serve_protected(&s, config, (size_t)n, NULL), "a protected server with introspection serves HTTP");
    CHECK(ok_200(post(&s, "Bearer opaque-1", NULL, INIT)), "introspection: an active token: 200");
    CHECK(atomic_load(&j.fetches) == 1 && last_request_has(&j, "token=opaque-1") &&
              last_request_has(&j, "cnMtY2xpZW50OnJzLXNlY3JldA=="),
          "introspection: one POST with the token and the client's Basic credentials");
    CHECK(ok_200(post(&s, "Bearer opaque-1", NULL, INIT)) && atomic_load(&j.fetches) == 1,
          "introspection: the same token again is remembered (no second call)");
    atomic_store(&j.doc, "{\"active\":false}");
    CHECK(challenged(post(&s, "Bearer opaque-2", NULL, INIT), 401, INVALID("the token is not active")),
          "introspection: an inactive token: 401 with the reason");
    atomic_store(&j.doc, "{\"active\":true,\"sub\":\"dave\",\"aud\":\"https://other.example/mcp\"}");
    CHECK(challenged(post(&s, "Bearer opaque-3", NULL, INIT), 401, INVALID("the token is for another audience")),
          "introspection: a token for another audience: 401 with the reason");
    stop(&s);
    jwks_stop(&j);
}

static void check_verifier_over_http(void) {
    served s;
    atomic_store(&verifier_finalized, 0);
    CHECK(serve_protected(&s, S(VERIFIER_CONFIG), verify), "a protected server with a host verifier serves HTTP");
    char *r = post(&s, "Bearer good", NULL, INIT);
    char session[256] = "";
    CHECK(status_is(r, 200) && http_header(r, "mcp-session-id", session, sizeof session),
          "the verifier accepts synchronously: 200");
    free(r);
    r = post(&s, "Bearer good", session, CALL(2, "me"));
    CHECK(r && strstr(r, "\\\"subject\\\":\\\"carol\\\"") && strstr(r, "\\\"clientId\\\":\\\"app\\\"") &&
              strstr(r, "\\\"issuer\\\":\\\"" ISSUER "\\\"") && strstr(r, "\\\"team\\\":\\\"blue\\\""),
          "the verifier's claims are the identity");
    free(r);
    r = post(&s, "Bearer later", NULL, INIT);
    CHECK(status_is(r, 200), "PENDING, then accepted from another thread: 200");
    free(r);
    CHECK(challenged(post(&s, "Bearer revoked", NULL, INIT), 401, INVALID("the token was revoked")),
          "ferrite_verification_reject: 401 with its message");
    CHECK(challenged(post(&s, "Bearer no-answer", NULL, INIT), 401,
                     INVALID("the token verifier returned FERRITE_RESULT_OK without an answer")),
          "OK without an answer: 401");
    CHECK(challenged(post(&s, "Bearer unknown", NULL, INIT), 401, INVALID("the token verifier failed: the handler failed")),
          "a failure status: 401");
    CHECK(challenged(post(&s, "Bearer no-subject", NULL, INIT), 401,
                     INVALID("the token names no subject (no sub or client_id claim)")),
          "claims without a subject: the core's reason");
    r = post(&s, "Bearer bad-json", NULL, INIT);
    CHECK(status_is(r, 401) && atomic_load(&bad_accept_rc) == FERRITE_RESULT_INVALID_JSON,
          "claims that are not JSON: INVALID_JSON to the host, 401 to the client");
    free(r);
    r = post(&s, "Bearer down", NULL, INIT);
    char retry[32] = "";
    CHECK(status_is(r, 503) && http_header(r, "retry-after", retry, sizeof retry) &&
              strstr(r, "the token could not be verified: the issuer is down"),
          "ferrite_verification_unavailable: 503 with Retry-After");
    free(r);
    CHECK(ok_200(post(&s, "Bearer good", NULL, INIT)), "the server keeps serving");
    stop(&s);
    CHECK(atomic_load(&verifier_finalized) == 1, "the verifier's finalizer ran once, when the server was freed");
}

void check_auth(void) {
    check_config_errors();
    check_identity_without_auth();
    check_jwt_over_http();
    check_jwt_rotation_and_claims();
    check_jwks_url_rotation();
    check_introspection();
    check_verifier_over_http();
    check_verifier_audience();
}
