package main

// The everything server's configuration from its environment and the errors of a bad command
// line: --auth's resource server, and joining a fleet (--redis, FERRITE_REQUEST_STATE_KEYS).

import (
	"fmt"
	"os"
	"strings"

	"ferrite.invalid/ferrite/bindings-go/ferrite"
)

// authFromEnv is the resource-server configuration of --auth: JWTs of FERRITE_AUTH_ISSUER for
// the audience FERRITE_AUTH_AUDIENCE (this server's URL), keys from FERRITE_AUTH_JWKS_URL,
// whoami needing mcp:whoami.
func authFromEnv() (ferrite.AuthConfig, error) {
	var missing []string
	get := func(name string) string {
		v, ok := os.LookupEnv(name)
		if !ok {
			missing = append(missing, name)
		}
		return v
	}
	issuer, audience, jwks := get("FERRITE_AUTH_ISSUER"), get("FERRITE_AUTH_AUDIENCE"), get("FERRITE_AUTH_JWKS_URL")
	if len(missing) > 0 {
		return ferrite.AuthConfig{}, fmt.Errorf("--auth needs %s in the environment", strings.Join(missing, ", "))
	}
	return ferrite.AuthConfig{
		Resource:             audience,
		AuthorizationServers: []string{issuer},
		ToolScopes:           map[string][]string{"whoami": {"mcp:whoami"}},
		JWT:                  &ferrite.JWTConfig{Issuer: issuer, JWKSURL: jwks},
	}, nil
}

// setupError is a bad --auth environment or configuration: reported, exit status 2.
type setupError string

func (e setupError) Error() string { return string(e) }

// usageError is a bad command line: reported with the usage, exit status 2.
type usageError string

func (e usageError) Error() string { return string(e) + "\n" + usage }

// usage is the command line's help: on stderr after a bad command line, on stdout for --help.
const usage = "usage: everything [--stateless] [--port N [--mount] [--auth]] [--redis URL] [--help]\n" +
	"  no --port: serve stdio; --port N: Streamable HTTP on 127.0.0.1:N at /mcp\n" +
	"  --mount: the endpoint as an http.Handler on a net/http ServeMux (GET /health, an x-user middleware)\n" +
	"  --auth: require bearer JWTs (FERRITE_AUTH_ISSUER, FERRITE_AUTH_AUDIENCE, FERRITE_AUTH_JWKS_URL)\n" +
	"  --redis URL: keep shared state in Redis, keys under FERRITE_REDIS_PREFIX (default ferrite:)\n" +
	"  FERRITE_REQUEST_STATE_KEYS=current[,previous...]: the fleet's requestState keys"

// joinFleet makes the server one instance of a fleet: the requestState keys every instance
// shares (FERRITE_REQUEST_STATE_KEYS) and, with --redis, the shared store.
func joinFleet(s *ferrite.Server, redis string) error {
	if keys := os.Getenv("FERRITE_REQUEST_STATE_KEYS"); keys != "" {
		k := strings.Split(keys, ",")
		if err := s.SetRequestStateKeys(k[0], k[1:]...); err != nil {
			return err
		}
	}
	if redis != "" {
		return s.UseRedis(redis, os.Getenv("FERRITE_REDIS_PREFIX"))
	}
	return nil
}
