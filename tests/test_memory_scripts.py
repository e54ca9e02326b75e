"""Memory extraction and memory files for users who do not write plain ASCII English: names in any
script, files saved by other editors, sign-offs in other languages."""

from __future__ import annotations

import re
import sys
import unicodedata

import pytest

from ov.sessions.memory import cased_letters
from ov.sessions.memory.capitals import LOWER, NAME_WORD, UPPER, _letters
from ov.sessions.memory.files import parse_memory
from tests.test_memory_corrections import ACCOUNT, _memories, _run

# Letters of mathematics (U+1D400-1D7FF) and phonetic extensions (U+1DF00-1DFFF) are no one's name.
_NOT_WRITTEN = (range(0x1D400, 0x1D800), range(0x1DF00, 0x1E000))


def _written(category: str) -> list[str]:
    return [
        chr(c) for c in range(sys.maxunicode + 1)
        if unicodedata.category(chr(c)) == category and not any(c in r for r in _NOT_WRITTEN)
    ]


def test_every_scripts_capitals_and_small_letters_are_in_their_classes():
    upper, lower = re.compile(UPPER), re.compile(LOWER)
    assert [ch for ch in _written("Lu") if not upper.fullmatch(ch)] == []
    assert [ch for ch in _written("Ll") if not lower.fullmatch(ch)] == []
    assert not upper.match("a") and not lower.match("A") and not upper.match("中")


def test_the_written_down_classes_are_those_this_python_builds():
    # capitals takes them from cased_letters when the Unicode versions agree: a change to how it
    # builds them, or a Python with another Unicode version, must not leave them behind unseen.
    built = _letters(str.isupper), _letters(str.islower)
    assert (UPPER, LOWER) == (built[0], built[1][:-1] + "\u0300-\u036f]")
    if unicodedata.unidata_version == cased_letters.UNIDATA_VERSION:
        assert (cased_letters.UPPER, cased_letters.LOWER) == built, "run scripts/build_cased_letters.py"


@pytest.mark.parametrize("word", ["Ștefan", "Ζωή", "Jean-Émile", "D'Arcy", "Ярослава", "Øystein", "Nuñez-García", "Gwen"])
def test_a_name_word_in_any_script(word):
    assert re.fullmatch(NAME_WORD, word)


@pytest.mark.parametrize("word", ["ștefan", "SQL", "YouTube", "北京", "O'", "-Anna"])
def test_no_name_word(word):
    assert not re.fullmatch(NAME_WORD, word)


@pytest.mark.parametrize(
    "steps, expected",
    [
        pytest.param([("remember", "Call me Ștefan")], {"profile.md": "- Preferred name: Ștefan"}, id="call-me"),
        pytest.param([("remember", "I go by Ζωή")], {"profile.md": "- Preferred name: Ζωή"}, id="go-by-greek"),
        pytest.param([("remember", "I'm Jean-Émile, a designer")], {"profile.md": "- Name: Jean-Émile\n- Is a designer"}, id="hyphened"),
        pytest.param([("remember", "I'm D'Arcy, a tester")], {"profile.md": "- Name: D'Arcy\n- Is a tester"}, id="apostrophe"),
        pytest.param([("remember", "Hi, I am Ярослава Мельник, a data engineer")],
                     {"profile.md": "- Name: Ярослава Мельник\n- Is a data engineer"}, id="cyrillic-two-words"),
        # a description with a hyphen stays one
        pytest.param([("remember", "I'm Greek-speaking, a translator")], {"profile.md": "- Is Greek-speaking\n- Is a translator"},
                     id="description"),
        pytest.param([("remember", "Øystein maintains the deploy pipeline")],
                     {"entities/people/øystein.md": "# Øystein\n\n- Maintains the deploy pipeline"}, id="person-fact"),
        pytest.param([("remember", "I joined Škoda")], {"profile.md": "- Works at Škoda"}, id="joined"),
        pytest.param([("remember", "I'm an analyst at Ørsted"), ("remember", "I joined Équinoxe")],
                     {"profile.md": "- Works at Équinoxe"}, id="new-employer-replaces-role-at"),
        pytest.param([["I'm Łucja Wiśniewska, a platform engineer at Škoda."]],
                     {"profile.md": "- Name: Łucja Wiśniewska\n- Is a platform engineer at Škoda"}, id="in-a-session"),
    ],
)
def test_names_of_any_script(store_day, ov, ov_home, steps, expected):
    for n, step in enumerate(steps):
        if isinstance(step, tuple):
            assert ov(*step).exit_code == 0
        else:
            _run(ov, ov_home, step, f"s{n}")
    assert _memories(ov_home) == expected


def test_a_memory_saved_with_a_byte_order_mark_reads_as_without(store_day, ov, ov_home):
    """An editor's "UTF-8 with BOM" and CRLF: the first line is still a key's, and the next write
    replaces it and leaves the mark out."""
    assert ov("remember", "My name is Søren").exit_code == 0
    assert ov("remember", "My editor is Helix").exit_code == 0
    path = ov_home / ACCOUNT / "default/memories/profile.md"
    path.write_bytes(b"\xef\xbb\xbf" + path.read_text(encoding="utf-8").replace("\n", "\r\n").encode())
    assert parse_memory(path.read_text(encoding="utf-8"))[0].splitlines()[0] == "- Name: Søren"
    assert ov("snapshot", "commit", "-m", "edited in Notepad").exit_code == 0
    assert ov("remember", "My name is Mette").exit_code == 0
    assert _memories(ov_home) == {"profile.md": "- Name: Mette\n- Editor: Helix"}
    assert not path.read_bytes().startswith(b"\xef\xbb\xbf")


@pytest.mark.parametrize(
    "said, kept",
    [
        ("I prefer spaces over tabs, vielen Dank!", "- Prefers spaces over tabs"),
        ("Always run the linter first, merci beaucoup.", "- Always run the linter first"),
        ("I like dark themes, gracias", "- Likes dark themes"),
        ("I prefer vim, ありがとう", "- Prefers vim"),
        ("Never push directly to main, спасибо", "- Never push directly to main"),
        ("I prefer short answers, thank you very much", "- Prefers short answers"),
        # the user's words, not a sign-off
        ("I like short answers, no thanks", "- Likes short answers, no thanks"),
    ],
)
def test_a_sign_off_in_any_common_language_is_no_part_of_what_is_kept(store_day, ov, ov_home, said, kept):
    _run(ov, ov_home, [said], "s1")
    assert list(_memories(ov_home).values()) == [kept]
