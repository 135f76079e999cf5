"""JSON Schema from Python type hints, and the converters that turn validated JSON arguments
back into the annotated Python types.

This is the Python half's type conversion: the core validates arguments against the schema
derived here before a handler runs, so a converter only reshapes values it knows are valid
(a JSON object into a dataclass, a string into an Enum member, an int into a float).

Supported: ``int``, ``float``, ``str``, ``bool``, ``None``, ``Any``, ``list``/``Sequence``/
``set``/``tuple`` (homogeneous or fixed), ``dict``/``Mapping`` (string keys), ``Optional``
and ``Union``, ``Literal``, ``Enum`` subclasses, ``TypedDict``, dataclasses, pydantic models
(when pydantic is installed), and ``Annotated[T, "description"]`` (or any metadata object with
a ``description`` attribute, such as pydantic's ``Field``).
"""

from __future__ import annotations

import collections.abc
import dataclasses
import enum
import inspect
import re
import sys
import types
import typing
from typing import Any, Callable, Dict, List, Optional, Tuple

from .errors import ConfigError

__all__ = ["schema_for", "converter_for", "Param", "signature_params", "parse_docstring"]

_NONE_TYPE = type(None)
_UNION_TYPE = getattr(types, "UnionType", None)  # `int | None`, Python 3.10+
_JSON_PRIMITIVES = {int: "integer", float: "number", str: "string", bool: "boolean"}


def _identity(v: Any) -> Any:
    return v


def _is_typeddict(tp: Any) -> bool:
    return isinstance(tp, type) and issubclass(tp, dict) and hasattr(tp, "__total__") and hasattr(tp, "__annotations__")


def _is_pydantic_model(tp: Any) -> bool:
    if not isinstance(tp, type):
        return False
    pydantic = sys.modules.get("pydantic")
    if pydantic is None:
        return False
    return issubclass(tp, pydantic.BaseModel)


def _description_of(metadata: Tuple[Any, ...]) -> Optional[str]:
    for m in metadata:
        if isinstance(m, str):
            return m
        d = getattr(m, "description", None)
        if isinstance(d, str):
            return d
    return None


def _type_hints(obj: Any) -> Dict[str, Any]:
    try:
        return typing.get_type_hints(obj, include_extras=True)
    except Exception as e:  # unresolvable forward references
        raise ConfigError(f"cannot resolve the type hints of {obj!r}: {e}") from e


class _Builder:
    """Builds one schema; named structured types that recurse go to ``$defs``."""

    def __init__(self) -> None:
        self.defs: Dict[str, Any] = {}
        self._stack: List[Any] = []

    def schema(self, tp: Any) -> Dict[str, Any]:
        if tp is Any or tp is object or tp is inspect.Parameter.empty:
            return {}
        if tp is None or tp is _NONE_TYPE:
            return {"type": "null"}
        if tp in _JSON_PRIMITIVES:
            return {"type": _JSON_PRIMITIVES[tp]}
        origin = typing.get_origin(tp)
        args = typing.get_args(tp)
        if origin is typing.Annotated:
            inner = self.schema(args[0])
            desc = _description_of(args[1:])
            if desc:
                inner = dict(inner, description=desc)
            return inner
        if origin is typing.Union or (_UNION_TYPE is not None and origin is _UNION_TYPE):
            non_null = [a for a in args if a is not _NONE_TYPE]
            options = [self.schema(a) for a in non_null]
            if len(non_null) != len(args):
                options.append({"type": "null"})
            if all(set(o) == {"type"} and isinstance(o["type"], str) for o in options):
                return {"type": [o["type"] for o in options]}
            return {"anyOf": options}
        if origin is typing.Literal:
            values = list(args)
            s: Dict[str, Any] = {"enum": values}
            kinds = {_json_type_of(v) for v in values}
            if len(kinds) == 1 and None not in kinds:
                s = {"type": kinds.pop(), "enum": values}
            return s
        if isinstance(tp, type) and issubclass(tp, enum.Enum):
            values = [m.value for m in tp]
            s = {"enum": values}
            kinds = {_json_type_of(v) for v in values}
            if len(kinds) == 1 and None not in kinds:
                s = {"type": kinds.pop(), "enum": values}
            return s
        if origin in (list, set, frozenset, collections.abc.Sequence, collections.abc.MutableSequence,
                      collections.abc.Set, collections.abc.MutableSet, collections.abc.Iterable):
            s = {"type": "array"}
            if args:
                s["items"] = self.schema(args[0])
            if origin in (set, frozenset, collections.abc.Set, collections.abc.MutableSet):
                s["uniqueItems"] = True
            return s
        if origin is tuple:
            if len(args) == 2 and args[1] is Ellipsis:
                return {"type": "array", "items": self.schema(args[0])}
            if args == ((),):  # Tuple[()]
                return {"type": "array", "maxItems": 0}
            items = [self.schema(a) for a in args]
            return {"type": "array", "prefixItems": items, "minItems": len(items), "maxItems": len(items)}
        if tp in (list, set, frozenset, tuple):
            return {"type": "array"}
        if origin in (dict, collections.abc.Mapping, collections.abc.MutableMapping):
            s = {"type": "object"}
            if args and len(args) == 2:
                if args[0] is not str and args[0] is not Any:
                    raise ConfigError(f"{tp!r}: JSON object keys are strings; use dict[str, ...]")
                value = self.schema(args[1])
                if value:
                    s["additionalProperties"] = value
            return s
        if tp is dict:
            return {"type": "object"}
        if _is_pydantic_model(tp):
            return self._pydantic(tp)
        if _is_typeddict(tp) or dataclasses.is_dataclass(tp):
            return self._named(tp)
        raise ConfigError(f"cannot derive a JSON Schema for the type {tp!r}")

    def _named(self, tp: type) -> Dict[str, Any]:
        name = tp.__name__
        if tp in self._stack:  # recursion: refer to the definition being built
            self.defs.setdefault(name, None)
            return {"$ref": f"#/$defs/{name}"}
        self._stack.append(tp)
        try:
            s = self._object(tp)
        finally:
            self._stack.pop()
        if name in self.defs:  # it recursed: keep the definition, refer to it
            self.defs[name] = s
            return {"$ref": f"#/$defs/{name}"}
        return s

    def _object(self, tp: type) -> Dict[str, Any]:
        hints = _type_hints(tp)
        props: Dict[str, Any] = {}
        required: List[str] = []
        if _is_typeddict(tp):
            required_keys = getattr(tp, "__required_keys__", set(hints) if getattr(tp, "__total__", True) else set())
            for key, hint in hints.items():
                props[key] = self.schema(hint)
                if key in required_keys:
                    required.append(key)
        else:
            for f in dataclasses.fields(tp):
                if not f.init:
                    continue
                s = self.schema(hints.get(f.name, Any))
                if f.default is not dataclasses.MISSING:
                    s = _with_default(s, f.default)
                elif f.default_factory is dataclasses.MISSING:
                    required.append(f.name)
                props[f.name] = s
        out: Dict[str, Any] = {"type": "object", "properties": props}
        if required:
            out["required"] = required
        own = tp.__dict__.get("__doc__")  # not inherited: a TypedDict would show dict's
        doc = inspect.cleandoc(own) if isinstance(own, str) else None
        if doc and not _is_default_dataclass_doc(tp, doc):
            out["description"] = doc
        return out

    def _pydantic(self, tp: type) -> Dict[str, Any]:
        s = dict(tp.model_json_schema(ref_template="#/$defs/{model}"))  # type: ignore[attr-defined]
        for k, v in s.pop("$defs", {}).items():
            self.defs[k] = v
        return s


def _is_default_dataclass_doc(tp: type, doc: str) -> bool:
    # dataclasses synthesize "Name(field: type, ...)" when there is no docstring.
    return dataclasses.is_dataclass(tp) and doc.startswith(f"{tp.__name__}(")


def _json_type_of(v: Any) -> Optional[str]:
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, int):
        return "integer"
    if isinstance(v, float):
        return "number"
    if isinstance(v, str):
        return "string"
    return None


def _with_default(schema: Dict[str, Any], default: Any) -> Dict[str, Any]:
    from .results import to_jsonable

    try:
        value = to_jsonable(default)
    except TypeError:
        return schema
    return dict(schema, default=value)


def schema_for(tp: Any) -> Dict[str, Any]:
    """The JSON Schema of one type (with ``$defs`` when the type recurses)."""
    b = _Builder()
    s = b.schema(tp)
    if b.defs:
        s = dict(s, **{"$defs": b.defs})
    return s


# ----- converters -----


def converter_for(tp: Any) -> Callable[[Any], Any]:
    """A function from the validated JSON value to the annotated Python type (identity where
    JSON already is that type)."""
    if tp in (int, str, bool, dict, list, Any, object, None, _NONE_TYPE) or tp is inspect.Parameter.empty:
        return _identity
    if tp is float:
        return _to_float
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin is typing.Annotated:
        return converter_for(args[0])
    if origin is typing.Literal:
        return _identity
    if origin is typing.Union or (_UNION_TYPE is not None and origin is _UNION_TYPE):
        non_null = [a for a in args if a is not _NONE_TYPE]
        if len(non_null) == 1:
            inner = converter_for(non_null[0])
            if inner is _identity:
                return _identity
            return lambda v: None if v is None else inner(v)
        return _identity  # ambiguous unions: the JSON value as validated
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        return tp
    if origin in (list, collections.abc.Sequence, collections.abc.MutableSequence, collections.abc.Iterable):
        inner = converter_for(args[0]) if args else _identity
        return _identity if inner is _identity else (lambda v: [inner(x) for x in v])
    if origin in (set, frozenset, collections.abc.Set, collections.abc.MutableSet) or tp in (set, frozenset):
        inner = converter_for(args[0]) if args else _identity
        ctor = frozenset if frozenset in (origin, tp) else set
        return lambda v: ctor(inner(x) for x in v)
    if origin is tuple or tp is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            inner = converter_for(args[0])
            return lambda v: tuple(inner(x) for x in v)
        if args and args != ((),):
            items = [converter_for(a) for a in args]
            return lambda v: tuple(c(x) for c, x in zip(items, v))
        return tuple
    if origin in (dict, collections.abc.Mapping, collections.abc.MutableMapping):
        inner = converter_for(args[1]) if len(args) == 2 else _identity
        return _identity if inner is _identity else (lambda v: {k: inner(x) for k, x in v.items()})
    if _is_pydantic_model(tp):
        return tp.model_validate  # type: ignore[no-any-return]
    if dataclasses.is_dataclass(tp) and isinstance(tp, type):
        hints = _type_hints(tp)
        fields = {f.name: converter_for(hints.get(f.name, Any)) for f in dataclasses.fields(tp) if f.init}
        return lambda v: tp(**{k: fields[k](x) for k, x in v.items() if k in fields})
    if _is_typeddict(tp):
        hints = _type_hints(tp)
        keys = {k: converter_for(h) for k, h in hints.items()}
        if all(c is _identity for c in keys.values()):
            return _identity
        return lambda v: {k: keys.get(k, _identity)(x) for k, x in v.items()}
    return _identity


def _to_float(v: Any) -> Any:
    return float(v) if isinstance(v, int) and not isinstance(v, bool) else v


# ----- signatures -----


@dataclasses.dataclass
class Param:
    """One parameter of a handler, as the schema and the call see it."""

    name: str
    annotation: Any
    required: bool
    default: Any
    description: Optional[str]
    convert: Callable[[Any], Any]


_ARGS_HEADER = re.compile(r"^\s*(Args|Arguments|Parameters|Params)\s*:\s*$")
_ARG_LINE = re.compile(r"^\s*\*{0,2}(\w+)\s*(?:\([^)]*\))?\s*:\s*(.*)$")
_SECTION = re.compile(r"^\s*(Returns|Return|Raises|Yields|Examples?|Notes?)\s*:\s*$")


def parse_docstring(fn: Any) -> Tuple[Optional[str], Dict[str, str]]:
    """The description (the docstring without its ``Args:`` section) and the per-argument
    descriptions of a Google-style docstring."""
    doc = inspect.getdoc(fn)
    if not doc:
        return None, {}
    lines = doc.splitlines()
    desc: List[str] = []
    args: Dict[str, str] = {}
    i = 0
    in_args = False
    current: Optional[str] = None
    while i < len(lines):
        line = lines[i]
        if _ARGS_HEADER.match(line):
            in_args = True
            current = None
        elif in_args and _SECTION.match(line):
            in_args = False
            desc.append(line)
        elif in_args:
            m = _ARG_LINE.match(line)
            if m and (len(line) - len(line.lstrip())) <= 4:
                current = m.group(1)
                args[current] = m.group(2).strip()
            elif current and line.strip():
                args[current] = (args[current] + " " + line.strip()).strip()
            elif not line.strip():
                current = None
        else:
            desc.append(line)
        i += 1
    text = "\n".join(desc).strip()
    return (text or None), args


def signature_params(fn: Callable[..., Any], skip: Callable[[Any], bool]) -> Tuple[List[Param], Optional[str], bool]:
    """The parameters of ``fn`` that come from the request (those whose annotation ``skip``
    does not claim, e.g. the ``Context``), the name of the parameter ``skip`` claimed, and
    whether ``fn`` takes ``**kwargs``."""
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError) as e:
        raise ConfigError(f"cannot read the signature of {fn!r}: {e}") from e
    hints = _type_hints(fn)
    _, arg_docs = parse_docstring(fn)
    params: List[Param] = []
    ctx_name: Optional[str] = None
    var_kw = False
    for p in sig.parameters.values():
        if p.kind is inspect.Parameter.VAR_KEYWORD:
            var_kw = True
            continue
        if p.kind is inspect.Parameter.VAR_POSITIONAL:
            continue
        if p.kind is inspect.Parameter.POSITIONAL_ONLY:
            raise ConfigError(f"{fn.__qualname__}: positional-only parameter {p.name!r} cannot receive a named argument")
        ann = hints.get(p.name, p.annotation)
        if skip(ann):
            ctx_name = p.name
            continue
        desc = arg_docs.get(p.name)
        if typing.get_origin(ann) is typing.Annotated:
            desc = _description_of(typing.get_args(ann)[1:]) or desc
        params.append(
            Param(
                name=p.name,
                annotation=ann,
                required=p.default is inspect.Parameter.empty,
                default=p.default,
                description=desc,
                convert=converter_for(ann),
            )
        )
    return params, ctx_name, var_kw


def object_schema(params: List[Param]) -> Dict[str, Any]:
    """The ``inputSchema`` for a list of parameters."""
    b = _Builder()
    props: Dict[str, Any] = {}
    required: List[str] = []
    for p in params:
        try:
            s = b.schema(p.annotation)
        except ConfigError as e:
            raise ConfigError(f"parameter {p.name!r}: {e}") from None
        if p.description and "description" not in s:
            s = dict(s, description=p.description)
        if p.required:
            required.append(p.name)
        elif p.default is not None:
            s = _with_default(s, p.default)
        props[p.name] = s
    out: Dict[str, Any] = {"type": "object", "properties": props}
    if required:
        out["required"] = required
    if b.defs:
        out["$defs"] = b.defs
    return out
