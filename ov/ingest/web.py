"""Where `ov add-resource` may fetch a URL from: the opener it fetches with.

An agent can ask for any URL (the MCP ``add_resource`` tool), and a server can redirect it
anywhere, so every hop is held to the same rule: http or https only (urllib's default opener
also speaks ftp, file and data, and follows a redirect to ftp), and never a link-local address
(169.254.0.0/16, fe80::/10, where cloud metadata services hand out credentials) or an
unspecified one (0.0.0.0, ::). The host's addresses are checked when the connection is made, and
the connection goes to an address that was checked: a name resolved once for the check and again
for the connect could answer differently the second time. Loopback stays allowed: a server on
this machine is the user's own. Behind a proxy the proxy connects; a target written as an
address is still checked.

This module is imported only when a URL is fetched (urllib and http.client are not cheap).
"""

from __future__ import annotations

import http.client
import ipaddress
import socket
import urllib.request
from urllib.parse import urlsplit

SCHEMES = ("http", "https")


class Refused(Exception):
    """A hop the rule above forbids: ``why`` says what about it; ``url`` is the URL refused when
    it is known (a redirect's target), None when the connection was (the host's address)."""

    def __init__(self, why: str, url: str | None = None):
        super().__init__(why)
        self.why = why
        self.url = url


def refused_address(address: str) -> str | None:
    """What kind of address the IP ``address`` is, when ov does not connect to it (None: it may,
    or it is no IP address)."""
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])  # an IPv6 address may carry its zone
    except ValueError:
        return None
    ip = getattr(ip, "ipv4_mapped", None) or ip  # ::ffff:169.254.169.254 is 169.254.169.254
    if ip.is_unspecified:
        return "an unspecified address"
    if ip.is_link_local:
        return "a link-local address, where cloud metadata services answer"
    return None


def check_url(url: str) -> None:
    """Refuse a URL of another scheme, or whose host is written as a refused address."""
    parts = urlsplit(url)
    if parts.scheme.lower() not in SCHEMES:
        raise Refused("it is not an http(s) URL", url)
    kind = refused_address(parts.hostname or "")
    if kind:
        raise Refused(f"{parts.hostname} is {kind}", url)


def opener(authorization: str | None = None) -> urllib.request.OpenerDirector:
    """An opener for http and https only, whose connections and redirects keep to the rule;
    ``authorization`` (an ``Authorization`` header's value) is sent to the first URL's server only."""
    director = urllib.request.OpenerDirector()
    for handler in (
        urllib.request.ProxyHandler(),  # HTTPS_PROXY and friends, as urllib's default opener honours them
        _HTTPHandler(),
        _HTTPSHandler(),
        urllib.request.HTTPDefaultErrorHandler(),
        _Redirects(authorization),
        urllib.request.HTTPErrorProcessor(),
    ):
        director.add_handler(handler)
    return director


def _connect(address, timeout=socket._GLOBAL_DEFAULT_TIMEOUT, source_address=None) -> socket.socket:
    """socket.create_connection, to an address of the host that was checked first."""
    host, port = address
    addresses = list(dict.fromkeys(info[4][0] for info in socket.getaddrinfo(host, port, 0, socket.SOCK_STREAM)))
    for candidate in addresses:
        kind = refused_address(candidate)
        if kind:
            raise Refused(f"{host} is {kind}" if candidate == host else f"{host} resolves to {candidate}, {kind}")
    error: OSError | None = None
    for candidate in addresses:
        try:
            return socket.create_connection((candidate, port), timeout, source_address)
        except OSError as exc:
            error = exc
    raise error or OSError(f"{host} has no address")


class _HTTPConnection(http.client.HTTPConnection):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._create_connection = _connect  # http.client's own hook for how it opens its socket


class _HTTPSConnection(http.client.HTTPSConnection):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._create_connection = _connect


class _HTTPHandler(urllib.request.HTTPHandler):
    def http_open(self, req):
        return self.do_open(_HTTPConnection, req)


class _HTTPSHandler(urllib.request.HTTPSHandler):
    def https_open(self, req):
        return self.do_open(_HTTPSConnection, req, context=self._context)


class _Redirects(urllib.request.HTTPRedirectHandler):
    def __init__(self, authorization: str | None):
        self.authorization = authorization

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        check_url(newurl)  # urllib itself would follow a redirect to ftp
        new = super().redirect_request(req, fp, code, msg, headers, newurl)
        if new is not None and self.authorization and _origin(newurl) == _origin(req.full_url):
            # The credentials were given for one server: a redirect elsewhere does not get them.
            new.add_unredirected_header("Authorization", self.authorization)
        return new


def _origin(url: str) -> tuple[str, str | None, int | None]:
    parts = urlsplit(url)
    try:
        port = parts.port
    except ValueError:
        port = None
    return parts.scheme.lower(), parts.hostname, port or {"http": 80, "https": 443}.get(parts.scheme.lower())
