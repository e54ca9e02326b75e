"""The text of a page that is not UTF-8, read in the charset it declares, as a browser reads it.

A web page names its encoding in its HTTP ``Content-Type`` header or in a ``<meta charset>``;
the header ranks first (WHATWG "determine the encoding": BOM, then the transport layer, then
the document's own declaration). Labels mean what they mean to a browser, not to Python:
``iso-8859-1``, ``latin1`` and ``us-ascii`` are windows-1252, whose bytes 0x80-0x9F are
the euro sign and typographic quotes that pages declared Latin-1 have always used (read as
Latin-1 they become invisible control characters).
"""

from __future__ import annotations

import codecs
import re

__all__ = ["declared_charsets", "decode_declared"]

_PARAMETER_RE = re.compile(r"charset\s*=\s*[\"']?([A-Za-z0-9._:-]+)", re.IGNORECASE)
_META_RE = re.compile(rb"<meta[^>]+charset\s*=\s*[\"']?([A-Za-z0-9._:-]+)", re.IGNORECASE)
# Python's codec for a label as the WHATWG Encoding Standard maps it, where the two differ:
# browsers decode the legacy label as its Windows superset.
_AS_BROWSERS_READ = {
    "iso8859-1": "cp1252",
    "ascii": "cp1252",
    "iso8859-9": "cp1254",
    "tis-620": "cp874",
    "iso8859-11": "cp874",
    "gb2312": "gb18030",
    "gbk": "gb18030",
    "shift_jis": "cp932",
    "euc_kr": "cp949",
    "big5": "big5hkscs",
}
# Python codecs that read bytes as escapes, not as an encoding of text: no page means them.
_NOT_CHARSETS = frozenset({"idna", "punycode", "unicode-escape", "raw-unicode-escape"})
# windows-1252 leaves five bytes undefined; browsers read them as the C1 controls of the same number.
_UNDEFINED_1252_RE = re.compile("[\udc81\udc8d\udc8f\udc90\udc9d]")


def declared_charsets(content_type: str | None, head: bytes, *, meta: bool) -> list[str]:
    """The charsets a document declares, first to try first: its HTTP header's, then (for HTML,
    ``meta``) the ``<meta charset>`` in its first bytes ``head``."""
    declared = [m.group(1) for m in (_PARAMETER_RE.search(content_type or ""),) if m]
    if meta:
        declared += [m.group(1).decode("ascii") for m in (_META_RE.search(head),) if m]
    return declared


def decode_declared(data: bytes, labels: list[str]) -> str | None:
    """``data`` decoded in the first of ``labels`` that is a charset and decodes it, or None."""
    for label in labels:
        try:
            name = codecs.lookup(label).name
        except LookupError:
            continue
        if name in _NOT_CHARSETS or not getattr(codecs.lookup(name), "_is_text_encoding", True):
            continue
        name = _AS_BROWSERS_READ.get(name, name)
        try:
            if name == "cp1252":
                text = data.decode(name, "surrogateescape")
                return _UNDEFINED_1252_RE.sub(lambda m: chr(ord(m.group()) - 0xDC00), text)
            return data.decode(name)
        except UnicodeDecodeError:
            continue
    return None
