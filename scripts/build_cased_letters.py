"""Write ov/sessions/memory/cased_letters.py: the character classes of the upper- and lower-case
letters (:mod:`ov.sessions.memory.capitals`) as this Python's Unicode version has them.

Building the classes means asking ``str.isupper`` and ``str.islower`` of some 18,000 characters, a
few milliseconds that every ``ov remember`` and every commit of a session paid at import. The
module written here holds them as text, with the Unicode version they were taken from; capitals
uses it when the running Python has that version and builds the classes itself otherwise. Run it
with the oldest Python ov supports after a change to how capitals builds its classes (a test
fails until then):

    .venv/bin/python scripts/build_cased_letters.py
"""

from __future__ import annotations

import ast
import os
import tempfile
import unicodedata
from pathlib import Path

from ov.sessions.memory.capitals import _letters

TARGET = Path(__file__).resolve().parent.parent / "ov" / "sessions" / "memory" / "cased_letters.py"
_WIDTH = 100


def module_text() -> str:
    """The module's text for this Python's Unicode version."""
    lines = [
        '"""The classes of :mod:`ov.sessions.memory.capitals` for one Unicode version, written by',
        "scripts/build_cased_letters.py (do not edit: run it again).\"\"\"",
        "",
        f"UNIDATA_VERSION = {unicodedata.unidata_version!r}",
    ]
    for name, cased in (("UPPER", str.isupper), ("LOWER", str.islower)):
        letters = _letters(cased)
        # Cut only between characters, never inside an escape, so that each piece is a whole literal.
        pieces, piece = [], ""
        for part in map(ascii, letters):
            part = part[1:-1]
            if len(piece) + len(part) > _WIDTH:
                pieces.append(piece)
                piece = ""
            piece += part
        pieces.append(piece)
        assert "".join(ast.literal_eval(f"'{piece}'") for piece in pieces) == letters
        lines += ["", f"{name} = (", *(f"    '{piece}'" for piece in pieces), ")"]
    return "\n".join(lines) + "\n"


def main() -> None:
    fd, tmp = tempfile.mkstemp(dir=TARGET.parent, prefix=".cased_letters.")
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(module_text())
    os.replace(tmp, TARGET)
    print(f"wrote {TARGET} (Unicode {unicodedata.unidata_version})")


if __name__ == "__main__":
    main()
