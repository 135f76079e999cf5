/*
 * The C everything server: the whole surface of examples/SURFACE.md over stdio or HTTP, written
 * against include/ferrite.h only. This file is the command line and the transports; the fixtures
 * are in everything_handshake.c (tools, resources, prompts of the handshake era) and
 * everything_modern.c (2026-07-28), the task fixtures in everything_tasks.c, their shared
 * helpers in everything_helpers.c, and everything.h declares what the files share.
 *
 * Build from the repository root after `cargo build --release -p ferrite-ffi`:
 *   gcc -std=c11 -Iinclude examples/c/everything*.c -Ltarget/release -lferrite -lpthread -ldl -lm
 * or statically:
 *   gcc -std=c11 -Iinclude examples/c/everything*.c target/release/libferrite.a -lpthread -ldl -lm
 *
 * Usage: everything [--stateless] [--port N [--auth]] [--redis URL] [--help]
 *   no --port: serves stdio; --port N: Streamable HTTP at http://127.0.0.1:N/mcp
 *   (stateful, with sessions, unless --stateless). --auth: an OAuth resource server (bearer
 *   JWTs of FERRITE_AUTH_ISSUER for the audience FERRITE_AUTH_AUDIENCE, keys from
 *   FERRITE_AUTH_JWKS_URL) with one more tool, whoami (scope mcp:whoami), answering the
 *   token's subject. The test_request_info tool answers what the transport knows about the
 *   request (ferrite_request_http_method, _http_path, _remote_addr, _header, _host_value).
 *   Any other argument, or a flag without its value: usage on stderr, exit status 2; --help:
 *   usage on stdout, status 0.
 *   Both protocol eras are served: the handshake revisions and 2026-07-28.
 *   FERRITE_HTTP_OPTIONS (a JSON object of the core's HTTP options, e.g.
 *   {"session_idle_timeout_ms": 5000}) is applied to the HTTP listener (the soak's expiry run).
 *
 * Patterns shown: synchronous handlers that fill the result before returning; slow handlers
 * (logging, progress, test_slow) that return FERRITE_RESULT_PENDING and finish on a thread
 * of their own, so no Ferrite worker is blocked; server-to-client requests (sampling,
 * elicitation) whose reply callback completes the pending request; multi round-trip tools
 * (2026-07-28) that reply "input required" and read the answers on the retry; a skill; a
 * tool and a prompt replaced at run time, with list-changed notifications; tools that declare
 * their task support (ferrite_server_add_tool_with_task_support), whose ordinary handlers the core
 * runs inline or as tasks.
 */
#include "everything.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ request info */

/* Append "name":value to a JSON object being built: the string `s` quoted, or null when absent
 * (ptr NULL); `raw` says s is JSON text already (a host value). */
static void put_field(buf *b, const char *name, ferrite_str s, bool raw) {
    buf_str(b, b->len > 1 ? ",\"" : "\"");
    buf_str(b, name);
    buf_str(b, "\":");
    if (!s.ptr) {
        buf_str(b, "null");
    } else if (raw) {
        buf_add(b, s.ptr, s.len);
    } else {
        buf_quoted(b, s.ptr, s.len);
    }
}

/* test_request_info: what the transport knows about the request (the method, path and client
 * address, the x-user header, the host value user), every field null over stdio. */
static uint32_t tool_request_info(void *user_data, ferrite_request *req) {
    (void)user_data;
    ferrite_str s = {NULL, 0};
    buf out = {0};
    buf_str(&out, "{");
    ferrite_request_http_method(req, &s);
    put_field(&out, "method", s, false);
    ferrite_request_http_path(req, &s);
    put_field(&out, "path", s, false);
    ferrite_request_remote_addr(req, &s);
    put_field(&out, "remoteAddr", s, false);
    ferrite_request_header(req, S("x-user"), &s);
    put_field(&out, "xUser", s, false);
    ferrite_request_host_value(req, S("user"), &s);
    put_field(&out, "user", s, true);
    buf_str(&out, "}");
    uint32_t rc = complete_text(req, out.p, out.len);
    free(out.p);
    return rc;
}

/* ------------------------------------------------------------------ --auth */

/* whoami: the caller's subject, from the identity the core verified. */
static uint32_t tool_whoami(void *user_data, ferrite_request *req) {
    (void)user_data;
    ferrite_str subject = {NULL, 0};
    ferrite_request_subject(req, &subject);
    return subject.ptr ? complete_text(req, subject.ptr, subject.len) : complete_text(req, "", 0);
}

/* The resource-server configuration of --auth, from the environment: JWTs of the issuer for
 * the audience (this server's URL), keys from the JWKS URL, whoami needing mcp:whoami. NULL
 * (after saying why) when a variable is missing or the core refuses the configuration. */
static ferrite_auth *auth_from_env(void) {
    const char *issuer = getenv("FERRITE_AUTH_ISSUER"), *audience = getenv("FERRITE_AUTH_AUDIENCE"),
               *jwks = getenv("FERRITE_AUTH_JWKS_URL");
    if (!issuer || !audience || !jwks) {
        fprintf(stderr, "everything: --auth needs FERRITE_AUTH_ISSUER, FERRITE_AUTH_AUDIENCE and "
                        "FERRITE_AUTH_JWKS_URL in the environment\n");
        return NULL;
    }
    buf config = {0};
    buf_str(&config, "{\"resource\":");
    buf_quoted(&config, audience, strlen(audience));
    buf_str(&config, ",\"authorization_servers\":[");
    buf_quoted(&config, issuer, strlen(issuer));
    buf_str(&config, "],\"tool_scopes\":{\"whoami\":[\"mcp:whoami\"]},\"jwt\":{\"issuer\":");
    buf_quoted(&config, issuer, strlen(issuer));
    buf_str(&config, ",\"jwks_url\":");
    buf_quoted(&config, jwks, strlen(jwks));
    buf_str(&config, "}}");
    ferrite_auth *auth = NULL;
    ferrite_result rc = ferrite_auth_new(config.p, config.len, NULL, NULL, NULL, &auth);
    free(config.p);
    if (rc != FERRITE_RESULT_OK) {
        fprintf(stderr, "everything: %s\n", ferrite_last_error());
        return NULL;
    }
    return auth;
}

/* ------------------------------------------------------------------ main */

/* Streamable HTTP on 127.0.0.1:port at /mcp (default options, or FERRITE_HTTP_OPTIONS) until the
 * process is killed. Binding first gives the real port when 0 was asked for; the serve call
 * blocks this thread while Ferrite's workers handle requests. */
static ferrite_result serve_http(ferrite_server *server, uint16_t port) {
    ferrite_http_options *options = NULL;
    const char *json = getenv("FERRITE_HTTP_OPTIONS");
    if (json != NULL) {
        ferrite_http_options_new(&options);
        ferrite_result rc = ferrite_http_options_set_json(options, json, strlen(json));
        if (rc != FERRITE_RESULT_OK) {
            fprintf(stderr, "everything: FERRITE_HTTP_OPTIONS: %s\n", ferrite_last_error());
            ferrite_http_options_free(options);
            return rc;
        }
    }
    ferrite_http_listener *listener = NULL;
    ferrite_result rc = ferrite_server_http_bind(server, S("127.0.0.1"), port, options, &listener);
    ferrite_http_options_free(options);
    if (rc != FERRITE_RESULT_OK) {
        fprintf(stderr, "everything: bind: %s (%s)\n", ferrite_result_message(rc), ferrite_last_error());
        return rc;
    }
    uint16_t bound = 0;
    ferrite_http_listener_port(listener, &bound);
    fprintf(stderr, "everything: Streamable HTTP on http://127.0.0.1:%u/mcp\n", (unsigned)bound);
    rc = ferrite_server_http_run(server, listener);
    if (rc != FERRITE_RESULT_CLOSED) {
        fprintf(stderr, "everything: serve_http: %s (%s)\n", ferrite_result_message(rc), ferrite_last_error());
        return rc;
    }
    return FERRITE_RESULT_OK;
}

/* One instance of a fleet: the requestState keys every instance shares
 * (FERRITE_REQUEST_STATE_KEYS=current[,previous...]) and, with --redis, the shared store. */
static void join_fleet(ferrite_server *server, const char *redis) {
    const char *keys = getenv("FERRITE_REQUEST_STATE_KEYS");
    if (keys != NULL) {
        /* current, then the previous keys as a JSON array of strings: each comma becomes
         * "," (keys are hex or base64, nothing to escape) */
        const char *comma = strchr(keys, ',');
        size_t current_len = comma ? (size_t)(comma - keys) : strlen(keys);
        char *previous = malloc(3 * strlen(keys) + 5);
        if (previous == NULL) {
            exit(1);
        }
        char *w = previous;
        *w++ = '[';
        if (comma != NULL) {
            *w++ = '"';
            for (const char *r = comma + 1; *r; r++) {
                w = *r == ',' ? (memcpy(w, "\",\"", 3), w + 3) : (*w = *r, w + 1);
            }
            *w++ = '"';
        }
        *w++ = ']';
        *w = '\0';
        check("request state keys",
              ferrite_server_set_request_state_keys(server, keys, current_len, previous, strlen(previous)));
        free(previous);
    }
    if (redis != NULL) {
        const char *prefix = getenv("FERRITE_REDIS_PREFIX");
        check("use redis", ferrite_server_use_redis(server, redis, strlen(redis), prefix, prefix ? strlen(prefix) : 0));
    }
}

int main(int argc, char **argv) {
    static const char USAGE[] =
        "usage: everything [--stateless] [--port N [--auth]] [--redis URL] [--help]\n"
        "  no --port: serve stdio; --port N: Streamable HTTP on 127.0.0.1:N at /mcp\n"
        "  --auth: require bearer JWTs (FERRITE_AUTH_ISSUER, FERRITE_AUTH_AUDIENCE, FERRITE_AUTH_JWKS_URL)\n"
        "  --redis URL: keep shared state in Redis, keys under FERRITE_REDIS_PREFIX (default ferrite:)\n"
        "  FERRITE_REQUEST_STATE_KEYS=current[,previous...]: the fleet's requestState keys\n";
    bool stateless = false, protect = false;
    const char *redis = NULL;
    int port = -1; /* -1: stdio */
    for (int i = 1; i < argc; i++) {
        bool valued = strcmp(argv[i], "--redis") == 0 || strcmp(argv[i], "--port") == 0;
        if (valued && i + 1 == argc) {
            fprintf(stderr, "everything: %s needs a value\n%s", argv[i], USAGE);
            return 2;
        }
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(USAGE, stdout);
            return 0;
        } else if (strcmp(argv[i], "--stateless") == 0) {
            stateless = true;
        } else if (strcmp(argv[i], "--auth") == 0) {
            protect = true;
        } else if (strcmp(argv[i], "--redis") == 0) {
            redis = argv[++i];
        } else if (strcmp(argv[i], "--port") == 0) {
            char *end = NULL;
            long p = strtol(argv[++i], &end, 10);
            if (*argv[i] == '\0' || *end != '\0' || p < 0 || p > 65535) {
                fprintf(stderr, "everything: --port needs a port number (0-65535), not %s\n%s", argv[i], USAGE);
                return 2;
            }
            port = (int)p;
        } else {
            fprintf(stderr, "everything: unknown argument %s\n%s", argv[i], USAGE);
            return 2;
        }
    }
    if (protect && port < 0) {
        fprintf(stderr, "everything: --auth needs --port (tokens travel in HTTP headers)\n%s", USAGE);
        return 2;
    }
    ferrite_auth *auth = NULL;
    if (protect && (auth = auth_from_env()) == NULL) {
        return 2;
    }
    if (ferrite_abi_version() != FERRITE_ABI_VERSION) {
        fprintf(stderr, "everything: libferrite ABI %u, header %u\n", ferrite_abi_version(), FERRITE_ABI_VERSION);
        return 1;
    }
    wav_base64 = make_wav_base64();

    ferrite_server *server = NULL;
    /* auth NULL (no --auth): an unprotected server, as ferrite_server_new. */
    ferrite_result rc = ferrite_server_new_with_auth(
        S("{\"name\":\"ferrite-everything\",\"version\":\"0.1.0\"}"),
        stateless ? FERRITE_SERVER_MODE_STATELESS : FERRITE_SERVER_MODE_DEFAULT /* stateful */,
        S("Ferrite's everything server: the MCP conformance fixture surface."), auth, &server);
    ferrite_auth_free(auth); /* the server keeps what it needs */
    if (rc != FERRITE_RESULT_OK) {
        die("ferrite_server_new_with_auth", rc);
    }
    register_tools(server);
    register_resources(server);
    register_prompts(server);
    register_modern(server);
    register_tasks(server);
    add_tool(server,
             SIMPLE_TOOL("test_request_info",
                         "Answers what the transport knows about the request (null fields over stdio)"),
             tool_request_info, NULL);
    if (protect) {
        add_tool(server,
                 SIMPLE_TOOL("whoami", "Answers the subject of the caller's access token (needs scope mcp:whoami)"),
                 tool_whoami, NULL);
    }
    /* The defaults (stateful unless --stateless, the logging capability on, tool arguments
     * validated against their input schemas) are what the fixtures need: nothing to turn on. */
    /* Handshake-era sessions subscribe with resources/subscribe; 2026-07-28 clients (any mode)
     * through listen streams. */
    check("enable subscriptions", ferrite_server_enable_resource_subscriptions(server));
    /* A static resource may be cached by anyone for a minute (2026-07-28 cache hints). */
    check("cache hint", ferrite_server_set_resource_cache_hint(server, S("test://static-text"), 60000, true));
    join_fleet(server, redis);
    /* Spans and metrics over OTLP/HTTP when a collector is named (the OTEL_* variables). */
    if (getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != NULL) {
        check("enable telemetry", ferrite_server_enable_telemetry(server));
    }

    if (port < 0) {
        rc = ferrite_server_serve_stdio(server);
        if (rc != FERRITE_RESULT_OK) {
            fprintf(stderr, "everything: serve_stdio: %s (%s)\n", ferrite_result_message(rc), ferrite_last_error());
        }
    } else {
        rc = serve_http(server, (uint16_t)port);
    }
    ferrite_server_free(server);
    ferrite_telemetry_shutdown(); /* exports what is pending; a no-op without telemetry */
    free(audio_result);
    free(wav_base64);
    return rc == FERRITE_RESULT_OK ? 0 : 1;
}
