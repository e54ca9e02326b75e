"""Git remotes of an account: where ``ov push`` sends commits and ``ov pull`` takes them from.

Remotes live in the account repository's ``.git/config`` (``[remote "NAME"] url = ...``),
so plain ``git remote -v`` in the account repository shows the same list. Any git URL
works: a path, ``file://``, ``ssh://`` or ``user@host:path``, ``http(s)://``.

Push sends ``refs/heads/main`` and refuses (before anything is sent) when the remote has
commits this account does not have. A repository on a path that ``git init --bare`` made names
``master`` as its HEAD; when a push creates ``main`` there and HEAD names no branch that
exists, HEAD is pointed at ``main`` so that ``git clone`` checks it out. Pull fetches the
remote's ``main`` and then:

- up to date (the remote has nothing new): nothing happens;
- fast-forward: HEAD moves to the remote's commit and only the changed paths of the work
  tree are rewritten;
- replaced: the account held only its empty first commit (``ov remote add`` before any
  write), so the remote's history takes its place;
- diverged: one merge commit with two parents. A path changed on one side only is taken
  from that side. A file changed differently on both sides keeps both versions: ours stays
  at its path and theirs is written beside it as ``NAME.theirs-<shortsha>.EXT``
  (:func:`conflict_copy_name`). The merge commit records each conflict (``Ov-Conflict:``)
  and each copy (``Ov-Conflict-Copy:``); :func:`conflicts` lists the recorded copies still
  present, so ``ov status`` can report them until the user resolves them (edit the file,
  remove the copy). A file of the user's that merely looks like a copy is not one.

HEAD and the work tree move under the account's write lock with the same journal that
:mod:`ov.store.gitstore` uses, so a crash midway is rolled forward or back by
:meth:`GitStore.recover`.
"""

from __future__ import annotations

import logging
import os
import re
import shlex
import stat
from dataclasses import dataclass, field

from ov.errors import (
    EXIT_USAGE,
    AlreadyExists,
    HandEditConflict,
    InvalidInput,
    NotFound,
    OvError,
    StoreLocked,
    UnsafeTree,
    quote,
)
from ov.history.snapshots import TAG_PREFIX
from ov.home import expand_user
from ov.store.gitstore import BRANCH, FILE_MODE, GitStore
from ov.store.store import Store, commit_message, trailers
from ov.store.treepaths import in_scopes
from ov.uri import SCHEME, VikingURI, work_path_problem

DEFAULT_REMOTE = "origin"
_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
# NAME.theirs-<7..40 hex>[.EXT]: how conflict_copy_name names the copy of the remote's version.
_CONFLICT_RE = re.compile(r"\.theirs-[0-9a-f]{7,40}(-[0-9]+)?(\.[^./]*)?$")
CONFLICT_COPY_TRAILER = "Ov-Conflict-Copy"
KEPT_TRAILER = "Ov-Conflict-Kept"  # changed here, deleted on the remote: ours kept at its path
SHORT = 7
log = logging.getLogger(__name__)


class RemoteUnreachable(OvError):
    """The remote cannot be reached, is not a git repository, or refused the request."""

    code = "remote_unreachable"
    hint = "check the URL with `ov remote list` and that the server or path is available"


class PushRejected(OvError):
    """The remote has commits this account does not have (a non-fast-forward push)."""

    code = "push_rejected"
    hint = "`ov pull` merges the remote's commits; then push again"


class RemoteNotBare(OvError):
    """The remote is a repository with a work tree whose checked-out branch is ``main``."""

    code = "remote_not_bare"
    exit_code = EXIT_USAGE
    hint = "share through a bare repository: `git init --bare -b main PATH`, then `ov remote add NAME PATH` on every machine"


class BadRemote(OvError):
    """The remote answered with refs or objects no git repository ov pushed to would hold."""

    code = "bad_remote"
    exit_code = EXIT_USAGE
    hint = "nothing was changed here; `git fsck` and `git show-ref` in the remote repository show what is wrong there"


class UnrelatedHistories(OvError):
    """The remote's history and this account's share no commit."""

    code = "unrelated_histories"
    exit_code = EXIT_USAGE
    hint = "check the URL with `ov remote list`; if both histories belong together, `ov pull --allow-unrelated` merges them"


class MergeImpossible(OvError):
    code = "merge_impossible"
    hint = "resolve the clash on one side, commit, then pull again"


@dataclass(frozen=True)
class Remote:
    """A git remote of the account: its name and URL."""

    name: str
    url: str
    push_url: str | None = None  # remote.NAME.pushurl, when git was told to push elsewhere


@dataclass
class PushResult:
    """What `ov push` sent: the remote's main before and after, and the tags it lacked."""

    remote: str
    url: str
    old_head: str | None  # the remote's main before the push
    new_head: str | None
    pushed: bool
    tags: list[str] = field(default_factory=list)  # tags the remote did not have, sent with main
    diverged_tags: list[str] = field(default_factory=list)  # tags both have, at different commits: left as they are
    # Why a pull of what was sent is refused (a path no pull takes, which an older ov wrote or a
    # pull took in before pulls checked), or None. Sent all the same: the remote is this account's
    # copy too, and the path is in commits no later one can take back out.
    refused_by_pull: str | None = None


@dataclass
class PullResult:
    """What `ov pull` did to main, which files it changed, and any conflicts."""

    remote: str
    url: str
    outcome: str  # "up-to-date", "fast-forward", "replaced", "merged", "empty-remote"
    old_head: str | None
    new_head: str | None
    remote_head: str | None
    changed: list[str] = field(default_factory=list)
    conflicts: list[dict] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)  # the remote's tags this account did not have
    diverged_tags: list[str] = field(default_factory=list)  # tags both have, at different commits: ours kept
    warnings: list[str] = field(default_factory=list)  # what was taken in but is worth a look (one name in two cases)
    shortened: list[str] = field(default_factory=list)  # summaries cut to their layer's limit, as an import cuts them

    @property
    def merged(self) -> bool:
        return self.outcome == "merged"


# --- remote configuration ------------------------------------------------------


def validate_name(name: str) -> str:
    if not _NAME_RE.match(name or "") or ".." in name or name.endswith(".lock"):
        raise InvalidInput(
            f"invalid remote name {name!r}",
            hint="use letters, digits, '.', '_' and '-' (at most 64, starting with a letter or digit)",
        )
    return name


def normalize_url(url: str) -> str:
    """Check a git URL; a local path becomes absolute (so it works from any directory)."""
    if not url or not url.strip() or any(ord(c) < 32 or c == "\x7f" for c in url):
        raise InvalidInput(f"invalid remote URL {url!r}", hint="give a path, file://, ssh:// or http(s):// URL")
    if _option_like(url):
        raise InvalidInput(
            f"invalid remote URL {url!r}: its host starts with '-', which ssh would read as an option",
            hint="give the host name itself (user@host:path or ssh://host/path)",
        )
    if "://" in url:
        scheme = url.split("://", 1)[0].lower()
        if scheme not in ("file", "ssh", "git", "http", "https", "git+ssh", "ssh+git"):
            raise InvalidInput(f"unsupported URL scheme {scheme!r} in {url!r}", hint="use a path, file://, ssh:// or http(s)://")
        return url
    if re.match(r"^[^/]*:", url) and not re.match(r"^[A-Za-z]:[\\/]", url):
        return url  # scp-like ssh: [user@]host:path
    return os.path.abspath(expand_user(url))


def _option_like(url: str) -> bool:
    """Whether the host of ``url`` (or the URL itself) starts with '-': ssh takes it for an option
    (``-oProxyCommand=...``), which runs a command; git refuses such URLs too."""
    if url.startswith("-"):
        return True
    if "://" in url:
        rest = url.split("://", 1)[1]
        host = rest.split("/", 1)[0].rpartition("@")[2]
        return host.startswith("-")
    return False


def list_remotes(store: Store) -> list[Remote]:
    if not store.exists:
        return []
    config = store.git.repo.get_config()
    out = []
    for section in config.sections():
        if len(section) == 2 and section[0] == b"remote":
            try:
                url = config.get(section, b"url").decode("utf-8", "replace")
            except KeyError:
                continue
            try:
                push_url: str | None = config.get(section, b"pushurl").decode("utf-8", "replace")
            except KeyError:
                push_url = None  # git pushes to url then
            out.append(Remote(section[1].decode("utf-8", "replace"), url, push_url))
    return sorted(out, key=lambda r: r.name)


def add_remote(store: Store, name: str, url: str) -> Remote:
    validate_name(name)
    url = normalize_url(url)
    # The account comes into being with its first remote (a pull into it follows): made here, as
    # a transaction that commits nothing discards the repository it made.
    store.init()
    with store.transaction():  # the write lock
        config = store.git.repo.get_config()
        section = (b"remote", name.encode())
        if config.has_section(section):
            raise AlreadyExists(f"remote {name!r} already exists", hint=f"remove it first with `ov remote remove {name}`")
        config.set(section, b"url", url.encode())
        config.set(section, b"fetch", f"+refs/heads/*:refs/remotes/{name}/*".encode())
        config.write_to_path()
    return Remote(name, url)


def remove_remote(store: Store, name: str) -> Remote:
    validate_name(name)
    remote = get_remote(store, name)
    with store.transaction():
        repo = store.git.repo
        config = repo.get_config()
        section = (b"remote", name.encode())
        if config.has_section(section):
            del config[section]
            config.write_to_path()
        prefix = f"refs/remotes/{name}/".encode()
        for ref in [r for r in repo.refs.allkeys() if r.startswith(prefix)]:
            repo.refs.remove_if_equals(ref, None)
    return remote


def _existing_remotes(store: Store) -> list[Remote]:
    """The remotes of an account a command needs one of: a mistyped ``--account`` (one that does
    not exist while the home holds others) fails as reading it does, not as an account with no remote."""
    missing = store.missing_account()
    if missing is not None:
        raise missing
    return list_remotes(store)


def get_remote(store: Store, name: str) -> Remote:
    validate_name(name)
    for remote in _existing_remotes(store):
        if remote.name == name:
            return remote
    raise NotFound(f"no remote named {name!r}", hint="see `ov remote list`; add one with `ov remote add NAME URL`")


def resolve_remote(store: Store, name: str | None) -> Remote:
    """The named remote; without a name, the only one, else ``origin``."""
    if name is not None:
        return get_remote(store, name)
    remotes = _existing_remotes(store)
    if not remotes:
        raise NotFound("no remote is configured", hint="add one with `ov remote add origin URL`")
    if len(remotes) == 1:
        return remotes[0]
    for remote in remotes:
        if remote.name == DEFAULT_REMOTE:
            return remote
    names = ", ".join(r.name for r in remotes)
    raise InvalidInput(f"several remotes and none is named origin: {names}", hint="name the remote to use")


# --- push ------------------------------------------------------------------------


def push(store: Store, name: str | None = None) -> PushResult:
    """Send ``main`` to the remote; refuse when the remote has commits we do not have."""
    remote = resolve_remote(store, name)
    git = store.git
    repo = git.repo
    head = git.head()
    if head is None:
        raise NotFound("the account has no commits to push")
    from dulwich.graph import can_fast_forward

    seen: dict = {}
    sent: list[str] = []
    diverged: list[str] = []
    target = remote.push_url or remote.url

    def update_refs(refs):
        old = refs.get(BRANCH)
        seen["old"] = old
        if old is not None and old != head:
            if old in repo.object_store and repo[old].type_name != b"commit":
                raise BadRemote(f"the remote {remote.name!r} has a main that names a {repo[old].type_name.decode()}, not a commit")
            if old not in repo.object_store or not can_fast_forward(repo, old, head):
                raise PushRejected(
                    f"the remote {remote.name!r} has commits you do not have; run `ov pull` first",
                    hint=f"`ov pull {remote.name}` merges them, then `ov push {remote.name}` again",
                )
        from ov.store.treepaths import first_unsafe, quoted

        found = first_unsafe(repo, [head], [old] if old is not None else [], skip_missing=True)
        if found is not None:
            seen["refused"] = f"its commit {found.commit[:10]} holds {quoted(found.path)}, {found.problem}"
        new = dict(refs)
        new[BRANCH] = head
        for ref, sha in sorted(repo.refs.as_dict(TAG_PREFIX).items()):
            theirs_tag = refs.get(TAG_PREFIX + ref)
            if theirs_tag is None:  # a tag is never moved on the remote, only added
                new[TAG_PREFIX + ref] = sha
                sent.append(ref.decode())
            elif theirs_tag != sha:
                diverged.append(ref.decode())
        return new

    client, path = _client(remote, target)
    _refuse_checked_out_main(remote, client, path)
    result = _talk(remote, lambda: client.send_pack(path, update_refs, generate_pack_data=repo.generate_pack_data))
    status = (getattr(result, "ref_status", None) or {}).get(BRANCH)
    if status is not None:
        text = status.decode("utf-8", "replace") if isinstance(status, bytes) else str(status)
        raise RemoteUnreachable(
            f"the remote {remote.name!r} refused the push: {text}",
            hint=f"if someone pushed meanwhile, run `ov pull {remote.name}` first",
        )
    old = seen.get("old")
    if old is None:
        _point_head_at_main(client, path)
    _set_tracking(repo, remote.name, head)
    return PushResult(remote.name, target, old.decode() if old else None, head.decode(), old != head, sent, diverged, seen.get("refused"))


# --- pull ------------------------------------------------------------------------


def _refuse_checked_out_main(remote: Remote, client, path: str) -> None:
    """Refuse a push into a repository on a path whose work tree has ``main`` checked out (another
    machine's account, a clone): its branch would move under its files, which then read as
    deleted or changed by hand there, and its lock and journal would be bypassed. git refuses the
    same (``receive.denyCurrentBranch``); dulwich's local transport does not."""
    from dulwich.client import LocalGitClient
    from dulwich.errors import NotGitRepository
    from dulwich.repo import Repo

    if not isinstance(client, LocalGitClient):
        return  # a server applies its own receive.denyCurrentBranch
    try:
        with Repo(path) as target:
            if target.bare:
                return
            head = (target.refs.read_ref(b"HEAD") or b"").strip()
    except (OSError, NotGitRepository):
        return  # the push itself says what is wrong with the path
    if head == b"ref: " + BRANCH:
        raise RemoteNotBare(
            f"refused to push to {remote.name!r} ({path}): it is a repository with a work tree that has main checked out "
            "(another account, or a clone); the push would move main under its files",
            hint=f"push to a bare repository instead: `git init --bare -b main /srv/git/context.git`, `ov remote remove {remote.name}`, "
            f"`ov remote add {remote.name} /srv/git/context.git` here and on the other machine, then `ov push`; see docs/sharing.md",
        )


def pull(store: Store, name: str | None = None, *, allow_unrelated: bool = False) -> PullResult:
    """Fetch the remote's ``main`` and fast-forward or merge it into this account (one commit at most).
    Histories that share no commit are merged only with ``allow_unrelated``."""
    result = _pull(store, resolve_remote(store, name), allow_unrelated)
    if result.outcome in ("fast-forward", "replaced", "merged"):
        from ov.store.worktree import scan

        scan(store.git)  # the git index now matches the new HEAD (plain `git status` agrees)
    return result


def _pull(store: Store, remote: Remote, allow_unrelated: bool = False) -> PullResult:
    git = store.git
    theirs, remote_tags = _fetch(git, remote)
    with store.transaction() as tx:  # write lock held; an interrupted commit recovered
        result = _integrate(store, tx, remote, theirs, allow_unrelated)
        result.tags, result.diverged_tags = _adopt_tags(git.repo, remote_tags, git.head())
    return result


def _adopt_tags(repo, remote_tags: dict[bytes, bytes], head: bytes | None) -> tuple[list[str], list[str]]:
    """Create the remote's tags this account lacks (when their commits are here); never move one:
    (the tags created, the tags both have at different commits).
    A tag whose history holds a path ov never writes is left out: its commits may be here from a
    pull that was refused, and a restore of the tag would bring the path back."""
    from dulwich.object_store import peel_sha

    from ov.store.treepaths import first_unsafe

    added: list[str] = []
    diverged: list[str] = []
    # Tags share most of their history: what one tag's check found safe is not read again.
    clean: set[tuple[bytes, str]] = set()
    safe_commits = [head] if head is not None else []
    for ref, sha in sorted(remote_tags.items()):
        if ref.endswith(b"^{}"):
            continue
        ours = repo.refs.as_dict(TAG_PREFIX).get(ref[len(TAG_PREFIX):])
        if ours is not None:
            if ours != sha:
                diverged.append(ref[len(TAG_PREFIX):].decode("utf-8", "replace"))
            continue
        if sha not in repo.object_store:
            continue
        try:
            commit = peel_sha(repo.object_store, sha)[1]
        except KeyError:
            continue  # a tag of an object that is not here
        if commit.type_name != b"commit" or first_unsafe(repo, [commit.id], safe_commits, clean=clean) is not None:
            log.warning("left out the remote's tag %s: its history holds a path ov never writes", ref.decode("utf-8", "replace"))
            continue
        safe_commits.append(commit.id)  # its whole history was found safe: a later tag's walk stops there
        if repo.refs.add_if_new(ref, sha):
            added.append(ref[len(TAG_PREFIX):].decode())
    return added, diverged


def _integrate(store: Store, tx, remote: Remote, theirs: bytes | None, allow_unrelated: bool = False) -> PullResult:
    """Bring ``theirs`` into the account under the transaction's lock: nothing, fast-forward or merge."""
    from ov.store.worktree import scan

    git = store.git
    ours = tx.head
    if theirs is None:
        return PullResult(remote.name, remote.url, "empty-remote", _hex(ours), _hex(ours), None)
    if theirs == ours or (ours is not None and _is_ancestor(git, theirs, ours)):
        _set_tracking(git.repo, remote.name, theirs)
        return PullResult(remote.name, remote.url, "up-to-date", _hex(ours), _hex(ours), _hex(theirs))
    _refuse_unsafe_history(git, remote, ours, theirs)
    taken = _file_changes(git, git.tree_of(ours), git.tree_of(theirs))
    warnings = _refuse_twins(git, remote, ours, theirs) + _oversized(store, taken)
    _set_tracking(git.repo, remote.name, theirs)
    changes = scan(git, refresh_index=False)
    if not changes.clean:
        raise HandEditConflict(
            f"the work tree has {len(changes.changed_paths)} hand edit(s) not yet committed",
            hint="keep them with `ov snapshot commit -m MESSAGE` (see `ov status`), then pull again",
        )
    if ours is None or _is_ancestor(git, ours, theirs):
        outcome = "fast-forward"
    elif _is_empty_root(git, ours):
        outcome = "replaced"  # nothing of ours is lost: our only commit is the empty first one
    else:
        result = _merge(store, tx, remote, ours, theirs, allow_unrelated)
        result.warnings = warnings
        return result
    # What lies outside the scopes (a README.md plain git committed) is kept in the tree, not written.
    changed = [p for p in sorted(taken) if in_scopes(p)]
    _refuse_strays(git, changed)
    cut = _fitted_summaries(git, {p: taken[p] for p in changed})
    new = theirs
    if cut:  # one commit on theirs, as an import cuts them: the pull is still one commit at most
        from dulwich.object_store import commit_tree_changes

        tree = commit_tree_changes(git.repo.object_store, git.tree_of(theirs), [(p.encode(), FILE_MODE, sha) for p, sha in sorted(cut.items())])
        uris = [str(VikingURI(tuple(p.split("/")))) for p in sorted(cut)]
        message = commit_message("pull", uris, f"ov pull {remote.name}: {len(cut)} summary(ies) cut to their layer's limit", via=store.via)
        commit = git.make_commit(tree, [theirs], message, store.author)
        git.repo.object_store.add_object(commit)
        new = commit.id
    git.move_head(ours, new, changed)
    return PullResult(remote.name, remote.url, outcome, _hex(ours), _hex(new), _hex(theirs), changed, warnings=warnings, shortened=sorted(cut))


def _oversized(store: Store, taken: dict[str, bytes | None]) -> list[str]:
    """What to say of each file the pull brings over ``store.max_file_bytes``, which an import
    refuses (:func:`ov.files.size_problem`): every later search indexes it. Said, not refused, as
    a backup takes such a file: the other side's account holds it (a larger limit there, a file
    committed by hand), and a refusal would stop every pull and push. A session's message log,
    which ov writes past the limit itself, is not named."""
    from ov.files import size_hint, size_problem
    from ov.store.sidecar import is_session_log

    limit = store.config.store.max_file_bytes
    out = []
    for path, sha in sorted(taken.items()):
        if sha is None or not in_scopes(path) or is_session_log(path):
            continue
        size = store.git.repo.object_store[sha].raw_length()
        problem = size_problem(size, limit, False)
        if problem is not None:
            out.append(f"pulled {quote(path)}: {problem} (an import refuses it; every search indexes it): remove it, or run {size_hint(size)}")
    return out


def _fitted_summaries(git: GitStore, files: dict[str, bytes | None]) -> dict[str, bytes]:
    """path -> blob of each summary sidecar among ``files`` (path -> blob) over its layer's limit,
    cut as an import cuts it (:func:`ov.summaries.text.fitted_sidecar`)."""
    from dulwich.objects import Blob

    from ov.store.sidecar import SIDECARS
    from ov.summaries.text import fitted_sidecar

    out: dict[str, bytes] = {}
    for path, sha in files.items():
        name = path.rsplit("/", 1)[-1]
        if sha is None or name not in SIDECARS:
            continue
        data, cut = fitted_sidecar(name, git.blob_data(sha))
        if cut:
            blob = Blob.from_string(data)
            git.repo.object_store.add_object(blob)
            out[path] = blob.id
    return out


def _refuse_unsafe_history(git: GitStore, remote: Remote, ours: bytes | None, theirs: bytes) -> None:
    """Refuse the remote's history when a commit ours lacks names a path ov never writes (out of
    the work tree, into ``.git``, a link): not only the tree checked out, since any commit of the
    history can be restored later. Only objects were fetched so far; nothing has moved."""
    from ov.store.treepaths import first_unsafe, quoted, shown

    found = first_unsafe(git.repo, [theirs], [ours] if ours is not None else [])
    if found is not None:
        raise UnsafeTree(
            f"refused to pull {remote.name!r}: its commit {found.commit[:10]} holds {quoted(found.path)}, {found.problem}",
            hint="nothing was changed here; ov writes no such path (a name an older ov stored is pulled as it is). It is in the remote's "
            "history, so removing it in a new commit does not help: pull from another remote, or rewrite that history without it "
            f"(`git filter-repo --invert-paths --path {shlex.quote(shown(found.path))}` in a clone of it) and force-push it there",
        )


def _refuse_twins(git: GitStore, remote: Remote, ours: bytes | None, theirs: bytes) -> list[str]:
    """Refuse a pull that brings one name in two Unicode forms into a folder, as an import refuses
    it (:func:`ov.uri.path_twins`), and say so of one in two cases. Only the folders the pull
    changes are read, in both trees (a merge joins them): a rename on the remote settles it."""
    from ov.uri import UNICODE_TWINS, path_twins

    trees = [git.tree_of(c) for c in (ours, theirs) if c is not None]
    changed = [p for p in _changed_paths(git, trees[0] if len(trees) == 2 else None, trees[-1]) if in_scopes(p)]
    touched = {"/".join(p.split("/")[: i + 1]) for p in changed for i in range(p.count("/") + 1)}
    folders = {t.rpartition("/")[0] for t in touched} - {""}
    paths: set[str] = set()
    warnings: list[str] = []
    for folder in folders:
        for tree in trees:
            entry = git.entry(tree, folder)
            if entry is not None and stat.S_ISDIR(entry[0]):
                paths.update(f"{folder}/{name.decode('utf-8', 'surrogateescape')}" for name in git.repo[entry[1]])
    for first, second, why in path_twins(sorted(paths)):
        if first not in touched and second not in touched:
            continue  # already here before this pull
        if why != UNICODE_TWINS:
            warnings.append(f"pulled {quote(first)} and {quote(second)}, {why}")
            continue
        raise UnsafeTree(
            f"refused to pull {remote.name!r}: it holds {quote(first)} and {quote(second)}, {why} (one file here)",
            hint="nothing was changed here; rename one of them on the remote (a new commit is enough), then pull again",
        )
    return warnings


def conflicts(store: Store) -> list[str]:
    """Paths of committed files that hold the remote's side of an unresolved pull conflict.

    Those are the copies a pull's merge commit recorded (``Ov-Conflict-Copy``) that HEAD still
    holds; one disappears from this list when the user removes it (after merging what they
    want to keep). A file the user named like a copy is not one.
    """
    if not store.exists:
        return []
    git = store.git
    head = git.head()
    # Only a merge records copies: without one in HEAD's history (remembered, so read once) the
    # listing of HEAD's whole tree below is skipped (~0.6 s a status at 30,000 files).
    from ov.history.merges import newest_merge

    if head is None or newest_merge(git) is None:
        return []
    # Every copy is named by conflict_copy_name, so only such names can be one: the history is
    # read only when HEAD holds a file named like that, and only until each is accounted for.
    candidates = {p for p, _ in git.iter_files(git.tree_of(head)) if is_conflict_copy(p)}
    recorded: set[str] = set()
    if candidates:
        for entry in git.repo.get_walker(include=[head]):
            if len(entry.commit.parents) > 1:
                recorded |= _recorded_copies(entry.commit) & candidates
                if recorded == candidates:
                    break
    return sorted(recorded)


def kept_conflicts(store: Store) -> list[str]:
    """Paths the last pull's merge kept although the remote deleted them (changed here), while
    HEAD still holds each as that merge left it: once the user edits or removes one, it is settled.
    Only an account that has pulled can have one; the merge is found however far back it lies,
    reading only the commits made since the last look (:mod:`ov.history.merges`)."""
    if not store.exists:
        return []
    git = store.git
    head = git.head()
    if head is None or not git.repo.refs.keys(b"refs/remotes/"):
        return []
    from ov.history.merges import newest_merge

    commit = newest_merge(git)
    if commit is None:
        return []
    kept = sorted(v[len(SCHEME):] for k, v in trailers(commit) if k == KEPT_TRAILER and v.startswith(SCHEME))
    head_tree = git.tree_of(head)
    return [p for p in kept if git.entry(head_tree, p) is not None and git.entry(head_tree, p) == git.entry(commit.tree, p)]


def is_conflict_copy(path: str) -> bool:
    """Whether ``path`` is named as :func:`conflict_copy_name` names copies (not whether it is one)."""
    return bool(_CONFLICT_RE.search(path.rsplit("/", 1)[-1]))


def _recorded_copies(commit) -> set[str]:
    """The work-tree paths of the conflict copies a merge commit recorded."""
    return {v[len(SCHEME):] for k, v in trailers(commit) if k == CONFLICT_COPY_TRAILER and v.startswith(SCHEME)}


def conflict_copy_name(path: str, commit: bytes | str, n: int = 1) -> str:
    """``dir/NAME.EXT`` -> ``dir/NAME.theirs-<shortsha>.EXT`` (the extension stays last).

    ``n`` > 1 gives ``NAME.theirs-<shortsha>-N.EXT``, for the rare name that is taken.
    """
    sha = (commit.decode() if isinstance(commit, bytes) else commit)[:SHORT] + (f"-{n}" if n > 1 else "")
    head, _, leaf = path.rpartition("/")
    body = leaf[1:] if leaf.startswith(".") else leaf
    dot = "." if leaf.startswith(".") else ""
    stem, sep, ext = body.rpartition(".")
    new = f"{dot}{stem}.theirs-{sha}.{ext}" if sep and stem else f"{leaf}.theirs-{sha}"
    return f"{head}/{new}" if head else new


# --- internals -------------------------------------------------------------------


def _client(remote: Remote, url: str | None = None):
    from dulwich.client import get_transport_and_path

    url = url or remote.url
    if _option_like(url):  # written into .git/config by hand or by an older ov
        raise InvalidInput(f"refused remote {remote.name!r} ({url}): its host starts with '-', which ssh would read as an option", hint="fix the URL with `git remote set-url`")
    try:
        return get_transport_and_path(url, quiet=True)
    except (ValueError, OSError) as exc:
        raise RemoteUnreachable(f"cannot use remote {remote.name!r} ({url}): {exc}") from None


def _talk(remote: Remote, call):
    """Run one network exchange, turning transport failures into one clear error."""
    from dulwich.errors import (
        GitProtocolError,
        HangupException,
        NotGitRepository,
        PackedRefsException,
    )
    from dulwich.file import FileLocked

    errors: tuple = (OSError, GitProtocolError, HangupException, NotGitRepository)
    try:
        import urllib3.exceptions

        errors = (*errors, urllib3.exceptions.HTTPError)
    except ImportError:  # dulwich's HTTP client is optional
        pass
    try:
        return call()
    except OvError:
        raise
    except FileLocked as exc:
        lock = exc.lockfilename.decode("utf-8", "replace") if isinstance(exc.lockfilename, bytes) else str(exc.lockfilename)
        raise StoreLocked(
            f"the remote {remote.name!r} is locked: {lock} exists",
            hint="a git command is updating that repository right now; if none is (a killed one left it), remove that file and retry",
        ) from None
    except PackedRefsException as exc:
        raise BadRemote(f"the remote {remote.name!r} has a packed-refs file git cannot read: {exc}") from None
    except errors as exc:
        detail = str(exc).strip() or type(exc).__name__
        raise RemoteUnreachable(
            f"cannot reach remote {remote.name!r} ({remote.url}): {detail}",
            hint="check the URL with `ov remote list` and that the server or path is available",
        ) from None


def _fetch(git: GitStore, remote: Remote) -> tuple[bytes | None, dict[bytes, bytes]]:
    """Copy the remote's ``main`` and its objects into the local object store (refs untouched);
    return its head and its tags."""
    repo = git.repo

    def determine_wants(refs, depth=None):
        want = refs.get(BRANCH)
        return [want] if want is not None and want not in repo.object_store else []

    from dulwich.errors import ObjectFormatException

    client, path = _client(remote)
    try:
        result = _talk(remote, lambda: client.fetch(path, repo, determine_wants=determine_wants))
    except ObjectFormatException as exc:  # a tree whose names git cannot read back (one holds a NUL)
        raise UnsafeTree(
            f"refused to pull {remote.name!r}: it holds an object that is not well-formed git ({exc})",
            hint="nothing was changed here; `git fsck` in the remote repository finds the object",
        ) from None
    refs = (result.refs if hasattr(result, "refs") else result) or {}
    theirs = refs.get(BRANCH)
    if theirs is not None and theirs not in repo.object_store:
        raise RemoteUnreachable(f"the remote {remote.name!r} did not send commit {theirs.decode()[:SHORT]}")
    if theirs is not None and repo[theirs].type_name != b"commit":
        raise BadRemote(f"the remote {remote.name!r} has a main that names a {repo[theirs].type_name.decode()} ({theirs.decode()[:SHORT]}), not a commit")
    return theirs, {ref: sha for ref, sha in refs.items() if ref.startswith(TAG_PREFIX)}


def _point_head_at_main(client, path: str) -> None:
    """After a push created ``main`` in a repository on a path: if its HEAD names a branch that
    does not exist (``git init --bare`` names ``master``), point it at ``main``, or ``git clone``
    checks out nothing. A HEAD naming a branch that exists is someone's choice: left alone."""
    from dulwich.client import LocalGitClient
    from dulwich.repo import Repo

    if not isinstance(client, LocalGitClient):
        return  # a server's HEAD is the server's business
    try:
        with Repo(path) as repo:
            head = repo.refs.read_ref(b"HEAD") or b""
            if head.startswith(b"ref: ") and head[5:].strip() not in repo.refs:
                repo.refs.set_symbolic_ref(b"HEAD", BRANCH)
    except OSError as exc:  # the push itself succeeded: say so, and what is left to do
        log.warning("pushed, but could not point HEAD of %s at main (%s): run `git symbolic-ref HEAD refs/heads/main` there", path, exc)


def _set_tracking(repo, name: str, sha: bytes) -> None:
    repo.refs[f"refs/remotes/{name}/main".encode()] = sha


def _hex(sha: bytes | None) -> str | None:
    return sha.decode() if sha else None


def _is_ancestor(git: GitStore, ancestor: bytes, descendant: bytes) -> bool:
    from dulwich.graph import can_fast_forward

    return can_fast_forward(git.repo, ancestor, descendant)


def _is_empty_root(git: GitStore, commit: bytes) -> bool:
    """The first commit of a fresh account (no parents, nothing in it): safe to replace."""
    obj = git.repo[commit]
    return not obj.parents and not any(True for _ in git.iter_files(obj.tree))


def _file_changes(git: GitStore, old_tree: bytes | None, new_tree: bytes | None) -> dict[str, bytes | None]:
    """path -> new blob sha (None when deleted) for every file that differs between two trees."""
    from dulwich.diff_tree import tree_changes

    out: dict[str, bytes | None] = {}
    for change in tree_changes(git.repo.object_store, old_tree, new_tree):
        old, new = change.old, change.new
        if old is not None and old.path is not None and not (new is not None and new.path == old.path):
            out[old.path.decode()] = None
        if new is not None and new.path is not None:
            out[new.path.decode()] = new.sha
    return out


def _changed_paths(git: GitStore, old_tree: bytes | None, new_tree: bytes | None) -> list[str]:
    return sorted(_file_changes(git, old_tree, new_tree))


def _merge(store: Store, tx, remote: Remote, ours: bytes, theirs: bytes, allow_unrelated: bool = False) -> PullResult:
    from dulwich.graph import find_merge_base
    from dulwich.object_store import commit_tree_changes
    from dulwich.objects import Tree

    from ov.store.treepaths import in_scopes

    git = store.git
    repo = git.repo
    bases = find_merge_base(repo, [ours, theirs])
    # Two accounts whose first (empty) commits were made in the same second by the same name have
    # the same one: sharing only that, they share nothing either wrote.
    # A remote a hosting service made "with a README" holds nothing of ov's: nothing to mix up.
    unrelated = all(_is_empty_root(git, base) for base in bases)
    if unrelated and not allow_unrelated and any(True for _ in git.iter_files(git.tree_of(theirs))):
        raise UnrelatedHistories(
            f"refused to merge {remote.name!r} ({remote.url}): its history and this account's share no commit "
            "(another account's repository, or the wrong URL?); nothing was changed here"
        )
    base_tree = git.tree_of(bases[0]) if bases else None
    if base_tree is None:  # unrelated histories: compare against an empty tree
        empty = Tree()
        repo.object_store.add_object(empty)
        base_tree = empty.id
    ours_tree, theirs_tree = git.tree_of(ours), git.tree_of(theirs)
    ours_changes = _file_changes(git, base_tree, ours_tree)
    theirs_changes = _file_changes(git, base_tree, theirs_tree)

    result: dict[str, bytes | None] = {}  # path -> blob sha (None: delete), relative to ours
    found: list[dict] = []
    for path in sorted(theirs_changes):
        mine, other = ours_changes.get(path, "unchanged"), theirs_changes[path]
        if mine == "unchanged":
            result[path] = other  # changed on their side only
            continue
        if mine == other or not in_scopes(path):
            continue  # the same change on both sides, or a file ov ignores (README.md): ours is kept
        if _generated_on_both_sides(git, mine, other):
            continue  # a summary ingest wrote: written again below from the merged folder
        if other is None:
            # Deleted there, changed here: keep ours (nothing is lost) and say so.
            found.append({"path": path, "kind": "deleted-by-them", "copy": None})
            continue
        merged = _merged_memory(git, path, git.entry(base_tree, path), mine, other)
        if merged is not None:
            result[path] = merged
            continue
        n = 1
        copy = conflict_copy_name(path, theirs)
        while copy in result or git.entry(ours_tree, copy) is not None or git.entry(theirs_tree, copy) is not None:
            n += 1
            copy = conflict_copy_name(path, theirs, n)
        result[copy] = other
        kind = "deleted-by-us" if mine is None else "both-changed"
        found.append({"path": path, "kind": kind, "copy": copy})

    _check_file_dir_clashes(git, ours_tree, result)
    for path, sha in result.items():
        problem = work_path_problem(path, stored=True) if sha is not None and in_scopes(path) else None
        if problem is not None:  # a conflict copy's name, longer than the path it copies
            raise MergeImpossible(f"cannot merge {remote.name!r}: {quote(path)}: {problem}", hint="rename the file on one side, commit, then pull again")
    work = [p for p in sorted(result) if in_scopes(p)]
    _refuse_strays(git, work)
    shortened = _fitted_summaries(git, {p: result[p] for p in work})
    result.update(shortened)
    result.update(_fresh_summaries(store, tx, result, [p for p in sorted(set(ours_changes) | set(theirs_changes)) if in_scopes(p)]))
    tree_changes = [(p.encode(), None, None) if sha is None else (p.encode(), FILE_MODE, sha) for p, sha in sorted(result.items())]
    try:
        new_tree = commit_tree_changes(repo.object_store, ours_tree, tree_changes) if tree_changes else ours_tree
    except (KeyError, ValueError, AssertionError) as exc:
        raise MergeImpossible(f"cannot merge {remote.name!r}: {exc}", hint="resolve the clash on one side, then pull again") from None

    work = [p for p in sorted(result) if in_scopes(p)]
    uris = [str(VikingURI(tuple(p.split("/")))) for p in work]
    subject = f"ov pull {remote.name}: merge {theirs.decode()[:SHORT]}" + (f" ({len(found)} conflict(s))" if found else "")
    message = commit_message("pull", uris, subject, via=store.via)
    for c in found:
        message += f"Ov-Conflict: viking://{c['path']}\n"
        if c["copy"]:
            message += f"{CONFLICT_COPY_TRAILER}: viking://{c['copy']}\n"
        elif c["kind"] == "deleted-by-them":
            message += f"{KEPT_TRAILER}: viking://{c['path']}\n"
    commit = git.make_commit(new_tree, [ours, theirs], message, store.author)
    repo.object_store.add_object(commit)
    git.move_head(ours, commit.id, work)
    return PullResult(remote.name, remote.url, "merged", ours.decode(), commit.id.decode(), theirs.decode(), work, found, shortened=sorted(shortened))


def _merged_memory(git: GitStore, path: str, base: tuple[int, bytes] | None, mine: bytes | None, other: bytes) -> bytes | None:
    """The blob of a memory file merged line by line and key by key (:mod:`ov.sessions.memory.sync`),
    or None when ``path`` is no memory or the rules cannot decide (both versions are then kept)."""
    if mine is None or not path.endswith(".md") or "memories" not in path.split("/")[:-1]:
        return None
    from dulwich.objects import Blob

    from ov.sessions.memory.sync import merge_versions

    try:
        texts = [git.blob_data(sha).decode("utf-8") if sha is not None else None for sha in (base[1] if base else None, mine, other)]
    except UnicodeDecodeError:
        return None
    merged = merge_versions(texts[0], texts[1], texts[2])
    if merged is None:
        return None
    blob = Blob.from_string(merged.encode("utf-8"))
    git.repo.object_store.add_object(blob)
    return blob.id


def _generated_on_both_sides(git: GitStore, mine: bytes | None, other: bytes | None) -> bool:
    """Whether two versions of a path are both summaries ingest generated (or gone): no conflict,
    since the merge writes the summaries of every folder it touches again."""
    from ov.ingest.resource import is_generated_summary

    return all(sha is None or is_generated_summary(git.blob_data(sha)) for sha in (mine, other)) and (mine or other) is not None


def _fresh_summaries(store: Store, tx, result: dict[str, bytes | None], touched: list[str]) -> dict[str, bytes | None]:
    """The generated summaries (L0/L1) of the folders above ``touched`` written again as the merge
    leaves them (``result`` applied to ours), as ``ov rm`` and ``ov add-resource`` write them:
    path -> blob (None: removed). The merge's files are put in ``tx`` only so that the summariser
    reads the merged folders; the merge commits them itself (two parents)."""
    from dulwich.objects import Blob

    from ov.ingest.resource import refresh_summaries_above
    from ov.store.sidecar import SIDECARS

    if not any(p.rsplit("/", 1)[-1] in SIDECARS or p in result for p in touched):
        return {}
    git = store.git
    for path, sha in result.items():
        if in_scopes(path):
            tx.changes[path] = git.blob_data(sha) if sha is not None else None
    before = dict(tx.changes)
    try:
        refresh_summaries_above(store, tx, [VikingURI(tuple(p.split("/"))) for p in touched])
        out: dict[str, bytes | None] = {}
        for path, data in tx.changes.items():
            if path in before and before[path] == data:
                continue
            if data is None:
                out[path] = None
                continue
            blob = Blob.from_string(data)
            git.repo.object_store.add_object(blob)
            out[path] = blob.id
        return out
    finally:
        tx.changes = {}
        tx.appends = {}


def _refuse_strays(git: GitStore, paths: list[str]) -> None:
    """Refuse (before anything moves) a pull that needs a folder where the work tree holds a file
    ov ignores (made by hand, outside what a URI names): the move would fail half-way."""
    checked: set[str] = set()
    for path in paths:
        parts = path.split("/")
        for i in range(1, len(parts)):
            folder = "/".join(parts[:i])
            if folder in checked:
                continue
            checked.add(folder)
            place = git.worktree / folder
            if place.exists() and not place.is_dir():
                raise HandEditConflict(
                    f"the pull needs a folder at {quote(folder)} (for {quote(path)}), but the work tree holds a file there that ov ignores",
                    hint=f"move or remove the file {git.worktree / folder} by hand, then pull again",
                )


def _check_file_dir_clashes(git: GitStore, ours_tree: bytes, result: dict[str, bytes | None]) -> None:
    """Refuse (before writing anything) a merge where a path is a file on one side and a directory on the other."""
    for path, sha in result.items():
        if sha is None:
            continue
        parts = path.split("/")
        for i in range(1, len(parts)):
            parent = "/".join(parts[:i])
            entry = git.entry(ours_tree, parent)
            if entry is not None and not stat.S_ISDIR(entry[0]) and result.get(parent, b"") is not None:
                raise MergeImpossible(
                    f"cannot merge: {parent} is a file here and a directory on the remote",
                    hint="rename one of them on one side, commit, then pull again",
                )
        entry = git.entry(ours_tree, path)
        if entry is not None and stat.S_ISDIR(entry[0]):
            raise MergeImpossible(
                f"cannot merge: {path} is a directory here and a file on the remote",
                hint="rename one of them on one side, commit, then pull again",
            )


