"""The verbs of a line said of the user: "I use fish" is "Uses fish", "I never understood regexes" in the past.

ov words what the user says of themselves in the third person, without a subject ("Prefers tabs",
"Always squashes commits"); these rules conjugate the verb that follows "I" or "we", and tell a
past-tense form from a present one, by their forms alone.
"""

from __future__ import annotations

from ov.sessions.memory.text import capitalise

_IRREGULAR_3RD = {
    "am": "is", "are": "is", "be": "is", "have": "has", "do": "does", "go": "goes",
    "don't": "does not", "dont": "does not", "can't": "cannot", "cant": "cannot", "won't": "will not",
    "'m": "is", "'ve": "has", "'ll": "will", "'d": "would",
}
# The verbs of the work: an instruction opens on one ("Always use type hints", "Never push to main").
INSTRUCTION_VERBS = (
    "use|run|write|add|put|commit|push|merge|squash|rebase|test|format|lint|check|include|keep|name|ask|document|"
    "comment|log|import|return|raise|catch|handle|mock|delete|remove|edit|modify|touch|change|deploy|update|create|"
    "make|prefer|pin|install|upgrade|skip|disable|enable|reply|answer|explain|show|print|wrap|sort|indent|quote|"
    "type|annotate|prefix|end|start|open|close|call|break|split|read|store|cache|retry|validate|review|leave"
)
_WORK_VERBS = frozenset(INSTRUCTION_VERBS.split("|"))
# The forms of those verbs that no suffix rule reaches (see base_form).
_IRREGULAR_BASE = {
    "ran": "run", "wrote": "write", "written": "write", "made": "make", "kept": "keep", "broke": "break", "broken": "break",
    "left": "leave", "shown": "show",
}
# Irregular past-tense forms ("-ed" covers the rest, see is_past).
_PAST = frozenset(
    "was were had did went made said got took came saw knew thought wrote ran built left bought told found gave began "
    "met lost sent spent kept felt became understood misunderstood forgot forgave stood heard held brought caught taught "
    "fought sought meant sat slept wore chose spoke broke drove ate drank fell grew threw blew drew flew forbade "
    "hid rode rose sang sank swam swore tore woke won wound "
    # past forms of verbs ending in -ee, which the -eed rule ("need", "proceed") would take for present
    "agreed disagreed freed guaranteed decreed refereed".split()
)
# Words that stay as they are after "I": modals and past-tense forms.
_UNCHANGED = frozenset(("can", "could", "will", "would", "shall", "should", "must", "might", "may")) | _PAST
# Adverbs without -ly that stand before a verb ("I often pair", "we also use").
_ADVERBS = frozenset(("always", "never", "often", "sometimes", "seldom", "also", "still", "just", "already", "even", "only", "ever"))
# "-ed" words that are no past tense ("I need", "I embed").
_NOT_PAST_ED = frozenset(("embed", "shed", "shred", "wed", "bed", "hundred", "sacred", "naked", "wicked", "kindred"))


def third_person_parts(rest: str) -> tuple[str, str]:
    """What follows "I", said of the user, as (verb phrase, object): "really use fish" -> ("Really
    uses", "fish"), "'m tired" -> ("Is", "tired").

    Adverbs stay before the verb they modify: those ending in -ly and those of how often or how far
    that do not ("always", "often", "also", "still": "we always squash" was "Team alwayses squash").
    """
    rest = rest.strip()
    for contraction in ("'m", "'ve", "'ll", "'d"):
        if rest.lower().startswith(contraction):
            return capitalise(_IRREGULAR_3RD[contraction]), rest[len(contraction) :].strip()
    words = rest.split()
    lead: list[str] = []
    while len(words) > 1:
        if words[0].lower().endswith("ly") or words[0].lower() in _ADVERBS:
            lead.append(words.pop(0))
        elif len(words) > 2 and " ".join(words[:2]).lower() == "no longer":  # "we no longer like X" was "Team noes longer like X"
            lead.extend((words.pop(0), words.pop(0)))
        else:
            break
    if not words:
        return "", rest
    if len(words) > 1 and words[0].lower() == "do" and words[1].lower() == "not":
        lead.append("does not")
        words = words[2:]
    else:
        lead.append(conjugate(words.pop(0)))
    return capitalise(" ".join(lead)), " ".join(words)


def conjugate(verb: str) -> str:
    lower = verb.lower()
    head, dash, last = verb.rpartition("-")
    if dash and head.replace("-", "").isalpha() and last.isalpha() and not is_past(last):
        return f"{head}-{conjugate(last)}"  # "squash-merge" -> "squash-merges", "force-push" -> "force-pushes"
    if lower in _IRREGULAR_3RD:
        return _IRREGULAR_3RD[lower]
    if lower in _UNCHANGED or is_past(lower) or not lower.isalpha():
        return verb
    if lower.endswith(("s", "sh", "ch", "x", "z", "o")):
        return verb + "es"
    if len(lower) > 1 and lower.endswith("y") and lower[-2] not in "aeiou":
        return verb[:-1] + "ies"
    return verb + "s"


def is_past(verb: str) -> bool:
    """Whether ``verb`` is a past-tense form: "understood", "used"; not "need" or "embed"."""
    lower = verb.lower()
    return lower in _PAST or (lower.endswith("ed") and not lower.endswith("eed") and lower not in _NOT_PAST_ED)


def base_form(word: str) -> str | None:
    """The base form of a form of a verb of the work (:data:`INSTRUCTION_VERBS`), None for any
    other word: "running" -> "run", "writes" -> "write", "committed" -> "commit", "modifies" ->
    "modify", "wrote" -> "write"; "morning", "string" and "thing" are no such form.

    A suffix rule (-ing, -s, -es, -ed, with a doubled consonant or a dropped "e" or "y" put back)
    proposes a base form, and only a verb of the work is one: the list already names the verbs
    instructions are said with, so no list of all English verbs is needed."""
    lower = word.lower()
    if lower in _WORK_VERBS or lower in _IRREGULAR_BASE:
        return _IRREGULAR_BASE.get(lower, lower)
    for suffix in ("ing", "ies", "ied", "es", "ed", "s"):
        stem = lower[: -len(suffix)]
        if not lower.endswith(suffix) or len(stem) < 2:
            continue
        if suffix in ("ies", "ied"):
            tried: tuple[str, ...] = (stem + "y",)
        else:
            tried = (stem, stem + "e", stem[:-1] if stem[-1] == stem[-2] else stem)  # "running" -> run, "writing" -> write
        if base := next((verb for verb in tried if verb in _WORK_VERBS), None):
            return base
    return None
