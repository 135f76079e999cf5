"""A small MCP server written with Python's ctypes against libferrite (no PyO3, no build step).

It shows that the C ABI serves any runtime that can call C: a slice of the everything surface
(examples/SURFACE.md) - the tools `add` and `echo`, the resource `test://static-text` and the
prompt `test_prompt_with_arguments` - served over stdio.

    cargo build --release -p ferrite-ffi
    python3 examples/ctypes/server.py            # serves stdio (no arguments; --help: usage)

The library is found at $FERRITE_LIB, else target/release/libferrite.so (then target/debug)
under $CARGO_TARGET_DIR or the repository root.

Threads: ctypes callbacks run on Ferrite's worker threads; ctypes takes the GIL for each
call and CDLL releases it while Python waits in `ferrite_server_serve_stdio`, so nothing
here blocks the library.
"""

import ctypes as C
import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def find_library() -> str:
    if os.environ.get("FERRITE_LIB"):
        return os.environ["FERRITE_LIB"]
    target = Path(os.environ.get("CARGO_TARGET_DIR") or ROOT / "target")
    for profile in ("release", "debug"):
        candidate = target / profile / "libferrite.so"
        if candidate.exists():
            return str(candidate)
    sys.exit(f"server.py: libferrite.so not found under {target}; build it or set FERRITE_LIB")


lib = C.CDLL(find_library())

OK, PENDING = 0, 1
MODE_DEFAULT = 2  # FERRITE_SERVER_MODE_DEFAULT: the core's defaults (stateful)


class Str(C.Structure):
    """ferrite_str: a borrowed UTF-8 slice."""

    _fields_ = [("ptr", C.c_void_p), ("len", C.c_size_t)]

    def text(self) -> str:
        return C.string_at(self.ptr, self.len).decode("utf-8") if self.len else ""


Server = C.c_void_p
Request = C.c_void_p
TOOL_CALLBACK = C.CFUNCTYPE(C.c_uint32, C.c_void_p, Request)
RESOURCE_CALLBACK = C.CFUNCTYPE(C.c_uint32, C.c_void_p, Request, Str, Str)
PROMPT_CALLBACK = C.CFUNCTYPE(C.c_uint32, C.c_void_p, Request)
FINALIZER = C.CFUNCTYPE(None, C.c_void_p)


def declare(name, restype, *argtypes):
    fn = getattr(lib, name)
    fn.restype, fn.argtypes = restype, list(argtypes)
    return fn


u32, size, cstr = C.c_uint32, C.c_size_t, C.c_char_p
abi_version = declare("ferrite_abi_version", u32)
result_message = declare("ferrite_result_message", cstr, u32)
last_error = declare("ferrite_last_error", cstr)
server_new = declare("ferrite_server_new", u32, cstr, size, u32, cstr, size, C.POINTER(Server))
add_tool = declare("ferrite_server_add_tool", u32, Server, cstr, size, TOOL_CALLBACK, C.c_void_p, FINALIZER)
add_resource = declare("ferrite_server_add_resource", u32, Server, cstr, size, RESOURCE_CALLBACK, C.c_void_p, FINALIZER)
add_prompt = declare("ferrite_server_add_prompt", u32, Server, cstr, size, PROMPT_CALLBACK, C.c_void_p, FINALIZER)
serve_stdio = declare("ferrite_server_serve_stdio", u32, Server)
server_free = declare("ferrite_server_free", None, Server)
request_complete = declare("ferrite_request_complete", u32, Request, cstr, size)
request_fail = declare("ferrite_request_fail", u32, Request, cstr, size)
request_arguments = declare("ferrite_request_arguments", u32, Request, C.POINTER(Str))


class FerriteError(Exception):
    def __init__(self, code: int):
        super().__init__(f"{result_message(code).decode()}: {last_error().decode()}")
        self.code = code


def check(code: int) -> None:
    if code != OK:
        raise FerriteError(code)


def arguments(request) -> dict:
    """The arguments of a tool call or prompt, parsed."""
    out = Str()
    check(request_arguments(request, C.byref(out)))
    return json.loads(out.text())


def complete(request, result) -> int:
    data = json.dumps(result).encode()
    return request_complete(request, data, len(data))


def fail(request, message: str) -> int:
    data = message.encode()
    return request_fail(request, data, len(data))


# Callbacks must outlive the server: keep them referenced here.
_keep = []
NO_FINALIZER = FINALIZER()


def tool(server, descriptor: dict):
    """Register a synchronous tool: the decorated function takes the arguments dict and
    returns a CallToolResult dict; an exception becomes an isError result."""

    def register(fn):
        def callback(_user_data, request):
            try:
                return complete(request, fn(arguments(request)))
            except Exception as e:  # a Python failure is a tool error, never a crash
                return fail(request, f"{type(e).__name__}: {e}")

        cb = TOOL_CALLBACK(callback)
        _keep.append(cb)
        data = json.dumps(descriptor).encode()
        check(add_tool(server, data, len(data), cb, None, NO_FINALIZER))
        return fn

    return register


USAGE = "usage: server.py [--help]\n  serves stdio; takes no arguments (the library: $FERRITE_LIB, else under $CARGO_TARGET_DIR)"


def main() -> None:
    # Like the everything servers: --help prints the usage on stdout; any other argument is an
    # error that prints it on stderr, status 2.
    if sys.argv[1:] in (["--help"], ["-h"]):
        print(USAGE)
        return
    if sys.argv[1:]:
        print(f"server.py: unknown argument {sys.argv[1]!r}\n{USAGE}", file=sys.stderr)
        sys.exit(2)
    if abi_version() != 1:
        sys.exit(f"server.py: libferrite ABI {abi_version()} is not 1")
    server = Server()
    info = json.dumps({"name": "ferrite-ctypes", "version": "0.1.0"}).encode()
    check(server_new(info, len(info), MODE_DEFAULT, None, 0, C.byref(server)))

    @tool(server, {
        "name": "add",
        "description": "Add two integers",
        "inputSchema": {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
                        "required": ["a", "b"]},
    })
    def _add(args):
        total = args["a"] + args["b"]
        return {"content": [{"type": "text", "text": str(total)}], "structuredContent": {"sum": total}}

    @tool(server, {
        "name": "echo",
        "description": "Echo the text back",
        "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
    })
    def _echo(args):
        return {"content": [{"type": "text", "text": args["text"]}]}

    def read_static_text(_user_data, request, uri, _variables):
        text = "This is the content of the static text resource."
        return complete(request, {"contents": [{"uri": uri.text(), "mimeType": "text/plain", "text": text}]})

    reader = RESOURCE_CALLBACK(read_static_text)
    _keep.append(reader)
    resource = json.dumps({"uri": "test://static-text", "name": "static-text", "mimeType": "text/plain"}).encode()
    check(add_resource(server, resource, len(resource), reader, None, NO_FINALIZER))

    def get_prompt(_user_data, request):
        args = arguments(request)
        text = f"Prompt with arguments: arg1='{args.get('arg1', '')}', arg2='{args.get('arg2', '')}'"
        return complete(request, {"messages": [{"role": "user", "content": {"type": "text", "text": text}}]})

    prompt_cb = PROMPT_CALLBACK(get_prompt)
    _keep.append(prompt_cb)
    prompt = json.dumps({
        "name": "test_prompt_with_arguments",
        "description": "A prompt with two arguments",
        "arguments": [{"name": "arg1", "required": True}, {"name": "arg2", "required": True}],
    }).encode()
    check(add_prompt(server, prompt, len(prompt), prompt_cb, None, NO_FINALIZER))

    try:
        check(serve_stdio(server))
    finally:
        server_free(server)


if __name__ == "__main__":
    main()
