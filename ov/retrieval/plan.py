"""Query plans for ``ov search``: which queries to run, for which context type, how important.

With a language model (``llm.model`` set and ``retrieval.query_planner`` on), one
bounded call reads the query, the session's last messages and its latest summary
and answers with 0 to 5 typed queries (template ``ov/llm/templates/intent_analysis.yaml``).
The answer is validated; an unusable one gets one repair call, and when that fails
too (or the call itself fails) the deterministic plan is used and says why; so it is
when the model plans no query of the types searched (a search asked for is answered).
The model plans memories, resources and skills; past conversations are ranked by the
deterministic plan's queries beside its own (:func:`with_sessions`). A call that
fails (not an unusable answer) is remembered for :data:`PLANNER_RETRY_AFTER` seconds,
during which searches plan deterministically without waiting for the model; the plan's
``failure`` says why, for the CLI's warning and the MCP result. Tokens are
recorded in the usage log (``ov usage``) as ``query_plan``.

Without a model the plan is deterministic: the query as given and, in a session,
when the query leans on the conversation, the query joined with the topic words of
the last user messages, so that a follow-up ("and how do I rotate them?") still finds
what the conversation is about. A query that stands on its own words ("where is the
staging server?") does not take them: after a change of topic they filled its block
with the previous question's answer.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ov import scripts
from ov.errors import InvalidInput
from ov.regex import LazyPattern
from ov.store import sidecar

if TYPE_CHECKING:
    from ov.config import LLMConfig
    from ov.llm.prompts import PromptTemplate
    from ov.llm.usage import UsageLog
    from ov.store.store import Store
    from ov.waiting import Stop

PROMPT = "intent_analysis"
ANSWER_SHAPE = '{"reasoning": "...", "queries": [{"query": "...", "context_type": "memory|resource|skill", "intent": "...", "priority": 1}]}'
PURPOSE = "query plan"  # names the call in LLM error messages
USAGE_PURPOSE = "query_plan"  # the row in `ov usage`
PLANNED_TYPES = ("memory", "resource", "skill")
SESSION_TYPE = "session"  # never planned by the model: with_sessions adds its queries
MAX_QUERIES = 5
# After the planner's call fails (unreachable, timed out, refused), searches use the deterministic
# plan for this many seconds without asking it, as a failed embedder is left for the same time
# (ov.index.sync.VECTORS_RETRY_AFTER): with llm.timeout 60 every search waited a minute. The failure
# is kept in state/ACCOUNT/PLANNER_FAILED_NAME, for every process of the store.
PLANNER_RETRY_AFTER = 300
PLANNER_FAILED_NAME = "planner.failed.json"
# What the planner sees of the session: the last few messages, each cut short, and the newest summary.
RECENT_MESSAGES = 5
MESSAGE_CHARS = 1000
SUMMARY_CHARS = 4000
# The deterministic follow-up query: topic words of the last few user messages.
TOPIC_MESSAGES = 3
TOPIC_WORDS = 8
# A query with this many topic words of its own, and nothing that points back into the conversation,
# stands on its own (:func:`leans_on_conversation`).
OWN_TOPIC_WORDS = 2
# Words that point back at what the conversation named: a query holding one is a follow-up ("and
# how do I rotate them?", "is that in the config?"). "there" is left out: "is there a ..." names nothing.
_POINTERS = frozenset(
    ("it", "its", "they", "them", "their", "theirs", "this", "that", "these", "those", "he", "him", "his", "she", "her", "one", "ones", "same", "former", "latter")
)
# Openings that continue the last question ("and ...", "what about the tests?", "also ...").
_CONTINUES = LazyPattern(r"^\W*(?:and|also|but|or|so|then|plus|what\s+about|how\s+about|same\s+for|and\s+for)\b", re.IGNORECASE)
CUT_MARK = " [...]"

_PLURALS = {"memories": "memory", "resources": "resource", "skills": "skill"}
_WORD_RE = re.compile(r"[^\W_]+")
# Compiled on first use (~4 ms): an ASCII word never needs it, and hooks plan every prompt.
_CJK_RE = LazyPattern(f"[{scripts.char_class(*scripts.CJK)}]")
# Words that carry no topic: function words, question words and conversational filler.
_STOP_WORDS = frozenset(
    """
    a about above after again against all also am an and any anything are as at be because been before being
    below between both but by can cannot could did do does doing done down during each either else etc ever
    every few for from further get gets getting give go going got had has have having he her here hers him his
    how however i if in into is it its itself just know let lets like many may maybe me might mine more most
    much must my need needs no nor not now of off ok okay on once one only or other our ours out over own
    please rather really right said same say says see she should show so some something still such sure tell
    than thank thanks that the their theirs them then there these they thing things this those though through
    thus to too try under until up us use used using very want wants was way we well were what whatever when
    where whether which while who whom whose why will with within without would yes yet you your yours
    hi hello hey
    """.split()
)


@dataclass(frozen=True)
class TypedQuery:
    """One query of a search plan, with the type it looks for and its priority."""

    query: str
    context_type: str | None  # memory | resource | skill (the model's), session (with_sessions); None: every type the search allows
    intent: str
    priority: int  # 1 (core need) to 5 (optional)

    def to_dict(self) -> dict:
        return {"query": self.query, "context_type": self.context_type, "intent": self.intent, "priority": self.priority}


@dataclass(frozen=True)
class QueryPlan:
    """The queries a search runs for one request, and who planned them."""

    reasoning: str
    queries: list[TypedQuery] = field(default_factory=list)
    source: str = "deterministic"  # llm | deterministic
    # Why the configured model did not plan: it failed now, or did a moment ago (PLANNER_RETRY_AFTER).
    # "" when it planned or none is wanted. The CLI warns with it, the MCP search says it, and
    # --json's query_plan has it as ``failure`` (null else): a script reading stdout must tell a
    # planner that is down from one that was never asked without parsing the reasoning.
    failure: str = field(default="", compare=False)

    def to_dict(self) -> dict:
        return {"reasoning": self.reasoning, "queries": [q.to_dict() for q in self.queries], "source": self.source, "failure": self.failure or None}

    @property
    def warning(self) -> str:
        """One line for whoever asked (the CLI's stderr, the MCP result) when the configured model did not plan; "" else."""
        return f"searched with the deterministic plan: {self.failure}" if self.failure else ""


@dataclass(frozen=True)
class SessionContext:
    """What a plan may know of the conversation around the query."""

    session_id: str
    uri: str  # viking://user/{uid}/sessions/{sid}
    messages: list[dict]  # live messages, oldest first
    summary: str  # the newest archive's working-memory overview, or ""


def session_context(store: Store, session_id: str) -> SessionContext:
    """The session's live messages and newest summary; NotFound for a session that does not exist."""
    from ov.sessions.session import no_session, read_messages, read_meta, session_uri

    uri = session_uri(store, session_id)  # InvalidId for a malformed id
    if read_meta(store, session_id) is None:
        raise no_session(session_id)
    return SessionContext(session_id, str(uri), read_messages(store, session_id), _newest_summary(store.path(uri) / sidecar.HISTORY))


def _newest_summary(history: Path) -> str:
    try:
        archives = sorted((p for p in history.iterdir() if p.is_dir() and p.name.startswith(sidecar.ARCHIVE_PREFIX)), reverse=True)
    except OSError:
        return ""
    for archive in archives:
        try:
            return sidecar.body((archive / sidecar.OVERVIEW).read_text(encoding="utf-8"))
        except (OSError, ValueError, InvalidInput):  # missing, not text, or an unclosed frontmatter fence
            continue
    return ""


# --- choosing a plan -------------------------------------------------------------


def plan_query(
    store: Store, query: str, session: SessionContext | None = None, *, types: tuple[str, ...] | None = None, use_llm: bool = True
) -> QueryPlan:
    """The plan for ``query``: the model's when one is configured, usable and wanted (``use_llm``),
    else the deterministic one."""
    messages = session.messages if session else []
    config = store.config
    if not use_llm:
        return deterministic_plan(query, messages, why="the caller asked for a deterministic plan")
    if not config.llm.enabled:
        return deterministic_plan(query, messages, why="no language model is configured")
    if not config.retrieval.query_planner:
        return deterministic_plan(query, messages, why="the query planner is off (retrieval.query_planner)")
    allowed = [t for t in PLANNED_TYPES if types is None or t in types]
    if not allowed:
        return deterministic_plan(query, messages, why="only session messages are searched, so there is nothing to plan")
    failed = _recent_failure(store, config.llm)
    if failed:
        return _fell_back(query, messages, failed)
    from ov.llm.client import EmptyAnswer, LLMError, LLMNotSetUp, UnusableAnswer
    from ov.llm.usage import UsageLog

    try:
        plan = llm_plan(
            config.llm,
            query,
            messages,
            session.summary if session else "",
            types=tuple(allowed),
            prompts_dir=store.home.root / "prompts",
            usage=UsageLog(store.state, USAGE_PURPOSE),
            stop=store.stop,  # an MCP search cancelled while the model plans: it ends there
        )
    except (UnusableAnswer, EmptyAnswer, LLMNotSetUp) as exc:
        # It answered, and the next query may get a usable plan; or no call was made (no key yet),
        # which costs no wait and may be fixed by the next export: neither is remembered.
        return _fell_back(query, messages, f"the query planner failed ({exc.message})")
    except LLMError as exc:  # unreachable, timed out, refused: the next searches do not wait for it again
        _remember_failure(store, config.llm, exc.message)
        return _fell_back(query, messages, f"the query planner failed ({exc.message}); it is asked again in {PLANNER_RETRY_AFTER // 60} minutes")
    _forget_failure(store)
    if not plan.queries:
        # A search asked for is answered: a model that judged it small talk, or planned only types the
        # search leaves out (dropped by parse_plan), would leave it empty whatever the store holds.
        said = f": {plan.reasoning}" if plan.reasoning else ""
        return deterministic_plan(query, messages, why=f"the query planner planned no query of the types searched{said}")
    if types is None or SESSION_TYPE in types:
        return with_sessions(plan, query, messages)
    return plan


def _fell_back(query: str, messages: list[dict], failure: str) -> QueryPlan:
    return replace(deterministic_plan(query, messages, why=failure), failure=failure)


# The environment variables a model's key and server may come from when llm.* does not name them
# (OPENAI_API_KEY, OPENAI_BASE_URL, ANTHROPIC_API_BASE, ...: ov.llm.routes), by their endings.
_ENDPOINT_VARIABLES = ("_API_KEY", "_BASE_URL", "_API_BASE")


def _failure_key(config: LLMConfig) -> str:
    """What a remembered failure holds for: another model, endpoint or timeout, or another key or
    server in the environment (one exported since, a typo fixed) is asked at once. The variables'
    values are held as a digest: the state folder keeps no key."""
    import hashlib
    import os

    names = sorted({name for name in os.environ if name.endswith(_ENDPOINT_VARIABLES)} | ({config.api_key_env} if config.api_key_env else set()))
    environment = hashlib.sha256("\0".join(f"{name}={os.environ.get(name, '')}" for name in names).encode("utf-8", "surrogateescape")).hexdigest()[:16]
    return json.dumps([config.model, config.api_base, config.api_key_env, config.timeout, environment])


def _recent_failure(store: Store, config: LLMConfig, now: float | None = None) -> str:
    """Why the planner is not asked: it failed for this configuration within
    :data:`PLANNER_RETRY_AFTER` seconds (what it said); "" when it may be asked."""
    try:
        failed = json.loads((store.state / PLANNER_FAILED_NAME).read_text(encoding="utf-8"))
        age = (time.time() if now is None else now) - float(failed["at"])
        same = failed["llm"] == _failure_key(config)
    except (OSError, ValueError, KeyError, TypeError):
        return ""
    if not same or not 0 <= age < PLANNER_RETRY_AFTER:
        return ""
    return f"the query planner failed {int(age)} s ago ({failed.get('error')}); it is asked again {PLANNER_RETRY_AFTER // 60} minutes after the failure"


def _remember_failure(store: Store, config: LLMConfig, error: str) -> None:
    from ov.files import atomic_write, json_bytes
    from ov.home import Home

    try:
        Home.of_state_dir(store.state).ensure(store.state)
        atomic_write(store.state / PLANNER_FAILED_NAME, json_bytes({"at": time.time(), "error": error, "llm": _failure_key(config)}), durable=False)
    except OSError:
        pass  # a store ov may only read: each search asks the planner, as before


def _forget_failure(store: Store) -> None:
    try:
        (store.state / PLANNER_FAILED_NAME).unlink(missing_ok=True)
    except OSError:
        pass  # a store ov may only read kept no failure


def with_sessions(plan: QueryPlan, query: str, messages: list[dict]) -> QueryPlan:
    """``plan`` with past conversations ranked too: the model plans memories, resources and skills
    only, so the deterministic plan's queries (the query, and in a session its follow-up with the
    conversation's topic) run for session messages beside the model's, at their priorities."""
    own = deterministic_plan(query, messages).queries
    extra = [TypedQuery(q.query, SESSION_TYPE, f"past conversations: {q.intent}", q.priority) for q in own]
    return replace(plan, queries=[*plan.queries, *extra])  # the reasoning stays the model's; each query's intent says why


def deterministic_plan(query: str, messages: list[dict] | None = None, *, why: str = "") -> QueryPlan:
    """The query itself (a pasted traceback in it reduced to its error and files, as a find reads
    it: :func:`~ov.retrieval.find.asked`); in a session, also the query joined with the topic
    words of the last user messages."""
    from ov.retrieval.find import asked

    query = asked(query)
    queries = [TypedQuery(query, None, "the query as given", 1)]
    reasoning = (f"{why}; " if why else "") + "deterministic plan: the query as given"
    words = topic_words(query, messages or []) if leans_on_conversation(query) else []
    if words:
        queries.append(TypedQuery(f"{query} {' '.join(words)}", None, "the query in the context of the conversation", 2))
        reasoning += f", and the query with the topic of the last user messages ({', '.join(words)})"
    return QueryPlan(reasoning, queries, "deterministic")


def leans_on_conversation(query: str) -> bool:
    """Whether ``query`` needs the conversation to be understood: it has fewer than
    :data:`OWN_TOPIC_WORDS` topic words of its own ("why?", "and the tests?"), points back with a
    pronoun ("how do I rotate them?", "is that in the config?"), or continues the last question
    ("what about staging?"). A question in words of its own ("where is the staging server?") is
    searched as it is: the conversation's last topic would rank its answer below the old one."""
    words = _WORD_RE.findall(query.lower())
    if _CONTINUES.search(query) or any(w in _POINTERS for w in words):
        return True
    return len(_words(query)) < OWN_TOPIC_WORDS


def topic_words(query: str, messages: list[dict]) -> list[str]:
    """Up to ``TOPIC_WORDS`` salient words of the last user messages that the query does not already hold, newest first."""
    from ov.sessions.session import message_text

    have = set(_words(query))
    texts = []
    for message in reversed(messages):
        if message.get("role") != "user":
            continue
        text = message_text(message)
        if " ".join(text.split()) == query or not text.strip():
            continue  # the query itself, just captured by a hook
        texts.append(text[: MESSAGE_CHARS * 2])
        if len(texts) == TOPIC_MESSAGES:
            break
    out: list[str] = []
    for text in texts:
        for word in _words(text):
            if word not in have and word not in out:
                out.append(word)
                if len(out) == TOPIC_WORDS:
                    return out
    return out


def _words(text: str) -> list[str]:
    return [w for w in _WORD_RE.findall(text.lower()) if (not w.isascii() and _CJK_RE.search(w)) or (len(w) > 1 and w not in _STOP_WORDS and not w.isdigit())]


# --- with a model -----------------------------------------------------------------


def llm_plan(
    config: LLMConfig,
    query: str,
    messages: list[dict],
    summary: str,
    *,
    types: tuple[str, ...] = PLANNED_TYPES,
    prompts_dir: Path | None,
    usage: UsageLog | None = None,
    stop: Stop | None = None,
) -> QueryPlan:
    """The model's plan. Raises LLMError when the call fails or the answer stays unusable after one repair;
    ``usage`` logs every call made, also then; ``stop`` (:mod:`ov.waiting`) ends the wait for the
    model with :class:`~ov.errors.AnswerStopped`."""
    from ov.llm.client import complete_json
    from ov.llm.prompts import CONTRACTS, load_prompt

    # Imported here: the prompt hook plans without a model and must not pay for ov.llm.
    variables, required = CONTRACTS[PROMPT]
    prompt = load_prompt(PROMPT, prompts_dir=prompts_dir, provides=variables, requires=required)
    chat = build_messages(prompt, config.max_prompt_chars, query, messages, summary, types)
    reasoning, queries = complete_json(
        config, chat, lambda text: parse_plan(text, types), shape=ANSWER_SHAPE, purpose=PURPOSE, temperature=prompt.temperature, usage=usage, stop=stop
    )
    return QueryPlan(reasoning, queries, "llm")


def build_messages(prompt: PromptTemplate, max_prompt_chars: int, query: str, messages: list[dict], summary: str, types: tuple[str, ...]) -> list[dict[str, str]]:
    """The chat messages, within ``max_prompt_chars``: the summary is cut first, then the oldest messages go."""
    from ov.retrieval.find import QUERY_CHARS
    from ov.sessions.session import message_text

    recent = [f"[{m.get('role', '')}]: {_cut(' '.join(message_text(m).split()), MESSAGE_CHARS)}" for m in messages[-RECENT_MESSAGES:]]
    constraint = (
        f"Only these context types may be searched: {', '.join(types)}. Use no other context_type."
        if set(types) != set(PLANNED_TYPES)
        else "Any of memory, resource and skill may be searched."
    )
    values = {
        "query": _cut(query, QUERY_CHARS),
        "recent_messages": "\n".join(recent) or "(none)",
        "session_summary": _cut(summary.strip(), SUMMARY_CHARS) or "(none)",
        "type_constraint": constraint,
    }
    chat = prompt.render(values)
    over = _chars(chat) - max_prompt_chars
    if over > 0 and summary.strip():
        room = max(len(values["session_summary"]) - over, 0)
        values["session_summary"] = _cut(values["session_summary"], room) if room > len(CUT_MARK) else "(left out)"
        chat = prompt.render(values)
    while _chars(chat) > max_prompt_chars and recent:
        recent.pop(0)
        values["recent_messages"] = "\n".join(recent) or "(left out)"
        chat = prompt.render(values)
    return chat


def _chars(chat: list[dict[str, str]]) -> int:
    return sum(len(m["content"]) for m in chat)


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: max(limit - len(CUT_MARK), 0)].rstrip() + CUT_MARK


# --- the answer -------------------------------------------------------------------


def parse_plan(text: str, types: tuple[str, ...] = PLANNED_TYPES) -> tuple[str, list[TypedQuery]]:
    """(reasoning, queries) of the model's answer; ValueError saying what is wrong when it is not that shape.

    Queries of a type the search does not allow, and repeats, are left out; more than
    ``MAX_QUERIES`` are cut to the most important ones.
    """
    from typing import Literal

    from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator  # Deferred: only plans with an LLM validate.

    class Planned(BaseModel):
        model_config = ConfigDict(extra="ignore")
        query: str = Field(min_length=1)
        context_type: Literal["memory", "resource", "skill"] | None = None
        intent: str = ""
        priority: int = Field(default=3, ge=1, le=5)

        @field_validator("context_type", mode="before")
        @classmethod
        def _lower(cls, value: Any) -> Any:
            if not isinstance(value, str):
                return value
            value = value.strip().lower()
            return _PLURALS.get(value, value) or None

    class Answer(BaseModel):
        model_config = ConfigDict(extra="ignore")
        reasoning: str = ""
        queries: list[Planned]

    from ov.llm.client import load_json_answer  # Deferred: hooks plan without a model, and the client costs ~5 ms to import.

    data = load_json_answer(text)
    try:
        answer = Answer.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'answer'}: {e['msg']}" for e in exc.errors()[:5])
        raise ValueError(f'the answer is not an object {{"reasoning": "...", "queries": [...]}} of queries ({problems})') from None
    seen: set[tuple[str, str | None]] = set()
    queries: list[TypedQuery] = []
    for item in answer.queries:
        words = " ".join(item.query.split())
        key = (words.lower(), item.context_type)
        if not words or key in seen or (item.context_type is not None and item.context_type not in types):
            continue
        seen.add(key)
        queries.append(TypedQuery(words, item.context_type, " ".join(item.intent.split()), item.priority))
    queries = sorted(queries, key=lambda q: q.priority)[:MAX_QUERIES]  # stable: the model's order within a priority
    return " ".join(answer.reasoning.split()), queries
