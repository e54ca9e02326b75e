"""Store administration: init, status, version."""

from __future__ import annotations

import platform
from typing import Annotated

import typer

from ov import __version__
from ov.cli.output import emit, nothing, plain, short
from ov.cli.runtime import OvCommand, ReadCommand, runtime
from ov.uri import SCHEME
from ov.wording import counted


def register(app: typer.Typer) -> None:
    for func in (init, status, usage, version):
        app.command(cls=ReadCommand if func in (status, usage) else OvCommand)(func)


def init() -> None:
    """Create the account's store (a git repository) if it does not exist yet."""
    rt = runtime()
    store = rt.store
    created = store.init()
    payload = {"account": rt.identity.account, "path": str(store.root), "created": created}
    verb = "created" if created else "already exists:"
    emit(payload, lambda: plain(f"{verb} account store {rt.identity.account!r} at {store.root}"))


def status() -> None:
    """Show the store, the identity in use, edits made by hand outside ov, and pull conflicts."""
    from ov.health import notebooks
    from ov.history import remotes
    from ov.store.treepaths import shown

    rt = runtime()
    report = rt.store.status()
    changes = report.changes
    payload = {
        "home": str(rt.home.root),
        "account": rt.identity.account,
        "user": rt.identity.user,
        "peer": rt.identity.peer,
        "repository": str(rt.store.root),
        "exists": rt.store.exists,
        "head": report.head.decode() if report.head else None,
        "clean": changes.clean,
        # URIs, as the human output and every other command speak; ignored files lie outside
        # the scopes, so they have no URI and stay work-tree paths.
        "modified": [_uri(p) for p in changes.modified],
        "added": [_uri(p) for p in changes.added],
        "deleted": [_uri(p) for p in changes.deleted],
        # Among the deleted: paths HEAD holds that ov never writes (see WorktreeChanges.unsafe).
        "unsafe": [{"path": shown(p), "problem": why} for p, why in sorted(changes.unsafe.items())],
        "ignored": [shown(p) for p in changes.ignored],
        # Folders holding a git repository of their own (a submodule's, a clone): not looked into.
        "repositories": [shown(p) for p in changes.repositories],
        "recovered": report.recovered,
        "read_only": report.read_only,
        "conflicts": [_uri(p) for p in remotes.conflicts(rt.store)] if rt.store.exists else [],
        # Changed here, deleted on the remote: the last pull kept ours; listed until it changes again.
        "kept_deleted_there": [_uri(p) for p in remotes.kept_conflicts(rt.store)] if rt.store.exists else [],
        # Searched and shown as JSON until added again; `ov fsck` names them and the add that converts them.
        "notebooks_as_json": [_uri(p) for p in notebooks.at_head(rt.store.git, changes.committed)] if report.head else [],
    }

    def human() -> None:
        plain(f"account {rt.identity.account}  user {rt.identity.user}" + (f"  peer {rt.identity.peer}" if rt.identity.peer else ""))
        plain(f"repository {rt.store.root}")
        if not rt.store.exists:
            nothing("no store yet: the first write creates it (or run `ov init`)")
            return
        plain(f"head {short(payload['head'])}")
        if report.recovered:
            plain(f"recovered: {report.recovered}")
        if report.read_only:
            plain(f"read-only: {report.read_only} (nothing recovered or cleaned up)")
        # Paths HEAD holds that ov never writes are among the deleted, but no hand made them.
        edits = [(label, path) for label, paths in (("modified", changes.modified), ("added", changes.added), ("deleted", changes.deleted)) for path in paths if path not in changes.unsafe]
        if changes.clean:
            plain("work tree clean: no hand edits")
        elif edits:
            plain("hand edits not yet committed (keep them with `ov snapshot commit -m MESSAGE`):")
            for label, path in edits:
                plain(f"  {label:9} {_uri(path)}")
        else:
            plain("no hand edits; HEAD holds paths ov never writes (taken in by a pull before pulls were checked, or committed with plain git):")
        for path, why in sorted(changes.unsafe.items()):
            # Never written, so "deleted"; what lies at the place it names is not the store's.
            plain(f"  unsafe    {shown(path)} (HEAD holds it but ov never writes it: {why}; `ov snapshot commit -m MESSAGE` drops it from HEAD)")
        for path in changes.ignored:
            plain(f"  ignored   {shown(path)} (no viking:// URI can name it: outside the scopes, or an odd name)")
        for path in changes.repositories:
            plain(f"  ignored   {shown(path)} (a git repository of its own, a submodule's or a clone: ov does not look into it)")
        for uri in payload["conflicts"]:
            plain(f"  conflict  {uri} (the remote's version from `ov pull`: merge what you need, then `ov rm` it)")
        for uri in payload["kept_deleted_there"]:
            plain(f"  conflict  {uri} (changed here, deleted on the remote: `ov pull` kept it; `ov rm` it if the deletion should win)")
        if as_json := payload["notebooks_as_json"]:
            plain(f"note: {counted(len(as_json), 'notebook')} stored as JSON by an older ov, searched and shown as JSON (`ov fsck` names them and the add that stores them as Markdown)")

    emit(payload, human)


def _uri(path: str) -> str:
    # Not parsed: a file made by hand may have a name no URI allows, and status must still list it
    # (a name HEAD holds that is not UTF-8 with its bytes escaped).
    from ov.store.treepaths import shown

    return SCHEME + shown(path)


def usage(
    days: Annotated[float | None, typer.Option("--days", min=0, help="Only the last N days.")] = None,
) -> None:
    """Show the LLM calls and tokens ov has spent for this account."""
    import time

    from ov.llm import usage as usage_log

    rt = runtime()
    since = time.time() - days * 86400 if days is not None else None
    rows = usage_log.totals(rt.store.state, since)

    def human() -> None:
        if not rows:
            nothing("no LLM calls recorded" + ("" if rt.loaded_config.config.llm.enabled else " (no llm.model configured: ov runs offline)"))
            return
        for key, row in sorted(rows.items(), key=lambda kv: (kv[0] == "all", kv[0])):
            cancelled = f" ({row['cancelled']} cancelled, cost unknown)" if row.get("cancelled") else ""
            plain(f"{key:40} {row['calls']:6} calls {row['prompt_tokens']:10} prompt {row['completion_tokens']:10} completion tokens{cancelled}")

    emit(rows, human)


# What a bug report needs: the CLI stack, the store, and what retrieval, ingest and LLMs run on.
LIBRARIES = ("typer", "click", "rich", "dulwich", "pydantic", "pyyaml", "tantivy", "hnswlib", "numpy", "model2vec", "pypdf", "litellm")


def version() -> None:
    """Show the versions of ov, Python, the platform and the libraries ov stands on."""
    # Read from the installed packages' metadata: importing tantivy, numpy or litellm to ask
    # would take seconds.
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as dist_version

    libs = {}
    for name in LIBRARIES:
        try:
            libs[name] = dist_version(name)
        except PackageNotFoundError:
            libs[name] = None
    payload = {"ov": __version__, "python": platform.python_version(), "platform": platform.platform(), "libraries": libs}

    def human() -> None:
        plain(f"ov {__version__}")
        plain(f"python {payload['python']} on {payload['platform']}")
        for name, found in libs.items():
            plain(f"{name} {found or 'not installed'}")

    emit(payload, human)
