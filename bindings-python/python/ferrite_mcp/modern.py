"""Server settings of the 2026-07-28 revision (the ``Server`` mixin ``_Modern``): request
state sealing keys and lifetime, extensions, cache hints, custom request methods, and skills.

Each setting converts Python values into the core's types; the core serves them (sealing
and verifying ``requestState``, advertising extensions, adding ``ttlMs``/``cacheScope`` to
results, dispatching custom methods in both eras, serving ``skills/list``, ``skills/get``,
``resources/directory/read`` and the skill files as resources).
"""

from __future__ import annotations

import dataclasses
import os
from typing import Any, Callable, Dict, Mapping, Optional, Sequence, Tuple, TypeVar, Union

from ._handlers import _Binder, _is_async, _is_context, _not_awaitable, _ServerBase
from .errors import ConfigError
from .results import to_jsonable
from .schema import signature_params

__all__ = ["CacheHint"]

F = TypeVar("F", bound=Callable[..., Any])

_SCOPES = ("public", "private")


@dataclasses.dataclass(frozen=True)
class CacheHint:
    """A 2026-07-28 cache hint: results stay fresh ``ttl_ms`` milliseconds, and may be shared
    by any cache (``scope="public"``) or only per authorization context (``"private"``). The
    default, ``CacheHint()``, promises nothing: stale at once, private."""

    ttl_ms: int = 0
    scope: str = "private"

    def __post_init__(self) -> None:
        if not isinstance(self.ttl_ms, int) or isinstance(self.ttl_ms, bool) or self.ttl_ms < 0:
            raise ConfigError(f"ttl_ms is a non-negative int of milliseconds, not {self.ttl_ms!r}")
        if self.scope not in _SCOPES:
            raise ConfigError(f"a cache scope is 'public' or 'private', not {self.scope!r}")


#: A cache hint as ``set_cache_hints`` takes it: a ``CacheHint``, or ``ttl_ms`` alone (private).
CacheHintLike = Union[CacheHint, int]


def _hint(name: str, value: CacheHintLike) -> Tuple[int, str]:
    if isinstance(value, CacheHint):
        return value.ttl_ms, value.scope
    if isinstance(value, int) and not isinstance(value, bool):
        return CacheHint(value).ttl_ms, "private"
    raise ConfigError(f"cache hint {name}: a CacheHint or an int of milliseconds, not {value!r}")


def _method_result(value: Any) -> Dict[str, Any]:
    data = to_jsonable(value)
    if not isinstance(data, dict):
        raise TypeError(f"a method handler returns a dict (a JSON object), not {type(value).__name__}")
    return data


class _Modern(_ServerBase):
    """The 2026-07-28 settings of a server."""

    # ----- request state -----

    def set_request_state_keys(self, current: str, previous: Sequence[str] = ()) -> None:
        """Seal ``requestState`` with the key ``current`` and still accept states sealed with
        the ``previous`` keys (rotation). Keys are 32 bytes written as 64 hex characters or
        base64; every instance of a fleet behind one URL needs the same keys. Without a call,
        each server seals with a key of its own, generated at start. A malformed key raises
        ``ConfigError``."""
        if isinstance(previous, str):
            raise ConfigError("previous is a list of keys, not one key")
        self._core.set_request_state_keys(current, list(previous))

    def set_request_state_ttl(self, seconds: float) -> None:
        """How long a sealed request state stays valid (default 15 minutes)."""
        self._core.set_request_state_ttl(float(seconds))

    @property
    def request_state_key_id(self) -> str:
        """The id of the key sealing request states (derived from the key; not secret)."""
        return self._core.request_state_key_id

    # ----- extensions -----

    def add_extension(self, id: str, settings: Optional[Dict[str, Any]] = None) -> None:  # noqa: A002
        """Advertise extension ``id`` (a prefixed name, ``"com.example/name"``) with its
        ``settings`` (a JSON object; ``None`` is ``{}``) to 2026-07-28 clients. A bad id
        raises ``ConfigError``."""
        self._core.add_extension(id, settings)

    def remove_extension(self, id: str) -> bool:  # noqa: A002
        """Stop advertising extension ``id``; whether it was advertised."""
        return self._core.remove_extension(id)

    # ----- caching -----

    def set_cache_hints(
        self,
        *,
        discover: Optional[CacheHintLike] = None,
        tools_list: Optional[CacheHintLike] = None,
        prompts_list: Optional[CacheHintLike] = None,
        resources_list: Optional[CacheHintLike] = None,
        templates_list: Optional[CacheHintLike] = None,
        resource_read: Optional[CacheHintLike] = None,
    ) -> None:
        """Set the cache hints of ``server/discover``, the four lists, and
        ``resources/read`` (of resources without a hint of their own), each a
        :class:`CacheHint` or an int of milliseconds (private). Hints not named keep their
        value; every hint starts as ``CacheHint()`` (``ttlMs: 0``, private)."""
        given = {
            "discover": discover,
            "tools_list": tools_list,
            "prompts_list": prompts_list,
            "resources_list": resources_list,
            "templates_list": templates_list,
            "resource_read": resource_read,
        }
        self._core.set_cache_hints({k: _hint(k, v) for k, v in given.items() if v is not None})

    def cache_hints(self) -> Dict[str, CacheHint]:
        """Every cache hint by its ``set_cache_hints`` name."""
        return {name: CacheHint(ttl, scope) for name, (ttl, scope) in self._core.cache_hints().items()}

    def set_resource_cache_hint(self, uri: str, ttl_ms: int, scope: str = "private") -> None:
        """The cache hint of reads of one resource or resource template (by its URI or URI
        template), over the ``resource_read`` default. ``ConfigError`` when nothing is
        registered at ``uri`` or the hint is invalid."""
        hint = CacheHint(ttl_ms, scope)
        self._core.set_resource_cache_hint(uri, hint.ttl_ms, hint.scope)

    # ----- custom methods -----

    def method(self, name: str) -> Callable[[F], F]:
        """Serve a custom request method (an extension's, or your own) in both eras::

            @server.method("com.example/echo")
            def echo(params: dict) -> dict:
                return {"echo": params}

        The function receives the request's params (a dict, without ``_meta``) in its first
        parameter (it may also take a ``Context``) and returns a dict (or a dataclass /
        pydantic model), the result. ``def`` and ``async def`` both work; an ``McpError`` it
        raises is the JSON-RPC error, any other exception ``-32603``. The core's own methods
        cannot be replaced (``ConfigError``)."""

        def decorator(fn: F) -> F:
            self.add_method(fn, name)
            return fn

        return decorator

    def add_method(self, fn: Callable[..., Any], name: str) -> None:
        """Register ``fn`` for the custom method ``name`` (the non-decorator form of
        :meth:`method`)."""
        params, ctx_name, _ = signature_params(fn, _is_context)
        if len(params) > 1:
            raise ConfigError(
                f"method handler {getattr(fn, '__qualname__', fn)!r}: takes the params dict and optionally a Context, "
                f"not {[p.name for p in params]}"
            )
        params_name = params[0].name if params else None
        is_async = _is_async(fn)
        ctx_binder = _Binder(None, ctx_name, self, ValueError)

        def bind(inp: Dict[str, Any], ctx: Any) -> Dict[str, Any]:
            kwargs = ctx_binder({}, ctx)
            if params_name is not None:
                kwargs[params_name] = inp
            return kwargs

        if is_async:

            async def call_async(inp: Any, ctx: Any) -> Dict[str, Any]:
                return _method_result(await fn(**bind(inp, ctx)))

            wrapper: Callable[..., Any] = call_async
        else:

            def call(inp: Any, ctx: Any) -> Dict[str, Any]:
                return _method_result(_not_awaitable(fn, fn(**bind(inp, ctx))))

            wrapper = call
        self._core.add_method(name, *self._handler(wrapper, is_async, ctx_name is not None))
        self._registered(is_async)

    def remove_method(self, name: str) -> bool:
        """Stop serving a custom method; whether it was served."""
        return self._core.remove_method(name)

    # ----- skills -----

    def add_skill(self, root: str, files: Mapping[str, Union[str, bytes]]) -> None:
        """Serve a skill (the ``io.modelcontextprotocol/skills`` extension) at ``root``
        (``"skill://name"``) from ``files``: relative path -> contents (``str`` is UTF-8).
        It needs a ``SKILL.md`` with ``name`` and ``description`` frontmatter; the core
        computes digests and sizes, serves the files as resources and advertises the
        extension. A skill with the same root replaces the previous one; a bad skill raises
        ``ConfigError``."""
        self._core.add_skill(root, dict(files))

    def add_skill_dir(self, root: str, path: Union[str, "os.PathLike[str]"]) -> None:
        """Serve a skill from every file under the directory ``path`` (as :meth:`add_skill`)."""
        self._core.add_skill_dir(root, os.fspath(path))
