"""A text in another language that no table reads, asked to be remembered: kept in its words, as
what it is by a word any such text says it with.

:mod:`ov.sessions.memory.languages` puts a few openings of a few languages in English; the rest of
what a user says in their language ("Vi rebaser alltid før vi merger", "Me gusta que los tests usen
fixtures") was kept as a dated note, as if it had happened on the day. Two kinds of standing
statement show by one word in most languages, whatever the sentence around it:

- a habit ("always", "never": alltid, toujours, siempre, immer, всегда, 总是, いつも, ...) is how to
  work: with the language's "we" it is the team's convention ("... (team convention)"), else an
  instruction in the user's words;
- a liking ("I like", "I prefer": me gusta, je préfère, mag ich, нравится, 喜欢, 好き, ...) is a
  preference in the user's words.

Either is kept as typed (never translated) in the preferences, under a topic of its words. A text
with neither word, or with a day in it, stays a dated note: a fact may as well be news.
"""

from __future__ import annotations

import re

from ov.sessions.memory import text as tx
from ov.sessions.memory import topics
from ov.sessions.memory.standing import complains
from ov.sessions.memory.statement import Statement

# "always" and "never", per language (no, sv, da, fr, es, pt, it, de, nl, pl, cs, sk, ru, uk, hu, fi, tr,
# ro, hr/sr, el, vi, id). Words that are English words too ("mai", "nie", "on") are left out.
_HABIT = (
    r"alltid|aldri|aldrig|altid|toujours|jamais|siempre|nunca|sempre|giammai|immer|niemals|altijd|nooit|zawsze|nigdy|"
    r"v[žz]dy|nikdy|всегда|никогда|завжди|ніколи|mindig|soha|aina|koskaan|her\s+zaman|asla|[îi]ntotdeauna|niciodat[ăa]|uvijek|nikada|"
    r"πάντα|ποτέ|luôn\s+luôn|luôn|không\s+bao\s+giờ|selalu|tidak\s+pernah"
)
_HABIT_CJK = r"总是|總是|从不|從不|永远|永遠|一律|始终|始終|务必|務必|いつも|必ず|絶対に|常に|항상|언제나|절대"
# The language's "we" (and "our"), which makes a habit the team's.
WE = (
    r"vi|vår|våre|vårt|nous|on|nosotros|nuestro|nuestra|nós|nosso|nossa|noi|nostro|nostra|wir|unser|unsere|wij|we|ons|onze|my|nasz|nasze|"
    r"nasza|naše|náš|мы|наш|наши|ми|miénk|meidän|biz|bizim|εμείς|chúng\s+tôi|chúng\s+ta|kami|kita"
)
WE_CJK = r"我们|我們|私たち|僕ら|うち|우리"
# "I like", "I prefer", "I love", per language.
_LIKING = (
    r"me\s+gusta|me\s+gustan|me\s+encanta|prefiero|je\s+pr[ée]f[èe]re|j'aime|j'adore|eu\s+gosto|gosto|prefiro|mi\s+piace|"
    r"mi\s+piacciono|preferisco|ich\s+mag|mag\s+ich|gef[äa]llt\s+mir|ich\s+bevorzuge|bevorzuge|ik\s+hou\s+van|ik\s+vind|ik\s+prefereer|"
    r"lubi[ęe]|wol[ęe]|preferuj[ęe]|mám\s+rád|mám\s+ráda|preferuji|нравится|нравятся|предпочитаю|люблю|подобається|jeg\s+liker|"
    r"jeg\s+foretrekker|jag\s+gillar|jag\s+f[öo]redrar|jeg\s+kan\s+lide|pidän|szeretem|jobban\s+szeretem|seviyorum|tercih\s+ederim|"
    r"tôi\s+thích|tôi\s+muốn|saya\s+suka|aku\s+suka"
)
_LIKING_CJK = r"喜欢|喜歡|更喜欢|偏好|倾向于|好き|好みます|좋아해|좋아합니다|선호"
_CJK = r"[\u3040-\u30ff\u4e00-\u9fff\uac00-\ud7a3]"
# The language's "I", and its "my" ("Ben", "min", "Ja", "Mi" open English sentences too: read in a text
# not in English). ("préfère" alone is "she prefers" too: only "je préfère" is the user's liking.)
I_WORDS = r"je|j'|moi|ich|yo|eu|io|ik|ja|jag|jeg|minä|tôi|я|ben|saya|aku|εγώ"
MY_WORDS = r"mein|meine|mi|mijn|mój|moja|min|mitt|мой|моя"
I_CJK = r"我|私|僕|저는|나는|제"
# The first person said by the verb alone, in the languages whose verb carries it ("Jestem inżynierem",
# "Trabalho na Globo", "Jsem vývojář"): the common verbs of what one is, does, uses and likes, in their
# first person singular (pl, cs, sk, pt, es, it, ro, hr/sr, ru, uk); and Turkish's first person
# endings, said last ("Python kullanıyorum", "Backend geliştiriciyim"). Words that are English words
# too ("sou", "soy", "ho", "am", "mam") are left out.
I_VERBS = (
    r"jestem|pracuj[ęe]|u[żz]ywam|mieszkam|lubi[ęe]|pisz[ęe]|programuj[ęe]|zajmuj[ęe]\s+si[ęe]|jsem|pracuji|pracuju|pou[žz][íi]v[áa]m|"
    r"bydl[íi]m|m[áa]m\s+r[áa]d|p[íi][šs]u|som|pracujem|pou[žz][íi]vam|estou|trabalho|moro|tenho|prefiro|gosto|escrevo|"
    r"estoy|trabajo|tengo|prefiero|escribo|sono|lavoro|abito|preferisco|scrivo|sunt|lucrez|folosesc|locuiesc|radim|koristim|"
    r"живу|работаю|использую|пишу|предпочитаю|являюсь|працюю|використовую|пишу"
)
I_ENDINGS = r"\w+(?:[ıiuü]yorum|y[ıiuü]m)"
# Who a habit in another language is said of when not of the user or the team: a name alone before it
# ("Bob siempre olvida ..."), someone's or something's ("Mi jefe siempre ...", "Il mio collega usa sempre
# ...", "Le build casse toujours": an article or a possessive opening the text) or a third person's pronoun.
_SOMEONE_OPENING_RE = re.compile(
    r"(?i)^(?:el|la|los|las|le|les|il|lo|gli|o|a|os|as|der|die|das|den|de|het|mi|mis|mio|mia|mon|ma|mes|meu|minha|mein|meine|mijn|su|sus|"
    r"son|sa|ses|seu|sua|sein|seine|zijn|haar|jego|jej|él|ella|ele|ela|elle|er|sie|lui|lei|hij|zij|han|hon)(?![\w'-])"
)
# The team said with an article ("A equipe sempre ...", "El equipo siempre ...", "Das Team ...", "Tim kami ..."): ours.
_TEAM_AFTER_RE = re.compile(r"(?i)^\w+\s+(?:equipe|equipo|équipe|team|time|squadra|zespół|tým|tim|команда|ekip|ploeg|lag|hold)\b")
# A verb of the first person opening a sentence with no pronoun ("Usamos siempre tabs"), not a name ("Bob").
_FIRST_PERSON_VERB_RE = re.compile(r"(?i)^\w+(?:mos|mo|ons|en|em|am|emy|imy|amy|ем|им)$")

HABIT_RE = re.compile(rf"(?i)(?<![\w'])(?:{_HABIT})(?![\w'])|{_HABIT_CJK}")
_WE_RE = re.compile(rf"(?i)(?<![\w'])(?:{WE})(?![\w'])|{WE_CJK}")
_LIKING_RE = re.compile(rf"(?i)(?<![\w'])(?:{_LIKING})(?![\w'])|{_LIKING_CJK}")
# English words a text in English says, which a text in another language rarely does: such a text
# is the English rules' to read (a note when they read nothing), not this module's.
# ("always", "never", a modal or an auxiliary count too: "It always breaks on Mondays" is English, its "on" no French "we")
ENGLISH_RE = re.compile(
    r"(?i)(?<![\w'])(?:the|and|is|are|was|with|for|this|that|I|I'm|you|our|of|to|it|always|never|should|must|will|can|does|doesn't|don't|has|have)(?![\w'])"
)
# What only a text in another language writes: a letter English has not ("é", "ż", "ı", "ø", a script of
# its own), or a word of the tables above ("toujours", "me gusta").
_ANOTHER_LANGUAGE_RE = re.compile(rf"[^\W\da-zA-Z_]|(?i:(?<![\w'])(?:{_HABIT}|{_LIKING})(?![\w']))")
# A verb of the third person in English after a name ("Ben uses", "Min runs", "Mi is"): "Ben", "Min", "Ja", "Mi"
# are names in English, and "I" or "my" only in their language.
_ENGLISH_THIRD_PERSON_RE = re.compile(r"(?i)\s+(?:[a-z]+s|is|has|was)\b")
# (or the verb alone, where it says the person: "Jestem inżynierem firmware", "Python kullanıyorum")
_THEIR_I_RE = re.compile(rf"(?i)^(?:{I_WORDS}|{MY_WORDS}|{I_VERBS})(?![\w-])|^(?:{I_CJK})|^.*(?<![\w-]){I_ENDINGS}[.!]*$")


def english(said: str) -> bool:
    """Whether ``said`` is in English by its small words (one in four words or more: :data:`ENGLISH_RE`)."""
    return len(ENGLISH_RE.findall(said)) * 4 >= len(said.split())


def in_another_language(said: str) -> bool:
    """Whether ``said`` is shown to be in another language than English: few of English's small words,
    and a letter or a word only another language writes, outside a gloss in brackets ("Team notes (팀 노트)"
    is English). "Bob uses Vim" has neither kind of word, and is English."""
    return not english(said) and bool(_ANOTHER_LANGUAGE_RE.search(re.sub(r"\([^()]*\)", "", said)))


def their_first_person(said: str) -> bool:
    """Whether ``said`` opens on another language's "I" or "my" ("Ich", "je", "Ja", "mi", "我") in a text
    of that language: not English, and shown to be another language or going on with no English verb
    ("Ben uses Emacs", "Min runs the infra team", "Sono Motors builds EVs" are theirs; "Ben kullanıyorum Vim" is the user's)."""
    their = _THEIR_I_RE.match(said)
    if their is None or english(said):
        return False
    return in_another_language(said) or not _ENGLISH_THIRD_PERSON_RE.match(said[their.end() :])


# A day or a date: something that happened, or will, is a dated note whatever its language.
DATE_RE = re.compile(
    r"\d{4}-\d{2}-\d{2}|\d{1,2}[./]\d{1,2}(?:[./]\d{2,4})?|昨天|今天|明天|昨日|今日|明日|어제|오늘|내일|(?i:(?<![\w'])(?:hier|aujourd'hui|demain|ayer|hoy|"
    r"ma[ñn]ana|ontem|hoje|amanh[ãa]|ieri|oggi|domani|gestern|heute|morgen|gisteren|vandaag|wczoraj|dzisiaj|jutro|вчера|сегодня|"
    r"завтра|i\s+g[åa]r|i\s+dag|i\s+morgon|i\s+morgen|igår|idag|včera|dnes|zítra|hôm\s+qua|hôm\s+nay|ngày\s+mai)(?![\w']))"
)


def first_person_verb(word: str) -> bool:
    """Whether ``word`` is a verb of the first person by its ending, as languages that drop the
    pronoun say one ("Usamos", "Utilisons"); a name ("Bob") is none."""
    return bool(_FIRST_PERSON_VERB_RE.match(word)) or bool(re.fullmatch(rf"(?i){I_WORDS}|{WE}", word))


def said_of_us(said: str, at: int) -> bool:
    """Whether ``said`` (not in English) says the habit word at ``at`` of the user or the team ("Wir
    mergen immer mit Squash", "Usamos siempre tabs", "Prosím, piš komentáře vždy anglicky"): not of a
    name, of someone or of something (_SOMEONE_OPENING_RE: "Bob siempre olvida los tests", "Mi jefe
    siempre usa tabs", "Mon collègue utilise toujours Emacs": theirs)."""
    before = said[:at].split()
    if not before:
        return True
    if _SOMEONE_OPENING_RE.match(said) and not re.match(rf"(?i)(?:{WE})(?![\w'-])", said) and not _TEAM_AFTER_RE.match(said):
        return False
    # (a name alone before it; a pro-drop verb or an imperative is the user's: "Usamos siempre tabs", "Prosím, piš ... vždy anglicky")
    return not (len(before) == 1 and before[0][:1].isupper() and not first_person_verb(before[0]))


def kept_as(text: str, subject: str) -> Statement | None:
    """``text`` (read by no rule, asked to be remembered) as a preference in its own words when it is in
    another language and says a habit or a liking (see the module's docstring); None for any other."""
    said = " ".join(text.split()).strip()
    if not said or DATE_RE.search(said) or (not re.search(_CJK, said) and english(said)):
        return None
    line = tx.capitalise(said.rstrip(" ."))
    habit = HABIT_RE.search(said)
    if habit and said_of_us(said, habit.start()) and not complains(said):
        line = f"{line} (team convention)" if _WE_RE.search(said) else line
    elif not _LIKING_RE.search(said):
        return None  # (someone else's habit, or a complaint: "Nunca funciona")
    topic = topics.slug(said, fallback="note")
    return Statement("preferences", "", line, ("preferences", topic), {"subject": subject, "topic": topic})
