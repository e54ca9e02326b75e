"""Directory summaries: the L1 overview (``.overview.md``) and the L0 abstract derived from it.

Two summarisers produce the same Markdown shape (H1 = directory name, a brief
paragraph that becomes L0, then ``##`` sections):

* the **extractive** one runs offline and is deterministic, so an unchanged tree
  gives byte-identical sidecars and clean git diffs;
* with an enabled ``llm`` config, a prompt template (``ov/llm/templates/overview.yaml``,
  overridable in ``$OV_HOME/prompts``) is sent through :mod:`ov.llm.client`.

Size rules follow OpenViking: L0 ≤ 256 and L1 ≤ 4000 characters, cut at a
sentence end. Directories with more than 32 children are summarised from a
stable sample of them.
"""

from __future__ import annotations

import hashlib
import logging
import math
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from ov.config import LLMConfig
from ov.errors import InvalidInput
from ov.store import sidecar

SAMPLE_LIMIT = 32
KEY_TERMS = 10

log = logging.getLogger(__name__)

# Names that usually introduce a directory; they lead the brief paragraph and are always sampled.
_REPRESENTATIVE = ("readme", "index", "_index", "intro", "introduction", "overview", "about", "summary")
_SENTENCE_END = re.compile(r"\.(?!\d)(?=\s|$)|[!?](?=\s|$)|[。？！]")
_HAN = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_HAN_RUN = re.compile(f"[{_HAN}]+")
_KANA_RUN = re.compile("[\u30a0-\u30ff]{2,}")  # katakana words; hiragana is mostly grammar
_HANGUL_RUN = re.compile("[\uac00-\ud7af]{2,}")
_NON_WORD_SCRIPTS = re.compile(f"[{_HAN}\u3040-\u30ff\uac00-\ud7af]+")
_WORD = re.compile(r"[^\W\d_](?:[\w'’-]*\w)?")
_URL = re.compile(r"(?:https?|ftp)://\S+|www\.\S+")
_STOP_WORDS = frozenset(
    """a about above after again against all also am an and any are aren't as at be because been before being
    below between both but by can cannot could couldn't did didn't do does doesn't doing don't down during each
    eg etc few for from further get gets got had hadn't has hasn't have haven't having he her here hers herself him
    himself his how however i ie if in into is isn't it it's its itself just let let's like made make makes many may
    me might more most much must my myself need needs no nor not now of off often on once one only or other ought our
    ours ourselves out over own per same see she should shouldn't since so some such than that that's the their
    theirs them themselves then there there's these they this those through thus to too under until up upon us use
    used uses using very via was wasn't we well were weren't what when where whether which while who whom whose why
    will with within without won't would wouldn't yes yet you your yours yourself yourselves
    file files directory directories folder folders section sections page pages document documents example
    examples new two three first second md txt pdf html htm json yaml yml csv www http https com org""".split()
)
# Bigrams that say nothing about a topic (function words glued together).
_CJK_STOP_CHARS = frozenset("的了是在和与或及这那个们也就都而之其于被把吗呢吧啊么我你他她它")
_CJK_STOP_BIGRAMS = frozenset(
    "可以 一个 使用 进行 如果 因为 所以 但是 以及 通过 需要 没有 已经 什么 如何 自己 时候 以下 以上 如下 包括 例如"
    " 比如 或者 然后 这样 还是 只是 可能 应该 不是 不会 对于 关于 之后 之前 并且 而且 虽然 目录 文件 文档 内容".split()
)


@dataclass
class DirectorySummary:
    """The L1 body a summariser produced for one directory, and what it cost."""

    overview: str  # Markdown body: H1, brief paragraph (becomes L0), then sections
    total_entries: int
    sampled_entries: int
    tokens: dict[str, int] = field(default_factory=dict)  # prompt/completion tokens when an LLM wrote it


@dataclass(frozen=True)
class ChildInfo:
    """One direct child of the directory being summarised."""

    name: str
    is_dir: bool
    title: str | None = None
    text: str = ""  # files: their content (the caller may have cut it short)
    abstract: str | None = None  # directories: their current L0 body


# --- public API ----------------------------------------------------------------


def summarize_directory(
    dir_uri: str,
    children: list[ChildInfo],
    *,
    description: str | None = None,
    llm: LLMConfig | None = None,
    prompts_dir: Path | None = None,
) -> DirectorySummary:
    """The L1 body of ``dir_uri`` from its direct ``children`` (pass them in a stable order).

    Without an enabled ``llm`` the summary is extractive and deterministic. With one,
    a model writes it; an answer without an H1 and a brief paragraph is replaced by
    the extractive summary (logged), and network or HTTP failures raise
    :class:`ov.llm.client.LLMError`.
    """
    sample = sample_children(children)
    if llm is not None and llm.enabled:
        return _llm_summary(dir_uri, children, sample, description, llm, prompts_dir)
    overview = _extractive(_dir_name(dir_uri), children, sample, description)
    return DirectorySummary(overview=overview, total_entries=len(children), sampled_entries=len(sample))


def sample_children(children: list[ChildInfo], limit: int = SAMPLE_LIMIT) -> list[ChildInfo]:
    """At most ``limit`` children, in their original order.

    The choice depends on each name alone (introductory files first, then by a hash
    of the name), so adding or removing one child changes at most one sampled entry.
    """
    if len(children) <= limit:
        return list(children)
    ranked = sorted(range(len(children)), key=lambda i: (not _is_representative(children[i].name), _name_rank(children[i].name), i))
    chosen = set(ranked[:limit])
    return [child for i, child in enumerate(children) if i in chosen]


def derive_abstract(overview_body: str) -> str:
    """L0 from an L1 body: the lines between the leading title/blank lines and the first ``##`` line."""
    collected: list[str] = []
    for line in overview_body.splitlines():
        stripped = line.strip()
        if not collected and (not stripped or stripped.startswith("#")):
            continue
        if stripped.startswith("##"):
            break
        if stripped:
            collected.append(stripped)
    return truncate_generated("\n".join(collected), sidecar.ABSTRACT_MAX_CHARS)


def truncate_generated(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` characters at the last sentence end that fits.

    Without such a sentence end the cut falls on a word boundary and ends in ``...``.
    (OpenViking would keep a first sentence longer than the limit; ov's limits are hard.)
    """
    if limit <= 0 or len(text) <= limit:
        return text
    if limit <= 3:
        return text[:limit]
    last_end = None
    for match in _SENTENCE_END.finditer(text, 0, limit + 1):
        if match.end() <= limit:
            last_end = match.end()
    if last_end is not None:
        return text[:last_end].strip()
    head = text[: limit - 3]
    if not text[limit - 3].isspace():  # the cut fell inside a word: drop the partial word
        space = max(head.rfind(" "), head.rfind("\n"), head.rfind("\t"))
        if space > 0:
            head = head[:space]
    return head.rstrip() + "..."


def render_sidecars(
    dir_uri: str,
    summary: DirectorySummary,
    *,
    source: dict | None,
    generated_by: tuple[str, str],
) -> tuple[str, str]:
    """The full text of ``.abstract.md`` and ``.overview.md`` (OKF frontmatter and body)."""
    component, trigger = generated_by
    for label in (component, trigger):
        if not isinstance(label, str) or not label or len(label) > 128:
            raise InvalidInput(f"generated_by labels must be 1 to 128 characters, not {label!r}")
    meta: dict = {"directory": sidecar.directory_uri(dir_uri)}
    if source is not None:
        kind, uri = source.get("kind"), source.get("uri")
        if not isinstance(kind, str) or not isinstance(uri, str) or len(uri) > 4096:
            raise InvalidInput("a sidecar source needs a kind and a uri of at most 4096 characters")
        meta["source"] = {"kind": kind, "uri": uri}
    total, sampled = summary.total_entries, min(summary.sampled_entries, summary.total_entries)
    meta["generated_by"] = {"component": component, "trigger": trigger}
    meta["freshness"] = {
        "total_entries": total,
        "sampled_entries": sampled,
        "unsampled_entries": total - sampled,
        "pending_child_changes": 0,
    }
    overview = truncate_generated(summary.overview.strip(), sidecar.OVERVIEW_MAX_CHARS)
    return sidecar.render(meta, derive_abstract(overview)), sidecar.render(meta, overview)


# --- the extractive summariser -------------------------------------------------


def _extractive(name: str, children: list[ChildInfo], sample: list[ChildInfo], description: str | None) -> str:
    lang = _language(sample)
    terms = key_terms(children, exclude=_tokens(name))
    brief = _brief(children, sample, terms, lang, description)
    head = f"# {name}\n\n{brief}"
    if not children:
        return head
    tail = "\n\n## Key terms\n\n" + ", ".join(terms) if terms else ""
    note = "\n\n" + ("此处仅列出部分条目。" if lang == "zh" else "Only a sample of the entries is listed.") if len(sample) < len(children) else ""
    room = sidecar.OVERVIEW_MAX_CHARS - len(head) - len(tail) - len(note) - len("\n\n## Contents\n\n")
    lines: list[str] = []
    for cap in (200, 140, 100, 70, 40, 0):
        lines = [_contents_line(child, cap) for child in sample]
        if len("\n".join(lines)) <= room:
            break
    while lines and len("\n".join(lines)) > room:
        lines.pop()  # names alone do not fit: list what does
    overview = head + "\n\n## Contents\n\n" + "\n".join(lines) + note + tail
    return truncate_generated(overview, sidecar.OVERVIEW_MAX_CHARS)


def _brief(children: list[ChildInfo], sample: list[ChildInfo], terms: list[str], lang: str, description: str | None) -> str:
    if description and description.strip():
        return " ".join(description.split())
    zh = lang == "zh"
    if not children:
        return "该目录目前为空。" if zh else "This directory is empty."
    has_files, has_dirs = any(not c.is_dir for c in children), any(c.is_dir for c in children)
    if zh:
        kinds = "文件和子目录" if has_files and has_dirs else "子目录" if has_dirs else "文件"
        topics = "、".join(terms[:2]) + ("和" + terms[2] if len(terms) > 2 else "")
        first = f"该目录包含关于{topics}的{kinds}。" if terms else f"该目录包含{kinds}。"
    else:
        kinds = "files and subdirectories" if has_files and has_dirs else "subdirectories" if has_dirs else "files"
        if terms:
            first = f"This directory holds {kinds} about {_join_en(terms[:3])}."
        else:
            names = [c.name + ("/" if c.is_dir else "") for c in sample[:3]]
            first = f"This directory holds {kinds} {'such as' if len(children) > 3 else 'named'} {_join_en(names)}."
    lead = _lead_of(_representative(sample))
    room = sidecar.ABSTRACT_MAX_CHARS - len(first) - 1
    if not lead or room < 40:
        return first
    sentences = _sentences(lead)
    chosen = ""
    for sentence in sentences[:2]:
        candidate = _join_sentences(chosen, sentence)
        if len(candidate) > room:
            break
        chosen = candidate
    if not chosen and room >= 60:
        chosen = truncate_generated(sentences[0], room)
    return _join_sentences(first, chosen)


def _contents_line(child: ChildInfo, cap: int) -> str:
    label = child.name + ("/" if child.is_dir else "")
    if child.is_dir:
        gist = " ".join((child.abstract or "").split()) or (child.title or "")
    else:
        sentences = _sentences(_lead_of(child))
        gist = sentences[0] if sentences else (child.title or "")
    gist = truncate_generated(gist, cap) if cap else ""
    return f"- {label}: {gist}" if gist else f"- {label}"


def _representative(sample: list[ChildInfo]) -> ChildInfo | None:
    files = [c for c in sample if not c.is_dir and c.text.strip()]
    for stem in _REPRESENTATIVE:
        for child in files:
            if _stem(child.name).lower() == stem:
                return child
    if files:
        return min(files, key=lambda c: (-len(c.text), c.name))
    dirs = [c for c in sample if c.is_dir and c.abstract]
    return min(dirs, key=lambda c: (-len(c.abstract or ""), c.name)) if dirs else None


def _lead_of(child: ChildInfo | None) -> str:
    if child is None:
        return ""
    if child.is_dir:
        return " ".join(_without_template(child.abstract).split())
    description, body = _split_frontmatter(child.text.replace("\r\n", "\n"))
    return description or _first_paragraph(body)


def _split_frontmatter(text: str) -> tuple[str, str]:
    """(the frontmatter's one-line ``description``, the body) of a Markdown file."""
    if not text.startswith("---\n"):
        return "", text
    end = text.find("\n---", 3)
    if end < 0:
        return "", text
    front, body = text[4:end], text[end + 4 :]
    match = re.search(r"^description:[ \t]*(.+)$", front, re.MULTILINE)
    value = match.group(1).strip().strip("'\"") if match else ""
    return ("" if value in ("|", ">", "|-", ">-") else value), body


def _first_paragraph(text: str) -> str:
    """The first run of prose lines, Markdown syntax removed; headings, code, tables and rules skipped."""
    paragraph: list[str] = []
    in_code = False
    for line in _prose_lines(text):
        if line is None:
            if paragraph:
                break
            continue
        if line.startswith(("```", "~~~")):
            if paragraph:
                break
            in_code = not in_code
            continue
        if in_code:
            continue
        plain = _plain(line)
        if plain:
            paragraph.append(plain)
        elif paragraph:
            break
    return " ".join(paragraph)


def _prose_lines(text: str):
    """Lines with Markdown structure stripped; ``None`` marks a paragraph break."""
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith(("```", "~~~")):
            yield line
        elif not line or line.startswith(("#", "|", "<!--", "---", "***", "___", "===")):
            yield None
        else:
            yield re.sub(r"^(?:>\s*)+|^(?:[-*+]|\d+[.)])\s+", "", line)


def _plain(line: str) -> str:
    line = re.sub(r"!\[[^\]]*\]\([^)]*\)", "", line)
    line = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", line)
    line = re.sub(r"<[^>\n]+>", "", line)
    line = re.sub(r"(\*\*|__|`)(.+?)\1", r"\2", line)
    return " ".join(line.replace("`", "").split())


def _sentences(text: str) -> list[str]:
    out, start = [], 0
    for match in _SENTENCE_END.finditer(text):
        piece = text[start : match.end()].strip()
        if piece:
            out.append(piece)
        start = match.end()
    rest = text[start:].strip()
    if rest:
        out.append(rest)
    return out


# --- key terms -------------------------------------------------------------------


_DIGIT = re.compile(r"\d")


def key_terms(children: list[ChildInfo], *, limit: int = KEY_TERMS, exclude: frozenset[str] | set[str] = frozenset()) -> list[str]:
    """The terms that best characterise the children, best first.

    Each child is one document; a term scores by its damped frequency in each
    document times a mild inverse document frequency, so words shared by many
    children (the directory's theme) and words central to one child both count.
    Han text has no spaces, so it contributes overlapping two-character terms; one
    that only ever appears inside the same longer string ("署指" of "部署指南") is
    a fragment across two words, not a word, and is dropped.
    """
    per_doc: list[Counter[str]] = []
    surface: dict[str, Counter[str]] = {}
    contexts: dict[str, set[str]] = {}
    for child in children:
        body = _without_template(child.abstract) if child.is_dir else _without_code(child.text)
        text = " ".join(filter(None, (_stem(child.name).replace("_", " ").replace("-", " "), child.title, body)))
        counts: Counter[str] = Counter()
        for (key, form, context), n in _terms(text).items():
            if key in exclude:
                continue
            counts[key] += n
            forms = surface.get(key)
            if forms is None:  # not setdefault(): that would build a Counter per occurrence
                forms = surface[key] = Counter()
                contexts[key] = set()
            forms[form] += n
            contexts[key].add(context)
        per_doc.append(counts)
    fragments = {k for k, seen in contexts.items() if len(seen) == 1 and "" not in seen}
    per_doc = [Counter({k: n for k, n in counts.items() if k not in fragments}) for counts in per_doc]
    n_docs = len(per_doc)
    df: Counter[str] = Counter()
    weight: dict[str, float] = {}
    total: Counter[str] = Counter()
    for counts in per_doc:
        for key, tf in counts.items():
            df[key] += 1
            total[key] += tf
            weight[key] = weight.get(key, 0.0) + 1.0 + math.log(tf)
    scored = [(total[k] < 2, -round(w * math.log(1 + n_docs / df[k]), 6), k) for k, w in weight.items()]
    scored.sort()
    return [_display(surface[k]) for _, _, k in scored[:limit]]


# The sentence this module opens a generated abstract with: its words describe the layout, not the
# content, and would otherwise become the parent's key terms ("holds", "subdirectories").
_TEMPLATE_RE = re.compile(r"^(?:This directory (?:holds|is empty)[^.]*\.|该目录[^。]*。)\s*")


def _without_template(abstract: str | None) -> str:
    return _TEMPLATE_RE.sub("", abstract or "")


def _terms(text: str) -> Counter[tuple[str, str, str]]:
    """Counts of (key, surface form, context): lowercase words of alphabetic scripts, Han
    bigrams, katakana and hangul words. ``context`` is "" for a term at a word boundary,
    else the characters around the bigram."""
    text = _URL.sub(" ", text)
    out: Counter[tuple[str, str, str]] = Counter()
    # Most text is ASCII: the CJK passes can find nothing there, so skip them.
    ascii_only = text.isascii()
    for run in () if ascii_only else _HAN_RUN.findall(text):
        for i in range(len(run) - 1):
            gram = run[i : i + 2]
            if gram in _CJK_STOP_BIGRAMS or _CJK_STOP_CHARS & set(gram):
                continue
            left, right = run[i - 1 : i], run[i + 2 : i + 3]
            # Function characters delimit words as well as the ends of a run do.
            at_boundary = not left or not right or left in _CJK_STOP_CHARS or right in _CJK_STOP_CHARS
            out[(gram, gram, "" if at_boundary else left + right)] += 1
    for pattern in () if ascii_only else (_KANA_RUN, _HANGUL_RUN):
        for word in pattern.findall(text):
            out[(word, word, "")] += 1
    # Words repeat a lot: filter and fold each distinct word once, then add its count.
    for word, n in Counter(_WORD.findall(text if ascii_only else _NON_WORD_SCRIPTS.sub(" ", text))).items():
        key = word.lower().replace("’", "'").strip("'-")
        if 3 <= len(key) <= 40 and key not in _STOP_WORDS and not key.endswith("'s") and not _DIGIT.search(key):
            out[(_singular(key), word.strip("'’-"), "")] += n
    return out


def _singular(word: str) -> str:
    """A crude English plural fold, so "rollback" and "rollbacks" count as one term."""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def _display(forms: Counter[str]) -> str:
    # Capitals from titles and sentence starts should not win over the plain word; acronyms keep theirs.
    plain = {form: n for form, n in forms.items() if form == form.lower()} or forms
    return min(plain.items(), key=lambda item: (-item[1], item[0]))[0]


def _tokens(text: str) -> frozenset[str]:
    return frozenset(key for key, _, _ in _terms(text.replace("_", " ").replace("-", " ")))


def _without_code(text: str) -> str:
    return re.sub(r"^(```|~~~).*?^\1[^\n]*$", " ", text, flags=re.MULTILINE | re.DOTALL)


def _language(children: list[ChildInfo]) -> str:
    """"zh" when the children are mostly Chinese (Han without kana), else "en": the brief's phrasing."""
    text = " ".join((c.abstract or "") if c.is_dir else c.text[:4000] for c in children)
    han = sum(len(run) for run in _HAN_RUN.findall(text))
    kana = len(re.findall("[\u3040-\u30ff]", text))
    latin = len(re.findall("[A-Za-z]", text))
    return "zh" if han and han * 3 > latin and kana * 10 < han else "en"


# --- the LLM summariser --------------------------------------------------------


def _llm_summary(
    dir_uri: str,
    children: list[ChildInfo],
    sample: list[ChildInfo],
    description: str | None,
    llm: LLMConfig,
    prompts_dir: Path | None,
) -> DirectorySummary:
    from ov.llm.client import complete
    from ov.summaries.overview_prompt import load_overview_prompt, overview_messages

    name = _dir_name(dir_uri)
    prompt = load_overview_prompt(prompts_dir)
    messages = overview_messages(
        prompt,
        dir_uri=sidecar.directory_uri(dir_uri),
        dir_name=name,
        sample=sample,
        sampled=len(sample) < len(children),
        description=description,
        max_prompt_chars=llm.max_prompt_chars,
    )
    if messages is None:
        log.warning("%s: llm.max_prompt_chars leaves no room for the entries; using the extractive summary", dir_uri)
        return DirectorySummary(_extractive(name, children, sample, description), len(children), len(sample))
    completion = complete(llm, messages, purpose=f"overview of {sidecar.directory_uri(dir_uri)}", temperature=prompt.temperature)
    tokens = {"prompt_tokens": completion.prompt_tokens, "completion_tokens": completion.completion_tokens}
    overview = clean_overview(completion.text, name)
    if overview is None:
        log.warning("%s: the model's overview has no title and brief paragraph; using the extractive summary", dir_uri)
        overview = _extractive(name, children, sample, description)
    return DirectorySummary(
        overview=truncate_generated(overview, sidecar.OVERVIEW_MAX_CHARS),
        total_entries=len(children),
        sampled_entries=len(sample),
        tokens=tokens,
    )


def clean_overview(text: str, dir_name: str) -> str | None:
    """The model's answer as an overview body, or None when it lacks an H1 followed by a brief paragraph.

    Reasoning blocks and a wrapping code fence are removed; the H1 is set to the
    directory name so every overview is titled alike.
    """
    text = re.sub(r"<think>.*?</think>", "", text, flags=re.DOTALL | re.IGNORECASE).strip()
    fence = re.fullmatch(r"(```|~~~)[\w-]*\n(.*)\n\1", text, flags=re.DOTALL)
    if fence:
        text = fence.group(2).strip()
    lines = text.splitlines()
    if not lines or not re.match(r"#\s+\S", lines[0]):
        return None
    rest = "\n".join(lines[1:]).strip()
    if not rest or rest.startswith("#") or not derive_abstract(rest):
        return None
    return f"# {dir_name}\n\n{rest}"


# --- names -----------------------------------------------------------------------


def _dir_name(dir_uri: str) -> str:
    path = dir_uri.split("://", 1)[-1].strip("/")
    return path.rsplit("/", 1)[-1] if path else dir_uri


def _stem(name: str) -> str:
    return name.rsplit(".", 1)[0] if "." in name.strip(".") else name


def _is_representative(name: str) -> bool:
    return _stem(name).lower() in _REPRESENTATIVE


def _name_rank(name: str) -> bytes:
    return hashlib.sha256(name.encode("utf-8", "surrogatepass")).digest()


def _join_sentences(first: str, second: str) -> str:
    if not first or not second:
        return first or second
    # Chinese and Japanese run sentences together without a space.
    return first + ("" if first[-1] in "。？！" else " ") + second


def _join_en(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]
