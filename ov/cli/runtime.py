"""What every command shares: the common options and the store they resolve to.

Every ov command is an :class:`OvCommand`. It adds the common options
(``--json``, ``--account``, ``--user``, ``--peer``) to the command's own, takes
them out of the parsed parameters before the command function runs, and makes
them available through :func:`runtime`. Home, config, identity and store are
resolved lazily and once per process.
"""

from __future__ import annotations

import os
import shlex
import sys
from contextvars import ContextVar
from functools import cached_property
from typing import Annotated, Any

import click
import typer
from typer.core import TyperCommand, TyperGroup

from ov.cli.output import OutputFailed, check_color_env
from ov.config import LoadedConfig, load_config
from ov.errors import Interrupted, InterruptedAfterCommit, InvalidInput, interrupted
from ov.home import Home
from ov.identity import Identity, resolve_identity

COMMON_PANEL = "Common options"


def _common_options(
    json_output: Annotated[
        bool, typer.Option("--json", help="Print machine-readable JSON.", rich_help_panel=COMMON_PANEL)
    ] = False,
    account: Annotated[
        str | None,
        typer.Option("--account", help="Account id (default: $OV_ACCOUNT, config, 'default').", rich_help_panel=COMMON_PANEL),
    ] = None,
    user: Annotated[
        str | None,
        typer.Option("--user", help="User id (default: $OV_USER, config, 'default').", rich_help_panel=COMMON_PANEL),
    ] = None,
    peer: Annotated[
        str | None,
        typer.Option("--peer", help="Peer id (default: $OV_PEER, config).", rich_help_panel=COMMON_PANEL),
    ] = None,
) -> None:
    """Declares the common options once; typer turns them into click parameters below."""


def _build_common_params() -> list:
    probe = typer.Typer(add_completion=False)
    probe.command()(_common_options)
    command = typer.main.get_command(probe)
    return [p for p in command.params if p.name != "help"]


_COMMON_PARAMS = _build_common_params()


def _common_params(json_help: str | None) -> list:
    """The common options, ``--json`` saying ``json_help`` when given."""
    if json_help is None:
        return list(_COMMON_PARAMS)
    import copy

    params = [copy.copy(p) for p in _COMMON_PARAMS]
    for param in params:
        if param.name == "json_output":
            param.help = json_help
    return params

COMMON_NAMES = tuple(p.name for p in _COMMON_PARAMS)
# Each common option's spelling, and whether it takes a value (`--account x`) or not (`--json`).
COMMON_OPTIONS = {option: not p.is_flag for p in _COMMON_PARAMS for option in p.opts}
_CURRENT: ContextVar[Runtime | None] = ContextVar("ov_runtime", default=None)


class _ParsedInterruptibly:
    """Ctrl-C while click reads the command line (an option's callback, a slow conversion): typer
    turns it into a silent exit 130. Said here as every other interrupt is (exit 130, one message)."""

    def make_context(self, info_name: str | None, args: list[str], parent: Any = None, **extra: Any) -> Any:
        try:
            return super().make_context(info_name, args, parent=parent, **extra)  # type: ignore[misc]
        except KeyboardInterrupt:
            path = " ".join(p for p in (parent.command_path if parent is not None else "", info_name or "") if p)
            raise Interrupted(f"{path} was interrupted") from None


class OvCommand(_ParsedInterruptibly, TyperCommand):
    """A typer command with ov's common options; its store is opened to write (see ReadCommand)."""

    read_only = False
    checks_color = True
    # Whether loose objects are packed once the command has written (ov.store.packing), by a
    # detached worker the command does not wait for; never from a hook's process.
    packs_after_write = True
    # Whether the hooks' index job is started once the command's write landed, so that the next
    # prompt's recall, which searches the index as it is, finds it (ov.hosts.background).
    indexes_after_write = True
    # The exit code of every failure (an interrupt aside), for a command whose callers know a
    # convention of its own; None: each error's own code (1 runtime, 2 bad input).
    failure_exit: int | None = None
    # The exit code of an interruption (Ctrl-C), for a command whose callers read 130 otherwise;
    # None: 130, as a shell reports a command Ctrl-C stopped.
    interrupted_exit: int | None = None
    # What --json does where the command's output is never ov's JSON (a hook's answer, MCP's
    # protocol): only a failure before it runs is reported as JSON. None: the common help.
    json_help: str | None = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.params.extend(_common_params(self.json_help))

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        if not ctx.resilient_parsing:  # (completion parses half-typed lines)
            _refuse_repeated(self, ctx, args)
        return super().parse_args(ctx, args)

    def invoke(self, ctx: Any) -> Any:
        _refuse_undecodable(self, ctx.params)
        if self.checks_color:
            # Checked before the command runs: found while printing, it would fail a command
            # whose commit had already been made.
            check_color_env()
        options = {name: ctx.params.pop(name, None) for name in COMMON_NAMES}
        current = Runtime(**options, read_only=self.read_only)
        token = _CURRENT.set(current)
        try:
            result = super().invoke(ctx)
            sys.stdout.flush()  # here, where a stdout that refuses the output is told whether a commit landed
            if current.landed() and (self.packs_after_write or self.indexes_after_write):
                from ov.hosts import background

                if self.indexes_after_write:
                    background.start_index_after_write(current.store)
                if self.packs_after_write:
                    background.start_packing(current.store)
            return result
        except BaseException as exc:
            stopped = interrupted(exc)
            landed = current.landed() if stopped or isinstance(exc, OutputFailed) else None
            if landed and isinstance(exc, OutputFailed):
                raise OutputFailed(exc.reason, commit=landed) from None
            if landed:
                raise InterruptedAfterCommit(f"interrupted after the commit landed: the change is kept (commit {landed[:10]})") from None
            if stopped:
                after = "" if self.read_only else " before its commit: nothing was changed in the store"
                raise Interrupted(f"{ctx.command_path} was interrupted{after}") from None
            raise
        finally:
            _CURRENT.reset(token)


class ReadCommand(OvCommand):
    """A command that only reads the store: on an account that does not exist, while the home
    holds others, it fails with AccountNotFound instead of reading an empty store (a typo in
    --account or $OV_ACCOUNT). Every command that reads and never writes is registered with it."""

    read_only = True
    packs_after_write = False
    indexes_after_write = False


class GrepCommand(ReadCommand):
    """``ov grep``: exits as grep(1) and rg do, 0 when a line matched, 1 when none did and 2 on
    any error, bad input or not, so that a script can tell "no match" from "failed"."""

    failure_exit = 2


class HookCommand(OvCommand):
    """``ov hook``: it answers its host whatever the environment holds (hooks fail open) and
    styles nothing, so an ``OV_COLOR`` other commands refuse is none of its business.

    A command line it cannot read (an option or an event of a newer ov's entry, after a
    downgrade or from a teammate's project file) is refused with exit 1, not the usage errors'
    2: Claude Code, Codex, Gemini CLI and Cursor all read 2 as "block", and Claude Code erases
    the prompt. 1 is their non-blocking error; the refusal is logged where a hook's failures are."""

    checks_color = False
    packs_after_write = False
    indexes_after_write = False  # a hook starts the jobs it needs itself
    json_help = "Report a usage error as JSON (the hook answers in its host's format whatever this says)."
    failure_exit = 1
    # Interrupted (a SIGINT sent to the hook alone), 130 with its message on stderr was a deny to
    # Gemini CLI 0.61, which reads any code but 0 and 1 with text as one: the prompt was refused.
    interrupted_exit = 1

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        given = list(args)  # click's parser consumes the list it is given
        try:
            return super().parse_args(ctx, args)
        except click.UsageError as exc:
            if not ctx.resilient_parsing:
                _log_refused_hook(given, exc)
            raise


def _log_refused_hook(args: list[str], exc: click.UsageError) -> None:
    """One line in the hook log for an ``ov hook`` command line that could not be read: a host
    shows a failed hook's stderr in a debug view at most, and ``ov hooks log`` is where a user looks."""
    from ov.errors import OvError
    from ov.hosts import hooklog

    try:
        home = Home.from_env(os.environ)
    except OvError:
        return  # no home, no log: `ov doctor` says why
    words = [a for a in args if not a.startswith("-")][:2]
    record = {"host": words[0] if words else None, "event": words[1] if len(words) > 1 else None}
    hooklog.append(home.root, {**record, "outcome": "error", "error": f"ov hook {shlex.join(args)}: {exc.format_message()}"})


class ServerCommand(OvCommand):
    """``ov mcp``: once serving, its stdout carries nothing but MCP's JSON-RPC."""

    json_help = "Report a failure to start as JSON (once serving, stdout carries only MCP's JSON-RPC)."


class OvGroup(_ParsedInterruptibly, TyperGroup):
    """Lists commands in the order they were added, which groups related ones."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # click >= 8.4 suggests a close command name itself; typer's suggestion would repeat it.
        if hasattr(click.exceptions, "NoSuchCommand"):
            self.suggest_commands = False

    def list_commands(self, ctx: Any) -> list[str]:
        return list(self.commands)


def _refuse_repeated(command: click.Command, ctx: Any, args: list[str]) -> None:
    """Refuse an option that takes one value given more than once (`--uri A --uri B`, `write -c x
    -c y`): click keeps the last without a word, and a script or an agent that builds one option
    per value loses the others unseen. An option that takes several says so (`multiple`: --type,
    --include) and collects them all."""
    try:
        _, _, order = command.make_parser(ctx).parse_args(args=list(args))
    except click.UsageError:
        return  # a command line click refuses anyway: it says what is wrong
    seen: set[str | None] = set()
    for param in order:
        if not isinstance(param, click.Option) or param.multiple or param.is_flag or param.count:
            continue
        if param.name in seen:
            name = max(param.opts, key=len)
            raise click.BadOptionUsage(name, f"{name} was given more than once: it takes one value", ctx=ctx)
        seen.add(param.name)


def _refuse_undecodable(command: click.Command, params: dict[str, Any]) -> None:
    """Refuse a text argument that was not valid UTF-8 on the command line.

    Python turns such bytes into lone surrogates (PEP 383), which fail much later, when
    they are written, as an "internal error". Paths are left alone: the OS takes them back.
    """
    for param in command.params:
        value = params.get(param.name)
        values = value if isinstance(value, (list, tuple)) else [value]
        if any(isinstance(v, str) and _has_surrogates(v) for v in values):
            name = param.opts[0] if isinstance(param, click.Option) else param.human_readable_name
            raise InvalidInput(
                f"{name} is not valid UTF-8 text",
                hint="ov takes its text arguments in UTF-8; check the terminal's or the script's encoding",
            )


def _has_surrogates(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def runtime() -> Runtime:
    current = _CURRENT.get()
    if current is None:  # called outside a command (tests of helpers); use the environment alone
        current = Runtime()
        _CURRENT.set(current)
    return current


def configured_color() -> str:
    """``output.color`` of the command running; outside one (its error printed once it ended, a
    usage error) of the config read again, without saying its warnings: the command said them."""
    current = _CURRENT.get()
    loaded = current.loaded_config if current is not None else load_config(Home.from_env())
    return loaded.config.output.color


# The identity options every command takes, and the variables they override.
FLAG_VARIABLES = (("account", "OV_ACCOUNT"), ("user", "OV_USER"), ("peer", "OV_PEER"))


class Runtime:
    def __init__(
        self,
        json_output: bool = False,
        account: str | None = None,
        user: str | None = None,
        peer: str | None = None,
        read_only: bool = False,
    ) -> None:
        self.json = bool(json_output)
        self.flags = {"account": account, "user": user, "peer": peer}
        self.read_only = read_only

    @cached_property
    def home(self) -> Home:
        return Home.from_env()

    @cached_property
    def loaded_config(self) -> LoadedConfig:
        loaded = load_config(self.home)
        for warning in loaded.warnings:
            from ov.cli.output import warn

            warn(warning)
        return loaded

    @cached_property
    def identity(self) -> Identity:
        configured = {
            "account": self.loaded_config.config.identity.account,
            "user": self.loaded_config.config.identity.user,
            "peer": self.loaded_config.config.identity.peer,
        }
        return resolve_identity(self.flags, os.environ, configured)

    def environ(self) -> dict[str, str]:
        """This process's environment with the command's --account, --user and --peer in it, as
        the variables they override: what a hook runs as, and what an install or a plugin build
        writes into the entries it makes (:meth:`install_environ`)."""
        environ = dict(os.environ)
        environ.update({name: self.flags[field] for field, name in FLAG_VARIABLES if self.flags.get(field)})
        return environ

    def install_environ(self, scope: str = "user") -> dict[str, str]:
        """The environment whose ov home and identity an install (or a plugin build, which is
        one user's) pins into the entries it writes, hooks and server alike: one install, one
        store, one user. A project's files, which a team commits, pin none
        (:func:`ov.hosts.ovcommand.pinned_env`), so --account, --user or --peer there would be
        dropped unseen: refused instead."""
        from ov.identity import validate_id

        given = {field: value for field, value in self.flags.items() if value}
        for field, value in given.items():
            validate_id(value, field)
        if given and scope == "project":
            options = ", ".join(f"--{field}" for field in given)
            raise InvalidInput(
                f"{options} cannot be written into a project's entries: the team commits them, and every teammate's hooks would act as this identity",
                hint="install in user scope (--scope user) to pin it, or set OV_ACCOUNT, OV_USER or OV_PEER where the host starts",
            )
        return self.environ()

    def landed(self) -> str | None:
        """The commit this command's store landed last, if it opened one."""
        return self.__dict__["store"].last_landed() if "store" in self.__dict__ else None

    @cached_property
    def store(self):
        from ov.store.store import Store

        return Store(self.home, self.identity, self.loaded_config.config, read_only=self.read_only, via="cli")


def standard_input(*, asked: bool = False) -> bytes | None:
    """What standard input holds, or None when there is none to read: closed (`<&-`), or a
    terminal, which would wait for typing that a command reading it by default never asked
    for. ``asked``: the user named it (`-`), so a terminal is read too, as `cat -` does."""
    if sys.stdin is None or (not asked and sys.stdin.isatty()):
        return None
    return sys.stdin.buffer.read()


def wants_json(argv: list[str]) -> bool:
    """``--json`` anywhere before a ``--``: also used to format errors raised while parsing."""
    for arg in argv[1:]:
        if arg == "--":
            return False
        if arg == "--json":
            return True
    return False
