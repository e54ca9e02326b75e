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
