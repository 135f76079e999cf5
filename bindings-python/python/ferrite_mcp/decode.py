"""Decoding JSON the client sent back (input responses, request state) into Python types,
checking its shape first.

Unlike tool arguments, which the core validates against a schema before a handler runs,
these values arrive unchecked, so :func:`decode_as` checks the value against the type (a
pydantic model validates itself) and raises :class:`~ferrite_mcp.InvalidParamsError` on a
mismatch: a handler that lets it propagate answers ``-32602``, as MCP asks for input that
does not have the shape requested.

Supported targets: pydantic models, dataclasses, TypedDicts, and the types tool parameters
support (primitives, ``list``/``dict``/``tuple``/``set``, ``Optional``/``Union``,
``Literal``, ``Enum``, ``Any``).
"""

from __future__ import annotations

import collections.abc
import dataclasses
import enum
import inspect
import typing
from typing import Any, Type, TypeVar

from .errors import InvalidParamsError
from .schema import _NONE_TYPE, _UNION_TYPE, _is_pydantic_model, _is_typeddict, _type_hints, converter_for

__all__ = ["decode_as"]

T = TypeVar("T")

_SEQUENCES = (list, set, frozenset, collections.abc.Sequence, collections.abc.MutableSequence, collections.abc.Set,
              collections.abc.MutableSet, collections.abc.Iterable)
_MAPPINGS = (dict, collections.abc.Mapping, collections.abc.MutableMapping)


class _Mismatch(Exception):
    pass


def _kind(value: Any) -> str:
    return "null" if value is None else type(value).__name__


def _check(value: Any, tp: Any, path: str) -> None:
    """Raise ``_Mismatch`` when ``value`` (plain JSON) does not fit ``tp``."""
    if tp is Any or tp is object or tp is inspect.Parameter.empty:
        return
    if tp is None or tp is _NONE_TYPE:
        if value is not None:
            raise _Mismatch(f"{path}: expected null, got {_kind(value)}")
        return
    if tp is bool or tp is str:
        if not isinstance(value, tp):
            raise _Mismatch(f"{path}: expected {tp.__name__}, got {_kind(value)}")
        return
    if tp is int or tp is float:
        ok = isinstance(value, int) if tp is int else isinstance(value, (int, float))
        if not ok or isinstance(value, bool):
            raise _Mismatch(f"{path}: expected {tp.__name__}, got {_kind(value)}")
        return
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin is typing.Annotated:
        _check(value, args[0], path)
        return
    if origin is typing.Union or (_UNION_TYPE is not None and origin is _UNION_TYPE):
        for option in args:
            try:
                _check(value, option, path)
                return
            except _Mismatch:
                continue
        raise _Mismatch(f"{path}: {_kind(value)} fits none of {tp!r}")
    if origin is typing.Literal:
        if value not in args:
            raise _Mismatch(f"{path}: expected one of {list(args)!r}, got {value!r}")
        return
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        if value not in [m.value for m in tp]:
            raise _Mismatch(f"{path}: {value!r} is not a {tp.__name__}")
        return
    if origin in _SEQUENCES or origin is tuple or tp in (list, set, frozenset, tuple):
        if not isinstance(value, list):
            raise _Mismatch(f"{path}: expected an array, got {_kind(value)}")
        if origin is tuple and args and not (len(args) == 2 and args[1] is Ellipsis):
            if args == ((),):
                args = ()
            if len(value) != len(args):
                raise _Mismatch(f"{path}: expected {len(args)} items, got {len(value)}")
            for i, (item, item_tp) in enumerate(zip(value, args)):
                _check(item, item_tp, f"{path}[{i}]")
        elif args:
            for i, item in enumerate(value):
                _check(item, args[0], f"{path}[{i}]")
        return
    if origin in _MAPPINGS or tp is dict:
        if not isinstance(value, dict):
            raise _Mismatch(f"{path}: expected an object, got {_kind(value)}")
        if len(args) == 2:
            for k, item in value.items():
                _check(item, args[1], f"{path}.{k}")
        return
    if _is_pydantic_model(tp):
        return  # validated by the model when converted
    if _is_typeddict(tp):
        if not isinstance(value, dict):
            raise _Mismatch(f"{path}: expected an object, got {_kind(value)}")
        hints = _type_hints(tp)
        required = getattr(tp, "__required_keys__", set(hints) if getattr(tp, "__total__", True) else set())
        for key, hint in hints.items():
            if key in value:
                _check(value[key], hint, f"{path}.{key}")
            elif key in required:
                raise _Mismatch(f"{path}: missing {key!r}")
        return
    if dataclasses.is_dataclass(tp) and isinstance(tp, type):
        if not isinstance(value, dict):
            raise _Mismatch(f"{path}: expected an object, got {_kind(value)}")
        hints = _type_hints(tp)
        for f in dataclasses.fields(tp):
            if not f.init:
                continue
            if f.name in value:
                _check(value[f.name], hints.get(f.name, Any), f"{path}.{f.name}")
            elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                raise _Mismatch(f"{path}: missing {f.name!r}")
        return
    # Any other type: converted as is.


def decode_as(value: Any, tp: Type[T], what: str = "value") -> T:
    """``value`` (plain JSON) as an instance of ``tp``; :class:`InvalidParamsError` naming
    ``what`` when it does not fit."""
    try:
        if _is_pydantic_model(tp):
            return tp.model_validate(value)  # type: ignore[attr-defined,no-any-return]
        _check(value, tp, "$")
        return converter_for(tp)(value)  # type: ignore[no-any-return]
    except _Mismatch as e:
        raise InvalidParamsError(f"{what}: {e}") from None
    except (TypeError, ValueError, KeyError) as e:  # pydantic's ValidationError is a ValueError
        raise InvalidParamsError(f"{what}: {e}") from None
