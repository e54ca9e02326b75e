"""ov's MCP server entry in each host's file (``ov install mcp``, ``--with-mcp``): planned in,
planned out, and read back for ``ov doctor``.

The entry is named ``ov`` (``mcpServers.ov``, Codex's ``[mcp_servers.ov]``, OpenCode's
``mcp.ov``) and recognised as ov's by its command line (:func:`ov.hosts.ovcommand.is_our_server`).
One named ``ov`` that runs something else is the user's: it is refused on install and left alone
on uninstall. Codex's ``config.toml`` is edited table by table (:mod:`ov.hosts.tomltable`), every
other file in place as JSON, so everything else keeps its bytes.
"""

from __future__ import annotations

import shlex
from pathlib import Path

from ov.errors import InvalidInput, quote
from ov.hosts.filechange import Change, given_back, parse, read, valueless
from ov.hosts.hostconfig import HostConfigError, Spec, former_mcp_specs, mcp_spec
from ov.hosts.ovcommand import SERVER_ENV, is_our_server, pinned_env, server_command
from ov.hosts.receipts import file_gone, new_receipt, read_receipt, with_file_facts

MCP_NAME = "ov"


def mcp_entry(host: str, command: list[str], *, trust: bool = False, env: dict[str, str] | None = None) -> tuple[tuple[str, ...], dict]:
    """Where ov's server goes in the host's file, and its entry."""
    program, *args = [*command, "mcp"]
    if host == "opencode":
        entry: dict = {"type": "local", "command": [program, *args], "enabled": True}
        if env:
            entry["environment"] = env
        return ("mcp", MCP_NAME), entry
    entry = {"command": program, "args": args}
    if host == "claude":
        entry = {"type": "stdio", **entry}
    if host == "codex":
        # Not `required = true`: Codex would then refuse to start at all whenever ov's server
        # cannot (a moved virtualenv, a broken install). ov's server lists its tools within
        # milliseconds, so the first request rarely misses them anyway. An older ov's entry with
        # it is replaced whole by a re-install (tomltable.put).
        # `codex exec` runs with approval "never": without this every tool call is refused.
        entry["default_tools_approval_mode"] = "approve"
    if env:
        entry["env"] = env
    if host == "gemini" and trust:
        entry["trust"] = True  # Gemini offers an untrusted server's tools only after asking
    return ("mcp_servers" if host == "codex" else "mcpServers", MCP_NAME), entry


def plan_mcp_install(spec_: Spec, command: list[str], receipts_dir: Path, *, trust: bool = False, along: Change | None = None, env=None) -> Change:
    """Register ov's server in ``spec_``'s file. ``along``: the hooks' install planned in the same
    run; when it writes the same file (Gemini keeps hooks and servers in one settings.json) the
    server goes into what it writes, and both changes write the same bytes, each with its own
    receipt (planned apart, the second write would drop the first one's entries). ``env``: the
    environment whose home and identity the entry pins (this process's by default).

    An entry named ``ov`` that is not ov's (:func:`is_our_server`) is refused, never replaced: it
    is the user's own server."""
    before = read(spec_.path)
    receipt = read_receipt(receipts_dir, spec_) or {}
    shared = along if along is not None and along.spec.path == spec_.path else None
    text = shared.after if shared is not None else before
    path, entry = mcp_entry(spec_.host, command, trust=trust, env=pinned_env(spec_.scope, env))
    if spec_.shape == "mcp-toml":
        from ov.hosts import tomltable

        source, values = tomltable.read(text, spec_.path) if text is not None else ("", {})
        _refuse_foreign(spec_, path, tomltable.get(values, path, spec_.path))
        after = tomltable.put(source, values, path, entry, spec_.path).encode("utf-8")
        created: list[list[str]] = []
    else:
        doc = parse(spec_, text)
        _refuse_foreign(spec_, path, doc.get(path))
        created = [list(p) for p in receipt.get("created", [])] if before is not None else []
        if path[:1] not in doc:
            created.append(list(path[:1]))
        doc.set(path, entry)
        after = doc.text().encode("utf-8")
        if text is None and not after.endswith(b"\n"):
            after += b"\n"
    kept = valueless(spec_, before, receipt) if spec_.shape != "mcp-toml" else None
    change = Change(spec_, before, after, new_receipt(spec_, receipt, before is None, created, command, kept))
    if shared is not None:
        shared.after = after
        shared.riders.append(change)
    return change


def plan_mcp_uninstall(spec_: Spec, receipts_dir: Path, *, along: Change | None = None) -> Change:
    """Take ov's server out of ``spec_``'s file; an entry named ``ov`` that is not ov's stays, with
    a note. ``along``: the hooks' uninstall planned in the same run; when it writes the same file
    (Gemini) the server comes out of what it writes, both changes write the same bytes, and whether
    ov made the file is what either receipt says."""
    before = read(spec_.path)
    own = read_receipt(receipts_dir, spec_)
    receipt = own or {}
    shared = along if along is not None and along.spec.path == spec_.path else None
    if shared is not None:
        receipt = with_file_facts(receipt, shared.spec_receipt)
    if before is None:
        return file_gone(spec_, receipt if own is not None else None, receipts_dir)
    data = shared.after if shared is not None else before
    if data is None:
        return Change(spec_, before, None, None, spec_receipt=receipt)
    # Here, not at the top: backups builds on this module's mcp_entry.
    from ov.hosts import backups
    from ov.hosts.backups import before_ov, drop_emptied, filled, has_backup

    path, _entry = mcp_entry(spec_.host, [])
    if spec_.shape == "mcp-toml":
        from ov.hosts import tomltable

        text, values = tomltable.read(data, spec_.path)
        said = _not_ours(spec_, path, tomltable.get(values, path, spec_.path))
        ours = said is None and tomltable.get(values, path, spec_.path) is not None
        if said is None:
            text = tomltable.drop(text, values, path, spec_.path)
        after: bytes | None = text.encode("utf-8")
        # ov made the file: its receipt says so, or it held ov's server and no backup of it was
        # ever needed (a file ov found keeps a backup until it is given back).
        made = not text.strip() and (bool(receipt.get("created_file")) or (ours and not has_backup(spec_, receipts_dir)))
    else:
        doc = parse(spec_, data)
        said = _not_ours(spec_, path, doc.get(path))
        ours = said is None and path in doc
        if said is None:
            full = filled(doc, spec_)
            doc.remove(path)
            for created in sorted((tuple(p) for p in receipt.get("created", [])), key=len, reverse=True):
                if created in doc and doc.get(created) in ({}, []):
                    doc.remove(created)
            if ours:
                drop_emptied(doc, spec_, full, before_ov(spec_, receipts_dir))
        after = given_back(spec_, doc, receipt)
        made = doc.value() == {} and (bool(receipt.get("created_file")) or (ours and not has_backup(spec_, receipts_dir)))
    if said is not None:
        # The server's change is none: the file stays as it is, or as the hooks' change (``along``) leaves it.
        return Change(spec_, data, data, None, [f"{said}: left as it is"], spec_receipt=receipt)
    after = None if made else backups.as_backed_up(spec_, receipts_dir, after)
    if shared is not None:
        shared.after = after
    return Change(spec_, before, after, None, spec_receipt=receipt)


def plan_mcp_leftovers(host: str, scope: str, project: Path, receipts_dir: Path, env=None) -> list[Change]:
    """Take out ov's own server where this ov does not register it now
    (:func:`ov.hosts.hostconfig.former_mcp_specs`): an earlier ov's, or another Claude Code
    profile's. Run with every uninstall of the server (not an install: see the CLI's
    ``_mcp_leftovers``), each change with a note that says so. A server of the user's named ``ov``
    there, or a file that does not parse, is none of this run's business: no change, and nothing is
    refused."""
    changes = []
    for former in former_mcp_specs(host, scope, project, env):
        try:
            if _registered_entry(former) is None:
                continue
        except InvalidInput:
            continue  # the host reads another file now: this one is the user's to mend, not this run's
        change = plan_mcp_uninstall(former, receipts_dir)
        change.action = "removed"
        current = mcp_spec(host, scope, project, env).path
        change.notes.append(f"{host:8} also takes out ov's server in {former.path} (the file Claude Code reads without $CLAUDE_CONFIG_DIR; this ov registers it in {current})")
        changes.append(change)
    return changes


def registered_mcp(spec_: Spec) -> list[str] | None:
    """The command line of ov's registered server in the host's file, or None.

    A file ov cannot read raises (:class:`~ov.errors.InvalidInput`, with its line where it has
    one): whether ov's server is in it cannot be told."""
    entry = _registered_entry(spec_)
    return server_command(entry) if entry is not None else None


def registered_mcp_required(spec_: Spec) -> bool:
    """Whether ov's registered server is marked ``required`` (Codex: an older ov wrote it, and
    Codex then will not start while the server cannot)."""
    entry = _registered_entry(spec_) or {}
    return entry.get("required") is True


def registered_mcp_untrusted(spec_: Spec) -> bool:
    """Whether ov's registered server is one Gemini CLI does not trust: it offers the server's
    tools only after asking, and a headless run (``gemini -p``) never (reference/hosts-verified.md)."""
    return spec_.host == "gemini" and (_registered_entry(spec_) or {}).get("trust") is not True


def registered_mcp_env(spec_: Spec) -> dict[str, str]:
    """The ov home and identity the registered server is told (:func:`ov.hosts.ovcommand.server_env`), if any."""
    entry = _registered_entry(spec_) or {}
    env = entry.get("environment" if spec_.host == "opencode" else "env")
    return {k: str(v) for k, v in env.items() if k in SERVER_ENV} if isinstance(env, dict) else {}


def _registered_entry(spec_: Spec) -> dict | None:
    """ov's server entry in the host's file, as parsed; None when there is none, or the entry
    named ``ov`` is someone else's (:func:`is_our_server`), or it starts nothing. A file that
    does not parse raises, as it does for an install."""
    data = read(spec_.path)
    if data is None:
        return None
    path, _entry = mcp_entry(spec_.host, [])
    if spec_.shape == "mcp-toml":
        from ov.hosts import tomltable

        entry = tomltable.get(tomltable.read(data, spec_.path)[1], path, spec_.path)
    else:
        entry = parse(spec_, data).get(path)
    return entry if isinstance(entry, dict) and is_our_server(entry) and server_command(entry) else None


def _refuse_foreign(spec_: Spec, path: tuple[str, ...], entry: object) -> None:
    said = _not_ours(spec_, path, entry)
    if said is not None:
        raise HostConfigError(
            said,
            hint=f"rename your server (ov registers its own under the name `{MCP_NAME}`) or remove it, then run the command again; ov never replaces a server it did not write",
        )


def _not_ours(spec_: Spec, path: tuple[str, ...], entry: object) -> str | None:
    """What the entry at ``path`` is, when it is someone else's server named ``ov`` (None when it is ov's or absent)."""
    if entry is None or is_our_server(entry):
        return None
    where = f"[{'.'.join(path)}]" if spec_.shape == "mcp-toml" else ".".join(path)
    line = server_command(entry) if isinstance(entry, dict) else None
    if line is not None:
        what = f"it runs {quote(shlex.join(line))}"
    elif isinstance(entry, dict) and isinstance(entry.get("url") or entry.get("httpUrl"), str):
        what = f"it connects to {quote(entry.get('url') or entry.get('httpUrl'))}"
    else:
        what = "it is not a server entry ov writes"
    return f"the MCP server {where} in {spec_.path} is not ov's ({what})"
