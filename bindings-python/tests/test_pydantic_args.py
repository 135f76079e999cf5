"""Schemas and argument conversion through pydantic v2, as the official SDK does: ``Field``
and ``Annotated`` constraints, descriptions, defaults and aliases in the input schema; the
request's values validated and converted into the annotated types before the handler runs;
JSON-encoded strings for object/array parameters parsed first; return values as structured
output (``{"result": ...}`` for a non-object)."""

from __future__ import annotations

import dataclasses
import datetime
import enum
import uuid
from decimal import Decimal
from pathlib import Path
from typing import Annotated, Any, Dict, List, Literal, Optional, TypedDict, Union

import pytest
from pydantic import BaseModel, Field

from ferrite_mcp import ConfigError, Server, schema_for

from conftest import call_tool, rpc, text_of


def tool(server: Server, name: str) -> Dict[str, Any]:
    return next(t for t in server.tools() if t["name"] == name)


class Color(enum.Enum):
    RED = "red"
    GREEN = "green"


class Address(BaseModel):
    street: str
    zip_code: str = Field(alias="zipCode", pattern=r"^\d{5}$")


@dataclasses.dataclass
class Point:
    x: float
    y: float = 0.0


class Movie(TypedDict):
    title: str
    year: int


def test_field_and_annotated_constraints_descriptions_defaults_and_aliases(server: Server) -> None:
    @server.tool()
    def f(
        a: int = Field(description="first", ge=0, le=10),
        b: Annotated[str, Field(min_length=2, description="second")] = "xy",
        c: Annotated[float, Field(gt=0)] = 1.5,
        d: List[int] = Field(default_factory=list, max_length=3),
        e: str = Field("dflt", alias="eAlias"),
    ) -> str:
        return f"{a}|{b}|{c}|{d}|{e}"

    props = tool(server, "f")["inputSchema"]["properties"]
    assert props["a"] == {"description": "first", "maximum": 10, "minimum": 0, "title": "A", "type": "integer"}
    assert props["b"] == {"default": "xy", "description": "second", "minLength": 2, "title": "B", "type": "string"}
    assert props["c"] == {"default": 1.5, "exclusiveMinimum": 0, "title": "C", "type": "number"}
    assert props["d"] == {"items": {"type": "integer"}, "maxItems": 3, "title": "D", "type": "array"}
    assert props["eAlias"] == {"default": "dflt", "title": "Ealias", "type": "string"}
    assert tool(server, "f")["inputSchema"]["required"] == ["a"]
    assert text_of(call_tool(server, "f", {"a": 3, "eAlias": "E"})) == "3|xy|1.5|[]|E"


def test_values_are_converted_into_the_annotated_types(server: Server) -> None:
    seen: Dict[str, Any] = {}

    @server.tool()
    def f(
        when: datetime.datetime,
        day: datetime.date,
        id: uuid.UUID,  # noqa: A002
        path: Path,
        amount: Decimal,
        color: Color,
        mode: Literal["fast", "slow"],
        either: Union[int, str],
        address: Address,
        point: Point,
        movie: Movie,
        maybe: Optional[int] = None,
    ) -> str:
        seen.update(locals())
        return "ok"

    args = {
        "when": "2026-11-23T10:00:00Z",
        "day": "2026-11-23",
        "id": "12345678-1234-5678-1234-567812345678",
        "path": "/tmp/x",
        "amount": "1.10",
        "color": "green",
        "mode": "slow",
        "either": 7,
        "address": {"street": "Main", "zipCode": "12345"},
        "point": {"x": 1},
        "movie": {"title": "Alien", "year": 1979},
    }
    assert text_of(call_tool(server, "f", args)) == "ok"
    assert seen["when"] == datetime.datetime(2026, 11, 23, 10, tzinfo=datetime.timezone.utc)
    assert seen["day"] == datetime.date(2026, 11, 23)
    assert seen["id"] == uuid.UUID("12345678-1234-5678-1234-567812345678")
    assert seen["path"] == Path("/tmp/x")
    assert seen["amount"] == Decimal("1.10")
    assert seen["color"] is Color.GREEN
    assert seen["mode"] == "slow" and seen["either"] == 7 and seen["maybe"] is None
    assert seen["address"] == Address(street="Main", zipCode="12345")
    assert seen["point"] == Point(1.0, 0.0)
    assert seen["movie"] == {"title": "Alien", "year": 1979}
    props = tool(server, "f")["inputSchema"]["properties"]
    assert props["when"] == {"format": "date-time", "title": "When", "type": "string"}
    assert props["id"] == {"format": "uuid", "title": "Id", "type": "string"}
    assert props["path"] == {"format": "path", "title": "Path", "type": "string"}
    assert props["color"] == {"$ref": "#/$defs/Color"}


def test_a_validation_failure_is_a_tool_error_naming_the_field(server: Server) -> None:
    @server.tool()
    def f(when: datetime.date, address: Address) -> str:
        return "ok"

    # The core's JSON Schema check first (input validation is on by default) ...
    bad = call_tool(server, "f", {"when": "2026-11-23", "address": {"street": "Main", "zipCode": "1"}})
    assert bad["isError"] is True
    assert text_of(bad) == r'Invalid arguments for tool f: /address/zipCode: "1" does not match "^\d{5}$"'
    # ... then pydantic's conversion, which knows what a date is.
    bad = call_tool(server, "f", {"when": "not a date", "address": {"street": "Main", "zipCode": "12345"}})
    assert bad["isError"] is True
    assert text_of(bad) == (
        "Invalid arguments for tool f: when: Input should be a valid date or datetime, invalid character in year"
    )


def test_pydantic_alone_reports_every_failing_field_when_the_core_does_not_check(server: Server) -> None:
    server.disable_input_validation()

    @server.tool()
    def f(a: int = Field(le=3), b: str = Field(min_length=2)) -> str:
        return "ok"

    bad = call_tool(server, "f", {"a": 9, "b": "x"})
    assert bad["isError"] is True
    assert text_of(bad) == (
        "Invalid arguments for tool f: a: Input should be less than or equal to 3; "
        "b: String should have at least 2 characters"
    )


def test_json_encoded_strings_for_object_and_array_parameters_are_parsed(server: Server) -> None:
    server.disable_input_validation()  # the core would refuse a string where the schema says object

    @server.tool()
    def f(items: List[int], address: Address, note: str) -> str:
        return f"{sum(items)} {address.street} {note}"

    args = {"items": "[1, 2, 3]", "address": '{"street": "Main", "zipCode": "12345"}', "note": "[not parsed]"}
    assert text_of(call_tool(server, "f", args)) == "6 Main [not parsed]"


def test_a_primitive_or_list_return_is_wrapped_as_result(server: Server) -> None:
    @server.tool()
    def count() -> int:
        return 3

    @server.tool()
    def names() -> List[str]:
        return ["a", "b"]

    @server.tool()
    def maybe() -> Optional[str]:
        return None

    assert tool(server, "count")["outputSchema"] == {
        "properties": {"result": {"title": "Result", "type": "integer"}},
        "required": ["result"],
        "title": "countOutput",
        "type": "object",
    }
    assert call_tool(server, "count") == {"content": [{"type": "text", "text": "3"}], "structuredContent": {"result": 3}}
    assert call_tool(server, "names") == {"content": [{"type": "text", "text": '["a","b"]'}], "structuredContent": {"result": ["a", "b"]}}
    assert call_tool(server, "maybe") == {"content": [], "structuredContent": {"result": None}}


def test_a_model_dataclass_or_typeddict_return_is_the_structured_content(server: Server) -> None:
    @server.tool()
    def where() -> Address:
        return Address(street="Main", zipCode="12345")

    @server.tool()
    def point() -> Point:
        return Point(1, 2)

    @server.tool()
    def movie() -> Movie:
        return {"title": "Alien", "year": 1979}

    assert tool(server, "where")["outputSchema"] == Address.model_json_schema(by_alias=True)
    assert call_tool(server, "where")["structuredContent"] == {"street": "Main", "zipCode": "12345"}
    assert call_tool(server, "point")["structuredContent"] == {"x": 1.0, "y": 2.0}
    assert call_tool(server, "movie")["structuredContent"] == {"title": "Alien", "year": 1979}


def test_a_return_value_that_does_not_match_its_annotation_is_an_invalid_result(server: Server) -> None:
    # A server bug, as structuredContent that violates a Rust tool's outputSchema: -32603.
    @server.tool()
    def liar() -> int:
        return "three"  # type: ignore[return-value]

    err = rpc(server, "tools/call", {"name": "liar", "arguments": {}})["error"]
    assert err == {
        "code": -32603,
        "message": "the handler's result is not valid: "
        "the tool returned a value that does not match its return annotation: "
        "result: Input should be a valid integer, unable to parse string as an integer",
    }


def test_structured_output_false_and_true(server: Server) -> None:
    @server.tool(structured_output=False)
    def plain() -> int:
        return 1

    assert "outputSchema" not in tool(server, "plain")
    assert call_tool(server, "plain") == {"content": [{"type": "text", "text": "1"}]}
    with pytest.raises(ConfigError, match="tool untyped: structured_output=True needs a return annotation"):

        @server.tool(structured_output=True)
        def untyped():  # type: ignore[no-untyped-def]
            return 1


class NotPydantic:
    pass


def test_a_parameter_type_pydantic_cannot_describe_is_a_config_error_naming_it(server: Server) -> None:
    with pytest.raises(ConfigError, match=r"^parameter 'thing': cannot derive a JSON Schema for <class '.*NotPydantic'>"):

        @server.tool()
        def f(a: int, thing: NotPydantic) -> str:
            return ""


def test_schema_for_a_type_pydantic_cannot_describe_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match=r"^cannot derive a JSON Schema for the type <class '.*NotPydantic'>"):
        schema_for(NotPydantic)


def test_an_unknown_argument_is_ignored_as_in_the_official_sdk(server: Server) -> None:
    @server.tool()
    def f(a: int) -> int:
        return a

    assert rpc(server, "tools/call", {"name": "f", "arguments": {"a": 1, "extra": 2}})["result"]["structuredContent"] == {"result": 1}
