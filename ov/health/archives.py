"""Sessions whose record of archived ids lacks archives: what ``ov fsck`` reports of them.

An ov from before the record (``history/.archived_ids.jsonl``) commits a session without adding
its archive to it. Back on this ov, the record is completed from the archives as soon as it is
needed (:func:`ov.sessions.session.read_archived_ids`); until then fsck names the sessions, since
a host that sends one of those messages again is what needs it.
"""

from __future__ import annotations

from ov.store import sidecar
from ov.store.treepaths import shown
from ov.wording import counted


class ArchiveRecords:
    """HEAD's session records and archives, seen one file at a time during fsck's walk."""

    def __init__(self) -> None:
        self.records: dict[str, bytes] = {}
        self.archives: dict[str, list[str]] = {}

    def see(self, path: str, data: bytes) -> None:
        parts = path.split("/")
        if len(parts) >= 3 and parts[-2:] == [sidecar.HISTORY, sidecar.ARCHIVED_IDS]:
            self.records["/".join(parts[:-2])] = data
        elif len(parts) >= 4 and parts[-3] == sidecar.HISTORY and parts[-2].startswith(sidecar.ARCHIVE_PREFIX) and parts[-1] == sidecar.MESSAGES:
            self.archives.setdefault("/".join(parts[:-3]), []).append(parts[-2])

    def behind(self) -> list[tuple[str, list[str]]]:
        """Each session folder whose record lacks archives it holds, with their names. A session
        with no record at all is left out: its record is made from every archive when needed."""
        from ov.sessions.session import missing_archives

        found = []
        for folder, record in sorted(self.records.items()):
            missing = missing_archives(record, self.archives.get(folder, []))
            if missing:
                found.append((folder, missing))
        return found


def finding(behind: list[tuple[str, list[str]]]) -> tuple[str, str]:
    """The message and the fix of fsck's note on the sessions of :meth:`ArchiveRecords.behind`."""
    listed = ", ".join(f"{shown(folder)} ({', '.join(names)})" for folder, names in behind[:5]) + (f" and {len(behind) - 5} more" if len(behind) > 5 else "")
    message = (
        f"the record of archived messages of {counted(len(behind), 'session')} lacks archives an older ov committed: {listed}; "
        "a host that sends one of those messages again could have it added again until the record is complete"
    )
    return message, "nothing to run: the session's next commit completes the record, as does the next add of a message it has not seen"
