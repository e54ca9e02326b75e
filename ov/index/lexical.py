"""The full-text index: tantivy, BM25, one document per :class:`~ov.index.records.Record`.

Text is analysed by one tantivy analyzer for every language: a regex tokenizer
that makes each Han, kana and Hangul character a token of its own (and each
Thai, Lao, Khmer and Myanmar letter with its marks: those scripts put no space
between words) and every other run of letters, combining marks and digits a
word, then lower-casing and a stemmer. So a Chinese, Japanese, Korean or Thai
query matches lexically (consecutive characters are also asked for as phrases,
which ranks exact words first) while English keeps its stemming. Queries drop
stop words and question words before they are built, and elided fragments and
the function words of the language they are written in
(:mod:`ov.index.function_words`).

Text and queries are folded before the analyzer sees them (tantivy has no such
filter; :func:`fold`): put in Unicode NFKC, so that ``café`` typed composed and
written decomposed (an ``e`` and a combining accent, as macOS and some keyboards
give it) is one word, and so are full-width ``ＡＰＩ`` and ``API`` or half-width
``ﾛｸﾞ`` and ``ログ``; and case-folded where folding is more than lower case, so
that ``Straße`` is ``STRASSE``. Accents stay: ``resume`` is not ``résumé``. The
marks belong to words: without them a decomposed accent, and every vowel sign
of Devanagari and the other Indic scripts, cut a word in pieces.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path

from ov import scripts
from ov.errors import (
    IndexDamaged,
    IndexUnavailable,
    StoreNotWritable,
    disk_full,
    not_writable,
)
from ov.index.code import COMPOUND_NAME, NAME_CHAR
from ov.index.function_words import foreign, spoken
from ov.index.records import Record
from ov.regex import LazyPattern
from ov.uri import nfc

# Longer queries are questions and descriptions, not text to find word for word.
PHRASE_MAX_WORDS = 24
# 13: a code chunk's names whole (what it defines, the compound names it uses), in fields of their own.
# 14: a Thai, Lao, Khmer or Myanmar letter with its marks a token (a run of them was one), and text
# folded (fold: compatibility forms and full case folding) where it was put in NFC.
SCHEMA_VERSION = 14
# For the next schema (not worth a rebuild of every index alone): fold "İ" (U+0130) to "i". Lower
# case makes it "i" and a combining dot, so "İstanbul" is not found by "istanbul" (docs/retrieval.md,
# Languages); "ı" stays apart from "i", as accents stay (kıl/kil). And, measured alone not worth one
# (docs/benchmarks.md, session schema18): store a prefix of a long record's text for the ranking
# (the text indexed whole), and read a shown result's whole text elsewhere. A prompt's candidates
# loaded 0.1-0.65 MB of text instead of 0.1-5.4 MB on a year-sized account, for 3 % of the hook's CPU.
# The first schema that indexed text folded: an older one is asked in NFC, as it was written.
FOLDED_SCHEMA = 14
# The oldest schema whose full-text index this ov can search, while a rebuild replaces it: the same
# analyzer and stored values, records cut otherwise (10 chunked code as Markdown) or fields since
# added (11 had no "about"), or text analysed otherwise only in what no older query could find
# (13 and before: a sentence of Thai was one token; a full-width letter or an ß was not folded). 9
# analysed text before NFC and without combining marks: a query with an accent or an Indic vowel
# sign would not match its words. Raise it to SCHEMA_VERSION with a change to what is stored or how
# most text is analysed; a field added goes in _ADDED_FIELDS.
READABLE_SCHEMA = 10
# The matched fields each schema added since READABLE_SCHEMA. tantivy opens an index only with
# the schema it was written with, so an older one is opened with its own and searched without
# them: after the upgrade to 12 the prompts got nothing until the rebuild was done.
_ADDED_FIELDS = {12: ("about",), 13: ("defines", "identifiers")}
# OS errors of a read that say nothing of the index itself (tantivy gives them as text).
# The system refusing the read (a limit, a network file system, the folder's permissions): the
# index is fine, and a rebuild would meet the same refusal.
_PASSING = LazyPattern(
    r"Too many open files|Cannot allocate memory|Resource temporarily unavailable|Interrupted system call"
    r"|Input/output error|Stale file handle|Operation timed out|Connection (?:reset|timed out)"
    r"|Permission denied|Operation not permitted"
)
# Han, kana and Hangul, with the two marks that live in "Common" (the prolonged
# sound mark and the ideographic iteration mark) so they do not glue CJK into a word.
_CJK_CLASS = r"\p{Han}\p{Hiragana}\p{Katakana}\p{Hangul}\x{30FC}\x{3005}"
# Scripts written without spaces between words, whose letters take vowel and tone marks: a run of
# them is a sentence, not a word (and one over 64 bytes was dropped whole). Each letter or digit
# with the marks it carries is a token, as a CJK character is, and a query asks for its pairs.
_UNSPACED_CLASS = r"\p{Thai}\p{Lao}\p{Khmer}\p{Myanmar}"
TOKEN_PATTERN = (
    rf"[{_CJK_CLASS}]|[[{_UNSPACED_CLASS}]&&[\p{{L}}\p{{N}}]]\p{{M}}*|[\p{{L}}\p{{M}}\p{{N}}&&[^{_CJK_CLASS}{_UNSPACED_CLASS}]]+"
)
ANALYZER = "ov"
# Names as code writes them, whole: ``StoreLocked``, ``_files_of``, ``ov.hosts.recall`` (dots join
# the parts of a module's name), lower-cased and never stemmed or stopped: the fields a code
# chunk's identifiers are matched in (Record.defines, Record.identifiers).
NAME_ANALYZER = "ov_name"
NAME_PATTERN = r"[\p{L}\p{M}\p{N}_$]+(?:\.[\p{L}\p{M}\p{N}_$]+)*"
NAME_FIELDS = ("defines", "identifiers")
# A query's words as written, to tell its language by (ov.index.function_words).
_LETTERS = LazyPattern(r"[^\W\d_]+")
# A name in a query as typed; what makes one a name rather than a word (an underscore, a dot or a
# dollar inside it, or a change of case) is ov.index.code.COMPOUND_NAME, as in the code indexed.
_TYPED = rf"{NAME_CHAR}+(?:\.{NAME_CHAR}+)*"
_TYPED_NAME = LazyPattern(_TYPED)
# What a query writes as code: a span in backticks, a name it calls ("die()").
_CODE_SPAN = LazyPattern(rf"`[^`\n]+`|{_TYPED}(?=\()")
# A capitalised word (Address, Store; not "I", nor a run of capitals) and what makes it the first
# of a sentence, where a capital says nothing: the text's start or an end of sentence before it.
# A dot ends the word unless a name goes on after it (``Store.open`` is a path): "fix Address."
_PROPER_NAME = LazyPattern(r"(?<![\w$.])[A-Z][a-z]+(?![\w$]|\.[\w$])")
_SENTENCE_START = LazyPattern(r"(?:\A|[.!?:;]|\n)[\s\"'(*_`]*\Z")
# A word a query says is a name by calling it one: "the Context class", "the function main",
# "class Context", "module recall".
_KINDS = r"(?:class|function|method|def|fn|func|struct|interface|trait|enum|module|constant|variable|macro)"
_KIND = LazyPattern(rf"(?i:{_KINDS})")
_NAME_AFTER_KIND = LazyPattern(rf"(?i:\b{_KINDS})\s+({_TYPED})")
_NAME_BEFORE_KIND = LazyPattern(rf"({_TYPED})\s+(?i:{_KINDS}\b)")
# What, beside question words, a query that asks where or how a thing is written says of the asking
# alone ("where is StoreLocked defined?", "how is the lock implemented?"): dropped from a question
# (a query holding one of its language's interrogatives), kept in a statement ("the definition of
# done", "the gene is located on chromosome 7", "it has been implemented").
_DEFINITION_WORDS = {"english": "defined declared implemented located definition declaration implementation"}
_INTERROGATIVES = {"english": "what where which how why when who"}
SHARED_OWNER = "-"
WRITER_HEAP = 64_000_000
# A run of CJK characters, or of Thai, Lao, Myanmar or Khmer letters, in a query: its tokens are
# asked for as overlapping pairs (phrases). Compiled on first use (~9 ms with its run form): an
# ASCII query, what most finds and every English hook ask, never needs it.
_CJK_RUN = LazyPattern(f"[{scripts.char_class(scripts.ITERATION_MARK, *scripts.CJK, *scripts.UNSPACED_SOUTHEAST_ASIAN)}]+")
# tantivy has built-in stop word lists for these languages only.
_STOPWORD_LANGUAGES = frozenset(
    "danish dutch english finnish french german hungarian italian norwegian portuguese russian spanish swedish".split()
)
# Words that make a sentence a question rather than say what it is about.
_QUESTION_WORDS = {
    "english": "what when where who whom whose which why how did does do done has have had can could would "
    "should might may shall will ever yet likely "
    "i me my mine we us our ours you your yours he him his she her hers they them their theirs its",
}

STORED_TEXT = ("id", "path", "uri", "kind", "type", "owner", "parent", "title", "text", "speaker", "session_id", "message_id", "role")
STORED_INT = ("level", "start_line", "end_line", "label")
# The stored fields the analyzer reads, and that are therefore indexed folded (fold).
_ANALYZED = ("title", "text", "speaker")
# The characters whose full case folding is more than the lower case tantivy's filter gives them,
# among those NFKC leaves as they are: ß and ẞ (ss), the final sigma, Greek letters with an iota
# subscript, and a few letters whose folding adds a mark (tests check the list against Unicode's).
_CASEFOLD_ONLY = LazyPattern(
    "[\u00df\u01f0\u0345\u0390\u03b0\u03c2\u1c80-\u1c88\u1e96-\u1e99\u1e9e\u1f50\u1f52\u1f54\u1f56"
    "\u1f80-\u1faf\u1fb2-\u1fb4\u1fb6\u1fb7\u1fbc\u1fc2-\u1fc4\u1fc6\u1fc7\u1fcc\u1fd2\u1fd6\u1fd7"
    "\u1fe2\u1fe4\u1fe6\u1fe7\u1ff2-\u1ff4\u1ff6\u1ff7\u1ffc]"
)


def fold(text: str) -> str:
    """``text`` as the analyzer is given it: in Unicode NFKC (a decomposed accent composed, as
    :func:`~ov.uri.nfc` does, and full-width Latin letters and digits, half-width katakana, ligatures
    and the like in their usual form), with the letters whose full case folding is more than lower
    case folded (:data:`_CASEFOLD_ONLY`): ``Straße`` and ``STRASSE`` are one word. Lower case is the
    analyzer's; folding only what it leaves keeps most text as written, and it is stored as indexed."""
    if text.isascii():  # its own fold: the common case loads no Unicode tables
        return text
    import unicodedata

    text = unicodedata.normalize("NFKC", text)
    return _CASEFOLD_ONLY.sub(lambda found: found.group().casefold(), text)


def _tantivy():
    import tantivy  # Deferred: only index work needs it.

    return tantivy


@contextmanager
def _writing(path: Path | None) -> Iterator[None]:
    """A full disk while tantivy writes becomes :class:`~ov.errors.DiskFull`, a folder it may not
    write to :class:`~ov.errors.StoreNotWritable`.

    tantivy raises every IO failure as a ValueError whose text carries the OS error. Left as
    it is, a full disk or a read-only folder reads as a damaged index (the caller rebuilds it,
    which cannot help) and ends in "internal error".
    """
    try:
        yield
    except ValueError as exc:
        known = disk_full(exc, path) or not_writable(exc, path)
        if known is not None:
            raise known from exc
        raise


@contextmanager
def _read_failure() -> Iterator[None]:
    """tantivy failing to read a segment that opened becomes :class:`~ov.errors.IndexDamaged`.

    Opening an index reads its segments' list, not their postings or stored records: a damaged
    one shows only when a search reads it, as a ValueError (an IO error or corrupt data). Typed,
    the search that meets it rebuilds the index instead of ending in "internal error" each time.
    """
    try:
        yield
    except ValueError as exc:
        if _PASSING.search(str(exc)):
            # The system failed the read, not the index: dropping it would cost a rebuild (and an
            # API embedder's re-embedding) that the same failure may stop as well.
            raise IndexUnavailable(f"the full-text index could not be read just now: {exc}", hint="run the command again") from exc
        raise IndexDamaged(f"the full-text index could not be read: {exc}", hint="run `ov reindex`") from exc


READ_ONLY_ATTEMPTS = 5


def _open_read_only(path: Path, refused: StoreNotWritable, schema):
    """The tantivy index in ``path``, a folder ov may not write to, opened for reading.

    tantivy has no read-only open: even a reader takes a lock file in the index's folder
    (``.tantivy-meta.lock``, against a writer removing segments while they are opened). So the
    index is opened through a view of it in a temporary folder: a copy of its ``meta.json``,
    taken first so that every segment it names is linked, and a symbolic link to each other file
    (hard links cannot leave a read-only mount, nor reach another file system). The lock file is
    made there. Opening maps every segment's files, so the view is removed at once; a search
    reads the index as it was then. Raises ``refused`` when no temporary folder can be made.

    The lock file a writer would respect is in the view, so a writer with the rights ov lacks
    (the store's owner) may remove a segment between the copy of ``meta.json`` and the open: the
    open is tried again on a fresh copy (a review saw 2 % of opens fail so beside 5 commits a second).
    """
    for attempt in range(READ_ONLY_ATTEMPTS):
        try:
            return _open_view(path, refused, schema)
        except ValueError as exc:
            if "FileDoesNotExist" not in str(exc) or attempt == READ_ONLY_ATTEMPTS - 1:
                raise
    raise AssertionError("unreachable")


def _open_view(path: Path, refused: StoreNotWritable, schema):
    """One try of :func:`_open_read_only`."""
    import shutil  # Deferred with what it imports: only a store ov may not write to needs it.
    import tempfile

    try:
        temporary = Path(tempfile.mkdtemp(prefix="ov-index-view-"))
    except OSError:
        raise refused from None
    view = temporary / "index"
    try:
        view.mkdir()
        shutil.copyfile(path / "meta.json", view / "meta.json")
        for entry in os.scandir(path):
            if entry.name != "meta.json" and not entry.name.startswith(".tantivy-"):
                os.symlink(entry.path, view / entry.name)
        # A full disk or a refusal here is the temporary folder's, which stays (the view does not).
        with _writing(temporary.parent):
            try:
                return _tantivy().Index(schema, path=str(view), reuse=True)
            except ValueError as exc:
                # tantivy names the file it missed in the view, which is removed below: said of the
                # index's own folder, where the file is missing ("FileDoesNotExist(/tmp/ov-index-view-...").
                raise ValueError(str(exc).replace(str(view), str(path))) from None
    finally:
        # Moved away first: tantivy's reader reloads once from a thread of its own as it opens,
        # and its lock file made again in a view being removed would keep the folder there.
        with suppress(OSError):
            os.rename(view, temporary / "removed")
        shutil.rmtree(temporary, ignore_errors=True)


def name_analyzer():
    """Names whole, lower-cased (:data:`NAME_ANALYZER`)."""
    tantivy = _tantivy()
    builder = tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.regex(NAME_PATTERN))
    return builder.filter(tantivy.Filter.remove_long(64)).filter(tantivy.Filter.lowercase()).build()


def register(index, language: str) -> None:
    """Give the tantivy ``index`` the analyzers its fields name."""
    index.register_tokenizer(ANALYZER, analyzer(language))
    index.register_tokenizer(NAME_ANALYZER, name_analyzer())


def analyzer(language: str, *, for_query: bool = False):
    tantivy = _tantivy()
    builder = tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.regex(TOKEN_PATTERN))
    builder = builder.filter(tantivy.Filter.remove_long(64)).filter(tantivy.Filter.lowercase())
    if for_query and language in _STOPWORD_LANGUAGES:
        builder = builder.filter(tantivy.Filter.stopword(language))
    if language != "none":
        builder = builder.filter(tantivy.Filter.stemmer(language))
    return builder.build()


def _lacks(version: int) -> frozenset[str]:
    """The matched fields an index of schema ``version`` lacks (:data:`_ADDED_FIELDS`)."""
    return frozenset(name for added, names in _ADDED_FIELDS.items() if added > version for name in names)


def _schema(version: int = SCHEMA_VERSION):
    """The tantivy schema of ``version`` (this ov's, or a readable older one's)."""
    tantivy = _tantivy()
    lacks = _lacks(version)
    sb = tantivy.SchemaBuilder()
    for name in ("id", "path", "uri", "kind", "type", "owner", "parent", "session_id", "message_id", "role"):
        sb.add_text_field(name, stored=True, tokenizer_name="raw")
    sb.add_text_field("ancestors", tokenizer_name="raw", index_option="basic")
    for name in ("title", "text", "speaker"):
        sb.add_text_field(name, stored=True, tokenizer_name=ANALYZER)
    sb.add_text_field("context", tokenizer_name=ANALYZER)
    if "about" not in lacks:
        sb.add_text_field("about", tokenizer_name=ANALYZER)  # a code chunk's file and names (Record.about): matched, never shown
    for name in NAME_FIELDS:
        if name not in lacks:
            sb.add_text_field(name, tokenizer_name=NAME_ANALYZER)  # a code chunk's names whole: matched, never shown
    # What a hit shows, when the text that ranks is not all of it (Record.search_text): stored, never matched.
    sb.add_bytes_field("shown", stored=True, indexed=False)
    sb.add_unsigned_field("level", stored=True, indexed=True, fast=True)
    sb.add_unsigned_field("start_line", stored=True)
    sb.add_unsigned_field("end_line", stored=True)
    sb.add_unsigned_field("label", stored=True, indexed=True, fast=True)
    sb.add_float_field("time", stored=True, indexed=True, fast=True)
    return sb.build()


@dataclass(frozen=True)
class Filters:
    """What a search may return; None means no restriction."""

    types: tuple[str, ...] | None = None
    levels: tuple[int, ...] | None = None
    kinds: tuple[str, ...] | None = None
    exclude_kinds: tuple[str, ...] = ()
    exclude_paths: tuple[str, ...] = ()
    exclude_scopes: tuple[str, ...] = ()  # store paths: no record of them or below them
    scope: str | None = None  # a store path: the record's file is it or below it
    owners: tuple[str, ...] | None = None  # "" = shared scopes
    after: float | None = None
    before: float | None = None
    labels: tuple[int, ...] | None = None
    uris: tuple[str, ...] | None = None


@dataclass(frozen=True)
class Hit:
    """A record the full-text index returned, with its BM25 score and vector label."""

    score: float
    record: Record
    label: int


@dataclass(frozen=True)
class QueryTerms:
    """A query as index terms: words (stemmed), the CJK runs to ask for as phrases, the
    whole query as the run of terms a record holding it word for word holds (an error message),
    and the names it may mean, whole (:data:`NAME_FIELDS`)."""

    words: tuple[str, ...]
    phrases: tuple[tuple[str, ...], ...]
    sequence: tuple[str, ...] = ()
    names: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.words or self.names)


class _Reading:
    """One searcher held for a run of reads, and what they loaded from it (see :meth:`LexicalIndex.reading`)."""

    def __init__(self, searcher) -> None:
        self.searcher = searcher
        self.docs: dict[tuple[int, int], tuple[Record, int]] = {}  # (segment, doc) -> record, label
        self.parents: dict[tuple, dict[str, float | None]] = {}  # (terms, field, kinds) -> uri -> best score
        self.uris: dict[tuple[str, int], tuple[str, ...]] = {}  # (pattern, limit) -> the URIs (or folders) it matched
        self.held: dict[tuple[tuple[str, ...], str], dict[int, bool]] = {}  # (fields, word) -> label -> holds it


class LexicalIndex:
    """One tantivy index in a directory."""

    def __init__(
        self,
        index,
        language: str,
        path: Path | None = None,
        *,
        refused: StoreNotWritable | None = None,
        lacks: frozenset[str] = frozenset(),
        schema_version: int = SCHEMA_VERSION,
    ) -> None:
        self._index = index
        self.language = language
        # How text is put before the analyzer: as the index's schema did when it wrote the index.
        self._normal = fold if schema_version >= FOLDED_SCHEMA else nfc
        # The matched fields an index of an older schema lacks: a search leaves them out. Such an
        # index is only read (Indices catches up none but its own schema's).
        self.lacks = lacks
        self._path = path  # None: in memory
        # Why this index was opened through a view (:func:`_open_read_only`): each write raises it.
        self._refused = refused
        self._writer = None
        self._query_analyzer = None
        self._analyzer = None
        self._name_analyzer = None
        self._reading: _Reading | None = None

    @classmethod
    def open(cls, path: Path, language: str, *, create: bool = False, schema_version: int = SCHEMA_VERSION) -> LexicalIndex:
        """The index in ``path``, written by schema ``schema_version`` (an older one is for reading:
        :data:`READABLE_SCHEMA`); ``create`` makes it when there is none."""
        tantivy = _tantivy()
        if create or not READABLE_SCHEMA <= schema_version <= SCHEMA_VERSION:
            schema_version = SCHEMA_VERSION  # another schema's index does not open: the caller rebuilds it
        schema = _schema(schema_version)
        if create:
            path.mkdir(parents=True, exist_ok=True)
        elif not path.is_dir() or not tantivy.Index.exists(str(path)):
            raise FileNotFoundError(f"no full-text index in {path}")  # and none made: a check only reads
        refused = None
        try:
            with _writing(path):
                index = tantivy.Index(schema, path=str(path), reuse=not create)
        except StoreNotWritable as exc:
            if create:
                raise
            index, refused = _open_read_only(path, exc, schema), exc
        register(index, language)
        return cls(index, language, path, refused=refused, lacks=_lacks(schema_version), schema_version=schema_version)

    @classmethod
    def empty(cls, language: str) -> LexicalIndex:
        """An index in memory with nothing in it (for a store that does not exist yet)."""
        index = _tantivy().Index(_schema())
        register(index, language)
        return cls(index, language)

    # --- writing --------------------------------------------------------------

    @property
    def writer(self):
        if self._writer is None:
            if self._refused is not None:
                raise self._refused
            with _writing(self._path):
                self._writer = self._index.writer(WRITER_HEAP, 1)
        return self._writer

    def add(self, record: Record, label: int) -> None:
        tantivy = _tantivy()
        doc = tantivy.Document()
        for name in STORED_TEXT:
            value = record.searched if name == "text" else getattr(record, _FIELD_ATTR.get(name, name))
            folded = None
            if name in _ANALYZED:
                value, folded = nfc(value), self._normal(value)
                if name == "text":
                    value = folded
            doc.add_text(name, SHARED_OWNER if name == "owner" and not value else value)
            if folded is not None and folded != value:
                # A title or a speaker is shown from the first value, as written; the second is
                # the folded one a query matches ("Straße" is found as "strasse").
                doc.add_text(name, folded)
        if record.search_text is not None or self._normal(record.text) != record.text:
            # A hit shows the text as written, not the folded copy that ranks.
            doc.add_bytes("shown", record.text.encode("utf-8"))
        doc.add_text("context", self._normal(record.context))
        if record.about:
            doc.add_text("about", self._normal(record.about))
        for name in NAME_FIELDS:
            value = getattr(record, name)
            if value and name not in self.lacks:
                doc.add_text(name, self._normal(value))
        for ancestor in _ancestors(record.path):
            doc.add_text("ancestors", ancestor)
        for name in ("level", "start_line", "end_line"):
            doc.add_unsigned(name, getattr(record, name))
        doc.add_unsigned("label", label)
        doc.add_float("time", float(record.time))
        writer = self.writer
        with _writing(self._path):  # a full in-memory segment is flushed to disk here
            writer.add_document(doc)

    def delete_path(self, path: str) -> None:
        writer = self.writer
        with _writing(self._path):
            writer.delete_documents_by_term("path", path)

    def delete_ids(self, ids: list[str]) -> None:
        writer = self.writer
        with _writing(self._path):
            for rid in ids:
                writer.delete_documents_by_term("id", rid)

    def delete_labels_from(self, first: int) -> None:
        """Delete every record labelled ``first`` or above: what an update that died before its
        ``meta.json`` committed (:meth:`has_labels_from`)."""
        tantivy = _tantivy()
        writer = self.writer
        query = tantivy.Query.range_query(self._index.schema, "label", tantivy.FieldType.Unsigned, first, 2**63 - 1)
        with _writing(self._path):
            writer.delete_documents_by_query(query)

    def commit(self) -> None:
        if self._writer is not None:
            with _writing(self._path):
                self._writer.commit()
                self._writer.wait_merging_threads()
            self._writer = None
            self._reload()
            if self._reading is not None:  # a reading that outlives a commit reads what it committed
                self._reading = _Reading(self._index.searcher())

    def abandon(self) -> None:
        """Drop what was added since the last commit and stop the writer's threads, so nothing
        is written to the index folder any more (it is about to be deleted)."""
        if self._writer is not None:
            writer, self._writer = self._writer, None
            try:
                writer.rollback()
                writer.wait_merging_threads()
            except ValueError:
                pass  # already failing (a full disk): what it leaves goes with the folder

    # --- reading --------------------------------------------------------------

    @contextmanager
    def reading(self) -> Iterator[None]:
        """Within: every read uses one searcher, and each record and parent score is loaded once.

        A search runs a ranking per directory it expands (ten or more for one prompt), and they
        load mostly the same records and parents again: held, a prompt hook's retrieval loads
        each once. One searcher also makes the rankings of one search agree on what the index
        holds while another process commits. Nested calls share the outer one.
        """
        if self._reading is not None:
            yield
            return
        self._reading = _Reading(self._index.searcher())
        try:
            yield
        finally:
            self._reading = None

    def _reload(self) -> None:
        """See what was committed since the index was opened; one opened through a view
        (:func:`_open_read_only`) is what its folder held then, and its view is gone."""
        if self._refused is None:
            self._index.reload()

    def _searcher(self):
        reading = self._reading  # read once: another thread's reading may end meanwhile
        return reading.searcher if reading is not None else self._index.searcher()

    def count(self) -> int:
        return self._searcher().num_docs

    def matching(self, filters: Filters) -> int:
        """How many records ``filters`` let through (counted, none loaded)."""
        with _read_failure():
            return self._searcher().search(self._filter_query(filters), 1, count=True).count

    def passing(self, filters: Filters, limit: int | None = None) -> set[int]:
        """The labels of the records ``filters`` let through (at most ``limit``; all of
        ``filters.labels`` by default), read from the labels' fast field: no record is loaded."""
        limit = len(filters.labels or ()) if limit is None else limit
        if limit <= 0:
            return set()
        with _read_failure():
            hits = self._searcher().search(self._filter_query(filters), limit, order_by_field="label", count=False).hits
        return {int(label) for label, _ in hits}

    def has_labels_from(self, first: int) -> bool:
        """Whether a record labelled ``first`` or above is indexed (labels are handed out in order,
        so one is when an update committed its records and died before its ``meta.json``)."""
        tantivy = _tantivy()
        self._reload()
        query = tantivy.Query.range_query(self._index.schema, "label", tantivy.FieldType.Unsigned, first, 2**63 - 1)
        with _read_failure():
            return self._index.searcher().search(query, 1, count=True).count > 0

    def labels_of_paths(self, paths: list[str]) -> list[int]:
        """The vector labels of every record of ``paths``."""
        return self._labels_where("path", paths)

    def labels_of_ids(self, ids: list[str]) -> list[int]:
        """The vector labels of the records ``ids``."""
        return self._labels_where("id", ids)

    def _labels_where(self, field: str, values: list[str]) -> list[int]:
        """The labels of the records whose ``field`` is one of ``values``, read from the labels'
        fast field: loading each record to read its label loaded a conversation's log whole (every
        message of it) on every turn's catch-up, and every record of a file replaced."""
        tantivy = _tantivy()
        if not values:
            return []
        self._reload()
        searcher = self._index.searcher()
        query = tantivy.Query.term_set_query(self._index.schema, field, list(values))
        with _read_failure():
            total = searcher.search(query, 1, count=True).count
            if not total:
                return []
            hits = searcher.search(query, total, order_by_field="label", count=False).hits
            return [int(label) for label, _ in hits]

    def idf_sum(self, terms: QueryTerms, field: str = "text") -> float:
        """What a record matching every query word once, at average length, scores in ``field``.

        BM25 gives such a record about the sum of the words' IDFs; a word the index has never
        seen counts with the highest IDF, so a query half made of unknown words can never look
        like a full match.
        """
        import math

        searcher = self._searcher()
        total = max(searcher.num_docs, 1)
        out = 0.0
        with _read_failure():
            for word in terms.words:
                # doc_freq counts deleted records until their segment is merged; num_docs does
                # not. A session's records replaced turn after turn made a word's count pass the
                # total, its IDF negative, and a result's relevance below zero.
                df = min(searcher.doc_freq(field, word), total)
                out += math.log(1 + (total - df + 0.5) / (df + 0.5))
        return out

    def holding(self, terms: QueryTerms, fields: tuple[str, ...], labels: tuple[int, ...]) -> dict[str, set[int]]:
        """Query word -> the labels of the records of ``labels`` that hold it in one of ``fields``,
        in one look-up for all the words (:meth:`_labels_holding`: up to 21 words beside 8 labels;
        a look-up a word cost the prompt hook 47 look-ups a prompt); no record is loaded. Within
        :meth:`reading`, a label asked about again (the rankings of a search share most of their
        candidates) is not looked up again."""
        fields = tuple(f for f in fields if f not in self.lacks)
        reading = self._reading
        searcher = self._searcher()
        memos: dict[str, dict[int, bool]] = {}
        asked: list[str] = []  # the words some label is to be looked up for
        with _read_failure():
            for word in terms.words:
                if word in memos:
                    continue
                memo = memos[word] = reading.held.setdefault((fields, word), {}) if reading is not None else {}
                todo = [label for label in labels if label not in memo]
                if todo and fields and not any(searcher.doc_freq(f, word) for f in fields):
                    memo.update((label, False) for label in todo)  # no record holds it: nothing to search
                elif todo and fields:
                    asked.append(word)
            if asked:
                among = tuple(dict.fromkeys(label for word in asked for label in labels if label not in memos[word]))
                for word, found in self._labels_holding(searcher, asked, fields, among).items():
                    memos[word].update((label, label in found) for label in among)
        return {word: {label for label in labels if memos[word].get(label)} for word in terms.words}

    def _labels_holding(self, searcher, words: list[str], fields: tuple[str, ...], labels: tuple[int, ...]) -> dict[str, set[int]]:
        """Word -> which of ``labels`` hold it in one of ``fields``. Each word's clause scores its
        own power of two and each label's its place among ``labels`` above them (constant scores),
        so a hit's score says which record it is and which words it holds, read without loading
        it: as many words a look-up as fit in :data:`WORDS_A_LOOKUP` bits beside the labels'
        places; a look-up a word where the labels leave no room."""
        tantivy = _tantivy()
        schema = self._index.schema
        room = WORDS_A_LOOKUP - (len(labels) - 1).bit_length()
        out: dict[str, set[int]] = {}
        if room < 1:
            among = _any_of(schema, "label", labels)
            for word in words:
                held = tantivy.Query.boolean_query([(tantivy.Occur.Should, tantivy.Query.term_query(schema, f, word)) for f in fields])
                query = tantivy.Query.boolean_query([(tantivy.Occur.Must, held), (tantivy.Occur.Must, among)])
                out[word] = {int(label) for label, _ in searcher.search(query, len(labels), order_by_field="label", count=False).hits}
            return out
        for start in range(0, len(words), room):
            some = words[start : start + room]
            places = [(tantivy.Occur.Should, tantivy.Query.const_score_query(tantivy.Query.term_query(schema, "label", label), float(i << len(some)))) for i, label in enumerate(labels)]
            should = []
            for bit, word in enumerate(some):
                holds = tantivy.Query.boolean_query([(tantivy.Occur.Should, tantivy.Query.term_query(schema, f, word)) for f in fields])
                should.append((tantivy.Occur.Should, tantivy.Query.const_score_query(holds, float(1 << bit))))
            query = tantivy.Query.boolean_query([(tantivy.Occur.Must, tantivy.Query.boolean_query(should)), (tantivy.Occur.Must, tantivy.Query.boolean_query(places))])
            found: dict[str, set[int]] = {word: set() for word in some}
            for score, _ in searcher.search(query, len(labels), count=False).hits:
                held = round(score)
                label = labels[held >> len(some)]
                for bit, word in enumerate(some):
                    if held >> bit & 1:
                        found[word].add(label)
            out.update(found)
        return out

    def holders(self, words: tuple[str, ...], fields: tuple[str, ...], filters: Filters, limit: int) -> dict[str, set[tuple[str, str]]] | None:
        """Query word -> the (URI, kind) of the records ``filters`` let through that hold it in one of
        ``fields``, in one look-up for up to :data:`WORDS_A_LOOKUP` words: each word scores its own
        power of two, so a hit's score says which of them it holds (a look-up a word cost the prompt
        hook's search 7 look-ups a prompt, 26 for one of 9 words). None when more than
        ``limit`` records hold any of them: a look-up a word, each cut at ``limit``, would keep only
        the best of those, so the caller asks word by word."""
        tantivy = _tantivy()
        if len(words) > WORDS_A_LOOKUP:
            raise ValueError(f"at most {WORDS_A_LOOKUP} words a look-up, not {len(words)}")
        schema = self._index.schema
        fields = tuple(f for f in fields if f not in self.lacks)
        out: dict[str, set[tuple[str, str]]] = {word: set() for word in words}
        if not words or not fields or limit <= 0:
            return out
        should = []
        for bit, word in enumerate(words):
            holds = tantivy.Query.boolean_query([(tantivy.Occur.Should, tantivy.Query.term_query(schema, f, word)) for f in fields])
            should.append((tantivy.Occur.Should, tantivy.Query.const_score_query(holds, float(1 << bit))))
        query = tantivy.Query.boolean_query([(tantivy.Occur.Must, tantivy.Query.boolean_query(should)), *self._filter_clauses(filters)])
        hits = self._run(query, limit + 1)
        if len(hits) > limit:
            return None
        for hit in hits:
            held = round(hit.score)
            for bit, word in enumerate(words):
                if held >> bit & 1:
                    out[word].add((hit.record.uri, hit.record.kind))
        return out

    def analyze_words(self, text: str) -> list[str]:
        """``text`` as the index sees it (for marking matches in snippets)."""
        if self._analyzer is None:
            self._analyzer = analyzer(self.language)
        return self._analyzer.analyze(self._normal(text))

    def query_terms(self, text: str) -> QueryTerms:
        if self._query_analyzer is None:
            self._query_analyzer = analyzer(self.language, for_query=True)
        skip = _question_words(self.language, self._query_analyzer)
        text = self._normal(text)
        # Without elided fragments ("how's", "qu'est", "exécute-t-il"): no word of the query.
        analysed = self._query_analyzer.analyze(spoken(text))
        asking = _analysed("interrogative", _INTERROGATIVES, self.language, self._query_analyzer)
        if any(t in asking for t in analysed):
            skip = skip | _definition_words(self.language, self._query_analyzer)
        said = foreign(_LETTERS.findall(text.lower()))  # the function words of another language it is in
        tokens = [t for t in analysed if t not in skip]
        if said:
            # Never a word written as code ("Comment utiliser `du` ?", `die()`, ``der_cache``), nor
            # the only word the query has left ("was ist das").
            dropped = {t for word in said for t in self._query_analyzer.analyze(word)} - self._coded(text)
            tokens = [t for t in tokens if t not in dropped] or tokens
        words = tuple(dict.fromkeys(tokens))
        phrases = []
        for run in () if text.isascii() else _CJK_RUN.findall(text):
            units = self.analyze_words(run)  # a character, or a letter with its marks
            phrases.extend(tuple(units[i : i + 2]) for i in range(len(units) - 1))
        # As the index holds it: stop words included, since they keep their places in the text.
        sequence = tuple(self.analyze_words(text)) if not phrases else ()
        names = self._names(text, words)
        if names and _names_alone(text):
            # A query of names alone: their words in a row are an import or an attribute's path
            # ("from ov.hosts.recall import"), which every user of the name holds, not its definition.
            sequence = ()
        sequence = sequence if 2 <= len(sequence) <= PHRASE_MAX_WORDS else ()
        return QueryTerms(words, tuple(dict.fromkeys(phrases)), sequence, names)

    def _coded(self, text: str) -> set[str]:
        """The words of what ``text`` writes as code (:data:`_CODE_SPAN`, a compound name), as the
        query analyzer reads them."""
        spans = [*_CODE_SPAN.findall(text), *(name for name in _TYPED_NAME.findall(text) if COMPOUND_NAME.search(name))]
        return {t for span in spans for t in self._query_analyzer.analyze(span)}

    def _names(self, text: str, words: tuple[str, ...]) -> tuple[str, ...]:
        """The names ``text`` means, whole: each written as code writes a name (``_as_it_is``,
        ``StoreLocked``, ``QUERY_CHARS``, ``ov.hosts.recall``), one the query calls a name ("the
        Context class", "the function main"), and a query of one word alone (``hostconfig``, "where
        is hostconfig defined?"). A word in a sentence is a word: "the lock" asks for no function
        named ``lock``."""
        typed = _TYPED_NAME.findall(text)
        chosen = [name for name in typed if COMPOUND_NAME.search(name)]
        # Of an attribute's path with a class or a compound name in it, the member asked about: the
        # index holds ``WriteLock.release`` as the ``release`` its class defines (``ov.hosts.recall``,
        # a module's path, whole: words joined by dots are no name of their own, as in ``os.path``).
        chosen += [name.rsplit(".", 1)[1] for name in chosen if "." in name and any(COMPOUND_NAME.search(part) or _PROPER_NAME.fullmatch(part) for part in name.split("."))]
        # A capitalised word inside a sentence is a proper name, a class's as well as a person's
        # ("fix the bug in Address"): asked for whole, it finds the code that defines it, if any.
        chosen += [found.group() for found in _PROPER_NAME.finditer(text) if not _SENTENCE_START.search(text, 0, found.start())]
        called = [*_NAME_AFTER_KIND.findall(text), *_NAME_BEFORE_KIND.findall(text)]
        chosen += [name for name in called if set(self._query_analyzer.analyze(name)) & set(words) and not _KIND.fullmatch(name)]
        if not chosen and len(words) == 1:
            chosen = [name for name in typed if self._query_analyzer.analyze(name) == list(words) and not _KIND.fullmatch(name)]
        if not chosen:
            return ()  # most prompts name nothing: the analyzer is not built for them
        if self._name_analyzer is None:
            self._name_analyzer = name_analyzer()
        return tuple(dict.fromkeys(t for name in chosen for t in self._name_analyzer.analyze(name)))

    def search(self, terms: QueryTerms, weights: dict[str, float], filters: Filters, limit: int, *, phrase_weight: float = 0.0) -> list[Hit]:
        """BM25 over ``weights``' fields (field -> boost), restricted by ``filters``, best first.

        With ``phrase_weight``, a record whose text holds the query's words as one run, in order
        (a pasted error message, a quoted line), scores the weight times what a record matching
        every query word scores (:meth:`idf_sum`) on top:
        words matched one by one let a chunk full of "import" and "extension" beat the line that
        says "Could not import extension"."""
        if limit <= 0:
            return []
        query = self._matching(terms, weights, filters, phrase_weight)
        return [] if query is None else self._run(query, limit)

    def _matching(self, terms: QueryTerms, weights: dict[str, float], filters: Filters, phrase_weight: float = 0.0):
        """The query of :meth:`search`, None when nothing of ``terms`` can match."""
        tantivy = _tantivy()
        if not terms:
            return None
        schema = self._index.schema
        should = []
        for field, boost in weights.items():
            if boost <= 0 or field in self.lacks:
                continue
            if field in NAME_FIELDS:
                should.extend((tantivy.Occur.Should, query) for query in self._name_queries(terms.names, field, boost))
                continue
            for word in terms.words:
                should.append((tantivy.Occur.Should, _boost(tantivy.Query.term_query(schema, field, word), boost)))
        for a, b in terms.phrases:
            if "text" in weights:
                phrase = tantivy.Query.phrase_query(schema, "text", [a, b])
                should.append((tantivy.Occur.Should, _boost(phrase, weights["text"])))
        if terms.sequence and phrase_weight > 0 and "text" in weights:
            # The same bonus for every record holding the phrase, on the scale of a match of every
            # word: the phrase's own BM25 grew with its count, so a folder's summary quoting the
            # phrase of three files outranked each of them.
            phrase = tantivy.Query.phrase_query(schema, "text", list(terms.sequence))
            bonus = weights["text"] * phrase_weight * self.idf_sum(terms)
            should.append((tantivy.Occur.Should, tantivy.Query.const_score_query(phrase, bonus)))
        if not should:
            return None
        return tantivy.Query.boolean_query([(tantivy.Occur.Must, tantivy.Query.boolean_query(should)), *self._filter_clauses(filters)])

    def _name_queries(self, names: tuple[str, ...], field: str, boost: float) -> list:
        """A record holding a name in ``field`` (NAME_FIELDS) scores ``boost`` times the name's
        IDF, however many other names it holds: BM25's length norm ranked a module of forty
        exception classes, the one that defines ``StoreLocked``, below a function catching it."""
        import math

        tantivy = _tantivy()
        searcher = self._searcher()
        total = max(searcher.num_docs, 1)
        out = []
        with _read_failure():
            for name in names:
                df = min(searcher.doc_freq(field, name), total)
                if df:
                    idf = math.log(1 + (total - df + 0.5) / (df + 0.5))
                    out.append(tantivy.Query.const_score_query(tantivy.Query.term_query(self._index.schema, field, name), boost * idf))
        return out

    def fetch(self, filters: Filters, limit: int) -> list[Hit]:
        """Records matching ``filters`` alone (score 0), e.g. the records of vector labels."""
        return self._run(self._filter_query(filters), limit)

    def uris_matching(self, pattern: str, limit: int) -> tuple[str, ...]:
        """The URIs of the records whose whole URI matches the regular expression ``pattern`` (of
        tantivy's syntax), from the first ``limit`` of those records. Read from the term dictionary,
        a few milliseconds in a store of thousands of files: within :meth:`reading`, once a pattern."""
        reading = self._reading
        if reading is not None and (pattern, limit) in reading.uris:
            return reading.uris[(pattern, limit)]
        query = _tantivy().Query.regex_query(self._index.schema, "uri", pattern)
        found = tuple(dict.fromkeys(hit.record.uri for hit in self._run(query, limit)))
        if reading is not None:
            reading.uris[(pattern, limit)] = found
        return found

    def folders_matching(self, pattern: str, most: int) -> tuple[str, ...]:
        """Up to ``most`` folders (store paths) that hold a record and whose whole path matches the
        regular expression ``pattern`` (of tantivy's syntax, and Python's): one look-up a folder,
        each leaving out the folders found, so a folder of thousands of files counts once (and one
        of the name nested in a folder found, ``ov/ov``, not at all: a count that errs low). A few
        milliseconds a look-up. Within :meth:`reading`, once a pattern."""
        reading = self._reading
        key = (f"folders:{pattern}", most)
        if reading is not None and key in reading.uris:
            return reading.uris[key]
        tantivy = _tantivy()
        schema = self._index.schema
        matches = re.compile(pattern).fullmatch
        found: list[str] = []
        while len(found) < most:
            query = tantivy.Query.regex_query(schema, "ancestors", pattern)
            if found:
                query = tantivy.Query.boolean_query([(tantivy.Occur.Must, query), (tantivy.Occur.MustNot, _any_of(schema, "ancestors", found))])
            hits = self._run(query, 1)
            folder = next((a for hit in hits for a in _ancestors(hit.record.path)[:-1] if matches(a)), None)
            if folder is None:
                break  # none left (or only files of that name, which are no folder)
            found.append(folder)
        if reading is not None:
            reading.uris[key] = tuple(found)
        return tuple(found)

    def best_scores(self, terms: QueryTerms, field: str, kinds: tuple[str, ...], uris: list[str]) -> dict[str, float]:
        """For each of ``uris`` that has a record of ``kinds``: the best BM25 of its records for
        ``terms`` in ``field``, 0.0 when none matches. Within :meth:`reading`, a uri asked for
        again (the same parents recur in every ranking of a search) is not looked up again."""
        reading = self._reading
        memo = reading.parents.setdefault((terms, field, kinds), {}) if reading is not None else {}
        todo = [uri for uri in dict.fromkeys(uris) if uri not in memo]
        if todo:
            self._parent_scores(terms, field, kinds, todo, memo)
        return {uri: memo[uri] for uri in uris if memo[uri] is not None}

    def _parent_scores(self, terms: QueryTerms, field: str, kinds: tuple[str, ...], todo: list[str], memo: dict[str, float | None]) -> None:
        """:meth:`best_scores` of ``todo``, none known yet, into ``memo``; no record is loaded.

        A parent is read from what the search says, not from its stored record: a conversation's
        log holds every message whole, and on a year's account loading the logs of a prompt's
        candidates read 13 MB, nine tenths of all a prompt hook read. One search tells which
        parent each record is (each parent's clause scores its place, exact in a 32-bit float);
        the BM25 search is joined to it by the records' addresses."""
        tantivy = _tantivy()
        schema = self._index.schema
        searcher = self._searcher()
        # A uri has at most one record of each parent kind (its L0, its L1, its log).
        limit = len(todo) * len(kinds)
        which = [(tantivy.Occur.Should, tantivy.Query.const_score_query(tantivy.Query.term_query(schema, "uri", uri), float(i + 1)))
                 for i, uri in enumerate(todo)]
        query = tantivy.Query.boolean_query([(tantivy.Occur.Must, tantivy.Query.boolean_query(which)), *self._filter_clauses(Filters(kinds=kinds))])
        matching = self._matching(terms, {field: 1.0}, Filters(kinds=kinds, uris=tuple(todo)))
        with _read_failure():
            parent = {(a.segment_ord, a.doc): todo[round(place) - 1] for place, a in searcher.search(query, limit, count=False).hits}
            scored = searcher.search(matching, limit, count=False).hits if matching is not None else []
        for uri in parent.values():
            memo.setdefault(uri, 0.0)
        for uri in todo:
            memo.setdefault(uri, None)
        for score, address in scored:
            uri = parent[(address.segment_ord, address.doc)]
            best = memo.get(uri)
            if best is None or float(score) > best:
                memo[uri] = float(score)

    def _filter_query(self, filters: Filters):
        tantivy = _tantivy()
        clauses = self._filter_clauses(filters)
        return tantivy.Query.boolean_query(clauses) if clauses else tantivy.Query.all_query()

    def _run(self, query, limit: int) -> list[Hit]:
        reading = self._reading
        searcher = reading.searcher if reading is not None else self._index.searcher()
        docs = reading.docs if reading is not None else None
        out = []
        with _read_failure():  # one block for the loop: a context manager per record costs a prompt ~1 ms
            for score, address in searcher.search(query, limit, count=False).hits:
                key = (address.segment_ord, address.doc)
                loaded = docs.get(key) if docs is not None else None
                if loaded is None:
                    doc = searcher.doc(address)
                    loaded = (_record(doc), doc["label"][0])
                    if docs is not None:
                        docs[key] = loaded
                out.append(Hit(float(score), *loaded))
        return out

    def _filter_clauses(self, filters: Filters) -> list:
        tantivy = _tantivy()
        schema = self._index.schema
        must, clauses = tantivy.Occur.Must, []

        def one_of(field: str, values) -> None:
            clauses.append((must, _any_of(schema, field, values)))

        if filters.types is not None:
            one_of("type", filters.types)
        if filters.levels is not None:
            one_of("level", filters.levels)
        if filters.kinds is not None:
            one_of("kind", filters.kinds)
        for kind in filters.exclude_kinds:
            clauses.append((tantivy.Occur.MustNot, tantivy.Query.term_query(schema, "kind", kind)))
        if filters.exclude_paths:
            clauses.append((tantivy.Occur.MustNot, _any_of(schema, "path", filters.exclude_paths)))
        if filters.exclude_scopes:
            clauses.append((tantivy.Occur.MustNot, _any_of(schema, "ancestors", filters.exclude_scopes)))
        if filters.scope:
            clauses.append((must, tantivy.Query.term_query(schema, "ancestors", filters.scope)))
        if filters.owners is not None:
            one_of("owner", [o or SHARED_OWNER for o in filters.owners])
        if filters.uris is not None:
            one_of("uri", filters.uris)
        if filters.labels is not None:
            one_of("label", filters.labels)
        if filters.after is not None or filters.before is not None:
            clauses.append(
                (must, tantivy.Query.range_query(schema, "time", tantivy.FieldType.Float, filters.after, filters.before))
            )
        if clauses and all(occur == tantivy.Occur.MustNot for occur, _ in clauses):
            clauses.append((must, tantivy.Query.all_query()))
        # A filter decides which records pass, never how well one matches: each required clause
        # scores 0, so a hit's score is its BM25 alone, with or without a type, owner or scope.
        return [(occur, tantivy.Query.const_score_query(q, 0.0) if occur == must else q) for occur, q in clauses]


# Words one look-up of :meth:`LexicalIndex.holders` tells apart: a hit's score (a 32-bit float) is
# the sum of their powers of two, exact below 2**24.
WORDS_A_LOOKUP = 24

# Up to this many values a filter is a disjunction of terms: tantivy's term set query builds an
# automaton for every search (~0.3 ms whatever the set's size, 30 times a term's cost), and a prompt
# hook runs some twenty searches, each with a type and an owner filter.
_TERMS_AS_DISJUNCTION = 64


def _any_of(schema, field: str, values):
    """Records whose ``field`` is one of ``values``; like tantivy's term set query, each adds 1.0
    to a hit's score (the rankings, and the relevance scale chosen on them, were measured so)."""
    tantivy = _tantivy()
    values = list(values)
    if len(values) > _TERMS_AS_DISJUNCTION:
        return tantivy.Query.term_set_query(schema, field, values)
    terms = [(tantivy.Occur.Should, tantivy.Query.term_query(schema, field, v)) for v in values]
    return tantivy.Query.const_score_query(tantivy.Query.boolean_query(terms), 1.0)


_FIELD_ATTR = {"type": "context_type"}


def _boost(query, boost: float):
    return query if boost == 1.0 else _tantivy().Query.boost_query(query, boost)


def _ancestors(path: str) -> list[str]:
    parts = path.split("/")
    return ["/".join(parts[: i + 1]) for i in range(len(parts))]


def _record(doc) -> Record:
    values = {}
    for name in STORED_TEXT:
        got = doc.get_first(name) or ""
        values[_FIELD_ATTR.get(name, name)] = got
    if values["owner"] == SHARED_OWNER:
        values["owner"] = ""
    for name in ("level", "start_line", "end_line"):
        values[name] = doc.get_first(name) or 0
    values["time"] = doc.get_first("time") or 0.0
    values.pop("label", None)
    shown = doc.get_first("shown")
    if shown is not None:
        values["text"] = bytes(shown).decode("utf-8")
    return Record(**values)


def _names_alone(text: str) -> bool:
    """Whether ``text`` holds nothing but names written as code writes them (and punctuation)."""
    return not any(c.isalnum() for c in _TYPED_NAME.sub(lambda found: "" if COMPOUND_NAME.search(found.group()) else found.group(), text))


_QUESTION_CACHE: dict[tuple[str, str], frozenset[str]] = {}


def _question_words(language: str, query_analyzer) -> frozenset[str]:
    return _analysed("question", _QUESTION_WORDS, language, query_analyzer)


def _definition_words(language: str, query_analyzer) -> frozenset[str]:
    return _analysed("definition", _DEFINITION_WORDS, language, query_analyzer)


def _analysed(kind: str, lists: dict[str, str], language: str, query_analyzer) -> frozenset[str]:
    """The words of ``lists[language]`` as the query analyzer gives them, analysed once."""
    found = _QUESTION_CACHE.get((kind, language))
    if found is None:
        words = lists.get(language, "")
        found = _QUESTION_CACHE[(kind, language)] = frozenset(t for w in words.split() for t in query_analyzer.analyze(w))
    return found
