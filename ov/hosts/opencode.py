"""OpenCode: the plugin that forwards its events to ``ov hook opencode EVENT``, and the messages it sends.

OpenCode has no shell hooks; a JavaScript plugin in its ``plugins/`` folder is the only channel.
ov's plugin (:func:`plugin_source`, written by ``ov install hooks``) starts ``ov`` only when
something must happen, never per streamed part:

* on a user message (``chat.message``): ``session-start`` once per session, then
  ``prompt-submit`` with the prompt; the answers are added to the system prompt
  (``experimental.chat.system.transform``) of each model request the session's agent makes (a
  tool call's answer is another request), so recall never lands in the user's own message. The
  session-start block is kept for the whole session, as the other hosts keep their SessionStart
  context in the conversation; the prompt's answer only for that prompt's turn. OpenCode also
  asks a model for the session's title (``small_model``, perhaps another provider) with the
  session's id: that request gets nothing. The hook input
  cannot tell them apart, so the plugin goes by OpenCode's loop, which transforms the messages
  (``experimental.chat.messages.transform``) right before each of the agent's own requests and
  never before a title's. The turn's end drops the prompt's recall: no later request carries it;
* a subagent's session (OpenCode's ``task`` tool runs one as a child session, with a
  ``parentID``) gets nothing and sends nothing: what it is told is the prompt a model wrote, not
  the user's words. Its answer comes back to the user's session as the tool's output;
* when a turn ends (``session.idle``): ``stop`` with the session's messages, read through the
  plugin's SDK client. OpenCode does not await event handlers, and ``opencode run`` exits as
  soon as the turn is idle, so the plugin's ``dispose`` (which OpenCode awaits before exiting)
  waits for these calls;
* after a compaction (``session.compacted``): ``pre-compact``, which commits the session.

OpenCode has no session-end event: the next session start commits sessions left open
(``hooks.orphan_after``). The plugin sends ``{"session_id", "cwd", "prompt"?, "messages"?}``
and reads ``{"context"}`` back. Messages are the SDK's ``{info: {id, role, time}, parts: [...]}``:
text parts are kept (synthetic ones, which OpenCode adds itself, are not), tool parts become
one tool call with its input and output.
"""

from __future__ import annotations

import json
from datetime import datetime, timezone

from ov.hosts.host import HookInput, Host, _json
from ov.hosts.transcript import LineCounts, bound, strip_injected

PLUGIN_FILE = "ov-memory.js"
# The first line of the plugin: how the installer recognises its own file.
PLUGIN_MARKER = "// ov-memory: installed by `ov install hooks`"


class OpenCode(Host):
    name = "opencode"
    label = "OpenCode"
    keeps_prompt_context = False  # the plugin drops a prompt's recall when its turn is over
    prefix = "oc"

    def answer(self, event: str, context: str | None) -> str:
        return _json({"context": context} if context and event in ("session-start", "prompt-submit") else {})

    def fallback_messages(self, hook: HookInput, limit: int, seen: LineCounts | None = None) -> list[dict]:
        raw = hook.payload.get("messages")
        if not isinstance(raw, list):
            return []
        messages = []
        for entry in raw:
            message = _message(entry, limit)
            if message is not None:
                messages.append(message)
        return messages


def _message(entry: object, limit: int) -> dict | None:
    if not isinstance(entry, dict) or not isinstance(entry.get("info"), dict):
        return None
    info = entry["info"]
    role = info.get("role")
    if role not in ("user", "assistant") or not isinstance(info.get("id"), str):
        return None
    parts = []
    for part in entry.get("parts") or []:
        if not isinstance(part, dict):
            continue
        if part.get("type") == "text" and not part.get("synthetic") and not part.get("ignored"):
            text = strip_injected(str(part.get("text") or ""))
            if role == "user":
                text = _unquoted(text)
            if text:
                parts.append({"type": "text", "text": text})
        elif part.get("type") == "tool" and isinstance(part.get("state"), dict):
            state = part["state"]
            status = {"completed": "completed", "error": "error"}.get(state.get("status"), "pending")
            tool = {"type": "tool", "tool_name": str(part.get("tool") or "unknown"), "tool_status": status}
            if part.get("callID"):
                tool["tool_id"] = str(part["callID"])
            if state.get("input") is not None:
                tool["tool_input"] = bound(state["input"], limit)
            output = state.get("output") if status == "completed" else state.get("error")
            if output is not None:
                tool["tool_output"] = bound(output if isinstance(output, str) else json.dumps(output, ensure_ascii=False), limit)
            parts.append(tool)
    if not parts:
        return None
    message = {"id": info["id"], "role": role, "parts": parts}
    created = _created_at(info.get("time").get("created") if isinstance(info.get("time"), dict) else None)
    if created is not None:
        message["created_at"] = created
    return message


def _created_at(millis: object) -> str | None:
    """OpenCode's ``time.created`` (milliseconds since the epoch) as ISO 8601, or None for a
    value no calendar holds: the plugin resends a session's newest messages every turn, so one
    message out of range (1e20, -1e18, NaN) must cost its time, not every later capture."""
    if not isinstance(millis, (int, float)) or isinstance(millis, bool):
        return None
    try:
        return datetime.fromtimestamp(millis / 1000, timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"
    except (OverflowError, OSError, ValueError):
        return None


def _unquoted(text: str) -> str:
    """``opencode run MESSAGE`` sends the message wrapped in double quotes; a user typing it does
    not. Unwrapped, "I prefer tabs" is the user's own statement again, not a quotation."""
    if len(text) >= 2 and text[0] == text[-1] == '"' and '"' not in text[1:-1]:
        return text[1:-1].strip()
    return text


def plugin_source(command: list[str]) -> str:
    """The plugin file for an ``ov`` started as ``command``: an absolute path first, or a bare
    ``ov`` (a project's portable plugin), which Node's ``spawn`` looks up on OpenCode's PATH."""
    return _PLUGIN.replace("__OV_COMMAND__", json.dumps(command))


_PLUGIN = PLUGIN_MARKER + """
// It forwards a few OpenCode events to `ov hook opencode EVENT`; remove it with `ov uninstall hooks`.
import { spawn } from "node:child_process";

const OV = __OV_COMMAND__;
// A session's newest messages, at most this many characters of them as JSON: a long session's
// whole history would outgrow what ov reads of one hook's input (16 MiB). ov drops the messages
// it already has, so each turn's capture needs only the newest.
const MAX_SEND = 4000000;
// How long a session's lookup (whether it is a subagent's) may take: OpenCode's own server, in
// the same process, answers in milliseconds.
const LOOKUP_MS = 2000;

function newest(all) {
  let size = 0;
  let from = all.length;
  while (from > 0) {
    size += JSON.stringify(all[from - 1]).length;
    if (size > MAX_SEND) break;
    from -= 1;
  }
  return all.slice(from);
}

function ov(event, payload) {
  // Resolves to ov's answer ({} on any failure): a memory hook must never break a turn.
  return new Promise((resolve) => {
    let out = "";
    let child;
    try {
      child = spawn(OV[0], [...OV.slice(1), "hook", "opencode", event], { stdio: ["pipe", "pipe", "ignore"] });
    } catch {
      return resolve({});
    }
    const timer = setTimeout(() => { try { child.kill(); } catch {} resolve({}); }, 15000);
    child.stdout.on("data", (chunk) => { out += chunk; });
    child.on("error", () => { clearTimeout(timer); resolve({}); });
    child.on("close", () => {
      clearTimeout(timer);
      try { resolve(JSON.parse(out || "{}")); } catch { resolve({}); }
    });
    child.stdin.on("error", () => {});
    child.stdin.end(JSON.stringify(payload));
  });
}

export const OvMemory = async ({ client, directory }) => {
  // session -> its session-start block, added to every one of its agent's requests, as the other
  // hosts keep their session-start context in the conversation.
  const started = new Map();
  const recall = new Map();  // session -> what ov gave its current prompt, until the turn ends
  const armed = new Set();  // sessions whose next system prompt is their agent's own model request
  // session -> whether it is a subagent's (a child session, with a parentID). Its "user" message is
  // the prompt a model wrote for the subagent, not the user's words: ov gives it no recall and
  // captures none of it. The subagent's answer comes back to the parent as its task tool's output.
  const children = new Map();
  const pending = new Set();
  const track = (work) => {
    const done = work.catch(() => {}).finally(() => pending.delete(done));
    pending.add(done);
  };
  const text = (parts) => (parts || []).filter((p) => p.type === "text" && !p.synthetic).map((p) => p.text).join("\\n");
  const messages = async (id) => {
    try {
      const res = await client.session.messages({ path: { id } });
      return res.data || [];
    } catch {
      return [];
    }
  };
  const child = async (id) => {
    if (!children.has(id)) {
      // OpenCode awaits chat.message before it asks the model, and its SDK calls have no time
      // limit: a server that does not answer in LOOKUP_MS holds no turn. Unknown, the session is
      // the user's, as before, and asked about again next time.
      let timer;
      const late = new Promise((resolve) => { timer = setTimeout(resolve, LOOKUP_MS, null); });
      try {
        const res = await Promise.race([client.session.get({ path: { id } }), late]);
        if (!res || !res.data) return false;
        children.set(id, Boolean(res.data.parentID));
      } catch {
        return false;
      } finally {
        clearTimeout(timer);
      }
    }
    return children.get(id);
  };
  return {
    "chat.message": async (input, output) => {
      const id = input.sessionID;
      if (await child(id)) return;
      if (!started.has(id)) {
        started.set(id, []);
        const start = await ov("session-start", { session_id: id, cwd: directory, source: "startup" });
        if (start.context) started.set(id, [start.context]);
      }
      const prompt = await ov("prompt-submit", { session_id: id, cwd: directory, prompt: text(output.parts) });
      recall.set(id, prompt.context ? [prompt.context] : []);
    },
    // OpenCode's loop transforms a session's messages right before each model request of its
    // agent, and never before the requests it makes on the side with the same session id (the
    // title's, to a small model, perhaps another provider's): only the request it arms gets recall.
    "experimental.chat.messages.transform": async (_input, output) => {
      const id = (output.messages || []).map((m) => m && m.info && m.info.sessionID).filter(Boolean).pop();
      if (id) armed.add(id);
    },
    "experimental.chat.system.transform": async (input, output) => {
      if (!armed.delete(input.sessionID)) return;
      const context = [...(started.get(input.sessionID) || []), ...(recall.get(input.sessionID) || [])];
      if (context.length) output.system.push(...context);
    },
    // OpenCode calls this without awaiting it, and `opencode run` exits right after the turn's
    // idle: the work is kept in `pending` (before the first await) so that dispose can wait for it.
    event: async ({ event }) => {
      const info = event.properties && event.properties.info;
      if (info && info.id && event.type === "session.deleted") {
        started.delete(info.id);
        children.delete(info.id);
      } else if (info && info.id && (event.type === "session.created" || event.type === "session.updated")) {
        children.set(info.id, Boolean(info.parentID));
      }
      const id = event.properties && event.properties.sessionID;
      if (!id) return;
      if (event.type === "session.idle" || event.type === "session.error") {
        // The prompt's turn is over: its recall goes with it (the session-start block stays).
        recall.delete(id);
        armed.delete(id);
      }
      const send = (hook) => child(id).then((sub) => sub ? null : messages(id).then((all) => ov(hook, { session_id: id, cwd: directory, messages: newest(all) })));
      if (event.type === "session.idle") {
        track(send("stop"));
      } else if (event.type === "session.compacted") {
        track(send("pre-compact"));
      }
    },
    // Awaited by OpenCode before it exits: a turn's capture is not cut off, and a host that
    // stalls (its SDK call for the messages has no time limit) holds the exit for 20 s at most.
    dispose: async () => {
      const deadline = Date.now() + 20000;
      while (pending.size && Date.now() < deadline) {
        let timer;
        const expired = new Promise((resolve) => { timer = setTimeout(resolve, deadline - Date.now()); });
        await Promise.race([Promise.all([...pending]), expired]);
        clearTimeout(timer);
      }
    },
  };
};
"""


HOST = OpenCode()
