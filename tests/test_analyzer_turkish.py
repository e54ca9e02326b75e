"""What the index's analyzer makes of Turkish's dotted and dotless i, as docs/retrieval.md says
(Languages). A change here is a schema change: fold "İ" to "i" with the next one, and say so there."""

from __future__ import annotations

import pytest

from ov.index.lexical import analyzer, fold


@pytest.fixture(scope="module")
def terms():
    analyze = analyzer("english").analyze
    return lambda text: analyze(fold(text))


def test_dotless_and_dotted_i_are_two_letters(terms):
    assert terms("kıl") != terms("kil") and terms("ılık") != terms("ilik")


def test_turkish_capitals_are_lowered_as_english_ones(terms):
    assert terms("IŞIK") == terms("işik") != terms("ışık")
    # The dotted capital keeps its dot as a combining mark: not the word written in lower case.
    assert terms("İstanbul") == ["i\u0307stanbul"] != terms("istanbul") == terms("ISTANBUL")
