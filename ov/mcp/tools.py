"""ov's MCP tools: a schema and a one-line description each, and the core function each one calls.

Every tool is a command of the CLI made callable by a model: the same core functions, the same
identity, one commit per mutating call, the same messages. Results are the text a model should
read: URIs first, then what it needs to judge them (scores, abstracts, snippets, provenance).
An :class:`~ov.errors.OvError` becomes a tool error carrying ov's message and hint (the arguments
it proposes spelled as a tool call takes them, ``"all": true``, and the commands it proposes as
this server's tools, ``ls {"uri": …}``), so the model can correct its call,
and so does a full disk or a write the system refused in ov's home, as the CLI reports them
(:func:`~ov.errors.os_failure`); nothing a model sends can stop the server.

A result longer than ``MAX_RESULT_CHARS`` is cut after the last whole entry, line or result that
fits (a :class:`Listing`), and ends with a note saying how many were left out and how to ask that
tool for fewer with its own arguments; ``ls`` names the ``offset`` to list on from. ``read`` gives
each file it names a share of the result and says of each file it cut where to read on. A ``grep``
that stops at its ``limit`` says whether more lines match. A ``find`` or ``search`` starts with a
line saying how it was answered (hybrid or lexical only, and the index's state: what ``--json`` has
under ``retrieval`` and ``index``), after the line the CLI warns with on stderr when the index is
behind HEAD. It is said in the text, not as ``structuredContent``: Claude Code and Codex show a
model the structured result instead of the text (reference/hosts-verified.md).

The definitions are the fixed prefix every session pays for (``tools/list`` is sent with every
model request), so descriptions are one line and schemas carry no prose a name already says.
``tests/test_mcp.py`` keeps the whole list within the budget of ``PREFIX_BUDGET`` tokens.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, replace

from ov.errors import (
    AnswerStopped,
    ConfigError,
    Interrupted,
    InvalidInput,
    NotFound,
    OvError,
    os_failure,
    spelled,
)
from ov.lines import FileLines, unended
from ov.retrieval import MAX_RESULTS
from ov.sessions.memory.schema import TEXT_TYPES
from ov.store.sidecar import ABSTRACT, OVERVIEW
from ov.wording import counted

PREFIX_BUDGET = 1500
MAX_RESULT_CHARS = 40_000  # a tool result a model can take in; a longer one is cut and says how to ask for less
# The files one `read` takes: each has at least a 2,000-character share of the result.
MAX_READ_URIS = 20
ALSO_NAMED = 10  # the other places of a result's text a find names (a model may read any of them)

_STR = {"type": "string"}
_INT = {"type": "integer", "minimum": 1}
_OFFSET = {"type": "integer", "minimum": 0}
_RESULTS = {"type": "integer", "minimum": 1, "maximum": MAX_RESULTS}
_BOOL = {"type": "boolean"}
_URI = {"type": "string", "description": "viking:// URI"}
# The caller's ov session (its live messages are left out): an MCP server is not told which
# conversation calls it; the hook names it in its session-start fence.
_SESSION = {"type": "string", "description": "your ov session: the session of <ov-context kind=session-start>"}
_TYPES = {"type": "array", "items": {"enum": ["memory", "resource", "skill", "session"]}}


def _tool(name: str, description: str, properties: dict, required: tuple[str, ...] = (), *, read_only: bool = True) -> dict:
    # No other key: a call with one is refused (_Args), never run without the filter it asked for.
    schema: dict = {"type": "object", "properties": properties, "additionalProperties": False}
    if required:
        schema["required"] = list(required)
    return {"name": name, "description": description, "inputSchema": schema, "annotations": {"readOnlyHint": read_only}}


TOOLS = (
    _tool(
        "find",
        "Search memories, resources, skills and past sessions; returns URIs with snippets.",
        {"query": _STR, "session": _SESSION, "uri": _URI, "limit": _RESULTS, "types": _TYPES},
        ("query",),
    ),
    _tool(
        "search",
        "find with a query plan; mode context returns one token-budgeted block to read.",
        {"query": _STR, "mode": {"enum": ["list", "context"]}, "budget": _INT, "session": _SESSION, "uri": _URI, "limit": _RESULTS, "types": _TYPES},
        ("query",),
    ),
    _tool("read", "Read files by URI, whole or lines START:END.", {"uris": {"type": "array", "items": _STR, "maxItems": MAX_READ_URIS}, "lines": _STR}, ("uris",)),
    _tool("ls", "List a directory: its entries, a folder with its abstract where it has one.", {"uri": _URI, "recursive": _BOOL, "offset": _OFFSET}),
    _tool("tree", "The tree below a URI.", {"uri": _URI, "depth": _INT}),
    _tool("stat", "Size, times and provenance of a URI (a memory's created/updated times and sources).", {"uri": _URI}, ("uri",)),
    _tool("grep", "Regex over file lines.", {"pattern": _STR, "uri": _URI, "ignore_case": _BOOL, "limit": _INT}, ("pattern",)),
    _tool("glob", "Paths matching a glob such as **/*.md.", {"pattern": _STR, "uri": _URI}, ("pattern",)),
    _tool(
        "remember",
        "Keep a fact, preference or decision as a memory now (never secrets or transient state).",
        {"text": _STR, "type": {"enum": list(TEXT_TYPES)}},
        ("text",),
        read_only=False,
    ),
    _tool("forget", "Delete a memory file, or with match/line only that line of it (history keeps it).", {"uri": _URI, "match": _STR, "line": _INT}, ("uri",), read_only=False),
    _tool(
        "add_resource",
        "Ingest a local file, folder or URL with summaries.",
        {"source": _STR, "parent": _URI, "to": _URI, "exclude": {"type": "array", "items": _STR}, "reason": _STR},
        ("source",),
        read_only=False,
    ),
    _tool("write", "Create, replace or append to a file.", {"uri": _URI, "content": _STR, "mode": {"enum": ["replace", "append", "create"]}}, ("uri", "content"), read_only=False),
    _tool("edit", "Replace an exact string in a file.", {"uri": _URI, "old": _STR, "new": _STR, "all": _BOOL}, ("uri", "old", "new"), read_only=False),
    _tool("session_commit", "Archive a session and distil its memories now.", {"session": _STR}, ("session",), read_only=False),
    _tool("health", "Store, index and embedder status.", {}),
)


_BY_NAME = {t["name"]: t for t in TOOLS}


def definitions() -> list[dict]:
    return list(TOOLS)


# A tool that only reads refuses an account that does not exist (Store, read_only), as the CLI's do.
_READ_ONLY = {t["name"]: t["annotations"]["readOnlyHint"] for t in TOOLS}
# The tools that open the store themselves: `health` reports an account that does not exist and a
# config that does not load among its checks, as `ov doctor` does, where opening the store for it
# would refuse the call.
_OPEN_THEIR_STORE = frozenset({"health"})
# The tools whose calls the server runs one at a time, in the order they came (ov/mcp/server.py).
CHANGES_STORE = frozenset(t["name"] for t in TOOLS if not t["annotations"]["readOnlyHint"])


@dataclass
class Context:
    """What the server resolves once: home and identity flags, and the embedder it keeps loaded."""

    home: object
    flags: dict
    environ: object
    embedders: object = None  # WarmEmbedders: the model a find loaded serves the next find
    vectors: object = None  # HeldVectors: the vectors a find or health check loaded serve the next one
    via: str = "mcp"  # the Ov-Via of its commits: "mcp" and the client's name from initialize
    # The workspace peer of the project the host started the server in (its working directory in
    # a git work tree, not a plugin's folder), as the hooks name it; None when the folder does not say.
    workspace: str | None = None

    @classmethod
    def resolve(cls, flags: dict, environ) -> Context:
        import os

        from ov.home import Home
        from ov.identity import server_workspace

        # Imports no model stack: only find loads one.
        from ov.index.embedders.registry import WarmEmbedders
        from ov.index.held import HeldVectors

        try:
            workspace = server_workspace(os.getcwd(), environ)
        except OSError:
            workspace = None  # its folder was removed: no project to name
        return cls(Home.from_env(environ), dict(flags), environ, WarmEmbedders(), HeldVectors(), workspace=workspace)

    def indices(self, store):
        """The indices of ``store`` with the embedder and the vectors this server keeps loaded.
        While another process updates them, a find reads them as they are and says they are
        behind, rather than hold the model up to ``store.lock_timeout``."""
        from ov.index.sync import Indices

        return Indices(store, warm=self.embedders, held=self.vectors, stale_wait=0)

    def store(self, *, read_only: bool = False, config=None, stop: Callable[[], str | None] | None = None):
        """A store for one call: the config (``config``, else the file's) and identity as they are
        now; ``stop``: why the call should stop while it waits (:attr:`Store.stop`)."""
        from ov.config import load_config
        from ov.identity import resolve_identity
        from ov.store.store import Store

        if config is None:
            config = load_config(self.home).config
        configured = {"account": config.identity.account, "user": config.identity.user, "peer": config.identity.peer}
        identity = resolve_identity(self.flags, self.environ, configured)
        if identity.peer is None and config.hooks.workspace_peer and self.workspace is not None:
            # The peer the hooks of a session in this project act as: a session the tools write
            # and what `remember` is told holds in "this repo" are that project's, as theirs are.
            identity = replace(identity, peer=self.workspace)
        # Confined: the server acts for one user, so no tool reads or changes another's space.
        return Store(self.home, identity, config, read_only=read_only, via=self.via, confined=True, stop=stop)


def call(context: Context, name, arguments, record: dict | None = None, *, stop: Callable[[], str | None] | None = None) -> dict:
    """The result of tool ``name`` (MCP ``CallToolResult``); UnknownTool for a name ov has not.
    The commit the call made, if any, is put in ``record`` (its line of the log) as ``commit``.
    ``stop`` says why the call should stop where it can, or None (:meth:`_Args.stopped`)."""
    from ov.mcp.server import UnknownTool

    handler = _HANDLERS.get(name) if isinstance(name, str) else None
    if handler is None:
        raise UnknownTool(f"unknown tool: {name!r}; tools are: {', '.join(t['name'] for t in TOOLS)}")
    if not isinstance(arguments, dict):
        return _error("arguments must be a JSON object")
    store = None
    try:
        args = _Args(name, arguments, stop)  # an argument the tool does not take is refused before the store is opened
        # A write stops where it waits (for the lock, for a model) with nothing written; a read
        # stops only where it waits for a model (a search's query plan), else runs to its end.
        store = None if name in _OPEN_THEIR_STORE else context.store(read_only=_READ_ONLY[name], stop=args.stopped)
        answer = handler(store, args, context)
    except OvError as exc:
        return _ov_error(_of_tool(exc, name))
    except Exception as exc:  # the MCP edge: a full disk or a refused write, as the CLI reports them
        known = os_failure(exc, context.home.root)
        if known is None:
            raise  # a bug: the server answers it as one (Server._answer)
        return _ov_error(known)
    finally:
        # One commit per mutating call; the log ties the call to it, for `ov snapshot show`.
        if record is not None and store is not None and store.commits:
            record["commit"] = store.commits[-1]
    if isinstance(answer, Failed):
        return _error(answer.text)
    listing = answer if isinstance(answer, Listing) else Listing(answer.split("\n"), "line")
    return {"content": [{"type": "text", "text": listing.fitted(MAX_RESULT_CHARS)}]}


@dataclass(frozen=True)
class Listing:
    """A tool's answer as items (entries, paths, matches, results, lines), each one or more whole
    lines, and how to ask that tool for fewer, in its own arguments.

    Cut, the answer keeps the items that fit whole: a model reading a list cut mid-line cannot tell
    what the last entry was, and "read fewer lines" means nothing to ``ls``. ``advice`` may depend
    on where the cut fell (``ls`` names the ``offset`` to list on from): it is then called with the
    number of items shown, the last perhaps only in part."""

    items: list[str]
    unit: str  # one item, in the note: "entry", "path", "line"
    plural: str | None = None  # where adding "s" is wrong
    advice: str | Callable[[int], str] = ""
    head: str = ""  # a line before the items, never cut (the index a find searched is behind)
    more: str = ""  # a line after the items when all of them fit: there are more than were asked for

    def fitted(self, limit: int) -> str:
        """The items joined by newlines; past ``limit`` characters, those that fit and the note."""
        if not self.head:
            return self._fitted(limit, limit)
        return f"{self.head}\n{self._fitted(limit, limit - len(self.head) - 1)}"

    def _fitted(self, limit: int, room: int) -> str:
        """The items in ``room`` characters (the result's ``limit`` less its head), the note
        included: a result never holds more than ``limit`` characters."""
        whole = "\n".join([*self.items, self.more] if self.more else self.items)
        if len(whole) <= room:
            return whole
        size, shown = -1, 0  # -1: no newline before the first item
        for item in self.items:
            if size + 1 + len(item) > room:
                break
            size += 1 + len(item)
            shown += 1
        if shown == len(self.items):
            shown -= 1  # all of them fit, but not the line after them (`more`): the note stands in for it
        # Fewer items while the note does not fit after them: it is part of the result.
        while True:
            text = "\n".join(self.items[:shown])
            if shown <= 1 and shown < len(self.items):
                # An item too long to follow even the first (a line longer than a result after a
                # header): its start, else asking again would show no more than this did.
                note = self._note(limit, shown + 1, partial=True)
                space = room - (len(text) + 1 if shown else 0) - 1 - len(note)
                if space > 0:
                    return "\n".join([*self.items[:shown], self.items[shown][:space], note])
            note = self._note(limit, shown, partial=False)
            if shown == 0 or len(text) + 1 + len(note) <= room:
                return f"{text}\n{note}" if shown else note
            shown -= 1

    def _note(self, limit: int, shown: int, *, partial: bool) -> str:
        """What a cut result ends with: what was left out after ``shown`` items (the last of them
        only in part when ``partial``), and how to ask for fewer."""
        gone = [f"the rest of this {self.unit}"] if partial else []
        left = len(self.items) - shown
        if left:
            # With ``more``, these are only the items asked for: more match past them.
            gone.append(counted(left, self.unit, self.plural) + (" (and more past the `limit`)" if self.more else ""))
        advice = self.advice(shown) if callable(self.advice) else self.advice
        return f"[… {' and '.join(gone)} left out: a result holds {limit:,} characters" + (f"; {advice}]" if advice else "]")


def _of_tool(exc: OvError, name: str) -> OvError:
    """``exc`` of a call of tool ``name``; an InvalidInput with its class's hint, which speaks of
    both edges, given one naming the tool's arguments; a write stopped while a model answered
    says it wrote nothing (it stops before its commit), a read only to make the call again."""
    if isinstance(exc, InvalidInput) and exc.hint == InvalidInput.hint:
        exc.hint = f"`{name}` takes {', '.join(_BY_NAME[name]['inputSchema']['properties']) or 'no arguments'} (see its inputSchema)"
    elif isinstance(exc, AnswerStopped) and name in CHANGES_STORE:
        exc.hint = f"nothing was written; {AnswerStopped.hint}"
    return exc


def _error(text: str) -> dict:
    return {"content": [{"type": "text", "text": text}], "isError": True}


def _ov_error(exc: OvError) -> dict:
    return _error(_error_text(exc))


def _error_text(exc: OvError) -> str:
    """ov's message and its hint, the arguments and commands it proposes spelled as tool calls."""
    hint = exc.hint_for(_argument, _tool_call)
    return exc.message + (f"\nhint: {hint}" if hint else "")


def _argument(name: str, value: str | None) -> str:
    """An argument a core hint proposes, as a tool call passes it: ``"all": true``, ``"mode": "replace"``."""
    if value is None:
        return json.dumps(name)
    return f"{json.dumps(name)}: {'true' if value == 'true' else json.dumps(value)}"


def _summary_read(sidecar_name: str):
    """A command that prints a directory's summary, done here by reading the file that holds it."""

    def call(arguments: list[tuple[str, object]]) -> tuple[str, list[tuple[str, object]]]:
        uri = dict(arguments).get("uri")
        return ("read", [("uris", [f"{uri.rstrip('/')}/{sidecar_name}"])]) if isinstance(uri, str) else ("read", [("uris", ...)])

    return call


# Commands of the command line that no tool is named for, and the tool call that does the same:
# a hint the core writes once names the command, and a model is told which tool to call.
_DONE_BY = {
    "doctor": lambda arguments: ("health", arguments),
    "overview": _summary_read(OVERVIEW),
    "abstract": _summary_read(ABSTRACT),
}


def _tool_call(name: str, arguments: list[tuple[str, object]]) -> str | None:
    """A command a core hint proposes (:func:`ov.errors.proposal`), as this server's tool of that
    name is called: ``ls {"uri": "viking://"}`` in backticks (the tool's name and its arguments),
    or "the `ls` tool" alone; an argument named alone is shown as ``…``, for the model to fill in.
    None: no tool does it (the hint keeps its own words)."""
    name, arguments = _DONE_BY.get(name, lambda arguments: (name, arguments))(arguments)
    tool = _BY_NAME.get(name)
    if tool is None:
        return None
    properties = tool["inputSchema"]["properties"]
    missing = [key for key, _value in arguments if key not in properties and f"{key}s" not in properties]
    if missing:  # `ov remember TEXT --user bob`: a call the tool cannot make, which a terminal can
        return f"`ov {name.replace('_', '-')}` in a terminal (the `{name}` tool takes no {', '.join(f'`{key}`' for key in missing)})"
    given = []
    for key, value in arguments:
        if key not in properties and properties.get(f"{key}s", {}).get("type") == "array":
            key, value = f"{key}s", value if value is ... or isinstance(value, list) else [value]  # `read` takes `uris`
        given.append(f"{json.dumps(key)}: {'…' if value is ... else json.dumps(value, ensure_ascii=False)}")
    return f"`{name} {{{', '.join(given)}}}`" if given else f"the `{name}` tool"


class _Args:
    """A tool's arguments, each checked against what the schema says before it is used, and
    whether the call is still wanted."""

    def __init__(self, tool: str, values: dict, stop: Callable[[], str | None] | None = None) -> None:
        self.tool = tool
        self.values = values
        self._stop = stop
        # A key the tool does not take is a call it cannot make: run without it, `find` with `type`
        # would rank every type and `remember` with `user` would write to this server's user.
        taken = _BY_NAME[tool]["inputSchema"]["properties"]
        if any(_lone_surrogate(key) for key in values):
            raise InvalidInput(f"an argument name of {tool} is not valid Unicode: it holds a lone surrogate")
        unknown = sorted(key for key in values if key not in taken)
        if unknown:
            raise InvalidInput(f"the `{tool}` tool takes no {', '.join(f'`{key}`' for key in unknown)}{_meant(unknown, taken)}")

    def stopped(self) -> str | None:
        """Why the call should stop where it can (the client cancelled it, the server is
        stopping), or None: asked by a tool that runs long, between steps it can stop at with
        nothing written."""
        return self._stop() if self._stop is not None else None

    def _get(self, key: str, kinds, default, required: bool):
        if key not in self.values or self.values[key] is None:
            if required:
                raise InvalidInput(f"{self.tool} needs `{key}`")
            return default
        value = self.values[key]
        if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in (kinds if isinstance(kinds, tuple) else (kinds,))):
            raise InvalidInput(f"`{key}` of {self.tool} must be {_kind_name(kinds)}, not {type(value).__name__}")
        for text in [value] if isinstance(value, str) else value if isinstance(value, list) else ():
            if isinstance(text, str) and _lone_surrogate(text):
                raise InvalidInput(f"`{key}` of {self.tool} is not valid Unicode: it holds a lone surrogate")
        return value

    def text(self, key: str, default=None, *, required: bool = False) -> str | None:
        return self._get(key, str, default, required)

    def number(self, key: str, default=None, *, minimum: int = 1) -> int | None:
        value = self._get(key, int, default, False)
        if value is not None and value < minimum:
            raise InvalidInput(f"`{key}` of {self.tool} must be {minimum} or more")
        return value

    def flag(self, key: str) -> bool:
        return bool(self._get(key, bool, False, False))

    def texts(self, key: str, *, required: bool = False) -> list[str]:
        value = self._get(key, (list, str), [], required)
        values = [value] if isinstance(value, str) else value
        if not all(isinstance(v, str) for v in values):
            raise InvalidInput(f"`{key}` of {self.tool} must be a list of strings")
        if required and not values:
            raise InvalidInput(f"{self.tool} needs at least one entry in `{key}`")
        most = _BY_NAME[self.tool]["inputSchema"]["properties"][key].get("maxItems")
        if most is not None and len(values) > most:
            raise InvalidInput(f"`{key}` of {self.tool} holds at most {most} entries, not {len(values)}", hint=f"make several calls of {most} at most")
        return values


def _lone_surrogate(text: str) -> bool:
    """Whether ``text`` holds half of a UTF-16 pair (JSON's "\\ud800"), which no file or index
    can hold."""
    if text.isascii():
        return False
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _meant(unknown: list[str], taken) -> str:
    """The arguments the tool takes that ``unknown`` look like misspellings of (`type` for
    `types`, `ignoreCase` for `ignore_case`), as "; did you mean …?"."""
    from difflib import get_close_matches  # only a bad call pays for it

    spelled = {key.replace("_", "").lower(): key for key in taken}
    meant = []
    for key in unknown:
        close = get_close_matches(key.replace("_", "").lower(), spelled, n=1, cutoff=0.8)
        if close and spelled[close[0]] not in meant:
            meant.append(spelled[close[0]])
    return f"; did you mean {' or '.join(f'`{key}`' for key in meant)}?" if meant else ""


def _kind_name(kinds) -> str:
    names = {str: "a string", int: "an integer", bool: "true or false", list: "a list"}
    kinds = kinds if isinstance(kinds, tuple) else (kinds,)
    return " or ".join(names.get(k, k.__name__) for k in kinds)


# --- the tools ------------------------------------------------------------------------------------


def _filters(store, args: _Args) -> dict:
    """The scope, number and types of results a find or a search asks for: the fields FindOptions
    and SearchOptions share."""
    from ov.retrieval.find import search_scope

    return {"uri": search_scope(store, args.text("uri")), "limit": args.number("limit", 10), "types": tuple(args.texts("types")) or None}


_NARROWER = "narrow the `query`, `uri` or `types`, or ask for a lower `limit`"


def _find(store, args: _Args, context: Context) -> Listing | str:
    from ov.retrieval.find import FindOptions, find

    query = args.text("query", required=True)
    if not query.strip():
        raise InvalidInput("the query is empty", hint="say what to look for")
    session, _captured = _session(store, args)
    result = find(store, query, FindOptions(**_filters(store, args), exclude=_own_log(store, session)), indices=context.indices(store))
    return _headed(result, _hits(result.hits, result.mode))


def _own_log(store, session: str | None) -> tuple[str, ...]:
    """The live log of the caller's session, left out of a find as a search leaves it out: its
    question and its "working on it" ranked above the answer. Archived messages stay findable."""
    if not session:
        return ()
    from ov.sessions.session import MESSAGES, session_uri

    return (f"{session_uri(store, session).path}/{MESSAGES}",)


def _session(store, args: _Args) -> tuple[str | None, bool]:
    """The caller's ``session`` of a find or a search, and whether ov holds it yet. One not
    captured yet is taken when a hook named it (the session-start context names a session before
    its first turn is captured); any other is refused: a mistyped id left the caller's own live
    messages in the results, unsaid."""
    from ov.sessions.session import LIST_SESSIONS, read_meta, session_uri

    session = args.text("session")
    if not session:
        return None, False
    session_uri(store, session)  # a malformed id is an error, not a session to ignore
    if read_meta(store, session) is not None:
        return session, True
    from ov.files import log_holds

    if log_holds(store.home.hook_log, "session", session):  # a captured one has its meta (above)
        return session, False
    raise NotFound(f"no session {session} is held by ov or named by its hooks", hint=f"give the session of <ov-context kind=session-start>, or no `session`; {LIST_SESSIONS}")


def _search(store, args: _Args, context: Context) -> Listing | str:
    from ov.retrieval.search import SearchOptions, search

    mode = args.text("mode", "context")
    budget = args.number("budget")
    session, captured = _session(store, args)
    # One not captured yet has nothing to leave out of the search.
    options = SearchOptions(session_id=session if captured else None, mode=mode, budget=budget, **_filters(store, args))
    result = search(store, args.text("query", required=True), options, indices=context.indices(store))
    answer = _headed(result, _searched(result, mode))
    if result.plan is None or not result.plan.warning:
        return answer
    # The planner down: said first, as the CLI warns on stderr, so the model knows its query was read as given.
    warning = f"warning: {result.plan.warning}"
    return replace(answer, head=f"{warning}\n{answer.head}") if isinstance(answer, Listing) else f"{warning}\n{answer}"


def _searched(result, mode: str) -> Listing | str:
    if mode == "context":
        block = result.context
        if block is not None and block.entries:
            return Listing(block.rendered.split("\n"), "line", advice=f"ask with a smaller `budget` than {block.stats['budget']}")
        dropped = block.stats.get("dropped", 0) if block is not None else 0
        if dropped:  # found, but not one fits: saying "nothing matches" would send the model elsewhere
            return f"{counted(dropped, 'result')} matched, but none fits a budget of {block.stats['budget']} tokens: ask with a larger `budget`, or use mode list"
        return "nothing in the store matches"
    return _hits(result.hits, result.mode)


def _headed(result, answer: Listing | str) -> Listing | str:
    """``answer`` led by how it was retrieved, what ``ov find --json`` says under ``retrieval`` and
    ``index``: a model must tell a lexical-only answer, or one from an index behind the store, from
    a full one before it concludes that something is not stored. When the index is behind HEAD the
    line the CLI warns with comes first: a model that finds nothing it just wrote would otherwise
    take it as not stored."""
    lines = [f"warning: {result.index['behind']}"] if result.index.get("behind") else []
    lines.append(_retrieval_line(result.mode, result.embedding, result.index))
    head = "\n".join(lines)
    return replace(answer, head=head) if isinstance(answer, Listing) else f"{head}\n{answer}"


def _retrieval_line(mode: str, embedding: dict, index: dict) -> str:
    """One line on how a find or search was answered: hybrid (with its embedder) or lexical only
    (and why there are no vectors), and the state of the index it read."""
    if mode == "hybrid":
        used = f"retrieval: hybrid, full text and vectors (embedder {embedding.get('provider')} {embedding.get('model')})"
    else:
        # The reason says why there is no embedder, or that its vectors are being rebuilt; when
        # one is available it describes the model, which is no reason for a search without it.
        why = embedding.get("reason") if not embedding.get("available") else None
        used = "retrieval: lexical only, no vectors" + (f" ({why})" if why else "")
    if index.get("commit") is None:
        state = "index: empty (nothing committed yet)"
    else:
        state = f"index: {'behind HEAD' if index.get('behind') else 'up to date'} (commit {index['commit'][:10]}, {counted(index.get('records', 0), 'record')})"
    return f"[{used}; {state}]"


def _hits(hits, mode: str) -> Listing | str:
    from ov.retrieval.context import entry_date

    if not hits:
        return "no results"  # lexical or hybrid: the line before it says (_headed)
    results = []
    for hit in hits:
        dated = f", {entry_date(hit)}" if hit.kind == "memory" and entry_date(hit) else ""  # a message's where has its time
        lines = [f"{hit.where}  [{hit.context_type}, score {hit.score:.2f}{dated}]" + (f" {hit.title}" if hit.title and hit.title not in hit.uri else "")]
        if hit.snippet:
            lines.extend(f"  {line}" for line in hit.snippet.splitlines()[:4])
        if hit.also:
            lines.append(f"  {hit.also_line(ALSO_NAMED)}")
        results.append("\n".join(lines))
    return Listing(results, "result", advice=_NARROWER)


def _read(store, args: _Args, context: Context) -> str | Failed:
    """The files ``uris`` name, each within a share of the result: the smallest first, each taking
    at most an even share of what is left, so that a large file does not push the others out and
    what a small one leaves goes to the larger. A file cut says where, and how to read it on.
    Each file is read as far as its share reaches: twenty large files cost their shares, not
    their sizes.

    Of several files, one that cannot be read (missing, a folder, not text, another user's) is
    named with its error in its place and the others are read: a model that asked for five files
    learns what four of them hold and why the fifth did not come. The call is an error only when
    no file could be read; a single file's error is the call's, as it always was."""
    from contextlib import ExitStack

    from ov.store.store import line_span, parse_line_range

    start, end = parse_line_range(args.text("lines"))  # the call's own argument: wrong for every file
    uris = args.texts("uris", required=True)
    with ExitStack() as stack:
        files: list[_FileRead | _Unread] = []
        for uri in uris:  # each opened and checked before any is read
            try:
                lines = stack.enter_context(store.open_lines(store.uri(uri)))
                files.append(_FileRead(uri, lines, *line_span(uri, lines.total, start, end), start, end, len(uris)))
            except Exception as exc:
                error = exc if isinstance(exc, OvError) else os_failure(exc, context.home.root)
                if error is None or len(uris) == 1:
                    raise  # a bug; or the one file's error, the call's (the edge answers it)
                files.append(_Unread(uri, error))
        blocks = [f.block() if isinstance(f, _Unread) else "" for f in files]
        room = MAX_RESULT_CHARS - (len(files) - 1) - sum(map(len, blocks))  # less the newlines between the files
        readable = [i for i, f in enumerate(files) if isinstance(f, _FileRead)]
        by_size = sorted(readable, key=lambda i: files[i].lines.size)
        for done, i in enumerate(by_size):
            blocks[i] = files[i].block(max(room, 0) // (len(by_size) - done))
            room -= len(blocks[i])
    text = "\n".join(blocks)
    return text if readable else Failed(text)


@dataclass(frozen=True)
class Failed:
    """A tool's answer that is an error (``isError``) and says more than one exception does: the
    errors of each file a ``read`` could not read."""

    text: str


@dataclass(frozen=True)
class _Unread:
    """A file of a ``read`` of several that could not be read, and why."""

    uri: str  # as the call named it
    error: OvError

    def block(self) -> str:
        return f"=== {self.uri} (not read)\nerror: {_error_text(_of_tool(self.error, 'read'))}"


@dataclass(frozen=True)
class _FileRead:
    """One file of a ``read``: lines ``first`` to ``last`` of it, of the range ``start``:``end`` asked."""

    uri: str  # as the call named it
    lines: FileLines
    first: int
    last: int
    start: int | None
    end: int | None
    files: int  # how many the call named: they share a result

    def block(self, share: int) -> str:
        """Its header and the lines that fit in ``share`` characters, and when not all of them
        do, a note of what was left out and how to read on."""
        head = f"=== {self.uri}" + (f" (lines {self.first}-{max(self.last, self.first - 1)} of {self.lines.total})" if self.start or self.end else "")
        shown: list[str] = []
        size = len(head)
        pending = None  # the text of the first line not shown
        for line in self.lines.lines(self.first, self.last, longest=share):  # a line longer than the share is never read whole
            text = unended(line)
            if size + 1 + len(text) > share:
                pending = text
                break
            shown.append(text)
            size += 1 + len(text)
        else:
            return "\n".join([head, *shown])
        # Lines give way to the note: it is part of the share.
        while shown and size + 1 + len(self._note(self.first + len(shown), partial=False)) > share:
            pending = shown.pop()
            size -= 1 + len(pending)
        if not shown:
            # Not one whole line fits (a minified file's): its start, else reading on would show
            # no more than this did.
            note = self._note(self.first, partial=True)
            space = share - size - 2 - len(note)
            if space > 0:
                return "\n".join([head, pending[:space], note])
        return "\n".join([head, *shown, self._note(self.first + len(shown), partial=False)])

    def _note(self, next_line: int, *, partial: bool) -> str:
        """What is left out from line ``next_line`` (shown in part when ``partial``), and the call that reads on."""
        if partial:
            next_line += 1
        left = self.last - next_line + 1
        gone = (["the rest of this line"] if partial else []) + ([counted(left, "line")] if left > 0 else [])
        holds = f"a result holds {MAX_RESULT_CHARS:,} characters" + (f", shared by the {self.files} files" if self.files > 1 else "")
        if left <= 0:
            return f"[… {' and '.join(gone)} left out: {holds}]"  # only the rest of the last line: no call can show it
        return f'[… {" and ".join(gone)} left out: {holds}; read on with "uris": [{json.dumps(self.uri)}], "lines": "{next_line}:{self.end or ""}"]'


def _ls(store, args: _Args, _context: Context) -> Listing | str:
    recursive = args.flag("recursive")
    offset = args.number("offset", 0, minimum=0)
    entries = store.ls(store.uri(args.text("uri", "viking://")), recursive=recursive)
    if not entries:
        return "(empty)"
    if offset >= len(entries):
        return f"no entries from `offset` {offset}: there are {len(entries)}"
    items = [f"{e.uri}{'/' if e.is_dir else ''}" + (f"  {e.abstract}" if e.abstract else "") for e in entries[offset:]]
    # `tree` is no way round it: a tree of the folder is cut as a listing is, and has no `offset`.
    other = ", or drop `recursive`" if recursive else ""

    def list_on(shown: int) -> str:
        # The entries come in the same order each time, so the next call starts where this one stopped.
        return f'list on with the same arguments and "offset": {offset + shown}; or list a subfolder (`uri`){other}'

    return Listing(items, "entry", "entries", list_on)


def _tree(store, args: _Args, _context: Context) -> Listing:
    depth = args.number("depth", 3)
    root = store.tree(store.uri(args.text("uri", "viking://")), depth=depth)
    lines: list[str] = []
    levels: list[int] = []  # each line's depth below the root

    def walk(node, level: int) -> None:
        slash = "/" if node.type == "directory" and not node.name.endswith("/") else ""  # the root is named viking://
        lines.append("  " * level + node.name + slash + (" …" if node.truncated else ""))
        levels.append(level)
        for child in node.children:
            walk(child, level + 1)

    walk(root, 0)

    def advice(shown: int) -> str:
        # A lower depth shortens only a tree that goes deeper than its first level; a flat folder
        # is listed page by page.
        deepest = max(levels[:shown] or [0])
        lower = f"a `depth` below {deepest}, or " if deepest > 1 else ""
        return f"ask for {lower}the tree of a subfolder (`uri`), or list the folder page by page with `ls` and its `offset`"

    return Listing(lines, "entry", "entries", advice)


def _stat(store, args: _Args, _context: Context) -> str:
    from ov.ingest.resource import stat_with_source
    from ov.sessions.memory_fields import memory_fields

    uri = store.uri(args.text("uri", required=True))
    info = stat_with_source(store, uri)
    if info["type"] == "file" and (memory := memory_fields(store, uri)):
        info |= memory
    return json.dumps(info, ensure_ascii=False, indent=1, default=str)


def _grep(store, args: _Args, _context: Context) -> Listing | str:
    from ov.retrieval.grep import grep

    limit = args.number("limit", 100)
    # One match past the limit tells whether there are more, without a second pass over the store.
    matches = list(grep(store, args.text("pattern", required=True), store.uri(args.text("uri", "viking://")), ignore_case=args.flag("ignore_case"), limit=limit + 1))
    if not matches:
        return "no line matches"
    more = f"[… more lines match: this is the first {limit} (`limit`); ask with a higher `limit`, or narrow the `pattern` or `uri`]" if len(matches) > limit else ""
    lines = [f"{m.uri}:{m.line}: {m.text}" for m in matches[:limit]]
    return Listing(lines, "matching line", advice="narrow the `pattern` or `uri`, or ask for a lower `limit`", more=more)


def _glob(store, args: _Args, _context: Context) -> Listing | str:
    from ov.retrieval.grep import glob

    paths = glob(store, args.text("pattern", required=True), store.uri(args.text("uri", "viking://")))
    return Listing(paths, "path", advice="narrow the `pattern`, or glob below a subfolder (`uri`)") if paths else "no path matches"


def _remember(store, args: _Args, _context: Context) -> str:
    from ov.sessions.remember import remember

    # What holds in the project at hand only goes under its peer (None: the project is unknown, and
    # the memory is the user's, shown in every project).
    return remember(store, args.text("text", required=True), memory_type=args.text("type"), workspace=store.identity.peer).summary


def _forget(store, args: _Args, _context: Context) -> str:
    from ov.sessions.forget import forget

    result = forget(store, store.uri(args.text("uri", required=True)), match=args.text("match"), line=args.number("line"))
    return f"{result.summary}\n{result.note}" if result.note else result.summary


def _add_resource(store, args: _Args, _context: Context) -> str:
    from ov.ingest.resource import add_resource

    def step(_stage: str, _done: int, _total: int | None) -> None:
        # Between two files or folders, before the commit: stopped here, the add writes nothing
        # (a progress callback that raises ends the operation as any error does: no commit).
        why = args.stopped()
        if why:
            raise Interrupted(f"add_resource was stopped before its commit: {why}; nothing was added", hint="make the call again to add it")

    source = args.text("source", required=True)
    result = add_resource(store, source, to=args.text("to"), parent=args.text("parent"), exclude=tuple(args.texts("exclude")), reason=args.text("reason"), progress=step)
    if result.commit and not args.stopped():  # the next find catches the index up
        from ov.index.sync import index_after_add

        index_after_add(store)  # its full text, for the prompts that follow (a failure is the next find's to repair)
    counts = f"{len(result.added)} added, {len(result.updated)} updated, {len(result.removed)} removed, {result.unchanged} unchanged"
    # The user's changes the add left as they are, each named: a model told only "1 updated" would
    # not know a file now says other than its source.
    kept = "".join(f"\n{item['reason']}" for item in result.kept) + "".join(f"\nnot updated: {item['reason']}" for item in result.conflicts)
    return f"{result.root}: {counts}" + (f" (commit {result.commit[:10]})" if result.commit else "") + _redacted_note(result.redacted) + kept


def _write(store, args: _Args, _context: Context) -> str:
    uri = args.text("uri", required=True)
    mode = args.text("mode", "replace")
    if mode not in ("replace", "append", "create"):
        raise InvalidInput(f"unknown mode {mode!r}", hint="modes are: replace, append, create")
    # Redacted by the store, under its lock: an append's secret may begin in what the file held
    # (a key sent in parts). What a model writes came from a session, and a key stored in a commit
    # stays in history and in every backup (PRODUCT.md, sessions and memory).
    result = store.write(store.file_uri(uri), args.text("content", required=True).encode("utf-8"), mode, redact=True)
    return f"wrote {uri}" + (f" (commit {result.commit[:10]})" if result.commit else " (unchanged)") + _redacted_note(result.redacted)


def _edit(store, args: _Args, _context: Context) -> str:
    uri = args.text("uri", required=True)
    new = args.text("new", required=True)
    result, count = store.edit(store.uri(uri), args.text("old", required=True), new, replace_all=args.flag("all"), redact=True)
    if not result.commit:  # `new` is `old`: said as `write` of the same content says it
        return f"{uri} is unchanged: `new` is the same as `old`; nothing changed, no commit" + _redacted_note(result.redacted)
    return f"replaced {counted(count, 'occurrence')} in {uri} (commit {result.commit[:10]})" + _redacted_note(result.redacted)


def _redacted_note(count: int) -> str:
    return f"; {counted(count, 'secret')} redacted" if count else ""


def _session_commit(store, args: _Args, _context: Context) -> str:
    from ov.sessions.commit import commit_session

    report = commit_session(store, args.text("session", required=True))
    if report.status != "committed":
        again = f"; extracting the memories of its pending archives failed again, as before ({report.failed})" if report.failed else ""
        return f"nothing to commit in {report.session_uri}{again}"
    memories = ", ".join(f"{n} {k}" for k, n in report.memories.items() if n) or "no memories"
    done = f"archived {report.archived} messages into {report.archive}; {memories} (commit {(report.commit or '-')[:10]})"
    if report.failed:
        done += f"; memory extraction failed ({report.failed}), recorded in the archive's .failed.json"
    if report.hand_edits:
        done += f"; the user's hand edits of {', '.join(report.hand_edits)} were kept, merged with the memories and committed"
    return done + (f"; the model failed ({report.model_failed}), so the offline rules extracted them" if report.model_failed else "")


def _health(_store, _args: _Args, context: Context) -> str:
    from ov.config import Config, load_config
    from ov.health.doctor import diagnose, diagnose_on_defaults

    try:
        loaded = load_config(context.home)  # as loaded for this call, with what it left out
    except ConfigError as exc:  # a finding, as in `ov doctor`: the other checks run on the defaults
        store = context.store(config=Config())
        checks = diagnose_on_defaults(exc, store, probe=False, indices=context.indices(store))
    else:
        store = context.store(config=loaded.config)
        checks = diagnose(loaded, store, probe=False, indices=context.indices(store))
    # What to do about a check that is not ok, as `ov doctor` says it, with the commands a tool runs named as tools.
    return "\n".join(f"{c.status:4} {c.name}: {c.detail}" + (f" (fix: {spelled(c.fix, _argument, _tool_call)})" if c.fix and c.status != "ok" else "") for c in checks)


_HANDLERS = {
    "find": _find,
    "search": _search,
    "read": _read,
    "ls": _ls,
    "tree": _tree,
    "stat": _stat,
    "grep": _grep,
    "glob": _glob,
    "remember": _remember,
    "forget": _forget,
    "add_resource": _add_resource,
    "write": _write,
    "edit": _edit,
    "session_commit": _session_commit,
    "health": _health,
}

assert set(_HANDLERS) == {t["name"] for t in TOOLS}
