"""``ov mcp``: the MCP server over stdio (the logic is in ov.mcp)."""

from __future__ import annotations

import typer

from ov.cli.runtime import OvCommand, runtime


def register(root: typer.Typer) -> None:
    root.command("mcp", cls=OvCommand)(mcp)


def mcp() -> None:
    """Serve ov's tools to a model over MCP (stdio): find, search, read, remember and more.

    Hosts start this themselves (`ov install mcp` registers it); it speaks only MCP on stdout
    and logs to $OV_HOME/logs/mcp.jsonl. --account, --user and --peer choose the identity its
    tools act as, as for every command.
    """
    from ov.mcp.server import main

    raise typer.Exit(main({k: v for k, v in runtime().flags.items() if v}))
