"""Which stored system a shorter name said later is: "the gateway" is the "API gateway", "billing"
the "billing service"; "the DB" is not the "prod DB".

A system is named in full once ("The API gateway runs on port 8080", "the billing service runs on
Postgres 13") and then in fewer words ("the gateway is on port 8443", "billing is on Postgres 16").
The shorter name is the stored one when exactly one system's card could be it: one whose name ends
with it (gateway: API gateway), or one whose name is it and a word for a kind of system (billing:
billing service, billing API). Never a card named for an environment or a copy of the system: a
"DB" said alone may be a local one as well as the prod one.
"""

from __future__ import annotations

from collections.abc import Callable

from ov.sessions.memory.facts import SYSTEM_NOUNS

# Words that name one copy of a system among others of its kind.
_INSTANCE_WORDS = frozenset((
    "prod", "production", "staging", "stage", "dev", "development", "local", "localhost", "test", "testing", "qa", "uat",
    "sandbox", "preview", "demo", "canary", "dr", "replica", "primary", "secondary", "backup", "legacy", "old", "new", "personal",
))


def named_in_full(path: str, read: Callable[[str], str | None], listing: Callable[[str], list[str]]) -> str:
    """``path`` (a system's card, ``.../billing.md``), or the one card of its folder that its name
    is short for when none has its name (``.../billing_service.md``), so a fact said of it later
    corrects the line there."""
    folder, _, name = path.rpartition("/")
    stem = name.removesuffix(".md")
    if "_" in stem or read(path) is not None:
        return path
    fuller = [
        other for other in listing(folder)
        if not other.startswith(".") and (other.endswith(f"_{stem}.md") or _named_and_kind(other.removesuffix(".md"), stem))
    ]
    if len(fuller) != 1 or _INSTANCE_WORDS.intersection(fuller[0].removesuffix(".md").split("_")):
        return path
    return f"{folder}/{fuller[0]}"


def _named_and_kind(name: str, stem: str) -> bool:
    """Whether a card's ``name`` is ``stem`` and a kind of system: "billing_service" for "billing"."""
    words = name.split("_")
    return len(words) == 2 and words[0] == stem and (words[1] in SYSTEM_NOUNS or words[1].rstrip("s") in SYSTEM_NOUNS)
