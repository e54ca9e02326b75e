"""``ov doctor``: is this installation ready, and what should be fixed?

Each check gives ``ok``, ``warn`` (works, but less well than it could) or
``fail`` (something the user must fix), a detail and, when not ok, the fix.
Nothing here reaches the network or changes anything.
"""

from __future__ import annotations

import os
from dataclasses import dataclass


@dataclass(frozen=True)
class Check:
    name: str
    status: str  # ok | warn | fail
    detail: str
    fix: str = ""

    def to_dict(self) -> dict:
        return {"name": self.name, "status": self.status, "detail": self.detail, "fix": self.fix}


def diagnose(loaded_config, store) -> list[Check]:
    checks = [_config(loaded_config), _store(store)]
    checks.extend(_index(store))
    checks.append(_llm(loaded_config.config.llm))
    return checks


def _config(loaded) -> Check:
    if not loaded.exists:
        return Check("config", "ok", f"no {loaded.path} (defaults apply)")
    if loaded.warnings:
        return Check("config", "warn", "; ".join(loaded.warnings), f"edit {loaded.path}")
    return Check("config", "ok", str(loaded.path))


def _store(store) -> Check:
    if not store.exists:
        return Check("store", "warn", f"no store at {store.root} yet", "the first write creates it (or run `ov init`)")
    head = store.git.head()
    return Check("store", "ok", f"{store.root} at {head.decode()[:10] if head else '-'}")


def _index(store) -> list[Check]:
    from ov.index.sync import Indices

    indices = Indices(store)
    status = indices.status()
    embedding = status["embedding"]
    if embedding.get("available"):
        embed = Check("embedder", "ok", f"{embedding.get('provider')}: {embedding.get('model')}")
    else:
        embed = Check("embedder", "warn", f"none, retrieval is lexical only: {embedding.get('reason')}", "see docs/retrieval.md#embedders")
    if not store.exists:
        return [Check("index", "ok", "nothing to index yet"), embed]
    if not status["built"]:
        index = Check("index", "warn", "not built yet", "the first `ov find` builds it, or run `ov reindex`")
    elif status.get("problem"):
        index = Check("index", "warn", f"will be rebuilt: {status['problem']}", "run `ov reindex` now to avoid the wait")
    elif status.get("commit") != status.get("head"):
        index = Check("index", "ok", f"{status['records']} records; catches up with HEAD on the next search")
    else:
        index = Check("index", "ok", f"{status['records']} records, {status['vectors']} vectors, at HEAD")
    return [index, embed]


def _llm(config) -> Check:
    if not config.enabled:
        return Check("llm", "ok", "none configured: summaries, memory extraction and query plans are deterministic")
    if config.api_key_env and not os.environ.get(config.api_key_env):
        return Check("llm", "fail", f"{config.model}: ${config.api_key_env} is not set", f"export {config.api_key_env}=...")
    return Check("llm", "ok", f"{config.model}" + (f" at {config.api_base}" if config.api_base else ""))


def exit_status(checks: list[Check]) -> int:
    return 1 if any(c.status == "fail" for c in checks) else 0

