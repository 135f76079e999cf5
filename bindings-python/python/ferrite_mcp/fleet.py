"""A server as one instance of a fleet behind one endpoint (the ``Server`` mixin ``_Fleet``).

Instances of a fleet answer each other's clients, so the state they share lives in Redis
rather than in one process: the core keeps it there (today the tasks of both generations,
and the fleet-wide notifications) once ``use_redis`` is called. Sealed ``requestState``
needs no store, only the same keys on every instance (``set_request_state_keys``).
"""

from __future__ import annotations

from typing import Optional

from ._handlers import _ServerBase


class _Fleet(_ServerBase):
    """The shared-state settings of a server."""

    def use_redis(self, url: str, key_prefix: str = "ferrite:") -> None:
        """Keep the state the instances of a fleet share in Redis at ``url``
        (``redis://host:port/db``), under keys starting with ``key_prefix`` (every instance of
        one fleet uses the same prefix; fleets and tests sharing a Redis use different ones).

        Call it before serving: once a task exists its store is fixed. The connection is made
        lazily, so a Redis that is not up yet is an error for the requests that need it (a
        JSON-RPC error), not for this call, and the client reconnects when Redis is back. A
        malformed URL, or a task already created, raises ``ConfigError`` with the core's
        message."""
        self._core.use_redis(url, key_prefix)

    @property
    def redis_round_trips(self) -> Optional[int]:
        """How many round trips to Redis the server made so far (requests that touch no
        shared state make none); ``None`` without ``use_redis``."""
        return self._core.redis_round_trips
