"""ov's hook entries in each host's file, planned in and out: Claude Code's, Codex's and Gemini
CLI's nested groups (``hooks.<Event>[].hooks[]``), Cursor's flat list (``hooks.<event>[]``), and
OpenCode's plugin file.

**Only ov's entries change.** ov's handlers are recognised by their command
(:func:`ov.hosts.ovcommand.is_ours`). A re-install removes those and appends fresh ones; every
other entry keeps its place, and the file keeps its formatting and comments. In a group that also
holds a handler of the user's, only ov's goes. An uninstall then takes out what the receipt says
ov created, and what only ov's entries filled unless the file before ov had it
(:func:`ov.hosts.backups.drop_emptied`): a receipt written when ov's entries were there already
(ov's home removed, then installed again) says ov created nothing.
"""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

from ov.hosts.filechange import Change, given_back, parse, read, valueless
from ov.hosts.hostconfig import HostConfigError, Spec
from ov.hosts.ovcommand import hook_command, is_ours, pinned_command, pinned_env
from ov.hosts.receipts import file_gone, new_receipt, read_receipt


def plan_install(spec_: Spec, command: list[str], receipts_dir: Path, env=None) -> Change:
    """ov's handlers for each of ``spec_``'s events, replacing any ov handler the file holds;
    each pins the home and identity ``env`` sets (:func:`~ov.hosts.ovcommand.pinned_env`: in a
    user's file), as the server entry does, so that hooks and server use one store."""
    before = read(spec_.path)
    receipt = read_receipt(receipts_dir, spec_) or {}
    pinned = pinned_env(spec_.scope, env)
    if spec_.shape == "plugin":
        return _plan_plugin(spec_, before, pinned_command(command, pinned), receipt)
    doc = parse(spec_, before)
    created = [list(p) for p in receipt.get("created", [])] if before is not None else []
    remove_ours(doc, spec_)
    if spec_.shape == "flat" and ("version",) not in doc:
        doc.set(("version",), 1)
        created.append(["version"])
    if ("hooks",) not in doc:
        created.append(["hooks"])
    for native, event, timeout in spec_.events:
        if ("hooks", native) not in doc:
            created.append(["hooks", native])
        doc.append(("hooks", native), _entry(spec_, command, native, event, timeout, pinned))
    after = doc.text().encode("utf-8")
    if before is None and not after.endswith(b"\n"):
        after += b"\n"
    kept = valueless(spec_, before, receipt)
    return Change(spec_, before, after, new_receipt(spec_, receipt, before is None, created, command, kept, events=[e for _n, e, _t in spec_.events]))


def plan_uninstall(spec_: Spec, receipts_dir: Path) -> Change:
    """Every ov handler out of ``spec_``'s file, then what the receipt says ov created there."""
    before = read(spec_.path)
    if before is None:
        return file_gone(spec_, read_receipt(receipts_dir, spec_), receipts_dir)
    receipt = read_receipt(receipts_dir, spec_) or {}
    if spec_.shape == "plugin":
        from ov.hosts.opencode import PLUGIN_MARKER

        if not before.startswith(PLUGIN_MARKER.encode()):
            return Change(spec_, before, before, None, [f"{spec_.path} is not ov's plugin: left as it is"])
        return Change(spec_, before, None, None, spec_receipt=receipt)
    # Here, not at the top: backups builds on this module's remove_ours.
    from ov.hosts import backups
    from ov.hosts.backups import before_ov, drop_emptied, filled, has_backup

    doc = parse(spec_, before)
    full, untouched = filled(doc, spec_), doc.text()
    remove_ours(doc, spec_)
    ours = doc.text() != untouched  # the file held entries of ov's: what only they filled is ov's
    for path in sorted((tuple(p) for p in receipt.get("created", [])), key=len, reverse=True):
        # What ov created goes: a list or object once empty, a value (Cursor's "version") always.
        if path in doc and (doc.get(path) in ({}, []) or not isinstance(doc.get(path), (dict, list))):
            doc.remove(path)
    if ours:
        drop_emptied(doc, spec_, full, before_ov(spec_, receipts_dir))
    after: bytes | None = given_back(spec_, doc, receipt)
    if doc.value() == {} and (receipt.get("created_file") or (ours and not has_backup(spec_, receipts_dir))):
        after = None  # ov made the file (a file ov found keeps a backup until it is given back): it goes
    return Change(spec_, before, backups.as_backed_up(spec_, receipts_dir, after), None, spec_receipt=receipt)


def installed_entries(spec_: Spec) -> dict[str, list[str]]:
    """ov's commands in the host's file, by the host's event name (empty when none).

    A file ov cannot read raises, as it does for an install (:func:`~ov.hosts.filechange.parse`):
    whether ov's hooks are in it cannot be told, and ``ov doctor`` says so rather than "not installed"."""
    before = read(spec_.path)
    if before is None:
        return {}
    if spec_.shape == "plugin":
        text = _plugin_text(before)
        if text is None:
            return {}
        command = _plugin_command(text)
        return {"plugin": [shlex.join(command)] if command else []}
    found: dict[str, list[str]] = {}
    hooks = _value(spec_, before).get("hooks", {})
    for native, items in (hooks.items() if isinstance(hooks, dict) else []):
        for handler in _handlers(spec_, items):
            if is_ours(handler.get("command")):
                found.setdefault(native, []).append(handler["command"])
    return found


def _value(spec_: Spec, data: bytes) -> dict:
    """The host file ``data`` as a plain value: through the C parser where it is plain JSON, as
    most are, since a project's hook reads the user's file on every prompt
    (:func:`user_scope_answers`) and the editing parser took seconds over a file of a few MB; a
    file with comments, or one that does not parse, goes through :func:`parse`, which says why."""
    try:
        value = json.loads(data.decode("utf-8"))
    except (ValueError, RecursionError):  # UnicodeDecodeError too: parse says the file is not UTF-8
        value = None
    return value if isinstance(value, dict) else parse(spec_, data).value()


def user_scope_answers(host: str, event: str, env=None) -> bool:
    """Whether the user's own file of ``host`` holds ov's hook for ``event``, one the host runs:
    then a project's entry for it, which the host runs as well, answers nothing (each event once,
    recall injected once). The user's entry is the one kept: it pins the user's store and identity,
    and it runs in every project, trusted or not. When it does not run (:func:`user_scope_silent`)
    the project's answers."""
    return user_scope_silent(host, (event,), env) is None


def user_scope_silent(host: str, events=None, env=None) -> str | None:
    """Why the user's own file of ``host`` answers none of ``events`` (ov's events; all of the
    host's by default) for a project's entry that defers to it, said for a person; None when it
    answers them all. Codex runs a user's hook only once reviewed: an unreviewed one leaves the
    project's to answer, as does an entry whose ov cannot start (an older ov's, its virtualenv
    since removed), and a project's entry found there (a project at HOME writes into the user's
    own file): it defers too, and would answer for no one. A file that cannot be read answers
    nothing."""
    from ov.errors import OvError
    from ov.hosts.hostconfig import spec
    from ov.hosts.ovcommand import defers, hook_program, starts

    try:
        user = spec(host, "user", Path(), env)
        entries = installed_entries(user)
    except (OvError, OSError):
        return "your file cannot be read"
    for native, event, _t in user.events:
        if events is not None and event not in events:
            continue
        commands = [c for c in entries.get(native, []) if not defers(c)]
        if not commands:
            return f"your file has no ov hook for {native}"
        programs = [p for p in map(hook_program, commands) if p is not None]
        if not any(starts(p, env) for p in programs):
            return f"the ov your file runs cannot start ({programs[0] if programs else commands[0]})"
    if host == "codex":
        from ov.hosts.gates import codex_unreviewed

        if codex_unreviewed(user, env) != (0, 0):
            return "Codex has not reviewed your file's hooks"
    return None


def runs_twice(host: str, project: Path, env=None) -> bool | None:
    """Whether ``host`` runs ov twice per event, from the user's file and ``project``'s: None when
    not both hold ov's hooks; False when the project's entries defer (:func:`user_scope_answers`);
    True for an older ov's project entries (no ``--scope project``) and for OpenCode, whose two
    plugins both answer."""
    from ov.errors import OvError
    from ov.hosts.hostconfig import spec
    from ov.hosts.ovcommand import defers

    specs = [spec(host, scope, project, env) for scope in ("user", "project")]
    if specs[0].path == specs[1].path:
        return None  # the project is HOME: one file
    try:
        user, shared = (installed_entries(s) for s in specs)
    except (OvError, OSError):
        return None  # doctor says what is wrong with the file
    if not user or not shared:
        return None
    return host == "opencode" or not all(defers(c) for cs in shared.values() for c in cs)


def plugin_outdated(spec_: Spec) -> bool:
    """Whether ov's plugin at ``spec_.path`` differs from the one this ov writes for the same
    command: an upgrade changed the plugin, and the file keeps the old one until reinstalled."""
    from ov.hosts.opencode import plugin_source

    text = _plugin_text(read(spec_.path))
    command = _plugin_command(text) if text is not None else None
    return command is not None and text != plugin_source(command)


# --- the nested and flat shapes -----------------------------------------------------------------


def _entry(spec_: Spec, command: list[str], native: str, event: str, timeout: int, pinned: dict[str, str]) -> dict:
    line = hook_command(command, spec_.host, event, guard=spec_.guarded, env=pinned, scope=spec_.scope)
    handler: dict = {"type": "command", "command": line, "timeout": timeout}
    if spec_.named:
        handler = {"name": f"ov-{event}", **handler}
    if spec_.shape == "flat":
        return {"command": handler["command"], "timeout": timeout}
    return {"hooks": [handler]}


def _handlers(spec_: Spec, items) -> list[dict]:
    if not isinstance(items, list):
        return []
    if spec_.shape == "flat":
        return [h for h in items if isinstance(h, dict)]
    return [h for group in items if isinstance(group, dict) and isinstance(group.get("hooks"), list) for h in group["hooks"] if isinstance(h, dict)]


def remove_ours(doc, spec_: Spec) -> None:
    """Take every ov handler out of the file; a group left with no handler goes too."""
    hooks = doc.get(("hooks",))
    if hooks is None:
        return
    if not isinstance(hooks, dict):
        raise HostConfigError(f"{spec_.path}: `hooks` is {type(hooks).__name__}, not an object", hint="fix the file, then run the command again")
    for native, items in hooks.items():
        if not isinstance(items, list):
            raise HostConfigError(f"{spec_.path}: `hooks.{native}` is not a list", hint="fix the file, then run the command again")
        for gi in range(len(items) - 1, -1, -1):
            item = items[gi]
            if spec_.shape == "flat":
                if isinstance(item, dict) and is_ours(item.get("command")):
                    doc.remove(("hooks", native, gi))
                continue
            handlers = item.get("hooks") if isinstance(item, dict) else None
            if not isinstance(handlers, list):
                continue
            ours = [hi for hi, h in enumerate(handlers) if isinstance(h, dict) and is_ours(h.get("command"))]
            if ours and len(ours) == len(handlers):
                doc.remove(("hooks", native, gi))  # a group that held only ov's handlers was ov's
            else:
                for hi in reversed(ours):
                    doc.remove(("hooks", native, gi, "hooks", hi))


# --- OpenCode's plugin --------------------------------------------------------------------------


def _plan_plugin(spec_: Spec, before: bytes | None, command: list[str], receipt: dict) -> Change:
    from ov.hosts.opencode import PLUGIN_MARKER, plugin_source

    if before is not None and not before.startswith(PLUGIN_MARKER.encode()):
        raise HostConfigError(
            f"{spec_.path} exists and is not ov's plugin",
            hint="move it aside (ov never overwrites a file it did not write), then run the command again",
        )
    after = plugin_source(command).encode("utf-8")
    return Change(spec_, before, after, new_receipt(spec_, receipt, True, [], command, events=["session-start", "prompt-submit", "stop", "pre-compact"]))


def _plugin_text(before: bytes | None) -> str | None:
    """The text of ov's plugin from the file's bytes; None when there is no file, or it is not ov's."""
    from ov.hosts.opencode import PLUGIN_MARKER

    text = before.decode("utf-8", "replace") if before is not None else None
    return text if text is not None and text.startswith(PLUGIN_MARKER) else None


def _plugin_command(text: str) -> list[str] | None:
    """The ``ov`` command a plugin starts, from its ``const OV = [...]`` line."""
    match = re.search(r"^const OV = (\[.*\]);$", text, re.MULTILINE)
    try:
        command = json.loads(match.group(1)) if match else None
    except ValueError:
        return None
    return command if isinstance(command, list) and command and all(isinstance(c, str) for c in command) else None
