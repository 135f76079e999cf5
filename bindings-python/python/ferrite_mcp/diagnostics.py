"""The core's diagnostics in Python's :mod:`logging`.

The core reports what an operator may want to know (sessions created and expired, requests
refused with their status and reason, handler panics and results that are not valid, shared
store errors) under the ``ferrite.*`` loggers: ``ferrite.session``, ``ferrite.http``,
``ferrite.handler``, ``ferrite.store``, and ``ferrite.request`` (the ``timing`` and ``logging``
built-in middleware, at debug and info). No record carries a bearer token, a session id, request
state, arguments or results. Records go through from ``WARNING`` up by default (the
``FERRITE_DIAGNOSTICS`` environment variable, or :func:`set_diagnostics`, changes that; ``off``
turns them off), so with logging left unconfigured, Python prints warnings and errors on
stderr, never on stdout. This is not MCP logging (``ctx.info(...)`` sends
``notifications/message`` to the client)."""

from __future__ import annotations

import atexit
import logging
import os
from typing import Optional

from . import _ferrite

#: Python's level for each of the core's (``trace`` is below ``DEBUG``).
_LEVELS = {"error": logging.ERROR, "warn": logging.WARNING, "info": logging.INFO, "debug": logging.DEBUG, "trace": 5}


def _emit(level: str, target: str, message: str) -> None:
    logging.getLogger(target.replace("::", ".")).log(_LEVELS.get(level, logging.DEBUG), message)


def set_diagnostics(level: Optional[str] = "warning") -> None:
    """Pass the core's records at ``level`` (``"error"``, ``"warning"``, ``"info"``,
    ``"debug"``, ``"trace"``) or more severe to the ``ferrite.*`` loggers; ``None`` or
    ``"off"`` stops them. Process-wide. Raises ``ConfigError`` for another name."""
    if level is None or level.lower() == "off":
        _ferrite.set_diagnostics(None, None)
    else:
        _ferrite.set_diagnostics(level, _emit)


def _from_environment() -> None:
    """At import: ``FERRITE_DIAGNOSTICS`` (default ``warning``). An unknown name warns and
    keeps the default; a process whose Rust code owns tracing keeps its own. The records stop
    at exit, before the interpreter finalizes: a library thread must not wait for the GIL of
    an interpreter that is going away."""
    atexit.register(_ferrite.set_diagnostics, None, None)
    wanted = os.environ.get("FERRITE_DIAGNOSTICS", "warning")
    try:
        set_diagnostics(wanted)
    except Exception as e:  # a bad variable must not break the import
        logging.getLogger("ferrite").warning("FERRITE_DIAGNOSTICS=%r ignored: %s", wanted, e)
        try:
            set_diagnostics("warning")
        except Exception:
            pass
