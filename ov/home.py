"""Where ov keeps things: ``$OV_HOME`` (default ``~/.ov``).

::

    $OV_HOME/config.yaml              the user's configuration
    $OV_HOME/accounts/{account}/      one git repository per account; work tree = URI tree
    $OV_HOME/state/{account}/         derived data: write lock, journal, indices (never committed)
    $OV_HOME/state/config.cache.json  the last validated config (keeps pydantic off the hot path)
    $OV_HOME/logs/                    the hook and MCP logs

The home holds every transcript and memory in plain text: ov makes it, the folders at its top and
each account's own private (0700), whichever command or hook makes one first (:meth:`Home.ensure`,
the one way they are made).
"""

from __future__ import annotations

import json
import os
import re
import stat
import time
from dataclasses import dataclass
from pathlib import Path

from ov.errors import HomeInvalid, quote
from ov.identity import validate_id

HOME_ENV = "OV_HOME"
HOOK_LOG = "hooks.jsonl"  # in logs/: one line per hook run (ov.hosts.hooklog), read by the MCP server too
INSTALLS = "installs"  # ov install's receipts (ov.hosts.receipts): <host>-<kind>-<scope>-<digest>.json
# A receipt of hooks: today's name, or an older ov's (<host>-<scope>-<digest>.json, all of hooks).
_HOOKS_RECEIPT = re.compile(r"[a-z]+-(?:hooks-)?(?:user|project)-[0-9a-f]{10}\.json")
# A hook that ran this recently is in use without a receipt here: a project's committed hooks,
# installed on another machine. Idle longer, the next prompt's hook starts the catch-up itself.
HOOKS_RECENT = 3600.0
# How much of the hook log's end is read for the last run of a hook (its jobs' lines between).
_LOG_TAIL = 64 * 1024


@dataclass(frozen=True)
class Home:
    """The folder that holds every account's store and state (``$OV_HOME``)."""

    root: Path

    @classmethod
    def from_env(cls, env: dict[str, str] | None = None) -> Home:
        """The home ``$OV_HOME`` names, else ``~/.ov``; :class:`HomeInvalid` when it cannot be one."""
        env = os.environ if env is None else env
        configured = env.get(HOME_ENV)
        if configured:
            root = expand_user(configured, env)
        else:
            user = user_home(env)
            if user is None:
                raise HomeInvalid(
                    f"{HOME_ENV} is not set, HOME is empty, and the user has no home folder in the password database",
                    hint=f"set {HOME_ENV} (or HOME) to a folder by its absolute path",
                )
            root = user / ".ov"
        named = f"{HOME_ENV}={quote(configured)}" if configured else f"the home, {root} ({HOME_ENV} is not set),"
        if not root.is_absolute():
            # Taken from each working directory, it would be a different (empty) store in every
            # folder, and a hook run in a subfolder would not find what the command line wrote.
            raise HomeInvalid(
                f"{named} is a relative path: it would name another store in each folder ov runs in",
                hint=f'set it by its absolute path (export {HOME_ENV}="$PWD/{configured}"), or unset it to use ~/.ov',
            )
        try:
            if not stat.S_ISDIR(os.stat(root).st_mode):
                raise HomeInvalid(f"{named} is a file, not a folder")
        except FileNotFoundError:
            pass  # made by the first write (ensure)
        except NotADirectoryError:
            raise HomeInvalid(f"{named} is below a file: a part of its path is not a folder") from None
        except OSError as exc:
            # A symbolic link loop, a path over PATH_MAX, a parent the user may not search: no
            # command could use it, and each would fail on its first file with a traceback.
            raise HomeInvalid(f"{named} cannot be used: {_stat_reason(exc, root)}") from None
        return cls(root)

    @property
    def hook_log(self) -> Path:
        return self.root / "logs" / HOOK_LOG

    def hooks_in_use(self) -> bool:
        """Whether a host's hooks answer from this home: an install of hooks left its receipt here,
        or a hook ran within :data:`HOOKS_RECENT`. Its log alone says they once ran: after
        ``ov uninstall hooks`` every write went on starting an index job, for a prompt that never
        came."""
        try:
            if any(_HOOKS_RECEIPT.fullmatch(name) for name in os.listdir(self.root / INSTALLS)):
                return True
        except OSError:
            pass  # no install from this home
        return self._last_hook_run() >= time.time() - HOOKS_RECENT

    def _last_hook_run(self) -> float:
        """When a hook last ran, from the end of the hook log: the newest line that is not a
        background job's (a write's index job logs there too); 0 when none is in the last
        :data:`_LOG_TAIL` bytes."""
        try:
            with open(self.hook_log, "rb") as log:
                log.seek(max(log.seek(0, os.SEEK_END) - _LOG_TAIL, 0))
                lines = log.read().splitlines()
        except OSError:
            return 0.0
        for line in reversed(lines):
            try:
                record = json.loads(line)
            except ValueError:
                continue  # cut by the seek, or by a full disk
            event = record.get("event") if isinstance(record, dict) else None
            if isinstance(event, str) and not event.endswith("job") and isinstance(record.get("ts"), (int, float)):
                return float(record["ts"])
        return 0.0

    @property
    def config_path(self) -> Path:
        return self.root / "config.yaml"

    @property
    def state_root(self) -> Path:
        return self.root / "state"

    def account_dir(self, account: str) -> Path:
        return self.root / "accounts" / validate_id(account, "account")

    def state_dir(self, account: str) -> Path:
        return self.state_root / validate_id(account, "account")

    @classmethod
    def of_state_dir(cls, state_dir: Path) -> Home:
        """The home whose :meth:`state_dir` ``state_dir`` is (for code handed only that folder)."""
        return cls(state_dir.parent.parent)

    def ensure(self, folder: Path | None = None) -> Path:
        """``folder`` (the home itself when None, else a folder inside it), made when missing, and
        returned: the one way ov makes the home's folders, called where a folder is first needed.

        Every folder this makes from the home down is private (0700): a folder made in passing
        gets what the umask gives (0755: anyone may read), and the top folders are the fence of
        a home the user made open. Folders above the home are not ov's and get the umask's. A
        folder that exists is left as it is: its permissions are the user's choice (``ov
        doctor`` warns when the home is open to others). One ``mkdir`` when it exists, so a hook
        pays nothing for it; an OSError (a read-only home, a full disk) is the caller's."""
        folder = self.root if folder is None else folder
        try:
            os.mkdir(folder, 0o700)
            return folder
        except FileExistsError:
            return folder
        except FileNotFoundError:
            pass
        if folder != self.root and self.root in folder.parents:
            self.ensure(folder.parent)
        else:
            folder.parent.mkdir(parents=True, exist_ok=True)
        try:
            os.mkdir(folder, 0o700)
        except FileExistsError:
            pass  # made meanwhile by another process
        return folder

    def accounts(self) -> list[str]:
        base = self.root / "accounts"
        if not base.is_dir():
            return []
        return sorted(p.name for p in base.iterdir() if (p / ".git").is_dir())


def make_folder(folder: Path, home: Home | None) -> Path:
    """``folder`` made when missing: through ``home``'s :meth:`Home.ensure` (private) when the
    caller knows it is the home's, else as any folder (a test's lock in a temporary folder)."""
    if home is not None:
        return home.ensure(folder)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def user_home(env=None) -> Path | None:
    """The user's home folder: ``$HOME``, or the password database's entry when HOME is unset or
    empty; None when neither names one. An empty HOME (``env HOME=``, some service managers) is
    unset, as for a shell's ``~``: Python's ``Path.home()`` makes it ``/``, and ov put its home
    at ``/.ov``."""
    env = os.environ if env is None else env
    value = env.get("HOME", os.environ.get("HOME"))
    if value:
        return Path(value)
    if os.name == "nt":
        return Path.home()  # USERPROFILE: Windows has no HOME of its own
    try:
        import pwd

        entry = pwd.getpwuid(os.getuid()).pw_dir
    except (ImportError, KeyError, OSError):
        return None
    return Path(entry) if entry else None


def expand_user(path: str | os.PathLike[str], env=None) -> Path:
    """``path`` with a leading ``~`` (``~``, ``~/x``) made the user's home as :func:`user_home`
    finds it: Python's ``expanduser`` makes ``~/x`` ``/x`` under an empty ``HOME``. The one way ov
    expands a path it is given through the environment or a config; ``~user`` is expanded as
    Python does, and ``~`` stays as written when no home can be found (a relative path then,
    which the caller refuses or takes as such)."""
    text = os.fspath(path)
    if text[:1] != "~":
        return Path(text)
    head, sep, rest = text[1:].partition("/")
    if os.altsep and not sep:
        head, sep, rest = text[1:].partition(os.altsep)
    if head:
        return Path(os.path.expanduser(text))  # ~user: the password database, whatever HOME says
    home = user_home(env)
    return Path(text) if home is None else home / rest


def _stat_reason(exc: OSError, root: Path) -> str:
    """Why ``os.stat(root)`` failed, in words a user can act on."""
    import errno

    if exc.errno == errno.ELOOP:
        return "a symbolic link loop"
    if exc.errno == errno.ENAMETOOLONG:
        return f"the path is too long ({len(os.fsencode(root))} bytes)"
    if exc.errno == errno.EACCES:
        # The folder that refuses the search is the deepest parent that can be stat'ed.
        for parent in root.parents:
            try:
                os.stat(parent)
            except OSError:
                continue
            return f"permission denied on {parent}"
        return "permission denied"
    return exc.strerror or type(exc).__name__
