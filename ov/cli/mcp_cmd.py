"""``ov mcp``: the MCP server over stdio; ``ov plugin build``: ov as an Agent Plugins package (the logic is in ov.mcp)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ov import __version__
from ov.cli.output import emit, plain
from ov.cli.runtime import FLAG_VARIABLES, OvCommand, OvGroup, ServerCommand, runtime

plugin_app = typer.Typer(cls=OvGroup, help="ov as an Agent Plugins package, for hosts that install plugins (Codex).", no_args_is_help=True)


def register(root: typer.Typer) -> None:
    root.command("mcp", cls=ServerCommand)(mcp)
    root.add_typer(plugin_app, name="plugin")


def mcp() -> None:
    """Serve ov's tools to a model over MCP (stdio): find, search, read, remember and more.

    Hosts start this themselves (`ov install mcp` registers it); it speaks only MCP on stdout
    and logs to $OV_HOME/logs/mcp.jsonl. --account, --user and --peer choose the identity its
    tools act as, as for every command.
    """
    from ov.identity import validate_id
    from ov.mcp.server import main

    flags = {k: v for k, v in runtime().flags.items() if v}
    for field, value in flags.items():
        validate_id(value, field)  # before serving: a host shows what a server that never started said
    raise typer.Exit(main(flags))


@plugin_app.command("build", cls=OvCommand)
def plugin_build(
    out: Annotated[Path, typer.Option("--out", help="The folder to write: new, empty, or an earlier package (which is replaced).", show_default=False)],
) -> None:
    """Write an Agent Plugins 1.0 package: ov's MCP server and a skill that teaches recall and remember.

    The package holds plugin.json, mcp.json, skills/ov-memory/SKILL.md and bin/ov, a launcher
    that starts this ov (build the package again if ov moves) with the ov home and the identity
    (--account, --user, --peer) set here, as `ov install` pins them. Install it through the host's
    plugin marketplace, e.g. Codex: list it in a local .agents/plugins/marketplace.json, then
    `codex plugin marketplace add DIR` and `codex plugin add ov@MARKETPLACE`.
    """
    from ov.hosts.ovcommand import ov_command, server_env
    from ov.mcp import plugin

    # What an install pins into a user's entries (the ov home, --account, --user, --peer), the
    # launcher carries: the host starts the package's server without them. What the options
    # name is fixed; what came from this environment a default the host's may override.
    fixed = [name for field, name in FLAG_VARIABLES if runtime().flags.get(field)]
    written = plugin.build(out, ov_command(), server_env(runtime().install_environ()), fixed)
    root = written[0].parent
    result = {"out": str(root), "files": [str(p.relative_to(root)) for p in written], "version": __version__}
    emit(result, lambda: plain(f"wrote the ov plugin package ({len(written)} files) to {root}"))


