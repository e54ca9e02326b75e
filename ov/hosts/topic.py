"""Whether a prompt names anything recall could look up: a topic word, not only the talk around a task.

Most prompts in an agent's session steer the work rather than ask about something: "ok do it",
"run the tests again", "that didn't work", "make it shorter", "lgtm, ship it". Their words are
common in any store about code, so a full-text search always finds records holding all of them,
and by the relevance alone each such prompt injected a block of whatever matched "test" or "ok"
(an audit: 68 of 73 such prompts on a store of ov's own source). A prompt made only of words from
the lists below has no topic, and recall injects nothing for it; the profile and memory index the
session began with still hold the user's standing preferences ("run tests with make check").

A request that is not a question needs two topic words: one word of its own in an instruction
("use the second option", "bump the version", "handle the empty case too") points at what is on
the screen, while a request about something the store holds names it ("set up the gemini hooks",
"restore yesterday's snapshot"). None of 140 questions and requests about a store written by three
other authors had a single topic word outside a question; 26 of 293 steering prompts did.

The lists are English, like the stop words of the default index. Words in other languages count as
topic words, and the relevance cut-off decides for them as before.
"""

from __future__ import annotations

import re

# Talk around the work: acknowledgements, steering, pronouns, function words. Never a topic.
_CHATTER = frozenset(
    """
    a about above actual actually after afternoon again ago agreed ahead all almost alright also
    am an and another any anything anyway approve are around as ask asked at away awesome back
    be because been before being below best better both bottom brb break but by bye can cannot
    cant careful carefully carry case check choice clean cleanup close closer continue cool
    correct could day deny did didn didnt do does doesnt doing done dont down each easy eight
    either else english enough entire etc even evening ever every everything exactly excellent
    fail failed failing fails far fast faster fine first five for forever four from further get
    gets go going gone good got great guess had hah haha half hard has have having he hello help
    helps her here hey hi him his hm hmm hold hour hours how huh hundred i idea if in inside
    instead into is isnt it its just k keep kk know last later least leave left less let lets
    lgtm like lol look looks lot lots lunch maybe me mean meant min mind mine minute minutes
    more morning most much must my myself nah near need needs neither never new next nice nine
    no nope nor not nothing now nvm of off oh ok okay on once one ones only option options or
    other others our out outside over own pause perfect perhaps pick plan please pls plz proceed
    quick quickly quite rather really redo remaining rest retry right same say second see seems
    seriously seven shall she short shorter should show six slow slower so some something soon
    sorry sound still stop such suggest suggestion suppose sure take taking teh ten thank thanks
    that the their them then there these they thing things think third this those though three
    through thx time to today tomorrow tonight too top try trying twenty twice two ty ugh uh um
    under until up us very wait want was way we well were what whatever when where whether which
    while who whole whom whose why will with without wonderful wont work working would wow wrong
    y yeah yep yes yesterday yet you your yup
    """.split()
)
# What an agent is asked to do, and what it does it to. Talk around the work in a request ("fix
# it", "run the tests"), a topic in a question about how ("how do I run the tests?").
_TASK = frozenset(
    """
    add apply approach assert backend behavior behaviour branch broken bug bugs build builds
    cargo chain change changed changes checkout ci class clear clearer clever code comment
    comments commit compile compiles conflict conflicts crash crashes create dead debug delete
    deploy describe description detail dict diff docstring draft edge edit empty endpoint error
    errors explain extract file files fix flag flaky format formatter friendlier friendly
    frontend function git green handler helper hunk implement import imports improve indentation
    inline issue issues line lines lint linter list local locally log logging logs long longer
    loop main make master merge message messages method misleading mismatch miss missed mock
    modified modify move name naming nested npm null obvious open optional origin output pass
    passed passes pasted patch pip pipeline pnpm point pr print problem push pytest read
    readable rebase rebuild red refactor release remove rename repair repeat replace rerun
    result results return returning returns revert review rewrite run ship simple simpler
    simplify skip small smaller solve spacing split squash stack stash statement statements step
    steps summarise summarize table task tell test tests timeout touch trace type types typo
    undefined undo unit update value values variable variables verbose verify version write yarn
    zero
    """.split()
)
_WORD = re.compile(r"[^\W\d_]+", re.UNICODE)  # letters only: numbers and single letters name nothing
_HOW = re.compile(r"\bhow\s+(?:do|does|did|can|could|should|would|to|is|are|was|were)\b", re.IGNORECASE)
_QUESTION = re.compile(r"^\W*(?:what|which|who|whom|whose|when|where|why|how|is|are|was|were|do|does|did|can|could|should|would|will|has|have)\b", re.IGNORECASE)
_SUFFIXES = ("ing", "ly", "ed", "es", "s", "d")


def has_topic(prompt: str) -> bool:
    """True when ``prompt`` names something to look up: a word that is neither chatter nor, outside
    a how-question, a task word; two such words when the prompt is not a question."""
    asks_how = bool(_HOW.search(prompt))
    needed = 1 if "?" in prompt or _QUESTION.search(prompt) else 2
    for word in _WORD.findall(prompt.lower()):
        if len(word) < 2:
            continue
        forms = {word, *(word[: -len(s)] for s in _SUFFIXES if word.endswith(s) and len(word) - len(s) >= 2)}
        if forms & _CHATTER:
            continue
        if forms & _TASK and not asks_how:
            continue
        needed -= 1
        if not needed:
            return True
    return False
