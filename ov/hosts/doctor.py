"""``ov doctor``'s host checks: is each host wired to this ``ov``, past its gates, and did its hooks run?

For every host that is installed on the machine or has ov's entries (user scope, and the
current project's): ov's handler for each event is present, its ``ov`` still exists (a moved
virtualenv breaks every hook silently) or, for a bare ``ov`` (a project's portable entry), is
found on PATH, Codex has the review of ov's hooks on record (and, for a project's hooks,
trusts the project: it loads nothing of an untrusted project's ``.codex/``), Cursor is not
answered twice, and the last hook run of that host, from the hook log, with its outcome
("session-start injected 3 entries 2 h ago"). Each registered MCP server is started as its
host would start it and must list its tools (:mod:`ov.hosts.mcpcheck`). A host's file that
does not parse is a failure with its line (whether ov's entries are in it cannot be told, and an
install would refuse it); a file ov's receipt names and that was removed by hand (or that an
install killed half-way never wrote), and ov's server left where an earlier ov registered it
(``~/.claude.json`` under $CLAUDE_CONFIG_DIR), are warnings. Each finding that is not ok names what fixes it. A backup or a
temporary file a killed install left beside a host's file is not reported: the next install or
uninstall settles it. Nothing here changes anything.
"""

from __future__ import annotations

import os
import shlex
import sys
import time
from pathlib import Path

from ov.errors import InvalidInput
from ov.health.doctor import Check
from ov.hosts import hooklog, install, mcpcheck
from ov.hosts.host import load
from ov.hosts.jsonc import ConfigFileInvalid
from ov.hosts.mcpcheck import PUT_ON_PATH
from ov.wording import a, counted

# How each host runs a hook's command line on Windows (docs/hosts.md, "On Windows", with the
# sources): where it is no POSIX shell, an entry written on macOS or Linux that starts with `env`
# (a project's `env OV_HOOK_SCOPE=project ov hook …`) or with Gemini's bash guard cannot start.
# Claude Code runs them through Git Bash (PowerShell only without it), which has `env`; Cursor
# does not say, and is named as unknown rather than guessed.
_WINDOWS_HOOK_SHELLS = {"codex": "cmd.exe (%COMSPEC% /C)", "gemini": "PowerShell (powershell.exe -NoProfile -Command)", "cursor": "a shell Cursor does not document"}


def checks(home_root: Path, project: Path, env=None) -> list[Check]:
    env = os.environ if env is None else env
    current = install.ov_command()
    receipts = home_root / "installs"
    found = set(install.detect(env, receipts))
    log = hooklog.read(home_root)
    out = []
    wired = set()
    unreadable: set[Path] = set()  # said once: Gemini's hooks and server share one file
    hooks_pin: dict[tuple[str, str], dict[str, str]] = {}  # what each host's hooks pin, by (host, scope)
    for host in install.HOSTS:
        present, said = [], False
        for scope in install.SCOPES:
            spec = install.spec(host, scope, project, env)
            try:
                entries = install.installed_entries(spec)
            except InvalidInput as exc:
                out.append(_unreadable(spec, exc, receipts))
                unreadable.add(spec.path)
                said = True
                continue
            gone = None if entries else _gone(spec, receipts)
            if entries:
                present.append((spec, entries))
            elif gone is not None:
                out.append(gone)
                said = True
        if not present:
            if host in found and not said:
                # The host's name first: "codex hooks: installed, but …" read as ov's hooks installed.
                out.append(Check(f"{host} hooks", "warn", f"{load(host).label} is installed, but ov's hooks are not in it", f"ov install hooks --host {host}"))
            continue
        wired.add(host)
        for spec, entries in present:
            out.append(_entries_check(spec, entries, current, env, project))
            posix = _posix_entries_check(spec, entries) if _windows() else None
            out.extend([posix] if posix is not None else [])
            hooks_pin[(host, spec.scope)] = install.hook_env(next(c for cs in entries.values() for c in cs))
            if host == "codex":
                out.extend(_codex_gates(spec, env))
        if len(present) == 2:
            out.append(_scopes_check(host, project, env))
        out.append(_last_run(host, log))
    for host in install.HOSTS:
        for scope in install.SCOPES:
            spec = install.mcp_spec(host, scope, project, env)
            try:
                command = install.registered_mcp(spec)
            except InvalidInput as exc:
                if spec.path not in unreadable:
                    out.append(_unreadable(spec, exc, receipts))
                    unreadable.add(spec.path)
                continue
            if command:
                out.append(mcpcheck.server_check(spec, command, env, hooks_pin.get((host, scope))))
                if host == "codex" and scope == "project" and not any(c.name == _CODEX_PROJECT_TRUST for c in out):
                    out.append(_codex_project_trust(spec, env, "ov's MCP server"))
            else:
                gone = _gone(spec, receipts)
                out.extend([gone] if gone is not None else [])
            out.extend(mcpcheck.leftovers(spec, project, env))
    if {"claude", "cursor"} <= wired:
        out.append(Check("cursor channel", "ok", "Cursor also runs Claude Code's hooks; ov answers only Cursor's own"))
    return out


def wired_hosts(project: Path, env=None) -> list[str]:
    """The hosts whose files (user or ``project`` scope) hold ov's hooks, in ov's order. A file that
    does not parse counts as not wired here: :func:`checks` says what is wrong with it."""
    env = os.environ if env is None else env
    wired = []
    for host in install.HOSTS:
        for scope in install.SCOPES:
            try:
                if install.installed_entries(install.spec(host, scope, project, env)):
                    wired.append(host)
                    break
            except InvalidInput:
                continue
    return wired


def _unreadable(spec: install.Spec, error: InvalidInput, receipts: Path) -> Check:
    """A host's file that does not parse (or cannot be read): whether ov's entries are in it cannot
    be told, and an install or uninstall would refuse it, so the fix is by hand (or the backup)."""
    what = "hooks are" if spec.kind == "hooks" else "server is"
    where = f" at line {error.line}" if isinstance(error, ConfigFileInvalid) else ""
    fix = f"fix {spec.path} by hand{where} (ov edits only a file it can read), then run `ov doctor` again"
    backups = dict.fromkeys(p for p in (install.backup_path(spec, receipts), spec.path.with_name(spec.path.name + install.BACKUP_SUFFIX)) if p.is_file())
    for backup in backups:
        fix += f"; or copy back {backup}, the file as it was before ov's first write, and install again"
    return Check(f"{spec.host} {spec.kind} ({spec.scope})", "fail", f"{error.message}; ov cannot tell whether its {what} in it", fix)


def _gone(spec: install.Spec, receipts: Path) -> Check | None:
    """A file ov's receipt says it installed into, and which no longer exists (removed by hand),
    or never did (an install killed before it wrote the file)."""
    receipt = install.read_receipt(receipts, spec)
    if spec.path.exists() or receipt is None:
        return None
    flags = f"--host {spec.host} --scope {spec.scope}"
    name = f"{spec.host} {spec.kind} ({spec.scope})"
    if install.never_written(receipt):
        done = "hooks {flags} installs them" if spec.kind == "hooks" else "mcp {flags} registers it"
        fix = f"ov install {done.format(flags=flags)}; ov uninstall {spec.kind} {flags} drops ov's receipt of it"
        return Check(name, "warn", f"{spec.path} was never written: an install stopped before it wrote the file", fix)
    if spec.kind == "hooks":
        detail, fix = "its hooks were installed there", f"ov install hooks {flags} puts them back; ov uninstall hooks {flags} forgets them"
    else:
        detail, fix = "its server was registered there", f"ov install mcp {flags} registers it again; ov uninstall mcp {flags} forgets it"
    return Check(name, "warn", f"{spec.path} no longer exists, but ov's receipt says {detail}", fix)


def _entries_check(spec: install.Spec, entries: dict[str, list[str]], current: list[str], env, project: Path) -> Check:
    name = f"{spec.host} hooks ({spec.scope})"
    if spec.shape != "plugin":
        missing = [native for native, _event, _t in spec.events if native not in entries]
        if missing:
            return Check(name, "fail", f"{spec.path}: no ov hook for {', '.join(missing)}", f"ov install hooks --host {spec.host} --scope {spec.scope}")
    commands = [c for cs in entries.values() for c in cs]
    programs = {p for p in map(_program, commands) if p}
    gone = [p for p in programs if os.path.isabs(p) and not _runs(p)]
    if gone:
        return Check(name, "fail", f"{spec.path} runs {gone[0]}, which no longer exists", f"ov install hooks --host {spec.host} --scope {spec.scope}")
    unfound = sorted(p for p in programs if not os.path.isabs(p) and install.on_path(p, env) is None)
    if unfound:
        return Check(name, "warn", f"{spec.path} runs `{unfound[0]}` by name, and PATH has no {unfound[0]}", PUT_ON_PATH)
    others = sorted(p for p in programs if not install.same_file(_where(p, env), current[0]))
    if others:
        said = ", ".join(p if os.path.isabs(p) else f"{p} (on PATH: {_where(p, env)})" for p in others)
        # A bare entry runs whichever ov PATH finds: installing again from this ov would pin its path.
        fix = f"ov install hooks --host {spec.host} --scope {spec.scope}" if any(map(os.path.isabs, others)) else "put this ov first on PATH, or use the one PATH finds"
        return Check(name, "warn", f"{spec.path} runs {said}, not this ov ({current[0]})", fix)
    if spec.shape == "plugin" and install.plugin_outdated(spec):
        return Check(name, "warn", f"{spec.path} differs from the plugin this ov writes (an older ov's, or edited)", f"ov install hooks --host {spec.host} --scope {spec.scope}")
    unguarded = [c for c in commands if not install.is_guarded(c)] if spec.guarded and install.GUARDED_HERE else []
    if unguarded:
        # An older ov's entries: they work while their ov does, and the day it cannot start the
        # host refuses every prompt (Gemini reads the shell's "not found" as a deny).
        detail = f"{spec.path}: {counted(len(unguarded), 'entry', 'entries')} written by an older ov; if their ov cannot start, {load(spec.host).label} refuses every prompt"
        return Check(name, "warn", detail, f"ov install hooks --host {spec.host} --scope {spec.scope}")
    flagged = [c for c in commands if install.says_scope_by_option(c)]
    if flagged:
        # 2026-12-05's project entries: an ov from before `--scope` exits 2 on them, a block to the host.
        detail = f"{spec.path}: {counted(len(flagged), 'entry', 'entries')} say `--scope project`, which an ov from before 2026-12-05 refuses with exit 2: a teammate's or a downgraded ov blocks every prompt"
        return Check(name, "warn", detail, f"ov install hooks --host {spec.host} --scope {spec.scope}, then commit the file")
    pins = install.hook_env(commands[0])
    differs = sorted(k for k in install.SERVER_ENV if mcpcheck.selects(pins).get(k) != mcpcheck.selects(install.server_env(env)).get(k)) if pins else []
    if differs:
        # What the hooks record goes where they are pinned; this ov (its `hooks log`, its store) looks elsewhere.
        said = ", ".join(f"{k}={pins[k]}" if k in pins else f"no {k}" for k in differs)
        detail = f"{spec.path}: {counted(len(commands), 'hook')} pinned to {said}, unlike this ov's environment: they {'write to another home' if 'OV_HOME' in differs else 'act as another identity'} than this ov reads"
        # Quoted as a shell reads it: a home with a space, a quote or a `$` is pasted as it is.
        run_with = " ".join([*(f"{k}={shlex.quote(pins[k])}" for k in differs if k in pins), *(f"without {k}" for k in differs if k not in pins)])
        return Check(name, "warn", detail, f"run ov with {run_with}, or install again from this environment: ov install hooks --host {spec.host}")
    from ov.hosts import gates

    off = gates.hooks_switched_off(spec, project, env) if spec.host != "codex" else None  # Codex's: its review check says it
    if off is not None:
        # The host's own switch, set on purpose: named, not flipped ("no hook has run yet" sent users to wait).
        detail = f"{spec.path}: {counted(len(commands), 'hook')}, but {load(spec.host).label} skips them: {off}"
        return Check(name, "fail", detail, "change that setting if ov's hooks should run (ov leaves it as you set it)")
    return Check(name, "ok", f"{spec.path}: {counted(len(commands), 'hook')}")


def _windows() -> bool:
    return sys.platform == "win32"


def _posix_entries_check(spec: install.Spec, entries: dict[str, list[str]]) -> Check | None:
    """On Windows: ov's entries in ``spec``'s file that only a POSIX shell runs (a project's, written
    on macOS or Linux and committed), for a host that runs hooks through another shell here."""
    shell = _WINDOWS_HOOK_SHELLS.get(spec.host)
    posix = [c for cs in entries.values() for c in cs if install.needs_posix_shell(c)]
    if shell is None or not posix:
        return None
    label = load(spec.host).label
    # Cursor's shell on Windows is not documented: said as a doubt, not as a failure.
    unknown = spec.host == "cursor"
    fails = "which may have neither" if unknown else "which has neither: they fail on this machine, and ov's hooks do not run"
    beside = "may fail beside them" if unknown else "keep failing beside them"
    detail = f"{spec.path}: {counted(len(posix), 'entry', 'entries')} start with `env` or bash's `shopt` (written on macOS or Linux); {label} runs hooks through {shell} on Windows, {fails}"
    return Check(f"{spec.host} hooks ({spec.scope}) on Windows", "warn", detail, f"ov install hooks --host {spec.host}  (your own file's entries need no `env` here and answer; the project's {beside})")


def _scopes_check(host: str, project: Path, env) -> Check:
    """ov's hooks in the user's file and the project's: the host runs both."""
    name = f"{host} scopes"
    if not install.runs_twice(host, project, env):
        silent = install.user_scope_silent(host, env=env)
        if silent is not None:
            # Each event is still answered once, by the project's entries: the user's own check says what to fix.
            return Check(name, "ok", f"ov's hooks are in your file and the project's; the project's answer, not yours: {silent}")
        return Check(name, "ok", "ov's hooks are in your file and the project's: the project's defer to yours, so each event is answered once")
    detail = f"ov's hooks are in your file and the project's, and {load(host).label} runs both: every event runs ov twice and recall is injected twice"
    if host == "opencode":
        return Check(name, "warn", detail, f"keep one: ov uninstall hooks --host {host} --scope user (or --scope project)")
    return Check(name, "warn", detail, f"ov install hooks --host {host} --scope project  (its entries then defer to yours)")


_CODEX_PROJECT_TRUST = "codex trust (project)"


def _codex_gates(spec: install.Spec, env) -> list[Check]:
    """Codex's gates in front of ov's hooks: hooks on, the project trusted (project scope), the hooks reviewed."""
    from ov.hosts import gates

    suffix = "" if spec.scope == "user" else f" ({spec.scope})"
    off = gates.codex_hooks_off(spec, env)
    if off is not None:
        return [Check(f"codex review{suffix}", "fail", f"Codex skips ov's hooks: {off}", "change that setting if ov's hooks should run (ov leaves it as you set it)")]
    out = [_codex_project_trust(spec, env, "ov's hooks")] if spec.scope == "project" else []
    never, changed = gates.codex_unreviewed(spec, env)
    if never or changed:
        fix = f"ov install hooks --host codex{' --scope project' if spec.scope == 'project' else ''} --trust (or open /hooks in Codex)"
        said = [f"{never} of ov's hooks are not reviewed"] if never else []
        if changed:
            # A review holds the hash of the handler as it was: an install from another ov, or one
            # that changed the command, leaves a review Codex no longer honours.
            said.append(f"{changed} of ov's hooks changed since reviewed")
        out.append(Check(f"codex review{suffix}", "warn", f"{'; '.join(said)}, so Codex skips them", fix))
    else:
        out.append(Check(f"codex review{suffix}", "ok", "ov's hooks are reviewed"))
    return out


def _codex_project_trust(spec: install.Spec, env, what: str) -> Check:
    """Whether the user's Codex config trusts the project: Codex loads nothing of an untrusted
    project's ``.codex/`` (``what`` of ov's among it)."""
    from ov.hosts import gates

    project, config = gates.codex_project(spec), gates.codex_user_config(spec, env)
    state = gates.codex_project_trust(spec, env)
    if state == "trusted":
        return Check(_CODEX_PROJECT_TRUST, "ok", f"{config} trusts {project}")
    if state is None:
        detail = f"{config} does not trust {project}, so Codex loads nothing of its .codex/, {what} included"
        fix = gates.codex_trust_by_hand(project, config)
        if spec.kind == "hooks":
            fix += "; or `ov install hooks --host codex --scope project --trust`, which also reviews ov's hooks"
    else:
        detail = f"{config} marks {project} {state}, so Codex loads nothing of its .codex/, {what} included"
        fix = f'set trust_level = "trusted" under [projects."{project}"] there if you want it loaded'
    return Check(_CODEX_PROJECT_TRUST, "warn", detail, fix)


def _last_run(host: str, log: list[dict]) -> Check:
    runs = [r for r in log if r.get("host") == host]
    if not runs:  # just installed: nothing is wrong yet
        return Check(f"{host} last run", "ok", f"no hook has run yet; start {a(load(host).label)} session, then `ov hooks log` shows what its hooks did")
    last = runs[-1]
    ago = _ago(time.time() - float(last.get("ts", 0)))
    what = f"{last.get('event')} {last.get('outcome', '')}"
    if last.get("uris"):
        what += f" ({counted(len(last['uris']), 'entry', 'entries')})"
    if last.get("captured"):
        what += f" ({counted(last['captured'], 'message')})"
    if last.get("outcome") in ("error", "timeout"):
        return Check(f"{host} last run", "warn", f"{what} {ago}: {last.get('error', '')}", "`ov hooks log` shows the runs before it")
    return Check(f"{host} last run", "ok", f"{what} {ago}")


def _program(command: str) -> str | None:
    return install.hook_program(command)


def _runs(program: str) -> bool:
    return install.starts(program)


def _where(program: str, env) -> str:
    """The file ``program`` starts: itself when absolute, else what PATH finds for it."""
    return program if os.path.isabs(program) else install.on_path(program, env) or program


def _ago(seconds: float) -> str:
    for unit, size in (("d", 86400), ("h", 3600), ("min", 60)):
        if seconds >= size:
            return f"{int(seconds // size)} {unit} ago"
    return "just now"
