"""A resource's source on disk against the copy the store holds (ov.ingest.origin), and the prompt
block's ``stale`` mark for code or docs that changed after their add."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from ov.config import Config, EmbeddingConfig
from ov.home import Home
from ov.identity import Identity
from ov.ingest.origin import drift, origin_of
from ov.ingest.resource import add_resource
from ov.retrieval.context import assemble
from ov.retrieval.find import FindOptions, find
from ov.store.store import Store
from ov.uri import VikingURI

CODE = '"""Time parsing."""\n\n\ndef parse_time(text):\n    """Seconds for a span such as 2h."""\n    return 0\n'
GUIDE = "# Guide\n\nIntro words here.\n\n" + "".join(f"## Part {n}\n\n" + f"Paragraph {n} says things. " * 60 + "\n\n" for n in range(1, 9))


@pytest.fixture
def project(ov_home: Path, tmp_path: Path) -> tuple[Store, Path]:
    store = Store(Home(ov_home), Identity(), Config(embedding=EmbeddingConfig(provider="none")))
    store.init()
    folder = tmp_path / "proj"
    folder.mkdir()
    (folder / "timespec.py").write_text(CODE)
    (folder / "guide.md").write_text(GUIDE)
    add_resource(store, str(folder))
    return store, folder


def later(path: Path, text: str | None = None) -> None:
    """Write ``text`` to ``path`` (or only touch it) with a time after the store's copy."""
    if text is not None:
        path.write_text(text)
    stamp = time.time() + 5
    os.utime(path, (stamp, stamp))


def uri(text: str) -> VikingURI:
    return VikingURI(tuple(text[len("viking://") :].split("/")))


def block_for(store: Store, query: str) -> str:
    hits = find(store, query, FindOptions(limit=5)).hits
    return assemble(store, hits, 2_000).rendered


def test_a_file_knows_the_source_it_was_added_from(project):
    store, folder = project
    origin = origin_of(store, uri("viking://resources/proj/timespec.py"))
    assert origin is not None and origin.source == str(folder / "timespec.py") and not origin.shared


def test_a_source_unchanged_or_only_touched_is_not_stale(project):
    store, folder = project
    code = uri("viking://resources/proj/timespec.py")
    assert drift(store, code, origin_of(store, code)) == ("", "")
    later(folder / "timespec.py")  # a checkout or an editor's save of the same words
    assert drift(store, code, origin_of(store, code)) == ("", "")


def test_a_changed_source_is_stale_and_the_block_says_where_to_read_it(project):
    store, folder = project
    later(folder / "timespec.py", CODE.replace("parse_time", "parse_when"))
    assert drift(store, uri("viking://resources/proj/timespec.py"), origin_of(store, uri("viking://resources/proj/timespec.py"))) == ("changed", str(folder / "timespec.py"))
    block = block_for(store, "parse_time span")
    entry = next(line for line in block.splitlines() if 'uri="viking://resources/proj/timespec.py"' in line)
    assert 'stale="changed"' in entry and f'source="{folder / "timespec.py"}"' in entry


def test_a_deleted_source_is_stale(project):
    store, folder = project
    (folder / "timespec.py").unlink()
    assert drift(store, uri("viking://resources/proj/timespec.py"), origin_of(store, uri("viking://resources/proj/timespec.py"))) == ("deleted", str(folder / "timespec.py"))


def test_a_section_is_stale_only_when_its_own_lines_changed(project):
    store, folder = project
    sections = sorted(uri(e.uri) for e in store.ls(store.uri("viking://resources/proj/guide"), recursive=True) if e.type == "file")
    assert len(sections) > 1, "the guide is split into sections"
    first, last = sections[0], sections[-1]
    assert origin_of(store, first).shared
    # The last part's words changed; the first section's lines still hold what it does.
    later(folder / "guide.md", GUIDE.replace("Paragraph 8 says", "Paragraph 8 now says"))
    assert drift(store, first, origin_of(store, first)) == ("", "")
    assert drift(store, last, origin_of(store, last))[0] == "changed"


@pytest.mark.parametrize("separator", ["\u2028", "\x0c", "\x85"])
def test_a_section_numbers_its_lines_as_the_file_does(project, tmp_path, separator):
    """Line numbers end at "\\n" alone (ov.lines): a line separator pasted from the web in the first
    part shifted every later section's lines by one, and a touched guide read as changed."""
    store, _folder = project
    folder = tmp_path / "pasted"
    folder.mkdir()
    guide = GUIDE.replace("Intro words here.", f"Intro words{separator}pasted here.")
    (folder / "guide.md").write_text(guide)
    add_resource(store, str(folder))
    later(folder / "guide.md")
    sections = [uri(e.uri) for e in store.ls(store.uri("viking://resources/pasted/guide"), recursive=True) if e.type == "file"]
    assert len(sections) > 1
    assert [drift(store, section, origin_of(store, section)) for section in sections] == [("", "")] * len(sections)


def test_an_unchanged_file_carries_no_stale_mark(project):
    store, _folder = project
    assert "stale=" not in block_for(store, "parse_time span")


def test_a_manifest_edited_into_another_shape_is_still_read(project):
    store, folder = project
    manifest = store.path(store.uri("viking://resources/proj")) / ".sources.json"
    manifest.write_text(json.dumps(json.loads(manifest.read_text())))  # one line, as a hand edit may leave it
    section = next(e.uri for e in store.ls(store.uri("viking://resources/proj/guide"), recursive=True) if e.type == "file")
    code, guide = origin_of(store, uri("viking://resources/proj/timespec.py")), origin_of(store, uri(section))
    assert code is not None and code.source == str(folder / "timespec.py") and not code.shared
    assert guide is not None and guide.shared and guide.lines


def test_a_manifest_changed_on_disk_is_read_again(project):
    # The manifest's text is kept between look-ups (a block asks once per candidate); a later add
    # rewrites it, and what it says then is what counts.
    store, folder = project
    assert origin_of(store, uri("viking://resources/proj/timespec.py")).source == str(folder / "timespec.py")
    manifest = store.path(store.uri("viking://resources/proj")) / ".sources.json"
    data = json.loads(manifest.read_text())
    data["files"]["timespec.py"]["uri"] = "/elsewhere/timespec.py"
    manifest.write_text(json.dumps(data, indent=2, sort_keys=True))
    assert origin_of(store, uri("viking://resources/proj/timespec.py")).source == "/elsewhere/timespec.py"


def _entry_attrs(block: str, hit_uri: str) -> dict[str, str]:
    import re

    line = next(line for line in block.splitlines() if f'uri="{hit_uri}"' in line)
    return dict(re.findall(r'(\w+)="([^"]*)"', line))


CLOCK = (
    '"""A clock for the tests."""\n\n\nclass Clock:\n    """Time that moves only when told."""\n\n'
    + "".join(f"    def step_{n}(self):\n        self.now = self.now + {n}  # moves the hand {n} ticks\n        return self.now\n\n" for n in range(20))
    + "    def wind(self, turns):\n        # Winding the spring sets the hour hand back to noon.\n        self.now = 12 * turns\n        return self.now\n"
)


def test_a_result_carries_what_its_block_entry_says_of_its_lines(project):
    # A review: `ov find --json`, `ov search --json` and the MCP tools showed a result's URI and
    # lines, but not the definition they are in, a section's file and lines in the project, or that
    # the source changed since its add; only the block said so.
    from ov.retrieval.search import SearchOptions, search

    store, folder = project
    (folder / "clock.py").write_text(CLOCK)
    add_resource(store, str(folder))
    later(folder / "clock.py", CLOCK.replace("noon", "midnight"))
    for query in ("winding the spring sets the hour hand", "Paragraph 3 says things"):
        hits = find(store, query, FindOptions(limit=3)).hits
        listed = search(store, query, SearchOptions(mode="list", limit=3, planner=False)).hits
        # the least budget that shows its matched lines (more would show its section or file)
        block = next(b for b in (assemble(store, hits[:1], budget) for budget in range(50, 1_000, 10)) if b.entries and b.entries[0].tier != "uri")
        hit, entry = hits[0].to_dict(), _entry_attrs(block.rendered, hits[0].uri)
        assert entry["tier"] == "abstract" and entry["lines"] == f"{hit['lines'][0]}-{hit['lines'][1]}", entry
        said = {name: entry[name] for name in ("in", "source", "source_lines", "stale") if name in entry}
        assert said, entry
        assert said == {name: "-".join(map(str, hit[name])) if name == "source_lines" else hit[name] for name in ("in", "source", "source_lines", "stale") if name in hit}
        assert listed[0].to_dict() == {**hit, "score": listed[0].to_dict()["score"]}
    code = find(store, "winding the spring sets the hour hand", FindOptions(limit=1)).hits[0]
    assert (code.within, code.stale, code.source) == ("Clock", "changed", str(folder / "clock.py"))  # its lines start at `def wind`
    assert code.where.endswith(f"  (in Clock; source {folder / 'clock.py'}; changed)")  # ov find's and the MCP find's line
    section = find(store, "Paragraph 3 says things", FindOptions(limit=1)).hits[0]
    assert section.source == "guide.md" and section.source_lines and section.source_lines[0] > section.start_line and not section.stale
