"""``viking://`` URIs: parsing, canonical form, rejection rules and the VikingURI API.

The tables follow PRODUCT.md §2 and the upstream cases in reference/openviking.md
§2 and §8. The current user is ``alice`` unless a row says otherwise.
"""

from __future__ import annotations

import unicodedata

import pytest

from ov.errors import EXIT_USAGE, InvalidInput, InvalidURI
from ov.uri import (
    ROOT,
    SANITIZED_MAX_CHARS,
    USER_CONTENT_NAMES,
    VikingURI,
    build,
    from_path,
    hidden_ids,
    is_valid_segment,
    legacy_name,
    parse,
    sanitize_segment,
    work_path_problem,
)

USER = "alice"

# --- accepted inputs -------------------------------------------------------------

# (input, current user, canonical output)
ACCEPTED = [
    # upstream tests/unit/test_uri_validation.py accepted set
    pytest.param("viking://resources/docs", USER, "viking://resources/docs", id="resources-docs"),
    pytest.param("viking://session/s1", USER, "viking://user/alice/sessions/s1", id="session-alias"),
    pytest.param("viking://", USER, "viking://", id="root"),
    pytest.param("viking://~", USER, "viking://user/alice", id="home-alias"),
    pytest.param("viking://~/memories/x", USER, "viking://user/alice/memories/x", id="home-memories"),
    # aliases, more shapes
    pytest.param("viking://~/", USER, "viking://user/alice", id="home-alias-trailing-slash"),
    pytest.param("viking://~/peers/proj/memories/a.md", USER, "viking://user/alice/peers/proj/memories/a.md", id="home-peer"),
    pytest.param("viking://session", USER, "viking://user/alice/sessions", id="session-alias-bare"),
    pytest.param("viking://session/s1/messages.jsonl", USER, "viking://user/alice/sessions/s1/messages.jsonl", id="session-alias-nested"),
    pytest.param("viking://~/x", "bob", "viking://user/bob/x", id="home-alias-other-user"),
    # root forms
    pytest.param("viking:///", USER, "viking://", id="root-one-slash"),
    pytest.param("viking:////", USER, "viking://", id="root-many-slashes"),
    # scope roots
    pytest.param("viking://resources", USER, "viking://resources", id="scope-resources"),
    pytest.param("viking://agent/", USER, "viking://agent", id="scope-agent-trailing-slash"),
    pytest.param("viking://user", USER, "viking://user", id="scope-user-container"),
    # trailing and doubled slashes
    pytest.param("viking://resources/docs/", USER, "viking://resources/docs", id="trailing-slash"),
    pytest.param("viking://resources/docs///", USER, "viking://resources/docs", id="trailing-slashes"),
    pytest.param("viking://resources//a///b//", USER, "viking://resources/a/b", id="doubled-slashes"),
    pytest.param("viking:////resources/a", USER, "viking://resources/a", id="doubled-slash-before-scope"),
    pytest.param("viking://~//memories//x/", USER, "viking://user/alice/memories/x", id="doubled-slashes-in-alias"),
    # ~ is an alias only as the first segment
    pytest.param("viking://resources/~/x", USER, "viking://resources/~/x", id="tilde-literal-second"),
    pytest.param("viking://resources/a/~", USER, "viking://resources/a/~", id="tilde-literal-last"),
    pytest.param("viking://~/~", USER, "viking://user/alice/~", id="tilde-literal-after-alias"),
    # "session" is an alias only as the first segment
    pytest.param("viking://resources/session/x", USER, "viking://resources/session/x", id="session-literal-second"),
    # other scripts and spaces
    pytest.param("viking://resources/笔记/日本語.md", USER, "viking://resources/笔记/日本語.md", id="cjk"),
    pytest.param("viking://resources/заметки/ملاحظات", USER, "viking://resources/заметки/ملاحظات", id="cyrillic-arabic"),
    pytest.param("viking://resources/한국어/😀.md", USER, "viking://resources/한국어/😀.md", id="hangul-emoji"),
    pytest.param("viking://resources/my notes/a b.md", USER, "viking://resources/my notes/a b.md", id="spaces"),
    pytest.param("viking://~/memories/日记", USER, "viking://user/alice/memories/日记", id="cjk-under-alias"),
    # dots that are not '.', '..' or '.git'
    pytest.param("viking://resources/.abstract.md", USER, "viking://resources/.abstract.md", id="dotfile"),
    pytest.param("viking://resources/...", USER, "viking://resources/...", id="three-dots"),
    pytest.param("viking://resources/a..b", USER, "viking://resources/a..b", id="inner-dots"),
    pytest.param("viking://resources/.gitignore", USER, "viking://resources/.gitignore", id="gitignore-is-not-git"),
    pytest.param("viking://resources/git", USER, "viking://resources/git", id="git-without-dot"),
    # colons that are not drive letters
    pytest.param("viking://resources/meeting 12:30", USER, "viking://resources/meeting 12:30", id="colon-not-drive"),
    pytest.param("viking://resources/1:2", USER, "viking://resources/1:2", id="digit-colon"),
    # segment length limit is inclusive
    pytest.param("viking://resources/" + "a" * 255, USER, "viking://resources/" + "a" * 255, id="segment-255-ascii-bytes"),
    pytest.param("viking://resources/" + "字" * 85, USER, "viking://resources/" + "字" * 85, id="segment-255-utf8-bytes"),
    # explicit user paths
    pytest.param("viking://user/bob/memories/profile.md", USER, "viking://user/bob/memories/profile.md", id="other-user"),
    pytest.param("viking://user/a.b@c_d-e/x", USER, "viking://user/a.b@c_d-e/x", id="user-id-all-allowed-chars"),
    pytest.param("viking://user/alice/peers/proj-x/memories/a.md", USER, "viking://user/alice/peers/proj-x/memories/a.md", id="peer-path"),
    pytest.param("viking://user/alice/sessions/s@1.x", USER, "viking://user/alice/sessions/s@1.x", id="session-id-with-at"),
    pytest.param("viking://agent/skills/review/SKILL.md", USER, "viking://agent/skills/review/SKILL.md", id="agent-skill"),
    # a user literally named like a content folder keeps their canonical root
    pytest.param("viking://user/memories/x", "memories", "viking://user/memories/x", id="self-named-memories"),
    pytest.param("viking://user/resources", "resources", "viking://user/resources", id="self-named-resources-root"),
    pytest.param("viking://~/sessions/s1", "sessions", "viking://user/sessions/sessions/s1", id="self-named-sessions-via-alias"),
    pytest.param("viking://session/s1", "peers", "viking://user/peers/sessions/s1", id="self-named-peers-session-alias"),
]


@pytest.mark.parametrize(("text", "user", "canonical"), ACCEPTED)
def test_parse_accepts_and_canonicalises(text: str, user: str, canonical: str) -> None:
    uri = parse(text, user=user)
    assert isinstance(uri, VikingURI)
    assert str(uri) == canonical
    # the canonical form is a fixed point, and parsing it again gives the same value
    assert str(parse(canonical, user=user)) == canonical
    assert parse(str(uri), user=user) == uri
    # a canonical URI has no empty segments and no alias scope
    assert all(uri.parts)
    assert uri.scope in (None, "agent", "resources", "user")


CANONICAL = [
    "viking://",
    "viking://resources",
    "viking://resources/docs/guide.md",
    "viking://user/alice/memories/profile.md",
    "viking://user/bob/sessions/s1/messages.jsonl",
    "viking://agent/skills/s/SKILL.md",
    "viking://resources/~/x",
    "viking://resources/笔记/a b.md",
]


@pytest.mark.parametrize("text", CANONICAL)
def test_canonical_forms_round_trip(text: str) -> None:
    assert str(parse(text, user=USER)) == text
    # canonical forms need no current user at all
    assert str(parse(text)) == text


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("viking://resources/a/", "viking://resources//a"),
        ("viking://~/x", "viking://user/alice/x"),
        ("viking://session/s1", "viking://~/sessions/s1/"),
        ("viking:///", "viking://"),
    ],
)
def test_equivalent_spellings_are_equal_values(a: str, b: str) -> None:
    ua, ub = parse(a, user=USER), parse(b, user=USER)
    assert ua == ub
    assert hash(ua) == hash(ub)
    assert len({ua, ub}) == 1


# --- rejected inputs --------------------------------------------------------------

# (input, current user, substring of the message, substring of the hint or None)
REJECTED = [
    # upstream tests/unit/test_uri_validation.py rejected set
    pytest.param("", USER, "empty", "viking://", id="empty"),
    pytest.param("   ", USER, "empty", None, id="blank"),
    pytest.param("viking:/resources/x", USER, "not a viking:// URI", None, id="one-slash-scheme"),
    pytest.param("resources/x", USER, "not a viking:// URI", "did you mean viking://resources/x?", id="relative"),
    pytest.param("/resources/x", USER, "not a viking:// URI", "did you mean viking://resources/x?", id="absolute-path"),
    pytest.param("~/memories/x", USER, "not a viking:// URI", "did you mean viking://~/memories/x?", id="bare-home-alias"),
    pytest.param("notes.md", USER, "not a viking:// URI", "viking://resources/notes", id="bare-file-name"),
    pytest.param("s3://bucket/x", USER, "not a viking:// URI", "only viking:// URIs", id="s3-scheme"),
    pytest.param("https://example.com/x", USER, "not a viking:// URI", "only viking:// URIs", id="https-scheme"),
    pytest.param("file:///etc/passwd", USER, "not a viking:// URI", "only viking:// URIs", id="file-scheme"),
    pytest.param("VIKING://resources/a", USER, "not a viking:// URI", None, id="scheme-is-case-sensitive"),
    pytest.param("viking://unsupported/x", USER, "invalid scope 'unsupported'", "agent, resources, user", id="unknown-scope"),
    pytest.param("viking://Resources/a", USER, "invalid scope 'Resources'", "agent, resources, user", id="scope-is-case-sensitive"),
    pytest.param("viking://~alice/x", USER, "invalid scope '~alice'", None, id="tilde-user-form"),
    pytest.param("viking://temp/x", USER, "scope 'temp' is internal", "agent, resources, user", id="internal-temp"),
    pytest.param("viking://queue/x", USER, "scope 'queue' is internal", None, id="internal-queue"),
    pytest.param("viking://upload/x", USER, "scope 'upload' is internal", None, id="internal-upload"),
    pytest.param("viking://temp", USER, "scope 'temp' is internal", None, id="internal-scope-root"),
    # traversal and relative segments
    pytest.param("viking://resources/../../etc", USER, "'..' segment", "relative segments", id="traversal"),
    pytest.param("viking://resources/a/..", USER, "'..' segment", None, id="trailing-dotdot"),
    pytest.param("viking://~/../bob/x", USER, "'..' segment", None, id="traversal-from-home"),
    pytest.param("viking://session/../../x", USER, "'..' segment", None, id="traversal-from-session"),
    pytest.param("viking://user/alice/peers/../x", USER, "'..' segment", None, id="traversal-in-peers"),
    pytest.param("viking://resources/./a", USER, "'.' segment", "relative segments", id="dot-segment"),
    pytest.param("viking://resources/a/.", USER, "'.' segment", None, id="trailing-dot-segment"),
    pytest.param("viking://../etc", USER, "'..'", None, id="dotdot-as-scope"),
    # backslashes and drive letters
    pytest.param("viking://resources/a\\b", USER, "backslash", "'/'", id="backslash"),
    pytest.param("viking://resources\\..\\..\\etc", USER, "backslash", None, id="backslash-traversal"),
    pytest.param("viking://resources/C:", USER, "drive-letter", "drive letters", id="drive-letter"),
    pytest.param("viking://resources/c:/x", USER, "drive-letter", None, id="drive-letter-lowercase"),
    pytest.param("viking://resources/C:Windows", USER, "drive-letter", None, id="drive-relative"),
    pytest.param("viking://resources/docs/D:", USER, "drive-letter", None, id="drive-letter-deep"),
    # control characters
    pytest.param("viking://resources/a\x00b", USER, "control character", None, id="nul"),
    pytest.param("viking://resources/a\nb", USER, "control character", None, id="newline-inside"),
    pytest.param("viking://resources/a\rb", USER, "control character", None, id="carriage-return"),
    pytest.param("viking://resources/a\tb", USER, "control character", None, id="tab"),
    pytest.param("viking://resources/a\x1b[31mb", USER, "control character", None, id="escape"),
    pytest.param("viking://resources/a\x7fb", USER, "control character", None, id="del"),
    pytest.param("viking://~/a\x00", USER, "control character", None, id="nul-under-alias"),
    pytest.param("viking://resources/invoice\u202egpj.md", USER, "text-direction mark", None, id="right-to-left-override"),
    pytest.param("viking://resources/a\u2066b", USER, "text-direction mark", None, id="bidi-isolate"),
    pytest.param("viking://resources/a\u061cb.md", USER, "text-direction mark", None, id="arabic-letter-mark"),
    pytest.param("viking://resources/a\x85b", USER, "control character", None, id="C1-NEL"),
    pytest.param("viking://resources/a\x9bb", USER, "control character", None, id="C1-CSI"),
    pytest.param("viking://resources/a\x80b", USER, "control character", None, id="C1-PAD"),
    pytest.param("viking://resources/a\u2028b", USER, "control character", None, id="line-separator"),
    pytest.param("viking://resources/a\u2029b", USER, "control character", None, id="paragraph-separator"),
    # leading and trailing whitespace
    pytest.param(" viking://resources/a", USER, "whitespace", None, id="leading-space"),
    pytest.param("viking://resources/a ", USER, "whitespace", None, id="trailing-space"),
    pytest.param("viking://resources/a\n", USER, "whitespace", None, id="trailing-newline"),
    pytest.param("\tviking://resources/a", USER, "whitespace", None, id="leading-tab"),
    pytest.param("viking://resources/a\u3000", USER, "whitespace", None, id="trailing-ideographic-space"),
    # over-long segments
    pytest.param("viking://resources/" + "a" * 256, USER, "256 bytes", "255 bytes", id="segment-256-ascii"),
    pytest.param("viking://resources/" + "é" * 128, USER, "256 bytes", "255", id="segment-two-byte-chars"),
    pytest.param("viking://resources/" + "字" * 86, USER, "258 bytes", "255", id="segment-cjk-86-chars"),
    pytest.param("viking://resources/" + "😀" * 64, USER, "256 bytes", None, id="segment-emoji-64"),
    # .git and ov's temporary files
    pytest.param("viking://resources/.git", USER, "reserved", None, id="dot-git"),
    pytest.param("viking://resources/.git/config", USER, "reserved", None, id="dot-git-config"),
    pytest.param("viking://resources/a/.GIT/HEAD", USER, "reserved", None, id="dot-git-upper"),
    pytest.param("viking://~/.Git", USER, "reserved", None, id="dot-git-mixed-case"),
    pytest.param("viking://resources/.ov-tmp-abc123", USER, "reserved", None, id="ov-tmp-prefix"),
    pytest.param("viking://resources/a.ov-tmp-1", USER, "reserved", None, id="ov-tmp-inside"),
    pytest.param("viking://resources/.git./x", USER, "reserved", None, id="dot-git-trailing-dot"),
    pytest.param("viking://resources/git~1/x", USER, "reserved", None, id="dot-git-short-name"),
    pytest.param("viking://resources/.gi\u200dt", USER, "reserved", None, id="dot-git-ignorable-code-point"),
    pytest.param("viking://resources/.GITMODULES", USER, "reserved", None, id="gitmodules"),
    pytest.param("viking://resources/a/.gitattributes", USER, "reserved", None, id="gitattributes"),
    pytest.param("viking://session/.git/messages.jsonl", USER, "reserved", None, id="session-id-dot-git"),
    pytest.param("viking://~/peers/.Git/memories", USER, "reserved", None, id="peer-id-dot-git"),
    # paths the file system cannot hold (found as a bug: OSError ENAMETOOLONG from write/mv/mkdir)
    pytest.param("viking://resources/" + "/".join(["y" * 250] * 17), USER, "bytes long", "3072", id="path-17-segments-of-250"),
    pytest.param("viking://resources/" + "/".join(["d"] * 2100), USER, "bytes long", "3072", id="path-2100-segments"),
    # bytes that are not UTF-8 in argv arrive as lone surrogates (found as a bug: UnicodeEncodeError)
    pytest.param("viking://resources/caf\udce9.md", USER, "not valid UTF-8", None, id="surrogate"),
    # ids inside user paths
    pytest.param("viking://user/a b/x", USER, "user id 'a b'", "an id uses", id="user-id-space"),
    pytest.param("viking://user/~/x", USER, "user id '~'", None, id="user-id-tilde"),
    pytest.param("viking://user/a@b@c", USER, "more than one '@'", None, id="user-id-two-ats"),
    pytest.param("viking://user/" + "u" * 129, USER, "longer than 128", None, id="user-id-too-long"),
    pytest.param("viking://user/ünï/x", USER, "user id 'ünï'", None, id="user-id-non-ascii"),
    pytest.param("viking://user/alice/peers/bad id", USER, "peer id 'bad id'", None, id="peer-id-space"),
    pytest.param("viking://user/alice/peers/p@x@y/memories", USER, "peer id", None, id="peer-id-two-ats"),
    pytest.param("viking://user/alice/sessions/x y", USER, "session id 'x y'", None, id="session-id-space"),
    pytest.param("viking://session/a@b@c", USER, "session id", None, id="session-alias-bad-id"),
    pytest.param("viking://session/日本", USER, "session id", None, id="session-id-non-ascii"),
    # aliases without a current user
    pytest.param("viking://~/x", None, "needs a current user", None, id="home-alias-without-user"),
    pytest.param("viking://session/s1", None, "needs a current user", None, id="session-alias-without-user"),
    # uid-less shorthand for the current user's content
    pytest.param("viking://user/memories/x", USER, "has no user id", "viking://~/memories/x", id="uidless-memories"),
    pytest.param("viking://user/memories/x", None, "has no user id", "viking://~/memories/x", id="uidless-without-user"),
    pytest.param("viking://user/memories", "memoriesx", "has no user id", "viking://~/memories", id="uidless-near-miss-user"),
    pytest.param("viking://user/sessions/s1/messages.jsonl", USER, "has no user id", "viking://~/sessions/s1/messages.jsonl", id="uidless-sessions"),
]


@pytest.mark.parametrize(("text", "user", "message", "hint"), REJECTED)
def test_parse_rejects(text: str, user: str | None, message: str, hint: str | None) -> None:
    with pytest.raises(InvalidURI) as info:
        parse(text, user=user)
    exc = info.value
    assert message in exc.message
    if hint is not None:
        assert exc.hint is not None and hint in exc.hint
    # every URI error is bad input: exit code 2 and a stable machine code
    assert isinstance(exc, InvalidInput)
    assert exc.exit_code == EXIT_USAGE == 2
    assert exc.code == "invalid_uri"
    assert exc.to_dict()["code"] == "invalid_uri"


@pytest.mark.parametrize("name", USER_CONTENT_NAMES)
def test_every_user_content_folder_needs_a_uid(name: str) -> None:
    with pytest.raises(InvalidURI) as info:
        parse(f"viking://user/{name}/x", user=USER)
    assert info.value.hint == f"use 'viking://~/{name}/x' for the current user"
    # ... unless the current user really has that id
    assert str(parse(f"viking://user/{name}/x", user=name)) == f"viking://user/{name}/x"


@pytest.mark.parametrize("value", [None, 42, b"viking://resources/a"])
def test_parse_rejects_non_strings(value) -> None:
    # a clean InvalidURI, not a TypeError/AttributeError from string handling
    with pytest.raises(InvalidURI):
        parse(value, user=USER)  # type: ignore[arg-type]


# --- the VikingURI value ----------------------------------------------------------


def test_path_is_the_work_tree_path() -> None:
    assert parse("viking://resources/a/b.md").path == "resources/a/b.md"
    assert parse("viking://~/memories/x", user=USER).path == "user/alice/memories/x"
    assert parse("viking://session/s1", user=USER).path == "user/alice/sessions/s1"
    assert ROOT.path == ""
    assert parse("viking://").path == ""


def test_scope_name_and_root() -> None:
    uri = parse("viking://resources/docs/guide.md")
    assert uri.scope == "resources"
    assert uri.name == "guide.md"
    assert not uri.is_root
    assert ROOT.is_root and ROOT.scope is None and ROOT.name == ""
    assert parse("viking://") == ROOT == VikingURI()
    assert parse("viking://~", user=USER).scope == "user"


def test_parent_walks_up_to_the_root() -> None:
    uri = parse("viking://resources/a/b.md")
    assert str(uri.parent) == "viking://resources/a"
    assert str(uri.parent.parent) == "viking://resources"
    assert uri.parent.parent.parent == ROOT
    assert ROOT.parent is None
    assert str(parse("viking://~/x", user=USER).parent) == "viking://user/alice"


def test_child_appends_one_checked_segment() -> None:
    base = parse("viking://resources/docs")
    child = base.child("guide.md")
    assert str(child) == "viking://resources/docs/guide.md"
    assert child.parent == base
    assert str(base.child("笔记 1")) == "viking://resources/docs/笔记 1"
    assert str(ROOT.child("resources")) == "viking://resources"


@pytest.mark.parametrize(
    ("name", "message"),
    [
        pytest.param("..", "'..' segment", id="dotdot"),
        pytest.param(".", "'.' segment", id="dot"),
        pytest.param("a/b", "path separator", id="slash"),
        pytest.param("a\\b", "path separator", id="backslash"),
        pytest.param(".git", "reserved", id="dot-git"),
        pytest.param(".GIT", "reserved", id="dot-git-upper"),
        pytest.param(".ov-tmp-123", "reserved", id="ov-tmp"),
        pytest.param(".git.", "reserved", id="dot-git-ntfs-dot"),
        pytest.param(".git ", "reserved", id="dot-git-ntfs-space"),
        pytest.param(".git::$INDEX_ALLOCATION", "reserved", id="dot-git-ntfs-stream"),
        pytest.param("GIT~1", "reserved", id="dot-git-8.3-name"),
        pytest.param(".g\u200cit", "reserved", id="dot-git-hfs-ignorable"),
        pytest.param("\ufeff.GIT", "reserved", id="dot-git-hfs-bom"),
        pytest.param(".gitmodules", "reserved", id="gitmodules"),
        pytest.param("gitmod~1", "reserved", id="gitmodules-8.3-name"),
        pytest.param(".gitattributes", "reserved", id="gitattributes"),
        pytest.param("C:", "drive-letter", id="drive"),
        pytest.param("a\x00", "control character", id="nul"),
        pytest.param("a" * 256, "256 bytes", id="too-long"),
    ],
)
def test_child_rejects_unsafe_names(name: str, message: str) -> None:
    with pytest.raises(InvalidURI) as info:
        parse("viking://resources/docs").child(name)
    assert message in info.value.message
    assert info.value.exit_code == 2


@pytest.mark.parametrize(
    ("base", "name", "message"),
    [
        pytest.param("viking://resources", "", "empty", id="empty-name"),
        pytest.param("viking://", "~", "needs a current user", id="alias-scope-under-root"),
        pytest.param("viking://", "session", "needs a current user", id="session-alias-under-root"),
        pytest.param("viking://", "temp", "internal", id="internal-scope-under-root"),
        pytest.param("viking://", "nope", "invalid scope", id="unknown-scope-under-root"),
        pytest.param("viking://user", "memories", "has no user id", id="uidless-user-folder"),
        pytest.param("viking://user", "a@b@c", "more than one '@'", id="invalid-user-id"),
        pytest.param("viking://user/alice/peers", "bad id", "peer id 'bad id'", id="invalid-peer-id"),
        pytest.param("viking://user/alice/sessions", "x y", "session id 'x y'", id="invalid-session-id"),
    ],
)
def test_child_applies_every_parse_rule(base: str, name: str, message: str) -> None:
    # (found as a bug: child() used to run only the per-segment checks and built URIs that parse() rejects)
    with pytest.raises(InvalidURI) as info:
        parse(base, user=USER).child(name)
    assert message in info.value.message


@pytest.mark.parametrize(
    ("base", "name"),
    [
        ("viking://", "resources"),
        ("viking://", "user"),
        ("viking://user", "bob"),
        ("viking://user/alice/peers", "p1"),
        ("viking://user/alice/sessions", "s1"),
        ("viking://resources", "~"),
        ("viking://resources", "日本 語"),
    ],
)
def test_child_results_are_canonical(base: str, name: str) -> None:
    child = parse(base, user=USER).child(name)
    assert child.name == name
    assert parse(str(child), user=USER) == child
    assert parse(str(child)) == child


# --- Unicode normalisation ---------------------------------------------------------

CAFE_NFC = "caf\u00e9.md"  # é as one character, as ingest names files
CAFE_NFD = "cafe\u0301.md"  # e and a combining acute accent, as macOS file names and some keyboards give it


@pytest.mark.parametrize("name", [CAFE_NFC, CAFE_NFD], ids=["nfc", "nfd"])
def test_every_segment_is_parsed_to_nfc(name: str) -> None:
    uri = parse(f"viking://resources/{name}/{name}")
    assert uri.parts == ("resources", CAFE_NFC, CAFE_NFC)
    assert uri == parse(f"viking://resources/{CAFE_NFC}/{CAFE_NFC}")
    assert build("resources", name) == parse(f"viking://resources/{CAFE_NFC}")


def test_nfc_is_applied_before_the_length_rule() -> None:
    # 127 decomposed é are 381 bytes, over the 255 a segment may hold; composed, 254 bytes fit.
    uri = parse("viking://resources/" + "e\u0301" * 127)
    assert uri.name == "\u00e9" * 127 and len(uri.name.encode("utf-8")) == 254


def test_compatibility_forms_are_kept() -> None:
    # NFC, not NFKC: a ligature or a full-width letter is a name of its own, not a spelling.
    assert parse("viking://resources/\ufb01le").name == "\ufb01le"
    assert parse("viking://resources/\u212b").name == "\u00c5"  # the Angstrom sign is canonically Å


def test_child_names_are_nfc() -> None:
    child = parse("viking://resources").child(CAFE_NFD)
    assert child.name == CAFE_NFC and child == parse(f"viking://resources/{CAFE_NFD}")


def test_from_path_keeps_a_name_as_it_is_on_disk() -> None:
    # A store may hold a decomposed name already: its path must lead back to that very file.
    uri = from_path(f"resources/{CAFE_NFD}")
    assert uri.name == CAFE_NFD and uri.path == f"resources/{CAFE_NFD}"
    with pytest.raises(InvalidURI):
        from_path(f"resources/{CAFE_NFD}/../x")  # every other rule still applies


def test_is_within() -> None:
    docs = parse("viking://resources/docs")
    assert docs.is_within(docs)
    assert parse("viking://resources/docs/a/b").is_within(docs)
    assert parse("viking://resources/docs").is_within(parse("viking://resources"))
    assert docs.is_within(ROOT)
    assert ROOT.is_within(ROOT)
    # by segment, not by string prefix
    assert not parse("viking://resources/docs2").is_within(docs)
    assert not parse("viking://resources/doc").is_within(docs)
    assert not parse("viking://resources").is_within(docs)
    assert not ROOT.is_within(docs)
    assert not parse("viking://agent/docs").is_within(docs)
    # aliases are expanded before comparing
    assert parse("viking://session/s1/m", user=USER).is_within(parse("viking://~", user=USER))
    assert not parse("viking://user/bob/x").is_within(parse("viking://~", user=USER))


def test_relative_to() -> None:
    docs = parse("viking://resources/docs")
    assert parse("viking://resources/docs/a/b.md").relative_to(docs) == "a/b.md"
    assert parse("viking://resources/docs/日本").relative_to(docs) == "日本"
    assert docs.relative_to(docs) == ""
    assert docs.relative_to(ROOT) == "resources/docs"
    assert parse("viking://~/memories/x", user=USER).relative_to(parse("viking://user/alice")) == "memories/x"


def test_build() -> None:
    assert build("resources", "docs", "a.md") == parse("viking://resources/docs/a.md")
    assert str(build("resources", "笔记")) == "viking://resources/笔记"
    assert build() == ROOT
    assert str(build("~", "memories", user=USER)) == "viking://user/alice/memories"
    assert str(build("session", "s1", user=USER)) == "viking://user/alice/sessions/s1"
    assert str(build("user", "bob", "peers", "p1")) == "viking://user/bob/peers/p1"


@pytest.mark.parametrize(
    ("segments", "user", "message"),
    [
        pytest.param(("resources", ".."), None, "'..' segment", id="dotdot"),
        pytest.param(("temp", "x"), None, "internal", id="internal-scope"),
        pytest.param(("nope",), None, "invalid scope", id="unknown-scope"),
        pytest.param(("~", "x"), None, "needs a current user", id="alias-without-user"),
        pytest.param(("resources", ".git"), None, "reserved", id="dot-git"),
        pytest.param(("user", "memories"), USER, "has no user id", id="uidless"),
    ],
)
def test_build_rejects(segments: tuple[str, ...], user: str | None, message: str) -> None:
    with pytest.raises(InvalidURI) as info:
        build(*segments, user=user)
    assert message in info.value.message


@pytest.mark.parametrize(
    "text",
    [
        "viking://",
        "viking://resources",
        "viking://resources/docs/a b.md",
        "viking://user/alice/memories/profile.md",
        "viking://user/bob/peers/p1/memories/x.md",
        "viking://agent/skills/s/SKILL.md",
        "viking://resources/日本/~",
    ],
)
def test_from_path_is_the_inverse_of_path(text: str) -> None:
    uri = parse(text)
    assert from_path(uri.path) == uri
    assert str(from_path(uri.path)) == text


def test_from_path_examples() -> None:
    assert from_path("") == ROOT
    assert str(from_path("resources/a/b.md")) == "viking://resources/a/b.md"
    assert str(from_path("user/alice/sessions/s1")) == "viking://user/alice/sessions/s1"


@pytest.mark.parametrize(
    ("path", "message"),
    [
        pytest.param("resources/../x", "'..' segment", id="traversal"),
        pytest.param("temp/x", "internal", id="internal-scope"),
        pytest.param("resources/.git/config", "reserved", id="dot-git"),
        pytest.param("resources/a\\b", "backslash", id="backslash"),
    ],
)
def test_from_path_rejects_unsafe_paths(path: str, message: str) -> None:
    with pytest.raises(InvalidURI) as info:
        from_path(path)
    assert message in info.value.message


@pytest.mark.parametrize("uid", USER_CONTENT_NAMES)
def test_from_path_inverse_for_user_named_like_a_content_folder(uid: str) -> None:
    # (found as a bug: from_path() used to reject user/memories/... as uid-less shorthand)
    uri = parse("viking://~/profile.md", user=uid)
    assert uri.path == f"user/{uid}/profile.md"
    assert from_path(uri.path) == uri
    assert from_path(f"user/{uid}") == parse(f"viking://user/{uid}", user=uid)


# --- sanitize_segment -------------------------------------------------------------

SANITIZED = [
    pytest.param("notes", "notes", id="plain"),
    pytest.param("v1.2-rc_3", "v1.2-rc_3", id="keeps-dash-dot-underscore"),
    pytest.param("Hello World", "Hello_World", id="space"),
    pytest.param("a b  c", "a_b_c", id="spaces-collapse"),
    pytest.param("a!!!b???c", "a_b_c", id="punctuation-runs"),
    pytest.param("a_!_b", "a_b", id="underscore-runs-collapse"),
    pytest.param("a/b\\c", "a_b_c", id="separators"),
    pytest.param("../../etc/passwd", "etc_passwd", id="traversal"),
    pytest.param("C:\\Users", "C_Users", id="drive-letter"),
    pytest.param("a\x00b\nc", "a_b_c", id="control-chars"),
    pytest.param("emoji😀x", "emoji_x", id="emoji-replaced"),
    pytest.param("__a__", "a", id="strips-underscores"),
    pytest.param("..a..", "a", id="strips-dots"),
    pytest.param("  padded  ", "padded", id="strips-spaces"),
    pytest.param("日本語のメモ", "日本語のメモ", id="cjk-kana"),
    pytest.param("한국어 메모", "한국어_메모", id="hangul"),
    pytest.param("Привет мир", "Привет_мир", id="cyrillic"),
    pytest.param("مرحبا بالعالم", "مرحبا_بالعالم", id="arabic"),
    pytest.param("Ελληνικά", "Ελληνικά", id="greek"),
    pytest.param("עברית", "עברית", id="hebrew"),
    pytest.param("naïve café", "naïve_café", id="latin-1"),
    pytest.param("Łódź", "Łódź", id="latin-ext"),
    pytest.param("a" * 60, "a" * SANITIZED_MAX_CHARS, id="truncates-to-50"),
    pytest.param("字" * 60, "字" * SANITIZED_MAX_CHARS, id="truncates-cjk-by-chars"),
    pytest.param("a" * 49 + "!b", "a" * 49, id="no-trailing-underscore-after-truncation"),
    pytest.param("a" * 49 + ".b", "a" * 49, id="no-trailing-dot-after-truncation"),
    pytest.param("", "unnamed", id="empty"),
    pytest.param("   ", "unnamed", id="blank"),
    pytest.param("!!!", "unnamed", id="only-punctuation"),
    pytest.param("..", "unnamed", id="dotdot"),
    pytest.param(".", "unnamed", id="dot"),
    pytest.param("...", "unnamed", id="dots"),
    pytest.param("😀😀", "unnamed", id="only-emoji"),
]


@pytest.mark.parametrize(("name", "expected"), SANITIZED)
def test_sanitize_segment(name: str, expected: str) -> None:
    result = sanitize_segment(name)
    assert result == expected
    assert len(result) <= SANITIZED_MAX_CHARS
    # the result is usable as a URI segment as is
    assert parse(f"viking://resources/{result}").name == result


@pytest.mark.parametrize("name", [".git", ".GIT", ".Git", "_.git_", " .git ", "..git", ".git."])
def test_sanitize_segment_never_yields_dot_git(name: str) -> None:
    result = sanitize_segment(name)
    assert result.lower() != ".git"
    assert result  # never empty
    assert parse(f"viking://resources/{result}").name == result


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        pytest.param("हिन्दी", "हिन्दी", id="devanagari-vowel-signs"),
        pytest.param("தமிழ் குறிப்பு", "தமிழ்_குறிப்பு", id="tamil-vowel-signs"),
        pytest.param("ภาษาไทย", "ภาษาไทย", id="thai"),
        pytest.param("cafe\u0301", "caf\u00e9", id="decomposed-accent"),
    ],
)
def test_sanitize_segment_keeps_combining_marks(name: str, expected: str) -> None:
    # (found as a bug: \w dropped combining marks, 'हिन्दी' became 'ह_न_द')
    result = sanitize_segment(name)
    assert unicodedata.normalize("NFC", result) == unicodedata.normalize("NFC", expected)


@pytest.mark.parametrize("name", ["notes.ov-tmp-1", "a.ov-tmp-.ov-tmp-b", "x.OV-TMP-y", ".ov-tmp-abc"])
def test_sanitize_segment_output_is_never_reserved(name: str) -> None:
    # (found as a bug: 'notes.ov-tmp-1' came back unchanged, and parse()/child() reject it)
    result = sanitize_segment(name)
    assert ".ov-tmp-" not in result
    assert parse(f"viking://resources/{result}").name == result
    assert ROOT.child("resources").child(result).name == result


@pytest.mark.parametrize(
    ("name", "valid"),
    [
        ("notes.md", True),
        ("日本 語", True),
        (".abstract.md", True),
        ("", False),
        (".", False),
        ("..", False),
        (".git", False),
        (".GIT", False),
        ("a/b", False),
        ("a\\b", False),
        ("C:", False),
        ("a\x00", False),
        ("a\x85", False),
        (".ov-tmp-123", False),
        ("a" * 256, False),
    ],
)
def test_is_valid_segment(name: str, valid: bool) -> None:
    assert is_valid_segment(name) is valid


def test_relative_to_refuses_a_uri_outside():
    with pytest.raises(ValueError):
        parse("viking://agent/skills/s").relative_to(parse("viking://resources/a"))
    assert parse("viking://resources/a/b/c").relative_to(parse("viking://resources/a")) == "b/c"


@pytest.mark.parametrize("segments", [("resources", "a/b"), ("resources", "")])
def test_build_takes_single_segments(segments):
    with pytest.raises(InvalidURI):
        build(*segments)


@pytest.mark.parametrize(
    "text",
    [
        "viking://resources/" + "x" * 10_000,
        "viking://resources/" + "/".join(["y" * 250] * 17),
        "viking://resources/a\x00" + "b" * 10_000,
        "viking://nowhere/" + "z" * 10_000,
        "resources/" + "r" * 10_000,
        "viking://user/" + "u" * 10_000,
    ],
)
def test_messages_quote_a_long_input_briefly(text: str) -> None:
    # (found as a bug: a 10,000-byte segment produced a 10 KB error)
    with pytest.raises(InvalidURI) as info:
        parse(text, user=USER)
    assert len(info.value.message) < 600
    assert len(info.value.hint or "") < 600


def test_a_path_of_exactly_the_limit_is_accepted() -> None:
    from ov.uri import MAX_PATH_BYTES

    rest = MAX_PATH_BYTES - len("resources/")
    segments = ["s" * 200] * (rest // 201) + ["t" * (rest % 201)]  # 200 bytes and a slash each
    text = "viking://resources/" + "/".join(segments)
    assert len(parse(text).path.encode()) == MAX_PATH_BYTES
    with pytest.raises(InvalidURI):
        parse(text + "t")


# Names a git tree entry can take, and whether real `git fsck --strict` accepts a tree holding
# one as a directory. ov's rule (ov.names) must refuse exactly the ones git refuses, plus its
# own temporary-file marker.
GIT_NAMES = [
    (".git", False), (".GIT", False), (".git.", False), (".git ", False), (".git..", False),
    ("git~1", False), ("GIT~1", False), (".git:x", False), (".g\u200cit", False), (".git\u200e", False),
    ("\ufeff.git", False), (".gitmodules", False), (".GitModules.", False), ("gitmod~1", False),
    (".gitattributes", False),
    (".gitignore", True), (".gitx", True), ("git", True), ("x.lock", True), (".mailmap", True),
    (".g\u00edt", True), ("\u0130git", True),
]


@pytest.mark.parametrize(("name", "git_accepts"), GIT_NAMES, ids=[repr(n) for n, _ in GIT_NAMES])
def test_reserved_names_agree_with_git_fsck(tmp_path, name: str, git_accepts: bool) -> None:
    import shutil
    import subprocess

    from dulwich.objects import Blob, Tree
    from dulwich.repo import Repo

    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    repo = Repo.init(str(tmp_path / "r"), mkdir=True)
    blob = Blob.from_string(b"x\n")
    inner = Tree()
    inner.add(b"f", 0o100644, blob.id)
    outer = Tree()
    outer.add(name.encode("utf-8"), 0o040000, inner.id)
    for obj in (blob, inner, outer):
        repo.object_store.add_object(obj)
    fsck = subprocess.run(["git", "-C", str(tmp_path / "r"), "fsck", "--strict", "--no-dangling"], capture_output=True, text=True)
    assert (fsck.returncode == 0) == git_accepts, fsck.stderr
    assert is_valid_segment(name) == git_accepts


# --- names with surrounding whitespace (found as a bug: a file "todo " was stored by add-resource,
# then refused by read, and its backup by restore) ------------------------------------------


@pytest.mark.parametrize("name", ["todo ", " todo", "todo\u00a0", "\u3000x", "a\u2003", "  "])
def test_a_segment_with_surrounding_whitespace_is_no_valid_segment(name: str) -> None:
    from ov.uri import segment_problem

    assert not is_valid_segment(name)
    assert "whitespace" in segment_problem(name)
    with pytest.raises(InvalidURI, match="whitespace"):
        parse("viking://resources/docs").child(name)
    # Every place a URI is read from names it the same way: the middle of a typed URI too.
    with pytest.raises(InvalidURI, match="whitespace"):
        parse(f"viking://resources/{name}/x.md")
    with pytest.raises(InvalidURI, match="whitespace"):
        from_path(f"resources/{name}/x.md")


def test_whitespace_inside_a_segment_stays_valid() -> None:
    assert is_valid_segment("my notes.md") and is_valid_segment("nb\u00a0x.txt")
    assert parse("viking://resources/my notes/a b.md").parts == ("resources", "my notes", "a b.md")


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("ok.txt", "ok.txt"),
        ("todo ", "todo"),
        (" my notes.md\u00a0", "my notes.md"),
        ("back\\slash", "back_slash"),
        ("t\tab", "t_ab"),
        ("git~1", "git_1"),
        ("C:x", "C_x"),
        (" .env", "env"),  # trimming must not make a visible name hidden
        ("   ", "unnamed"),
        (".git ", "git"),
    ],
)
def test_segment_name_makes_an_outside_name_a_valid_segment(name: str, expected: str) -> None:
    from ov.uri import segment_name

    assert segment_name(name) == expected
    assert is_valid_segment(expected)


# --- room for the summaries ov writes in a directory (found as a bug: `ov mkdir` of a 3,065-byte
# directory wrote an .abstract.md of 3,078 bytes that no read or restore accepts) -----------------


def test_a_directory_leaves_room_for_the_longest_name_ov_generates_in_it() -> None:
    from ov.store import sidecar
    from ov.uri import LONGEST_GENERATED_NAME, MAX_DIR_BYTES, MAX_PATH_BYTES

    generated = (*sidecar.SIDECARS, sidecar.MANIFEST)
    assert LONGEST_GENERATED_NAME in generated
    assert max(len(name.encode()) for name in generated) == len(LONGEST_GENERATED_NAME)
    assert MAX_DIR_BYTES + 1 + len(LONGEST_GENERATED_NAME) == MAX_PATH_BYTES


def _segments_of(size: int) -> list[str]:
    """Path segments (the scope first) whose path is exactly ``size`` bytes."""
    rest = size - len("resources/")
    return ["resources", *(["s" * 200] * (rest // 201)), "t" * (rest % 201)]


def test_check_new_path_holds_directories_to_the_directory_limit() -> None:
    from ov.uri import MAX_DIR_BYTES, MAX_PATH_BYTES, check_new_path, path_bytes

    at_limit = _segments_of(MAX_DIR_BYTES)
    assert path_bytes(at_limit) == MAX_DIR_BYTES
    check_new_path(at_limit, "x", directory=True)
    check_new_path([*at_limit, "f" * (MAX_PATH_BYTES - MAX_DIR_BYTES - 1)], "x")  # a file of exactly the path limit
    over = _segments_of(MAX_DIR_BYTES + 1)
    with pytest.raises(InvalidURI) as info:
        check_new_path(over, "viking://" + "/".join(over), directory=True)
    assert f"is {MAX_DIR_BYTES + 1} bytes long" in info.value.message
    assert "summaries" in info.value.hint and str(MAX_DIR_BYTES) in info.value.hint
    with pytest.raises(InvalidURI, match="the directory"):
        check_new_path([*over, "f.md"], "x")  # a file is refused for its directory's length
    parse("viking://" + "/".join([*over, "f.md"]))  # while read accepts it: what an older store holds stays readable


def test_a_hidden_file_where_an_id_would_be_is_a_file_not_an_id() -> None:
    # ov's own summaries of the users', peers' and sessions' folders
    for text in ("viking://user/.abstract.md", "viking://user/alice/sessions/.overview.md", "viking://user/alice/peers/.abstract.md"):
        assert str(parse(text, user=USER)) == text
        assert str(from_path(text.removeprefix("viking://"))) == text
        assert hidden_ids(parse(text, user=USER)) == [] and legacy_name(text.removeprefix("viking://")) is None


def test_an_id_an_older_ov_made_with_a_leading_dot_stays_addressable_and_is_named_as_such() -> None:
    # (an upgrade audit: ov up to 5679124 took `--user .bob`; its files could be neither read nor moved)
    for text in ("viking://user/.bob/notes.md", "viking://user/alice/sessions/.s1/messages.jsonl", "viking://user/alice/peers/.eve/memories"):
        uri = parse(text, user=USER)
        assert str(uri) == text and work_path_problem(uri.path) is None
        assert len(hidden_ids(uri)) == 1 and "starts with '.'" in legacy_name(uri.path)
    assert hidden_ids(parse("viking://user/alice/sessions/.s1", user=USER), last=True) == [parse("viking://user/alice/sessions/.s1", user=USER)]
    # the rest of the id rules hold after the dots
    for text in ("viking://user/..bob x/notes.md", "viking://user/.bob.lock/notes.md", "viking://user/.git/notes.md"):
        with pytest.raises(InvalidURI):
            parse(text, user=USER)


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("resources/notes/a.md", None),
        ("user/default/memories/x.md", None),
        ("resources//a.md", "a name is empty"),
        ("resources/../a.md", "'..' segment"),
        ("resources/.GIT/config", "reserved"),
        ("docs/a.md", "invalid scope"),
        ("resources", "no file may be there (a scope)"),
        ("user/default/memories", "no file may be there (reserved for a directory)"),
        ("resources/a b /x.md", "whitespace"),
    ],
)
def test_work_path_problem_says_why_no_file_may_be_at_a_path(path, expected):
    problem = work_path_problem(path)
    assert problem is None if expected is None else expected in problem


@pytest.mark.parametrize("path", ["resources/src/todo ", "resources/src/ lead.txt", "resources/dir /x.md", "user/default/resources/ a.md"])
def test_a_stored_path_may_hold_the_names_an_older_ov_stored(path):
    # (an upgrade audit: c49ddda allowed them per name, but the whole-path rule a pull, a restore
    # and fsck apply still refused them, so such a history could never be pulled)
    assert "whitespace" in work_path_problem(path)  # a hand edit or a typed URI: ov no longer makes them
    assert work_path_problem(path, stored=True) is None
    assert "whitespace" in legacy_name(path)
    assert from_path(path, stored=True).path == path


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("resources/ .. /x.md", None),  # a name, not '..'
        ("resources/../x.md", "'..' segment"),
        ("resources/.git /config", "reserved"),
        ("resources/git~1 ", "reserved"),
        ("resources/a\x00b.md", "control character"),
        (" resources/x.md", "invalid scope"),
        ("resources/a\\b.md", "backslash"),
        ("user/ bob/x.md", "not allowed"),  # no ov ever made an id with a space
    ],
)
def test_the_stored_rule_never_allows_an_escape(path, expected):
    problem = work_path_problem(path, stored=True)
    assert problem is None if expected is None else expected in problem


@pytest.mark.parametrize("name", [".git", ".GIT", ".Git ", ".git.", ".g\u200cit", "git~1", ".gitmodules", "GITMOD~2", ".gitattributes:x"])
def test_every_spelling_of_gits_own_names_is_known(name):
    from ov.names import is_git_name

    assert is_git_name(name)


@pytest.mark.parametrize("name", ["git", ".gitignore", "digit", "legit.md", "gi", "notes.md", "café"])
def test_names_that_only_look_like_gits_are_not_its(name):
    from ov.names import is_git_name

    assert not is_git_name(name)
