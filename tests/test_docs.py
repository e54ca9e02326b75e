"""Generated docs and completions match the code; every command explains itself."""

from __future__ import annotations

from pathlib import Path

import pytest

from ov.cli.docgen import generated_files, iter_commands

REPO = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("path, text", sorted(generated_files(REPO).items()), ids=lambda v: v.name if isinstance(v, Path) else "")
def test_generated_file_is_current(path: Path, text: str):
    assert path.exists(), f"{path.relative_to(REPO)} is missing: run `python -m ov.cli.docgen`"
    assert path.read_text(encoding="utf-8") == text, f"{path.relative_to(REPO)} is stale: run `python -m ov.cli.docgen`"


@pytest.mark.parametrize("path, command", [(" ".join(p), c) for p, c in iter_commands()], ids=lambda v: v if isinstance(v, str) else "")
def test_every_command_and_option_has_help(path, command):
    assert (command.help or "").strip(), f"`{path}` has no help text"
    for param in command.params:
        if param.expose_value:
            assert (getattr(param, "help", None) or "").strip(), f"`{path}` parameter {param.name} has no help"


def test_every_command_is_in_the_reference():
    reference = (REPO / "docs" / "commands.md").read_text(encoding="utf-8")
    for path, _command in iter_commands():
        if len(path) > 1:
            assert f"`{' '.join(path)}`" in reference


def test_completion_scripts_call_back_into_ov():
    for shell in ("bash", "zsh", "fish"):
        script = (REPO / "completions" / f"ov.{shell}").read_text(encoding="utf-8")
        assert "_OV_COMPLETE" in script
