"""The HTTP options of :meth:`Server.run`, :meth:`Server.run_async` and
:meth:`Server.asgi_app` as the core's ``HttpConfig`` dict: the keyword arguments by the core's
names, and the official SDK's spellings of the same options turned into them. Nothing is
checked here but what the spellings need: every value is the core's to judge, so a bad one
raises the same ``ConfigError`` text as on every other surface."""

from __future__ import annotations

import math
from typing import Any, Dict, List, Optional

from .errors import ConfigError

__all__ = ["_transport_config"]


def _transport_config(
    transport: str,
    *,
    host: Optional[str] = None,
    port: Optional[int] = None,
    path: Optional[str] = None,
    response_mode: Optional[str] = None,
    json_response: bool = False,
    max_body_bytes: Optional[int] = None,
    session_idle_timeout: Optional[float] = None,
    session_idle_timeout_ms: Optional[int] = None,
    max_sessions: Optional[int] = None,
    header_read_timeout_ms: Optional[int] = None,
    body_read_timeout_ms: Optional[int] = None,
    allowed_hosts: Optional[List[str]] = None,
    allowed_origins: Optional[List[str]] = None,
    allow_any_host: Optional[bool] = None,
    resumable: Optional[bool] = None,
    max_events_per_stream: Optional[int] = None,
    max_event_streams: Optional[int] = None,
    sse_retry_ms: Optional[int] = None,
    sse_keep_alive_ms: Optional[int] = None,
    stream_buffer: Optional[int] = None,
    legacy_sse: Optional[bool] = None,
    legacy_sse_path: Optional[str] = None,
    legacy_messages_path: Optional[str] = None,
    streamable_http_path: Optional[str] = None,
    max_request_body_size: Optional[int] = None,
    retry_interval: Optional[int] = None,
) -> Optional[Dict[str, Any]]:
    """The ``HttpConfig`` dict of a transport and its keyword options (None for stdio); an
    unknown keyword is a ``TypeError``, as for any function."""
    if transport == "stdio":
        return None
    if transport not in ("http", "streamable-http", "sse"):
        raise NotImplementedError(f"transport {transport!r}: use 'stdio', 'streamable-http' (or 'http') or 'sse'")
    return _http_config(
        {
            "host": "127.0.0.1" if host is None else host,
            "port": 8000 if port is None else port,
            "path": path,
            "response_mode": response_mode,
            "max_body_bytes": max_body_bytes,
            "session_idle_timeout_ms": session_idle_timeout_ms,
            "max_sessions": max_sessions,
            "header_read_timeout_ms": header_read_timeout_ms,
            "body_read_timeout_ms": body_read_timeout_ms,
            "allowed_hosts": allowed_hosts,
            "allowed_origins": allowed_origins,
            "allow_any_host": allow_any_host,
            "resumable": resumable,
            "max_events_per_stream": max_events_per_stream,
            "max_event_streams": max_event_streams,
            "sse_retry_ms": sse_retry_ms,
            "sse_keep_alive_ms": sse_keep_alive_ms,
            "stream_buffer": stream_buffer,
            "legacy_sse": True if transport == "sse" and legacy_sse is None else legacy_sse,
            "legacy_sse_path": legacy_sse_path,
            "legacy_messages_path": legacy_messages_path,
        },
        json_response=json_response,
        session_idle_timeout=session_idle_timeout,
        streamable_http_path=streamable_http_path,
        max_request_body_size=max_request_body_size,
        retry_interval=retry_interval,
    )


# The official SDK's spellings of HTTP options, as (HttpConfig key, conversion).
def _http_config(config: Dict[str, Any], **aliases: Any) -> Dict[str, Any]:
    """The ``HttpConfig`` dict of ``run``'s keyword arguments: the core's keys as given, the
    official SDK's spellings turned into them (a key given both ways is a ``ConfigError``).
    Every value is checked by the core."""
    out = {k: v for k, v in config.items() if v is not None}

    def put(key: str, value: Any, spelling: str) -> None:
        if key in out and out[key] != value:
            raise ConfigError(f"invalid HTTP option {key}: also given as {spelling}={aliases[spelling]!r}; pass one of them")
        out[key] = value

    if aliases["json_response"]:
        put("response_mode", "json", "json_response")
    timeout = aliases["session_idle_timeout"]
    if timeout is not None:
        # Seconds, as the official SDK takes them; the core's milliseconds (0: never).
        millis = timeout * 1000 if isinstance(timeout, (int, float)) and not isinstance(timeout, bool) else timeout
        if isinstance(millis, float):
            if not math.isfinite(millis):
                raise ConfigError(f"invalid HTTP option session_idle_timeout: {timeout!r} is not a number of seconds")
            millis = round(millis)
        put("session_idle_timeout_ms", millis, "session_idle_timeout")
    if aliases["streamable_http_path"] is not None:
        put("path", aliases["streamable_http_path"], "streamable_http_path")
    if aliases["max_request_body_size"] is not None:
        put("max_body_bytes", aliases["max_request_body_size"], "max_request_body_size")
    if aliases["retry_interval"] is not None:
        put("sse_retry_ms", aliases["retry_interval"], "retry_interval")
    return out
