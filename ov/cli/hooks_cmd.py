"""Host commands: ``ov hook`` (what coding agents run), ``ov install|uninstall hooks``, ``ov hooks log``."""

from __future__ import annotations

import sys
from enum import Enum
from pathlib import Path
from typing import Annotated

import typer

from ov.cli.output import emit, nothing, plain, warn
from ov.cli.runtime import HookCommand, OvCommand, OvGroup, runtime
from ov.errors import EXIT_INTERRUPTED
from ov.hosts.host import EVENTS, HOST_MODULES
from ov.wording import counted

HostChoice = Enum("HostChoice", {name: name for name in HOST_MODULES}, type=str)
EventChoice = Enum("EventChoice", {name.replace("-", "_"): name for name in EVENTS}, type=str)

app = typer.Typer(cls=OvGroup, help="What ov's hooks did: recall injected, turns captured, sessions committed.", no_args_is_help=True)
install_app = typer.Typer(cls=OvGroup, help="Wire ov into coding agents.", no_args_is_help=True)
uninstall_app = typer.Typer(cls=OvGroup, help="Take ov out of coding agents again.", no_args_is_help=True)
ScopeChoice = Enum("ScopeChoice", {"user": "user", "project": "project"}, type=str)

HostsOpt = Annotated[
    list[HostChoice] | None,
    typer.Option("--host", help="A host to wire (repeat for several; default: the hosts found on this machine)."),
]
UninstallHostsOpt = Annotated[
    list[HostChoice] | None,
    typer.Option("--host", help="A host to remove ov from (repeat for several; default: every host)."),
]
# Uninstalling asks nothing; the flag is accepted so that a script can pass install's flags to both.
UninstallYesOpt = Annotated[bool, typer.Option("--yes", "-y", help="Accepted for symmetry with install; nothing is asked.")]
ScopeOpt = Annotated[ScopeChoice, typer.Option("--scope", help="user: every project of this user; project: the current folder's project.")]
DryRunOpt = Annotated[bool, typer.Option("--dry-run", help="Print what would change, as a diff, and change nothing.")]


def register(root: typer.Typer) -> None:
    root.command("hook", cls=HookCommand)(hook)
    root.add_typer(app, name="hooks")
    root.add_typer(install_app, name="install")
    root.add_typer(uninstall_app, name="uninstall")


def hook(
    host: Annotated[HostChoice, typer.Argument(help="The coding agent calling: " + ", ".join(HOST_MODULES) + ".")],
    event: Annotated[EventChoice, typer.Argument(help="The lifecycle event: " + ", ".join(EVENTS) + ".")],
    scope: Annotated[
        ScopeChoice | None,
        typer.Option(
            "--scope",
            help="The file the entry is in (default: $OV_HOOK_SCOPE, which a project's entries set, else user); a project's answers nothing where the user's own file holds ov's hook for the event, which the host runs too.",
        ),
    ] = None,
) -> None:
    """Run one hook: read the host's JSON on stdin, answer in its format, exit 0.

    Coding agents run this on their lifecycle events (`ov install hooks` wires it in):
    session-start injects the profile, preferences and memory index; prompt-submit the
    context for the prompt; stop captures the turn; pre-compact and session-end commit the
    session. A failure is logged to $OV_HOME/logs/hooks.jsonl and answered with nothing.
    A command line this ov cannot read (a newer ov's entry) is logged there too and exits 1,
    never 2, which hosts read as "block the prompt".
    """
    from ov.hosts.host import hook_scope
    from ov.hosts.runtime import run

    environ = runtime().environ()
    answer = run(host.value, event.value, environ=environ, scope=hook_scope(scope.value if scope else None, environ))
    if answer:
        sys.stdout.write(answer + "\n")


@app.command("log", cls=OvCommand)
def log(
    host: Annotated[HostChoice | None, typer.Option("--host", help="Only this host's hooks.")] = None,
    last: Annotated[int, typer.Option("--last", "-n", min=1, help="How many of the newest records to show.")] = 20,
) -> None:
    """Show the newest hook runs and background jobs: what was injected, captured and committed, and why not.

    A prompt that got nothing says why: nothing remembered yet, nothing in the store matches,
    or its best relevance was below hooks.prompt_min_score (both numbers are shown).
    """
    from ov.hosts import hooklog

    root = runtime().home.root
    records = hooklog.read(root, host=host.value if host else None, last=last)
    emit(records, lambda: _print(records, host.value if host else None, root))


def _print(records: list[dict], host: str | None, root: Path) -> None:
    from datetime import UTC, datetime

    if not records:
        nothing(_none_ran(host, root))
        return
    def number(value) -> float:
        # The log is ov's own, but a hand edit or a damaged disk may leave any JSON in a field.
        return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) and abs(value) < 1e12 else 0.0

    for r in records:
        # In this machine's zone with its offset, as `snapshot log` gives times (the user's day).
        when = datetime.fromtimestamp(number(r.get("ts")), UTC).astimezone().isoformat(timespec="seconds")
        what = str(r.get("outcome") or "")
        uris = [str(u) for u in r["uris"]] if isinstance(r.get("uris"), list) else []
        if uris:
            what += f" {len(uris)} {'entry' if len(uris) == 1 else 'entries'}: " + ", ".join(uris[:3]) + (" …" if len(uris) > 3 else "")
        if isinstance(r.get("relevance"), (int, float)) and not isinstance(r.get("relevance"), bool):
            # what hooks.prompt_min_score is compared with: the number to tune it by
            cut = r.get("min_score")
            what += f" (best relevance {number(r['relevance']):.2f}" + (f", hooks.prompt_min_score {number(cut):g})" if cut else ")")
        if r.get("captured"):
            what += f", {counted(r['captured'], 'message')}"
        if isinstance(r.get("dropped"), int) and r["dropped"] > 0:
            # Messages the host wrote so that no session could store them: lost, and "nothing new" would hide it.
            what += f" ({counted(r['dropped'], 'malformed message')} dropped)"
        if r.get("error"):
            what += f": {r['error']}"
        if isinstance(r.get("config_warnings"), list) and r["config_warnings"]:
            what += f" ({counted(len(r['config_warnings']), 'config warning')}, see `ov doctor`)"
        if isinstance(r.get("not_text"), list) and r["not_text"]:
            left = [str(u) for u in r["not_text"]]
            what += " (memory files not UTF-8 text, left out: " + ", ".join(left[:3]) + (" …" if len(left) > 3 else "") + "; see `ov doctor`)"
        if r.get("failed"):
            what += f" (memory extraction failed, see the archive's .failed.json: {r['failed']})"
        if r.get("model_failed"):
            what += f" (the model failed, offline rules used: {r['model_failed']})"
        if isinstance(r.get("hand_edits"), list) and r["hand_edits"]:
            edits = [str(u) for u in r["hand_edits"]]
            what += " (hand edits kept and committed with the memories: " + ", ".join(edits[:3]) + (" …" if len(edits) > 3 else "") + ")"
        host, event, session = (str(r.get(key) or "-") for key in ("host", "event", "session"))
        plain(f"{when}  {host:8} {event:20} {session:24} {number(r.get('ms')):>7.0f} ms  {what}")


def _none_ran(host: str | None, root: Path) -> str:
    """What to do when the log holds no run (of ``host``): install the hooks, or, where they are
    installed already, start a session of that host (saying "install them" there sent users to
    install again what was installed)."""
    from ov.hosts import hooklog
    from ov.hosts.doctor import wired_hosts
    from ov.hosts.host import load
    from ov.wording import a

    wired = [load(h).label for h in wired_hosts(project_dir()) if host in (None, h)]
    if host and not wired:
        return f"no {host} hook has run yet: ov's hooks are not installed for {load(host).label} (`ov install hooks --host {host}` wires them)"
    if host and hooklog.read(root, last=1):
        # Installed, and other hosts' hooks ran: doctor says whether this host's would run
        # (Codex skips unreviewed hooks without a word).
        return f"no {host} hook has run yet (other hosts' have): `ov doctor` says whether {host}'s hooks would run"
    if not wired:
        return "no hook has run yet: ov's hooks are not installed for any coding agent (`ov install hooks` wires them)"
    if len(wired) == 1:
        return f"no {host or ''}{' ' if host else ''}hook has run yet; ov's hooks are installed for {wired[0]}: start {a(wired[0])} session and look again (`ov doctor` says whether they would run)"
    listed = f"{', '.join(wired[:-1])} and {wired[-1]}"
    return f"no hook has run yet; ov's hooks are installed for {listed}: start a session in one of them and look again (`ov doctor` says whether they would run)"


@install_app.command("hooks", cls=OvCommand)
def install_hooks(
    host: HostsOpt = None,
    scope: ScopeOpt = ScopeChoice.user,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask which hosts: take --host or every host found.")] = False,
    dry_run: DryRunOpt = False,
    trust: Annotated[bool, typer.Option("--trust", help="Also mark ov's Codex hooks as reviewed (Codex skips unreviewed hooks without a word), and with --scope project the project trusted in Codex's user config.toml unless marked untrusted (Codex loads no untrusted project's .codex/). With --uninstall, take out the trust an install's --trust recorded.")] = False,
    with_mcp: Annotated[bool, typer.Option("--with-mcp", help="Also register ov's MCP server (as `ov install mcp`); with --uninstall, also remove it.")] = False,
    uninstall: Annotated[bool, typer.Option("--uninstall", help="Remove ov's hooks instead (same as `ov uninstall hooks`).")] = False,
) -> None:
    """Add ov's hooks to Claude Code, Codex, Gemini CLI, Cursor and OpenCode (only ov's entries change)."""
    if uninstall:
        _uninstall(host, scope, dry_run, with_mcp, trust)
        return
    from ov.hosts import install

    environ = runtime().install_environ(scope.value)
    hosts = _chosen_hosts(host, yes)
    command = install.entry_command(scope.value)
    with _installing(dry_run):
        changes = [install.plan_install(install.spec(h, scope.value, project_dir()), command, _receipts(), environ) for h in hosts]
        if with_mcp:
            changes += [
                install.plan_mcp_install(install.mcp_spec(h, scope.value, project_dir()), command, _receipts(), along=hooks, env=environ)
                for h, hooks in zip(hosts, changes)
            ]

        def notes() -> list[str]:
            # Gates come after the files are written: Codex's review is keyed by the written entries.
            # --trust here is that review; --with-mcp's server is registered untrusted.
            return _gates(changes, trust, dry_run) + _mcp_notes(changes, trust=False)

        # --with-mcp's server is "registered", as `ov install mcp` says: Gemini's hooks and server
        # share one settings.json, and two lines "installed: …/settings.json" read as one said twice.
        verbs = {"hooks": "installed", "mcp": "registered"}
        _finish(changes, dry_run, notes, verb=verbs, report=install.command_report(scope.value, command, mcp=with_mcp, hooks=True, env=environ))


@uninstall_app.command("hooks", cls=OvCommand)
def uninstall_hooks(
    host: UninstallHostsOpt = None,
    scope: ScopeOpt = ScopeChoice.user,
    yes: UninstallYesOpt = False,
    dry_run: DryRunOpt = False,
    with_mcp: Annotated[bool, typer.Option("--with-mcp", help="Also remove ov's MCP server (as `ov uninstall mcp`).")] = False,
    trust: Annotated[bool, typer.Option("--trust", help="Also take out the Codex trust `ov install hooks --trust` recorded: its reviews of ov's hooks and the project trust it gave, where Codex still holds them as ov wrote them.")] = False,
) -> None:
    """Remove ov's hooks from the hosts: their files come back as they were before ov's entries."""
    _uninstall(host, scope, dry_run, with_mcp, trust)


@install_app.command("mcp", cls=OvCommand)
def install_mcp(
    host: HostsOpt = None,
    scope: ScopeOpt = ScopeChoice.user,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask which hosts: take --host or every host found.")] = False,
    dry_run: DryRunOpt = False,
    trust: Annotated[bool, typer.Option("--trust", help="Gemini CLI: mark ov's server trusted (headless runs offer an untrusted server no tools).")] = False,
) -> None:
    """Register ov's MCP server (`ov mcp`) with Claude Code, Codex, Gemini CLI, Cursor and OpenCode."""
    from ov.hosts import install

    environ = runtime().install_environ(scope.value)
    hosts = _chosen_hosts(host, yes)
    command = install.entry_command(scope.value)
    with _installing(dry_run):
        changes = [install.plan_mcp_install(install.mcp_spec(h, scope.value, project_dir()), command, _receipts(), trust=trust, env=environ) for h in hosts]
        report = install.command_report(scope.value, command, mcp=True, env=environ)
        _finish(changes, dry_run, lambda: _mcp_notes(changes, trust), verb="registered", report=report)


@uninstall_app.command("mcp", cls=OvCommand)
def uninstall_mcp(
    host: UninstallHostsOpt = None, scope: ScopeOpt = ScopeChoice.user, yes: UninstallYesOpt = False, dry_run: DryRunOpt = False
) -> None:
    """Remove ov's MCP server from the hosts' configs (each file comes back as it was)."""
    from ov.hosts import install

    hosts = [h.value for h in host] if host else list(install.HOSTS)
    with _installing(dry_run):
        changes = [install.plan_mcp_uninstall(install.mcp_spec(h, scope.value, project_dir()), _receipts()) for h in hosts]
        changes += _mcp_leftovers(hosts, scope)
        _finish([c for c in changes if _said(c)], dry_run, list, verb="removed")


def _mcp_leftovers(hosts: list[str], scope) -> list:
    """ov's servers where this ov does not register them now (~/.claude.json under $CLAUDE_CONFIG_DIR):
    out with every uninstall of the server. An install leaves them: this ov writes that file too,
    for the profile Claude Code reads without the variable, and cannot tell such a server from an
    earlier ov's (a review found an install under one profile taking out the other's)."""
    from ov.hosts import install

    return [change for h in hosts for change in install.plan_mcp_leftovers(h, scope.value, project_dir(), _receipts())]


def _mcp_notes(changes, trust: bool) -> list[str]:
    from ov.hosts import gates

    notes = []
    for change in changes:
        spec = change.spec
        if spec.kind != "mcp":
            continue
        # With the hooks, their gate note already says what trusting the project loads.
        hooks_said = any(c.spec.kind == "hooks" and c.spec.host == spec.host for c in changes)
        note = gates.codex_mcp_note(spec) if spec.host == "codex" and not hooks_said else None
        if note:
            notes.append(note)
        if spec.host == "gemini" and not trust:
            notes.append("gemini   offers an untrusted server's tools only after asking (headless: never): `ov install mcp --host gemini --trust` to trust ov's")
        if spec.host == "claude" and spec.scope == "project":
            notes.append("claude   asks before it starts a project's .mcp.json servers; approve ov's once (or list it in enabledMcpjsonServers)")
    return notes


def _uninstall(host, scope, dry_run: bool, with_mcp: bool, trust: bool) -> None:
    from ov.hosts import gates, install

    hosts = [h.value for h in host] if host else list(install.HOSTS)
    with _installing(dry_run):
        hooks = [install.plan_uninstall(install.spec(h, scope.value, project_dir()), _receipts()) for h in hosts]
        changes = list(hooks)
        if with_mcp:
            changes += [install.plan_mcp_uninstall(install.mcp_spec(h, scope.value, project_dir()), _receipts(), along=c) for h, c in zip(hosts, hooks)]
            changes += _mcp_leftovers(hosts, scope)
        # What --trust wrote into a host's own config, from each hooks receipt (or the record an
        # uninstall without --trust kept of it); a host ov never wired has nothing to say.
        trusts = [gates.plan_trust_removal(c, _receipts(), trust=trust, dry_run=dry_run, along=changes) for c in hooks]
        changes += [change for change, _notes in trusts if change is not None]
        notes = [note for _change, said in trusts for note in said]
        _finish([c for c in changes if _said(c)], dry_run, lambda: notes, verb="removed")


def _installing(dry_run: bool):
    """The install lock, held from the reading of the receipts to the last write (a dry run writes nothing)."""
    from contextlib import nullcontext

    from ov.hosts.receipts import install_lock

    return nullcontext() if dry_run else install_lock(_receipts())


def _said(change) -> bool:
    """Whether an uninstall's change is reported: a file there, or a receipt of a file removed by
    hand, or a record of the trust kept or dropped with it; a host ov never wired has nothing to say."""
    return change.before is not None or change.receipt is not None or change.forgotten or change.trust_kept is not None


def _chosen_hosts(host, yes: bool) -> list[str]:
    from ov.hosts import install

    if host:
        return list(dict.fromkeys(h.value for h in host))
    found = install.detect(receipts_dir=_receipts())
    if not found:
        from ov.errors import InvalidInput

        raise InvalidInput("no coding agent found on this machine", hint="name one with --host (" + ", ".join(install.HOSTS) + ")")
    if yes or sys.stdin is None or not (sys.stdin.isatty() and sys.stdout.isatty()):  # None: stdin closed
        return found
    import questionary  # Deferred: only an install on a terminal asks.

    question = questionary.checkbox("Wire ov into which hosts?", choices=[questionary.Choice(h, checked=True) for h in found])
    from prompt_toolkit.keys import Keys

    # Esc leaves the picker as Ctrl-C does; questionary binds only Ctrl-C (and swallows Esc).
    question.application.key_bindings.add(Keys.Escape, eager=True)(lambda event: event.app.exit(exception=KeyboardInterrupt))
    try:
        # unsafe_ask: Ctrl-C raises here instead of becoming a None that reads as "nothing ticked".
        picked = question.unsafe_ask()
    except KeyboardInterrupt:
        nothing("cancelled: nothing installed")
        raise typer.Exit(EXIT_INTERRUPTED) from None
    if not picked:
        nothing("no host chosen: nothing installed")
        raise typer.Exit(0)
    return picked


def _gates(changes, trust: bool, dry_run: bool) -> list[str]:
    """What the user must know (or what --trust did) about each host's own gate."""
    from ov.hosts import gates, install

    notes = []
    for change in changes:
        if change.spec.kind == "hooks":  # --with-mcp's changes are behind no hook gate (and would say it twice)
            notes.extend(gates.after_install(change.spec, _receipts(), trust=trust, dry_run=dry_run, project=project_dir()))
            twice = None if dry_run else install.runs_twice(change.spec.host, project_dir())
            if twice is not None:
                notes.append(_both_scopes(change.spec.host, twice))
    return notes


def _both_scopes(host: str, twice: bool) -> str:
    """What an install says when ov's hooks are in the host's user file and the project's: the host runs both."""
    from ov.hosts import install

    if not twice:
        silent = install.user_scope_silent(host)
        if silent is not None:
            # The project's entries answer in place of yours (the hook itself checks on each run):
            # "they defer to yours" would say the opposite of what happens.
            return f"{host:8} has ov's hooks in your file and the project's; the project's answer, not yours: {silent} (`ov doctor` says more)"
        return f"{host:8} has ov's hooks in your file and the project's: the project's defer to yours, so each event is answered once"
    if host == "opencode":
        return f"{host:8} loads ov's plugin from your folder and the project's: every event runs ov twice; keep one (ov uninstall hooks --host opencode --scope user, or --scope project)"
    return f"{host:8} has ov's hooks in your file and the project's, an older ov's without --scope project: every event runs ov twice; `ov install hooks --host {host} --scope project` makes the project's defer to yours"


def _finish(changes, dry_run: bool, notes_after, verb: str | dict[str, str], report: dict | None = None) -> None:
    """Write the changes (unless ``dry_run``) and report them, with what ``report`` adds (an
    install's command and its warnings). ``verb``: what was done to a file that changed, or that
    for each kind of change ("hooks", "mcp")."""
    from dataclasses import replace

    from ov.hosts import install

    # One entry per file: Gemini's hooks and server are one settings.json, Codex's server and the
    # trust --trust wrote one config.toml; their changes write the same bytes, listed twice before.
    by_file: dict[str, list] = {}
    for c in changes:
        by_file.setdefault(str(c.spec.path), []).append(c)
    payload = [
        {
            "host": same[0].spec.host,
            "scope": same[0].spec.scope,
            "file": file,
            "changed": any(c.changed for c in same),
            "what": list(dict.fromkeys(c.spec.kind for c in same)),  # what of ov's it took in or gave up: hooks, mcp, trust
            **({"action": action} if (action := next((c.action for c in same if c.action), None)) else {}),
            **({"diff": replace(same[0], after=same[-1].after).diff()} if dry_run else {}),
        }
        for file, same in by_file.items()
    ]
    if dry_run:
        # What the writing would add (a backup left beside a file removed): a dry run says it too.
        for change in changes:
            change.notes.extend(install.notes_of_apply(change, _receipts()))
    else:
        for change in changes:
            install.apply(change, _receipts())
    # Once each: Gemini's hooks and server leave one settings.json, and each change says its backup stays.
    notes = list(dict.fromkeys(note for change in changes for note in change.notes)) + notes_after()
    result = {"dry_run": dry_run, "files": payload, "notes": notes, **(report or {})}

    def said(change) -> str:
        if dry_run:
            return change.diff() or f"{change.spec.path}: no change"
        done = verb if isinstance(verb, str) else verb[change.spec.kind]
        return f"{change.spec.host:9} {change.action or (done if change.changed else 'unchanged')}: {change.spec.path}"

    def human() -> None:
        # Once each, as the notes: Gemini's hooks and server are one settings.json, which an
        # uninstall --with-mcp removes from twice ("gemini removed: ..." came twice).
        for line in dict.fromkeys(said(change) for change in changes):
            plain(line)
        for note in notes:
            plain(note)
        for warning in result.get("warnings", []):
            warn(warning)

    emit(result, human)


def project_dir():
    from pathlib import Path

    cwd = Path.cwd()
    return next((p for p in (cwd, *cwd.parents) if (p / ".git").exists()), cwd)


def _receipts():
    return runtime().home.root / "installs"
