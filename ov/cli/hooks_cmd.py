"""Host commands: ``ov hook`` (what coding agents run), ``ov hooks log``."""

from __future__ import annotations

import os
import sys
from enum import Enum
from typing import Annotated

import typer

from ov.cli.output import emit, plain
from ov.cli.runtime import OvCommand, OvGroup, runtime
from ov.hosts.host import EVENTS, HOST_MODULES

HostChoice = Enum("HostChoice", {name: name for name in HOST_MODULES}, type=str)
EventChoice = Enum("EventChoice", {name.replace("-", "_"): name for name in EVENTS}, type=str)

app = typer.Typer(cls=OvGroup, help="What ov's hooks did: recall injected, turns captured, sessions committed.", no_args_is_help=True)


def register(root: typer.Typer) -> None:
    root.command("hook", cls=OvCommand)(hook)
    root.add_typer(app, name="hooks")


def hook(
    host: Annotated[HostChoice, typer.Argument(help="The coding agent calling: " + ", ".join(HOST_MODULES) + ".")],
    event: Annotated[EventChoice, typer.Argument(help="The lifecycle event: " + ", ".join(EVENTS) + ".")],
) -> None:
    """Run one hook: read the host's JSON on stdin, answer in its format, always exit 0.

    Coding agents run this on their lifecycle events (`ov install hooks` wires it in):
    session-start injects the profile, preferences and memory index; prompt-submit the
    context for the prompt; stop captures the turn; pre-compact and session-end commit the
    session. A failure is logged to $OV_HOME/logs/hooks.jsonl and answered with nothing.
    """
    from ov.hosts.runtime import MAX_STDIN, run

    flags = runtime().flags
    environ = dict(os.environ)
    for field, name in (("account", "OV_ACCOUNT"), ("user", "OV_USER"), ("peer", "OV_PEER")):
        if flags.get(field):
            environ[name] = flags[field]
    answer = run(host.value, event.value, sys.stdin.buffer.read(MAX_STDIN + 1), environ)
    if answer:
        sys.stdout.write(answer + "\n")


@app.command("log", cls=OvCommand)
def log(
    host: Annotated[HostChoice | None, typer.Option("--host", help="Only this host's hooks.")] = None,
    last: Annotated[int, typer.Option("--last", "-n", min=1, help="How many of the newest records to show.")] = 20,
) -> None:
    """Show the newest hook runs and background jobs: what was injected, captured and committed, and why not."""
    from ov.hosts import hooklog

    records = hooklog.read(runtime().home.root, host=host.value if host else None, last=last)
    emit(records, lambda: _print(records))


def _print(records: list[dict]) -> None:
    import time

    if not records:
        plain("no hook has run yet (install them with `ov install hooks`)")
        return
    for r in records:
        when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(r.get("ts", 0)))
        what = r.get("outcome", "")
        if r.get("uris"):
            what += f" {len(r['uris'])} entries: " + ", ".join(r["uris"][:3]) + (" …" if len(r["uris"]) > 3 else "")
        if r.get("captured"):
            what += f", {r['captured']} messages"
        if r.get("error"):
            what += f": {r['error']}"
        plain(f"{when}  {r.get('host') or '-':8} {r.get('event', ''):20} {r.get('session') or '-':24} {r.get('ms', 0):>7.0f} ms  {what}")
