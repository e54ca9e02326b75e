"""What one file says about itself, read without an LLM: its kind, title, lead sentence and the names it defines.

The extractive summariser builds directory summaries out of these facts, so they
are plain regular-expression passes over the (already shortened) text: no parser
is imported and nothing is executed. The same text always gives the same facts.

* **kind** — from the name (and, for memories, the ``MEMORY_FIELDS`` trailer):
  "Python module", "Markdown doc", "package manifest", ...;
* **title** — a Markdown file's frontmatter ``title`` or first heading, a manifest's ``name``;
* **lead** — the first meaningful sentences: a module docstring or leading comment,
  a Markdown frontmatter ``description`` or first prose paragraph, a manifest's
  ``description``, a memory's content;
* **defines** — the public top-level classes and functions of code;
* **sections** — the headings of a Markdown file below its title.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ov.regex import LazyPattern
from ov.summaries.text import as_sentence, join_sentences, sentences

# A lead is the first sentences of a text up to this many characters: "The rule." alone says little.
LEAD_MIN_CHARS = 40
NAMES_KEPT = 8

MEMORY_TRAILER = "<!-- MEMORY_FIELDS"  # ov.sessions.memory.files writes it; summaries sit below sessions


@dataclass(frozen=True)
class FileFacts:
    """What one file says about itself; empty fields where it says nothing (binary, empty, unknown format)."""

    kind: str  # a key of KINDS, or ".ext" for an extension this module does not know
    title: str = ""
    lead: str = ""
    defines: tuple[str, ...] = ()  # classes as-is, functions with "()"
    more_defined: bool = False  # the text shows more definitions than ``defines`` holds
    sections: tuple[str, ...] = ()


# kind → (singular, plural) as the summaries print them.
KINDS: dict[str, tuple[str, str]] = {
    "python": ("Python module", "Python modules"),
    "python-test": ("Python test module", "Python test modules"),
    "markdown": ("Markdown doc", "Markdown docs"),
    "section": ("section", "sections"),
    "memory": ("memory", "memories"),
    "text": ("text file", "text files"),
    "manifest": ("package manifest", "package manifests"),
    "javascript": ("JavaScript module", "JavaScript modules"),
    "typescript": ("TypeScript module", "TypeScript modules"),
    "rust": ("Rust source file", "Rust source files"),
    "go": ("Go source file", "Go source files"),
    "java": ("Java source file", "Java source files"),
    "kotlin": ("Kotlin source file", "Kotlin source files"),
    "c": ("C source file", "C source files"),
    "cpp": ("C++ source file", "C++ source files"),
    "header": ("C header", "C headers"),
    "ruby": ("Ruby source file", "Ruby source files"),
    "shell": ("shell script", "shell scripts"),
    "sql": ("SQL script", "SQL scripts"),
    "json": ("JSON file", "JSON files"),
    "yaml": ("YAML file", "YAML files"),
    "toml": ("TOML file", "TOML files"),
    "config": ("config file", "config files"),
    "csv": ("CSV file", "CSV files"),
    "html": ("HTML page", "HTML pages"),
    "css": ("stylesheet", "stylesheets"),
    "pdf": ("PDF", "PDFs"),
    "image": ("image", "images"),
    "build": ("build file", "build files"),
    "file": ("file", "files"),
    "other file": ("other file", "other files"),
}
_EXTENSIONS = {
    "py": "python", "pyi": "python", "md": "markdown", "markdown": "markdown", "mdx": "markdown", "rst": "markdown",
    "txt": "text", "text": "text", "js": "javascript", "mjs": "javascript", "cjs": "javascript", "jsx": "javascript",
    "ts": "typescript", "tsx": "typescript", "mts": "typescript", "rs": "rust", "go": "go", "java": "java",
    "kt": "kotlin", "c": "c", "cc": "cpp", "cpp": "cpp", "cxx": "cpp", "h": "header", "hpp": "header", "rb": "ruby",
    "sh": "shell", "bash": "shell", "zsh": "shell", "fish": "shell", "sql": "sql", "json": "json", "jsonc": "json",
    "jsonl": "json", "yaml": "yaml", "yml": "yaml", "toml": "toml", "ini": "config", "cfg": "config", "conf": "config",
    "csv": "csv", "tsv": "csv", "html": "html", "htm": "html", "css": "css", "scss": "css", "pdf": "pdf",
    "png": "image", "jpg": "image", "jpeg": "image", "gif": "image", "svg": "image", "webp": "image",
}
_MANIFESTS = frozenset({"pyproject.toml", "package.json", "cargo.toml", "setup.cfg", "go.mod", "composer.json", "gemspec"})
_BUILD_FILES = frozenset({"makefile", "dockerfile", "justfile", "rakefile", "gemfile", "procfile"})
_TEXT_FILES = frozenset({"readme", "changelog", "changes", "license", "licence", "notice", "authors", "contributing", "copying"})
_CODE = frozenset({"python", "python-test", "javascript", "typescript", "rust", "go", "java", "kotlin", "c", "cpp", "header", "ruby", "shell", "sql", "css"})
_SECTION_NAME = re.compile(r"\d+_")  # the splitter's pieces: 01_Getting_started.md
# The names by which a code file speaks for its folder: a package's or crate's entry point. Any other
# code module named like an introduction (index.py, summary.py, about.py, lib.py) is one module among
# others - sphinx/domains/index.py is "the index domain", not the domains package.
_CODE_INTRODUCERS = {"python": ("__init__",), "javascript": ("index",), "typescript": ("index",), "rust": ("lib", "mod")}


def kind_of(name: str, text: str) -> str:
    """The kind of a file called ``name`` holding ``text`` (a key of :data:`KINDS`, or ``".ext"``)."""
    lower = name.lower()
    if lower.endswith(".md") and MEMORY_TRAILER in text and text.rstrip().endswith("-->"):
        return "memory"  # a memory file: Markdown ending in its MEMORY_FIELDS trailer
    if lower in _MANIFESTS:
        return "manifest"
    if lower in _BUILD_FILES:
        return "build"
    if lower in _TEXT_FILES:
        return "text"
    ext = lower.rsplit(".", 1)[1] if "." in lower.strip(".") else ""
    kind = _EXTENSIONS.get(ext)
    if kind == "python" and (lower.startswith("test_") or lower.endswith("_test.py") or lower == "conftest.py"):
        return "python-test"
    if kind == "markdown" and _SECTION_NAME.match(name):
        return "section"
    if kind is not None:
        return kind
    if ext and ext.isalnum() and len(ext) <= 8:
        return "." + ext
    return "file"


def introduces(kind: str, stem: str) -> bool:
    """Whether a file of ``kind`` whose name without extension is ``stem`` (lowercase) may be its
    folder's introduction, given that the name is one of those that usually are (README, index, ...)."""
    if kind in _CODE:
        return stem in _CODE_INTRODUCERS.get(kind, ())
    return True


def kind_label(kind: str, count: int) -> str:
    """``count`` files of ``kind`` in words: "1 Python module", "3 .ambr files"."""
    singular, plural = KINDS.get(kind) or (f"{kind} file", f"{kind} files")
    return f"{count} {singular if count == 1 else plural}"


def is_binary(text: str) -> bool:
    """Text that is not text: NUL bytes, or many undecodable bytes turned into U+FFFD."""
    head = text[:2000]
    return "\x00" in head or head.count("\ufffd") * 20 > len(head) > 0


def file_facts(name: str, text: str, title_hint: str | None = None) -> FileFacts:
    """What the extractive summariser says about the file ``name`` holding ``text`` (``title_hint``:
    the caller's idea of its title, used when the file has none of its own)."""
    text = text.replace("\r\n", "\n")
    kind = kind_of(name, text)
    if not text.strip() or is_binary(text):
        return FileFacts(kind)
    if kind == "memory":
        return FileFacts(kind, lead=lead_of(_first_paragraph(memory_content(text), lists=True)))
    if kind in ("markdown", "section", "text"):
        return _markdown_facts(kind, text, name, title_hint)
    if kind == "manifest" or kind in ("json", "toml", "yaml", "config"):
        title, description = _manifest_fields(name, text)
        if not description and kind != "json":
            description = _leading_comment(text)
        return FileFacts(kind, title=title, lead=lead_of(description))
    if kind in ("python", "python-test"):
        names, more = _names(_PY_DEFS, text)
        return FileFacts(kind, lead=lead_of(_python_docstring(text) or _leading_comment(text)), defines=names, more_defined=more)
    if kind in _CODE:
        pattern = _DEFS.get(kind)
        names, more = _names(pattern, text, callables=kind == "shell") if pattern is not None else ((), False)
        return FileFacts(kind, lead=lead_of(_leading_comment(text)), defines=names, more_defined=more)
    if kind == "html":
        match = re.search(r"<title[^>]*>([^<]+)</title>", text, re.IGNORECASE)
        return FileFacts(kind, title=" ".join(match.group(1).split()) if match else "")
    if kind == "build":
        return FileFacts(kind, lead=lead_of(_leading_comment(text)))
    return FileFacts(kind)  # a format this module does not know: its comments may be anything


def prose_of(name: str, text: str, kind: str | None = None) -> str:
    """The words of a file worth counting as its terms: prose, not code tokens or data keys."""
    kind = kind or kind_of(name, text)
    if kind in _CODE or kind == "build":
        text = without_licence_header(text)
    if kind == "memory":
        return memory_content(text)
    if kind in ("markdown", "section", "text"):
        return _without_code(_without_comments(text))
    if kind in ("python", "python-test"):
        return " ".join(m.group(2) for m in _PY_STRINGS.finditer(text)) + " " + " ".join(_HASH_COMMENT.findall(text))
    if kind in ("shell", "ruby"):
        return " ".join(_HASH_COMMENT.findall(text))
    if kind == "sql":
        return " ".join(_DASH_COMMENT.findall(text)) + " " + " ".join(_C_COMMENT.findall(text))
    if kind in _CODE:
        return " ".join(_C_COMMENT.findall(text)) + " " + " ".join(_SLASH_COMMENT.findall(text))
    if kind == "manifest":
        title, description = _manifest_fields(name, text)
        return f"{title} {description}"
    if is_binary(text):
        return ""
    return text


# --- sentences -------------------------------------------------------------------


def lead_of(text: str, min_chars: int = LEAD_MIN_CHARS) -> str:
    """The first sentences of ``text`` until they make ``min_chars``, ending in a sentence mark;
    noise sentences (licence lines, TODOs) skipped."""
    lead = ""
    for sentence in sentences(" ".join(text.split())):
        if _NOISE_SENTENCE.match(sentence) or not any(ch.isalpha() for ch in sentence):
            continue
        lead = join_sentences(lead, sentence)
        if len(lead) >= min_chars:
            break
    return as_sentence(lead)


_NOISE_SENTENCE = re.compile(r"(?i)(?:copyright\b|\(c\)|spdx-license|licensed under|-\*-|#!|all rights reserved|todo\b|fixme\b|noqa\b)")


# --- Markdown --------------------------------------------------------------------

_HEADING = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t#]*$")
_COMMENT_BLOCK = re.compile(r"<!--.*?(?:-->|\Z)", re.DOTALL)


def _markdown_facts(kind: str, text: str, name: str, title_hint: str | None) -> FileFacts:
    description, front_title, body = split_frontmatter(text)
    body = _without_comments(body)
    title, sections, in_code = front_title, [], False
    for line in body.splitlines():
        if line.startswith(("```", "~~~")):
            in_code = not in_code
            continue
        if in_code or not line.startswith("#"):
            continue
        match = _HEADING.match(line)
        if not match:
            continue
        heading = plain(match.group(2))
        if not heading:
            continue
        if not title:
            title = heading
        elif len(match.group(1)) <= 3 and heading != title and heading not in sections:
            sections.append(heading)
    if not title and title_hint and title_hint != name:
        title = title_hint
    lead = lead_of(description) if description else lead_of(_first_paragraph(body))
    return FileFacts(kind, title=title, lead=lead, sections=tuple(sections[:NAMES_KEPT]))


def split_frontmatter(text: str) -> tuple[str, str, str]:
    """(the frontmatter's one-line ``description``, its ``title`` or ``name``, the body) of a Markdown file."""
    if not text.startswith("---\n"):
        return "", "", text
    end = text.find("\n---", 3)
    if end < 0:
        return "", "", text
    front, body = text[4:end], text[end + 4 :]
    return _front_value(front, "description"), _front_value(front, "title") or _front_value(front, "name"), body


def _front_value(front: str, key: str) -> str:
    match = re.search(rf"^{key}:[ \t]*(.+)$", front, re.MULTILINE)
    value = match.group(1).strip().strip("'\"") if match else ""
    return "" if value in ("|", ">", "|-", ">-") else value


def _first_paragraph(text: str, *, lists: bool = False) -> str:
    """The first run of prose lines, Markdown syntax removed; headings, code, tables, rules and
    (unless ``lists``) list items skipped. A lone line ending in ":" introduces what follows and
    is used only when no other prose is found."""
    paragraph: list[str] = []
    fallback = ""
    in_code = False
    for line in _prose_lines(text, lists):
        if line is None or line.startswith(("```", "~~~")):
            if line is not None:
                in_code = not in_code
            if paragraph:
                joined = " ".join(paragraph)
                if not joined.endswith(":"):
                    return joined
                fallback, paragraph = fallback or joined, []
            continue
        if in_code:
            continue
        text_line = plain(line)
        if text_line:
            paragraph.append(text_line)
        elif paragraph:
            joined = " ".join(paragraph)
            if not joined.endswith(":"):
                return joined
            fallback, paragraph = fallback or joined, []
    joined = " ".join(paragraph)
    return joined if joined and not joined.endswith(":") else fallback or joined


def _prose_lines(text: str, lists: bool):
    """Lines with Markdown structure stripped; ``None`` marks a paragraph break. Unless
    ``lists``, list items and the indented lines that continue them count as breaks."""
    in_list = False
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith(("```", "~~~")):
            yield line
        elif not line or line.startswith(("#", "|", "<!--", "---", "***", "___", "===")):
            yield None
        elif _LIST_ITEM.match(line):
            in_list = True
            yield _LIST_ITEM.sub("", line) if lists else None
        elif in_list and raw[:1] in (" ", "\t"):
            yield line if lists else None
        else:
            in_list = False
            yield re.sub(r"^(?:>\s*)+", "", line)


_LIST_ITEM = re.compile(r"^(?:[-*+]|\d+[.)])\s+")


def plain(line: str) -> str:
    """One line of Markdown (or reST-flavoured docstring) as plain text."""
    if not _MARKUP.search(line):  # most lines: nothing to remove
        return " ".join(line.split())
    line = re.sub(r"!\[[^\]]*\]\([^)]*\)", "", line)
    line = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", line)
    line = re.sub(r"<[^>\n]+>", "", line)
    line = _ROLE.sub(lambda m: m.group(1).rsplit(".", 1)[-1] if m.group(0).count("~") else m.group(1), line)
    line = re.sub(r"(\*\*|__|``|`)(.+?)\1", r"\2", line)
    return " ".join(line.replace("`", "").split())


_ROLE = re.compile(r":[a-z]+(?::[a-z]+)?:`~?([^`<]+?)(?:\s*<[^>]*>)?`")
_MARKUP = re.compile(r"[\[<`*_]")


def _without_comments(text: str) -> str:
    return _COMMENT_BLOCK.sub(" ", text) if "<!--" in text else text


def _without_code(text: str) -> str:
    return re.sub(r"^(```|~~~).*?^\1[^\n]*$", " ", text, flags=re.MULTILINE | re.DOTALL)


def memory_content(text: str) -> str:
    """A memory file's visible content: everything before its last ``MEMORY_FIELDS`` trailer."""
    at = text.rfind(MEMORY_TRAILER)
    return text[:at] if at >= 0 else text


# --- code ------------------------------------------------------------------------

# Compiled when first used: a directory of documents never needs them.

_PY_DOCSTRING = LazyPattern(r'\A(?:[ \t]*(?:#[^\n]*)?\n)*[ \t]*[rRuU]?("""|\'\'\'|"|\')(.*?)(?:\1|\Z)', re.DOTALL)
_PY_STRINGS = LazyPattern(r'("""|\'\'\')(.*?)(?:\1|\Z)', re.DOTALL)
_PY_DEFS = LazyPattern(r"^(?:async[ \t]+)?(def|class)[ \t]+([A-Za-z]\w*)", re.MULTILINE)
_DEFS = {
    "javascript": LazyPattern(r"^export[ \t]+(?:default[ \t]+)?(?:async[ \t]+)?(function\*?|class|const|let|var)[ \t]+([A-Za-z$][\w$]*)", re.MULTILINE),
    "typescript": LazyPattern(
        r"^export[ \t]+(?:default[ \t]+)?(?:declare[ \t]+)?(?:abstract[ \t]+)?(?:async[ \t]+)?(function\*?|class|const|let|var|interface|type|enum)[ \t]+([A-Za-z$][\w$]*)",
        re.MULTILINE,
    ),
    "rust": LazyPattern(r"^pub(?:\([^)]*\))?[ \t]+(?:async[ \t]+)?(?:unsafe[ \t]+)?(fn|struct|enum|trait|type|mod|const|static)[ \t]+([A-Za-z]\w*)", re.MULTILINE),
    "go": LazyPattern(r"^(func|type)[ \t]+(?:\([^)]*\)[ \t]*)?([A-Z]\w*)", re.MULTILINE),
    "shell": LazyPattern(r"^(?:(function)[ \t]+)?([A-Za-z][\w-]*)[ \t]*\(\)[ \t]*\{", re.MULTILINE),
    "ruby": LazyPattern(r"^[ \t]*(def|class|module)[ \t]+(?:self\.)?([A-Za-z]\w*[?!]?)", re.MULTILINE),
    "java": LazyPattern(r"^(?:public[ \t]+)(?:(?:abstract|final|sealed|static)[ \t]+)*(class|interface|enum|record)[ \t]+([A-Za-z]\w*)", re.MULTILINE),
    "kotlin": LazyPattern(r"^(?:(?:public|internal|data|sealed|abstract|open)[ \t]+)*(class|interface|object|fun)[ \t]+([A-Za-z]\w*)", re.MULTILINE),
}
_CALLABLE_KEYWORDS = frozenset({"def", "fn", "func", "function", "function*", "fun"})
_HASH_COMMENT = LazyPattern(r"(?m)^[ \t]*#(?![!])[ \t]?([^\n]*)")
_SLASH_COMMENT = LazyPattern(r"(?m)^[ \t]*//[/!]?[ \t]?([^\n]*)")
_C_COMMENT = LazyPattern(r"/\*+(.*?)\*/", re.DOTALL)
_DASH_COMMENT = LazyPattern(r"(?m)^[ \t]*--[ \t]?([^\n]*)")


def _names(pattern: LazyPattern, text: str, *, callables: bool = False) -> tuple[tuple[str, ...], bool]:
    """Public top-level names defined in ``text`` (functions marked with "()"; every name with
    ``callables``), and whether there are more."""
    seen: list[str] = []
    more = False
    for match in pattern.finditer(text):
        keyword, name = match.group(1), match.group(2)
        if name.startswith("_"):
            continue
        shown = name + "()" if callables or keyword in _CALLABLE_KEYWORDS else name
        if shown in seen:
            continue
        if len(seen) == NAMES_KEPT:
            more = True
            break
        seen.append(shown)
    return tuple(seen), more


def _python_docstring(text: str) -> str:
    match = _PY_DOCSTRING.match(text)
    if not match:
        return ""
    body = match.group(2)
    if match.group(1) in ('"', "'") and "\n" in body:
        return ""
    return _docstring_paragraph(body)


def _docstring_paragraph(body: str) -> str:
    """The first paragraph of a docstring as plain text (reST roles and literals unwrapped)."""
    lines: list[str] = []
    for raw in body.strip().splitlines():
        line = raw.strip()
        if not line:
            if lines:
                break
            continue
        if line.startswith(("::", ">>>", "..", "* ", "- ")) and lines:
            break
        lines.append(line)
    return plain(" ".join(lines))


_LICENCE = LazyPattern(r"(?i)licen[cs]ed?\b|spdx-license|all rights reserved|permission is hereby granted")
_COPYRIGHT_LINE = LazyPattern(r"(?i)(?:copyright\b|\(c\)|©)")
_COMMENT_PREFIXES = ("//!", "///", "//", "#", "--", ";")
_EMPTY_COMMENT_LINES = LazyPattern(r"\A(?:[ \t]*(?:#|//|--|;)?[ \t]*\n)+")


def without_licence_header(text: str) -> str:
    """``text`` without the licence or copyright notice in the comments it opens with: the notice
    is about the project's terms, not about the file, and repeated in every file it would outweigh
    what the files say. A copyright line goes alone; a licence goes to the end of its paragraph
    (an empty comment line), since its sentences run over lines that do not name it. The
    comments' other lines, a file's own description, stay."""
    lines = text.splitlines(keepends=True)
    kept: list[str] = []
    in_block = dropping = False
    for n, line in enumerate(lines):
        stripped = line.strip()
        opens = not in_block and stripped.startswith("/*")
        in_block = in_block or opens
        if in_block:
            closes = "*/" in stripped
            body = stripped.removeprefix("/*").split("*/", 1)[0].strip().lstrip("*").strip()
        elif stripped.startswith(_COMMENT_PREFIXES):
            closes, body = False, stripped.lstrip("#/!-;").strip()
        elif not stripped:
            dropping = False
            kept.append(line)
            continue
        else:
            return "".join(kept + lines[n:])  # the code starts: nothing below is the header
        if not body:
            dropping = False
        elif _LICENCE.search(body):
            dropping = True
        if (dropping or (body and _COPYRIGHT_LINE.match(body))) and not (n == 0 and stripped.startswith("#!")):
            # The block's delimiters stay, so what is left still parses as the comment it was.
            kept.append(("/*" if opens else "") + ("*/" if closes else "") + "\n" if opens or closes else "")
        else:
            kept.append(line)
        if closes:
            in_block = dropping = False
    return "".join(kept)


def _leading_comment(text: str) -> str:
    """The first paragraph of the comment a file opens with (``#``, ``//``, ``--``, ``;`` or ``/* */``),
    a licence notice left out."""
    rest = without_licence_header(text).lstrip()
    if rest.startswith("#!"):
        rest = rest.split("\n", 1)[1].lstrip() if "\n" in rest else ""
    rest = _EMPTY_COMMENT_LINES.sub("", rest)  # what a licence notice left of its comment
    while rest.startswith("/*") and not any(ch.isalnum() for ch in rest[2 : rest.find("*/")]) and "*/" in rest:
        rest = rest[rest.find("*/") + 2 :].lstrip()  # a block left empty by the licence it held
    if rest.startswith("/*"):
        end = rest.find("*/")
        block = rest[2 : end if end >= 0 else len(rest)]
        return _docstring_paragraph("\n".join(line.strip().lstrip("*").strip() for line in block.splitlines()))
    for prefix in _COMMENT_PREFIXES:
        if rest.startswith(prefix):
            break
    else:
        return ""
    lines: list[str] = []
    for raw in rest.splitlines():
        line = raw.strip()
        if not line.startswith(prefix):
            break
        body = line[len(prefix) :].strip()
        if prefix == "//" and body.startswith(("/", "!")):
            body = body[1:].strip()
        if _NOISE_SENTENCE.match(body):
            continue
        if not body:
            if lines:
                break
            continue
        lines.append(body)
    return plain(" ".join(lines))


# --- manifests and data ------------------------------------------------------------

_JSON_FIELD = r'"{key}"\s*:\s*"((?:[^"\\\n]|\\.)*)"'
_TOML_FIELD = r'(?m)^{key}[ \t]*=[ \t]*(?:"((?:[^"\\\n]|\\.)*)"|\'([^\'\n]*)\')'
_LINE_FIELD = r"(?m)^{key}[ \t]*[:=][ \t]*(.+)$"


def _manifest_fields(name: str, text: str) -> tuple[str, str]:
    """(name, description) of a manifest or data file that declares them at its top level."""
    lower = name.lower()
    if lower.endswith((".json", ".jsonc", ".jsonl")) or (not lower.endswith(".toml") and text.lstrip().startswith("{")):
        found = [re.search(_JSON_FIELD.format(key=key), text) for key in ("name", "description")]
        values = [_unescape(m.group(1)) if m else "" for m in found]
    elif lower.endswith(".toml"):
        found = [re.search(_TOML_FIELD.format(key=key), text) for key in ("name", "description")]
        values = [(m.group(1) or m.group(2) or "") if m else "" for m in found]
    else:  # YAML, INI, setup.cfg: "key: value" or "key = value" on a line of its own
        found = [re.search(_LINE_FIELD.format(key=key), text) for key in ("name", "description")]
        values = [m.group(1).strip().strip("'\"") if m else "" for m in found]
    name, description = (" ".join(v.split()) for v in values)
    if description in ("|", ">", "|-", ">-"):
        description = ""
    return name, description


def _unescape(value: str) -> str:
    return value.replace('\\"', '"').replace("\\n", " ").replace("\\\\", "\\")
