"""One JSON POST to a model server, on the standard library: what the native client sends with.

:func:`post_json` sends a body, waits at most ``timeout`` seconds for each step (connecting,
each read), gives up on an answer still arriving after ``timeout``, and returns the decoded
JSON. Every way it can fail is one
:class:`CallFailed` whose ``kind`` says which (``timeout``, ``connection``, ``http``,
``answer``); :mod:`ov.llm.client` turns that into the user's error once. There are no retries and
no redirects (the OpenAI and Anthropic SDKs follow none either); proxies come from the
environment (``HTTPS_PROXY``, ``NO_PROXY``, ...) as for every urllib client. A call given a
:class:`Line` can be hung up from another thread: a caller that stopped waiting for the answer
(:func:`ov.waiting.waited`) ends the request at once rather than at its timeout.

``urllib.request`` costs ~20 ms to import, so it is imported inside :func:`post_json`, on the
first model call only.
"""

from __future__ import annotations

import json
import os
import re
import threading
import time
from typing import Any

from ov import __version__

_MAX_DETAIL_CHARS = 300
_MAX_ANSWER_BYTES = 64 * 1024 * 1024  # an answer larger than this is not a chat completion
_CHUNK = 64 * 1024
TIMEOUT = "timeout"
CONNECTION = "connection"
HTTP = "http"
ANSWER = "answer"


class CallFailed(Exception):
    """A call that did not produce a usable JSON answer.

    ``kind`` is one of ``timeout``, ``connection``, ``http`` (the server answered with an error
    status), ``answer`` (the body is not the JSON asked for). ``status`` is the HTTP status when
    there was one; ``param`` the request parameter an error body blames (OpenAI's
    ``error.param``), so that a caller can resend without it.
    """

    def __init__(self, kind: str, detail: str, *, status: int | None = None, param: str | None = None) -> None:
        super().__init__(detail)
        self.kind = kind
        self.detail = detail
        self.status = status
        self.param = param


class Line:
    """The connection of the requests one call sends (:func:`post_json`'s ``line``), which another
    thread may :meth:`hang_up`: the request waiting for its answer then fails at once, a
    :class:`CallFailed` of kind ``connection``, and so does any request the call sends after."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._socket: Any = None
        self.hung_up = False

    def connected(self, sock: Any) -> None:
        """``sock`` is the call's connection now (closed at once when the line was hung up meanwhile)."""
        with self._lock:
            self._socket = sock
            if not self.hung_up:
                return
        _shut(sock)

    def hang_up(self) -> None:
        with self._lock:
            self.hung_up = True
            sock = self._socket
        if sock is not None:
            _shut(sock)


def _shut(sock: Any) -> None:
    """End ``sock``'s traffic both ways: a read blocked on it in another thread returns at once (an
    end of file). Not ``close()``, which leaves that read blocked on Linux; and the plain socket's
    ``shutdown``, not TLS's, which would tear the TLS state out from under the reading thread."""
    import socket

    try:
        socket.socket.shutdown(sock, socket.SHUT_RDWR)
    except OSError:
        pass  # closed already, or never connected


def post_json(url: str, body: dict[str, Any], headers: dict[str, str], timeout: float, *, line: Line | None = None) -> Any:
    """POST ``body`` as JSON to ``url`` and return the decoded JSON answer; :class:`CallFailed` otherwise.
    ``line``: where the request's connection can be hung up from another thread."""
    import http.client  # Deferred: only model calls need urllib (~20 ms with http.client and ssl).
    import urllib.error
    import urllib.request

    if not url.lower().startswith(("http://", "https://")):
        raise CallFailed(CONNECTION, f"{url} is not an http(s) URL")
    try:
        request = urllib.request.Request(url, data=json.dumps(body).encode("utf-8"), method="POST")
    except ValueError:
        raise CallFailed(CONNECTION, f"{url} is not an http(s) URL") from None
    request.add_header("Content-Type", "application/json")
    request.add_header("Accept", "application/json")
    # Not urllib's "Python-urllib/3.x": some CDNs in front of model APIs refuse that one as a bot.
    request.add_header("User-Agent", f"ov/{__version__}")
    for name, value in headers.items():
        request.add_header(name, value)
    if line is not None:
        if line.hung_up:
            raise CallFailed(CONNECTION, "the request was hung up before it was sent")
        request.ov_line = line  # type: ignore[attr-defined]  # read by the opener's handlers (_hangable)
    deadline = time.monotonic() + timeout
    try:
        with _opener(url).open(request, timeout=timeout) as response:
            raw = _read(response, deadline)
            status = response.status
    except urllib.error.HTTPError as exc:
        try:
            raw = _read(exc, deadline)
        except (CallFailed, OSError, http.client.HTTPException):
            raw = b""
        detail, param = error_detail(raw, exc.reason)
        raise CallFailed(HTTP, detail, status=exc.code, param=param) from None
    except urllib.error.URLError as exc:
        reason = exc.reason
        if isinstance(reason, TimeoutError):
            raise CallFailed(TIMEOUT, "timed out") from None
        raise CallFailed(CONNECTION, _oserror_text(reason)) from None
    except TimeoutError:
        raise CallFailed(TIMEOUT, "timed out") from None
    except UnicodeEncodeError:
        raise CallFailed(CONNECTION, "a header (the API key?) holds characters HTTP cannot send") from None
    except (OSError, http.client.HTTPException) as exc:  # reset or closed mid-answer, a malformed status line or body
        raise CallFailed(CONNECTION, _oserror_text(exc) if isinstance(exc, OSError) else f"the server's answer is not valid HTTP ({type(exc).__name__})") from None
    except ValueError as exc:  # http.client's verdict on a URL or header it cannot send
        raise CallFailed(CONNECTION, f"the request cannot be sent ({exc})") from None
    try:
        return json.loads(raw)
    except (ValueError, RecursionError):  # UnicodeDecodeError is one; RecursionError: nested too deeply
        snippet = " ".join(raw[:120].decode("utf-8", "replace").split())
        raise CallFailed(ANSWER, f"the answer (HTTP {status}) is not JSON: {snippet!r}", status=status) from None


def error_detail(raw: bytes, reason: Any = "") -> tuple[str, str | None]:
    """The message of an error body, and the parameter it blames if it names one.

    Understands OpenAI's ``{"error": {"message", "param"}}``, Anthropic's ``{"type": "error",
    "error": {"message"}}`` and Ollama's ``{"error": "..."}``; anything else is shown as text.
    """
    text = raw.decode("utf-8", "replace")
    param = None
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        data = None
    message: Any = None
    if isinstance(data, dict):
        error = data.get("error", data)
        if isinstance(error, dict):
            message = error.get("message") or error.get("detail") or error.get("type")
            param = error.get("param") if isinstance(error.get("param"), str) else None
        elif isinstance(error, str):
            message = error
        if message is None and isinstance(data.get("message"), str):
            message = data["message"]
        if message is None and isinstance(data.get("detail"), str):  # FastAPI-style servers
            message = data["detail"]
    if not isinstance(message, str) or not message.strip():
        message = re.sub(r"<[^>]+>", " ", text) if text.strip() else str(reason or "")
    return cut(message), param


def cut(text: str) -> str:
    text = " ".join(str(text).split())
    return text[:_MAX_DETAIL_CHARS] + ("..." if len(text) > _MAX_DETAIL_CHARS else "")


def _read(response: Any, deadline: float) -> bytes:
    """The whole body, in chunks: each read waits at most the socket timeout, all of them until ``deadline``."""
    chunks: list[bytes] = []
    size = 0
    while True:
        chunk = response.read(_CHUNK)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        size += len(chunk)
        if size > _MAX_ANSWER_BYTES:
            raise CallFailed(ANSWER, f"the answer is larger than {_MAX_ANSWER_BYTES // (1024 * 1024)} MiB")
        if time.monotonic() > deadline:
            raise CallFailed(TIMEOUT, "timed out")


def _oserror_text(reason: Any) -> str:
    if isinstance(reason, OSError) and reason.strerror:
        return reason.strerror
    return str(reason) or type(reason).__name__


_OPENERS: dict[bool, Any] = {}


def _opener(url: str) -> Any:
    """A urllib opener that follows no redirect; for https, one that trusts the system's and certifi's CAs."""
    import urllib.request

    https = url.lower().startswith("https:")
    if https not in _OPENERS:

        class NoRedirect(urllib.request.HTTPRedirectHandler):
            def redirect_request(self, req, fp, code, msg, headers, newurl):  # noqa: ANN001, ARG002 (urllib's signature)
                return None  # a 3xx stays an HTTPError: a model endpoint that moved is misconfigured

        class HTTPHandler(urllib.request.HTTPHandler):
            def do_open(self, http_class, req, **kwargs):
                return super().do_open(_hangable(http_class, req), req, **kwargs)

        class HTTPSHandler(urllib.request.HTTPSHandler):
            def do_open(self, http_class, req, **kwargs):
                return super().do_open(_hangable(http_class, req), req, **kwargs)

        handlers: list[Any] = [NoRedirect(), HTTPHandler()]
        if https:
            handlers.append(HTTPSHandler(context=_tls_context()))
        _OPENERS[https] = urllib.request.build_opener(*handlers)
    return _OPENERS[https]


def _hangable(http_class: Any, request: Any) -> Any:
    """``http_class``, or for a request sent on a :class:`Line` a maker of its connections that
    hands the line each socket once connected (urllib opens the connection inside ``open``, out of
    the caller's reach)."""
    line = getattr(request, "ov_line", None)
    if line is None:
        return http_class

    def make(*args: Any, **kwargs: Any) -> Any:
        connection = http_class(*args, **kwargs)
        connect = connection.connect

        def connected() -> None:
            connect()
            line.connected(connection.sock)

        connection.connect = connected
        return connection

    return make


def _tls_context() -> Any:
    import ssl

    context = ssl.create_default_context()  # the system's CAs, or SSL_CERT_FILE / SSL_CERT_DIR
    if not os.environ.get("SSL_CERT_FILE"):
        try:
            import certifi  # the bundle httpx (and so litellm) trusts; installed with litellm
        except ImportError:
            pass
        else:
            context.load_verify_locations(certifi.where())
    return context
