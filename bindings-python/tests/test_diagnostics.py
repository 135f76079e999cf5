"""The core's diagnostics through Python's logging (issue 16): records under the ``ferrite.*``
loggers from WARNING up by default, the level settable, off, and a bad level refused."""

from __future__ import annotations

import logging
from typing import Iterator

import pytest

from ferrite_mcp import ConfigError, Server, set_diagnostics

from conftest import rpc

INVALID = "the handler's result is not valid: a value of type object cannot be sent as JSON"


@pytest.fixture
def bad_server() -> Iterator[Server]:
    server = Server("diag")

    @server.tool()
    def weird() -> object:
        return object()

    yield server
    server.close()
    set_diagnostics("warning")  # the package's default, for the tests after these


def records(caplog: pytest.LogCaptureFixture) -> list[tuple[str, int, str]]:
    return [(r.name, r.levelno, r.getMessage()) for r in caplog.records if r.name.startswith("ferrite.")]


def test_by_default_an_invalid_result_is_an_error_on_the_ferrite_handler_logger(
    bad_server: Server, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    assert rpc(bad_server, "tools/call", {"name": "weird", "arguments": {}})["error"]["code"] == -32603
    assert records(caplog) == [("ferrite.handler", logging.ERROR, INVALID)]


def test_off_stops_the_records_and_a_level_brings_them_back(bad_server: Server, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    set_diagnostics("off")
    rpc(bad_server, "tools/call", {"name": "weird", "arguments": {}})
    assert records(caplog) == []
    set_diagnostics("error")
    rpc(bad_server, "tools/call", {"name": "weird", "arguments": {}})
    assert records(caplog) == [("ferrite.handler", logging.ERROR, INVALID)]


def test_an_unknown_level_is_a_config_error(bad_server: Server) -> None:
    with pytest.raises(ConfigError) as e:
        set_diagnostics("loud")
    assert str(e.value) == 'invalid diagnostics level "loud": error, warning, info, debug or trace'
