"""Whether a prompt names anything recall could look up: a topic word, not only the talk around a task.

Most prompts in an agent's session steer the work rather than ask about something: "ok do it",
"run the tests again", "that didn't work", "make it shorter", "lgtm, ship it". Their words are
common in any store about code, so a full-text search always finds records holding all of them,
and by the relevance alone each such prompt injected a block of whatever matched "test" or "ok"
(an audit: 68 of 73 such prompts on a store of ov's own source). A prompt made only of words from
the lists below has no topic, and recall injects nothing for it; the profile and memory index the
session began with still hold the user's standing preferences ("run tests with make check").

Task words (run, fix, test, commit, file, error, function, version ...) are talk around the work
in a request ("fix it") and a topic in a question asking how, what, which, where, when or who
("what does the deploy step do?"), unless it asks the agent about its own work ("what did you
change?") or points at what is on the screen: "what does this function do?", "what's wrong with my
code?" name nothing the store could tell apart from the rest (an audit: each got ten entries of
unrelated code), and neither do "any ideas?" or "does that make sense?". A longer request that is not a question needs two topic words: one word of its own in an
instruction ("use the second option", "bump the version now") points at what is on the screen,
while a request about something the store holds names it ("set up the gemini hooks"). A question,
a request for what is known ("tell me about Carol", "list my preferences") or a prompt of at most
three words ("Carol", "the dentist thing") needs one. Words are taken as written; the task words'
regular forms are made from their stems, so no word is cut into another ("notes" is not "not").

A file the prompt names (``fix the bug in cart.py``) is a topic of its own: it names what the store
may hold, and comes first whatever its words match (:mod:`ov.retrieval.named`). So is an identifier
as code spells it, one word that no sentence in English is made of: ``parse_time``, ``QUERY_CHARS``,
``WriteLock``, ``ov.hosts.recall`` ("fix the bug in parse_time", "make has_topic faster" were
skipped, read as the words "parse" and "time"). Unless the prompt only mentions them in passing, in
a remark ("lol I renamed utils.py yesterday, anyway thanks"): :func:`about` leaves such names out,
and the rest of the prompt is read as any other.

The lists are English, like the stop words of the default index, with the short courtesies of
other languages beside them (:data:`_COURTESIES`: "merci, on continue", "danke, mach weiter",
"了解しました", "好的，我们继续"): a courtesy is made of its language's commonest words, which any
note in that language holds, so the relevance cut-off let it inject at full relevance. They are
chatter in a prompt written in their language (:func:`~ov.index.function_words.foreign`), or made
of nothing else ("merci", "ok danke"), never in an English one: "suite", "legal", "super" are
English words too ("run the integration suite again"), and the nouns among them alone ask about
themselves unless exclaimed (:data:`_ENGLISH_TOO`: "legal", not "legal!"). A CJK courtesy beside a
topic is left out of what is searched (:func:`without_courtesies`). The function words of the language a
prompt is written in, and those no English word is spelled like ("où", "für", "где"), are chatter
too. Other words of other languages count as topic words, and the relevance cut-off decides for them.
"""

from __future__ import annotations

import re
from itertools import dropwhile

from ov import scripts
from ov.index.function_words import ENGLISH, FUNCTION_WORDS, foreign
from ov.regex import LazyPattern
from ov.retrieval.named import IDENTIFIER, named_paths, without_names
from ov.summaries.text import QUESTION_MARKS, asks

# Talk around the work: acknowledgements, steering, pronouns, function words. Never a topic, and
# taken as written (a word is never cut to one of these: "notes" is not "not", "Wes" not "we").
_CHATTER = frozenset(
    """
    a about above actual actually after afternoon again ago agreed ah aha ahead ahh all almost alright
    also am an and another any anything anyway approve are around as ask asked at away awesome back
    be because been before being below best better bigger both bottom brb but by bye can cannot
    cant careful carefully carry case choice cleaner clearer close closer continue cool correct
    could day deny did didn didnt do does doesnt doing done dont down each eight either else
    english enough entire etc even evening ever every everything exactly excellent far faster
    fine first five for forever four from further get gets go going gone good got great guess
    had hah haha half has have having he hello help helps her here hey hi him his hm hmm hold
    honestly hour hours how huh hundred i idea ideas if in inside instead into is isnt it its just k
    keep kk know last later least leave left less let lets lgtm like lol longer look looks lot
    lots maybe me mean meant min mind mine minute minutes more morning most mostly much must my
    myself nah near need needs neither never new next nice nicer nine no nope nor not nothing
    now nvm of off oh ok okay on once one ones only option options or other others our out
    outside over own pause perfect perhaps pick please pls plz proceed quick quickly quite
    rather really redo remaining rest retry right same say second see seems sense seriously seven
    shall she shorter should show simpler six slower smaller so some something soon sorry sound
    sounds still stop such suggest suggestion suggestions suppose sure take taking teh ten thank thanks that
    the their them then there these they thing things think third this those though thought thoughts three
    through thx time to today tomorrow tonight too top try trying twenty twice two ty ugh uh um
    under until up us use very wait want was way we well were what whatever when where whether
    which while who whole whom whose why will with without wonderful wont would wow wrong y yeah
    yep yes yesterday yet you your yup
    """.split()
)
# Thanks, yes and no, approval and "go on" in other languages, with the verbs such a courtesy is
# said with ("c'est bon", "mach weiter", "sigue así") and those that say it is understood ("ok, je
# vois", "ah ok ich verstehe", "vale, entiendo"): chatter in a prompt written in that language
# (:func:`~ov.index.function_words.foreign`), and only there: many are English words too ("suite",
# "legal", "bravo", "super", "top", "lista"), which an English prompt asks about.
_COURTESIES = {
    "french": """
        merci beaucoup oui ouais non bon bonne bien très super parfait parfaitement génial nickel
        accord entendu compris voilà voila bravo impeccable continuez continuons poursuis poursuivez
        suite vas allez allons fais faites est ça ca marche salut bonjour bonsoir coucou vraiment
        tout toutes tous maintenant encore ensuite alors donc puis déjà vois comprends saisis pige
    """,
    "german": """
        danke dank vielen bitte ja jawohl nein gut sehr prima toll klasse klar alles genau passt
        einverstanden verstanden stimmt richtig weiter weitermachen fortfahren mach macht machen
        los ist sind schön super perfekt wunderbar hallo moin jetzt dann nun noch mal bitteschön
        verstehe kapiert sehe seh
    """,
    "spanish": """
        gracias muchas sí vale bien muy bueno buena perfecto perfecta genial estupendo listo lista
        sigue seguimos continúa continua continúe continuar adelante acuerdo claro entendido hazlo
        haz dale vamos hola está es así ahora entonces también entiendo entendí comprendo veo ya
    """,
    "italian": """
        grazie mille sì bene benissimo perfetto ottimo certo capito chiaro va vai continua continuiamo
        procedi procediamo avanti fallo fai andiamo ciao bravo è così adesso ora allora anche
        capisco vedo
    """,
    "portuguese": """
        obrigado obrigada valeu sim não beleza certo perfeito ótimo otimo pode podes continua continue
        continuar siga segue seguir entendi entendido claro bom boa legal isso faz vamos olá oi é está
        assim agora então também entendo compreendo vejo saquei
    """,
    "dutch": """
        dank bedankt dankjewel dankuwel ja nee goed prima mooi top oké begrepen klopt duidelijk
        verder doorgaan ga gaan doe maar graag hoi hallo nu dan ook snap begrijp zie
    """,
    "russian": """
        спасибо спс да нет хорошо ок окей отлично понял поняла понятно ясно продолжай продолжайте
        продолжим продолжаем давай давайте дальше ладно супер пожалуйста ага угу так делай сделай
        готово верно можно привет теперь понимаю вижу
    """,
}
# A CJK acknowledgement is one run of characters with no space: read without these, nothing of it
# is left ("了解しました", "お願いします", "好的，我们继续", "네, 계속 진행해 주세요"). Hiragana endings are
# listed whole, so that a word of kanji before them ("設定します") is still a topic.
_CJK_COURTESY = LazyPattern(
    "ありがとう|ございます|ございました|どうも|お願い|おねがい|いたします|しました|します|して|ください|下さい"
    "|はい|いいえ|ええ|うん|そうです|そう|でした|です|ました|ます|了解|承知|分かりました|わかりました|大丈夫|いいです|いい"
    "|完璧|素晴らしい|すばらしい|続けて|続けます|続行|進めて|進めます|どうぞ|よろしく|じゃあ|では|それで|お疲れ様|おつかれさま"
    "|助かります|すみません|ごめん|問題ない|問題ありません|ね|よ|な"
    "|谢谢|多谢|感谢|谢了|好的|好吧|好|行|可以|了解|明白|知道|收到|没问题|没事|继续|接着|我们|你|吧|了|呢|啊|嗯|哦|对|是的|是"
    "|请|太好了|太棒了|很好|不错|完美|辛苦|麻烦|加油|开始|下一步|就这样|这样|一下|吗"
    "|감사합니다|감사해요|고맙습니다|고마워요|고마워|네|예|응|좋아요|좋습니다|좋아|알겠습니다|알겠어요|알았어|계속|진행해|진행|해주세요"
    "|주세요|하세요|해요|해|부탁합니다|부탁해요|완벽해요|완벽합니다|훌륭해요|괜찮아요|괜찮습니다|수고하셨습니다|그래요|그럼"
)
# Kana, CJK ideographs, Hangul (no compatibility ideographs: no courtesy is spelled with one):
# compared by code point, since a character class of these ranges takes ~3.5 ms to compile, which
# every prompt paid for its first word.
_CJK_RANGES = scripts.chars(scripts.KANA, scripts.HAN_EXT_A, scripts.HAN, scripts.HANGUL)
# Other languages' function words no English word is spelled like: chatter in any prompt.
_UNENGLISH = frozenset(word for words in FUNCTION_WORDS.values() for word in words if not word.isascii())
_COURTESY_WORDS = {language: frozenset(words.split()) for language, words in _COURTESIES.items()}
# Courtesies that are also English nouns, which a prompt of that word alone asks about ("legal",
# "suite?", "snap"): a topic unless exclaimed ("legal!", "ok, legal!"), or said beside another word of
# their language ("legal, obrigado"). The other courtesies English has ("super", "bravo", "top",
# "sim", "toll", "dale") say yes or thanks far more often than they name a subject.
_ENGLISH_TOO = frozenset(("legal", "suite", "nickel", "accord", "snap"))
# What an agent is asked to do, and what it does it to: talk around the work in a request ("fix
# it", "run the tests"), a topic in a question asking how, what, which, where, when or who ("how
# do I run the tests?"). These are stems: their regular forms (tests, fixed, running) are made below.
_TASK_STEMS = (
    """
    add apply approach assert backend behavior behaviour block branch broken bug build bump cargo catch chain
    change check checkout ci class clean clear clever code comment commit compile confirm
    confirmation crash create dead debug delete deploy detail dict diff edge edit empty endpoint
    error explain extract fail fast file fix flag flaky format formatter frontend function git
    green handle handler helper implement import improve indentation inline install issue line lint linter
    list local locally log long loop main make master merge message method misleading miss mock
    modify move name nested npm null obvious open optional output part pass patch pip pipeline
    plan pnpm point pr print problem prompt pull push pytest read readable rebase rebuild red refactor
    remove rename repair repeat replace rerun return revert review rewrite run ship short simple
    simplify skip slow small snippet solution solve spacing split squash stack stash step summarise summarize
    table tell test timeout touch trace type typo undo update value variable verbose verify
    version work write yarn zero
    """.split()
)
_TASK_IRREGULAR = ("broke", "ran", "written", "wrote", "made", "built", "brought", "found", "said", "told", "thought", "went", "undid")
# Past forms that do not end in "ed": a sentence opening with one tells what happened ("forgot to
# save it", "saw that"), as one opening with "renamed" does.
_TOLD = frozenset(
    (*_TASK_IRREGULAR, "saw", "forgot", "got", "took", "did", "had", "was", "came", "felt", "kept", "lost", "knew", "gave", "began", "spent", "sent", "left")
)


def _forms(stem: str) -> set[str]:
    """The regular English forms of ``stem``: fix, fixes, fixed, fixing; run, runs, running."""
    forms = {stem, stem + "s", stem + "ed", stem + "ing"}
    if stem.endswith(("s", "x", "z", "ch", "sh")):
        forms.add(stem + "es")
    if stem.endswith("e"):
        forms |= {stem + "d", stem[:-1] + "ing"}
    if len(stem) >= 3 and stem[-1] not in "aeiouwxy" and stem[-2] in "aeiou" and stem[-3] not in "aeiou":
        forms |= {stem + stem[-1] + "ed", stem + stem[-1] + "ing"}  # run -> running, stop -> stopped
    return forms


_TASK = frozenset(form for stem in _TASK_STEMS for form in _forms(stem)) | frozenset(_TASK_IRREGULAR)
_WORD = re.compile(r"[^\W\d_]+", re.UNICODE)  # letters only: numbers and single letters name nothing
# What points at the screen: a task word after one of these is what the user is looking at, not a
# topic, even in a question ("what does this function do?", "what's wrong with my code?").
_POINTING = frozenset(("this", "that", "these", "those", "my", "our", "your", "its"))
# A question asking for knowledge: task words are its topic ("what does the deploy do?"); a yes/no
# question or a why about the work ("did the tests pass?", "why did you change that?") is not.
_ASKS = re.compile(r"^\W*(?:how|what|whats|which|where|when|who)\b|\bhow\b", re.IGNORECASE)
_TO_THE_AGENT = re.compile(r"\b(?:you|your|u)\b", re.IGNORECASE)
# Any question, or a request for what is known ("tell me about Carol", "list my preferences").
_QUESTION = re.compile(
    r"^\W*(?:what|whats|which|who|whom|whose|when|where|why|how|is|are|was|were|do|does|did|can|could|should|would|will|has|have|"
    r"tell|explain|describe|summari[sz]e|show|remind|list|find|look\s+up|recall|search|info|details|anything|any)\b",
    re.IGNORECASE,
)
SHORT = 3  # words: a prompt this short is asked about what it names ("Carol", "the dentist thing")
# What opens a statement, not a request: its subject ("I renamed it", "the build is green", "it
# works") or an acknowledgement ("thanks", "nice"). A clause that opens with another word is a
# request ("swap the buttons", "look at cart.py"), whatever the verb: verbs are an open list.
_SUBJECTS = frozenset(
    (
        "i", "im", "ive", "id", "ill", "we", "were", "weve", "wed", "you", "youre", "youve", "he", "hes",
        "she", "shes", "it", "its", "they", "theyre", "this", "that", "thats", "these", "those", "there",
        "theres", "here", "heres", "the", "a", "an", "my", "our", "your", "his", "her", "their", "some",
        "all", "both", "each", "every", "none", "someone", "somebody", "anyone", "anybody", "nobody",
        "everything", "nothing", "everyone", "everybody", "thanks", "thank", "thx", "ty", "cheers",
        "cool", "nice", "great", "perfect", "awesome", "lgtm", "good", "sorry", "np", "noted",
    )
)
# Said before a sentence, and changing nothing of what it does: "ok so", "lol", "btw", "anyway",
# "yesterday". Passed over to find the word the sentence opens with.
_FILLERS = frozenset(
    (
        "ok", "okay", "kk", "so", "well", "anyway", "anyways", "also", "and", "but", "or", "just", "then",
        "now", "hey", "hi", "oh", "ah", "lol", "haha", "heh", "hah", "btw", "fyi", "yeah", "yes", "yep",
        "no", "nope", "hmm", "hm", "um", "uh", "huh", "meh", "welp", "wow", "whoa", "ugh", "oops", "yay",
        "omg", "alright", "right", "actually", "honestly", "basically", "apparently", "finally",
        "yesterday", "today", "earlier", "recently", "tonight", "tomorrow", "later", "again", "already",
        "whatever", "anyhow",
    )
)
# A request however the sentence opens: "please ...", "can you ...", "I need ...", "we should ...".
_WANTS = re.compile(
    r"\b(?:please|pls|plz|let'?s)\b|\b(?:can|could|would|will)\s+(?:you|u)\b"
    r"|\b(?:i|we|you)\s+(?:want|need|should|must|have\s+to|'?d\s+like|would\s+like)\b",
    re.IGNORECASE,
)
# A request or a question said as a statement: what a thing should do or what is wanted of it ("utils.py
# should handle None", "I'd like cart.py to log"), or wondering ("I wonder why ...").
_WANTS_SAID = re.compile(
    r"\b(?:should|must|ought\s+to|needs?|'d\s+like|would\s+(?:like|prefer|be\s+(?:nice|good|great|better))|wish|wonder(?:ing)?|"
    r"trying\s+to)\b",
    re.IGNORECASE,
)
# A fault the user reports ("cart.py throws a KeyError", "there's a bug in parser.py", "has the wrong
# port", "keeps timing out") asks for help with what it names, unless the sentence says it is over
# ("fixed the bug in cart.py, thanks", "cart.py no longer crashes"): that is a remark of how it went.
_FAULT = re.compile(
    r"\b(?:bugs?|broken|breaks|fails?|failing|crash(?:es|ing)?|throws?|throwing|raises|errors?|exceptions?|wrong|doesn'?t|"
    r"don'?t|isn'?t|aren'?t|won'?t|can'?t|cannot|hangs?|hanging|leaks?|leaking|missing|keeps\s+\w+ing|times?\s+out|timing\s+out)\b",
    re.IGNORECASE,
)
_SETTLED = re.compile(r"\b(?:no\s+longer|any\s*more|fixed|gone|resolved|solved|thanks|thank\s+you|thx)\b", re.IGNORECASE)
_SENTENCE_END = re.compile(rf"(?<=[.!;{''.join(QUESTION_MARKS)}])\s+|\n+")
_CLAUSE_END = re.compile(r"[,:]\s+|\s+[-\u2013\u2014]+\s+")


# The end of a short question's clause, a word of time allowed before it.
_ASKED_NOW = r"(?=\s*(?:now|these\s+days|currently|today|again)?\s*(?:[?.!,;]|$))"
# A question about the user themself ("who am I?", "what do you know about me?", "tell me about
# myself", "what's my role?"): its words are chatter, or ones the user's profile need not hold
# ("role" beside "Is a tech lead"), and the profile answers it.
_ABOUT_USER = re.compile(
    r"\bwho\s+(?:am\s+i|i\s+am)\b|\babout\s+(?:me|myself)\b|\b(?:describe|summari[sz]e)\s+(?:me|myself)\b"
    r"|\b(?:know|remember|recall|have|got|stored|kept)\s+(?:of\s+|on\s+|about\s+)?(?:me|myself)\b"
    r"|\bwhat(?:'?s|\s+is|\s+are|\s+was)?\s+my\s+(?:name|role|job|title|position|team|company|employer|pronouns?|"
    r"email|time\s*zone|location|background|profile|editor|shell|terminal|os|browser|city|home\s*town|address)\b|\bmy\s+profile\b"
    # Where the user lives or works, whom for, and the tools they are on, asked as such: the clause
    # ends there ("where do I live?", "where am I based these days?"), so "where do I work on the
    # parser?" asks about the work.
    r"|\bwhere\s+(?:do|did)\s+i\s+(?:live|work|come\s+from)" + _ASKED_NOW + r"|\bwhere\s+am\s+i\s+(?:from|based|located|living|working)" + _ASKED_NOW
    + r"|\bwho\s+do\s+i\s+work\s+(?:for|at)" + _ASKED_NOW + r"|\bwhat\s+do\s+i\s+do\s+for\s+(?:a\s+living|work)\b"
    r"|\b(?:what|which)\s+(?:editor|shell|terminal|os|operating\s+system|browser)\s+(?:do|did|am)\s+i\b",
    re.IGNORECASE,
)


def about_user(prompt: str) -> bool:
    """Whether ``prompt`` asks about the user (:data:`_ABOUT_USER`) in a question or a request for
    what is known: "who am I?", "tell me about me". A statement about the user ("I know about me")
    asks nothing."""
    return bool(_ABOUT_USER.search(prompt)) and ("?" in prompt or bool(_QUESTION.search(prompt)))


def has_topic(prompt: str) -> bool:
    """True when ``prompt`` names something to look up: a file ("fix the bug in cart.py"), an
    identifier (:data:`~ov.retrieval.named.IDENTIFIER`: "make has_topic faster"), or a word
    that is neither chatter nor, outside a question asking for knowledge, a task word; two such
    words in a request of more than :data:`SHORT` words that is not a question ("bump the version
    now", "use the second option" point at what is on the screen)."""
    if any(len(name[-1].rpartition(".")[2]) > 1 for name in named_paths(prompt).files):
        return True  # a file's name ("e.g." is none: its extension is a letter)
    if IDENTIFIER.search(prompt):
        return True  # an identifier: "fix the bug in parse_time", "make WriteLock faster"
    words = _WORD.findall(prompt.lower())
    asked = any(mark in prompt for mark in QUESTION_MARKS) or bool(_QUESTION.search(prompt))
    tasks_are_topics = bool(_ASKS.search(prompt)) and not _TO_THE_AGENT.search(prompt)
    needed = 1 if asked or len(words) <= SHORT else 2
    said = _said(words, exclaimed=any(mark in prompt for mark in "!\uff01\u00a1"))
    for before, word in zip(["", *words], words, strict=False):
        if len(word) < 2 or word in _CHATTER or word in said or word in _UNENGLISH or _courtesy(word):
            continue
        if word in _TASK and (not tasks_are_topics or before in _POINTING):
            continue
        needed -= 1
        if not needed:
            return True
    return False


def _said(words: list[str], exclaimed: bool = False) -> frozenset[str]:
    """The function words and courtesies (:data:`_COURTESIES`) of the language other than English
    that ``words`` are written in (:func:`~ov.index.function_words.foreign`), or, when they hold no
    English function word and nothing but one language's courtesies besides chatter, those: "merci",
    "ok danke", "thanks, gracias" are too short for a language to be told by its words. Not a word
    of :data:`_ENGLISH_TOO` alone, unless ``exclaimed`` ("legal" asks about it, "legal!" is thanks)."""
    said = foreign(words, _COURTESY_WORDS)
    rest = set(words) - _CHATTER
    if said or not rest or not ENGLISH.isdisjoint(words):
        return said
    if not exclaimed and rest <= _ENGLISH_TOO and len(rest) == 1:
        return frozenset()
    return next((frozenset(rest) for courtesies in _COURTESY_WORDS.values() if rest <= courtesies), frozenset())


def _courtesy(word: str) -> bool:
    """Whether ``word``, a run of CJK characters, is an acknowledgement (:data:`_CJK_COURTESY`)."""
    if word.isascii() or not any(low <= char <= high for char in word for low, high in _CJK_RANGES):
        return False
    return not _CJK_COURTESY.sub("", word)


# What sets a courtesy apart from the rest, in ASCII and full-width forms; not "?" (a question's).
_SET_APART = " ,;:.!\u3001\u3002\uff01\uff0c\uff1b\uff1a"


def without_courtesies(prompt: str) -> str:
    """``prompt`` without its words that are CJK courtesies (:func:`_courtesy`: "I prefer tabs 谢谢",
    "好的，请解释一下索引"), when a word is left: a search for them would find the notes written in
    that language, whatever the rest asks. A prompt of nothing else is left whole (it has no topic)."""
    if prompt.isascii():
        return prompt
    lines = prompt.split("\n")  # kept as lines: a pasted traceback is told by them (:func:`about`)
    kept = [_WORD.sub(lambda word: "" if _courtesy(word.group()) else word.group(), line) for line in lines]
    if kept == lines or not any(_WORD.search(line) for line in kept):
        return prompt
    return "\n".join(line if line == was else " ".join(line.split()).strip(_SET_APART) for line, was in zip(kept, lines, strict=True)).strip()


def about(prompt: str) -> str:
    """``prompt`` as recall reads it: without the files and folders it names in a remark ("lol I
    renamed utils.py yesterday, anyway thanks", "the build is green since cart.py"), where they
    are mentioned in passing. Kept are those named in a sentence that asks something (a question
    or a request), in a pasted traceback, and in a prompt of at most :data:`SHORT` words ("cart.py",
    "cart.py again?"). A name is a strong word (the file holds it, and few others do), and made such
    a remark relevant to that file; without it the remark is read by its other words. Without its
    CJK courtesies too (:func:`without_courtesies`), when it says something besides."""
    from ov.tracebacks import span

    prompt = without_courtesies(prompt)
    if len(prompt.split()) <= SHORT or not (named_paths(prompt) or IDENTIFIER.search(prompt)):
        return prompt
    lines = prompt.splitlines()
    pasted = span(lines)
    if pasted is not None:
        first, last = pasted
        return "\n".join([about("\n".join(lines[:first])), *lines[first : last + 1], about("\n".join(lines[last + 1 :]))]).strip()
    return "\n".join(sentence if _asks(sentence) else IDENTIFIER.sub(" ", without_names(sentence)) for sentence in _SENTENCE_END.split(prompt))


def _asks(sentence: str) -> bool:
    """Whether ``sentence`` is a question or a request: it ends in "?" (or "？", ...), says "please" or "can you"
    or what is wanted (:data:`_WANTS_SAID`), reports a fault not said to be over (:data:`_FAULT`),
    or one of its clauses of two words or more opens, past fillers ("ok so", "lol"), with a
    question word or with a word that is neither a subject nor a file's name nor an identifier (a
    verb: "swap the buttons"), nor a verb that has one already ("renamed it yesterday", "works now")."""
    if asks(sentence) or _WANTS.search(sentence) or _WANTS_SAID.search(sentence):
        return True
    if _FAULT.search(sentence) and not _SETTLED.search(sentence):
        return True
    for clause in _CLAUSE_END.split(sentence):
        written = [word for word in (word.strip("`'\"()[]{}<>*!.") for word in clause.split()) if word]
        rest = [word.lower() for word in dropwhile(lambda word: word.lower() in _FILLERS, written)]
        if len(rest) < 2 or not rest[0][0].isalpha():
            continue  # a request says what to do it to ("swap the buttons"); "fine", "funny" is a remark
        opener = rest[0]
        if _QUESTION.match(opener):
            return True
        told = opener in _TOLD or opener.endswith("ed") or (opener.endswith("s") and not opener.endswith(("ss", "us", "is")))
        named = named_paths(opener).tails or IDENTIFIER.fullmatch(written[len(written) - len(rest)])
        if not told and opener.replace("'", "") not in _SUBJECTS and not named:
            return True
    return False
