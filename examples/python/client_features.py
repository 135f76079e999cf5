"""What a server asks of its client, from Python (issue 12): a typed form (a pydantic model,
the answer validated into it), URL elicitation (the completion notification and the -32042
error), sampling with the client's context, and the roots list-changed observer. A stdio
server: ``python examples/python/client_features.py``.

| tool | does |
|---|---|
| signup | asks a form made from a pydantic model (an enum, an optional field, descriptions); answers with the validated values |
| login | sends the user to a URL (elicitation.url), then tells the client it completed |
| export | refuses with -32042 (UrlElicitationRequiredError) until ``login`` ran on this connection |
| summarize | asks the client's LLM with include_context="thisServer" (needs sampling.context) |
| roots_changes | how many notifications/roots/list_changed the server has seen |
"""

from __future__ import annotations

import enum
from typing import Optional, Set

from pydantic import BaseModel, Field

from ferrite_mcp import Context, MissingCapabilityError, Server, UrlElicitationRequiredError


class Plan(str, enum.Enum):
    basic = "basic"
    pro = "pro"


class Signup(BaseModel):
    name: str = Field(description="Your name")
    plan: Plan = Field(description="Which plan")
    age: Optional[int] = Field(default=None, description="Your age, if you like")


server = Server("client-features", "1.0.0")
signed_in: Set[str] = set()
roots_changes = 0


@server.tool()
async def signup(ctx: Context) -> str:
    """Asks who you are (a typed form)."""
    answer = await ctx.elicit("Sign up", schema=Signup)
    if answer.action != "accept" or answer.data is None:
        return f"no signup ({answer.action})"
    who: Signup = answer.data
    aged = "" if who.age is None else f", aged {who.age}"
    return f"welcome {who.name} on {who.plan.value}{aged}"


@server.tool()
async def login(ctx: Context) -> str:
    """Sends you to a sign-in page."""
    elicitation_id = f"login-{ctx.connection_id}"
    answer = await ctx.elicit_url("Sign in to continue", "https://example.com/login", elicitation_id)
    if answer.action != "accept":
        return f"not signed in ({answer.action})"
    # Here the sign-in happened out of band; tell the client it is done.
    signed_in.add(ctx.connection_id or "")
    await ctx.notify_elicitation_complete(elicitation_id)
    return "signed in"


@server.tool()
def export(ctx: Context) -> str:
    """Exports your data (needs a sign-in first)."""
    if (ctx.connection_id or "") not in signed_in:
        raise UrlElicitationRequiredError(
            [{"message": "Sign in to export", "url": "https://example.com/login", "elicitation_id": f"login-{ctx.connection_id}"}]
        )
    return "exported"


@server.tool()
async def summarize(ctx: Context) -> str:
    """Summarizes with this server's context (the client needs sampling.context)."""
    try:
        r = await ctx.sample("Summarize what this server offers", include_context="thisServer", max_tokens=200)
    except MissingCapabilityError as e:
        return f"cannot: {e}"
    return r.text or ""


@server.tool(name="roots_changes")
def roots_changes_seen() -> int:
    """How many notifications/roots/list_changed the server has seen."""
    return roots_changes


@server.on_roots_list_changed()
def count_roots_change() -> None:
    global roots_changes
    roots_changes += 1


if __name__ == "__main__":
    server.run()
