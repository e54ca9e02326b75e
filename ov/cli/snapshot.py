"""``ov snapshot``: history of the store."""

from __future__ import annotations

from typing import Annotated

import typer

from ov.cli.output import emit, plain, short
from ov.cli.runtime import OvCommand, OvGroup, runtime

app = typer.Typer(cls=OvGroup, help="Record and inspect the store's history.", no_args_is_help=True)


@app.command("commit", cls=OvCommand)
def snapshot_commit(
    message: Annotated[str, typer.Option("-m", "--message", help="What the hand edits were.", show_default=False)],
) -> None:
    """Record edits made by hand in the work tree as one commit (nothing to do when clean)."""
    result = runtime().store.snapshot_commit(message)
    payload = {"command": result.command, "uris": list(result.uris), "commit": result.commit, "changed": result.changed}
    if result.changed:
        text = f"committed {len(result.uris)} hand-edited path(s) (commit {short(result.commit)})"
    else:
        text = "work tree clean: nothing to commit"
    emit(payload, lambda: plain(text))
