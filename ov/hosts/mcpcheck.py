"""``ov doctor``'s checks of the MCP servers the hosts register (:mod:`ov.hosts.doctor` runs them):
each registered server is started as its host would start it and must list its tools, a
project's only when its command line is the one this ov writes there (a project's file comes with
whatever repository was cloned: a diagnostic runs none of its code); the store and identity it is
started with must be those its hooks (or this ov) use; and ov's server left where an earlier ov
registered it is a warning. Nothing here changes anything.
"""

from __future__ import annotations

import os
import shlex
from pathlib import Path

from ov.errors import InvalidInput
from ov.health.doctor import Check
from ov.home import expand_user, user_home
from ov.hosts import install

MCP_PROBE_SECONDS = 10.0
# A project's portable entries start `ov` by name: each machine needs its own ov on PATH.
PUT_ON_PATH = "put ov on PATH (e.g. `pipx install ovctx`, or link the virtualenv's bin/ov into ~/.local/bin): the entry names no path, so each machine runs its own ov"


def server_check(spec: install.Spec, command: list[str], env, hooks_pin: dict[str, str] | None = None) -> Check:
    """Start the registered server as the host would and ask it for its tools (bounded).
    ``hooks_pin``: the home and identity the host's hooks in the same scope pin, when installed."""
    import json
    import subprocess

    name = f"{spec.host} mcp ({spec.scope})"
    fix = f"ov install mcp --host {spec.host} --scope {spec.scope}"
    registered = command
    if not os.path.isabs(command[0]):
        found = install.on_path(command[0], env)
        if found is None:
            return Check(name, "warn", f"{spec.path} starts `{command[0]}` by name, and PATH has no {command[0]}", PUT_ON_PATH)
        command = [found, *command[1:]]  # what a host started with this PATH would start
    elif not install.starts(command[0]):
        return Check(name, "fail", f"{spec.path} starts {command[0]}, which no longer exists", fix)
    if spec.scope == "project" and not install.is_installed_server(registered, spec.scope, env):
        # A project's file comes with whatever repository was cloned: a diagnostic runs none of its code.
        detail = f"{spec.path}: not started (a project's file, and not the command line this ov writes there: {shlex.join(registered)}); run it yourself to check, if you trust it"
        return Check(name, "warn", detail, f"{fix}  (writes this ov's own entry)")
    requests = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "ov doctor", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
    ]
    data = "".join(json.dumps(r) + "\n" for r in requests).encode()
    try:
        # PYTHONSAFEPATH: a `python -m ov` entry would import an `ov` package from the folder doctor
        # runs in (a checkout) before the installed one.
        proc = subprocess.run(command, input=data, capture_output=True, timeout=MCP_PROBE_SECONDS, env={**os.environ, "PYTHONSAFEPATH": "1"})
        answers = [json.loads(line) for line in proc.stdout.decode("utf-8", "replace").splitlines() if line.strip()]
        tools = next(a["result"]["tools"] for a in answers if a.get("id") == 2)
    except (OSError, subprocess.TimeoutExpired, ValueError, StopIteration, KeyError, TypeError) as exc:
        return Check(name, "fail", f"{' '.join(command)} does not list its tools ({type(exc).__name__})", fix)
    # The entry pins the store and identity the install ran with, and so do the hooks this ov
    # installs with it; hooks that pin nothing (an older ov's, a project's) act on the host's
    # environment, like this ov. Two stores would split what the agent reads from what it records.
    pinned = install.registered_mcp_env(spec)
    if hooks_pin:
        here, unlike = hooks_pin, "unlike the home and identity its hooks pin"
    else:
        here, unlike = install.server_env(env), "unlike this ov's environment"
    chosen_pinned, chosen_here = selects(pinned), selects(here)
    differs = sorted(k for k in install.SERVER_ENV if chosen_pinned.get(k) != chosen_here.get(k))
    if differs:
        said = ", ".join(f"{k}={pinned[k]}" if k in pinned else f"no {k}" for k in differs)
        if spec.scope == "project":  # a project's entry pins nothing (install.pinned_env): the host's environment must carry them
            fix = f"set {', '.join(differs)} where the host starts, or register in user scope: ov install mcp --host {spec.host}"
        elif hooks_pin:
            fix = f"ov install hooks --host {spec.host} --with-mcp  (both from one environment, with its --account, --user, --peer)"
        else:
            fix += "  (from the environment the hooks run in)"
        return Check(name, "warn", f"{spec.path} starts the server with {said}, {unlike}", fix)
    if install.registered_mcp_required(spec):
        # What an older ov wrote: it works today, and stops Codex from starting the day ov cannot.
        detail = f"{spec.path} marks ov's server `required = true`: Codex will not start at all while the server cannot"
        return Check(name, "warn", detail, f"{fix}  (writes the entry without it)")
    detail = f"{spec.path}: starts and lists {len(tools)} tools"
    if install.registered_mcp_untrusted(spec):
        # Not a warning: an interactive Gemini CLI asks, and that may be how the user wants it.
        detail += f"; not trusted, so Gemini CLI offers them only after asking, and headless runs never (`ov install mcp --host gemini --scope {spec.scope} --trust` trusts it)"
    return Check(name, "ok", detail)


def selects(values: dict[str, str]) -> dict[str, str]:
    """What a server's variables select, so that two spellings of one choice compare equal: the
    home as a resolved path, and nothing for a value that is the default anyway (``OV_HOME=~/.ov``,
    ``OV_USER=default``)."""
    from ov.identity import DEFAULT_ID

    out = {}
    for name, value in values.items():
        if name == "OV_HOME":
            value = os.path.realpath(expand_user(value))
            user = user_home()
            if user is not None and value == os.path.realpath(user / ".ov"):
                continue
        elif name in ("OV_ACCOUNT", "OV_USER") and value == DEFAULT_ID:
            continue
        out[name] = value
    return out


def leftovers(spec: install.Spec, project: Path, env) -> list[Check]:
    """ov's server where this ov does not register it now (``~/.claude.json`` under
    $CLAUDE_CONFIG_DIR): an earlier ov's, or the one of the profile Claude Code reads without the
    variable. Uninstalling the server takes it out; a file there that does not parse is none of
    its business, nor of doctor's."""
    out = []
    for former in install.former_mcp_specs(spec.host, spec.scope, project, env):
        try:
            command = install.registered_mcp(former)
        except InvalidInput:
            continue
        if command:
            flags = f"--host {spec.host} --scope {spec.scope}"
            detail = f"{former.path} still registers ov's server (an earlier ov wrote it there whatever $CLAUDE_CONFIG_DIR said); this ov registers it in {spec.path}"
            fix = f"if Claude Code without $CLAUDE_CONFIG_DIR is a profile you use, it is that profile's: leave it; else ov uninstall mcp {flags}, then ov install mcp {flags}"
            out.append(Check(f"{spec.host} mcp leftover", "warn", detail, fix))
    return out
