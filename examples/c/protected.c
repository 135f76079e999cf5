/*
 * A protected MCP server in C: an OAuth 2.1 resource server with one scoped tool.
 *
 *   FERRITE_AUTH_ISSUER=https://as.example FERRITE_AUTH_AUDIENCE=http://127.0.0.1:8000/mcp \
 *   FERRITE_AUTH_JWKS_URL=https://as.example/jwks ./protected --port 8000
 *
 * Every request to http://127.0.0.1:N/mcp needs a bearer JWT signed by a key of the JWK Set,
 * issued by FERRITE_AUTH_ISSUER for the audience FERRITE_AUTH_AUDIENCE (this server's URL).
 * Without one the answer is 401 naming the Protected Resource Metadata, which tells the client
 * where to get a token. whoami needs the scope mcp:whoami (403 naming it otherwise) and
 * answers the token's subject. (--auth is accepted and changes nothing: the tests start every
 * protected server the same way.)
 *
 * Build: gcc -std=c11 -Iinclude examples/c/protected.c -Ltarget/release -lferrite -o protected
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ferrite.h"

#define S(lit) lit, sizeof(lit) - 1
#define USAGE "usage: protected --port N [--auth] (FERRITE_AUTH_ISSUER, FERRITE_AUTH_AUDIENCE, FERRITE_AUTH_JWKS_URL)\n"

/* whoami: the caller's subject, from the identity the core verified. */
static uint32_t whoami(void *user_data, ferrite_request *req) {
    (void)user_data;
    ferrite_str subject = {NULL, 0};
    ferrite_request_subject(req, &subject);
    return ferrite_request_complete_text(req, subject.ptr ? subject.ptr : "", subject.ptr ? subject.len : 0, NULL, 0);
}

/* Append `s` to `out` as a JSON string (quotes, backslashes and control bytes escaped). */
static void quoted(char *out, size_t cap, const char *s) {
    size_t n = strlen(out);
    if (n + 1 < cap) out[n++] = '"';
    for (; *s && n + 7 < cap; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            out[n++] = '\\';
            out[n++] = (char)c;
        } else if (c < 0x20) {
            n += (size_t)snprintf(out + n, cap - n, "\\u%04x", c);
        } else {
            out[n++] = (char)c;
        }
    }
    if (n + 1 < cap) out[n++] = '"';
    out[n] = '\0';
}

int main(int argc, char **argv) {
    long port = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--port") == 0 && i + 1 < argc) {
            port = strtol(argv[++i], NULL, 10);
        } else if (strcmp(argv[i], "--auth") != 0) {
            fprintf(stderr, "protected: unknown argument %s\n" USAGE, argv[i]);
            return 2;
        }
    }
    const char *issuer = getenv("FERRITE_AUTH_ISSUER"), *audience = getenv("FERRITE_AUTH_AUDIENCE"),
               *jwks = getenv("FERRITE_AUTH_JWKS_URL");
    if (port <= 0 || port > 65535 || !issuer || !audience || !jwks) {
        fprintf(stderr, "protected: --port and the three variables are required\n" USAGE);
        return 2;
    }
    if (strlen(issuer) + strlen(audience) + strlen(jwks) > 2048) {
        fprintf(stderr, "protected: the variables are too long\n");
        return 2;
    }
    /* The core's configuration as JSON: the resource (audience), its authorization server,
     * whoami's scope, and JWTs of the issuer with keys from the JWKS URL. */
    char config[16384] = "{\"resource\":";
    quoted(config, sizeof config, audience);
    strcat(config, ",\"authorization_servers\":[");
    quoted(config, sizeof config, issuer);
    strcat(config, "],\"tool_scopes\":{\"whoami\":[\"mcp:whoami\"]},\"jwt\":{\"issuer\":");
    quoted(config, sizeof config, issuer);
    strcat(config, ",\"jwks_url\":");
    quoted(config, sizeof config, jwks);
    strcat(config, "}}");

    ferrite_auth *auth = NULL;
    if (ferrite_auth_new(config, strlen(config), NULL, NULL, NULL, &auth) != FERRITE_RESULT_OK) {
        fprintf(stderr, "protected: %s\n", ferrite_last_error()); /* the core's words */
        return 2;
    }
    ferrite_server *server = NULL;
    ferrite_result rc = ferrite_server_new_with_auth(S("{\"name\":\"ferrite-protected\",\"version\":\"0.1.0\"}"),
                                                     FERRITE_SERVER_MODE_DEFAULT, NULL, 0, auth, &server);
    ferrite_auth_free(auth); /* the server keeps what it needs */
    if (rc != FERRITE_RESULT_OK) {
        fprintf(stderr, "protected: %s\n", ferrite_last_error());
        return 1;
    }
    rc = ferrite_server_add_tool(
        server, S("{\"name\":\"whoami\",\"description\":\"The subject of your access token\",\"inputSchema\":{\"type\":\"object\"}}"),
        whoami, NULL, NULL);
    if (rc == FERRITE_RESULT_OK) {
        fprintf(stderr, "protected: http://127.0.0.1:%ld/mcp\n", port);
        rc = ferrite_server_serve_http(server, S("127.0.0.1"), (uint16_t)port, NULL);
    }
    if (rc != FERRITE_RESULT_OK && rc != FERRITE_RESULT_CLOSED) {
        fprintf(stderr, "protected: %s\n", ferrite_last_error());
    }
    ferrite_server_free(server);
    return rc == FERRITE_RESULT_CLOSED || rc == FERRITE_RESULT_OK ? 0 : 1;
}
