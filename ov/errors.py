"""Typed errors of the core library.

Every failure a user can cause or meet is one of these. Each carries a stable
machine ``code`` (used in ``--json`` error output), the process exit code the
CLI turns it into, and an optional ``hint`` that says what to do next. The CLI
translates them in exactly one place (:mod:`ov.cli.main`).
"""

from __future__ import annotations

EXIT_OK = 0
EXIT_RUNTIME = 1
EXIT_USAGE = 2


class OvError(Exception):
    """Root of every error ov reports to a user."""

    code = "error"
    exit_code = EXIT_RUNTIME

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def to_dict(self) -> dict[str, str]:
        data = {"code": self.code, "message": self.message}
        if self.hint:
            data["hint"] = self.hint
        return data


# --- bad input: the command line itself is wrong (exit 2) -------------------


class InvalidInput(OvError):
    """An argument or option value that can never be right."""

    code = "invalid_input"
    exit_code = EXIT_USAGE


class InvalidURI(InvalidInput):
    code = "invalid_uri"


class InvalidId(InvalidInput):
    code = "invalid_id"


class BinaryContent(InvalidInput):
    code = "binary_content"


class ConfigError(InvalidInput):
    """The config file does not parse or holds a value of the wrong type."""

    code = "config_invalid"


# --- runtime: the input is well formed but the store says no (exit 1) -------


class NotFound(OvError):
    code = "not_found"


class AlreadyExists(OvError):
    code = "already_exists"


class IsADirectory(OvError):
    code = "is_directory"


class NotADirectory(OvError):
    code = "not_directory"


class DirectoryNotEmpty(OvError):
    code = "not_empty"


class NoMatch(OvError):
    code = "no_match"


class AmbiguousMatch(OvError):
    code = "ambiguous_match"


class HandEditConflict(OvError):
    """The work tree holds edits made outside ov that a command would overwrite."""

    code = "hand_edit_conflict"


class StoreLocked(OvError):
    code = "store_locked"


class StoreCorrupt(OvError):
    code = "store_corrupt"


class IndexUnavailable(OvError):
    """The search indices cannot be opened or built."""

    code = "index_unavailable"
