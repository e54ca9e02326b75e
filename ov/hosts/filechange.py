"""What one install or uninstall does to one host file: the :class:`Change` that is planned,
shown (``--dry-run``'s diff) and then written (:func:`ov.hosts.receipts.apply`), and the reading
of the file it starts from.

A JSON file is edited in place (:mod:`ov.hosts.jsonc`), so everything but ov's entries keeps its
bytes; a file that does not parse is refused with its path, line and column, and nothing is written.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from pathlib import Path

from ov.hosts.hostconfig import HostConfigError, Spec


@dataclass
class Change:
    """What one install or uninstall does to one file."""

    spec: Spec
    before: bytes | None
    after: bytes | None
    receipt: dict | None  # written after the file (None: the receipt is removed)
    notes: list[str] = field(default_factory=list)
    spec_receipt: dict = field(default_factory=dict)  # the receipt as it was (what an uninstall undoes)
    action: str | None = None  # what the report says was done, when not the command's own verb (a leftover taken out)
    forgotten: bool = False  # an uninstall from a file removed by hand: nothing to write, but ov's receipt of it goes
    # The record of the trust --trust wrote for a hooks file (that spec, and the record), kept with
    # this change once its receipt goes (a dict), or dropped once the trust is out (None).
    trust_kept: tuple[Spec, dict | None] | None = None
    # Installs planned into this one's bytes (Gemini's server, planned with its hooks in one
    # settings.json): this change writes their entries too, so their receipts go in before it.
    riders: list[Change] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return self.before != self.after

    def diff(self) -> str:
        old = (self.before or b"").decode("utf-8", "replace").splitlines(keepends=True)
        new = (self.after or b"").decode("utf-8", "replace").splitlines(keepends=True)
        name = str(self.spec.path)
        return "".join(difflib.unified_diff(old, new, name if self.before is not None else "/dev/null", name if self.after is not None else "/dev/null"))


def read(path: Path) -> bytes | None:
    """The file's bytes, or None when there is none."""
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise HostConfigError(f"cannot read {path}: {exc.strerror}") from None


def parse(spec_: Spec, data: bytes | None):
    """``data`` (None: no file yet, read as ``{}``) as a JSON document ov can edit in place;
    :class:`HostConfigError` when it is not a JSON object (ConfigFileInvalid, with the line and
    column, when it does not parse)."""
    from ov.hosts import jsonc

    if data is None:
        return jsonc.parse("{}", name=spec_.path, comments=spec_.comments)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise HostConfigError(f"{spec_.path} is not UTF-8 text (byte {exc.start})", hint="fix the file or move it aside, then run the command again") from None
    doc = jsonc.parse(text, name=spec_.path, comments=spec_.comments, trailing_commas=spec_.trailing_commas, empty_as_object=True)
    if not isinstance(doc.value(), dict):
        raise HostConfigError(f"{spec_.path} holds {type(doc.value()).__name__}, not a JSON object", hint="fix the file or move it aside, then run the command again")
    return doc


def valueless(spec_: Spec, before: bytes | None, old: dict) -> str | None:
    """The text of a file that held no value before ov's first write (empty, or only comments),
    for the uninstall to give back; a re-install keeps what ``old``, the receipt, says."""
    if old or before is None:
        return old.get("valueless") if isinstance(old.get("valueless"), str) else None
    return before.decode("utf-8") if () not in parse(spec_, before) else None


def given_back(spec_: Spec, doc, receipt: dict) -> bytes:
    """``doc``'s text once ov's entries are out; when that leaves only the ``{}`` ov's first
    write gave a file that held no value, the file's old text (an empty file stays empty)."""
    text = doc.text()
    old = receipt.get("valueless")
    if isinstance(old, str) and doc.value() == {}:
        probe = parse(spec_, old.encode("utf-8"))
        probe.set((), {})  # what ov's first edit made of it: its comments, then `{}`
        if probe.text() == text:
            return old.encode("utf-8")
    return text.encode("utf-8")
