"""A find on an index behind HEAD, without what HEAD changed since (:func:`as_at_head`)."""

from __future__ import annotations


def as_at_head(store, opened, hits: list) -> list:
    """``hits`` of an index behind HEAD without what HEAD changed since: a hit from a file HEAD
    holds with other content is kept only where HEAD's file still yields that record, the same
    words (a session's messages file grew: its earlier messages stand; a file rewritten to drop a
    secret: the old lines do not)."""
    outdated = opened.outdated
    at_head: dict[str, set[tuple[str, str]] | None] = {}
    out = []
    for hit in hits:
        record = hit.record
        if record is None or record.path not in outdated:
            out.append(hit)
            continue
        sha = outdated[record.path]
        if sha is None:
            continue
        if record.path not in at_head:
            at_head[record.path] = _records_at_head(store.git, opened.meta.commit, record.path, sha)
        current = at_head[record.path]
        if current is None or (record.id, record.text) in current:
            out.append(hit)
    return out


def _records_at_head(git, indexed: str | None, path: str, sha: bytes) -> set[tuple[str, str]] | None:
    """(id, text) of each record HEAD's ``path`` (blob ``sha``) yields; None when every record the
    index holds of it stands: a session's messages file that only grew (what the prompt hook
    meets between turns: another session's file, parsed whole, cost 100-200 ms a prompt at
    4,000 messages)."""
    from ov.index.records import committed_records, is_message_log
    from ov.store.gitstore import FILE_MODE

    if is_message_log(path) and indexed is not None:
        before = git.entry(git.tree_of(indexed.encode()), path)
        if before is not None and git.blob_data(sha).startswith(git.blob_data(before[1])):
            return None
    # outdated_paths gives no blob for an entry that has no records (a link): this is a file's.
    return {(r.id, r.text) for r in committed_records(git, path, FILE_MODE, sha)}
