"""Who is acting: account, user and peer, and how each is chosen.

Resolution order, first hit wins: command-line flags, ``OV_*`` environment
variables, the OpenViking environment names, the config file, ``default``.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from ov.errors import InvalidId, quote
from ov.names import reserved_reason

DEFAULT_ID = "default"
_ID_RE = re.compile(r"^[A-Za-z0-9_.@-]+$")
MAX_ID_LEN = 128

# (our variable, OpenViking's variable) per identity field.
ENV_NAMES: dict[str, tuple[str, str]] = {
    "account": ("OV_ACCOUNT", "OPENVIKING_ACCOUNT"),
    "user": ("OV_USER", "OPENVIKING_USER"),
    "peer": ("OV_PEER", "OPENVIKING_PEER_ID"),
}


def validate_id(value: str, kind: str) -> str:
    """Return ``value`` if it is a valid account/user/peer/session id, else raise InvalidId.

    Every id becomes a directory name in the account's git tree (``user/{uid}``,
    ``peers/{peer}``, ``sessions/{id}``), so it obeys the tree-name rules of
    :mod:`ov.names` as well as its own character set.
    """
    allowed = "letters, digits, '_', '.', '@' and '-'"
    if not value:
        raise InvalidId(f"{kind} id is empty", hint=f"an id uses {allowed}")
    if value in (".", ".."):
        raise InvalidId(f"{kind} id {value!r} is not allowed", hint=f"an id uses {allowed}")
    if len(value) > MAX_ID_LEN:
        raise InvalidId(f"{kind} id {quote(value, 40)} is longer than {MAX_ID_LEN} characters")
    if not _ID_RE.fullmatch(value):
        raise InvalidId(f"{kind} id {quote(value)} has characters that are not allowed", hint=f"an id uses {allowed}")
    if value.count("@") > 1:
        raise InvalidId(f"{kind} id {value!r} has more than one '@'")
    if kind == "account" and value.startswith("_"):
        raise InvalidId(f"account id {value!r} must not start with '_'")
    reason = reserved_reason(value)
    if reason:
        raise InvalidId(f"{kind} id {value!r} is reserved: {reason}", hint="choose another id")
    if value.lower().endswith(".lock"):
        # git's own lock files end in ".lock" (refs, the index), and a ref named after an id
        # could never be created; ids stay clear of the suffix.
        raise InvalidId(f"{kind} id {value!r} ends in '.lock'", hint="choose another id")
    if value.startswith("."):
        # A name starting with "." is hidden: `ov ls` and `ov session list` would never show it.
        raise InvalidId(f"{kind} id {value!r} starts with '.'", hint="start it with a letter or a digit")
    return value


@dataclass(frozen=True)
class Identity:
    """Who is acting: account, user and peer, and where each came from."""

    account: str = DEFAULT_ID
    user: str = DEFAULT_ID
    peer: str | None = None
    # Where each field came from ("flag", "env OV_USER", "config", "default"), for `ov config show`.
    sources: tuple[tuple[str, str], ...] = ()

    def source_of(self, field: str) -> str:
        return dict(self.sources).get(field, "default")


def resolve_identity(
    flags: Mapping[str, str | None],
    env: Mapping[str, str],
    configured: Mapping[str, str | None],
) -> Identity:
    """Pick each identity field from flags, then env, then config, then the default."""
    values: dict[str, str | None] = {}
    sources: list[tuple[str, str]] = []
    for field, (ov_name, upstream_name) in ENV_NAMES.items():
        # An empty environment variable counts as unset; an empty flag or config value is an error.
        candidates = [
            ("flag", flags.get(field)),
            (f"env {ov_name}", env.get(ov_name) or None),
            (f"env {upstream_name}", env.get(upstream_name) or None),
            ("config", configured.get(field)),
        ]
        value, source = None, "default"
        for candidate_source, candidate in candidates:
            if candidate is not None:
                value, source = candidate, candidate_source
                break
        if value is None and field != "peer":
            value = DEFAULT_ID
        if value is not None:
            try:
                validate_id(value, field)
            except InvalidId as exc:
                exc.message = f"{exc.message} (from {source})"
                raise
        values[field] = value
        sources.append((field, source))
    return Identity(
        account=values["account"] or DEFAULT_ID,
        user=values["user"] or DEFAULT_ID,
        peer=values["peer"],
        sources=tuple(sources),
    )


def identity_from_environment(flags: Mapping[str, str | None], configured: Mapping[str, str | None]) -> Identity:
    return resolve_identity(flags, os.environ, configured)


def workspace_peer(cwd: str) -> str:
    """The peer id of a workspace: its folder's name and a digest of its path (unique, readable).
    The workspace is the git root above ``cwd``, else ``cwd`` itself (a hook's working directory
    is the session's)."""
    from ov.home import expand_user  # ov.home imports this module
    from ov.uri import sanitize_segment

    path = expand_user(cwd).absolute()
    root = _git_root(path) or path
    name = sanitize_segment(root.name or "root").strip(".-")[:40] or "workspace"
    digest = hashlib.sha256(str(root).encode("utf-8", "surrogateescape")).hexdigest()[:6]
    return f"{name}-{digest}"


# The folders an Agent Plugins package's (and Claude Code's, Cursor's) server is started in: its own.
PLUGIN_ROOTS = ("PLUGIN_ROOT", "CLAUDE_PLUGIN_ROOT", "CURSOR_PLUGIN_ROOT")


def server_workspace(cwd: str, environ: Mapping[str, str]) -> str | None:
    """The workspace peer of the project an MCP server started in ``cwd`` works in, the one the
    hooks use for it; None when the folder does not say. Hosts start a registered server in the
    project's folder, but a plugin's in the plugin's own (``PLUGIN_ROOT``), and a folder in no git
    repository may be anywhere (the home folder, ``/``): only a git work tree counts."""
    from ov.home import expand_user  # ov.home imports this module

    path = expand_user(cwd).absolute()
    for name in PLUGIN_ROOTS:
        root = environ.get(name)
        if root and (path == Path(root).absolute() or Path(root).absolute() in path.parents):
            return None
    return workspace_peer(str(path)) if _git_root(path) is not None else None


def _git_root(path: Path) -> Path | None:
    return next((p for p in (path, *path.parents) if (p / ".git").exists()), None)
