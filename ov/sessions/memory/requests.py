"""A standing instruction asked politely: "Could you please always run the linter before ...?".

Asked as a question, an instruction is still one: "can you always ...", "could you never ...",
"would you mind never ...ing ...", "can you use ruff from now on?" tell the agent how to work for
good, as "Always run the linter before ..." does, and are read as that imperative. What makes it
standing is said in it ("always", "never", "from now on", "going forward", "every time"); a one-off
request ("Could you run the linter?", "can you fix the tests please?") asks for a task of the
moment and stays a question, which keeps nothing.
"""

from __future__ import annotations

import re

from ov.sessions.memory.text import is_question
from ov.sessions.memory.verbs import base_form

_ASK = (
    r"^(?:(?:hey|hi|ok|okay|so|also|and|btw)[,\s]+)?(?:could|can|would|will)\s+you\s+(?:please\s+|kindly\s+|pls\s+|plz\s+)?"
    r"(?:(?:make\s+sure\s+(?:to|you)|remember\s+to|try\s+to)\s+)?"
)
_END = r"(?:,?\s+(?:please|pls|plz|thanks|thank\s+you|for\s+me))*\s*[?.!]*$"
# "Could you please always X?", "can you never X", "would you mind always/never Xing?"
_ADVERB_RE = re.compile(rf"(?i){_ASK}(?:(?P<mind>mind)\s+)?(?P<adv>always|never)\s+(?P<x>\S.*?){_END}")
# "can you use ruff from now on?", "could you add a test every time you fix a bug?"
_TAIL_RE = re.compile(
    rf"(?i){_ASK}(?P<x>(?!mind\b)\S.*?),?\s+(?P<tail>from\s+now\s+on|going\s+forward|from\s+here\s+on(?:\s+out)?|every\s+(?:single\s+)?time\b.*){_END}"
)


def as_standing(sentence: str) -> str | None:
    """``sentence`` (a question to the agent) as the standing instruction it asks for ("Could you
    please always run the linter?" -> "Always run the linter"), or None when it asks for none."""
    said = sentence.strip()
    if m := _ADVERB_RE.match(said):
        x = m.group("x")
        first, _, rest = x.partition(" ")
        if m.group("mind"):  # "would you mind never pushing to main": the -ing form of a verb of the work
            base = base_form(first) if first.lower().endswith("ing") else None
            if base is None:
                return None
            x = f"{base} {rest}".strip()
        elif base_form(first) != first.lower():
            # A verb of the work opens an instruction: "can you never just do what I ask?" and "will
            # you always be this slow?" are complaints, not how to work.
            return None
        return f"{m.group('adv').capitalize()} {x}"
    if m := _TAIL_RE.match(said):
        tail = m.group("tail")
        if tail.lower().startswith("every"):
            return f"{m.group('x')[:1].upper()}{m.group('x')[1:]} {tail}"
        return f"From now on, {m.group('x')}"
    return None


# A question or a request said without its "?": a question word before an auxiliary ("How do I run the
# tests locally", "Where is the config loaded"), "could you ..." / "can we ...", another language's "can
# you" ("Kun je de tests draaien", "Kannst du ...", "Peux-tu ..."), a question announced ("Quick question
# about the deploy script"). It asks, and keeps nothing (review rev21 #2: such texts were cards named "how").
_ASKED_RE = re.compile(
    r"(?i)^(?:(?:hey|hi|ok|okay|so|also|and|btw)[,\s]+)?(?:(?:how|where|why|what|which|who|whom|whose|when)\s+(?:do|does|did|is|are|was|were|"
    r"can|could|should|would|will|has|have|am|come)\b|(?:could|can|would|will)\s+(?:you|we|u|someone)\b|"
    r"(?:kun|kan|kunt|kannst|könntest|können|peux|pouvez|puedes|puede|podrías|podes|pode|puoi|può|potresti)[\s-]+(?:je|jij|u|du|sie|tu|vous|usted|você|voce)\b|"
    r"(?:a\s+)?(?:quick\s+)?question\s+(?:about|on|re|regarding|for)\b)"
)


# A question of how to say it, without its mark and before a comma ("What can I say, I love turtles", "How do I
# put it, I'm leaving Acme"): a lead-in to what is said, no question.
_LEAD_IN_RE = re.compile(r"(?i)^(?:what|how)\s+(?:can|do|shall|should|could)\s+I\s+(?:say|put|tell|explain|describe)\b[^,?]{0,20},\s+(?=\S)")


def asks(said: str) -> bool:
    """Whether ``said`` asks a question or for a task: it ends in a question mark ("?", "？", ...:
    :func:`ov.sessions.memory.text.is_question`) or opens as a question does without one (see _ASKED_RE);
    not one asking for a standing instruction (:func:`as_standing`: "can you always run the linter ...?").
    ``ov remember`` and a session's extraction both read a question here, and keep nothing of it."""
    said = said.strip()
    return (is_question(said) or bool(_ASKED_RE.match(said)) and not _LEAD_IN_RE.match(said)) and as_standing(said) is None
