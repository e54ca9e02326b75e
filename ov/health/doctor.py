"""``ov doctor``: is this installation ready, and what should be fixed?

Each check gives ``ok``, ``warn`` (works, but less well than it could) or
``fail`` (something the user must fix), a detail and, when not ok, the fix.
Nothing here changes anything (whether ov may write to the store is tried with a file made and
removed at once). The index is opened as a search opens it (a damaged one is a warning: the next
search rebuilds it, unless ov may not write to the store), not only read from its ``meta.json``,
and hnswlib's file is checked by its header and size where a search reads the vectors' flat or
grouped copy instead; ``ov fsck`` reads all of it. The embedder and the LLM are *probed*: a
one-line text is embedded and a one-word answer asked for, bounded by ``PROBE_SECONDS``, because a
config that reads well can still point at a model that is not there or a key that is refused. A
local model is loaded before the bound starts: importing torch alone can take longer than an
answer may, and a slow load is not a model that does not answer.

The embedder check names the tier (``default``, ``minilm``, ``custom`` or ``none``), the model
and, when ov knows it, the licence of the weights, in its detail and as ``tier``, ``provider``,
``model`` and ``licence`` in ``--json``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace

from ov.errors import proposal
from ov.wording import counted

PROBE_SECONDS = 20.0


@dataclass(frozen=True)
class Check:
    """One line of `ov doctor`: what was checked, how it stands, and how to fix it."""

    name: str
    status: str  # ok | warn | fail
    detail: str
    fix: str = ""  # a command a tool also runs is a proposal (ov.errors.proposal), spelled by each edge
    facts: dict = field(default_factory=dict)  # what a program may want without parsing the detail

    def to_dict(self) -> dict:
        return {**self.facts, "name": self.name, "status": self.status, "detail": self.detail, "fix": self.fix}


def diagnose(loaded_config, store, *, probe: bool = True, indices=None) -> list[Check]:
    """``indices``: the store's :class:`~ov.index.sync.Indices` as a long-lived process keeps
    them (the MCP server: its embedder and vectors stay loaded from one check to the next)."""
    checks = [_config(loaded_config), _identity(store.identity), _store(store)]
    private = _private(store.home.root)
    if private is not None:
        checks.append(private)
    writable = _writable(store) if store.exists else None
    if writable is not None:
        checks.append(writable)
    checks.extend(_index(store, probe=probe, indices=indices, updatable=writable is None or writable.status != "fail"))
    checks.append(_llm(loaded_config.config.llm, probe=probe))
    pending = _pending_extraction(store) if store.exists and store.missing_account() is None else None
    if pending is not None:
        checks.append(pending)
    failed = _failed_fold(store) if store.exists else None
    if failed is not None:
        checks.append(failed)
    unreadable = _memories_not_text(store) if store.exists else None
    if unreadable is not None:
        checks.append(unreadable)
    prompts = _prompts(store.home.root / "prompts")
    if prompts is not None:
        checks.append(prompts)
    return checks


def diagnose_on_defaults(error, store, *, probe: bool = True, indices=None) -> list[Check]:
    """The checks when the config file does not load (``error``, a ConfigError): that failure
    first, then every other check on the defaults, ``store`` being opened with them and the
    identity of the flags and environment. A broken config is what a user most needs doctor for."""
    from ov.config import Config, LoadedConfig

    defaults = LoadedConfig(Config(), store.home.config_path, True)
    return [config_failure(error), *diagnose(defaults, store, probe=probe, indices=indices)[1:]]


def config_failure(error) -> Check:
    """The finding for a config file that does not load (the other checks then use the defaults)."""
    return Check("config", "fail", error.message, error.hint or "fix the file; `ov config show` names the line")


def _config(loaded) -> Check:
    if not loaded.exists:
        return Check("config", "ok", f"no {loaded.path} (defaults apply)")
    if loaded.invalid:  # ov works on, with defaults the user did not choose: theirs must be fixed
        said = [f"{value.describe()} ({value.outcome()})" for value in loaded.invalid]
        if loaded.unknown:
            said.append("unknown keys ignored: " + ", ".join(loaded.unknown))
        fix = "; ".join(value.fix() for value in loaded.invalid)
        return Check("config", "fail", f"{loaded.path}: " + "; ".join(said), fix, {"invalid": [value.key for value in loaded.invalid]})
    if loaded.warnings:
        return Check("config", "warn", "; ".join(loaded.warnings), f"edit {loaded.path}")
    return Check("config", "ok", str(loaded.path))


def _identity(identity) -> Check:
    parts = [f"{field} {getattr(identity, field)} ({identity.source_of(field)})" for field in ("account", "user")]
    peer = f"peer {identity.peer} ({identity.source_of('peer')})" if identity.peer else "no peer (hooks use each workspace as the peer)"
    return Check("identity", "ok", ", ".join([*parts, peer]))


def _store(store) -> Check:
    missing = store.missing_account()
    if missing is not None:  # what every read would refuse with, said once here
        return Check("store", "warn", missing.message, f"{missing.hint}, as does `ov init`")
    if not store.exists:
        return Check("store", "warn", f"no store at {store.root} yet", "the first write creates it (or run `ov init`)")
    head = store.git.head()
    return Check("store", "ok", f"{store.root} at {head.decode()[:10] if head else '-'}")


def _private(root) -> Check | None:
    """Whether other local users can get at the home (None when there is none yet). Any access
    counts, not only reading: with execute alone, a path they can guess (a session's
    ``messages.jsonl``) is still theirs to open. ov makes its home 0700 but never changes one
    the user made: it says so here."""
    import shlex
    import stat

    try:
        mode = stat.S_IMODE(os.stat(root).st_mode)
    except OSError:
        return None
    if mode & 0o077:
        return Check(
            "home",
            "warn",
            f"{root} is open to other users (mode {mode:04o}): they can read the transcripts and memories in it",
            f"chmod 700 {shlex.quote(str(root))}",
            {"mode": f"{mode:04o}"},
        )
    return Check("home", "ok", f"{root} is readable by you only (mode {mode:04o})", facts={"mode": f"{mode:04o}"})


def _writable(store) -> Check:
    from ov.health import writable

    refused = writable.refusal(store)
    if refused is not None:
        return Check("writable", "fail", refused.message, refused.hint)
    full, free, where = writable.room(store)
    if full is not None:
        fix = "raise the limit on a file's size (`ulimit -f unlimited`)" if full.size_limit else "free some space there (or raise the quota)"
        return Check("writable", "fail", f"{full.message}: every write fails", fix, facts={"free_bytes": free})
    if free is not None and free < writable.LOW_SPACE:
        return Check(
            "writable", "warn", f"only {_size(free)} free under {where}: writes fail once it is full",
            "free some space there (or raise the quota)", facts={"free_bytes": free},
        )
    return Check("writable", "ok", f"ov can write to {store.root} and {store.state}")


def _size(count: int) -> str:
    return f"{count} bytes" if count < 1024 * 1024 else f"{count / (1024 * 1024):.1f} MB"


def _index(store, *, probe: bool, indices=None, updatable: bool = True) -> list[Check]:
    from ov.index.sync import Indices

    indices = indices or Indices(store)
    status = indices.status()
    embedding = status["embedding"]
    facts = {key: embedding.get(key) for key in ("tier", "provider", "model", "licence")}
    if embedding.get("available"):
        embed = _probe_embedder(indices, embedding) if probe else Check("embedder", "ok", _embedder_name(embedding) + _licence(embedding))
    else:
        embed = Check("embedder", "warn", f"none, retrieval is lexical only: {embedding.get('reason')}", "see docs/retrieval.md#embedders")
    embed = replace(embed, facts=facts)
    if not store.exists:
        return [Check("index", "ok", "nothing to index yet"), embed]
    if not updatable and (not status["built"] or status.get("problem") or status.get("damage")):
        # Building or rebuilding it writes to the store: no search can, so none is promised.
        if not status["built"]:
            detail = "not built yet, and ov may not write to the store to build it"
        else:
            state = "damaged" if status.get("damage") else "cannot be used as it is"
            detail = f"{state}, and ov may not write to the store to rebuild it: {status.get('damage') or status['problem']}"
        index = Check("index", "warn", detail, "see the writable check")
    elif not status["built"]:
        index = Check("index", "warn", "not built yet", f"the first {proposal('find', query=...)} builds it, or run `ov reindex`")
    elif status.get("problem"):
        index = Check("index", "warn", f"will be rebuilt: {status['problem']}", "run `ov reindex` now to avoid the wait")
    elif status.get("damage"):
        index = Check("index", "warn", f"damaged, the next search rebuilds it: {status['damage']}", "run `ov reindex` now to avoid the wait")
    elif status.get("vector_file_damage"):
        # Searches read the flat or grouped copy beside it and go on; the next update that writes
        # a new generation of the vectors starts from this file, finds it damaged and rebuilds them.
        detail = f"the vector index's hnswlib file is damaged: {status['vector_file_damage']} (searches read its copy meanwhile)"
        index = Check("index", "warn", detail, "run `ov reindex`")
    elif status.get("vectors_failure"):
        detail = f"{counted(status['records'], 'record')}, searched by their full text: the vectors are to be made, and {status['vectors_failure']}"
        index = Check("index", "warn", detail, "run `ov reindex` once the embedder answers")
    elif status.get("vectors_stale") and updatable:
        # Its full text was built first (an add-resource, a rebuild): a normal state that catches up.
        index = Check("index", "ok", f"{counted(status['records'], 'record')}, its vectors still to be made: the next search or the hooks' job makes them")
    elif status.get("commit") != status.get("head") and not updatable:
        detail = f"{counted(status['records'], 'record')}, behind HEAD: ov may not update it, so searches read it as it is"
        index = Check("index", "warn", detail, "see the writable check")
    elif status.get("commit") != status.get("head"):
        index = Check("index", "ok", f"{counted(status['records'], 'record')}; catches up with HEAD on the next search")
    else:
        index = Check("index", "ok", f"{counted(status['records'], 'record')}, {counted(status['vectors'], 'vector')}, at HEAD")
    return [index, embed]


def _probe_embedder(indices, embedding: dict) -> Check:
    name = _embedder_name(embedding)
    embedder = indices.resolution.embedder
    try:
        if hasattr(embedder, "load"):
            embedder.load()  # seconds for a local model (torch): not the model's answer, so outside the bound
        vectors = embedder.probe("ov doctor probe", PROBE_SECONDS)
    except Exception as exc:  # any failure of the model is the finding itself
        return Check("embedder", "fail", f"{name} does not embed: {getattr(exc, 'message', None) or exc}", "see docs/retrieval.md#embedders")
    return Check("embedder", "ok", f"{name}, {len(vectors[0])} dimensions (probed)" + _licence(embedding))


def _embedder_name(embedding: dict) -> str:
    """``tier minilm, sentence-transformers: /path/model#digest``: the tier, then the model."""
    return f"tier {embedding.get('tier')}, {embedding.get('provider')}: {embedding.get('model')}"


def _licence(embedding: dict) -> str:
    return f", licence {embedding['licence']}" if embedding.get("licence") else ""


def _llm(config, *, probe: bool) -> Check:
    if not config.enabled:
        return Check("llm", "ok", "none configured: summaries, memory extraction and query plans are deterministic")
    where = f"{config.model}" + (f" at {config.api_base}" if config.api_base else "")
    if config.api_key_env and not os.environ.get(config.api_key_env):
        return Check("llm", "fail", f"{config.model}: ${config.api_key_env} is not set", f"export {config.api_key_env}=...")
    if not probe:
        return Check("llm", "ok", where)
    from ov.llm.client import complete, import_litellm, served_by_litellm

    if served_by_litellm(config.model):
        import_litellm()  # seconds on a slow machine: not the model's time, so outside the bound
    messages = [{"role": "user", "content": "Reply with the single word: ok"}]
    try:
        # Bounded inside the client, which hangs the request up when the bound passes: a probe given
        # up on does not run on to llm.timeout (nor past the end of ``ov doctor``).
        complete(config, messages, purpose="doctor probe", max_tokens=5, seconds=min(config.timeout, PROBE_SECONDS))
    except Exception as exc:  # any failure of the model is the finding itself
        return Check("llm", "fail", f"{where} does not answer: {getattr(exc, 'message', None) or exc}", f"check llm.model, llm.api_base and the key, then {proposal('doctor')} again")
    return Check("llm", "ok", f"{where} (answered a probe)")


def _pending_extraction(store) -> Check | None:
    """The sessions whose memory extraction failed (None when there is none): their archived
    messages wait for the next commit, which says nothing until it runs."""
    from ov.sessions.session import list_sessions

    pending = {row["session"]: row["extraction_pending"] for row in list_sessions(store) if row.get("extraction_pending")}
    if not pending:
        return None
    first = next(iter(pending))
    return Check(
        "memories",
        "warn",
        f"memory extraction failed in {len(pending)} session(s) ({', '.join(list(pending)[:3])}{', ...' if len(pending) > 3 else ''}): "
        "their archived messages are extracted again by the session's next commit",
        f"`ov commit {first}` tries now (`ov session show {first}` names the archives; each archive's .failed.json the error)",
        {"sessions": pending},
    )


def _failed_fold(store) -> Check | None:
    """A fold of packs that failed on a damaged pack (None when there is none): packing skips those
    packs from then on, and says so nowhere else (it runs in the background)."""
    from ov.store.packfold import failed_fold

    git = store.git
    failed = failed_fold(git.state, git.worktree / ".git" / "objects" / "pack")
    if failed is None:
        return None
    return Check("packing", "warn", failed.message, failed.fix(git.worktree), {"packs": failed.packs})


def _memories_not_text(store) -> Check | None:
    """The memory files that are not UTF-8 text (None when there is none): every extraction into
    one fails, and the failure is all the other checks show."""
    from ov.health.memories import not_text
    from ov.sessions.memory.files import NOT_TEXT_FIX

    found = not_text(store)
    if not found:
        return None
    listed = ", ".join(str(uri) for uri in found[:3]) + (", ..." if len(found) > 3 else "")
    detail = f"{counted(len(found), 'memory file')} not UTF-8 text ({listed}): ov cannot merge memories into them, and recall leaves them out"
    return Check("memory files", "fail", detail, NOT_TEXT_FIX.replace("save it", "save each"), {"not_text": [str(uri) for uri in found]})


def _prompts(folder) -> Check | None:
    """Whether every prompt override in ``folder`` loads and renders; None when there are none.

    A broken one is not a crash anywhere: each model call falls back to the offline rules, so
    without this check the only sign is that nothing the model would do ever happens.
    """
    from ov.errors import OvError
    from ov.llm.prompts import CONTRACTS, load_prompt

    try:
        names = sorted(path.name for path in folder.iterdir() if path.suffix == ".yaml")
    except OSError:
        return None
    if not names:
        return None
    problems = []
    for name in names:
        stem = name.removesuffix(".yaml")
        if stem not in CONTRACTS:
            problems.append(f"{folder / name}: ov has no prompt named {stem!r} (it has {', '.join(sorted(CONTRACTS))})")
            continue
        provides, requires = CONTRACTS[stem]
        try:
            load_prompt(stem, prompts_dir=folder, provides=provides, requires=requires).render({v: v for v in provides})
        except OvError as exc:
            problems.append(exc.message)
        except (KeyError, ValueError) as exc:  # a template parse_prompt let through and substitution refuses
            problems.append(f"{folder / name} does not render: {exc}")
    if problems:
        return Check(
            "prompts", "fail", "; ".join(problems), "fix or remove the file: until then the model's work falls back to the offline rules", {"overrides": names}
        )
    return Check("prompts", "ok", f"{len(names)} override(s) in {folder} load and render", facts={"overrides": names})


def exit_status(checks: list[Check]) -> int:
    return 1 if any(c.status == "fail" for c in checks) else 0

