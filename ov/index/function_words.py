"""The words of a query that say nothing of its topic, in whatever language it is asked.

The index drops the stop words of one language, ``retrieval.language`` (English by default), from
a query. A question in another language kept its articles, pronouns and prepositions ("le", "de",
"il"; "der", "und") as words, and the share of a query's words a record holds, which bounds its
relevance, halved for a French question whose note holds "script" and "téléversement" but not the
"qu", "est", "ce", "que", "s" and "t" of "Qu'est-ce que ... s'exécute-t-il ?". Two rules, for every
language:

- a fragment of one or two letters an apostrophe joins to a word (an elided article or pronoun,
  "l'index", "qu'est", "dell'"; an English contraction, "how's", "we're", "it'll") and a letter
  between hyphens ("exécute-t-il") is no word of the query (:func:`spoken`);
- the commonest function words of a language (:data:`FUNCTION_WORDS`, short lists written here:
  tantivy's own lists cost a hook ~30 ms to build) are dropped from a query written in it: one
  holding more of them than of English's, at least two unless one is not in English's letters
  (:func:`foreign`). An English query that borrows a word ("a la carte", "the die is cast") keeps
  it, and so does a query that writes the word as code ("Comment utiliser `du` ?": the index's
  ``query_terms`` decides).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from ov.regex import LazyPattern

# An elided fragment: up to two letters before an apostrophe that joins them to a word (l', qu',
# dell' is longer and stays), up to two after one (-'s, -'re, -'ll), a letter between hyphens.
_ELIDED = LazyPattern(r"(?<!\w)[^\W\d_]{1,2}['’](?=\w)|(?<=\w)['’][^\W\d_]{1,2}(?!\w)|(?<=\w)-[^\W\d_]-(?=\w)")

# English's function words, to tell an English query that borrows a word from a French one.
_ENGLISH_WORDS = """
    a an and are as at be but by for if in into is it no not of on or such that the their then there
    these they this to was will with what when where who whom whose which why how did does do has
    have had can could would should i me my we us our you your he him his she her they them its
"""
ENGLISH = frozenset(_ENGLISH_WORDS.split())

# The commonest articles, pronouns, prepositions, conjunctions, auxiliaries and question words.
FUNCTION_WORDS: dict[str, frozenset[str]] = {
    language: frozenset(words.split())
    for language, words in {
        "french": """
            le la les un une des du de au aux et ou mais donc que qui quoi quel quelle quels quelles
            est sont été être ont il elle ils elles on je tu nous vous me te se ce cet cette ces ça
            son sa ses leur leurs mon ma mes ton ta tes notre votre nos vos dans sur sous avec pour
            par sans chez en y ne pas plus comme si où quand comment pourquoi très aussi
        """,
        "german": """
            der die das den dem des ein eine einen einem einer eines und oder aber doch ist sind war
            waren wird werden wurde hat haben hatte ich du er sie es wir ihr mich mir dich dir sich
            uns euch ihm ihn ihnen mein meine dein deine sein seine ihre unser in im ins an am auf aus
            bei mit nach von vom zu zum zur für über unter vor durch um nicht kein keine auch noch
            schon nur wie was wer wo wann warum wieso welche welcher welches dass ob wenn als so da
            dann denn
        """,
        "spanish": """
            el la los las lo un una unos unas y o pero que qué quien quién cual cuál como cómo cuando
            cuándo donde dónde por para con sin de del al en es son está están ser estar fue ha han
            hay se le les me te nos su sus mi mis tu tus este esta estos estas ese esa eso no muy más
            ya también
        """,
        "italian": """
            il lo la i gli le un uno una e ed o ma che chi cosa come quando dove perché di del della
            dei delle da dal dalla in nel nella con su per tra fra è sono era essere ha hanno non si
            mi ti ci vi suo sua suoi mio mia questo questa quello quella anche più già
        """,
        "portuguese": """
            o a os as um uma uns umas e ou mas que quem qual como quando onde porque por para com sem
            de do da dos das no na nos nas em ao à é são foi ser estar está estão tem não se me te
            lhe seu sua seus suas meu minha este esta isso isto esse essa muito mais já também
        """,
        "dutch": """
            de het een en of maar dat die dit wie wat waar wanneer waarom hoe welke is zijn was waren
            wordt worden werd heeft hebben had ik jij je hij zij ze wij we jullie mij mijn haar ons
            onze in op aan bij met van voor naar uit om te niet geen ook nog al er
        """,
        "russian": """
            и в во не что он на я с со как а то все она так его но да ты к у же вы за бы по только
            ее её мне было от меня еще ещё нет о об из ему когда ли если уже или быть был была были
            до вас вам там где есть для мы тебя их чем это этот эта эти кто какой какая почему зачем
            при без под над про через после
        """,
    }.items()
}


def spoken(text: str) -> str:
    """``text`` without the fragments an apostrophe or hyphens join to a word (:data:`_ELIDED`):
    "how's the build" is "how the build", "qu'est-ce que" is "est-ce que"."""
    if "'" not in text and "’" not in text and "-" not in text:
        return text
    return _ELIDED.sub(" ", text)


def foreign(words: Iterable[str], more: Mapping[str, frozenset[str]] | None = None) -> frozenset[str]:
    """The function words of the language other than English that ``words`` (lower case, as
    written) are in, or none: the language with the most of them, more than English's
    (:data:`ENGLISH`), and at least two unless one is written in letters English has not ("где",
    "où": no English sentence borrows it). ``more`` adds words of a language to its list."""
    words = set(words)
    english = len(words & ENGLISH)
    best: frozenset[str] = frozenset()
    most = english
    for language, function_words in FUNCTION_WORDS.items():
        held = words & (function_words | more.get(language, frozenset()) if more else function_words)
        if len(held) > most and (len(held) >= 2 or not all(word.isascii() for word in held)):
            best, most = frozenset(held), len(held)
    return best
