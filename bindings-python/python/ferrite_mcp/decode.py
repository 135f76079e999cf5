"""Decoding JSON the client sent back (input responses, request state) into Python types,
through pydantic, as tool arguments are.

These values arrive unchecked (unlike tool arguments, which the core validates against a
schema first), so :func:`decode_as` validates them against the type and raises
:class:`~ferrite_mcp.InvalidParamsError` naming the field on a mismatch: a handler that lets
it propagate answers ``-32602``, as MCP asks for input that does not have the shape
requested.

Supported targets: whatever pydantic validates (models, dataclasses, TypedDicts, primitives,
``list``/``dict``/``tuple``/``set``, ``Optional``/``Union``, ``Literal``, ``Enum``, ``datetime``,
``UUID``, ...).
"""

from __future__ import annotations

from typing import Any, Dict, Type, TypeVar

from pydantic import TypeAdapter, ValidationError

from .errors import InvalidParamsError
from .schema import _readable, validation_message

__all__ = ["decode_as"]

T = TypeVar("T")

_ADAPTERS: Dict[Any, "TypeAdapter[Any]"] = {}


def _adapter(tp: Any) -> "TypeAdapter[Any]":
    try:
        return _ADAPTERS[tp]
    except KeyError:
        pass
    except TypeError:  # unhashable: not cached
        return TypeAdapter(_readable(tp))
    a: TypeAdapter[Any] = TypeAdapter(_readable(tp))
    _ADAPTERS[tp] = a
    return a


def decode_as(value: Any, tp: Type[T], what: str = "value") -> T:
    """``value`` (plain JSON) as an instance of ``tp``; :class:`InvalidParamsError` naming
    ``what`` and the field when it does not fit."""
    try:
        return _adapter(tp).validate_python(value)  # type: ignore[no-any-return]
    except ValidationError as e:
        raise InvalidParamsError(f"{what}: {validation_message(e)}") from None
