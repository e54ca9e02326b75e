"""Whether a modal, "always" / "never", "X over Y" or a quantifier states a rule, and for whom.

:mod:`ov.sessions.memory.standing_note` files a text no rule reads as a convention (a preference
given to every later session) when it says how to work for good: "should", "must", "always",
"never", "X over Y", "all X must ...", in English or in another language. The same words say other
things as often (review rev21 #3, #4, #5), which are no instruction to the user's agents:

- a guess or a suggestion for now: "That should fix it", "The tests should pass now", "This must
  be a caching issue", "You should try the new keyboard" (:func:`guessed`: a dated note);
- a complaint: "The deploy always takes forever", "Nunca funciona" (standing.complains);
- a report of how all of a kind are now: "All tests are green" (:func:`reported`);
- the thing at hand's habit ("It always breaks on Mondays") or another person's ("Bob never writes
  tests", "The customer prefers email over Slack", "Mi jefe siempre usa tabs": :func:`someones`);
- another language's "all" or "every" alone ("Todo bien", "Alle sind im Urlaub") and Polish "nie"
  ("not": "Nie wiem").

A rule is said by the user, the team, the agent, no one named (an imperative) or of a kind of the
work ("PRs always need two approvals", "Hotfix branches should never be rebased").
"""

from __future__ import annotations

import re

from ov.sessions.memory.capitals import NAME_WORD
from ov.sessions.memory.foreign import said_of_us
from ov.sessions.memory.kinds import kind_of as kind_of_tool
from ov.sessions.memory.standing import complains
from ov.sessions.memory.systems import names_a_system

# A modal of obligation, in English and in other languages.
_OBLIGATION = (
    r"should|must|shall|has\s+to|have\s+to|needs\s+to|need\s+to|is\s+required|are\s+required|mustn't|shouldn't|"
    r"doit|doivent|faut|debe|deben|hay\s+que|deve|devem|precisa|precisam|tem\s+que|muss|müssen|soll|sollen|moet|moeten|musi|muszą|musí|måste|må"
)
# "always", "never", a default, a choice against another; another language's "always" and "never" ("immer
# wieder" is "again and again"). Another language's "all" or "every" says no rule on its own ("Todo bien",
# "Alle sind im Urlaub", "Chaque jour le build casse"), nor does Polish "nie" ("not"; review rev21 #4).
MODAL_RE = re.compile(
    rf"(?i)\b(?:{_OBLIGATION}|"
    r"always|never|by\s+default|(?<![\w-])only(?=\s*(?:[,.;!]|$))|only\s+(?:use|ever)|(?<=\w\s)over(?=\s+(?!(?:the|a|an|it|this|that|there|here|time|and|again)\b)[^\W\d])|"
    r"instead\s+of|rather\s+than|(?<![\w-])>(?![\w-])|"
    r"toujours|jamais|siempre|nunca|sempre|immer(?!\s+wieder)|niemals|altijd|nooit|zawsze|nigdy|vždy|nikdy|alltid|aldri|aldrig|"
    # "nie" as Polish "don't" before an imperative ("Nie commituj do main") or German "never" after a verb
    # ("Wir pushen nie auf main"); not Polish "not" ("Nie wiem", "Test nie działa")
    r"nie(?=\s+\w+(?:aj|uj|ij|yj|cie)\b)|(?<=[a-zäöü]n\s)nie(?=\s)|"
    # another language's "every" or "all" before a kind of thing and what it does now ("Jeder PR braucht zwei
    # Reviews", "Każdy commit ma ..."): not before a time ("Cada vez que ...", "Chaque jour ..."), alone ("Todo
    # bien", "Alle sind im Urlaub"), nor before a state or a past ("Alle Tests sind grün", "Todos os testes passaram")
    r"(?:todo|toda|todos|todas|cada|chaque|jeder|jede|jedes|alle|ogni|każdy|każda|każde|elke|elk)\s+"
    r"(?!(?:vez|veces|jour|jours|fois|tag|mal|día|dia|dias|días|volta|giorno|dzień|raz|keer|dag|bien|bem|bene|gut|listo|pronto|fertig|"
    r"semana|semanas|mês|mes|meses|ano|año|sexta|segunda|terça|quarta|quinta|sábado|domingo|lunes|martes|jueves|viernes|semaine|mois|"
    r"année|woche|monat|jahr|settimana|mese|anno|tydzień|miesiąc|rok|week|maand|jaar|manhã|noite|mañana|noche|matin|soir|abend|sprint)\b)"
    r"(?:(?:os|as|los|las|les|die|der|den|de|i|gli|le|el|la|o|a)\s+)?"
    r"(?!(?:os|as|los|las|les|die|der|den|de|i|gli|le|el|la|o|a|sind|sont|son|são|są|zijn|sono|est|está|están|estão|ist|es|è|jest)\b)[^\W\d]\w*\s+"
    r"(?!(?:sind|sont|son|são|są|zijn|sono|est|está|están|estão|ist|es|è|jest|war|waren|était|fue|foi)\b)"
    r"(?![^\W\d]\w*(?:aram|eram|iram|aron|ieron|ou|eu|iu|ten|ły|li|ało|iło|ato|ito|é)\b)(?=[^\W\d]))\b"
)
# Whose rule a modal or "always" says, by what opens the sentence: the user, the team, the agent, a
# kind of thing, or no one named (an imperative); not the thing at hand ("It always breaks on Mondays",
# "That should fix it") nor another person ("Bob never writes tests", "The customer prefers email over
# Slack", "Mi jefe siempre usa tabs": their habit, no instruction to the user's agents; review rev21 #3, #5).
_OURS_OPENING_RE = re.compile(
    r"(?i)^(?:I|I'm|I've|I'd|we|we're|we've|you|you're|our|my|your|us|let's|everyone|everybody|nobody|no\s+one|each|every|all|any|no|one|"
    r"always|never|only|please|don't|do\s+not|(?:could|can|would|will)\s+you|(?:the|our|my)\s+(?:whole\s+)?team)\b"
)
_AT_HAND_OPENING_RE = re.compile(r"(?i)^(?:it|it's|this|this's|that|that's|there|these|those|which|something|things|stuff|everything|nothing|all\s+of\s+(?:it|this))\b")
# A person said as someone's, or by their role, in English and in other languages.
_PERSON_NOUN = (
    r"boss|manager|colleague|coworker|co-worker|teammate|cto|ceo|designer|customer|friend|wife|husband|partner|mom|dad|"
    r"mother|father|son|daughter|brother|sister|chef|jefe|jefa|chefe|capo|patron|patronne|collega|collègue|kollege|kollegin|colega|kolega|"
    r"cliente|kunde|amigo|amiga|ami|amie|freund|freundin|amico|amica|vriend|vriendin|mujer|marido|femme|mari|frau|mann|moglie|marito"
)
_SOMEONES_RE = re.compile(
    rf"(?i)^(?:(?:the|a|an|my|his|her|their|mi|mio|mia|il\s+mio|la\s+mia|mon|ma|meu|minha|o\s+meu|a\s+minha|mein|meine|mijn|el|la|le|o|a|der|die|de)\s+)"
    rf"(?:[\w-]+\s+)?(?:{_PERSON_NOUN})s?\b|^(?:he|she|they|il|elle|ils|elles|er|sie|él|ella|ele|ela|lui|lei|hij|zij|han|hon)\b"
)
# A guess at how things are, said with a modal ("That should fix it", "The tests should pass now", "The
# build must be cached somewhere", "This must be a caching issue"), or a suggestion for now ("You should try
# the new keyboard").
_GUESS_MODAL_RE = re.compile(
    r"(?i)\b(?:should|must|ought\s+to)\s+(?:(?:fix|work|help|solve|do|pass|kick)\w*\b|(?:try|check\s+out|look\s+at|look\s+into|watch|read|consider)\b|be\s+(?:(?:fine|ok|okay|good|enough|done|there|a|an|some|"
    r"related|because|somewhere)\b|\w+ed\s+(?:somewhere|by\s+now|already)\b))|\b(?:should|must)\b.*\b(?:now|somewhere|by\s+now|already)[.!]*$"
)
QUANTIFIED_RE = re.compile(
    r"(?i)^(?:(?:on|in|at)\s+[^,]{3,40}?,?\s+)?(?:all|every|each|no|any)\s+[\w-]+(?:\s+[\w-]+){0,3}?\s+(?:must|should|shall|needs?|"
    r"requires?|gets?|goes|go|has|have|uses?|runs?|lives?|stays?|belongs?|follows?|starts?|ends?|is|are)\b"
)


def someones(said: str) -> bool:
    """Whether ``said`` opens on another person: by role or as someone's ("the designer", "my boss",
    "mi jefe"), or a third person's pronoun."""
    return bool(_SOMEONES_RE.match(said))


def guessed(said: str) -> bool:
    """Whether ``said`` guesses with a modal, or suggests something for now (see _GUESS_MODAL_RE)."""
    return bool(_GUESS_MODAL_RE.search(said))


def a_rule(said: str) -> bool:
    """Whether a modal, "always"/"never", "X over Y" or a quantifier in ``said`` gives a rule (see
    _OURS_OPENING_RE): not a guess, a complaint, the thing at hand's habit nor another person's; a
    named thing's or a kind's only by obligation ("Hotfix branches should never be rebased") or as a
    kind of things ("PRs always need two approvals"), and no quantified report ("All tests are green")."""
    if _AT_HAND_OPENING_RE.match(said) or guessed(said) or complains(said) or reported(said):
        return False
    cue = MODAL_RE.search(said)
    if cue is None or re.search(rf"(?i)\b(?:{_OBLIGATION})\b", said) or _OURS_OPENING_RE.match(said):
        return True  # (an obligation of someone's is the team's process too: "The tech lead must approve migrations")
    if someones(said):
        return False
    before, word = said[: cue.start()].split(), cue.group().lower()
    if not before:
        return True
    if word in ("always", "never"):
        # a thing's or a kind's practice ("Terraform state always lives in Azure Storage", "PRs always need ..."),
        # not a name's alone that is no tool ("Bob never writes tests", "Priya always reviews infra PRs")
        return not (len(before) == 1 and re.fullmatch(NAME_WORD, before[0]) and kind_of_tool(before[0]) is None and not names_a_system(before[0]))
    if re.match(r"[^\W\d_]+$", word) and word not in ("over", "only"):
        return said_of_us(said, cue.start())  # another language's "always" ("Wir mergen immer ...", not "Bob siempre ...")
    return not re.search(r"(?i)\b(?:prefers|likes|loves|wants|uses|picks|chooses|takes|enjoys|hates|says|thinks)\b", " ".join(before))


def reported(said: str) -> bool:
    """Whether ``said`` reports how all of a kind are now ("All tests are green", "Everyone is on vacation"),
    not how they are made ("All endpoints are versioned", "All PRs are squashed")."""
    quantified = QUANTIFIED_RE.match(said)
    return bool(quantified) and quantified.group().lower().endswith(("is", "are")) \
        and not re.match(r"(?i)\s+(?:\w{2,}ed|\w+[^e\s]en|to|not|never|always)\b", said[quantified.end() :])
