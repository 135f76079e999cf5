"""Schema derivation from signatures and type hints, and argument conversion back into the
annotated types."""



import dataclasses
import enum
from typing import Annotated, Any, Dict, List, Literal, Optional, Set, Tuple, TypedDict, Union

import pytest

from ferrite_mcp import ConfigError, Server, schema_for

from conftest import call_tool, text_of


def tool_schema(server: Server, name: str) -> Dict[str, Any]:
    return next(t for t in server.tools() if t["name"] == name)["inputSchema"]


class Color(enum.Enum):
    RED = "red"
    GREEN = "green"


class Movie(TypedDict):
    title: str
    year: int


class PartialMovie(TypedDict, total=False):
    title: str


@dataclasses.dataclass
class Point:
    """A point in the plane."""

    x: float
    y: float = 0.0


@dataclasses.dataclass
class Tree:
    value: int
    children: List["Tree"] = dataclasses.field(default_factory=list)


def test_primitives_are_required_without_default(server: Server) -> None:
    @server.tool()
    def f(i: int, x: float, s: str, b: bool) -> str:
        """Doc."""
        return ""

    # pydantic's schema of the arguments model, titled as the official SDK titles it.
    assert tool_schema(server, "f") == {
        "type": "object",
        "title": "fArguments",
        "properties": {
            "i": {"title": "I", "type": "integer"},
            "x": {"title": "X", "type": "number"},
            "s": {"title": "S", "type": "string"},
            "b": {"title": "B", "type": "boolean"},
        },
        "required": ["i", "x", "s", "b"],
    }


def test_name_and_description_come_from_the_function(server: Server) -> None:
    @server.tool()
    def greet(name: str) -> str:
        """Say hello.

        Args:
            name: Who to greet.
        """
        return f"hello {name}"

    tool = server.tools()[0]
    assert tool["name"] == "greet"
    assert tool["description"] == "Say hello."
    assert tool["inputSchema"]["properties"]["name"] == {"title": "Name", "type": "string", "description": "Who to greet."}


def test_defaults_optional_and_annotated(server: Server) -> None:
    @server.tool()
    def f(a: Optional[int] = None, b: str = "x", c: Annotated[int, "the c"] = 3) -> str:
        return ""

    s = tool_schema(server, "f")
    assert "required" not in s
    assert s["properties"]["a"] == {"anyOf": [{"type": "integer"}, {"type": "null"}], "default": None, "title": "A"}
    assert s["properties"]["b"] == {"type": "string", "default": "x", "title": "B"}
    assert s["properties"]["c"] == {"type": "integer", "description": "the c", "default": 3, "title": "C"}


def test_lists_dicts_tuples_and_unions() -> None:
    assert schema_for(List[int]) == {"type": "array", "items": {"type": "integer"}}
    assert schema_for(Dict[str, float]) == {"type": "object", "additionalProperties": {"type": "number"}}
    assert schema_for(Tuple[int, str]) == {
        "type": "array",
        "prefixItems": [{"type": "integer"}, {"type": "string"}],
        "minItems": 2,
        "maxItems": 2,
    }
    assert schema_for(Union[int, List[str]]) == {"anyOf": [{"type": "integer"}, {"type": "array", "items": {"type": "string"}}]}
    assert schema_for(Set[str]) == {"type": "array", "items": {"type": "string"}, "uniqueItems": True}
    assert schema_for(Tuple[int, ...]) == {"type": "array", "items": {"type": "integer"}}
    assert schema_for(Optional[str]) == {"anyOf": [{"type": "string"}, {"type": "null"}]}
    assert schema_for(list) == {"type": "array", "items": {}}
    assert schema_for(dict) == {"type": "object", "additionalProperties": True}
    assert schema_for(Any) == {}


def test_literal_and_enum() -> None:
    assert schema_for(Literal["a", "b"]) == {"type": "string", "enum": ["a", "b"]}
    assert schema_for(Color) == {"type": "string", "enum": ["red", "green"], "title": "Color"}


def test_typeddict_required_keys() -> None:
    assert schema_for(Movie) == {
        "type": "object",
        "title": "Movie",
        "properties": {"title": {"title": "Title", "type": "string"}, "year": {"title": "Year", "type": "integer"}},
        "required": ["title", "year"],
    }
    assert "required" not in schema_for(PartialMovie)


def test_dataclass_fields_defaults_and_docstring() -> None:
    assert schema_for(Point) == {
        "type": "object",
        "title": "Point",
        "properties": {"x": {"title": "X", "type": "number"}, "y": {"title": "Y", "type": "number", "default": 0.0}},
        "required": ["x"],
        "description": "A point in the plane.",
    }


def test_recursive_dataclass_uses_defs() -> None:
    s = schema_for(Tree)
    assert s["$ref"] == "#/$defs/Tree"
    tree = s["$defs"]["Tree"]
    assert tree["properties"]["children"] == {"title": "Children", "type": "array", "items": {"$ref": "#/$defs/Tree"}}


def test_pydantic_model_when_installed(server: Server) -> None:
    pydantic = pytest.importorskip("pydantic")

    class User(pydantic.BaseModel):
        name: str
        age: int = pydantic.Field(description="Age in years")

    @server.tool()
    def register(user: User) -> str:
        return f"{type(user).__name__}:{user.name}:{user.age}"

    schema = tool_schema(server, "register")
    assert schema["properties"]["user"] == {"$ref": "#/$defs/User"}
    prop = schema["$defs"]["User"]
    assert prop["type"] == "object"
    assert prop["properties"]["age"]["description"] == "Age in years"
    assert prop["required"] == ["name", "age"]
    assert text_of(call_tool(server, "register", {"user": {"name": "ada", "age": 36}})) == "User:ada:36"


def test_unsupported_type_is_a_config_error(server: Server) -> None:
    class Opaque:
        pass

    with pytest.raises(ConfigError, match="parameter 'o'"):

        @server.tool()
        def f(o: Opaque) -> str:
            return ""


def test_arguments_are_converted_to_annotated_types(server: Server) -> None:
    seen: Dict[str, Any] = {}

    @server.tool()
    def f(p: Point, c: Color, x: float, pts: List[Point], t: Tuple[int, int]) -> str:
        seen.update(p=p, c=c, x=x, pts=pts, t=t)
        return "ok"

    call_tool(server, "f", {"p": {"x": 1, "y": 2}, "c": "green", "x": 3, "pts": [{"x": 5}], "t": [1, 2]})
    assert seen["p"] == Point(1, 2)
    assert seen["c"] is Color.GREEN
    assert seen["x"] == 3.0 and isinstance(seen["x"], float)
    assert seen["pts"] == [Point(5, 0.0)]
    assert seen["t"] == (1, 2)


def test_core_validates_arguments_against_the_derived_schema(server: Server) -> None:
    @server.tool()
    def f(n: int) -> str:
        return "ran"

    result = call_tool(server, "f", {"n": "not a number"})
    assert result.get("isError") is True
    assert "ran" not in text_of(result)


def test_unknown_arguments_are_not_passed_to_the_function(server: Server) -> None:
    @server.tool()
    def f(n: int) -> str:
        return str(n)

    assert text_of(call_tool(server, "f", {"n": 1, "extra": 2})) == "1"
