"""Portability commands: export, import, backup, restore (OVPack v3 files; the logic is in ov.ovpack.transfer)."""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Annotated

import typer

from ov.cli.output import emit, plain, warn
from ov.cli.progress import progress_bar
from ov.cli.runtime import OvCommand, ReadCommand, runtime
from ov.errors import EXIT_INCOMPLETE
from ov.wording import counted


def _in_existing_folder(file: Path) -> Path:
    # A missing local folder is the caller's mistake (exit 2), as a missing input file is.
    if not file.parent.is_dir():
        raise typer.BadParameter(f"the folder {file.parent} does not exist")
    return file


# Local paths that do not exist are bad input, checked while the command line is parsed.
PackArg = Annotated[Path, typer.Argument(help="An .ovpack file.", show_default=False, exists=True, dir_okay=False)]
NewPackArg = Annotated[Path, typer.Argument(help="The .ovpack file to write.", show_default=False, callback=_in_existing_folder)]


class OnConflictChoice(str, Enum):
    fail = "fail"
    overwrite = "overwrite"
    skip = "skip"


class VectorModeChoice(str, Enum):
    auto = "auto"
    recompute = "recompute"
    require = "require"


OnConflictOpt = Annotated[
    OnConflictChoice,
    typer.Option("--on-conflict", help="When the target exists: fail, overwrite (replace), or skip (keep what is there)."),
]
VectorModeOpt = Annotated[
    VectorModeChoice,
    typer.Option(
        "--vector-mode",
        help="The index embeds imported records again in every mode (it keeps a vector per passage). "
        "auto: take any pack; recompute: ignore its vectors; require: refuse unless they match this store's embedder.",
    ),
]
VectorsOpt = Annotated[
    bool, typer.Option("--include-vectors", help="Also pack the vectors of the current embedder (dense.f32 with its fingerprint).")
]


def _files(n: int) -> str:
    return f"{n} file{'' if n == 1 else 's'}"


def register(app: typer.Typer) -> None:
    app.command("export", cls=ReadCommand)(export)
    app.command("import", cls=OvCommand)(import_)
    app.command("backup", cls=ReadCommand)(backup)
    app.command("restore", cls=OvCommand)(restore)


def export(
    uri: Annotated[str, typer.Argument(help="The viking:// directory to export.", show_default=False)],
    file: NewPackArg,
    include_vectors: VectorsOpt = False,
) -> None:
    """Export a committed subtree to an .ovpack file (OVPack v3).

    A file no import takes (not UTF-8 text, a symbolic link, ...) is left out and named on stderr;
    the exit code is then 3, written but incomplete."""
    from ov.ovpack import transfer

    store = runtime().store
    with progress_bar() as progress:
        result = transfer.export(store, store.uri(uri), file, include_vectors=include_vectors, progress=progress)
    vectors = f", {result.vectors} vectors" if result.vectors else ""
    _say_uncommitted(result)
    _say_oversized(result)
    _say_left_out(result)
    emit(result.to_dict(), lambda: plain(f"exported {result.uri} to {result.file} ({_files(result.files)}, {result.bytes} bytes{vectors})"))
    _exit_if_incomplete(result)


def import_(
    file: PackArg,
    parent: Annotated[str, typer.Argument(help="The viking:// directory to import into (the pack's root goes below it).", show_default=False)],
    on_conflict: OnConflictOpt = OnConflictChoice.fail,
    vector_mode: VectorModeOpt = VectorModeChoice.auto,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Only list what would be written, replaced and deleted; change nothing.")] = False,
) -> None:
    """Import an .ovpack file under a parent URI, as one commit (everything is checked first)."""
    from ov.ovpack import transfer

    store = runtime().store
    with progress_bar() as progress:
        result = transfer.import_pack(
            store, file, store.uri(parent), on_conflict=on_conflict.value, vector_mode=vector_mode.value, dry_run=dry_run, progress=progress
        )

    def human() -> None:
        if result.action == "skipped":
            plain(f"{'would skip' if dry_run else 'skipped'}: {result.uri} already exists (nothing written)")
        elif result.action == "unchanged":
            plain(f"unchanged: {result.uri} already holds what the pack holds (nothing {'would be ' if dry_run else ''}written)")
        elif dry_run:
            for verb, uris in (("would write", result.written), ("would replace", result.replaced), ("would delete", result.removed)):
                for uri in uris:
                    plain(f"{verb} {uri}")
            plain(f"would be {result.action} as {result.uri} ({_files(result.files)}, {result.bytes} bytes; nothing changed: --dry-run)")
        else:
            # Files only the target had are gone with an overwrite: said, not only in --json.
            deleted = f"; deleted {_files(result.deleted)} the pack does not hold" if result.deleted else ""
            plain(f"{result.action} {result.uri} ({_files(result.files)}, {result.bytes} bytes{deleted}; vectors {result.vectors})")
        _say_shortened(result)

    emit(result.to_dict(), human)


def backup(file: NewPackArg, include_vectors: VectorsOpt = False) -> None:
    """Write every committed file of the account (all scopes, all users) to an .ovpack file.

    The files as the last commit holds them; the history stays behind (`ov push` carries it). A
    file no restore takes (not UTF-8 text, a symbolic link, ...) is left out and named on stderr,
    and the rest written: the exit code is then 3, written but incomplete."""
    from ov.ovpack import transfer

    with progress_bar() as progress:
        result = transfer.backup(runtime().store, file, include_vectors=include_vectors, progress=progress)
    _say_uncommitted(result)
    _say_left_out(result)
    emit(result.to_dict(), lambda: plain(f"backed up {_files(result.files)} ({result.bytes} bytes) to {result.file}"))
    _exit_if_incomplete(result)


def restore(
    file: PackArg,
    on_conflict: Annotated[
        OnConflictChoice,
        typer.Option(
            "--on-conflict",
            help="When a file exists with other content: fail, overwrite (replace it; files only here are kept), or skip (keep it).",
        ),
    ] = OnConflictChoice.fail,
    vector_mode: VectorModeOpt = VectorModeChoice.auto,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Only list what would be written and replaced; change nothing.")] = False,
) -> None:
    """Restore a backup .ovpack into this account, as one commit (everything is checked first)."""
    from ov.ovpack import transfer

    with progress_bar() as progress:
        result = transfer.restore(runtime().store, file, on_conflict=on_conflict.value, vector_mode=vector_mode.value, dry_run=dry_run, progress=progress)
    kept = f", {result.kept} kept as they were" if result.kept else ""

    def human() -> None:
        if result.action == "unchanged":
            plain(f"unchanged: nothing to restore ({_files(result.kept)} already there, kept as they were)")
        elif dry_run:
            for verb, uris in (("would write", result.written), ("would replace", result.replaced)):
                for uri in uris:
                    plain(f"{verb} {uri}")
            plain(f"would restore {_files(result.files)} ({result.bytes} bytes){kept}; nothing changed: --dry-run")
        else:
            plain(f"restored {_files(result.files)} ({result.bytes} bytes){kept}")
        _say_shortened(result)

    emit(result.to_dict(), human)


def _say_uncommitted(result) -> None:
    if result.uncommitted:
        warn(
            f"{counted(result.uncommitted, 'file')} changed by hand and not committed "
            f"{'is' if result.uncommitted == 1 else 'are'} not in the pack as changed (see `ov status`; "
            "record them with `ov snapshot commit`, then write the pack again)"
        )


def _say_left_out(result) -> None:
    for left_out in result.left_out:
        warn(left_out.message)
    if result.left_out:
        warn(f"the pack was written without {counted(len(result.left_out), 'file')} (exit code {EXIT_INCOMPLETE}); it restores everything else")


def _exit_if_incomplete(result) -> None:
    if result.left_out:
        raise typer.Exit(EXIT_INCOMPLETE)


def _say_oversized(result) -> None:
    if result.oversized:
        from ov.files import size_hint

        largest = max(f["bytes"] for f in result.oversized)
        shown = ", ".join(f"{f['uri']} ({f['bytes']} bytes)" for f in result.oversized[:3])
        more = f" (+{len(result.oversized) - 3} more)" if len(result.oversized) > 3 else ""
        warn(f"over store.max_file_bytes: {shown}{more}; a store imports them only after {size_hint(largest)}")


def _say_shortened(result) -> None:
    if result.shortened:
        warn(f"{counted(result.shortened, 'summary', 'summaries')} shortened to the layer's limit (L0 256, L1 4,000 characters)")
