"""An install made by an older ov, undone and redone by this one: its receipts under their old names
(ov before a6ed0ff, `<host>-<scope>-<digest>.json`) are read and adopted as receipts of hooks."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

HOSTS = ("claude", "gemini", "opencode")
# The keys of a receipt as ov wrote it before a6ed0ff (`git show 14aeede:ov/hosts/install.py`,
# plan_install): no kind, no trust, and the events it installed.
_OLD_KEYS = ("host", "scope", "file", "created_file", "created", "command", "created_dirs", "installed_at", "updated_at")
_OLD_EVENTS = ["session-start", "prompt-submit", "stop", "pre-compact"]


@pytest.fixture
def home(monkeypatch) -> Path:
    home = Path(os.environ["HOME"])
    (home / ".claude").mkdir(parents=True)
    (home / ".claude" / "settings.json").write_text('{"theme": "dark"}\n')
    (home / ".gemini").mkdir()
    (home / ".gemini" / "settings.json").write_text('{"general": {"vimMode": true}}\n')
    (home / ".config" / "opencode").mkdir(parents=True)  # ov makes plugins/ in it
    for name in ("CLAUDE_CONFIG_DIR", "XDG_CONFIG_HOME", "CODEX_HOME"):
        monkeypatch.delenv(name, raising=False)
    return home


def _installs() -> Path:
    return Path(os.environ["OV_HOME"]) / "installs"


def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): (p.read_bytes() if p.is_file() else b"<dir>") for p in sorted(root.rglob("*"))}


def _as_an_older_ov_left_them() -> dict[str, dict]:
    """Turn this ov's receipts of hooks into the ones ov before a6ed0ff wrote for the same install:
    the old name and shape. Returns them by their old name."""
    old = {}
    for path in sorted(_installs().glob("*-hooks-*.json")):
        receipt = json.loads(path.read_text())
        shaped = {key: receipt[key] for key in _OLD_KEYS} | {"events": _OLD_EVENTS}
        name = path.name.replace("-hooks-", "-", 1)
        (_installs() / name).write_text(json.dumps(shaped, indent=2, sort_keys=True) + "\n")
        path.unlink()
        old[name] = shaped
    return old


def _install(ov, *more: str):
    result = ov("install", "hooks", *[a for h in HOSTS for a in ("--host", h)], "--yes", *more)
    assert result.exit_code == 0, result.stderr
    return result


def test_uninstall_undoes_an_older_ovs_install_whole(ov, home):
    before = _tree(home)
    _install(ov)
    assert (home / ".claude" / "settings.json.ov.bak").is_file()
    old = _as_an_older_ov_left_them()
    assert sorted(old) == sorted(n for n in os.listdir(_installs()) if n.endswith(".json")) and len(old) == 3

    dry = ov("uninstall", "hooks", *[a for h in HOSTS for a in ("--host", h)], "--dry-run")
    assert dry.exit_code == 0 and "+++ /dev/null" in dry.stdout  # the plugin ov made would go, as the run says
    assert sorted(os.listdir(_installs())) == sorted([*old, *(n for n in os.listdir(_installs()) if not n.endswith(".json"))])  # a dry run renames nothing

    result = ov("uninstall", "hooks", *[a for h in HOSTS for a in ("--host", h)])
    assert result.exit_code == 0, result.stderr
    # The backups, the plugins/ folder the old install made, and its receipts: all gone.
    assert _tree(home) == before
    assert not _installs().exists()


def test_a_reinstall_keeps_what_an_older_ovs_receipt_knew(ov, home):
    (home / ".claude" / "settings.json").unlink()
    (home / ".claude").rmdir()  # ov makes the folder and the file
    before = _tree(home)
    _install(ov)
    old = _as_an_older_ov_left_them()
    claude = next(r for n, r in old.items() if n.startswith("claude-"))
    assert claude["created_file"] and claude["created_dirs"] == [str(home / ".claude")]

    _install(ov)
    names = sorted(p.name for p in _installs().glob("*.json"))
    assert names == sorted(n.replace("-user-", "-hooks-user-", 1) for n in old)  # each adopted, none left under its old name
    adopted = json.loads((_installs() / next(n for n in names if n.startswith("claude-"))).read_text())
    assert adopted["kind"] == "hooks" and adopted["created_file"] is True
    assert adopted["created_dirs"] == [str(home / ".claude")] and adopted["installed_at"] == claude["installed_at"]
    assert ["hooks"] in adopted["created"]

    assert ov("uninstall", "hooks", *[a for h in HOSTS for a in ("--host", h)]).exit_code == 0
    assert _tree(home) == before and not _installs().exists()


def test_a_receipt_under_both_names_is_one(ov, home):
    """An adoption killed after it wrote the new name and before the old one went (or an older ov's
    install over this one's): the next run merges the two, and what either says ov made goes."""
    (home / ".claude" / "settings.json").unlink()
    (home / ".claude").rmdir()
    before = _tree(home)
    _install(ov)
    new = next(_installs().glob("claude-hooks-*.json"))
    receipt = json.loads(new.read_text())
    _as_an_older_ov_left_them()
    # The new name again, as a receipt that forgot the file and folder were ov's.
    new.write_text(json.dumps({**receipt, "created_file": False, "created_dirs": [], "created": []}))

    assert ov("uninstall", "hooks", "--host", "claude").exit_code == 0
    assert not (home / ".claude").exists()
    assert not list(_installs().glob("claude-*"))
    assert ov("uninstall", "hooks", *[a for h in HOSTS for a in ("--host", h)]).exit_code == 0
    assert _tree(home) == before and not _installs().exists()
