/*
 * The C ABI exercised from C: the abi_test program's main() and the helpers its files share (a
 * message through handle_raw, an integer read from a response, one HTTP/1.1 exchange and its
 * headers). The checks live beside it: abi_checks.c (registration, handle_raw, synchronous and
 * pending handlers, finalizers, NULL and bad UTF-8 inputs, a panic surfaced as a code, the JSON
 * helpers, closing), abi_modern.c (the 2026-07-28 revision in-process: bad modern input, multi
 * round-trip requests with sealed and tampered state, the new request getters, custom methods,
 * request state keys, extensions, cache hints, skills), abi_http.c (Streamable HTTP, 2026-07-28
 * included), abi_parity.c (the version, the defaults, the request context and server API items
 * every surface has, host connections, the HTTP options' core errors), abi_auth.c, abi_mount.c,
 * abi_tasks.c, abi_elicit.c, abi_limits.c (the dispatch limits) and abi_middleware.c (middleware
 * from C, both eras); the abi-test server's
 * handlers are in abi_handlers.c. Built and run by ffi/tests/c_programs.rs (and under valgrind
 * by tests/c/run.sh).
 *
 *   abi_test          run every check, print "ok"/"not ok" lines and a summary; exit 1 on failure
 *   abi_test serve    register the same handlers and serve stdio (for the stdio test)
 *   abi_test serve-until-close
 *                     the same, but close the server from the main thread while serve_stdio
 *                     runs on another, once the client sends notifications/test/close
 *
 * Needs a libferrite built with the cargo feature "testing" (ferrite_testing_panic).
 */
#include "abi_test.h"
#include "abi_server.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <limits.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>
#include <time.h>

int failures = 0;
int checks = 0;

/* ---------------------------------------------------------------- shared helpers */

/* Send one message through handle_raw; returns the response (caller frees) or NULL. */
char *call(ferrite_server *server, const char *msg) {
    char *out = NULL;
    if (ferrite_server_handle_raw(server, msg, strlen(msg), &out, NULL) != FERRITE_RESULT_OK) {
        return NULL;
    }
    return out;
}

bool responds(ferrite_server *server, const char *msg, const char *expected) {
    char *out = call(server, msg);
    bool ok = out && strstr(out, expected);
    if (!ok) {
        printf("# sent:     %s\n# got:      %s\n# expected: %s\n", msg, out ? out : "(call failed)", expected);
    }
    ferrite_string_free(out);
    return ok;
}

/* The integer at `pointer` in `json`, or INT64_MIN. */
int64_t int_at(const char *json, const char *pointer) {
    int64_t n = INT64_MIN;
    if (!json || ferrite_json_get_i64(json, strlen(json), pointer, strlen(pointer), &n) != FERRITE_RESULT_OK) {
        return INT64_MIN;
    }
    return n;
}

/* One HTTP/1.1 exchange on a fresh loopback connection (Connection: close), with a 10 s
 * receive timeout so a hang fails instead of blocking. Returns the whole response
 * (status line, headers, body) in a malloc'd buffer, or NULL. */
char *http_exchange(uint16_t port, const char *method, const char *host, const char *accept,
                    const char *extra_headers, const char *body) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) {
        return NULL;
    }
    struct timeval tv = {10, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    struct sockaddr_in addr;
    memset(&addr, 0, sizeof addr);
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, (struct sockaddr *)&addr, sizeof addr) != 0) {
        close(fd);
        return NULL;
    }
    char head[1024];
    int n = snprintf(head, sizeof head,
                     "%s /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\n"
                     "Accept: %s\r\n%sContent-Length: %zu\r\nConnection: close\r\n\r\n",
                     method, host, accept, extra_headers, strlen(body));
    if (n < 0 || (size_t)n >= sizeof head || write(fd, head, (size_t)n) != n ||
        write(fd, body, strlen(body)) != (ssize_t)strlen(body)) {
        close(fd);
        return NULL;
    }
    size_t cap = 4096, len = 0;
    char *out = malloc(cap);
    for (;;) {
        if (len + 1024 + 1 > cap) {
            cap *= 2;
            out = realloc(out, cap);
        }
        ssize_t got = read(fd, out + len, cap - len - 1);
        if (got <= 0) {
            break;
        }
        len += (size_t)got;
    }
    close(fd);
    out[len] = '\0';
    return out;
}

/* The value of header `name` (lower case) in `response`, copied into `value`; false if absent. */
bool http_header(const char *response, const char *name, char *value, size_t cap) {
    size_t name_len = strlen(name);
    for (const char *line = strstr(response, "\r\n"); line && strncmp(line, "\r\n\r\n", 4) != 0;
         line = strstr(line + 2, "\r\n")) {
        const char *h = line + 2;
        size_t i = 0;
        while (i < name_len && h[i] && tolower((unsigned char)h[i]) == name[i]) {
            i++;
        }
        if (i == name_len && h[i] == ':') {
            const char *v = h + i + 1;
            while (*v == ' ') {
                v++;
            }
            size_t vlen = strcspn(v, "\r");
            if (vlen >= cap) {
                return false;
            }
            memcpy(value, v, vlen);
            value[vlen] = '\0';
            return true;
        }
    }
    return false;
}

const char *self_path;

int main(int argc, char **argv) {
    /* The program's own path (not /proc/self/exe, which under valgrind names valgrind). */
    self_path = argv[0];
    if (argc > 1 && strcmp(argv[1], "serve-until-close") == 0) {
        return serve_until_close();
    }
    if (argc > 1 && strcmp(argv[1], "serve") == 0) {
        ferrite_server *server = new_server();
        register_all(server);
        ferrite_result rc = ferrite_server_serve_stdio(server);
        ferrite_server_free(server);
        return rc == FERRITE_RESULT_OK ? 0 : 1;
    }
    ferrite_server *server = new_server();
    register_all(server);
    check_handlers(server);
    check_bad_inputs(server);
    ferrite_server_free(server);
    check_json_helpers();
    check_lifecycle();
    check_close_with_pending_request();
    check_modern();
    check_skills();
    check_http();
    check_parity();
    check_auth();
    check_mount();
    check_tasks();
    check_elicit();
    check_limits();
    check_middleware();
    check_compose();
    printf("%d checks, %d failed\n", checks, failures);
    return failures == 0 ? 0 : 1;
}
