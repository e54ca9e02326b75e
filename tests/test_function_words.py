"""The words of a query that name nothing, in any language (ov.index.function_words)."""

from __future__ import annotations

import pytest

from ov.index.lexical import LexicalIndex


@pytest.fixture(scope="module")
def index():
    return LexicalIndex.empty("english")


@pytest.mark.parametrize(
    ("query", "words"),
    [
        ("what's the cache's eviction policy?", ("cach", "evict", "polici")),
        ("¿Dónde se guarda el registro de errores?", ("guarda", "registro", "error")),
        ("Perché l'esportazione è così lenta?", ("esportazion", "così", "lenta")),
        ("Wie oft wird das Backup der Datenbank erstellt?", ("oft", "backup", "datenbank", "erstellt")),
        ("Hoe vaak wordt de back-up van de database gemaakt?", ("vaak", "back", "up", "databas", "gemaakt")),
        ("Почему экспорт такой медленный?", ("экспорт", "такой", "медленный")),
        # English borrowing a word or two keeps them: they may be what it asks about.
        ("the die casting machine and the press", ("die", "cast", "machin", "press")),
        ("how to cook a la carte dishes", ("cook", "la", "cart", "dish")),
    ],
)
def test_a_querys_elisions_and_the_function_words_of_its_language_are_no_words(index, query, words):
    assert index.query_terms(query).words == words


@pytest.mark.parametrize(
    ("query", "words"),
    [
        # (review rev16) "du" is French, and a unix command: written as code, it is what is asked about
        ("Comment utiliser `du` pour mesurer le dossier ?", ("utilis", "du", "mesur", "dossier")),
        # written after the rule: in backticks, called, part of a compound name, or the only words left
        ("Wozu dient `des` im Skript?", ("wozu", "dient", "des", "skript")),
        ("Was macht die Funktion als() hier?", ("macht", "funktion", "al", "hier")),
        ("Wat doet `op` in het script?", ("doet", "op", "script")),
        ("Comment marche le cache de des_keys ?", ("march", "cach", "des", "key")),
        ("le la les", ("le", "la", "les")),
        # the same word in a sentence is still a function word
        ("Où est le dossier du projet ?", ("dossier", "projet")),
    ],
)
def test_a_function_word_written_as_code_or_left_alone_is_a_word(index, query, words):
    assert index.query_terms(query).words == words
