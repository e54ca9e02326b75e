"""The offline, deterministic summariser: a directory overview built from what its entries say.

The overview has the shape every summariser gives (H1 = directory name, a brief
paragraph that becomes L0, then ``##`` sections). Its text is made of facts, read
from each entry by :mod:`ov.summaries.facts`:

* the **brief** (L0) leads with the sentence that introduces the directory — a
  README's first paragraph, a package's ``__init__`` docstring, a manifest's
  description, the first section of a split document — and then says what the
  directory holds: "Holds 5 Python modules (…) and 1 subdirectory (embedders/)."
  A directory of memories leads with the memories themselves;
* **Contents** gives one line per (sampled) entry: its lead sentence or title, the
  sections of a document, the names a module defines, a subdirectory's L0;
* **Key terms** are counted over prose only (docstrings and comments of code, the text
  of documents), never over code tokens like ``self`` or ``None``.

Chinese directories keep a Chinese brief. The same children always give the same bytes.
"""

from __future__ import annotations

import math
import re
from collections import Counter

from ov import scripts
from ov.store import sidecar
from ov.summaries.facts import FileFacts, file_facts, introduces, kind_label, kind_of, lead_of, prose_of
from ov.summaries.layers import REPRESENTATIVE, ChildInfo, stem
from ov.summaries.scaffold import (
    CONTENTS_HEADING,
    DEFINES_LABEL,
    EMPTY_BRIEFS,
    HOLDS,
    KEY_TERMS_HEADING,
    MORE,
    SAMPLE_NOTES,
    SECTIONS_LABEL,
    SUBDIRECTORY,
    ZH_KINDS,
    strip_layout,
    zh_brief,
)
from ov.summaries.text import as_sentence, join_sentences, truncate_generated

KEY_TERMS = 10

_HAN_RUN = re.compile(f"[{scripts.char_class(*scripts.HAN_BASIC)}]+")
_KANA_RUN = re.compile(f"[{scripts.char_class(scripts.KATAKANA)}]{{2,}}")  # katakana words; hiragana is mostly grammar
_HANGUL_RUN = re.compile(f"[{scripts.char_class(scripts.HANGUL)}]{{2,}}")
_NON_WORD_SCRIPTS = re.compile(f"[{scripts.char_class(*scripts.CJK)}]+")
_KANA = re.compile(f"[{scripts.char_class(scripts.KANA)}]")
_WORD = re.compile(r"[^\W\d_](?:[\w'’-]*\w)?")
_URL = re.compile(r"(?:https?|ftp)://\S+|www\.\S+")
# The function words of the other common languages (articles, pronouns, prepositions, conjunctions,
# auxiliaries), which lead any count of their text as "the" and "and" lead English's. Words of three
# letters or more only (shorter ones are never terms), and none that is an English word a topic may
# be named by ("come", "dove", "son", "sin").
_OTHER_STOP_WORDS = {
    "de": """der die das den dem des ein eine einer eines einem einen und oder aber nicht ist sind war waren wird werden
        wurde wurden hat haben hatte kann können muss müssen soll sollte mit von zum zur auf für bei nach aus über unter
        vor durch als wie wenn dass auch nur noch schon sich sie wir ihr ihre ihren ihrem dieser diese dieses diesen
        jeder jede jedes alle allen kein keine keinen mehr sehr hier dort dann bis gibt wieder ohne damit sein seine
        seiner seinen uns euch einem zwischen""",
    "fr": """les des une que qui est sont dans pour avec sur par pas plus aux ces cette cet ils elle elles nous vous
        leur leurs ses sans tout tous toute toutes mais donc car être avoir été fait peut doit entre chaque aussi
        lors dont comme très peu encore même quand chez vers""",
    "es": """los las unos unas del por para que está están ser fue sido más pero sus este esta estos estas ese esa
        esos esas cuando donde también muy sobre entre hasta desde cada todo todos toda todas hay puede debe tiene
        tienen cual como""",
    "it": """gli uno una del della dei delle degli dal dalla dai dalle nel nella nei nelle sul sulla per tra fra che non
        sono essere stato stata viene vengono più anche questo questa questi queste quello quella quando ogni tutti
        tutte può deve hanno alla alle allo agli""",
    "pt": """uns umas dos das nos nas por para com que são ser foi está estão mais mas também quando onde cada todos
        todas pode deve seu sua seus suas este esta isso isto pela pelo pelas pelos não aos""",
    "nl": """het een van voor met aan bij naar uit door over zijn was wordt worden werd kan moet niet ook als dan dat
        die deze dit hij zij wij hun nog wel geen meer tot heeft hebben bij naar hoe waar zoals""",
    "ru": """что как все она так его только мне было вот меня еще ещё нет ему когда даже если уже или быть был него
        вас там потом себя может они тут где есть надо ней для чем была сам чтобы без чего тоже себе под будет тогда
        кто этот того потому этого какой ним здесь этом тем при после над больше тот через эти нас про всего них много
        эту этой перед такой более всегда между также который которые которая которое которых""",
}
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
    every never always nothing anything something everything still even ever instead rather either neither
    file files directory directories folder folders section sections page pages document documents example
    examples new two three first second md txt pdf html htm json yaml yml csv www http https com org"""
    # Code tokens: they leak in through docstrings, comments and inline code, and say nothing about a topic.
    """ self cls none null nil true false import imports def elif else except finally lambda async await yield
    raise return returns pass str int float bool dict tuple bytes args kwargs const var func fn pub impl struct
    enum mut usize isize void undefined typeof instanceof println printf init todo fixme noqa param params rtype
    type types typing annotations future class classes function functions method methods module modules object
    objects string strings optional callable isinstance staticmethod classmethod dataclass""".split()
) | {word for words in _OTHER_STOP_WORDS.values() for word in words.split()}
# Bigrams that say nothing about a topic (function words glued together).
_CJK_STOP_CHARS = frozenset("的了是在和与或及这那个们也就都而之其于被把吗呢吧啊么我你他她它")
_CJK_STOP_BIGRAMS = frozenset(
    "可以 一个 使用 进行 如果 因为 所以 但是 以及 通过 需要 没有 已经 什么 如何 自己 时候 以下 以上 如下 包括 例如"
    " 比如 或者 然后 这样 还是 只是 可能 应该 不是 不会 对于 关于 之后 之前 并且 而且 虽然 目录 文件 文档 内容".split()
)
_LABEL_RE = re.compile(r"^(?:[\w-]+\.[\w.-]+|[\w.-]+/): ")  # "deploys.md: " before a sentence taken from one entry
_SECTION_PREFIX = re.compile(r"^\d+_")
_PART_SUFFIX = re.compile(r"(?:[ _]part ?\d+| \(part \d+ of \d+\))$")
LIST_TRIES = (None, 8, 6, 4, 3, 2, 1, 0)


def extractive_overview(name: str, children: list[ChildInfo], sample: list[ChildInfo], description: str | None) -> str:
    """The overview body of the directory ``name`` with these ``children`` (``sample`` listed)."""
    lang = _language(sample)
    kinds = [None if c.is_dir else kind_of(c.name, c.text) for c in children]
    facts = {id(c): file_facts(c.name, c.text, c.title) for c in sample if not c.is_dir}
    terms = key_terms(children, exclude=_tokens(name), kinds=kinds)
    if description and description.strip():
        brief = " ".join(description.split())
    elif not children:
        brief = EMPTY_BRIEFS[lang]
    elif lang == "zh":
        brief = _brief_zh(children, sample, facts, terms, name)
    else:
        brief = _brief(children, kinds, sample, facts, name)
    head = f"# {name}\n\n{brief}"
    if not children:
        return head
    tail = f"\n\n{KEY_TERMS_HEADING}\n\n" + ", ".join(terms) if terms else ""
    note = "\n\n" + SAMPLE_NOTES[lang] if len(sample) < len(children) else ""
    contents = f"\n\n{CONTENTS_HEADING}\n\n"
    room = sidecar.OVERVIEW_MAX_CHARS - len(head) - len(tail) - len(note) - len(contents)
    lines: list[str] = []
    for cap in (240, 200, 140, 100, 70, 40, 0):
        lines = [_contents_line(child, facts.get(id(child)), cap) for child in sample]
        if len("\n".join(lines)) <= room:
            break
    while lines and len("\n".join(lines)) > room:
        lines.pop()  # names alone do not fit: list what does
    overview = head + contents + "\n".join(lines) + note + tail
    return truncate_generated(overview, sidecar.OVERVIEW_MAX_CHARS)


# --- the brief (L0) ----------------------------------------------------------------


def _brief(children: list[ChildInfo], kinds: list[str | None], sample: list[ChildInfo], facts: dict[int, FileFacts], name: str) -> str:
    limit = sidecar.ABSTRACT_MAX_CHARS
    groups = _groups(children, kinds, facts)
    shortest = _holds(groups, 0)
    memories = [facts[id(c)].lead for c in sample if id(c) in facts and facts[id(c)].kind == "memory" and facts[id(c)].lead]
    files = sum(1 for k in kinds if k is not None)
    if memories and kinds.count("memory") * 2 >= files:
        # A directory of memories is what they say: the facts first, as many as fit whole.
        # Subdirectories of memories contribute the facts their abstracts lead with.
        memories += [text for text in (_dir_lead(c) for c in sample if c.is_dir) if text]
        lead = ""
        for fact in memories:
            candidate = join_sentences(lead, as_sentence(fact))
            if len(candidate) + 1 + len(shortest) > limit:
                break
            lead = candidate
        if not lead:
            lead = truncate_generated(as_sentence(memories[0]), limit - len(shortest) - 1)
        return _join_fitting(lead, groups, limit)
    lead, own = _lead(children, sample, facts, name)
    if not lead:
        return _holds_fitting(groups, limit)
    lead = truncate_generated(lead, max(limit - len(shortest) - 1, 60))
    if own:  # the directory's own introduction leads
        return _join_fitting(lead, groups, limit)
    if lead.endswith("..."):  # another entry's sentence is worth quoting whole, or not at all
        return _holds_fitting(groups, limit)
    holds = _holds_fitting(groups, limit - len(lead) - 1)
    return truncate_generated(join_sentences(holds, lead), limit)


def _join_fitting(lead: str, groups: list[tuple[str, int, list[str]]], limit: int) -> str:
    return truncate_generated(join_sentences(lead, _holds_fitting(groups, limit - len(lead) - 1)), limit)


def _lead(children: list[ChildInfo], sample: list[ChildInfo], facts: dict[int, FileFacts], name: str) -> tuple[str, bool]:
    """(the sentence that says what the directory is, whether it is the directory's own).

    The directory's own: an introductory file (README, index, ``__init__``, a manifest,
    a file named like the directory), the first section of a split document, or the only
    file. Otherwise the most substantial file's lead, labelled with the file's name.
    A code module introduces only under its language's entry-point name (``__init__.py``,
    ``index.js``, ``lib.rs``).
    """
    files = [c for c in sample if not c.is_dir and id(c) in facts]
    for intro in (name.lower(), *REPRESENTATIVE):
        for child in files:
            if stem(child.name).lower() == intro and (intro == name.lower() or introduces(facts[id(child)].kind, intro)):
                fact = facts[id(child)]
                if fact.lead:
                    return fact.lead, True
                if fact.title and intro in ("readme", "index", "_index", "intro", "introduction", "overview", "about"):
                    return as_sentence(fact.title), True
    if children and all(_SECTION_PREFIX.match(c.name) for c in children):
        # A split document: its first section with any prose introduces it.
        for child in sample:
            text = _dir_lead(child) if child.is_dir else facts[id(child)].lead if id(child) in facts else ""
            if text:
                return text, True
    with_lead = [c for c in files if facts[id(c)].lead]
    if len(with_lead) == 1 and sum(1 for c in children if not c.is_dir) == 1:
        return facts[id(with_lead[0])].lead, True
    if with_lead:
        best = min(with_lead, key=lambda c: (-len(c.text), c.name))
        return f"{best.name}: {facts[id(best)].lead}", False
    dirs = [(c, _dir_lead(c)) for c in sample if c.is_dir]
    dirs = [(c, text) for c, text in dirs if text]
    if dirs:
        best, text = min(dirs, key=lambda pair: (-len(pair[1]), pair[0].name))
        return f"{best.name}/: {text}", False
    return "", False


def _dir_lead(child: ChildInfo) -> str:
    """The lead of a subdirectory's abstract: its first sentences, without layout or entry labels."""
    return lead_of(_LABEL_RE.sub("", strip_layout(child.abstract)))


def _groups(children: list[ChildInfo], kinds: list[str | None], facts: dict[int, FileFacts]) -> list[tuple[str, int, list[str]]]:
    """(kind, count, names) of the children: files by kind, most common first, then subdirectories.

    A split document's pieces (numbered files and folders) are one group of sections, named by
    their headings."""
    if children and all(_SECTION_PREFIX.match(c.name) for c in children) and all(k in (None, "section") for k in kinds):
        # A long section cut into parts is one section, known by its number and name (01_Setup_part2.md):
        # only its first part holds the heading, the others would be titled from the file name.
        sections: dict[str, str] = {}
        for child in children:
            sections.setdefault(_PART_SUFFIX.sub("", stem(child.name)), _PART_SUFFIX.sub("", _section_title(child, facts.get(id(child)))))
        names = list(sections.values())
        return [("section", len(names), names)]
    by_kind: dict[str, list[str]] = {}
    dirs: list[str] = []
    for child, kind in zip(children, kinds, strict=True):
        if kind is None:
            dirs.append(child.name + "/")
        else:
            by_kind.setdefault(kind, []).append(child.name)
    order = {kind: i for i, kind in enumerate(by_kind)}
    groups = sorted(((kind, len(names), names) for kind, names in by_kind.items()), key=lambda g: (-g[1], order[g[0]]))
    if dirs:
        groups.append(("subdirectory", len(dirs), dirs))
    return groups


def _section_title(child: ChildInfo, fact: FileFacts | None) -> str:
    if fact is not None and fact.title:
        return fact.title
    return _SECTION_PREFIX.sub("", stem(child.name)).replace("_", " ").strip() or child.name


def _holds_fitting(groups: list[tuple[str, int, list[str]]], room: int) -> str:
    """The "Holds ..." sentence with as many names as fit in ``room`` characters; when even the
    counts alone do not fit, the rarest kinds of file are counted together as "other files"."""
    for shown in LIST_TRIES:
        text = _holds(groups, shown)
        if len(text) <= room:
            return text
    files = [g for g in groups if g[0] != "subdirectory"]
    dirs = [g for g in groups if g[0] == "subdirectory"]
    while len(files) > 1:
        rarest, second = files.pop(), files.pop()
        files.append(("other file" if files else "file", rarest[1] + second[1], []))
        text = _holds(files + dirs, 0)
        if len(text) <= room:
            return text
    return ""


def _holds(groups: list[tuple[str, int, list[str]]], shown: int | None) -> str:
    """ "Holds 5 Python modules (a.py, b.py and 3 more) and 1 subdirectory (x/)." with at most
    ``shown`` names per group (None: all of them)."""
    parts = []
    for kind, count, names in groups:
        label = f"{count} {SUBDIRECTORY[0] if count == 1 else SUBDIRECTORY[1]}" if kind == "subdirectory" else kind_label(kind, count)
        listed = names if shown is None else names[:shown]
        if listed:
            rest = len(names) - len(listed)
            listed = listed + [f"{rest} {MORE}"] if rest else listed
            # Headings may hold commas and "and" themselves.
            label += f" ({'; '.join(listed) if kind == 'section' else _join_en(listed)})"
        parts.append(label)
    return f"{HOLDS} {_join_en(parts)}." if parts else ""


def _brief_zh(children: list[ChildInfo], sample: list[ChildInfo], facts: dict[int, FileFacts], terms: list[str], name: str) -> str:
    has_files, has_dirs = any(not c.is_dir for c in children), any(c.is_dir for c in children)
    kinds = ZH_KINDS["files and subdirectories" if has_files and has_dirs else "subdirectories" if has_dirs else "files"]
    topics = "、".join(terms[:2]) + ("和" + terms[2] if len(terms) > 2 else "")
    first = zh_brief(kinds, topics)
    lead, _own = _lead(children, sample, facts, name)
    room = sidecar.ABSTRACT_MAX_CHARS - len(first)
    if not lead or room < 40:
        return first
    return join_sentences(first, truncate_generated(lead, room))


# --- one line per entry (L1 contents) ------------------------------------------------


def _contents_line(child: ChildInfo, fact: FileFacts | None, cap: int) -> str:
    label = child.name + ("/" if child.is_dir else "")
    if child.is_dir:
        gist = " ".join((child.abstract or "").split()) or (child.title or "")
    elif fact is None:
        gist = ""
    else:
        gist = fact.lead or (as_sentence(fact.title) if fact.title else "")
        if fact.sections:
            gist = join_sentences(gist, f"{SECTIONS_LABEL} {'; '.join(fact.sections)}.")
        if fact.defines:
            names = list(fact.defines) + ([MORE] if fact.more_defined else [])
            gist = join_sentences(gist, f"{DEFINES_LABEL} {_join_en(names)}.")
    gist = truncate_generated(gist, cap) if cap else ""
    return f"- {label}: {gist}" if gist else f"- {label}"


# --- key terms -------------------------------------------------------------------


_DIGIT = re.compile(r"\d")


def key_terms(
    children: list[ChildInfo],
    *,
    limit: int = KEY_TERMS,
    exclude: frozenset[str] | set[str] = frozenset(),
    kinds: list[str | None] | None = None,
) -> list[str]:
    """The terms that best characterise the children, best first.

    Each child is one document; a term scores by its damped frequency in each
    document times a mild inverse document frequency, so words shared by many
    children (the directory's theme) and words central to one child both count.
    Only prose counts: the docstrings and comments of code, the text of documents,
    a subdirectory's abstract without its layout sentence. Han text has no spaces,
    so it contributes overlapping two-character terms; one that only ever appears
    inside the same longer string ("署指" of "部署指南") is a fragment across two
    words, not a word, and is dropped.
    """
    per_doc: list[Counter[str]] = []
    surface: dict[str, Counter[str]] = {}
    contexts: dict[str, set[str]] = {}
    for i, child in enumerate(children):
        kind = kinds[i] if kinds is not None else None
        body = strip_layout(child.abstract) if child.is_dir else prose_of(child.name, child.text, kind)
        text = " ".join(filter(None, (stem(child.name).replace("_", " ").replace("-", " "), child.title, body)))
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
        if 3 <= len(key) <= 40 and key not in _STOP_WORDS and not key.endswith("'s") and not _DIGIT.search(key) and "_" not in key:
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
    plain_forms = {form: n for form, n in forms.items() if form == form.lower()} or forms
    return min(plain_forms.items(), key=lambda item: (-item[1], item[0]))[0]


def _tokens(text: str) -> frozenset[str]:
    return frozenset(key for key, _, _ in _terms(text.replace("_", " ").replace("-", " ")))


def _language(children: list[ChildInfo]) -> str:
    """"zh" when the children are mostly Chinese (Han without kana), else "en": the brief's phrasing."""
    text = " ".join((c.abstract or "") if c.is_dir else c.text[:4000] for c in children)
    han = sum(len(run) for run in _HAN_RUN.findall(text))
    kana = len(_KANA.findall(text))
    latin = len(re.findall("[A-Za-z]", text))
    return "zh" if han and han * 3 > latin and kana * 10 < han else "en"


# --- names -----------------------------------------------------------------------


def _join_en(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]

