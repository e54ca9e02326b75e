"""Dates a question names in words (``ov.timespec.mentioned_dates``) and how close a moment is to one."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from ov.timespec import DateMention, mentioned_dates

NOW = datetime(2026, 12, 2, 10, 0, tzinfo=timezone.utc).timestamp()  # a Wednesday


def at(year: int, month: int, day: int, hour: int = 12) -> float:
    return datetime(year, month, day, hour, tzinfo=timezone.utc).timestamp()


@pytest.mark.parametrize(
    "text, expected",
    [
        ("What did Maria share on 16 June, 2023?", [DateMention(2023, 6, 16)]),
        ("What painting did she show on October 13, 2023?", [DateMention(2023, 10, 13)]),
        ("Where was the picture from December 1,2023 taken?", [DateMention(2023, 12, 1)]),
        ("What book did Tim finish on 8th December, 2023?", [DateMention(2023, 12, 8)]),
        ("the week before 16 November 2023", [DateMention(2023, 11, 16)]),
        ("the release of 2023-06-03", [DateMention(2023, 6, 3)]),
        ("What did they paint in July 2023?", [DateMention(2023, 7)]),
        ("as of December, 2023", [DateMention(2023, 12)]),
        ("in Jan 2020", [DateMention(2020, 1)]),
        ("When did Melanie go camping in June?", [DateMention(None, 6)]),
        ("in the second week of November", [DateMention(None, 11)]),
        ("on 3 May", [DateMention(None, 5, 3)]),
        ("which state did she visit in summer 2021?", [DateMention(2021)]),
        ("between August 11 and August 15 2023", [DateMention(2023, 8, 11), DateMention(2023, 8, 15)]),
        # Relative to now (2026-12-02).
        ("what did we fix yesterday", [DateMention(2026, 12, 1)]),
        ("what we decided today", [DateMention(2026, 12, 2)]),
        ("the bug from last week", [DateMention(2026, 11, 23, days=7)]),
        ("this week's plan", [DateMention(2026, 11, 30, days=7)]),
        ("last month", [DateMention(2026, 11)]),
        ("this year", [DateMention(2026)]),
        ("two days ago", [DateMention(2026, 11, 30)]),
        ("3 weeks ago", [DateMention(2026, 11, 11)]),
    ],
)
def test_dates_in_words_are_read(text, expected):
    assert mentioned_dates(text, now=NOW) == expected


@pytest.mark.parametrize(
    "text",
    [
        "You may go now",  # the verb, not the month
        "those 3 may be wrong",
        "the march for veterans' rights",
        "the 2008 crisis",  # a year only after a word that places something in time
        "What is Python 3.11?",
        "February 30, 2023",  # no such day
        "last weekend",
        "",
    ],
)
def test_words_that_are_not_dates_are_not_read_as_dates(text):
    assert mentioned_dates(text, now=NOW) == []


def test_a_day_is_closest_on_the_day_and_fades_over_a_week():
    day = DateMention(2023, 6, 3)
    assert day.closeness(at(2023, 6, 3)) == 1.0
    assert day.closeness(at(2023, 6, 5, 0)) == pytest.approx(1 - 1 / 7)
    assert day.closeness(at(2023, 6, 1, 0)) == pytest.approx(1 - 2 / 7)
    assert day.closeness(at(2023, 6, 11)) == 0.0
    assert day.closeness(at(2024, 6, 3)) == 0.0  # another year


def test_a_month_fades_over_a_month_and_a_month_without_a_year_matches_every_year():
    june = DateMention(2023, 6)
    assert june.closeness(at(2023, 6, 30)) == 1.0
    assert 0.4 < june.closeness(at(2023, 7, 16)) < 0.6
    assert june.closeness(at(2023, 8, 15)) == 0.0
    any_june = DateMention(None, 6)
    assert any_june.closeness(at(2019, 6, 10)) == any_june.closeness(at(2023, 6, 10)) == 1.0
    assert DateMention(None, 1).closeness(at(2022, 12, 31)) > 0.9  # December is next to January
    assert DateMention(None, 2, 29).closeness(at(2023, 3, 1)) == 0.0  # no February 29 in 2023
    assert DateMention(None, 2, 29).closeness(at(2024, 2, 29)) == 1.0
