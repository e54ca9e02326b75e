"""``ov mcp``: MCP over stdio, one JSON-RPC message per line, nothing but protocol on stdout.

The protocol ov needs is small: ``initialize`` (answered with the client's protocol version when
ov supports it, else ov's newest), ``notifications/initialized``, ``ping``, ``tools/list`` and
``tools/call``, and ``notifications/cancelled``; any other request gets -32601 and other
notifications are ignored. It is served
by this loop rather than the official SDK's server, which takes over a second to import here:
Codex sends its first model request before a slow server has listed its tools. (The SDK's own
client drives every test, so conformance is checked by the reference implementation.)

Calls run on a small pool of threads, so a slow ``add_resource`` does not hold up a ``find``;
calls that change the store (the tools not marked read-only) run one at a time on a thread of
their own, in the order they arrived: "My editor is Vim", then "... Helix" sent together must leave
Helix, as they would one after the other. Answers are written whole, one per line, under a lock. When stdin closes (MCP's end
of a session), the calls received go on while one of them ends at least every ``LEFT_GRACE``
seconds, then the server stops as on SIGTERM: a client that has left is owed no ten-thousand-file add. A client
that goes away (its end of stdout closed: the host quit) ends the session the same way, which is
not an error: nothing more is read, the calls are logged, and the process exits 0. SIGINT (a
Ctrl-C reaches the host's whole process group), SIGTERM (how a host stops a server that outlives
stdin) and SIGHUP (the host's terminal closed) stop it as cleanly: nothing more is read, the
calls already running finish (a write is one commit or nothing), but for a write where it waits,
which stops with nothing written (an ``add_resource`` at its next file, gathered or read; a
commit begun is waited for and lands whole; an ``add_resource``'s summaries, a ``session_commit``
or a ``remember`` while its model answers, any write while it waits for the store's lock:
:attr:`Store.stop`; a ``search`` too, while its model plans),
those not yet started are answered as not run, and the process exits 0; a second
signal ends it at once, as SIGKILL would, and the journal leaves no write half-done. The reading
is done on a thread of its own, so that the main thread only waits (for the end of stdin or a
signal) and never has a signal land inside the handling of a message.

A ``notifications/cancelled`` drops the call it names if it has not started (it is never run
nor answered, as MCP asks); one already running goes on to its end, unanswered, but for a write
where it waits, which stops there with nothing written, as on a signal (and a search waiting for
its plan's model). A line longer
than ``MAX_LINE`` is read to its end without being kept and answered with one error, with its
id when the line's start or end holds it.

Each call opens the store afresh: no lock is held between calls, and what hooks and the CLI wrote meanwhile is seen (the
index catches up before a read). The embedder is the exception: the first ``find`` or ``search``
loads its model (seconds for the MiniLM tier, which imports torch) and the server keeps it for
every later call while the config and the model on disk stay the same
(:class:`~ov.index.embedders.registry.WarmEmbedders`). Nothing is loaded before that, so
``initialize`` and ``tools/list`` answer at once.
Logs go to ``$OV_HOME/logs/mcp.jsonl``, never to stdout, rotated as the hooks' log is
(:func:`ov.files.append_log`: past 4 MiB it becomes ``mcp.jsonl.1``); the record of the call that
loaded a model says so (``loaded``).
"""

from __future__ import annotations

import io
import json
import os
import re
import sys
import threading
import time
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from pathlib import Path

# Newest first; a client asking for one of these gets it back.
PROTOCOL_VERSIONS = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")
WORKERS = 4
# Once stdin closes (MCP's way to end a session) or the client has gone, how long the calls
# received may go on without one of them ending before the server stops as on a signal: a script's calls, piped in before it
# closes stdin, are answered, and a 10,000-file add does not keep the process for a minute.
LEFT_GRACE = 5.0  # seconds
MAX_LINE = 64 * 1024 * 1024  # the longest message read, in bytes without its newline
CHUNK = 64 * 1024  # what one read of stdin asks for: a pipe's buffer
ENDS_KEPT = 64 * 1024  # of a line too long, the bytes kept from its start and from its end, to find its id

_SURROGATE = re.compile("[\ud800-\udfff]")
_SPACE = re.compile(r"[ \t\n\r]*")
# A line's last member, "id", closing the outermost object: the line ends there, so it is a key
# of that object (in a string, its quotes would be escaped). The TypeScript SDK's client (Claude
# Code's, Gemini CLI's) writes the id last; the Python SDK's and Codex's write it near the start.
_LAST_ID = re.compile(rb'[{,][ \t\r]*"id"[ \t\r]*:[ \t\r]*(-?[0-9]+|"(?:[^"\\]|\\.)*")[ \t\r]*\}[ \t\r]*\Z')
_READ_ALL = b"\0"  # what the reading thread writes to the main thread's pipe as it ends (no signal is 0)

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602


class Server:
    def __init__(self, out=None, *, identity_flags: dict | None = None, environ=None) -> None:
        self.out = out if out is not None else sys.stdout.buffer
        self.environ = os.environ if environ is None else environ
        self.flags = identity_flags or {}
        self.lock = threading.Lock()  # stdout's: one answer at a time
        self.pool = ThreadPoolExecutor(max_workers=WORKERS, thread_name_prefix="ov-mcp")
        self.writes = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ov-mcp-write")
        # The index's catch-up after a run of writes (:meth:`_catch_up_index`), off the writes'
        # thread: the first loads the embedder's model (about a second with the built-in one), and
        # a write that came meanwhile waited for it.
        self.indexing = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ov-mcp-index")
        self.calls_lock = threading.Lock()
        self.pending: set = set()  # the futures of the calls not yet done
        self.calls: dict = {}  # request id -> its _Call, while not done: what a cancellation names
        self.handling = threading.Lock()  # held while a line read is handled
        self._context = None
        self.client: str | None = None  # the client's name (initialize's clientInfo.name): commits say "via mcp NAME"
        self.gone = False  # the client closed its end of stdout: nothing more can reach it
        self.stopping: str | None = None  # why the server stops ("SIGTERM", "stdin closed"): no call starts after it
        self.signals = 0  # how many of those came
        self.failure: BaseException | None = None  # what ended the reading thread, raised again by serve()

    # --- the loop ---------------------------------------------------------------------

    def serve(self, stdin=None, *, stop_on=()) -> int:
        """Answer what ``stdin`` (the process's) brings until it closes, the client goes away or
        one of the signals ``stop_on`` comes (the process's own server catches SIGINT, SIGTERM and
        SIGHUP: :func:`main`), then wait for the calls received; 0."""
        stream = stdin if stdin is not None else sys.stdin.buffer if sys.stdin is not None else io.BytesIO()
        # (a stdin the caller closed, `<&-`, is None: a client that sent nothing and went away)
        wake_read, wake_write = os.pipe()  # the main thread sleeps on it: the reader's end and signals wake it
        restore = self._catch(stop_on, wake_write)
        reader = threading.Thread(target=self._read, args=(stream, wake_write), name="ov-mcp-read", daemon=True)
        read_all = False
        try:
            reader.start()
            read_all = self._wait(wake_read, stop_on)
            with self.handling:  # the line being handled as a signal came is done, and no other will be
                pass
            if read_all and not self.stopping:
                self._grace()
            for future in self._unfinished():
                if not future.cancelled():
                    future.result()
            self.pool.shutdown(wait=True)
            self.writes.shutdown(wait=True)
            self.indexing.shutdown(wait=True)  # the last write's catch-up: the prompt after it finds what it wrote
        finally:
            restore()
            if read_all:
                reader.join()  # it has written its last byte: it is ending
                os.close(wake_read)
                os.close(wake_write)
            # else a reader still waiting for stdin after a signal keeps the pipe: the process is
            # ending, and a descriptor closed here could be another file's by the time it writes.
        if self.failure is not None:
            raise self.failure
        return 0

    def _grace(self) -> None:
        """The client closed stdin or went away: the calls received go on while one ends at least
        every LEFT_GRACE seconds, then the server stops (a signal meanwhile stops it at once).
        Counted from the close, a script's calls piped in at once were cut off wherever the
        machine's load put LEFT_GRACE; only a call that runs on alone (an add) is stopped."""
        running = self._unfinished()
        while running and not self.stopping:
            done, running = wait(running, timeout=LEFT_GRACE, return_when=FIRST_COMPLETED)
            if not done:
                self.stopping = "client gone" if self.gone else "stdin closed"

    def _read(self, stream, wake: int) -> None:
        """The reading thread: each line handled in turn until stdin ends, the client goes away or
        the server stops; then it wakes the main thread."""
        # The file itself, not its buffer: this thread may still be blocked reading it as the
        # process exits, and a buffer's lock held then would stop the interpreter's exit.
        read = getattr(stream, "raw", stream).read
        try:
            for line in read_lines(read):
                with self.handling:
                    if self.stopping:
                        break  # read after the signal: not received
                    self.handle_line(line)
                if self.gone:
                    break  # the client went away: the session is over
        except BaseException as exc:  # noqa: BLE001 - a bug here ends the session; serve() raises it in the main thread
            self.failure = exc
        finally:
            os.write(wake, _READ_ALL)

    def _wait(self, wake: int, stop_on) -> bool:
        """Sleep until the reading thread ends (True) or a signal of ``stop_on`` comes (False,
        unless the reader ended as well). A signal's number is written to ``wake`` by the
        interpreter's own handler, whichever thread the kernel gave it to, while Python's handler
        runs only once the main thread is awake."""
        names = {int(signum): signum.name for signum in stop_on}
        while True:
            woken = os.read(wake, 64)
            caught = [names[number] for number in woken if number in names]
            if caught:
                self.stopping = self.stopping or caught[0]
            if caught or _READ_ALL in woken:
                return _READ_ALL in woken

    def _catch(self, stop_on, wake: int):
        """Catch the signals ``stop_on`` (the main thread only may); what puts things back as they were."""
        if not stop_on:
            return lambda: None
        import signal

        os.set_blocking(wake, False)  # the interpreter's handler writes to it, and must never block
        previous = {signum: signal.signal(signum, self._signalled) for signum in stop_on}
        previous_wake = signal.set_wakeup_fd(wake)

        def restore() -> None:
            signal.set_wakeup_fd(previous_wake)
            for signum, handler in previous.items():
                signal.signal(signum, handler)

        return restore

    def _signalled(self, signum, _frame) -> None:
        """A stop signal, in the main thread. The first stops the server cleanly; a second ends
        the process at once (the calls running are cut short, as SIGKILL would cut them: the journal
        rolls back or completes a write at the next command, and no half of one is left)."""
        import signal

        self.signals += 1
        if self.signals > 1:
            os._exit(128 + signum)
        self.stopping = self.stopping or signal.Signals(signum).name

    def _unfinished(self) -> list:
        with self.calls_lock:
            return list(self.pending)

    def handle_line(self, line) -> None:
        """Answer one line read (bytes, or a :class:`TooLong` that was not kept)."""
        if isinstance(line, TooLong):
            size = f"{line.size:,} bytes long"
            message = f"the message is {size}, longer than the {MAX_LINE:,} bytes (64 MiB) a line may hold: it was not read"
            self.send({"jsonrpc": "2.0", "id": line.request_id(), "error": {"code": INVALID_REQUEST, "message": message}})
            return
        line = line.strip()
        if not line:
            return
        try:
            message = json.loads(line)
        except ValueError as exc:
            self.send({"jsonrpc": "2.0", "id": None, "error": {"code": PARSE_ERROR, "message": f"not JSON: {exc}"}})
            return
        except RecursionError:  # the parser recurses once per nested array or object
            self.send({"jsonrpc": "2.0", "id": None, "error": {"code": PARSE_ERROR, "message": "not JSON this server reads: nested too deeply"}})
            return
        if not isinstance(message, list):
            self.handle(message, self.send)
        elif not message:
            self.send({"jsonrpc": "2.0", "id": None, "error": {"code": INVALID_REQUEST, "message": "an empty batch"}})
        else:  # a batch (JSON-RPC 2.0, MCP 2025-03-26): its answers go back as one array
            batch = _Batch(self.send)
            batch.close(sum(self.handle(item, batch.add) for item in message))

    def handle(self, message, send) -> bool:
        """Answer ``message`` through ``send`` (a message a time), now or from a worker thread;
        whether it is answered at all (notifications and answers are not)."""
        if not isinstance(message, dict) or not isinstance(message.get("method"), str):
            if isinstance(message, dict) and ("result" in message or "error" in message):
                return False  # an answer to a request ov never sends
            send({"jsonrpc": "2.0", "id": _id(message), "error": {"code": INVALID_REQUEST, "message": "not a JSON-RPC request"}})
            return True
        method, params, request_id = message["method"], message.get("params") or {}, message.get("id")
        if "id" not in message:
            if method == "notifications/cancelled" and isinstance(params, dict):
                self._cancel(params.get("requestId"))
            return False  # notifications: initialized, cancelled, ...: nothing to answer
        if message.get("jsonrpc") != "2.0" or not _valid_id(request_id):
            send({"jsonrpc": "2.0", "id": _id(message), "error": {"code": INVALID_REQUEST, "message": "not a JSON-RPC 2.0 request (jsonrpc \"2.0\", an id that is a string or an integer)"}})
            return True
        if method == "tools/call":
            self._submit(_Call(request_id, params, send))
            return True
        if method == "initialize":
            send(_result(request_id, self._initialize(params)))
        elif method == "ping":
            send(_result(request_id, {}))
        elif method == "tools/list":
            from ov.mcp.tools import definitions

            send(_result(request_id, {"tools": definitions()}))
        else:
            send({"jsonrpc": "2.0", "id": request_id, "error": {"code": METHOD_NOT_FOUND, "message": f"method not found: {method}"}})
        return True

    def _changes_the_store(self, params) -> bool:
        from ov.mcp.tools import CHANGES_STORE

        return isinstance(params, dict) and params.get("name") in CHANGES_STORE

    def _writes_waiting(self, call: _Call) -> bool:
        """Whether writes other than ``call`` are received and not done: the last of them starts what comes after a run of writes."""
        with self.calls_lock:
            return any(other is not call and self._changes_the_store(other.params) for other in self.calls.values())

    def _submit(self, call: _Call) -> None:
        pool = self.writes if self._changes_the_store(call.params) else self.pool
        call.future = pool.submit(self._call, call)
        with self.calls_lock:
            self.pending.add(call.future)
            self.calls[call.id] = call
        call.future.add_done_callback(lambda future: self._done(call, future))

    def _cancel(self, request_id) -> None:
        """The client no longer wants the call ``request_id`` (``notifications/cancelled``)."""
        with self.calls_lock:
            call = self.calls.get(request_id) if _valid_id(request_id) else None
        if call is None:
            return  # answered already, or never asked for: MCP says to ignore it
        call.cancelled = True  # running: it goes on to its end (a write is one commit or nothing), unanswered
        call.future.cancel()  # not started yet: it never runs (see _done)

    def _done(self, call: _Call, future) -> None:
        with self.calls_lock:
            self.pending.discard(future)
            if self.calls.get(call.id) is call:
                del self.calls[call.id]
        if future.cancelled():  # cancelled before it started: not run, not answered, but logged
            self._log({"tool": call.tool, "outcome": "cancelled"}, call.received)
            call.send(None)  # a batch counts it among its answers

    # --- methods ------------------------------------------------------------------------

    def _initialize(self, params: dict) -> dict:
        from ov import __version__

        asked = params.get("protocolVersion") if isinstance(params, dict) else None
        info = params.get("clientInfo") if isinstance(params, dict) else None
        name = info.get("name") if isinstance(info, dict) else None
        self.client = name if isinstance(name, str) else None
        if self._context is not None:
            self._context.via = self._via()
        version = asked if asked in PROTOCOL_VERSIONS else PROTOCOL_VERSIONS[0]
        return {
            "protocolVersion": version,
            "capabilities": {"tools": {"listChanged": False}},
            "serverInfo": {"name": "ov", "version": __version__},
            "instructions": "ov is the user's local memory and knowledge store. Search it before work that may have history; remember decisions and facts worth keeping.",
        }

    def _call(self, call: _Call) -> None:
        started = time.monotonic()
        record: dict = {"tool": call.tool}
        catch_up = False
        try:
            if self.stopping:
                # The server stops before this call started: it is not run (stopping now leaves no
                # write half-done), and the client is told so rather than left waiting.
                record.update(outcome="not run", stopped=self.stopping)
                answer = _result(call.id, _stopped(self.stopping))
            else:
                answer = self._answer(call, record)
            if call.cancelled:
                record["cancelled"] = True  # asked once it had started: it ran to its end (an add stopped), and the client wants no answer
                answer = None
            call.send(answer)
            record["ms"] = _ms_since(started)  # the call's own time: packing and the catch-up come after its answer
            if record.get("commit") and not self.stopping:
                # Once answered, in the writes' thread: the agent has its answer, and a next write
                # waits at most one packing run (about a second, once in thousands of objects).
                from ov.store.packing import pack_after_write

                packed = pack_after_write(self.context().store)
                if packed is not None:
                    record["packed"] = packed.packed + packed.dropped
                catch_up = not self._writes_waiting(call)  # after the last of a run of writes
        finally:
            # Whatever became of the answer, the call happened (a commit, say): it is logged.
            if self.gone:
                record["client"] = "gone"  # the answer did not reach it
            if catch_up:
                # Logged once the index caught up (its "index"), on the catch-up's own thread.
                self.indexing.submit(self._catch_up_then_log, record, started)
            else:
                self._log(record, started)

    def _catch_up_then_log(self, record: dict, started: float) -> None:
        try:
            if not self.stopping:  # a signal: the next find or prompt catches up
                began = time.monotonic()
                self._catch_up_index(record)
                if "index" in record:
                    record["index_ms"] = _ms_since(began)
        finally:
            self._log(record, started)

    def _catch_up_index(self, record: dict) -> None:
        """Once a write is answered, where hooks run: the index caught up here, with the model this
        server keeps loaded, so that the next prompt's recall (which searches the index as it is)
        finds what was written; it found nothing of an MCP `remember` until a find or the next
        prompt's job. On a thread of its own (:attr:`indexing`), so that the next write does not
        wait for it. Never waits for another process's catch-up (a find meanwhile reads the index
        as it is); a failure is the next search's to repair."""
        from ov.index.folder import recall_behind

        try:
            context = self.context()
            if not context.home.hook_log.exists():
                return  # no hook here (recall_behind says it again): no config read for nothing
            store = context.store(read_only=True)
            indices = context.indices(store)
            # A build or a rebuild (minutes for a large store) would hold up the next write: the
            # next find's, or the job the next prompt starts.
            if recall_behind(store) and indices.unready() is None:
                opened = indices.open()
                record["index"] = "; ".join(opened.actions) or ("left to the process updating it" if opened.stale else "caught up")
        except Exception as exc:  # noqa: BLE001 - the write is done and answered: the log says why the index was not
            record["index"] = f"not caught up: {getattr(exc, 'message', None) or f'{type(exc).__name__}: {exc}'}"

    def _answer(self, received: _Call, record: dict) -> dict:
        """The answer to a ``tools/call``; its outcome is noted in ``record``."""
        request_id, params, name = received.id, received.params, record["tool"]
        arguments = params.get("arguments") if isinstance(params, dict) else None
        from ov.errors import OvError

        try:
            from ov.mcp.tools import call

            context = self.context()
            result = call(context, name, arguments if arguments is not None else {}, record, stop=lambda: self._stop(received))
            record["outcome"] = "error" if result.get("isError") else "ok"
            loaded = context.embedders.newly_loaded()
            if loaded:
                record["loaded"] = loaded
        except OvError as exc:  # the home or the identity cannot be resolved (a relative OV_HOME): each call says why
            from ov.mcp.tools import _ov_error

            result = _ov_error(exc)
            record["outcome"] = "error"
        except UnknownTool as exc:
            record["outcome"] = "unknown tool"
            return {"jsonrpc": "2.0", "id": request_id, "error": {"code": INVALID_PARAMS, "message": str(exc)}}
        except (KeyboardInterrupt, SystemExit, GeneratorExit):
            raise
        except BaseException as exc:  # noqa: BLE001 - a bug in a tool (or a Rust panic, a BaseException): the client gets a tool error, the server lives
            result = {"content": [{"type": "text", "text": f"ov failed: {type(exc).__name__}: {exc}"}], "isError": True}
            record.update(outcome="error", error=f"{type(exc).__name__}: {exc}")
        if result.get("isError") and "error" not in record:
            record["error"] = result["content"][0]["text"][:500]
        return _result(request_id, result)

    def _stop(self, call: _Call) -> str | None:
        """Why the running ``call`` should stop where it can (an add between two files, before
        its commit), or None: the client cancelled it, or the server is stopping."""
        if call.cancelled:
            return "the client cancelled it"
        return f"ov's MCP server is stopping ({self.stopping})" if self.stopping else None

    def context(self):
        """Home and identity, resolved once (flags of the registered command, env, config)."""
        if self._context is None:
            from ov.mcp.tools import Context

            self._context = Context.resolve(self.flags, self.environ)
            self._context.via = self._via()
        return self._context

    def _via(self) -> str:
        return f"mcp {self.client}" if self.client else "mcp"

    # --- writing ------------------------------------------------------------------------

    def send(self, message) -> None:
        """Write one answer (or a batch's array of them) as one line; None: none (a call cancelled)."""
        if message is None:
            return
        text = json.dumps(message, ensure_ascii=False, separators=(",", ":"))
        try:
            data = text.encode("utf-8") + b"\n"
        except UnicodeEncodeError:
            # A lone surrogate (an id or method the client sent as "\ud800", a file name that was
            # not UTF-8) has no UTF-8 form: U+FFFD stands in, so the answer is still sent.
            data = _SURROGATE.sub("\ufffd", text).encode("utf-8") + b"\n"
        with self.lock:
            if self.gone:
                return
            try:
                self.out.write(data)
                self.out.flush()
            except (BrokenPipeError, ConnectionResetError):
                # The client closed its end (the host quit, perhaps mid-call): the end of the
                # session, which serve() sees after the line it is handling.
                self.gone = True

    def _log(self, record: dict, started: float) -> None:
        record.setdefault("ms", _ms_since(started))  # a call that failed before its answer was sent
        try:
            from ov.errors import HomeInvalid
            from ov.files import append_log
            from ov.home import Home

            home = Home.from_env(self.environ)
            append_log(log_path(home.root), record, home.ensure)
        except (OSError, HomeInvalid):
            pass  # a log that cannot be written never fails a call (the call said what is wrong with the home)


def _ms_since(started: float) -> float:
    return round((time.monotonic() - started) * 1000, 1)


class UnknownTool(LookupError):
    pass


class _Call:
    """A ``tools/call`` received: its id, its params, where its answer goes, and whether the client
    cancelled it."""

    def __init__(self, request_id, params, send) -> None:
        self.id = request_id
        self.params = params
        self.send = send
        self.tool = params.get("name") if isinstance(params, dict) else None
        self.received = time.monotonic()
        self.cancelled = False
        self.future = None


class _Batch:
    """The answers to a batch's requests, sent as one array once the last is in (some come from
    worker threads, before or after the batch has been read to its end)."""

    def __init__(self, send) -> None:
        self.expected: int | None = None  # known once every request of the batch was handled
        self.answered = 0  # the requests done, answered or not (a call cancelled gets no answer)
        self.answers: list = []
        self.lock = threading.Lock()
        self.send = send

    def add(self, message: dict | None) -> None:
        """A request's answer; None for one that gets none after all (cancelled)."""
        with self.lock:
            self.answered += 1
            if message is not None:
                self.answers.append(message)
            complete = self.answered == self.expected
        if complete and self.answers:  # no answer at all: nothing is sent, not even []
            self.send(self.answers)

    def close(self, expected: int) -> None:
        """Every request was handled; ``expected`` answers are coming (none: nothing is sent)."""
        with self.lock:
            self.expected = expected
            complete = expected > 0 and self.answered == expected
        if complete and self.answers:
            self.send(self.answers)


class TooLong:
    """A line longer than ``MAX_LINE``, read to its end but not kept: its first and last bytes."""

    def __init__(self, head: bytes, tail: bytes, size: int) -> None:
        self.head = head
        self.tail = tail
        self.size = size  # in bytes, without the newline

    def request_id(self):
        """The line's id, when its start or its end holds it where a request's is, else None."""
        found = _leading_id(self.head)
        if found is None:
            last = _LAST_ID.search(self.tail)
            if last is not None:
                try:
                    found = json.loads(last.group(1))
                except ValueError:
                    return None
        return found if _valid_id(found) else None


def read_lines(read, limit: int = MAX_LINE):
    """The lines ``read(n)`` brings (as a file's ``read``: at most n bytes, b"" at the end), without
    their newline; a line longer than ``limit`` as a :class:`TooLong`, so that the line after it
    is read as itself and memory stays bounded (by ``limit``) whatever a client sends."""
    line = bytearray()
    tail = b""
    size = 0
    while chunk := read(CHUNK):
        pieces = chunk.split(b"\n")
        for index, piece in enumerate(pieces):
            over = size > limit
            size += len(piece)
            if size <= limit:
                line += piece
            else:  # only its two ends are kept from here
                tail = ((tail if over else bytes(line[-ENDS_KEPT:])) + piece)[-ENDS_KEPT:]
                line += piece[: max(ENDS_KEPT - len(line), 0)]
                del line[ENDS_KEPT:]
            if index < len(pieces) - 1:  # the piece ends a line
                yield bytes(line) if size <= limit else TooLong(bytes(line), tail, size)
                line, tail, size = bytearray(), b"", 0
    if size:  # the last line, without a newline
        yield bytes(line) if size <= limit else TooLong(bytes(line), tail, size)


def _leading_id(head: bytes):
    """The top-level "id" of the object a line starts with ``head``, when it comes before any
    member too long for the head, else None. Each member before it is decoded whole: an "id"
    inside a value (a tool's arguments) is never taken for the request's."""
    text = head.decode("utf-8", "ignore")  # the head may end inside a character
    decoder = json.JSONDecoder()
    at = _SPACE.match(text).end()
    if not text.startswith("{", at):
        return None
    at += 1
    try:
        while True:
            key, at = decoder.raw_decode(text, _SPACE.match(text, at).end())
            at = _SPACE.match(text, at).end()
            if not isinstance(key, str) or not text.startswith(":", at):
                return None
            value, at = decoder.raw_decode(text, _SPACE.match(text, at + 1).end())
            if key == "id":
                return value
            at = _SPACE.match(text, at).end()
            if not text.startswith(",", at):
                return None
            at += 1
    except (ValueError, RecursionError):  # a member cut by the head's end, or not JSON
        return None


def _stopped(why: str) -> dict:
    text = f"not run: ov's MCP server is stopping ({why}), so this call was not started and changed nothing; make it again once the server is back"
    return {"content": [{"type": "text", "text": text}], "isError": True}


def _result(request_id, result: dict) -> dict:
    return {"jsonrpc": "2.0", "id": request_id, "result": result}


def _valid_id(request_id) -> bool:
    return isinstance(request_id, str) or (isinstance(request_id, int) and not isinstance(request_id, bool))


def _id(message):
    """The id to answer an invalid request with: its own when it is a valid one, else null."""
    request_id = message.get("id") if isinstance(message, dict) else None
    return request_id if _valid_id(request_id) else None


def main(flags: dict | None = None) -> int:
    """The ``ov mcp`` process: SIGINT, SIGTERM and SIGHUP stop it cleanly (exit 0)."""
    import signal

    # Elsewhere than POSIX the wake-up of a signal needs a socket, and SIGTERM and SIGHUP are not
    # sent. SIGHUP's default action ended the server mid-call, a write's commit undone by the next command.
    stop_on = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP) if os.name == "posix" else ()
    return Server(identity_flags=flags).serve(stop_on=stop_on)


def log_path(home_root: Path) -> Path:
    return home_root / "logs" / "mcp.jsonl"
