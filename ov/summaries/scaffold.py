"""The fixed words of ov's extractive directory summaries, and a summary's text without them.

Every overview the extractive summariser writes shares its template's words: the
``## Contents`` and ``## Key terms`` headings, the note that only a sample is listed,
the "Holds 3 Markdown docs (a.md, b.md and c.md)." sentence, the "Sections:" and
"Defines" labels of its entry lines. They say how ov lays a summary out, not what the
directory is about, and the index leaves them out (:func:`searchable`): kept, "what are
the key terms of the contract?" matched every generated overview. The summariser writes
them from here and the index reads them from here, so the two say the same words.

Only a summary in the template's shape loses its headings and labels: a person's or a
model's overview (the LLM's has a ``## Details`` section) keeps its own. The layout
sentences are ov's wherever they stand, in an abstract or quoted in a parent's entry line.
"""

from __future__ import annotations

import re

from ov.regex import LazyPattern
from ov.summaries.facts import KINDS

CONTENTS_HEADING = "## Contents"
KEY_TERMS_HEADING = "## Key terms"
SAMPLE_NOTES = {"en": "Only a sample of the entries is listed.", "zh": "此处仅列出部分条目。"}
EMPTY_BRIEFS = {"en": "This directory is empty.", "zh": "该目录目前为空。"}
HOLDS = "Holds"  # "Holds 5 Python modules (a.py and b.py) and 1 subdirectory (x/)."
SUBDIRECTORY = ("subdirectory", "subdirectories")
SECTIONS_LABEL = "Sections:"  # an entry line's "Sections: Install; Configure."
DEFINES_LABEL = "Defines"  # an entry line's "Defines Gauge, DualGauge and more."
MORE = "more"  # the names a list leaves out: "a.py, b.py and 3 more", "Gauge and more"
# The Chinese brief: "该目录包含关于{topics}的{kinds}。", kinds being one of these.
ZH_HOLDS, ZH_ABOUT, ZH_OF = "该目录包含", "关于", "的"
ZH_KINDS = {"files and subdirectories": "文件和子目录", "subdirectories": "子目录", "files": "文件"}


def zh_brief(kinds: str, topics: str) -> str:
    """The Chinese brief's first sentence: what the directory holds, and about what."""
    return f"{ZH_HOLDS}{ZH_ABOUT}{topics}{ZH_OF}{kinds}。" if topics else f"{ZH_HOLDS}{kinds}。"


def _holds_part(named: bool = False) -> str:
    """One group of the "Holds ..." sentence, "5 Python modules (a.py and b.py)"; ``named``: its
    names are the group ``names``."""
    labels = {label for pair in KINDS.values() for label in pair} | set(SUBDIRECTORY)
    # An extension ov has no name for is counted as "3 .ambr files".
    label = "(?:" + "|".join(re.escape(x) for x in sorted(labels, key=len, reverse=True)) + r"|\.\w{1,8} files?)"
    names = r"(?:[^()]|\([^()]*\))*"  # names may hold one level of parentheses
    return rf"\d+ {label}(?: \({f'(?P<names>{names})' if named else names}\))?"


_PART = LazyPattern(_holds_part(named=True))
_HOLDS_SENTENCE = rf"{HOLDS} {_holds_part()}(?:(?:, | and ){_holds_part()})*\.(?=\s|$)"
_HOLDS = LazyPattern(rf"(?<!\S){_HOLDS_SENTENCE}")
_ZH_BRIEF = LazyPattern(f"{ZH_HOLDS}(?:{ZH_ABOUT}(?P<topics>[^。]*?){ZH_OF})?(?:{'|'.join(ZH_KINDS.values())})。")
_EMPTY = LazyPattern("|".join(rf"(?<!\S){re.escape(text)}" for text in EMPTY_BRIEFS.values()))
# The English brief of ov before 2026-12-01, which stores made then still hold: "This directory holds
# files and subdirectories about deploy, helm and staging." (or "... such as a.py, b.py and c/.").
_OLD_BRIEF = LazyPattern(r"(?<!\S)This directory holds (?:files and subdirectories|subdirectories|files) (?:about|such as|named) (?P<topics>[^\n]*?)\.(?=\s|$)")
# The layout sentences, whole, and what earlier versions wrote in their place (stores still hold it).
_LAYOUT = LazyPattern(rf"(?:^|(?<=\s))(?:This directory (?:holds|is empty)[^.]*\.|该目录[^。]*。|{_HOLDS_SENTENCE})\s*")
_LEFT_OUT = LazyPattern(rf"(?:, |; | and )\d+ {MORE}$")
_ENTRY_LABEL = LazyPattern(rf"(?:(?<=: )|(?<=\. ))(?:{SECTIONS_LABEL} |{DEFINES_LABEL} (?P<names>.*?)(?: and {MORE})?(?=\.+$))")


def strip_layout(abstract: str | None) -> str:
    """A generated abstract without its sentences about layout ("Holds 3 Markdown docs ..."), names
    and all: in a parent's summary they are not the child's topic ("holds", "subdirectories" and
    the child's file names would become the parent's key terms)."""
    return _LAYOUT.sub("", abstract or "").strip()


def searchable(body: str) -> str:
    """A directory summary's body (L0 or L1) as the index matches it: without the template's words.

    The "Holds ..." sentence keeps only the names it lists; "This directory is empty." goes, and
    the Chinese brief and the English one of earlier versions keep only their topics. An overview in the template's shape (a title, then the
    sections Contents and Key terms and no other) also loses those two headings, the sample note,
    and the "Sections:" and "Defines" labels of its entry lines.
    """
    lines = body.splitlines()
    template = _in_template_shape(lines)
    out: list[str] = []
    for line in lines:
        if template and line.strip() in (CONTENTS_HEADING, KEY_TERMS_HEADING, *SAMPLE_NOTES.values()):
            continue
        kept = _ENTRY_LABEL.sub(lambda m: m.group("names") or "", line) if template and line.startswith("- ") else line
        kept = _EMPTY.sub("", _ZH_BRIEF.sub(lambda m: f"{m.group('topics') or ''} ", _HOLDS.sub(_names_held, kept)))
        kept = _OLD_BRIEF.sub(lambda m: m.group("topics"), kept)
        out.append(line if kept == line else " ".join(kept.split()))
    return re.sub(r"\n{3,}", "\n\n", "\n".join(out)).strip()


def _names_held(sentence: re.Match) -> str:
    """The names a "Holds ..." sentence lists ("a.py, b.py and 3 more" gives "a.py, b.py")."""
    listed = (part.group("names") for part in _PART.finditer(sentence.group()))
    return ", ".join(_LEFT_OUT.sub("", names) for names in listed if names)


def _in_template_shape(lines: list[str]) -> bool:
    """Whether an overview is laid out as the extractive summariser lays it out: a title, a brief,
    Contents (entry lines, perhaps the sample note) and perhaps Key terms, and no other section."""
    headings = [(i, line.strip()) for i, line in enumerate(lines) if line.startswith("#")]
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    if not headings or headings[0][0] != first or not headings[0][1].startswith("# "):
        return False
    if [text for _, text in headings[1:]] not in ([CONTENTS_HEADING], [CONTENTS_HEADING, KEY_TERMS_HEADING]):
        return False
    start = headings[1][0] + 1
    end = headings[2][0] if len(headings) > 2 else len(lines)
    return all(not line.strip() or line.startswith("- ") or line.strip() in SAMPLE_NOTES.values() for line in lines[start:end])
