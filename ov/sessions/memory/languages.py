"""Statements about the user said in another language, put in English before the rules read them.

The rules read English ("my name is Jörg", "I work at SAP", "I use Neovim"). A user writes in their
own language as often: "Ich heiße Jörg und arbeite bei SAP", "Uso Neovim como editor". The statements
about themselves are few, and open on a few phrases per language, so one small table per language
maps those openings to the English ones; the rest (the name, the tool, the place) is kept as typed:

- a clause opening on a phrase of the table, with or without its subject pronoun ("ich", "yo",
  "je", "eu"), is said in English ("arbeite bei SAP" -> "I work at SAP");
- the language's "and" before such a clause is "and" ("... und arbeite bei SAP" -> "... and I work
  at SAP"), so the clause rules split the sentence as they split an English one;
- "als" / "como" / "comme" after a thing used is "as" ("Uso Neovim como editor" -> "I use Neovim
  as editor"), and "jetzt" / "ahora" / "maintenant" / "agora" is "now", said at the clause's end
  ("Ich benutze jetzt Helix" -> "I use Helix now": a change, as the English one is).

Nothing else is translated: a phrase no table holds is left alone, so a text in another language
that says nothing of the user stays as it was (and is a dated note when asked to be remembered).
Only openings that no English clause starts with are listed ("soy", "sou" are left out: "Soy sauce").
"""

from __future__ import annotations

import re

from ov.sessions.memory.capitals import UPPER

# Per language: its subject pronoun, its "and", its "as", its "now", and its openings -> the English opening.
_TABLES: dict[str, tuple[str, str, str, str, tuple[tuple[str, str], ...]]] = {
    "de": ("ich", "und", "als", "jetzt|nun|mittlerweile", (
        (r"hei(?:ß|ss)e", "my name is"),
        (r"arbeite\s+(?:bei|f[üu]r)", "I work at"),
        (r"arbeite\s+als", "I work as"),
        (r"(?:wohne|lebe)\s+in", "I live in"),
        (r"(?:benutze|nutze|verwende)", "I use"),
        (r"bevorzuge", "I prefer"),
        (r"wir\s+(?:verwenden|benutzen|nutzen)", "we use"),
    )),
    # ("uso" opens an Italian or a Portuguese clause too, which this table reads first: their "now" as well)
    "es": ("yo", "y", "como", "ahora|agora|adesso|ora", (
        (r"me\s+llamo", "my name is"),
        (r"trabajo\s+para", "I work at"),
        (r"trabajo\s+en", "I work in"),
        (r"trabajo\s+como", "I work as"),
        (r"vivo\s+en", "I live in"),
        (r"(?:uso|utilizo)", "I use"),
        (r"prefiero", "I prefer"),
        (r"(?:nosotros\s+)?(?:usamos|utilizamos)", "we use"),
    )),
    "fr": ("je", "et", "comme", "maintenant|d[ée]sormais", (
        (r"m'appelle", "my name is"),
        (r"travaille\s+(?:chez|pour)", "I work at"),
        (r"travaille\s+[àa]", "I work in"),
        (r"travaille\s+comme", "I work as"),
        (r"(?:vis|habite)\s+(?:[àa]|en|au)", "I live in"),
        (r"(?:utilise|j'utilise)", "I use"),
        (r"pr[ée]f[èe]re", "I prefer"),
        (r"(?:nous\s+utilisons|on\s+utilise)", "we use"),
    )),
    "pt": ("eu", "e", "como", "agora", (
        (r"me\s+chamo", "my name is"),
        (r"trabalho\s+(?:na|no|para)", "I work at"),
        (r"trabalho\s+em", "I work in"),
        (r"trabalho\s+como", "I work as"),
        (r"(?:moro|vivo)\s+(?:em|no|na)", "I live in"),
        (r"(?:uso|utilizo)", "I use"),
        (r"prefiro", "I prefer"),
        (r"(?:n[óo]s\s+)?(?:usamos|utilizamos)", "we use"),
    )),
    "it": ("io", "e", "come", "ora|adesso", (
        (r"mi\s+chiamo", "my name is"),
        (r"lavoro\s+(?:per|presso|da|alla|al)", "I work at"),
        (r"lavoro\s+(?:in|a)", "I work in"),
        (r"lavoro\s+come", "I work as"),
        (r"(?:vivo|abito)\s+(?:a|in)", "I live in"),
        (r"(?:uso|utilizzo)", "I use"),
        (r"preferisco", "I prefer"),
        (r"sono\s+(?:un|una|uno)", "I'm a"),
        (r"(?:noi\s+)?(?:usiamo|utilizziamo)", "we use"),
    )),
    # Dutch says "I use" and "use!" alike ("gebruik"): its openings need their "ik" ("Gebruik Docker" is
    # a task; "Heet water" is hot water).
    "nl": ("ik", "en", "als", "nu|tegenwoordig", (
        (r"(?<=ik\s)heet", "my name is"),
        (r"(?<=ik\s)werk\s+(?:bij|voor)", "I work at"),
        (r"(?<=ik\s)werk\s+als", "I work as"),
        (r"(?<=ik\s)woon\s+in", "I live in"),
        (r"(?<=ik\s)gebruik", "I use"),
        (r"(?<=ik\s)ben\s+(?:een)", "I'm a"),
        (r"(?:we|wij)\s+gebruiken", "we use"),
    )),
    # Polish says who by the verb's ending ("pracuję": I work), so its openings need no pronoun.
    "pl": ("ja", "i", "jako", "teraz", (
        (r"nazywam\s+si[ęe]", "my name is"),
        (r"pracuj[ęe]\s+(?:dla|u)", "I work at"),
        (r"pracuj[ęe]\s+(?:w|we)", "I work in"),
        (r"pracuj[ęe]\s+jako", "I work as"),
        (r"mieszkam\s+w", "I live in"),
        (r"u[żz]ywam", "I use"),
        (r"wol[ęe]", "I prefer"),
        (r"u[żz]ywamy", "we use"),
    )),
    # Swedish puts its verb second and its "jag" first: "Jag heter Ingrid och jobbar som ...".
    "sv": ("jag", "och", "som", "nu|numera", (
        (r"heter", "my name is"),
        (r"(?:jobbar|arbetar)\s+(?:p[åa]|hos|f[öo]r)", "I work at"),
        (r"(?:jobbar|arbetar)\s+som", "I work as"),
        (r"bor\s+i", "I live in"),
        (r"anv[äa]nder", "I use"),
        (r"f[öo]redrar", "I prefer"),
        (r"vi\s+anv[äa]nder", "we use"),
    )),
    # Russian, like Polish, says who by the verb's ending ("работаю": I work); "меня зовут" is "I am called".
    "ru": ("я", "и", "как", "сейчас|теперь", (
        (r"меня\s+зовут", "my name is"),
        (r"работаю\s+(?:в|во|на)", "I work in"),
        (r"работаю\s+как", "I work as"),
        (r"живу\s+(?:в|во)", "I live in"),
        (r"(?:использую|пользуюсь)", "I use"),
        (r"предпочитаю", "I prefer"),
        (r"мы\s+используем", "we use"),
    )),
}
# "mein Name ist", "mi nombre es", "mon nom est", "meu nome é", "il mio nome è", "mijn naam is": the name, said as English says it.
_NAME_IS_RE = re.compile(
    r"(?i)(?<![\w'])(?:mein\s+name\s+ist|mi\s+nombre\s+es|mon\s+nom\s+est|(?:o\s+)?meu\s+nome\s+[ée]|il\s+mio\s+nome\s+[èe]|mijn\s+naam\s+is)(?=\s+\S)"
)
# French elides its "je" before a vowel: "j'utilise", "j'habite".
# Where one works is said in most languages with the word that says where one is ("Lavoro a Milano",
# "Pracuję w Krakowie", "Trabajo en Madrid", "Я работаю в Москве", "Lavoro in Python"): that word
# opens "I work in X" (a line of its own, as the English one is), and only a word said of an employer
# ("bei", "presso", "dla", "chez", "para", "på", "hos") opens "I work at X", in place of the stored
# employer. Either reads only a name after it (a capital): "Jag jobbar på natten", "Я работаю на
# себя", "Lavoro al computer" say when, for whom or how one works, and stay notes as typed.
# Where, when or for whom one works that is no employer: home, nights, weekends, oneself, full time,
# in English and after the openings read "I work at" ("Lavoro da casa", "Pracuję w domu", "Ik werk
# voor mezelf", "Ik werk bij voorkeur thuis", "Trabajo en casa"): such a sentence is left as typed
# (a note), never an employer in place of the stored one (rules._WORK_RE reads the English alike).
NOT_AN_EMPLOYER = (
    r"(?:(?:my|our|the)\s+)?(?:home|house|remotely|remote|myself|ourselves|themselves|night|nights|weekends?|free|fun|"
    r"part[\s-]time|full[\s-]time|late|early|anywhere|from\s+home|"
    r"casa|remoto|me\s+stess[oa]|conto\s+mio|tempo\s+(?:pieno|parziale)|notte|"  # it
    r"domu|zdalnie|nocy|weekendy|sobot[yę]|niedziel[eę]|pe[łl]nym\s+etacie|"  # pl
    r"mezelf|onszelf|thuis|voorkeur|deeltijd|voltijd|nachts?|"  # nl
    r"m[íi]\s+mism[oa]|tiempo\s+(?:completo|parcial)|noche)"  # es
)
_ELIDED_RE = re.compile(r"(?i)(?<![\w'])j'(?=utilise|habite)")


def _compiled(pronoun: str, conj: str, now: str, phrases: tuple[tuple[str, str], ...]) -> list[tuple[re.Pattern[str], str]]:
    out = []
    for phrase, english in phrases:
        # "now" may come first or inside the opening: "ahora vivo en", "je travaille maintenant chez"
        phrase = phrase.replace(r"\s+", rf"\s+(?:(?P<now_in>{now})\s+)?", 1)
        # At a clause's opening: the text's start, after a sentence's end, a comma or the language's "and".
        not_employer = rf"(?!\s+{NOT_AN_EMPLOYER}(?![\w']))(?=\s+(?-i:{UPPER}))" if english.startswith("I work ") and english != "I work as" else ""
        out.append((re.compile(
            rf"(?i)(?:^|(?<=[.!?;,]\s)|(?P<and>(?<=\s){conj}\s+))(?:(?P<now>{now})\s*,?\s+)?(?:{pronoun}\s+)?{phrase}(?![\w'])"
            rf"(?:\s+(?:{_OFTEN})(?![\w']))?{not_employer}"
        ), english))
    return out


# How often, said right after an opening the tables read ("Usamos siempre tabs", "Ich benutze meistens Vim",
# "J'utilise toujours Black"): no part of the value that follows ("Team uses siempre tabs" was stored). Only
# what says "always" or "usually": a "never" says the opposite, and is left for the reader of habits (foreign).
_OFTEN = (
    r"siempre|normalmente|generalmente|immer|meistens|normalerweise|toujours|g[ée]n[ée]ralement|d'habitude|sempre|geralmente|"
    r"solitamente|di\s+solito|altijd|meestal|zawsze|zwykle|alltid|oftast|vanligtvis|всегда|обычно"
)


_RULES = {lang: (_compiled(pronoun, conj, now, phrases), as_word, now) for lang, (pronoun, conj, as_word, now, phrases) in _TABLES.items()}
_NOW_MARK = "\ue000"  # a "now" taken out of an opening, put back at its clause's end


# Japanese puts its verb last and writes no spaces, so no opening says what a sentence states; a
# few whole sentences about the user are read instead, each its subject ("私は", optional), what it
# names, and the verb that ends it: "私はエディタとしてVimを使っています" is "I use Vim as エディタ".
_JA_I = r"(?:(?:私|僕|俺|わたし)は)?"
# Where one works, in a script without capitals: a name in Latin letters ("Googleで働いています") or one
# that says it is a company ("トヨタ自動車株式会社", "삼성 회사"); "家で働いています", "リモートで", "집에서"
# (at home, remotely) and a city ("東京で") say where one works, no employer, and stay notes as typed.
_LATIN_NAME = r"[A-Z][\w.&'+-]*(?:\s+[A-Za-z0-9][\w.&'+-]*){0,2}"
_JA: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(rf"^{_JA_I}(?:(?P<as>[^はをがで、。]+?)として)?(?P<x>[^はを、。]+?)を(?:使って|使用して|愛用して)(?:います|いる|ます)$"), "I use {x}"),
    (re.compile(r"^(?:私|僕|俺|わたし)の名前は(?P<x>[^は、。]+?)(?:です|だ)$"), "my name is {x}"),
    (re.compile(rf"^{_JA_I}(?P<x>{_LATIN_NAME}|[^はを、。]+?(?:会社|社))\s*で働いて(?:います|いる|ます)$"), "I work at {x}"),
    (re.compile(rf"^{_JA_I}(?P<x>[^はを、。]+?)に住んで(?:います|いる|ます)$"), "I live in {x}"),
)
_JA_SCRIPT, _JA_ENDS = r"[\u3040-\u30ff\u4e00-\u9fff]", r"(?<=[。！!])\s*"


def _whole_sentences(text: str, script: str, ends: str, table: tuple[tuple[re.Pattern[str], str], ...]) -> str:
    """``text``'s sentences that ``table`` reads, said in English, each as a sentence; the rest as
    they are. ``script``: a character class of the language's script (a text without one is
    returned at once); ``ends``: where its sentences end. A pattern's ``as`` group, where it
    matched, says the role ("I use Vim as エディタ")."""
    if not re.search(script, text):
        return text
    # Split at the sentences' ends and at line breaks, the separators kept: a text the table reads
    # nothing of comes back as it was (its lines are what the rules split on), and one it reads
    # changes only in the sentences read.
    parts = re.split(rf"((?:{ends})|\s*\n\s*)", text)
    for n in range(0, len(parts), 2):
        said = parts[n].strip().rstrip("。！!?. ")
        for pattern, english in table:
            if m := pattern.match(said):
                parts[n] = english.format(x=m.group("x")) + (f" as {m.group('as')}" if m.groupdict().get("as") else "") + "."
                # (the English sentence stands apart from its neighbours, which may be written with no space)
                for side, neighbour in ((n - 1, n - 2), (n + 1, n + 2)):
                    if 0 <= neighbour < len(parts) and parts[neighbour].strip() and not parts[side]:
                        parts[side] = " "
                break
    return "".join(parts)


# Where the team's system runs, said whole ("Unser Staging-Server läuft auf Port 8443", "Vår CI körs
# på Hetzner", "Наш сервер работает на порту 8443"): "our S runs on X", which the facts read as
# English's; the names and the place are kept as typed.
_OUR = r"(?P<s>[^\s,.]+(?:\s+[^\s,.]+)?)"
_RUNS_ON: tuple[re.Pattern[str], ...] = (
    re.compile(rf"(?i)^(?:unser|unsere)\s+{_OUR}\s+(?:l[äa]uft|laeuft)\s+(?:auf|unter)\s+(?P<x>\S.*)$"),
    re.compile(rf"(?i)^(?:v[åa]r|v[åa]rt|v[åa]ra)\s+{_OUR}\s+(?:k[öo]rs|ligger)\s+p[åa]\s+(?P<x>\S.*)$"),
    re.compile(rf"(?i)^(?:наш|наша|наше|наши)\s+{_OUR}\s+(?:работает|работают|крутится|запущен|запущена)\s+на\s+(?P<x>\S.*)$"),
)


def _runs_on(text: str) -> str:
    said = text.strip().rstrip(".!")
    for pattern in _RUNS_ON:
        if m := pattern.match(said):
            where = re.sub(r"(?i)^(?:порту|порт|port)\s+(?=\d)", "port ", m.group("x"))
            return f"our {m.group('s')} runs on {where}"
    return text


# Korean, like Japanese, ends on its verb; a few whole sentences about the user are read: "저는 X로
# ... 개발하고 있어요" (what the user builds with: X in Latin letters, a tool's name), a name, where they
# work and live.
_KO_I = r"(?:(?:저는|나는|제가|내가)\s*)?"
_KO: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(rf"^{_KO_I}(?P<x>[A-Za-z][\w.+#-]*(?:\s+[A-Za-z0-9][\w.+#-]*)?)(?:로|으로|를|을)\s+(?:\S+\s+)*?(?:사용|개발|작업|만들|쓰)\S*(?:\s*있어요|\s*있습니다|\s*있다)?$"), "I use {x}"),
    (re.compile(r"^(?:제|내)\s*이름은\s*(?P<x>[^\s은는이가]+?)(?:입니다|이에요|예요|이야|야)$"), "my name is {x}"),
    (re.compile(rf"^{_KO_I}(?P<x>{_LATIN_NAME}|\S+?회사)\s*에서\s*일(?:하고\s*있어요|하고\s*있습니다|해요|합니다)$"), "I work at {x}"),
    (re.compile(rf"^{_KO_I}(?P<x>\S+?)에\s*(?:살고\s*있어요|살고\s*있습니다|살아요|삽니다)$"), "I live in {x}"),
)
_KO_SCRIPT, _KO_ENDS = r"[\uac00-\ud7a3]", r"(?<=[.!?])\s+"


def in_english(text: str) -> str:
    """``text`` with the openings of its statements about the user said in another language put in
    English ("Ich heiße Jörg und arbeite bei SAP" -> "my name is Jörg and I work at SAP"); a text
    none opens as it is."""
    if (order := standing_order(text)) is not None:
        return order
    text = _NAME_IS_RE.sub("my name is", _ELIDED_RE.sub("je ", _whole_sentences(_whole_sentences(_runs_on(text), _JA_SCRIPT, _JA_ENDS, _JA), _KO_SCRIPT, _KO_ENDS, _KO)))
    for rules, as_word, now in _RULES.values():
        said = text
        for pattern, english in rules:
            said = pattern.sub(lambda m, english=english: ("and " if m.group("and") else "") + english + _now_mark(m), said)
        if said != text:
            # "Uso Neovim como editor": what the thing is used as
            # (and what the user works as where they work: "Pracuję w Allegro jako inżynier" -> "I work at Allegro as inżynier")
            said = re.sub(rf"(?i)(?<=\S)\s+{as_word}\s+(?=\w)", " as ", said) if "I use" in said or "I work at" in said or "I work in" in said else said
            # "ich benutze jetzt Helix": "now" where English says it, at the clause's end ("I use Helix now")
            text = re.sub(rf"(?i)\s+(?:{now}|{_NOW_MARK})(?![\w'])(?P<rest>[^,.;!?]*?)(?=,|\s+and\s|[.;!?]|$)", lambda m: f"{m.group('rest')} now", said)
    return text


def _now_mark(match: re.Match[str]) -> str:
    return f" {_NOW_MARK}" if match.group("now") or match.groupdict().get("now_in") else ""


# A standing instruction in another language: an imperative of a few verbs said with "always" or
# "never" ("Réponds-moi toujours en français", "Responde siempre en español", "Antworte immer auf
# Deutsch"), read as the English one ("Always answer me en français"); the rest is kept as typed.
# Without its "always" or "never" an imperative asks for a task of the moment, and is left alone.
# Per language: (always, never, please, ((verb, English verb), ...)); a verb's "-moi"/"me"/"mir" is "me".
_ORDERS: dict[str, tuple[str, str, str, tuple[tuple[str, str], ...]]] = {
    "fr": ("toujours", "jamais", r"s'il\s+(?:te|vous)\s+pla[îi]t", (
        (r"r[ée]ponds|r[ée]pondez", "answer"), (r"[ée]cris|[ée]crivez", "write"), (r"parle|parlez", "speak"),
        (r"utilise|utilisez", "use"), (r"lance|lancez|ex[ée]cute|ex[ée]cutez", "run"), (r"ajoute|ajoutez", "add"),
    )),
    "es": ("siempre", "nunca|jam[áa]s", r"por\s+favor", (
        (r"responde|resp[óo]nde|responda|resp[óo]nda|contesta|cont[ée]sta", "answer"), (r"escribe|escriba", "write"),
        (r"habla|h[áa]bla|hable", "speak"), (r"usa|uses|utiliza|utilices", "use"), (r"ejecuta|corre", "run"), (r"a[ñn]ade|agrega", "add"),
    )),
    "pt": ("sempre", "nunca|jamais", r"por\s+favor", (
        (r"responda|responde", "answer"), (r"escreva|escreve", "write"), (r"fale|fala", "speak"),
        (r"utilize|utiliza|usa", "use"), (r"rode|execute|executa", "run"), (r"adicione|adiciona", "add"),
    )),
    "nl": ("altijd", "nooit", r"alsjeblieft|alstublieft|a\.u\.b\.", (
        (r"antwoord|antwoordt", "answer"), (r"schrijf", "write"), (r"spreek|praat", "speak"), (r"gebruik", "use"),
        (r"draai|voer", "run"), (r"voeg", "add"),
    )),
    "it": ("sempre", "mai", r"per\s+favore|per\s+piacere", (
        (r"rispondi|risponda|rispondimi", "answer"), (r"scrivi|scriva", "write"), (r"parla|parlami", "speak"),
        (r"usa|usate|utilizza", "use"), (r"esegui|lancia", "run"), (r"aggiungi", "add"),
    )),
    "de": ("immer", "nie|niemals", r"bitte", (
        (r"antworte|antworten\s+sie", "answer"), (r"schreibe?|schreiben\s+sie", "write"), (r"sprich|sprechen\s+sie", "speak"),
        (r"f[üu]hre|f[üu]hren\s+sie", "run"), (r"f[üu]ge|f[üu]gen\s+sie", "add"),
    )),
    "sv": ("alltid", "aldrig", r"sn[äa]lla|tack", (
        (r"svara", "answer"), (r"skriv", "write"), (r"prata|tala", "speak"), (r"anv[äa]nd", "use"), (r"k[öo]r", "run"),
        (r"l[äa]gg\s+till", "add"),
    )),
    "ru": ("всегда", r"никогда(?:\s+не)?", r"пожалуйста", (
        (r"отвечай|отвечайте|ответь", "answer"), (r"пиши|пишите|напиши", "write"), (r"говори|говорите", "speak"),
        (r"используй|используйте|применяй", "use"), (r"запускай|запускайте", "run"), (r"добавляй|добавляйте", "add"),
    )),
}
# "Don't use X" said with the language's "not" and no "always" or "never" ("не используй табы",
# "använd inte tabbar", "benutze keine Tabs"): a thing not wanted, as the English "don't use" is (a
# negative imperative asks for no task of the moment).
_DONT_USE_RE = re.compile(
    r"(?i)^(?:(?:пожалуйста|sn[äa]lla|bitte)\s*,?\s*)?(?:не\s+(?:используй|используйте|применяй)|anv[äa]nd\s+inte|"
    r"(?:benutze|verwende|nutze)\s+(?:bitte\s+)?kein(?:e|en)?)(?![\w'])\s+(?=\S)"
)
_ME = r"(?:-moi|-me|me|\s+mir|\s+comigo)"


def _order_rules(always: str, never: str, please: str, verbs: tuple[tuple[str, str], ...]) -> list[tuple[re.Pattern[str], str]]:
    adverb = rf"(?P<{{}}>{always}|{never})"
    out = []
    for verb, english in verbs:
        # "toujours réponds-moi", "ne réponds jamais", "nunca uses", "sempre me responda", "antworte mir immer"
        out.append((re.compile(
            rf"(?i)^(?:{please}\s*,?\s*)?(?:{adverb.format('a1')}\s+)?(?:ne\s+|n'|(?P<me1>me)\s+)?(?:{verb})(?P<me2>{_ME})?(?:\s+{adverb.format('a2')})?(?![\w'])\s*"
        ), english))
    return out


_ORDER_RULES = {lang: (_order_rules(*table), table[0], table[2]) for lang, table in _ORDERS.items()}


def standing_order(text: str) -> str | None:
    """``text``, an imperative said with "always" or "never" in another language ("Réponds-moi
    toujours en français, s'il te plaît"), as the English instruction ("Always answer me en
    français"); None for any other text."""
    said = text.strip()
    if dont := _DONT_USE_RE.match(said):
        return f"Don't use {said[dont.end() :]}"
    for rules, always, please in _ORDER_RULES.values():
        for pattern, english in rules:
            m = pattern.match(said)
            adverb = m and (m.group("a1") or m.group("a2"))
            if not m or not adverb or (m.group("a1") and m.group("a2")) or not said[m.end() :].strip():
                continue
            lead = "Always" if re.fullmatch(always, adverb, re.IGNORECASE) else "Never"
            me = " me" if m.group("me1") or m.group("me2") else ""
            rest = re.sub(rf"(?i)[,\s]*(?:{please})\s*(?=[.!]*$)", "", said[m.end() :])
            return f"{lead} {english}{me} {rest}"
    return None
