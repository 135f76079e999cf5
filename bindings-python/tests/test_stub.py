"""The checked-in stub ``_ferrite.pyi`` describes exactly what the compiled module exports:
the same classes and module names, the same public members, and the same parameter names."""

from __future__ import annotations

import ast
import inspect
import sys
from pathlib import Path
from typing import Dict, List, Set

import ferrite_mcp
from ferrite_mcp import _ferrite

STUB = Path(__file__).resolve().parents[1] / "python" / "ferrite_mcp" / "_ferrite.pyi"


def stub_tree() -> ast.Module:
    return ast.parse(STUB.read_text())


def public(names: Set[str]) -> Set[str]:
    return {n for n in names if not n.startswith("__")}


def stub_classes() -> Dict[str, Dict[str, List[str]]]:
    out: Dict[str, Dict[str, List[str]]] = {}
    for node in stub_tree().body:
        if isinstance(node, ast.ClassDef):
            members: Dict[str, List[str]] = {}
            for item in node.body:
                if isinstance(item, ast.FunctionDef):
                    a = item.args
                    names = [x.arg for x in a.posonlyargs + a.args + a.kwonlyargs]
                    members[item.name] = [n for n in names if n not in ("self", "cls")]
            out[node.name] = members
    return out


def stub_functions() -> Dict[str, List[str]]:
    """The module-level functions of the stub, with their parameter names."""
    out: Dict[str, List[str]] = {}
    for node in stub_tree().body:
        if isinstance(node, ast.FunctionDef):
            a = node.args
            out[node.name] = [x.arg for x in a.posonlyargs + a.args + a.kwonlyargs]
    return out


def test_module_level_names_match() -> None:
    stub_names = set()
    for node in stub_tree().body:
        if isinstance(node, (ast.ClassDef, ast.FunctionDef)):
            stub_names.add(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            stub_names.add(node.target.id)
    stub_names = {n for n in stub_names if not n.startswith("_")}
    module_names = {n for n in dir(_ferrite) if not n.startswith("_")}
    assert stub_names == module_names


def test_class_members_match() -> None:
    for cls_name, members in stub_classes().items():
        cls = getattr(_ferrite, cls_name)
        runtime = public(set(vars(cls))) - {"__new__"}
        stub = public(set(members)) - {"__new__"}
        assert stub == runtime, f"{cls_name}: stub-only {stub - runtime}, module-only {runtime - stub}"


def test_parameter_names_match() -> None:
    for cls_name, members in stub_classes().items():
        cls = getattr(_ferrite, cls_name)
        for name, params in members.items():
            attr = inspect.getattr_static(cls, name)
            if isinstance(attr, property) or type(attr).__name__ == "getset_descriptor":
                continue
            if name == "__new__" and sys.version_info < (3, 10):
                continue  # abi3 classes carry no constructor signature before Python 3.10
            target = cls if name == "__new__" else getattr(cls, name)
            text_sig = getattr(target, "__text_signature__", None)
            assert text_sig, f"{cls_name}.{name} has no text signature"
            sig = inspect.signature(target)
            runtime = [p for p in sig.parameters if p not in ("self", "cls", "$self", "$cls", "type")]
            assert runtime == params, f"{cls_name}.{name}: module {runtime} vs stub {params}"


def test_function_parameter_names_match() -> None:
    functions = stub_functions()
    assert functions, "the stub declares the module's functions"
    for name, params in functions.items():
        fn = getattr(_ferrite, name)
        assert fn.__text_signature__, f"{name} has no text signature"
        assert list(inspect.signature(fn).parameters) == params, name


def test_package_is_typed() -> None:
    assert (Path(ferrite_mcp.__file__).parent / "py.typed").exists()
    assert (Path(ferrite_mcp.__file__).parent / "_ferrite.pyi").exists()


def test_extension_is_abi3() -> None:
    assert ".abi3." in Path(_ferrite.__file__).name
