"""Multi round-trip requests (MRTR, MCP 2026-07-28).

A tool, prompt or resource handler that needs something from the client (a form filled in,
an LLM completion, the client's roots) returns :class:`InputRequired` naming what it needs,
each :class:`InputRequest` under a key, and optionally some state. The handler is called
again with the answers, which it reads from the context::

    @server.tool()
    def greet(ctx: Context) -> Union[str, InputRequired]:
        answer = ctx.input_response_as("name", ElicitResult)
        if answer is None:
            return InputRequired().ask("name", InputRequest.elicit("Your name?", Name))
        return f"Hello, {answer.content['name']}!"

On a 2026-07-28 request the client receives the input requests and retries; on a
handshake-era session the core sends them as real server-to-client requests and calls the
handler again. The request state is sealed by the core before it leaves the server, so a
handler only ever reads back what it wrote.

Every input request is built by the core's ``InputRequest`` type (in the compiled module):
its wire shape is the core's.
"""

from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional, Sequence, Union

from . import _ferrite

__all__ = ["InputRequest", "InputRequired", "DEFAULT_MAX_TOKENS"]

#: The ``maxTokens`` of ``ctx.sample`` and ``InputRequest.sample`` when none is given: the
#: core's ``CreateMessageParams::DEFAULT_MAX_TOKENS``, the same on every surface.
DEFAULT_MAX_TOKENS: int = _ferrite.DEFAULT_MAX_TOKENS


def _camel(key: str) -> str:
    """``stop_sequences`` -> ``stopSequences``; camelCase keys and ``_meta`` stay as given."""
    if key.startswith("_") or "_" not in key:
        return key
    head, *rest = key.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def sampling_params(
    prompt: Union[str, Sequence[Any]],
    max_tokens: int,
    system_prompt: Optional[str],
    temperature: Optional[float],
    options: Mapping[str, Any],
) -> Dict[str, Any]:
    """The params of ``sampling/createMessage``: ``prompt`` is one user text or a list of
    messages (``{"role", "content"}`` dicts or :class:`~ferrite_mcp.Message`); ``options``
    are the other parameters, in snake_case or camelCase (``stop_sequences=[...]``)."""
    from .content import Message

    messages: List[Any]
    if isinstance(prompt, str):
        messages = [{"role": "user", "content": {"type": "text", "text": prompt}}]
    else:
        messages = [m.to_json() if isinstance(m, Message) else m for m in prompt]
    body: Dict[str, Any] = {"messages": messages, "maxTokens": max_tokens}
    body.update({_camel(k): v for k, v in options.items()})
    if system_prompt is not None:
        body["systemPrompt"] = system_prompt
    if temperature is not None:
        body["temperature"] = temperature
    return body


class InputRequest:
    """One request the client must answer before the handler can finish. Build it with
    :meth:`elicit`, :meth:`elicit_url`, :meth:`sample` or :meth:`list_roots`."""

    __slots__ = ("_core",)

    def __init__(self, core: _ferrite.InputRequest) -> None:
        if not isinstance(core, _ferrite.InputRequest):
            raise TypeError("build an InputRequest with InputRequest.elicit, .elicit_url, .sample or .list_roots")
        self._core = core

    @classmethod
    def elicit(cls, message: str, schema: Any) -> "InputRequest":
        """Ask the user to fill a form (``elicitation/create``, form mode). ``schema`` is a
        JSON Schema dict, or a pydantic model, dataclass or TypedDict class to derive it from
        (as tool parameters are). The answer decodes as
        :class:`~ferrite_mcp.ElicitResult` (``ElicitResult[Model]`` types its content)."""
        if not isinstance(schema, dict):
            import typing

            if not isinstance(schema, type) and typing.get_origin(schema) is None:
                raise TypeError(
                    f"an elicitation's schema is a JSON Schema dict or a pydantic model, dataclass or TypedDict class, "
                    f"not {type(schema).__name__}"
                )
            from .schema import form_schema_for

            schema = form_schema_for(schema)
        return cls(_ferrite.InputRequest.elicit(message, schema))

    @classmethod
    def elicit_url(cls, message: str, url: str) -> "InputRequest":
        """Send the user to ``url`` (``elicitation/create``, URL mode; the client needs
        ``elicitation.url``)."""
        return cls(_ferrite.InputRequest.elicit_url(message, url))

    @classmethod
    def sample(
        cls,
        prompt: Union[str, Sequence[Any]],
        *,
        max_tokens: int = DEFAULT_MAX_TOKENS,
        system_prompt: Optional[str] = None,
        temperature: Optional[float] = None,
        **options: Any,
    ) -> "InputRequest":
        """Ask the client's LLM (``sampling/createMessage``), as ``ctx.sample`` does:
        ``prompt`` is one user text or a list of messages; other parameters
        (``stop_sequences``, ``model_preferences``, ``include_context``, ``metadata``, ...)
        go in keywords. The answer decodes as :class:`~ferrite_mcp.SamplingResult`.
        Invalid parameters raise ``ValueError``."""
        params = sampling_params(prompt, max_tokens, system_prompt, temperature, options)
        return cls(_ferrite.InputRequest.sample(params))

    @classmethod
    def list_roots(cls) -> "InputRequest":
        """Ask for the client's roots (``roots/list``). The answer decodes as
        :class:`~ferrite_mcp.RootsResult`."""
        return cls(_ferrite.InputRequest.list_roots())

    @property
    def method(self) -> str:
        """The method the client answers (``"elicitation/create"``, ...)."""
        return self._core.method

    @property
    def required_capability(self) -> Dict[str, Any]:
        """The client capability it needs (``{"elicitation": {}}``, ...)."""
        return self._core.required_capability

    def to_json(self) -> Dict[str, Any]:
        """The wire shape, as the core serializes it."""
        return self._core.to_json()

    def __eq__(self, other: object) -> bool:
        return isinstance(other, InputRequest) and self._core == other._core

    def __hash__(self) -> int:
        return hash(self.method)

    def __repr__(self) -> str:
        return repr(self._core)


class InputRequired:
    """What a tool, prompt or resource handler returns when it needs the client's input
    first: the input requests by key, and the state to carry to the retry.

    ``state`` (or :meth:`with_state`) is text, or any JSON-serializable value (a dict, a
    dataclass, a pydantic model, ...) stored as its JSON text; read it back on the retry
    with ``ctx.request_state`` or ``ctx.request_state_as(Type)``.
    """

    __slots__ = ("requests", "state")

    def __init__(self, requests: Optional[Mapping[str, InputRequest]] = None, state: Any = None) -> None:
        #: The input requests, by key, in the order asked.
        self.requests: Dict[str, InputRequest] = {}
        #: The state carried to the retry, as text.
        self.state: Optional[str] = None
        for key, request in (requests or {}).items():
            self.ask(key, request)
        if state is not None:
            self.with_state(state)

    def ask(self, key: str, request: InputRequest) -> "InputRequired":
        """Ask ``request`` under ``key`` (the answer is read by that key); returns self."""
        if not isinstance(key, str) or not key:
            raise TypeError(f"an input request's key is a non-empty str, not {key!r}")
        if not isinstance(request, InputRequest):
            raise TypeError(f"input request {key!r} must be an InputRequest, not {type(request).__name__}")
        self.requests[key] = request
        return self

    def with_state(self, state: Any) -> "InputRequired":
        """Carry ``state`` to the retry: a ``str`` as is, any other value as its JSON text;
        returns self."""
        if isinstance(state, str):
            self.state = state
        else:
            from .results import to_jsonable

            self.state = _ferrite.state_json(to_jsonable(state))
        return self

    def _to_core(self) -> _ferrite.InputRequired:
        """The core's ``InputRequired``: what the core receives when a handler returns self."""
        return _ferrite.InputRequired({k: r._core for k, r in self.requests.items()}, self.state)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, InputRequired) and (self.requests, self.state) == (other.requests, other.state)

    __hash__ = None  # type: ignore[assignment]  # mutable

    def __repr__(self) -> str:
        return f"InputRequired(requests={self.requests!r}, state={self.state!r})"
