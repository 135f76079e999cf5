"""A protected MCP server: an OAuth 2.1 resource server with one scoped tool.

    FERRITE_AUTH_ISSUER=https://as.example FERRITE_AUTH_AUDIENCE=http://127.0.0.1:8000/mcp \\
    FERRITE_AUTH_JWKS_URL=https://as.example/jwks python protected.py --port 8000

Every request to ``http://127.0.0.1:N/mcp`` needs a bearer JWT signed by a key of the JWK Set,
issued by ``FERRITE_AUTH_ISSUER`` for the audience ``FERRITE_AUTH_AUDIENCE`` (this server's
URL). Without one the answer is 401 naming the Protected Resource Metadata, which tells the
client where to get a token. ``whoami`` needs the scope ``mcp:whoami`` (403 naming it
otherwise) and answers the token's subject. The settings use the official SDK's
``AuthSettings`` names (``issuer_url``, ``resource_server_url``) plus the core's ``jwt`` and
``tool_scopes``. (``--auth`` is accepted and changes nothing: the tests start every protected
server the same way.)
"""

from __future__ import annotations

import os
import sys

from ferrite_mcp import Context, MCPServer
from ferrite_mcp.auth import AuthSettings

USAGE = "usage: protected.py --port N [--auth] (FERRITE_AUTH_ISSUER, FERRITE_AUTH_AUDIENCE, FERRITE_AUTH_JWKS_URL)"


def main(argv: list[str]) -> int:
    port = None
    args = iter(argv)
    for arg in args:
        if arg == "--port":
            port = int(next(args, "0") or 0)
        elif arg != "--auth":
            print(f"protected.py: unknown argument {arg!r}\n{USAGE}", file=sys.stderr)
            return 2
    names = ("FERRITE_AUTH_ISSUER", "FERRITE_AUTH_AUDIENCE", "FERRITE_AUTH_JWKS_URL")
    missing = [n for n in names if not os.environ.get(n)]
    if not port or missing:
        print(f"protected.py: {'--port is required' if not port else ', '.join(missing) + ' not set'}\n{USAGE}", file=sys.stderr)
        return 2
    issuer, audience, jwks_url = (os.environ[n] for n in names)

    mcp = MCPServer(
        "ferrite-protected",
        auth=AuthSettings(
            issuer_url=issuer,
            resource_server_url=audience,
            tool_scopes={"whoami": ["mcp:whoami"]},
            jwt={"issuer": issuer, "jwks_url": jwks_url},
        ),
    )

    @mcp.tool()
    def whoami(ctx: Context) -> str:
        """The subject of your access token."""
        return ctx.subject or ""

    mcp.run(transport="streamable-http", port=port)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
