"""Two machines' versions of one memory file merged line by line and key by key (a pull's merge)."""

from __future__ import annotations

from ov.sessions.memory.files import parse_memory, render_memory
from ov.sessions.memory.sync import merge_versions


def memory(lines: list[str], updated: str, *, created: str = "2026-01-01T00:00:00Z", version: int = 2, sources=("ov remember",), kind="profile") -> str:
    meta = {"memory_type": kind, "created_at": created, "updated_at": updated, "version": version, "sources": list(sources)}
    return render_memory("\n".join(lines), meta)


BASE = memory(["- Editor: Neovim", "- Works at: Acme"], "2026-01-01T00:00:00Z")


def test_every_key_of_both_sides_is_kept():
    ours = memory(["- Editor: Neovim", "- Works at: Acme", "- Favourite language: Rust"], "2026-01-02T00:00:00Z")
    theirs = memory(["- Editor: Neovim", "- Works at: Acme", "- Shell: zsh"], "2026-01-03T00:00:00Z", sources=("viking://user/default/sessions/s1",))
    text, meta = parse_memory(merge_versions(BASE, ours, theirs))
    assert text.splitlines() == ["- Editor: Neovim", "- Works at: Acme", "- Favourite language: Rust", "- Shell: zsh"]
    assert meta["updated_at"] == "2026-01-03T00:00:00Z" and meta["created_at"] == "2026-01-01T00:00:00Z"
    assert meta["sources"] == ["ov remember", "viking://user/default/sessions/s1"]


def test_a_key_changed_on_one_side_takes_that_change_even_when_the_other_side_is_newer():
    ours = memory(["- Editor: Neovim", "- Works at: Acme", "- Timezone: CET"], "2026-01-05T00:00:00Z")  # newer, Editor untouched
    theirs = memory(["- Editor: Helix", "- Works at: Acme"], "2026-01-02T00:00:00Z")
    text, _ = parse_memory(merge_versions(BASE, ours, theirs))
    assert "- Editor: Helix" in text and "Neovim" not in text and "- Timezone: CET" in text


def test_a_key_changed_on_both_sides_takes_the_newer():
    ours = memory(["- Editor: Emacs", "- Works at: Acme"], "2026-01-02T00:00:00Z")
    theirs = memory(["- Editor: Helix", "- Works at: Acme"], "2026-01-04T00:00:00Z")
    assert "- Editor: Helix" in merge_versions(BASE, ours, theirs)
    assert "- Editor: Emacs" in merge_versions(BASE, theirs.replace("2026-01-04", "2026-01-01"), ours)


def test_a_line_removed_on_one_side_goes_and_an_unkeyed_line_is_kept_once():
    ours = memory(["- Editor: Neovim", "- Likes short answers"], "2026-01-02T00:00:00Z")  # Works at removed
    theirs = memory(["- Editor: Neovim", "- Works at: Acme", "- likes short answers."], "2026-01-03T00:00:00Z")
    text, _ = parse_memory(merge_versions(BASE, ours, theirs))
    assert text.splitlines() == ["- Editor: Neovim", "- Likes short answers"]


def test_the_same_fact_differing_only_in_updated_at_merges_to_the_newer_trailer():
    ours = memory(["- Shell: zsh"], "2026-01-02T00:00:00Z", version=3)
    theirs = memory(["- Shell: zsh"], "2026-01-03T00:00:00Z", version=4)
    text, meta = parse_memory(merge_versions(None, ours, theirs))
    assert text == "- Shell: zsh" and meta["updated_at"] == "2026-01-03T00:00:00Z" and meta["version"] == 4


def test_what_the_rules_cannot_decide_is_left_to_the_caller():
    ours = memory(["- Shell: zsh"], "2026-01-02T00:00:00Z")
    assert merge_versions(None, ours, "- Shell: bash\n") is None  # no trailer: not a memory file ov wrote
    assert merge_versions(None, ours, memory(["- Shell: zsh"], "2026-01-03T00:00:00Z", kind="preferences")) is None
    assert merge_versions(None, ours, "x\n<!-- MEMORY_FIELDS\n{broken\n-->\n") is None
