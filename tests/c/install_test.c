/* Built by tests/c/run.sh against an installed libferrite with nothing but
 *   cc $(pkg-config --cflags --libs ferrite) install_test.c
 * (PKG_CONFIG_PATH at the prefix `cargo cinstall` wrote): the header's version macros agree
 * with the loaded library, and a server answers a ping through handle_raw. */
#include "ferrite.h"

#include <stdio.h>
#include <string.h>

#define S(lit) lit, sizeof(lit) - 1

int main(void) {
    char macro_version[32];
    snprintf(macro_version, sizeof macro_version, "%d.%d.%d", FERRITE_VERSION_MAJOR, FERRITE_VERSION_MINOR,
             FERRITE_VERSION_PATCH);
    if (strcmp(ferrite_version(), FERRITE_VERSION) != 0 || strcmp(macro_version, FERRITE_VERSION) != 0) {
        fprintf(stderr, "version mismatch: library %s, header %s (%s)\n", ferrite_version(), FERRITE_VERSION,
                macro_version);
        return 1;
    }
    ferrite_server *server = NULL;
    if (ferrite_server_new(S("{\"name\":\"installed\",\"version\":\"1.0.0\"}"), FERRITE_SERVER_MODE_DEFAULT, NULL, 0,
                           &server) != FERRITE_RESULT_OK) {
        fprintf(stderr, "ferrite_server_new: %s\n", ferrite_last_error());
        return 1;
    }
    char *out = NULL;
    size_t out_len = 0;
    ferrite_result rc = ferrite_server_handle_raw(server, S("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}"), &out,
                                                  &out_len);
    int ok = rc == FERRITE_RESULT_OK && out && strcmp(out, "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}") == 0;
    printf("libferrite %s (header %s): ping -> %s\n", ferrite_version(), FERRITE_VERSION, out ? out : "(none)");
    ferrite_string_free(out);
    ferrite_server_free(server);
    return ok ? 0 : 1;
}
