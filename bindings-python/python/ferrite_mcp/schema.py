"""Type hints as JSON Schema, and request values as the annotated Python types, through
pydantic v2, as the official MCP SDK does.

A handler's parameters become a pydantic model (:class:`Arguments`): its JSON Schema is the
tool's ``inputSchema`` (so ``Field`` and ``Annotated`` constraints, descriptions, defaults and
aliases show in it), and validating the request's values with it gives the keyword arguments,
converted to the annotated types (``datetime``, ``UUID``, ``Path``, ``Decimal``, enums,
nested models, dataclasses, TypedDicts, ...). A tool's return annotation gives its
``outputSchema`` (:class:`Output`).

Ferrite's additions over the official SDK: a Google-style ``Args:`` section of the docstring
describes the parameters, and ``Annotated[T, "text"]`` is a description too.
"""

from __future__ import annotations

import collections.abc
import dataclasses
import enum
import inspect
import json
import re
import sys
import typing
from typing import Any, Callable, Dict, List, Optional, Sequence, Set, Tuple

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, WithJsonSchema, create_model
from pydantic.fields import FieldInfo
from pydantic.json_schema import GenerateJsonSchema

from .errors import ConfigError

__all__ = ["schema_for", "form_schema_for", "Param", "Arguments", "Output", "signature_params", "parse_docstring", "validation_message"]

_NONE_TYPE = type(None)
_UNION_TYPE = getattr(__import__("types"), "UnionType", None)  # `int | None`, Python 3.10+


def _is_typeddict(tp: Any) -> bool:
    return isinstance(tp, type) and issubclass(tp, dict) and hasattr(tp, "__total__") and hasattr(tp, "__annotations__")


def _is_pydantic_model(tp: Any) -> bool:
    return isinstance(tp, type) and issubclass(tp, BaseModel)


def _is_union(origin: Any) -> bool:
    return origin is typing.Union or (_UNION_TYPE is not None and origin is _UNION_TYPE)


def _type_hints(obj: Any) -> Dict[str, Any]:
    try:
        return typing.get_type_hints(obj, include_extras=True)
    except Exception as e:  # unresolvable forward references
        raise ConfigError(f"cannot resolve the type hints of {obj!r}: {e}") from e


# ----- TypedDicts pydantic can read -----

# pydantic reads `typing.TypedDict` only from Python 3.12 on; below, a stdlib TypedDict is
# rebuilt once as the equivalent `typing_extensions.TypedDict` (same keys, required keys,
# docstring and names).
_REBUILT: Dict[Any, Any] = {}


def _rebuilt_typeddict(tp: Any) -> Any:
    if tp in _REBUILT:
        return _REBUILT[tp]
    import typing_extensions as te

    hints = typing.get_type_hints(tp, include_extras=True)
    required = getattr(tp, "__required_keys__", frozenset(hints))
    items = {k: (te.Required[_readable(h)] if k in required else te.NotRequired[_readable(h)]) for k, h in hints.items()}
    new = te.TypedDict(tp.__name__, items)  # type: ignore[operator,misc,unused-ignore]
    for attr in ("__doc__", "__module__", "__qualname__"):
        if getattr(tp, attr, None) is not None:
            setattr(new, attr, getattr(tp, attr))
    _REBUILT[tp] = new
    return new


def _readable(tp: Any) -> Any:
    """``tp`` with every stdlib ``TypedDict`` in it (at the top, or inside ``Optional``,
    ``Union``, ``list``, ``dict``, ``tuple``, ``Annotated``) as one pydantic can read."""
    if sys.version_info >= (3, 12):
        return tp
    if _is_typeddict(tp) and type(tp).__module__ == "typing":
        return _rebuilt_typeddict(tp)
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin is None or not args:
        return tp
    if origin is typing.Annotated:
        inner = _readable(args[0])
        return tp if inner is args[0] else typing.Annotated[(inner, *tp.__metadata__)]
    if origin is typing.Literal:
        return tp
    new = tuple(_readable(a) if a is not Ellipsis else a for a in args)
    if new == args:
        return tp
    if _is_union(origin):
        return typing.Union[new]
    try:
        return origin[new if len(new) > 1 else new[0]]
    except TypeError:
        return tp


def schema_for(tp: Any) -> Dict[str, Any]:
    """The JSON Schema of one type, as pydantic writes it (with ``$defs`` for named types)."""
    try:
        return TypeAdapter(_readable(tp)).json_schema()
    except Exception as e:
        raise ConfigError(f"cannot derive a JSON Schema for the type {tp!r}: {e}") from None


class _FormJsonSchema(GenerateJsonSchema):
    """pydantic's generator with an optional field spelled as a form spells it: ``T | None``
    is ``T`` (pydantic writes ``anyOf: [T, {type: null}]``) and a ``None`` default is no
    default. Optional means "not in ``required``", which pydantic already says for a field
    with a default. Only the spelling of ``Optional`` is chosen here; what a form may ask is
    the core's to judge (it also inlines enums from ``$defs`` and drops ``$schema``/``title``)."""

    def nullable_schema(self, schema: Any) -> Any:
        return self.generate_inner(schema["schema"])

    def default_schema(self, schema: Any) -> Any:
        generated = super().default_schema(schema)
        if "default" in generated and generated["default"] is None:
            del generated["default"]
        return generated


def form_schema_for(tp: Any) -> Dict[str, Any]:
    """The JSON Schema of an elicitation form's type (a pydantic model, dataclass or
    TypedDict), with ``Optional`` fields spelled as their type (see :class:`_FormJsonSchema`)."""
    try:
        return TypeAdapter(_readable(tp)).json_schema(schema_generator=_FormJsonSchema)
    except Exception as e:
        raise ConfigError(f"cannot derive a JSON Schema for the type {tp!r}: {e}") from None


def validation_message(e: ValidationError) -> str:
    """A pydantic validation error as one line per problem, each naming its field:
    ``a: Input should be a valid integer``."""
    parts = []
    for err in e.errors():
        loc = ".".join(str(p) for p in err.get("loc", ()))
        parts.append(f"{loc}: {err['msg']}" if loc else err["msg"])
    return "; ".join(parts)


# ----- signatures -----


@dataclasses.dataclass
class Param:
    """One parameter of a handler, as the schema and the call see it."""

    name: str
    annotation: Any
    required: bool
    default: Any
    description: Optional[str]


_ARGS_HEADER = re.compile(r"^\s*(Args|Arguments|Parameters|Params)\s*:\s*$")
_ARG_LINE = re.compile(r"^\s*\*{0,2}(\w+)\s*(?:\([^)]*\))?\s*:\s*(.*)$")
_SECTION = re.compile(r"^\s*(Returns|Return|Raises|Yields|Examples?|Notes?)\s*:\s*$")


def parse_docstring(fn: Any) -> Tuple[Optional[str], Dict[str, str]]:
    """The description (the docstring without its ``Args:`` section) and the per-argument
    descriptions of a Google-style docstring."""
    doc = inspect.getdoc(fn)
    if not doc:
        return None, {}
    desc: List[str] = []
    args: Dict[str, str] = {}
    in_args = False
    current: Optional[str] = None
    for line in doc.splitlines():
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
    text = "\n".join(desc).strip()
    return (text or None), args


def _metadata_description(metadata: Sequence[Any]) -> Optional[str]:
    for m in metadata:
        if isinstance(m, str):
            return m
        if isinstance(m, FieldInfo) and m.description:
            return m.description
    return None


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
            desc = _metadata_description(typing.get_args(ann)[1:]) or desc
        if isinstance(p.default, FieldInfo) and p.default.description:
            desc = p.default.description
        required = p.default is inspect.Parameter.empty or (isinstance(p.default, FieldInfo) and p.default.is_required())
        params.append(Param(name=p.name, annotation=ann, required=required, default=p.default, description=desc))
    return params, ctx_name, var_kw


# ----- arguments -----


class _ArgsBase(BaseModel):
    """The base of every arguments model: any Python type pydantic cannot describe is refused
    when the model is built, extra keys are ignored."""

    model_config = ConfigDict(arbitrary_types_allowed=False, protected_namespaces=())


def _field(p: Param) -> Tuple[str, Any, Any, Optional[str]]:
    """(field name, annotation, default, alias) of one parameter in the arguments model."""
    ann = p.annotation
    if ann is inspect.Parameter.empty:
        # As the official SDK: an unannotated parameter is a string in the schema, any value
        # in the call.
        ann = typing.Annotated[Any, WithJsonSchema({"title": p.name, "type": "string"})]
    ann = _readable(ann)
    metadata: List[Any] = []
    if typing.get_origin(ann) is typing.Annotated:
        strings = [m for m in ann.__metadata__ if isinstance(m, str)]
        if strings:  # `Annotated[T, "text"]`: the text is the description
            kept = [m for m in ann.__metadata__ if not isinstance(m, str)]
            ann = typing.Annotated[(typing.get_args(ann)[0], *kept)] if kept else typing.get_args(ann)[0]
    explicit = isinstance(p.default, FieldInfo) and bool(p.default.description)
    if typing.get_origin(ann) is typing.Annotated and _metadata_description(ann.__metadata__):
        explicit = True
    if p.description and not explicit:
        metadata.append(Field(description=p.description))
    name, alias = p.name, None
    if hasattr(BaseModel, name):  # `json`, `copy`, `schema`, ...: shadowing warns; keep the wire name as alias
        name, alias = f"field_{name}", p.name
        metadata.append(Field(alias=alias))
    if metadata:
        ann = typing.Annotated[(ann, *metadata)]
    if isinstance(p.default, FieldInfo):
        default: Any = p.default
    elif p.default is inspect.Parameter.empty:
        default = ...
    else:
        default = p.default
    return name, ann, default, alias


# Types whose JSON value is already the Python value (no conversion, no pydantic call).
_PLAIN = {int: int, str: str, bool: bool}


class Arguments:
    """The parameters of one handler as a pydantic model: ``schema`` is its JSON Schema (a
    tool's ``inputSchema``), and calling the object validates the request's values and returns
    the keyword arguments, converted to the annotated types. A value that does not fit raises
    ``ValueError`` with :func:`validation_message`'s text (the caller picks the exception the
    client sees).

    A string given for a parameter that is not a string is parsed as JSON first when it holds
    an object or array (some clients send them so), as the official SDK does.
    """

    def __init__(self, owner: str, params: Sequence[Param], var_kw: bool = False) -> None:
        fields: Dict[str, Any] = {}
        self._names: List[Tuple[str, str]] = []  # (parameter, field)
        self._json_keys: Set[str] = set()  # request keys whose string value may be JSON
        keys: List[str] = []
        for p in params:
            name, ann, default, alias = _field(p)
            fields[name] = (ann, default)
            self._names.append((p.name, name))
            key = alias or name
            if isinstance(default, FieldInfo) and default.alias:
                key = default.alias
            elif typing.get_origin(ann) is typing.Annotated:
                for m in ann.__metadata__:
                    if isinstance(m, FieldInfo) and m.alias:
                        key = m.alias
            keys.append(key)
            if _bare(p.annotation) is not str:
                self._json_keys.add(key)
        self._keys = frozenset(keys)
        self._var_kw = var_kw
        try:
            self.model = create_model(f"{owner}Arguments", __base__=_ArgsBase, **fields)
            self.schema: Dict[str, Any] = self.model.model_json_schema()
        except Exception as e:
            raise ConfigError(_which_param(params, e)) from None
        # The common case (`a: int, b: str`, no constraints): the JSON value is the Python
        # value, and a check of each value's type is all validation can do.
        plain: Optional[Dict[str, Tuple[type, bool]]] = {}
        for p, key in zip(params, keys):
            kind = _PLAIN.get(p.annotation)
            if plain is None or kind is None or isinstance(p.default, FieldInfo) or key != p.name:
                plain = None
                continue
            plain[p.name] = (kind, p.default is inspect.Parameter.empty)
        self._plain = plain

    def __call__(self, values: Dict[str, Any]) -> Dict[str, Any]:
        plain = self._plain
        if plain is not None:
            out = self._plain_call(values, plain)
            if out is not None:
                return out
        data = values
        if self._json_keys:
            for key in self._json_keys.intersection(values):
                v = values[key]
                if isinstance(v, str):
                    try:
                        parsed = json.loads(v)
                    except (ValueError, RecursionError):
                        continue
                    if isinstance(parsed, (dict, list)):
                        if data is values:
                            data = dict(values)
                        data[key] = parsed
        try:
            m = self.model.model_validate(data)
        except ValidationError as e:
            raise ValueError(validation_message(e)) from None
        kwargs = {param: getattr(m, name) for param, name in self._names}
        if self._var_kw:
            kwargs.update({k: v for k, v in values.items() if k not in self._keys})
        return kwargs

    def _plain_call(self, values: Dict[str, Any], plain: Dict[str, Tuple[type, bool]]) -> Optional[Dict[str, Any]]:
        """The arguments when every parameter is a plain ``int``/``str``/``bool`` and every
        value already has its type; None to let pydantic decide (and explain)."""
        out: Dict[str, Any] = {}
        for name, (kind, required) in plain.items():
            if name in values:
                v = values[name]
                if type(v) is not kind:
                    return None
                out[name] = v
            elif required:
                return None
        if self._var_kw:
            out.update({k: v for k, v in values.items() if k not in plain})
        return out


def _bare(ann: Any) -> Any:
    while typing.get_origin(ann) is typing.Annotated:
        ann = typing.get_args(ann)[0]
    return ann


def _which_param(params: Sequence[Param], error: Exception) -> str:
    """A schema error's message naming the parameter whose type caused it."""
    for p in params:
        try:
            name, ann, default, _ = _field(p)
            create_model("Probe", __base__=_ArgsBase, **{name: (ann, default)}).model_json_schema()  # type: ignore[call-overload]
        except Exception as e:
            return f"parameter {p.name!r}: cannot derive a JSON Schema for {p.annotation!r}: {_first_line(e)}"
    return f"cannot derive a JSON Schema: {_first_line(error)}"


def _first_line(e: Exception) -> str:
    text = str(e).strip().splitlines()
    return text[0] if text else type(e).__name__


# ----- return values -----


def _inline_root(schema: Dict[str, Any]) -> Dict[str, Any]:
    """A schema whose root is only a ``$ref`` into its ``$defs`` (a recursive model), with
    the definition copied onto the root: an ``outputSchema`` needs an object at its root."""
    ref = schema.get("$ref")
    prefix = "#/$defs/"
    if not isinstance(ref, str) or not ref.startswith(prefix):
        return schema
    definition = schema.get("$defs", {}).get(ref[len(prefix):], {})
    rest = {k: v for k, v in schema.items() if k != "$ref"}
    return {**definition, **rest}


class Output:
    """What a tool's return annotation says about its result, as the official SDK reads it:

    - a pydantic model, dataclass, TypedDict or ``dict[str, T]`` is the structured content
      itself, its schema the ``outputSchema``;
    - any other type (``int``, ``str``, ``list[...]``, ``Optional[...]``, a union, ``None``,
      ...) is wrapped as ``{"result": value}``;
    - content blocks, ``ToolResult``, a bare ``dict``/``list``, no annotation, or a type pydantic
      cannot describe give no ``outputSchema``.

    ``structured`` forces the choice: ``False`` never structures, ``True`` refuses a return
    type that cannot be (``ConfigError``). ``InputRequired`` in a union is left out.
    """

    def __init__(self, fn: Callable[..., Any], structured: Optional[bool], plain_types: Tuple[type, ...], skip: Tuple[type, ...]) -> None:
        self.schema: Optional[Dict[str, Any]] = None
        self.wrap = False
        self._adapter: Optional[TypeAdapter[Any]] = None
        if structured is False:
            return
        name = getattr(fn, "__name__", "tool")
        hints = _type_hints(fn)
        if "return" not in hints:
            if structured:
                raise ConfigError(f"tool {name}: structured_output=True needs a return annotation")
            return
        ann = hints["return"]
        bare = _bare(ann)
        if _is_union(typing.get_origin(bare)):
            arms = tuple(a for a in typing.get_args(bare) if not (isinstance(a, type) and issubclass(a, skip)))
            if not arms:
                return
            if len(arms) != len(typing.get_args(bare)):
                ann = bare = arms[0] if len(arms) == 1 else typing.Union[arms]
        if _is_content(bare, plain_types + skip):
            if structured:
                raise ConfigError(f"tool {name}: its return type {bare!r} is content, not structured output")
            return
        try:
            self._derive(name, ann, bare)
        except Exception as e:
            self.schema, self._adapter, self.wrap = None, None, False
            if structured:
                raise ConfigError(f"tool {name}: its return type {bare!r} cannot be structured output: {_first_line(e)}") from None

    def _derive(self, name: str, ann: Any, bare: Any) -> None:
        origin = typing.get_origin(bare)
        direct = (
            _is_pydantic_model(bare)
            or _is_typeddict(bare)
            or (isinstance(bare, type) and dataclasses.is_dataclass(bare))
            or (origin is dict and typing.get_args(bare)[:1] == (str,))
        )
        if direct:
            self._adapter = TypeAdapter(_readable(ann))
        elif bare in (dict, list, tuple, set, frozenset, Any, object) or (
            origin is None
            and isinstance(bare, type)
            and bare not in (str, int, float, bool, bytes, _NONE_TYPE)
            and not issubclass(bare, enum.Enum)
        ):
            return  # a class of its own, or a container without item types: no shape to publish
        else:
            self.wrap = True
            self._adapter = TypeAdapter(create_model(f"{name}Output", result=(_readable(ann), ...)))
        self.schema = _inline_root(self._adapter.json_schema())

    def structured(self, value: Any) -> Any:
        """The structured content for a returned value (validated against the annotation);
        ``ValueError`` naming the mismatch when it does not fit."""
        assert self._adapter is not None
        if self.wrap:
            value = {"result": value}
        try:
            validated = self._adapter.validate_python(value)
        except ValidationError as e:
            raise ValueError(f"the tool returned a value that does not match its return annotation: {validation_message(e)}") from None
        if isinstance(validated, BaseModel):
            return validated.model_dump(mode="json", by_alias=True)
        return self._adapter.dump_python(validated, mode="json", by_alias=True)


def _is_content(tp: Any, content_types: Tuple[type, ...]) -> bool:
    """Whether a return annotation is content: blocks, ``bytes`` (an image or blob), or a
    list/union of them; a list of ``Any`` may hold blocks, so it counts as content too."""
    origin = typing.get_origin(tp)
    if origin is None:
        return tp is bytes or (isinstance(tp, type) and issubclass(tp, content_types))
    if origin is typing.Annotated:
        return _is_content(typing.get_args(tp)[0], content_types)
    if origin in (list, tuple, collections.abc.Sequence) and Any in typing.get_args(tp):
        return True
    if _is_union(origin) or origin in (list, tuple, collections.abc.Sequence):
        return any(_is_content(a, content_types) for a in typing.get_args(tp) if a is not Ellipsis)
    return False
