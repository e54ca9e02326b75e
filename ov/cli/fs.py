"""Filesystem commands: ls, tree, stat, read, write, edit, mkdir, rm, mv, abstract, overview, grep, glob."""

from __future__ import annotations

import dataclasses
import shlex
import sys
from enum import Enum
from pathlib import Path
from typing import Annotated

import typer

from ov.cli.output import emit, note, plain, short, styled
from ov.cli.progress import progress_bar
from ov.cli.runtime import GrepCommand, OvCommand, ReadCommand, runtime, standard_input
from ov.errors import InvalidInput, quote
from ov.lines import lines_of
from ov.store.store import CommitResult, Entry, TreeNode, parse_line_range
from ov.wording import counted

UriArg = Annotated[str, typer.Argument(help="A viking:// URI.", show_default=False)]
DirArg = Annotated[str, typer.Argument(help="A viking:// directory URI.")]


class WriteModeChoice(str, Enum):
    replace = "replace"
    append = "append"
    create = "create"


def register(app: typer.Typer) -> None:
    reads = (ls, tree, stat, read, abstract, overview, grep, glob)
    for func in (ls, tree, stat, read, write, edit, mkdir, rm, mv, abstract, overview, grep, glob):
        # write takes the words after its URI only to refuse them with the fix (see write).
        settings = {"allow_extra_args": True} if func is write else {}
        cls = GrepCommand if func is grep else ReadCommand if func in reads else OvCommand
        app.command(cls=cls, context_settings=settings)(func)


# --- reading -----------------------------------------------------------------


def ls(
    uri: DirArg = "viking://",
    recursive: Annotated[bool, typer.Option("-r", "--recursive", help="List everything below, depth first.")] = False,
    show_all: Annotated[bool, typer.Option("-a", "--all", help="Include hidden files such as .abstract.md sidecars.")] = False,
    simple: Annotated[bool, typer.Option("--simple", help="Print URIs only, one per line.")] = False,
) -> None:
    """List a directory."""
    store = runtime().store
    base = store.uri(uri)
    entries = store.ls(base, recursive=recursive, show_all=show_all)

    def human() -> None:
        if simple or not styled():
            for e in entries:
                plain(e.uri + ("/" if e.is_dir and not simple else ""))
            return
        _entries_table(entries, recursive)

    emit([dataclasses.asdict(e) for e in entries], human)
    _others_left_out(store, "ov ls")


def tree(
    uri: DirArg = "viking://",
    level: Annotated[int | None, typer.Option("-L", "--level", min=1, help="Descend at most this many levels.")] = None,
    show_all: Annotated[bool, typer.Option("-a", "--all", help="Include hidden files such as sidecars.")] = False,
) -> None:
    """Show a directory and everything below it as a tree."""
    store = runtime().store
    base = store.uri(uri)
    root = store.tree(base, depth=level, show_all=show_all)

    def human() -> None:
        if styled():
            from rich.text import Text
            from rich.tree import Tree

            def add(branch, node: TreeNode) -> None:
                for child in node.children:
                    label = Text(child.name + ("/" if child.type == "directory" else ""), style="bold blue" if child.type == "directory" else "")
                    sub = branch.add(label)
                    add(sub, child)
                if node.truncated:
                    branch.add(Text("…", style="dim"))

            top = Tree(Text(root.uri, style="bold"))
            add(top, root)
            from ov.cli.output import console

            console().print(top, soft_wrap=False)  # a tree lays out its names: each folds within its guides
        else:
            plain(root.uri)
            for line in _tree_lines(root, ""):
                plain(line)

    emit(_tree_dict(root), human)
    _others_left_out(store, "ov tree")


def stat(uri: UriArg) -> None:
    """Show what a URI is: type, size, lines, time, whether it is committed, and a memory's created/updated times and sources."""
    from ov.ingest.resource import stat_with_source
    from ov.sessions.memory_fields import memory_fields

    store = runtime().store
    info = stat_with_source(store, store.uri(uri))
    if info["type"] == "file" and (memory := memory_fields(store, store.uri(uri))):
        info |= memory  # when it was written and corrected, and from what: the mtime is the checkout's

    def human() -> None:
        width = max(len(k) for k in info)
        for key, value in info.items():
            plain(f"{key.ljust(width)}  {_show(value)}")

    emit(info, human)
    _others_left_out(store, "ov stat")


def read(
    uri: UriArg,
    lines: Annotated[str | None, typer.Option("--lines", "-l", help="Line range: START:END, START:, :END or N (1-based, inclusive; a line ends at a newline, as git counts). No negative lines: `| tail -n N` gives the last N.")] = None,
    numbers: Annotated[bool, typer.Option("-n", "--line-numbers", help="Prefix each line with its number.")] = False,
) -> None:
    """Print a file's content (L2), or a range of its lines."""
    store = runtime().store
    start, end = parse_line_range(lines)
    result = store.read(store.uri(uri), start, end)

    def human() -> None:
        if numbers:
            width = len(str(result.end_line))
            for offset, line in enumerate(lines_of(result.content)):
                sys.stdout.write(f"{str(result.start_line + offset).rjust(width)}  {line}\n")
        else:
            sys.stdout.write(result.content)
        sys.stdout.flush()

    emit(dataclasses.asdict(result), human)


def abstract(uri: UriArg) -> None:
    """Print a directory's abstract (L0, the .abstract.md body)."""
    store = runtime().store
    text = store.abstract(store.uri(uri))
    emit({"uri": str(store.uri(uri)), "abstract": text}, lambda: plain(text))


def overview(uri: UriArg) -> None:
    """Print a directory's overview (L1, the .overview.md body)."""
    store = runtime().store
    text = store.overview(store.uri(uri))
    emit({"uri": str(store.uri(uri)), "overview": text}, lambda: plain(text))


def grep(
    pattern: Annotated[str, typer.Argument(help="A regular expression (Python syntax).")],
    uri: Annotated[str, typer.Option("--uri", "-u", help="Search below this URI.")] = "viking://",
    ignore_case: Annotated[bool, typer.Option("-i", "--ignore-case", help="Match without regard to case.")] = False,
    show_all: Annotated[bool, typer.Option("-a", "--all", help="Search hidden files such as sidecars too.")] = False,
    max_count: Annotated[int | None, typer.Option("--max", "-m", min=1, help="Stop after this many matching lines.")] = None,
) -> None:
    """Search file contents line by line with a regular expression.

    Prints each matching line as it finds it (--json: one list at the end). A pattern stuck on one
    file for 10 s (nested repeats such as (a|aa)+) is stopped with an error.

    Exits like grep(1) and rg: 0 when a line matches, 1 when none does (with --json, after printing
    the empty list), 2 on any error (a bad pattern, a --uri that does not exist, a store it cannot read).
    """
    from ov.retrieval.grep import grep as run_grep

    store = runtime().store
    base = store.uri(uri)
    matches = run_grep(store, pattern, base, ignore_case=ignore_case, show_all=show_all, limit=max_count)
    if runtime().json:
        found = [dataclasses.asdict(m) for m in matches]
        emit(found, lambda: None)  # one JSON document: the matches are collected first
    else:
        # Each line as it is found, as grep(1) prints: `ov grep X | head -1` ends at the first
        # match, and a broad pattern over a large store does not hold every match in memory.
        found = _print_matches(matches)
    _others_left_out(store, "ov grep PATTERN --uri")
    if not found:
        raise typer.Exit(1)  # as grep(1) does: a script can write `if ov grep PATTERN; then`


def _print_matches(matches) -> int:
    """Print each match of ``ov grep`` as the walk finds it; how many there were."""
    count = 0
    out = None
    if styled():
        from rich.text import Text

        from ov.cli.output import console

        out = console()
    for m in matches:
        if out is not None:
            out.print(Text.assemble((m.uri, "magenta"), ":", (str(m.line), "green"), ":", m.text))
        else:
            plain(f"{m.uri}:{m.line}:{m.text}")
        count += 1
    return count


def glob(
    pattern: Annotated[str, typer.Argument(help="A path pattern: * within a segment, ** across segments, ? one character.")],
    uri: Annotated[str, typer.Option("--uri", "-u", help="Match paths relative to this URI.")] = "viking://",
    show_all: Annotated[bool, typer.Option("-a", "--all", help="Match hidden files too.")] = False,
) -> None:
    """Find files and directories whose path matches a pattern."""
    from ov.retrieval.grep import glob as run_glob

    store = runtime().store
    base = store.uri(uri)
    matches = run_glob(store, pattern, base, show_all=show_all)
    emit(matches, lambda: [plain(m) for m in matches])
    _others_left_out(store, "ov glob PATTERN --uri")


def _others_left_out(store, command: str) -> None:
    """Say on stderr how many other users' spaces the store's listing or walk left out (as it
    recorded them), and how to include one: at the terminal, naming it is allowed."""
    left = store.left_out
    if left:
        names = ", ".join(u.name for u in left[:3]) + (", ..." if len(left) > 3 else "")
        spaces = counted(len(left), "other user's space", "other users' spaces")
        note(f"{spaces} left out ({names}); name one to include it: {command} viking://user/{left[0].name}")


# --- writing -----------------------------------------------------------------


def write(
    uri: UriArg,
    content: Annotated[str | None, typer.Option("--content", "-c", help="The text to write.")] = None,
    from_file: Annotated[Path | None, typer.Option("--from-file", "-f", help="Read the text from this file ('-': standard input).")] = None,
    mode: Annotated[WriteModeChoice, typer.Option("--mode", help="replace the file, append to it, or create it (fails if it exists).")] = WriteModeChoice.replace,
    ctx: typer.Context = None,
) -> None:
    """Write a file from --content, --from-file or standard input (one commit)."""
    if ctx is not None and ctx.args:
        # `ov write URI "text"` is an easy slip, and click's "unexpected extra argument" only
        # pointed at the whole help: the fix is --content.
        raise InvalidInput(
            f"the text to write goes in --content, not after the URI (got {quote(' '.join(ctx.args), 40)})",
            hint=f"`ov write {shlex.quote(uri)} --content TEXT`, or --from-file FILE, or the text on standard input",
        )
    data = _content_bytes(content, from_file)
    store = runtime().store
    result = store.write(store.file_uri(uri), data, mode.value)
    _report(result, f"wrote {result.uris[0]}")


def edit(
    uri: UriArg,
    old: Annotated[str, typer.Option("--old", help="The exact text to replace.", show_default=False)],
    new: Annotated[str, typer.Option("--new", help="The replacement text.", show_default=False)],
    replace_all: Annotated[bool, typer.Option("--all", help="Replace every occurrence (otherwise it must occur once).")] = False,
) -> None:
    """Replace exact text in a file (one commit)."""
    store = runtime().store
    result, count = store.edit(store.uri(uri), old, new, replace_all=replace_all)
    _report(result, f"edited {result.uris[0]} ({counted(count, 'replacement')})", replacements=count)


def mkdir(
    uri: UriArg,
    description: Annotated[str | None, typer.Option("--description", "-d", help="The directory's abstract (L0), at most 256 characters.")] = None,
) -> None:
    """Create a directory with its .abstract.md sidecar (one commit)."""
    store = runtime().store
    result = store.mkdir(store.uri(uri), description)
    _report(result, f"created {result.uris[0]}/")


def rm(
    uri: UriArg,
    recursive: Annotated[bool, typer.Option("-r", "--recursive", help="Remove a directory and everything in it.")] = False,
) -> None:
    """Remove a file, or a directory with -r (one commit; history keeps it).

    The summaries (L0/L1) that add-resource generated for the directories above it are written
    again in the same commit, so they stop naming what is gone; a directory left with nothing but
    its generated summaries goes too. Summaries written or edited by hand are left as they are.
    They are written by the offline summariser, even with an LLM configured: the store stays
    locked while rm runs, and other sessions' hooks would wait for the model.
    """
    from ov.ingest.resource import remove

    store = runtime().store
    with progress_bar() as progress:
        result = remove(store, store.uri(uri), recursive=recursive, progress=progress)
    _report(result, f"removed {result.uris[0]}")


def mv(
    source: Annotated[str, typer.Argument(help="The URI to move.", show_default=False)],
    target: Annotated[str, typer.Argument(help="The new URI, which must not exist; ending in '/', the folder to move it into.", show_default=False)],
) -> None:
    """Move or rename a file or directory (one commit).

    As for rm, the generated summaries above the source and the target, and a moved directory's
    own (its title is its name), are written again in the same commit.
    """
    from ov.ingest.resource import move

    store = runtime().store
    moved = store.uri(source)
    destination = store.uri(target) if target.endswith("/") else store.move_target(moved, target)
    if target.endswith("/") and not moved.is_root:
        destination = destination.child(moved.name)  # as mv's `DIR/`: into it, under its own name
    with progress_bar() as progress:
        result = move(store, moved, destination, progress=progress)
    _report(result, f"moved {result.uris[0]} -> {result.uris[1]}")


# --- helpers -----------------------------------------------------------------


def _content_bytes(content: str | None, from_file: Path | None) -> bytes:
    if content is not None and from_file is not None:
        raise InvalidInput("give either --content or --from-file, not both")
    if content is not None:
        return content.encode("utf-8")
    from ov.files import utf8_text

    if from_file is not None and str(from_file) != "-":
        try:
            return utf8_text(from_file.read_bytes())
        except OSError as exc:
            raise InvalidInput(f"cannot read {from_file}: {exc.strerror}") from None
    data = standard_input(asked=from_file is not None)  # `--from-file -`: standard input, by name
    if data is None:
        raise InvalidInput("no content given", hint="pass --content TEXT, --from-file PATH, or pipe text on standard input")
    return utf8_text(data)


def _report(result: CommitResult, done: str, **extra) -> None:
    payload = {"command": result.command, "uris": list(result.uris), "commit": result.commit, "changed": result.changed, **extra}
    message = f"{done} (commit {short(result.commit)})" if result.changed else f"{done}: nothing changed, no commit"
    emit(payload, lambda: plain(message))


# The abstract is a glance beside the name: at most this wide, and left out when less than the
# minimum remains (a dozen letters of it say nothing).
_ABSTRACT_MAX = 60
_ABSTRACT_MIN = 20


def _entries_table(entries: list[Entry], recursive: bool) -> None:
    """Name, size, time and abstract, degrading as ``ls -l`` does on a narrow terminal: no cell
    ever folds onto a second line. The abstract is cut to the room left, then dropped; the time
    and then the size go when the widest name does not fit beside them. The name (what a user
    copies into the next command) is never cut: one wider than the terminal is printed whole, and
    the terminal wraps that line as it wraps ``ls``'s."""
    from rich.cells import cell_len
    from rich.table import Table
    from rich.text import Text

    from ov.cli.output import console

    out = console()
    headers = ("name", "size", "modified", "abstract")
    rows = [
        ((e.uri if recursive else e.name) + ("/" if e.is_dir else ""), "" if e.size is None else _human_size(e.size), e.modified or "", e.abstract or "")
        for e in entries
    ]
    widths = [max([cell_len(header)] + [cell_len(row[i]) for row in rows]) for i, header in enumerate(headers[:3])]
    abstracts = [cell_len(row[3]) for row in rows if row[3]]
    abstract_width = max([cell_len(headers[3]), *abstracts]) if abstracts else 0
    gap = 2  # cells between two columns: each pads one on either side, the outer edges none
    abstract_room = out.width - sum(widths) - 3 * gap
    if abstract_width and abstract_room >= min(abstract_width, _ABSTRACT_MIN):
        shown = 4
        widths.append(min(abstract_width, abstract_room, _ABSTRACT_MAX))
    else:
        shown = next((n for n in (3, 2) if sum(widths[:n]) + (n - 1) * gap <= out.width), 1)
    if shown == 1:
        # Unpadded: a name wider than the terminal wraps as one line, and the others add no blank ones.
        out.print(Text(headers[0], style="bold"), soft_wrap=True)
        for entry, row in zip(entries, rows):
            out.print(Text(row[0], style="bold blue" if entry.is_dir else ""), soft_wrap=True)
        return
    table = Table(box=None, show_header=True, header_style="bold", pad_edge=False)
    table.add_column(headers[0], no_wrap=True)
    if shown > 1:
        table.add_column(headers[1], justify="right", no_wrap=True)
    if shown > 2:
        table.add_column(headers[2], no_wrap=True)
    if shown > 3:
        table.add_column(headers[3], overflow="ellipsis", no_wrap=True, width=widths[3])
    for entry, (name, size, modified, abstract) in zip(entries, rows):
        cells = [Text(name, style="bold blue" if entry.is_dir else ""), size, modified, Text(abstract, style="dim")]
        table.add_row(*cells[:shown])
    out.print(table)


def _tree_dict(node: TreeNode) -> dict:
    out: dict = {"uri": node.uri, "name": node.name, "type": node.type}
    if node.type == "directory":
        out["children"] = [_tree_dict(c) for c in node.children]
        if node.truncated:
            out["truncated"] = True
    return out


def _tree_lines(node: TreeNode, prefix: str) -> list[str]:
    lines = []
    for i, child in enumerate(node.children):
        last = i == len(node.children) - 1 and not node.truncated
        lines.append(f"{prefix}{'└── ' if last else '├── '}{child.name}{'/' if child.type == 'directory' else ''}")
        lines.extend(_tree_lines(child, prefix + ("    " if last else "│   ")))
    if node.truncated:
        lines.append(f"{prefix}└── …")
    return lines


def _human_size(size: int) -> str:
    value = float(size)
    for unit in ("B", "KB", "MB", "GB"):
        if value < 1024 or unit == "GB":
            return f"{int(value)} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return str(size)


def _show(value) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, dict) and "uri" in value:  # provenance: where an ingested file came from
        span = next((f"{key} {value[key][0]}-{value[key][1]}" for key in ("pages", "lines") if value.get(key)), "")
        return f"{value['uri']} {span}".strip()
    if isinstance(value, list):  # a memory's sources
        return ", ".join(map(str, value)) or "-"
    return "-" if value is None else str(value)
