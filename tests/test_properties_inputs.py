"""Property-based tests of everything a user or a file hands to ov: URIs, ids, config files, packs.

The property is the same everywhere: any input is either accepted (and then well-formed), or
refused with an :class:`~ov.errors.OvError` that carries an exit code; nothing else may escape,
and a refused pack changes nothing. Each test keeps ``max_examples`` small, so the file runs in
seconds; hypothesis's example database is off, so a run writes nothing outside its temp dirs.
"""

from __future__ import annotations

import functools
import hashlib
import json
import zipfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st

from ov.config import Config, validate_config_text
from ov.errors import InvalidId, InvalidURI, OvError
from ov.home import Home
from ov.identity import Identity, validate_id
from ov.names import reserved_reason
from ov.ovpack import format as pack_format
from ov.ovpack import transfer as ovpack
from ov.store.store import Store
from ov.uri import MAX_PATH_BYTES, SCHEME, USER_CONTENT_NAMES, VikingURI, from_path, is_valid_segment, nfc, parse
from tests.conftest import git_state

QUICK = settings(max_examples=150, deadline=None, database=None)
# The pack tests share one store across examples on purpose: each example checks its own before/after.
SLOW = settings(
    max_examples=25, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)

# Every code point, lone surrogates included: bytes that are not UTF-8 reach ov that way (argv).
ANY_CHAR = st.characters(blacklist_categories=())
# Pieces that exercise the rules: aliases, scopes, dots, git's names in their spellings, the temp
# marker, separators, drive letters, control and ignorable characters, long runs.
TRICKY = st.sampled_from(
    [
        "~", "session", "resources", "user", "agent", "temp", "memories", "sessions", "peers", "alice",
        ".", "..", "...", ".git", ".GIT", ".git.", "git~1", ".g\u200cit", ".gitmodules", ".gitignore",
        ".ov-tmp-", "x.lock", "C:", "a:b", "\\", "//", " ", "\x00", "\n", "\u2028", "\ud800", "é", "字",
        "😀", "%2e%2e", "a" * 255, "b" * 256,
    ]
)
SEGMENT = st.one_of(TRICKY, st.text(ANY_CHAR, max_size=12))
URI_TEXT = st.one_of(
    st.text(ANY_CHAR, max_size=60),
    st.builds(lambda parts: SCHEME + "/".join(parts), st.lists(SEGMENT, max_size=8)),
    st.builds(lambda n, seg: SCHEME + "resources/" + "/".join([seg] * n), st.integers(1, 40), st.sampled_from(["y" * 250, "d", "é" * 100])),
)
USER = st.one_of(st.none(), st.sampled_from(["alice", "memories", "a.b@c", "default"]))


@QUICK
@given(URI_TEXT, USER)
@example("viking://resources/" + "/".join(["y" * 250] * 17), "alice")
@example("viking://~/.Git/x", "alice")
@example("viking://resources/caf\udce9.md", "alice")  # bytes that are not UTF-8, as argv delivers them
def test_a_uri_parses_to_a_canonical_form_or_is_refused(text: str, user: str | None) -> None:
    try:
        uri = parse(text, user)
    except InvalidURI as exc:
        event("refused")
        assert exc.exit_code == 2 and exc.message
        assert len(exc.message) < 1000  # the input is quoted briefly
        return
    event("parsed")
    assert parse(str(uri), user) == uri
    assert str(parse(str(uri), user)) == str(uri)
    assert all(is_valid_segment(part) for part in uri.parts)
    assert len(uri.path.encode("utf-8")) <= MAX_PATH_BYTES
    if uri.parts:
        assert from_path(uri.path) == uri


@QUICK
@given(URI_TEXT, SEGMENT)
def test_child_is_canonical_or_refused(text: str, name: str) -> None:
    try:
        base = parse(text, "alice")
        child = base.child(name)
    except InvalidURI:
        return
    assert child.parent == base and child.name == nfc(name)  # names are stored in NFC ("\uf900" is "\u8c48")
    assert parse(str(child), "alice") == child


ID_KIND = st.sampled_from(["account", "user", "peer", "session"])


@QUICK
@given(st.one_of(TRICKY, st.text(ANY_CHAR, max_size=20), st.from_regex(r"[A-Za-z0-9_.@-]{1,20}", fullmatch=True)), ID_KIND)
def test_an_id_is_valid_or_refused_and_a_valid_id_is_a_safe_segment(value: str, kind: str) -> None:
    try:
        assert validate_id(value, kind) == value
    except InvalidId as exc:
        assert exc.exit_code == 2 and exc.message.startswith(f"{kind} id")
        return
    # Ids become directories of the git tree: each must be a segment git and ov accept.
    assert is_valid_segment(value) and reserved_reason(value) is None
    if kind == "session":
        assert parse(f"viking://session/{value}", "alice").parts == ("user", "alice", "sessions", value)
    if kind == "user" and value not in USER_CONTENT_NAMES:
        assert parse(f"viking://user/{value}/x").parts[1] == value


# --- config files -------------------------------------------------------------------------

SCALAR = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=20), st.dates(), st.datetimes(), st.binary(max_size=8)
)
VALUE = st.recursive(SCALAR, lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)), max_leaves=20)
KEY = st.sampled_from(["version", "identity", "store", "output", "ingest", "llm", "embedding", "retrieval", "user", "lock_timeout", "x"])
SECTION = st.dictionaries(st.sampled_from(["account", "user", "peer", "lock_timeout", "max_file_bytes", "color", "model", "provider", "budget"]), VALUE, max_size=4)
CONFIG = st.dictionaries(KEY, st.one_of(VALUE, SECTION), max_size=6)
# YAML's punctuation, to reach the parser's odd corners (anchors, aliases, tags, flow, blocks).
YAML_TEXT = st.lists(
    st.sampled_from(list("&*[]{}:-,? \n\t!|>'\"#%@`a1.~") + ["!!python/object:os.system ", "<<: *a", "&a ", "*a", "store:", "\n  "]),
    max_size=40,
).map("".join)


def _config_ok_or_refused(raw: bytes) -> None:
    try:
        loaded = validate_config_text(raw, Path("config.yaml"))
    except OvError as exc:
        event("refused")
        assert exc.exit_code == 2 and exc.message
        return
    event("loaded")
    assert isinstance(loaded.config, Config) and all(isinstance(w, str) for w in loaded.warnings)
    assert not any(value.stops for value in loaded.invalid)  # an invalid identity is refused, never loaded


@QUICK
@given(CONFIG)
def test_a_config_mapping_loads_or_is_refused(data: dict) -> None:
    import yaml

    _config_ok_or_refused(yaml.safe_dump(data, allow_unicode=True).encode("utf-8"))


@QUICK
@given(st.one_of(YAML_TEXT, st.text(max_size=80), st.binary(max_size=80)))
@example("a: &a [*a, *a]\n")
@example("identity:\n  user: 2026-02-30\n")
@example("? [a, b]\n: c\n")
def test_any_config_text_loads_or_is_refused(text: str | bytes) -> None:
    _config_ok_or_refused(text if isinstance(text, bytes) else text.encode("utf-8", "surrogatepass"))


# --- packs ------------------------------------------------------------------------------------

GOOD_FILES = {"a.md": b"# A\nhello\n", "sub/b.md": b"# B\n", ".abstract.md": b"The pack.\n"}


def _manifest(root: str, files: dict[str, bytes], backup: bool) -> dict:
    dirs = sorted({"/".join(p.split("/")[:i]) for p in files for i in range(1, p.count("/") + 1)})
    entries = [{"path": "", "kind": "directory"}] + [{"path": d, "kind": "directory"} for d in dirs]
    entries += [{"path": p, "kind": "file", "size": len(d), "sha256": hashlib.sha256(d).hexdigest()} for p, d in files.items()]
    if backup:
        where = {"name": root, "uri": "viking://", "scope": "root", "package_type": "backup"}
    else:
        where = {"name": root, "uri": f"viking://resources/{root}", "scope": "resources"}
    return {
        "kind": "openviking.ovpack",
        "format_version": 3,
        "root": where,
        "entries": entries,
        "content_sha256": pack_format.content_sha256([e for e in entries if e["kind"] == "file"]),
        "index": {"records": {"path": "_ovpack/index_records.jsonl", "count": 0, "sha256": hashlib.sha256(b"").hexdigest()}},
    }


JSON = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(ANY_CHAR.filter(lambda c: not 0xD800 <= ord(c) <= 0xDFFF), max_size=12)),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=6), inner, max_size=3)),
    max_leaves=8,
)
MANIFEST_PATH = st.sampled_from(
    [("kind",), ("format_version",), ("root",), ("root", "name"), ("root", "uri"), ("root", "scope"), ("entries",),
     ("entries", 0), ("entries", 1, "path"), ("entries", -1, "size"), ("entries", -1, "sha256"), ("entries", -1, "kind"),
     ("content_sha256",), ("index",), ("index", "records"), ("index", "records", "count"), ("index", "dense")]
)
MEMBER_NAME = st.one_of(TRICKY.map(lambda s: f"proj/files/{s}"), st.text(ANY_CHAR.filter(lambda c: not 0xD800 <= ord(c) <= 0xDFFF), min_size=1, max_size=30))
MUTATION = st.one_of(
    st.tuples(st.just("set"), MANIFEST_PATH, JSON),
    st.tuples(st.just("delete"), MANIFEST_PATH, st.none()),
    st.tuples(st.just("file"), st.sampled_from(sorted(GOOD_FILES) + ["new.md", ".overview.md", "x/.abstract.md"]), st.binary(max_size=40)),
    st.tuples(st.just("member"), MEMBER_NAME, st.binary(max_size=20)),
    st.tuples(st.just("drop"), st.sampled_from(sorted(GOOD_FILES) + ["_ovpack/manifest.json", "_ovpack/index_records.jsonl"]), st.none()),
)


def _mutated_pack(path: Path, mutations: list[tuple], *, backup: bool = False) -> Path:
    """A well-formed pack of GOOD_FILES (a backup holds them under resources/), then mutated."""
    prefix = "resources/" if backup else ""
    files = {prefix + rel: data for rel, data in GOOD_FILES.items()}
    raw_files = dict(files)
    extra: dict[str, bytes] = {}
    dropped: set[str] = set()
    manifest = _manifest("proj", files, backup)
    for op, where, value in mutations:
        if op == "file":  # new content, with the manifest kept consistent half of the time
            raw_files[prefix + where] = value
            if len(value) % 2 == 0:
                files[prefix + where] = value
                manifest = _manifest("proj", files, backup)
        elif op == "member":
            extra[where] = value
        elif op == "drop":
            dropped.add(where if where.startswith("_ovpack/") else prefix + where)
        else:
            _apply(manifest, where, op, value)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for rel, data in raw_files.items():
            if rel not in dropped:
                zf.writestr(f"proj/files/{rel}", data)
        if "_ovpack/manifest.json" not in dropped:
            zf.writestr("proj/_ovpack/manifest.json", json.dumps(manifest))
        if "_ovpack/index_records.jsonl" not in dropped:
            zf.writestr("proj/_ovpack/index_records.jsonl", b"")
        for name, data in extra.items():
            try:
                zf.writestr(name, data)
            except (ValueError, UnicodeError, IndexError):  # zipfile's own limits on names ("\x00" is an IndexError)
                pass
    return path


def _apply(node, where: tuple, op: str, value) -> None:
    for key in where[:-1]:
        try:
            node = node[key]
        except (KeyError, IndexError, TypeError):
            return
    try:
        if op == "delete":
            del node[where[-1]]
        else:
            node[where[-1]] = value
    except (KeyError, IndexError, TypeError):
        pass


@pytest.fixture
def pack_store(tmp_path: Path) -> Store:
    store = Store(Home(tmp_path / "packhome"), Identity(), Config())
    store.init()
    store.write(VikingURI(("resources", "keep.md")), b"# Keep\nme\n")
    return store


@SLOW
@given(st.lists(MUTATION, min_size=1, max_size=3))
@example([("file", "/".join(["y" * 250] * 17), b"xx")])  # a path over PATH_MAX
@example([("file", ".abstract.md", b"\x00\x01")])  # a binary L0
def test_a_mutated_pack_imports_or_is_refused_and_a_refusal_changes_nothing(pack_store: Store, tmp_path: Path, mutations) -> None:
    home = pack_store.home.root
    target = VikingURI(("resources",))
    pack = _mutated_pack(tmp_path / "mutated.ovpack", mutations)
    before = git_state(home)
    try:
        result = ovpack.import_pack(pack_store, pack, target, on_conflict="overwrite")
    except OvError as exc:
        event(f"refused: {exc.code}")
        assert exc.exit_code in (1, 2) and exc.message
        assert git_state(home) == before
        return
    event(result.action)
    assert result.action in ("imported", "overwritten", "unchanged")
    after = git_state(home)
    assert (after == before) == (result.action == "unchanged")  # "unchanged" when it wrote nothing
    assert after[1]["resources/keep.md"] == b"# Keep\nme\n"
    assert all(is_valid_segment(part) for path in after[1] for part in path.split("/"))


@SLOW
@given(st.lists(MUTATION, min_size=1, max_size=3))
def test_a_mutated_backup_restores_or_is_refused_and_a_refusal_changes_nothing(pack_store: Store, tmp_path: Path, mutations) -> None:
    home = pack_store.home.root
    pack = _mutated_pack(tmp_path / "backup.ovpack", mutations, backup=True)
    before = git_state(home)
    try:
        ovpack.restore(pack_store, pack, on_conflict="overwrite")
    except OvError as exc:
        event(f"refused: {exc.code}")
        assert exc.exit_code in (1, 2) and exc.message
        assert git_state(home) == before
        return
    event("restored")
    assert git_state(home)[1]["resources/keep.md"] == b"# Keep\nme\n"


# --- what a user says: deterministic memory extraction and its merge --------------------------------

# Words the extraction rules react to, so that random sentences reach them.
SAID = st.sampled_from(
    [
        "I", "I'm", "my", "we", "our", "the", "editor", "is", "are", "prefer", "like", "switched", "from", "to", "moved",
        "instead", "of", "now", "actually", "no", "longer", "don't", "anymore", "always", "never", "use", "call", "me",
        "remember", "that", "team", "DB", "runs", "on", "port", "Bob", "owns", "rather", "fan", "so", "because", ",", "-",
        ";", ".", "?", "`", "Neovim", "Zed", "Lisbon", "it", "this", "and", "but", "\u2014", "'", '"', "\n",
    ]
)
SPEECH = st.one_of(st.text(ANY_CHAR, max_size=80), st.lists(SAID, max_size=25).map(" ".join))


@QUICK
@given(SPEECH, st.booleans(), st.text(ANY_CHAR, max_size=60))
@example("I switched from Neovim to Zed", True, "- Editor: Neovim")
@example("I've moved from \\1 to (a", True, "- Uses \\1 daily")
@example("Remember that the  DB  is in us-east-1, so my editor is Zed - and I", False, "# DB\n\n- Is in us-west-1")
def test_what_a_user_says_is_read_or_left_and_merges_without_error(said: str, asked: bool, stored: str) -> None:
    from datetime import UTC, datetime

    from ov.sessions.memory.extract import extract_explicit
    from ov.sessions.memory.plan import plan_memories

    when = datetime(2026, 5, 1, tzinfo=UTC)
    message = {"id": "m", "role": "user", "parts": [{"type": "text", "text": said}], "created_at": when.isoformat()}
    candidates = extract_explicit([message], when=when, user="alice", asked=asked)
    for candidate in candidates:
        assert candidate.fields.get("content", "").strip(), candidate
    # Each candidate merges into a file that already holds anything at all (events are new files).
    def read(_root: str, rel: str) -> str | None:
        return None if rel.startswith("events/") else stored or None

    writes, _diff = plan_memories(_memory_schemas(), {"r": candidates}, read=read, when=when, archive_uri="t")
    for text in writes.values():
        assert "MEMORY_FIELDS" in text


@functools.cache
def _memory_schemas():
    from ov.sessions.memory.schema import load_schemas

    return load_schemas(None)  # YAML, ~0.2 s: once, not per example
