"""What the transport knows about the request a handler serves: ``ctx.request`` (also
``ctx.request_context.request``, the official SDK's spelling), ``None`` on stdio and
in-process.

The values are the core's ``RequestInfo`` (the HTTP method, path, headers, peer address, the
values the host application attached, e.g. Starlette's ``request.state``), handed over as
JSON: this module only gives them Python shapes. Headers are read-only and looked up
case-insensitively; the ``repr`` of a request or of its headers hides the headers the core
names sensitive (``Authorization``, ``Cookie``, ``Proxy-Authorization``, ``Set-Cookie``,
``X-Api-Key``) and shows only the names of the host's values.
"""

from __future__ import annotations

from typing import Any, Dict, Iterator, Mapping, NamedTuple, Optional

from . import _ferrite

__all__ = ["RequestInfo", "Headers", "Address", "HostState"]

_SENSITIVE = frozenset(_ferrite.SENSITIVE_HEADERS)


class Address(NamedTuple):
    """The peer's address, as Starlette's ``request.client``."""

    host: str
    port: int


class Headers(Mapping[str, str]):
    """The request's headers: a read-only mapping with case-insensitive names (a repeated
    header's values are joined with ``", "``). Its ``repr`` hides sensitive values."""

    __slots__ = ("_items",)

    def __init__(self, items: Mapping[str, str]) -> None:
        self._items: Dict[str, str] = {k.lower(): v for k, v in items.items()}

    def __getitem__(self, name: str) -> str:
        return self._items[name.lower()]

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name.lower() in self._items

    def __iter__(self) -> Iterator[str]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __repr__(self) -> str:
        shown = {k: ("<redacted>" if k in _SENSITIVE else v) for k, v in self._items.items()}
        return f"Headers({shown!r})"

    __str__ = __repr__


class HostState:
    """The values the host attached, read as attributes (``ctx.request.state.tenant``), as
    Starlette's ``request.state``; a missing one raises ``AttributeError``."""

    __slots__ = ("_values",)

    def __init__(self, values: Mapping[str, Any]) -> None:
        object.__setattr__(self, "_values", values)

    def __getattr__(self, name: str) -> Any:
        try:
            return self._values[name]
        except KeyError:
            raise AttributeError(f"the host attached no {name!r} to this request") from None

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("the host's values are read-only")

    def __repr__(self) -> str:
        return f"HostState(<{len(self._values)} values: {sorted(self._values)!r}>)"


class RequestInfo:
    """The HTTP request a handler serves: ``method``, ``path`` (as the client sent it, with
    any mount prefix), ``headers`` (:class:`Headers`), ``client`` (:class:`Address`) and
    ``remote_addr`` (``"host:port"``) when known, and ``host_values``: what the host attached
    (under ASGI, the JSON entries of ``scope["state"]``, which Starlette middleware sets as
    ``request.state.x = ...``), also as attributes of ``state``."""

    __slots__ = ("method", "path", "headers", "remote_addr", "client", "host_values")

    def __init__(self, raw: Mapping[str, Any]) -> None:
        self.method: str = raw["method"]
        self.path: str = raw["path"]
        self.headers = Headers(raw.get("headers") or {})
        self.remote_addr: Optional[str] = raw.get("remoteAddr")
        self.client = _address(self.remote_addr)
        self.host_values: Dict[str, Any] = dict(raw.get("hostValues") or {})

    @classmethod
    def _from_core(cls, raw: Optional[Mapping[str, Any]]) -> Optional["RequestInfo"]:
        return None if raw is None else cls(raw)

    @property
    def state(self) -> HostState:
        """``host_values`` as attributes, as Starlette's ``request.state``."""
        return HostState(self.host_values)

    def header(self, name: str, default: Optional[str] = None) -> Optional[str]:
        """One header by case-insensitive name."""
        return self.headers.get(name, default)

    def __repr__(self) -> str:
        return (
            f"RequestInfo(method={self.method!r}, path={self.path!r}, remote_addr={self.remote_addr!r}, "
            f"headers={self.headers!r}, host_values=<{sorted(self.host_values)!r}>)"
        )

    __str__ = __repr__


def _address(remote: Optional[str]) -> Optional[Address]:
    if not remote:
        return None
    host, _, port = remote.rpartition(":")
    if host.startswith("[") and host.endswith("]"):  # an IPv6 address, as Rust writes it
        host = host[1:-1]
    try:
        return Address(host, int(port))
    except ValueError:
        return None
