"""Files that quote the code rather than hold it: tests, generated files, translation catalogues.

A question about a project ("how are the packs folded?", a pasted error message) is answered by
the module that does it. Its tests say the same words (they name what they test, and quote its
messages), and so do a translation catalogue (every message, word for word) and a generated
file: matched word by word they outrank the module, and on ov's own repository they came first
for 8 of 20 questions (docs/benchmarks.md, ``code_questions.py``). So their records rank
below what they quote (:func:`lower_secondary`), unless the query asks for them ("which test
covers the lock?", "the French translation of ...").
"""

from __future__ import annotations

import functools
import re
from pathlib import PurePosixPath

from ov.ingest.formats import LOCKFILES, MACHINE_SUFFIXES
from ov.regex import LazyPattern

# Folders that hold tests, and the names test runners look for (pytest, go test, jest, JUnit, ...).
_TEST_FOLDERS = frozenset({"test", "tests", "__tests__", "spec", "specs", "testdata", "test_data"})
_TEST_NAME = LazyPattern(r"^(?:test_.+\.py|.+_test\.(?:py|go|rb|exs?)|conftest\.py|.+\.(?:test|spec)\.[cm]?[jt]sx?|.+Tests?\.(?:java|kt|cs|scala))$")
# Written by a tool, not by hand: protobuf and gRPC stubs, files named generated; besides the
# lockfiles and minified bundles ingest skips unless asked (ov.ingest.formats).
_GENERATED_NAME = LazyPattern(r"^(?:.+_pb2(?:_grpc)?\.pyi?|.+\.pb\.go|.+\.generated\.\w+)$")
_CATALOGUE_SUFFIXES = frozenset({".po", ".pot"})
# A query that names tests, generated code or translations asks for those files, and only those:
# "Could not load the test file" is a message to find the source of, and its catalogues stay below.
_ASKS_FOR = {
    "test": LazyPattern(r"\b(?:tests?|testing|tested|pytest|unittest|specs?|fixtures?|conftest|mocks?)\b", re.IGNORECASE),
    "generated": LazyPattern(r"\b(?:generated|minified|lock\s*files?|stubs?)\b", re.IGNORECASE),
    "catalogue": LazyPattern(r"\b(?:translations?|translated|locales?|catalogues?|catalogs?|gettext|i18n|l10n)\b", re.IGNORECASE),
}

# The share of its score a secondary file keeps: from 0.5 to 0.8 the same first files on 40
# questions about two projects (bench/code_questions.py), and at 0.9 tests still came first.
SECONDARY_WEIGHT = 0.7


@functools.lru_cache(maxsize=4096)
def secondary_kind(path: str) -> str | None:
    """What the store file ``path`` is when it quotes code rather than holds it: ``test``,
    ``generated`` or ``catalogue``; None for the code itself and for any document.

    Kept for each path (a pure function of it): a prompt's search ranks ten or more times, each
    over a hundred-odd records of mostly the same files, and on a code project's store this was a
    fifth of the prompt hook's ranking."""
    pure = PurePosixPath(path)
    name = pure.name
    if pure.suffix.lower() in _CATALOGUE_SUFFIXES:
        return "catalogue"
    if name in LOCKFILES or _GENERATED_NAME.match(name) or name.endswith(tuple(suffix for suffix, _ in MACHINE_SUFFIXES)):
        return "generated"
    from ov.index.code import is_prose

    if is_prose(name):
        return None  # a document about tests is read as any document
    if _TEST_NAME.match(name) or any(part.lower() in _TEST_FOLDERS for part in pure.parts[:-1]):
        return "test"
    return None


def lower_secondary(query: str, records: dict, scores: dict[str, float], weight: float = SECONDARY_WEIGHT) -> None:
    """Scale by ``weight`` the scores of the records of files that quote code (:func:`secondary_kind`),
    but for the kinds ``query`` asks for."""
    asked = {kind for kind, pattern in _ASKS_FOR.items() if pattern.search(query)}
    for rid, record in records.items():
        if record.kind == "chunk" and (kind := secondary_kind(record.path)) is not None and kind not in asked:
            scores[rid] *= weight
