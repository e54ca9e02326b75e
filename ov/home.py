"""Where ov keeps things: ``$OV_HOME`` (default ``~/.ov``).

::

    $OV_HOME/config.yaml              the user's configuration
    $OV_HOME/accounts/{account}/      one git repository per account; work tree = URI tree
    $OV_HOME/state/{account}/         derived data: write lock, journal, indices (never committed)
    $OV_HOME/state/config.cache.json  the last validated config (keeps pydantic off the hot path)
    $OV_HOME/logs/                    the hook and MCP logs

The home holds every transcript and memory in plain text: ov makes it, and the folders at its
top, private (0700) when it creates them (:func:`make_private`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from ov.identity import validate_id

HOME_ENV = "OV_HOME"


@dataclass(frozen=True)
class Home:
    """The folder that holds every account's store and state (``$OV_HOME``)."""

    root: Path

    @classmethod
    def from_env(cls, env: dict[str, str] | None = None) -> Home:
        env = os.environ if env is None else env
        configured = env.get(HOME_ENV)
        root = Path(configured).expanduser() if configured else Path.home() / ".ov"
        return cls(root.absolute())

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

    def accounts(self) -> list[str]:
        base = self.root / "accounts"
        if not base.is_dir():
            return []
        return sorted(p.name for p in base.iterdir() if (p / ".git").is_dir())


def make_private(root: Path, top: str | None = None) -> None:
    """Create the home ``root`` (and the folder ``top`` at its top, say ``"state"``) readable by
    this user only (0700), before anything is written below them. A home or folder that exists
    is left as it is: its permissions are the user's choice (``ov doctor`` warns when the home is
    open to others). Called by every writer that may be the first under the home, since a
    file's folders made in passing get what the umask gives (0755: anyone may read).

    A failure is not raised here: the write that needs the folder fails and says so in its
    own terms (a read-only home, a full disk)."""
    for folder in (root,) if top is None else (root, root / top):
        try:
            if not folder.parent.is_dir():
                folder.parent.mkdir(parents=True, exist_ok=True)  # the folders above the home are not ov's
            os.mkdir(folder, 0o700)
        except FileExistsError:
            continue
        except OSError:
            return
