"""What a handler returns, as the wire shape of its result.

Tools with a structured return annotation (see :class:`~ferrite_mcp.schema.Output`): the
value, validated against the annotation, is the ``structuredContent`` (wrapped as
``{"result": value}`` for a primitive, list, union, ...), and its text (a ``str`` as is, other
values as JSON) the content.

Other tools: ``str`` is one text block; a ``dict``, dataclass, TypedDict or pydantic model is
``structuredContent`` plus the same JSON as text; ``bytes`` is an image (or a binary embedded
resource when it is not a known image format); a content block (``TextContent``, ``Image(...)``,
...) is that block; a list of blocks/strings/bytes is those blocks; ``ToolResult`` says
everything explicitly; ``None`` is an empty result; anything else JSON-able is its JSON text.
"""

from __future__ import annotations

import base64
import dataclasses
import enum
import json
import sys
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Union

from .content import (
    BlobResourceContents,
    Completion,
    Content,
    EmbeddedResource,
    ImageContent,
    Message,
    TextResourceContents,
    ToolResult,
    _sniff_image,
)

if TYPE_CHECKING:
    from .schema import Output

_BLOCK_TYPES = {"text", "image", "audio", "resource", "resource_link"}


def to_jsonable(value: Any) -> Any:
    """A plain JSON value (dict, list, str, int, float, bool, None) for ``value``."""
    if value is None or isinstance(value, (str, int, float, bool)):
        if isinstance(value, enum.Enum):
            return to_jsonable(value.value)
        return value
    if isinstance(value, dict):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [to_jsonable(v) for v in value]
    if isinstance(value, enum.Enum):
        return to_jsonable(value.value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    pydantic = sys.modules.get("pydantic")
    if pydantic is not None and isinstance(value, pydantic.BaseModel):
        return value.model_dump(mode="json")
    # Types of modules the package does not import: a value of one exists only when its
    # module is loaded.
    dt = sys.modules.get("datetime")
    if dt is not None and isinstance(value, (dt.datetime, dt.date, dt.time)):
        return value.isoformat()
    for module, name in (("uuid", "UUID"), ("pathlib", "PurePath"), ("decimal", "Decimal")):
        m = sys.modules.get(module)
        if m is not None and isinstance(value, getattr(m, name)):
            return str(value)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return base64.b64encode(bytes(value)).decode("ascii")
    raise TypeError(f"a value of type {type(value).__name__} cannot be sent as JSON")


def _is_block(value: Any) -> bool:
    if isinstance(value, (Content, str, bytes, bytearray)):
        return True
    return isinstance(value, dict) and value.get("type") in _BLOCK_TYPES


def content_block(value: Any) -> Dict[str, Any]:
    """One content block for a block-like value."""
    if isinstance(value, Content):
        return value.to_json()
    if isinstance(value, str):
        return {"type": "text", "text": value}
    if isinstance(value, (bytes, bytearray)):
        data = bytes(value)
        mime = _sniff_image(data)
        if mime:
            return ImageContent(data, mime).to_json()
        return EmbeddedResource("data:application/octet-stream", blob=data, mime_type="application/octet-stream").to_json()
    if isinstance(value, dict) and value.get("type") in _BLOCK_TYPES:
        return value
    return {"type": "text", "text": _dumps(to_jsonable(value))}


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def tool_result(value: Any, output: Optional["Output"] = None) -> Dict[str, Any]:
    """The ``CallToolResult`` for a tool's return value (``output``: what its return
    annotation says, when it gives an ``outputSchema``)."""
    if output is not None and output.schema is not None and not isinstance(value, ToolResult) and not (
        isinstance(value, Content) or (isinstance(value, (list, tuple)) and value and all(isinstance(v, Content) for v in value))
    ):
        structured = output.structured(value)
        shown = structured["result"] if output.wrap else structured
        if shown is None:
            content: List[Dict[str, Any]] = []
        else:
            content = [{"type": "text", "text": shown if isinstance(shown, str) else _dumps(shown)}]
        return {"content": content, "structuredContent": structured}
    if isinstance(value, str):
        return {"content": [{"type": "text", "text": value}]}
    if isinstance(value, ToolResult):
        return value.to_json()
    if value is None:
        return {"content": []}
    if _is_block(value):
        return {"content": [content_block(value)]}
    if isinstance(value, (list, tuple)) and value and all(_is_block(v) for v in value):
        return {"content": [content_block(v) for v in value]}
    data = to_jsonable(value)
    if isinstance(data, dict):
        return {"content": [{"type": "text", "text": _dumps(data)}], "structuredContent": data}
    return {"content": [{"type": "text", "text": data if isinstance(data, str) else _dumps(data)}]}


def resource_result(value: Any, uri: str, mime_type: Optional[str]) -> Dict[str, Any]:
    """The ``ReadResourceResult`` for a reader's return value: ``str`` is text, ``bytes`` a
    blob, resource contents objects (or a list of them) as given, other JSON-able values JSON
    text (``application/json``)."""
    items = value if isinstance(value, list) and value and all(_is_contents(v) for v in value) else [value]
    return {"contents": [_contents(v, uri, mime_type) for v in items]}


def _is_contents(v: Any) -> bool:
    return isinstance(v, (TextResourceContents, BlobResourceContents, str, bytes, bytearray))


def _contents(v: Any, uri: str, mime_type: Optional[str]) -> Dict[str, Any]:
    if isinstance(v, (TextResourceContents, BlobResourceContents)):
        return v.to_json(uri, mime_type)
    if isinstance(v, str):
        return TextResourceContents(v, uri, mime_type or "text/plain").to_json()
    if isinstance(v, (bytes, bytearray)):
        return BlobResourceContents(bytes(v), uri, mime_type or "application/octet-stream").to_json()
    return TextResourceContents(_dumps(to_jsonable(v)), uri, mime_type or "application/json").to_json()


def prompt_result(value: Any, description: Optional[str] = None) -> Dict[str, Any]:
    """The ``GetPromptResult`` for a prompt's return value: a ``str`` or a content block is one
    user message; a ``Message`` (or ``{"role", "content"}`` dict) is that message; a list
    is those messages."""
    items = value if isinstance(value, (list, tuple)) else [value]
    messages: List[Dict[str, Any]] = []
    for item in items:
        if isinstance(item, Message):
            messages.append(item.to_json())
        elif isinstance(item, dict) and "role" in item and "content" in item:
            messages.append({"role": item["role"], "content": content_block(item["content"])})
        else:
            messages.append({"role": "user", "content": content_block(item)})
    out: Dict[str, Any] = {"messages": messages}
    if description:
        out["description"] = description
    return out


def completion_result(value: Any) -> Union[List[str], Dict[str, Any]]:
    """What the core receives for a completer's return value (a list of strings, a
    ``Completion``, or ``None``): the bare values, which the core caps and counts
    (``CompleteResult::from_values``), or a ``Completion`` whose ``total``/``has_more`` were
    given (the core caps its values too)."""
    if value is None:
        return []
    if isinstance(value, Completion):
        if value.total is None and value.has_more is None:
            return [str(v) for v in value.values]
        return value.to_json()
    if isinstance(value, dict) and "completion" in value:
        return value
    return [str(v) for v in value]
