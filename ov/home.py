"""Where ov keeps things: ``$OV_HOME`` (default ``~/.ov``).

::

    $OV_HOME/config.yaml              the user's configuration
    $OV_HOME/accounts/{account}/      one git repository per account; work tree = URI tree
    $OV_HOME/state/{account}/         derived data: write lock, journal, indices (never committed)
    $OV_HOME/state/config.cache.json  the last validated config (keeps pydantic off the hot path)
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
