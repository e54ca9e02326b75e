"""The user name and password a URL may carry before its host (``https://user:password@host``).

One definition of where they are, for the three places that must find them: the config
refuses an ``api_base`` holding them, ``add-resource`` sends them as basic auth and keeps the
URL without them, and the redaction of what servers say takes them out of their messages. The
user info is what stands between ``://`` and the last ``@`` before the host ends (at ``/``,
``?``, ``#`` or whitespace): an ``@`` left unescaped in a password belongs to the password.
"""

from __future__ import annotations

from ov.regex import LazyPattern

__all__ = ["has_userinfo", "replace_userinfo", "without_userinfo"]

# Greedy up to the authority's end, so that the match ends at its last `@`.
_AUTHORITY = "[^/?#]*"
# One URL, matched from its start. Without a scheme the authority starts the text: a base URL
# written `user:pw@host:8080` holds a password as surely as one with `http://`.
_URL_USERINFO = LazyPattern(r"(?P<head>\s*(?:[A-Za-z][A-Za-z0-9+.\-]*://)?)" + _AUTHORITY + "@")
# URLs inside a text, where whitespace ends one. Anchored on the literal `://` (the scheme's last
# character checked behind it), which the regex engine finds quickly: a pattern opening with the
# scheme would start again at every `.` of a long dotted word.
# There a `#` before the last `@` is taken for the password's (`redis://:p@ss#w0rd9@cache`), as
# the redaction rule takes it: a fragment holding an `@` lost costs less than half a password kept.
_TEXT_USERINFO = LazyPattern(r"://(?<=[A-Za-z0-9]://)[^/?\s]*@")


def has_userinfo(url: str) -> bool:
    """Whether ``url`` names a user (and maybe a password) before its host."""
    return _URL_USERINFO.match(url) is not None


def without_userinfo(url: str) -> str:
    """``url`` without its user name and password (``https://host/...``); unchanged when it has none."""
    m = _URL_USERINFO.match(url)
    return url if m is None else m["head"] + url[m.end() :]


def replace_userinfo(text: str, replacement: str) -> str:
    """``text`` with the user info of every URL in it replaced by ``replacement`` (the ``@`` stays)."""
    return _TEXT_USERINFO.sub(lambda m: "://" + replacement + "@", text)
