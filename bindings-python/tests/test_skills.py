"""Skills (the ``io.modelcontextprotocol/skills`` extension): ``server.add_skill`` from
``str``/``bytes`` files and ``server.add_skill_dir`` from a directory; the core serves the
manifest (digests, sizes), the files as resources and the extension. Bad skills are
``ConfigError``."""

from __future__ import annotations

import base64
import hashlib
from pathlib import Path
from typing import Any, Dict

import pytest

from conftest import modern_ok
from ferrite_mcp import ConfigError, Server

SKILL_MD = "---\nname: add-numbers\ndescription: Add two integers\n---\n\n# Add numbers\n"
EXAMPLES = "# Examples\n\n- add(a=2, b=3) returns 5\n"
BLOB = bytes([0, 159, 146, 150])
EXT = "io.modelcontextprotocol/skills"


def entry(server: Server) -> Dict[str, Any]:
    listed = modern_ok(server, "skills/list")
    assert len(listed["skills"]) == 1
    return listed["skills"][0]  # type: ignore[no-any-return]


def test_add_skill_serves_the_manifest_the_files_and_the_extension(server: Server) -> None:
    server.add_skill("skill://add-numbers", {"SKILL.md": SKILL_MD, "references/EXAMPLES.md": EXAMPLES, "bin/run": BLOB})
    e = entry(server)
    assert e["uri"] == "skill://add-numbers/SKILL.md"
    assert e["frontmatter"] == {"name": "add-numbers", "description": "Add two integers"}
    manifest = {r["uri"]: (r["size"], r["digest"]) for r in e["resources"]}
    expected = {
        "skill://add-numbers/SKILL.md": SKILL_MD.encode(),
        "skill://add-numbers/references/EXAMPLES.md": EXAMPLES.encode(),
        "skill://add-numbers/bin/run": BLOB,
    }
    assert set(manifest) == set(expected)
    for uri, data in expected.items():
        size, digest = manifest[uri]
        assert size == len(data)
        assert digest == "sha256:" + hashlib.sha256(data).hexdigest()
    md = modern_ok(server, "resources/read", {"uri": "skill://add-numbers/SKILL.md"})
    assert md["contents"][0]["text"] == SKILL_MD
    blob = modern_ok(server, "resources/read", {"uri": "skill://add-numbers/bin/run"})
    assert blob["contents"][0]["blob"] == base64.b64encode(BLOB).decode()
    caps = modern_ok(server, "server/discover")["capabilities"]
    assert caps["extensions"][EXT] == {"directoryRead": True}


def test_add_skill_dir_reads_every_file_under_the_directory(server: Server, tmp_path: Path) -> None:
    (tmp_path / "references").mkdir()
    (tmp_path / "SKILL.md").write_text(SKILL_MD)
    (tmp_path / "references" / "EXAMPLES.md").write_text(EXAMPLES)
    server.add_skill_dir("skill://add-numbers", tmp_path)
    uris = sorted(r["uri"] for r in entry(server)["resources"])
    assert uris == ["skill://add-numbers/SKILL.md", "skill://add-numbers/references/EXAMPLES.md"]
    r = modern_ok(server, "resources/directory/read", {"uri": "skill://add-numbers"})
    assert [(c["uri"], c["mimeType"]) for c in r["resources"]] == [
        ("skill://add-numbers/SKILL.md", "text/markdown"),
        ("skill://add-numbers/references", "inode/directory"),
    ]


@pytest.mark.parametrize(
    "root, files",
    [
        ("skill://add-numbers", {"README.md": "no SKILL.md"}),
        ("skill://add-numbers", {"SKILL.md": "no frontmatter"}),
        ("skill://other-name", {"SKILL.md": SKILL_MD}),
        ("skill://add-numbers/", {"SKILL.md": SKILL_MD}),
        ("skill://add-numbers", {"SKILL.md": SKILL_MD, "../escape": "x"}),
        ("skill://add-numbers", {"SKILL.md": SKILL_MD, "n": 5}),
    ],
)
def test_a_bad_skill_is_a_config_error(server: Server, root: str, files: Dict[str, Any]) -> None:
    with pytest.raises(ConfigError):
        server.add_skill(root, files)


def test_a_missing_directory_is_a_config_error(server: Server, tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="reading the skill directory"):
        server.add_skill_dir("skill://add-numbers", tmp_path / "absent")
