"""Content blocks and results a handler can return, when a plain ``str`` or ``dict`` is not
enough. Each has ``to_json()`` giving the wire shape (camelCase), which is what the core
receives.
"""

from __future__ import annotations

import base64
import dataclasses
import os
from typing import Any, Dict, Generic, List, Optional, Sequence, TypeVar, Union

__all__ = [
    "Content",
    "TextContent",
    "ImageContent",
    "AudioContent",
    "EmbeddedResource",
    "ResourceLink",
    "Image",
    "Audio",
    "ToolResult",
    "error",
    "TextResourceContents",
    "BlobResourceContents",
    "Message",
    "UserMessage",
    "AssistantMessage",
    "Completion",
    "Root",
    "SamplingResult",
    "ElicitResult",
    "RootsResult",
    "ReadResourceContents",
]

T = TypeVar("T")


def _b64(data: Union[bytes, bytearray, memoryview, str]) -> str:
    """Base64 of raw bytes; a ``str`` is taken as already encoded."""
    if isinstance(data, str):
        return data
    return base64.b64encode(bytes(data)).decode("ascii")


def _extras(out: Dict[str, Any], annotations: Optional[Dict[str, Any]], meta: Optional[Dict[str, Any]]) -> Dict[str, Any]:
    if annotations is not None:
        out["annotations"] = annotations
    if meta is not None:
        out["_meta"] = meta
    return out


class Content:
    """The base class of content blocks."""

    def to_json(self) -> Dict[str, Any]:
        raise NotImplementedError


@dataclasses.dataclass
class TextContent(Content):
    """A text block."""

    text: str
    annotations: Optional[Dict[str, Any]] = None
    meta: Optional[Dict[str, Any]] = None

    def to_json(self) -> Dict[str, Any]:
        return _extras({"type": "text", "text": self.text}, self.annotations, self.meta)


@dataclasses.dataclass
class ImageContent(Content):
    """An image block: raw ``bytes`` (encoded for you) or a base64 ``str``."""

    data: Union[bytes, str]
    mime_type: str = "image/png"
    annotations: Optional[Dict[str, Any]] = None
    meta: Optional[Dict[str, Any]] = None

    def to_json(self) -> Dict[str, Any]:
        return _extras({"type": "image", "data": _b64(self.data), "mimeType": self.mime_type}, self.annotations, self.meta)


@dataclasses.dataclass
class AudioContent(Content):
    """An audio block: raw ``bytes`` (encoded for you) or a base64 ``str``."""

    data: Union[bytes, str]
    mime_type: str = "audio/wav"
    annotations: Optional[Dict[str, Any]] = None
    meta: Optional[Dict[str, Any]] = None

    def to_json(self) -> Dict[str, Any]:
        return _extras({"type": "audio", "data": _b64(self.data), "mimeType": self.mime_type}, self.annotations, self.meta)


@dataclasses.dataclass
class TextResourceContents:
    """Text contents of a resource. ``uri`` defaults to the URI being read."""

    text: str
    uri: Optional[str] = None
    mime_type: Optional[str] = None
    meta: Optional[Dict[str, Any]] = None

    def to_json(self, default_uri: str = "", default_mime: Optional[str] = None) -> Dict[str, Any]:
        out: Dict[str, Any] = {"uri": self.uri or default_uri, "text": self.text}
        mime = self.mime_type or default_mime
        if mime:
            out["mimeType"] = mime
        if self.meta is not None:
            out["_meta"] = self.meta
        return out


@dataclasses.dataclass
class BlobResourceContents:
    """Binary contents of a resource: raw ``bytes`` or a base64 ``str``."""

    data: Union[bytes, str]
    uri: Optional[str] = None
    mime_type: Optional[str] = None
    meta: Optional[Dict[str, Any]] = None

    def to_json(self, default_uri: str = "", default_mime: Optional[str] = None) -> Dict[str, Any]:
        out: Dict[str, Any] = {"uri": self.uri or default_uri, "blob": _b64(self.data)}
        mime = self.mime_type or default_mime
        if mime:
            out["mimeType"] = mime
        if self.meta is not None:
            out["_meta"] = self.meta
        return out


@dataclasses.dataclass
class EmbeddedResource(Content):
    """An embedded resource block: ``text`` or ``blob`` (bytes or base64) contents."""

    uri: str
    text: Optional[str] = None
    blob: Optional[Union[bytes, str]] = None
    mime_type: Optional[str] = None
    annotations: Optional[Dict[str, Any]] = None
    meta: Optional[Dict[str, Any]] = None

    def to_json(self) -> Dict[str, Any]:
        if (self.text is None) == (self.blob is None):
            raise ValueError("EmbeddedResource needs exactly one of text and blob")
        if self.text is not None:
            contents = TextResourceContents(self.text, self.uri, self.mime_type).to_json()
        else:
            contents = BlobResourceContents(self.blob or b"", self.uri, self.mime_type).to_json()
        return _extras({"type": "resource", "resource": contents}, self.annotations, self.meta)


@dataclasses.dataclass
class ResourceLink(Content):
    """A link to a resource the client can read."""

    uri: str
    name: str
    title: Optional[str] = None
    description: Optional[str] = None
    mime_type: Optional[str] = None
    size: Optional[int] = None
    annotations: Optional[Dict[str, Any]] = None
    meta: Optional[Dict[str, Any]] = None

    def to_json(self) -> Dict[str, Any]:
        out: Dict[str, Any] = {"type": "resource_link", "uri": self.uri, "name": self.name}
        for key, value in (("title", self.title), ("description", self.description), ("mimeType", self.mime_type), ("size", self.size)):
            if value is not None:
                out[key] = value
        return _extras(out, self.annotations, self.meta)


def _sniff_image(data: bytes) -> Optional[str]:
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if data.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if data[:6] in (b"GIF87a", b"GIF89a"):
        return "image/gif"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return None


def _media(data: Optional[bytes], path: Optional[Union[str, "os.PathLike[str]"]], fmt: Optional[str], kind: str) -> ImageContent | AudioContent:
    if (data is None) == (path is None):
        raise ValueError(f"{kind.capitalize()} needs exactly one of data and path")
    if path is not None:
        with open(path, "rb") as f:
            data = f.read()
    assert data is not None
    if fmt:
        mime = fmt if "/" in fmt else f"{kind}/{fmt.lower()}"
    elif path is not None:
        import mimetypes  # only here: it costs import time every server would pay

        mime = mimetypes.guess_type(os.fspath(path))[0] or ""
    else:
        mime = (_sniff_image(data) if kind == "image" else None) or ""
    if kind == "image":
        return ImageContent(data, mime or "image/png")
    return AudioContent(data, mime or "audio/wav")


def Image(data: Optional[bytes] = None, *, path: Optional[Union[str, "os.PathLike[str]"]] = None, format: Optional[str] = None) -> ImageContent:  # noqa: N802 (FastMCP's name)
    """An image from bytes or a file; the MIME type comes from ``format``, the file name, or
    the bytes themselves."""
    return _media(data, path, format, "image")  # type: ignore[return-value]


def Audio(data: Optional[bytes] = None, *, path: Optional[Union[str, "os.PathLike[str]"]] = None, format: Optional[str] = None) -> AudioContent:  # noqa: N802
    """Audio from bytes or a file; the MIME type comes from ``format`` or the file name."""
    return _media(data, path, format, "audio")  # type: ignore[return-value]


@dataclasses.dataclass
class ToolResult:
    """A tool result spelled out: content blocks (or anything a tool may return for one),
    structured content, the error flag and ``_meta``."""

    content: Sequence[Any] = ()
    structured_content: Optional[Any] = None
    is_error: bool = False
    meta: Optional[Dict[str, Any]] = None

    def to_json(self) -> Dict[str, Any]:
        from .results import content_block, to_jsonable

        out: Dict[str, Any] = {"content": [content_block(c) for c in self.content]}
        if self.structured_content is not None:
            out["structuredContent"] = to_jsonable(self.structured_content)
        if self.is_error:
            out["isError"] = True
        if self.meta is not None:
            out["_meta"] = self.meta
        return out


def error(message: str) -> ToolResult:
    """A failed tool result (``isError: true``) with one text block."""
    return ToolResult([TextContent(message)], is_error=True)


@dataclasses.dataclass
class Message:
    """A prompt message: a role and one content block (a ``str`` is text)."""

    role: str
    content: Any

    def to_json(self) -> Dict[str, Any]:
        from .results import content_block

        if self.role not in ("user", "assistant"):
            raise ValueError(f"a message role is 'user' or 'assistant', not {self.role!r}")
        return {"role": self.role, "content": content_block(self.content)}


def UserMessage(content: Any) -> Message:  # noqa: N802 (a constructor)
    """A prompt message from the user."""
    return Message("user", content)


def AssistantMessage(content: Any) -> Message:  # noqa: N802
    """A prompt message from the assistant."""
    return Message("assistant", content)


@dataclasses.dataclass
class Completion:
    """Completion values with an optional total and more-flag. The core sends at most
    ``CompleteResult::MAX_VALUES`` (100) of them, and fills in ``total`` and ``hasMore`` when
    they are not given."""

    values: List[str]
    total: Optional[int] = None
    has_more: Optional[bool] = None

    def to_json(self) -> Dict[str, Any]:
        """The ``CompleteResult`` as given (the core caps the values when it sends it)."""
        out: Dict[str, Any] = {"values": [str(v) for v in self.values]}
        if self.total is not None:
            out["total"] = self.total
        if self.has_more is not None:
            out["hasMore"] = self.has_more
        return {"completion": out}


@dataclasses.dataclass
class Root:
    """A root the client exposes."""

    uri: str
    name: Optional[str] = None


@dataclasses.dataclass
class SamplingResult:
    """What the client's LLM answered to ``ctx.sample``."""

    role: str
    content: Any
    model: str
    stop_reason: Optional[str] = None

    @property
    def text(self) -> Optional[str]:
        """The text of the first text block, if any."""
        blocks = self.content if isinstance(self.content, list) else [self.content]
        for b in blocks:
            if isinstance(b, dict) and b.get("type") == "text":
                return b.get("text")
        return None


@dataclasses.dataclass
class ElicitResult(Generic[T]):
    """What the user did with an elicitation: ``accept`` (with ``content``), ``decline`` or
    ``cancel``. ``ElicitResult[Model]`` (a pydantic model, dataclass or TypedDict) types the
    content: ``ctx.input_response_as(key, ElicitResult[Model])`` decodes it into ``Model``."""

    action: str
    content: Optional[T] = None

    @property
    def accepted(self) -> bool:
        """Whether the user submitted the form."""
        return self.action == "accept"

    @property
    def data(self) -> Optional[T]:
        """The submitted content when the user accepted (the official SDK's name; with
        ``ctx.elicit(message, Model)`` a validated ``Model`` instance), else ``None``."""
        return self.content if self.accepted else None


@dataclasses.dataclass
class ReadResourceContents:
    """One item of what ``ctx.read_resource(uri)`` returns (the official SDK's name): the
    contents, ``str`` for text and ``bytes`` for a blob, with their MIME type."""

    content: Union[str, bytes]
    mime_type: Optional[str] = None
    meta: Optional[Dict[str, Any]] = None
    uri: Optional[str] = None


@dataclasses.dataclass
class RootsResult:
    """The client's answer to a roots request (``InputRequest.list_roots()``)."""

    roots: List[Root]

    @property
    def uris(self) -> List[str]:
        """The roots' URIs, in order."""
        return [r.uri for r in self.roots]
