// Command protected is a protected MCP server: an OAuth 2.1 resource server with one scoped
// tool.
//
//	FERRITE_AUTH_ISSUER=https://as.example FERRITE_AUTH_AUDIENCE=http://127.0.0.1:8000/mcp \
//	FERRITE_AUTH_JWKS_URL=https://as.example/jwks protected --port 8000
//
// Every request to http://127.0.0.1:N/mcp needs a bearer JWT signed by a key of the JWK Set,
// issued by FERRITE_AUTH_ISSUER for the audience FERRITE_AUTH_AUDIENCE (this server's URL).
// Without one the answer is 401 naming the Protected Resource Metadata, which tells the client
// where to get a token. whoami needs the scope mcp:whoami (403 naming it otherwise) and answers
// the token's subject. (--auth is accepted and changes nothing: the tests start every
// protected server the same way.)
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"

	"ferrite.invalid/ferrite/bindings-go/ferrite"
)

const usage = "usage: protected --port N [--auth] (FERRITE_AUTH_ISSUER, FERRITE_AUTH_AUDIENCE, FERRITE_AUTH_JWKS_URL)"

func fail(why string) {
	fmt.Fprintf(os.Stderr, "protected: %s\n%s\n", why, usage)
	os.Exit(2)
}

func main() {
	flags := flag.NewFlagSet("protected", flag.ContinueOnError)
	flags.Usage = func() {}
	port := flags.Int("port", 0, "")
	flags.Bool("auth", true, "")
	if err := flags.Parse(os.Args[1:]); err != nil || flags.NArg() > 0 {
		fail("bad command line")
	}
	if *port <= 0 || *port > 65535 {
		fail("--port is required")
	}
	env := map[string]string{}
	for _, name := range []string{"FERRITE_AUTH_ISSUER", "FERRITE_AUTH_AUDIENCE", "FERRITE_AUTH_JWKS_URL"} {
		if env[name] = os.Getenv(name); env[name] == "" {
			fail(name + " is not set")
		}
	}
	issuer := env["FERRITE_AUTH_ISSUER"]
	s, err := ferrite.NewServer(ferrite.Implementation{Name: "ferrite-protected", Version: "0.1.0"},
		ferrite.WithAuth(ferrite.AuthConfig{
			Resource:             env["FERRITE_AUTH_AUDIENCE"],
			AuthorizationServers: []string{issuer},
			ToolScopes:           map[string][]string{"whoami": {"mcp:whoami"}},
			JWT:                  &ferrite.JWTConfig{Issuer: issuer, JWKSURL: env["FERRITE_AUTH_JWKS_URL"]},
		}))
	if err != nil {
		fail(err.Error()) // the core's words: invalid auth option ...
	}
	defer s.Free()
	whoami := ferrite.Tool{Name: "whoami", Description: "The subject of your access token",
		InputSchema: map[string]any{"type": "object"}}
	if err := s.AddTool(whoami, func(req ferrite.Request, _ json.RawMessage) (any, error) {
		return ferrite.TextResult(req.Subject()), nil
	}); err != nil {
		fail(err.Error())
	}
	if err := s.ServeHTTP("127.0.0.1", uint16(*port), nil); err != nil {
		fmt.Fprintln(os.Stderr, "protected:", err)
		os.Exit(1)
	}
}
