"""Group commit: the holder of the write lock commits the small writes queued behind it.

Hooks of many agent sessions write at once: a captured turn, a note. Each is a
commit of a few files, and alone it holds the lock for ~10 ms of CPU: lock
hand-over, recovery check, journal, fsyncs, branch move, git index. On a loaded
machine (dozens of processes starting up on a few cores) the holder gets a
small share of a CPU, those 10 ms stretch to 150, and a queue of 30 writers
waits seconds. So such a write is queued as a *request* (:class:`ov.store.lock.Request`)
and the holder, once its own work is done, runs the requests queued behind it
through the same functions the commands use, each as its own commit on a
:class:`~ov.store.gitstore.CommitChain`, and lands them together: one fsync round, one
branch move, one index update. A holder that is itself a servable step puts its
own commit first in that batch; requests that queue while a batch is served join
it. A writer whose request was served gets the outcome its own process would
have had, commit id and error alike.

Only steps listed in :data:`SERVABLE` are served, with their arguments as
JSON; everything else (adds, session commits, restores) takes the lock as it
always did, and serves the queue behind it when done.
"""

from __future__ import annotations

import importlib
import json
import logging
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any, TypeVar

from ov import errors
from ov.errors import OvError
from ov.identity import Identity
from ov.store.gitstore import CommitChain
from ov.store.lock import Request, WriteLock
from ov.store.store import CommitResult, Store, Transaction, commit_message, names_with_changes
from ov.uri import VikingURI

T = TypeVar("T")

# The locked steps a holder runs for others: name -> "module:function", called as
# function(store, **args) under the lock. Named here, so a request cannot run anything else.
SERVABLE = {
    "write": "ov.store.store:locked_write",
    "session.add": "ov.sessions.session:locked_add",
}
# Requests one holder serves in one batch (those queued meanwhile included); the rest wait for the next.
MAX_SERVED = 64
# A request's arguments larger than this are not queued (they would be copied through a file);
# such a writer takes the lock itself.
MAX_REQUEST_BYTES = 256 * 1024


_log = logging.getLogger("ov")


def run(store: Store, step: str, args: dict[str, Any], decode: Callable[[dict], T]) -> T:
    """Run the servable ``step`` for ``store`` under the write lock, or have the holder run it.

    ``decode`` turns the step's result, encoded as :func:`encode` does, back into its type.
    """
    function = _resolve(step)
    if store.chain is not None:  # being served: the holder's lock and chain are in force
        return function(store, **args)
    lock = store.write_lock()
    store.git.warm_up()
    request = json.dumps({"step": step, "args": args, "identity": asdict(store.identity), "via": store.via, "confined": store.confined}).encode()
    outcome = lock.acquire(request if store.exists and len(request) <= MAX_REQUEST_BYTES else None)
    if outcome is not None:
        return _noted(store, _decoded(outcome, decode))
    try:
        leftover = lock.leftover
        if leftover is not None and leftover.get("commit") and _landed(store, leftover["commit"], leftover.get("base")):
            return _noted(store, _decoded(leftover, decode))
        # Nothing of this writer's has landed: a stop that came while a holder had its request (and
        # gave it back, or died before its commit landed) holds now, before it writes it itself.
        lock.check_stop()
        if store.exists:
            with Transaction(store):
                pass  # recovery and the queue's sweep, under the lock (taken above; re-entered here)
        # Else the step runs alone (no chain without a repository), and its own transaction
        # recovers and sweeps, makes the account's repository and discards it again when it
        # commits nothing (a first write that failed). Made here too, it was made, discarded as a
        # transaction that committed nothing, and made again.
        return _noted(store, _run_locked(store, lock, function, args))
    finally:
        lock.release()


def _noted(store: Store, result: T) -> T:
    """``result``, its commit noted in ``store.commits``: a commit served by another writer, or
    made on a chain, lands only with its batch, so it is noted once it did."""
    commit = getattr(result, "commit", None)
    if isinstance(commit, str) and commit not in store.commits:
        store.commits.append(commit)
    return result


def _run_locked(store: Store, lock: WriteLock, function: Callable[..., Any], args: dict[str, Any]) -> Any:
    """The step, as the lock's holder: alone, or first of a batch with the steps queued behind it."""
    chain = _chain(store)
    if chain is None:
        return _alone(store, lock, function, args)
    # The holder's own step is the first commit of the batch: its commit and those it serves
    # land together, in one fsync round and one branch move, not one after the other.
    store.chain = chain
    try:
        result = function(store, **args)
    except OvError:
        if chain.tip == chain.base:
            serve(store, lock, chain)  # nothing of its own on the chain: the others still land
        else:
            serve(store, lock)  # it failed after its commit: that chain cannot land
        raise
    finally:
        store.chain = None
    if not serve(store, lock, chain):
        # Its batch did not land: the step runs again on its own, and says what stops it.
        result = function(store, **args)
    return result


def _alone(store: Store, lock: WriteLock, function: Callable[..., Any], args: dict[str, Any]) -> Any:
    """The step committed by itself, then the queue served."""
    try:
        result = function(store, **args)
    except OvError:
        serve(store, lock)
        raise
    serve(store, lock)
    return result


def _chain(store: Store) -> CommitChain | None:
    """A chain on HEAD, or None when one cannot be made (nothing is served then)."""
    if not store.exists:
        return None
    try:
        return CommitChain(store.git, store.git.head())
    except Exception as exc:  # noqa: BLE001 - the writers run their own steps instead
        _log.debug("not serving queued writes: %s", exc)
        return None


def serve(store: Store, lock: WriteLock, chain: CommitChain | None = None) -> bool:
    """Commit the requests queued behind ``lock``'s holder, on ``chain`` when given (it holds
    the holder's own commit), and land them; whether ``chain`` landed (True without one).
    Never raises an ov error: whatever cannot be served is given back, and its writer runs it
    itself.

    Every outcome, an error too, is recorded first and confirmed only once the batch has
    landed: an error may come from an earlier request of the same batch (a file where a folder
    was to be), and must not reach its writer if that request never lands.
    """
    if not lock.outermost or not store.exists:
        return chain is None
    requests = lock.requests()
    if not requests and chain is None:
        return True
    own = chain is not None
    chain = chain if chain is not None else _chain(store)
    if chain is None:
        return True
    recorded: list[Request] = []
    for request in _queued(lock, requests):
        content = request.claim()
        if content is None:
            continue
        tip = chain.tip
        try:
            outcome = {"ok": _serve_one(store, chain, content)}
        except OvError as exc:
            outcome = {"error": {"type": type(exc).__name__, **exc.to_dict(), "arguments": sorted(exc.arguments)}}
        except Exception as exc:  # noqa: BLE001 - a defect is best reported by the writer's own process
            _log.debug("queued write given back: %s", exc)
            outcome = None
        if chain.tip != tip and (outcome is None or "error" in outcome):
            # It failed after its commit was made: the batch cannot be trusted, none of it lands.
            _give_back([*recorded, request])
            return False
        if outcome is None:
            request.back()
            continue
        outcome["commit"] = chain.tip.decode() if chain.tip != tip and chain.tip else None
        outcome["base"] = chain.base.decode() if chain.base else None
        try:
            request.record(outcome)
        except OSError as exc:  # a full disk: the change is in the chain, so none of it may land
            _log.debug("queued writes given back: %s", exc)
            _give_back([*recorded, request])
            return False
        recorded.append(request)
    if not own and not recorded:
        return True
    try:
        chain.land(appends=chain.appends, defer_index=lock.others_waiting(after=recorded[-1].name if recorded else None))
    except Exception as exc:  # noqa: BLE001 - each writer commits its own, unless the batch did land
        try:
            landed = chain.tip != chain.base and store.git.head() == chain.tip
        except Exception:  # noqa: BLE001
            landed = False
        if not landed:
            _log.debug("queued writes given back: %s", exc)
            _give_back(recorded)
            return False
        _log.debug("queued writes landed, then: %s", exc)
    for request in recorded:
        request.confirm()
    return True


def _queued(lock: WriteLock, first: list[Request]) -> Iterator[Request]:
    """The requests to serve, up to :data:`MAX_SERVED`: those queued when serving began, then
    those that queued meanwhile. A writer arriving during a batch joins it instead of waiting
    for this batch to land and the next holder's to follow: under load that halves the wait."""
    count = 0
    batch = first
    while batch:
        for request in batch:
            if count == MAX_SERVED:
                return
            count += 1
            yield request
        batch = lock.requests()  # a request served, withdrawn or given back is not listed again


def _give_back(requests: list[Request]) -> None:
    for request in requests:
        request.back()


def encode(result: Any) -> dict:
    return asdict(result)


def decode_commit(data: dict) -> CommitResult:
    return CommitResult(data["command"], tuple(data["uris"]), data["commit"], data.get("redacted", 0))


def _serve_one(store: Store, chain: CommitChain, content: dict) -> dict:
    function = _resolve(content["step"])
    identity = Identity(**content["identity"])
    if identity.account != store.identity.account:
        raise ValueError("a request for another account")
    # Opened as the writer opened it: a confined writer's URIs are checked again as the step
    # reads them, here, not only in the writer's process before it queued them.
    served = Store(store.home, identity, store.config, via=content.get("via"), confined=content.get("confined") is True)
    served.git = store.git  # one open repository for the whole batch (opening one reads its config and packs)
    served.chain = chain
    return encode(function(served, **content["args"]))


def _resolve(step: str) -> Callable[..., Any]:
    target = SERVABLE.get(step)
    if target is None:
        raise ValueError(f"not a servable step: {step!r}")
    module, _, name = target.partition(":")
    return getattr(importlib.import_module(module), name)


def _decoded(outcome: dict, decode: Callable[[dict], T]) -> T:
    failure = outcome.get("error")
    if failure is not None:
        raise _error(failure)
    return decode(outcome["ok"])


def _error(failure: dict) -> OvError:
    """The served step's error, as the writer's own process would have raised it."""
    cls = getattr(errors, str(failure.get("type")), None)
    if not (isinstance(cls, type) and issubclass(cls, OvError)):
        cls = OvError
    exc = cls.__new__(cls)
    # The hint as raised, its arguments unspelled: the writer's edge spells them for its caller.
    OvError.__init__(exc, failure.get("message") or "the write failed", hint=failure.get("hint"), arguments=set(failure.get("arguments") or ()))
    if failure.get("code"):
        exc.code = failure["code"]
    return exc


def _landed(store: Store, commit: str, base: str | None) -> bool:
    """Whether ``commit`` is HEAD or one of its ancestors since ``base`` (the HEAD its batch was
    built on), after recovery settled a holder killed while it landed the batch."""
    store.git.recover()
    try:
        return store.git.reaches(commit, base)
    except Exception:  # noqa: BLE001 - cannot tell: the writer runs its step again
        return False


class ServedTransaction(Transaction):
    """A transaction of a request served by the lock's holder: it reads through the changes
    the chain made so far and commits onto the chain instead of the branch."""

    def __init__(self, store: Store, chain: CommitChain) -> None:
        super().__init__(store)
        self.chain = chain

    def __enter__(self) -> ServedTransaction:
        self.head = self.chain.tip
        # Paths the chain has not changed are as in the work tree and its base commit.
        self.tree = self.chain.base_tree
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        return None

    def existing_file(self, uri: VikingURI, path: Path | None = None) -> bytes | None:
        if uri.path not in self.changes and uri.path in self.chain.contents:
            return self.chain.contents[uri.path]
        prefix = uri.path + "/"
        if any(path.startswith(prefix) and data is not None for path, data in self.chain.contents.items()):
            raise errors.IsADirectory(f"{uri} is a directory", hint="name a file inside it")
        return super().existing_file(uri, path)

    def file_names(self, uri: VikingURI) -> list[str]:
        names = set(super().file_names(uri))
        names_with_changes(names, uri.path, self.chain.contents)  # what the chain changed, under this one's own
        names_with_changes(names, uri.path, self.changes)
        return sorted(names)

    def require_parent_dirs(self, uri: VikingURI) -> None:
        parent = uri.parent
        while parent is not None and not parent.is_root:
            if self.chain.contents.get(parent.path) is not None:
                raise errors.NotADirectory(f"{parent} is a file, so {uri} cannot be created under it")
            parent = parent.parent
        super().require_parent_dirs(uri)

    def write_ahead(self) -> None:
        return None

    def commit(self, command: str, uris: list[VikingURI], subject: str | None = None, *, hand_edits: Sequence[str] = ()) -> CommitResult:
        texts = [str(u) for u in uris]
        for path in self.changes:
            offset = self.appends.get(path)
            if offset is not None and (path not in self.chain.contents or path in self.chain.appends):
                self.chain.appends.setdefault(path, offset)  # still one run of appends to the file
            else:
                self.chain.appends.pop(path, None)
        commit = self.chain.add(self.changes, commit_message(command, texts, subject, via=self.store.via, hand_edits=list(hand_edits)), self.store.author)
        self.changes, self.appends = {}, {}
        return CommitResult(command, tuple(texts), commit.decode() if commit else None)
