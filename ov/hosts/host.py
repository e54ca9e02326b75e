"""What every host has: its name, the events ov handles, how its hook input reads and how an answer is written.

``ov hook HOST EVENT`` names one of :data:`EVENTS` (the same five words for every host). The host
modules (``claude``, ``codex``, ``gemini``, ``cursor``, ``opencode``) each subclass :class:`Host`:
they read the host's stdin JSON into a :class:`HookInput`, turn ov's context into the JSON the
host expects on stdout, and read the host's transcript into messages ov can store.
"""

from __future__ import annotations

import hashlib
import importlib
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ov.hosts.transcript import LineCounts

# The lifecycle events ov handles, in the order a session meets them.
EVENTS = ("session-start", "prompt-submit", "stop", "pre-compact", "session-end")
RECALL_EVENTS = ("session-start", "prompt-submit")
# How a project's hook entry says it is a project's (one that defers to the user's own): set in the
# entry's environment (`env OV_HOOK_SCOPE=project ov hook …`), never as an option, which every ov
# from before `--scope` refused with exit 2, the code hosts read as "block the prompt".
SCOPE_ENV = "OV_HOOK_SCOPE"


def hook_scope(flag: str | None, environ) -> str:
    """The scope of the file a hook entry is in: ``--scope`` where an entry of 2026-12-05 says it
    (``flag``), else the entry's :data:`SCOPE_ENV`; "user" when neither says "project"."""
    return flag if flag in ("user", "project") else ("project" if environ.get(SCOPE_ENV) == "project" else "user")


# host name -> module holding its Host; imported only when that host's hook runs.
HOST_MODULES = {
    "claude": "ov.hosts.claude",
    "codex": "ov.hosts.codex",
    "gemini": "ov.hosts.gemini",
    "cursor": "ov.hosts.cursor",
    "opencode": "ov.hosts.opencode",
}

_ID_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
MAX_SESSION_ID = 100


class HookInputError(ValueError):
    """The host's stdin is not what this event of this host sends."""


@dataclass
class HookInput:
    """One hook call, in the terms every host shares."""

    host: str
    event: str
    session_id: str  # the host's own id
    cwd: str | None = None
    transcript_path: str | None = None
    prompt: str | None = None
    source: str | None = None  # session start: startup | resume | compact | clear
    transcript_size: int | None = None  # the transcript's size as the hook ran, where the host module needs it (Gemini's turn end)
    payload: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Awaited:
    """Subagents a transcript awaits the results of (:meth:`Host.awaited`)."""

    count: int
    since: float  # when the first of them was started (epoch seconds)


class Host:
    """One coding agent. Subclasses set the class attributes and override what differs."""

    name = ""
    label = ""
    prefix = ""  # ov session ids are f"{prefix}-{host session id}"
    reads_transcript = False  # True: turns come from the transcript file, else from the hook input
    # Host events wired to an ov event besides the one native_event names: (host's event, ov's event).
    extra_events: tuple[tuple[str, str], ...] = ()
    # The conversation keeps a prompt's injected block for the turns after (ov.hosts.given leaves
    # its entries out of them); False: the block goes with its turn.
    keeps_prompt_context = True

    # --- reading the hook input ---------------------------------------------------

    def parse(self, event: str, payload: Any) -> HookInput:
        """The hook input of ``event``; HookInputError when ``payload`` lacks what it needs."""
        if not isinstance(payload, dict):
            raise HookInputError(f"{self.label} sent {type(payload).__name__}, not a JSON object")
        session = payload.get("session_id")
        if not isinstance(session, str) or not session.strip():
            raise HookInputError(f"{self.label}'s hook input has no session_id")
        return HookInput(
            host=self.name,
            event=event,
            session_id=session,
            cwd=_text(payload.get("cwd")),
            transcript_path=_text(payload.get("transcript_path")),
            prompt=_text(payload.get("prompt")),
            source=_text(payload.get("source")),
            payload=payload,
        )

    def ov_session(self, hook: HookInput) -> str:
        """The ov session id for the host's session: prefix, then the host's id made safe for a path."""
        safe = _ID_UNSAFE.sub("-", hook.session_id).strip("-.") or "session"
        if len(safe) > MAX_SESSION_ID or safe != hook.session_id or safe.lower().endswith(".lock"):
            # Keep it readable and unique: what was dropped is in the digest. An id may not end in
            # ".lock" (git's lock files), and one ending in the digest never does.
            digest = hashlib.sha256(hook.session_id.encode("utf-8", "surrogatepass")).hexdigest()[:10]
            safe = f"{safe[: MAX_SESSION_ID - 11]}-{digest}"
        return f"{self.prefix}-{safe}"

    def from_subagent(self, hook: HookInput) -> bool:
        """Whether ``hook`` comes from a subagent's turn that the host runs under its parent's
        session (no recall, no capture: its prompt is the model's words, and its answer reaches
        the parent's own transcript); the default: the host runs no such turns through ov's hooks."""
        return False

    def wrote_itself(self, prompt: str) -> bool:
        """Whether a prompt the host's prompt hook sent is a message the host wrote itself, not
        the user's (no recall for it); the default: every prompt is the user's."""
        return False

    # --- answering ----------------------------------------------------------------

    def answer(self, event: str, context: str | None) -> str:
        """What to print on stdout: ``context`` for the model (recall events), or the host's no-op."""
        if context and event in RECALL_EVENTS:
            return _json({"hookSpecificOutput": {"hookEventName": self.native_event(event), "additionalContext": context}})
        return ""

    def native_event(self, event: str) -> str:
        return {
            "session-start": "SessionStart",
            "prompt-submit": "UserPromptSubmit",
            "stop": "Stop",
            "pre-compact": "PreCompact",
            "session-end": "SessionEnd",
        }[event]

    # --- the transcript -------------------------------------------------------------

    def transcript_messages(self, path: Path, start: int, limit: int, seen: LineCounts | None = None) -> tuple[list[dict], int]:
        """Messages of the transcript at ``path`` from byte ``start``, and the offset read up to.

        Returns messages in a form :func:`ov.sessions.messages.normalise_messages` accepts, each
        with a stable ``id`` (the same line always gives the same id), with what hosts and ov
        injected left out and tool inputs and outputs cut to ``limit`` characters. ``seen``: the
        digests of the lines before ``start`` that had no id of their own, and how often each
        came (:func:`ov.hosts.transcript.line_id`), updated with the lines read. The default:
        no transcript format known.
        """
        return [], start

    def awaited(self, path: Path) -> Awaited | None:
        """The subagents whose results the transcript at ``path`` does not hold yet, although the
        host writes them there when they end (after the session's end hook, perhaps); None when it
        awaits none. The default: the host writes no subagent's result into its parent's transcript."""
        return None

    def capture_skipped(self, hook: HookInput) -> str | None:
        """Why this capture event's input is not captured (another of the host's hooks captures the
        same turn), or None; the default: every one is."""
        return None

    def fallback_messages(self, hook: HookInput, limit: int, seen: LineCounts | None = None) -> list[dict]:
        """Messages taken from the hook input itself when there is no transcript to read. ``seen``:
        for a host whose input gives its messages no ids, the turns captured before in this session
        (:func:`ov.hosts.transcript.line_id`), updated with this one."""
        return []


def load(name: str) -> Host:
    """The host named ``name`` (a key of :data:`HOST_MODULES`)."""
    module = importlib.import_module(HOST_MODULES[name])
    return module.HOST


def host_of_session(session_id: str) -> str | None:
    """The host an ov session id names by its prefix (``cc-…`` Claude Code, ``cx-…`` Codex, ...), or None."""
    return next((name for name in HOST_MODULES if session_id.startswith(f"{load(name).prefix}-")), None)


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _json(value: Any) -> str:
    import json

    return json.dumps(value, ensure_ascii=False)
