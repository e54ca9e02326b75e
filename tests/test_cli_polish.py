"""The CLI's edges as a newcomer meets them: help, version, exit codes, pipes, error envelopes,
bytes that are not UTF-8, and a full disk."""

from __future__ import annotations

import errno
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import fill_disk, set_writable
from tests.test_architecture import PROBE

# --- help, version, typos -----------------------------------------------------------


def test_bare_ov_prints_the_help_and_succeeds(ov):
    result = ov()
    assert result.exit_code == 0, result.stderr
    assert result.stdout.startswith("Usage: ov ") and "Commands:" in result.stdout
    assert result.stderr == ""


def test_a_bare_group_prints_its_help_and_succeeds(ov):
    result = ov("snapshot")
    assert result.exit_code == 0, result.stderr
    assert result.stdout.startswith("Usage: ov snapshot ") and result.stderr == ""


def test_a_mistyped_command_is_suggested_once(ov):
    result = ov("serch", "foo")
    assert result.exit_code == 2
    assert result.stderr.count("Did you mean 'search'?") == 1, result.stderr


@pytest.mark.parametrize(
    ("args", "usage"),
    [
        (("-h", "ls"), "Usage: ov ls "),
        (("--help", "snapshot", "log"), "Usage: ov snapshot log "),
        (("-h", "snapshot"), "Usage: ov snapshot "),
        (("--json", "-h", "find"), "Usage: ov find "),
        (("-h",), "Usage: ov [OPTIONS] COMMAND"),
    ],
)
def test_help_before_a_command_is_that_commands_help(ov, args, usage):
    """`ov -h ls` reads as `ov ls -h`, as the common options do (docs/commands.md says so)."""
    result = ov(*args)
    assert result.exit_code == 0, result.stderr
    assert result.stdout.startswith(usage), result.stdout[:200]


def test_common_options_with_no_command_say_so(ov):
    """`ov --json` named no command: a usage error that says so (it said "No such option '--json'",
    which it is), not the help, which is not the JSON a `--json` caller reads."""
    for args in (["--json"], ["--json", "--version"], ["--account", "a"], ["--user=x", "--json"]):
        result = ov(*args)
        assert result.exit_code == 2 and result.stdout == ""
        said = result.error if "--json" in args else {"code": "usage", "message": result.stderr.removeprefix("error: ")}
        assert said["code"] == "usage" and said["message"].startswith(f"{args[0].split('=')[0]} belongs to a command, and none was named"), said
    assert "`ov version --json` prints the version as JSON" in ov("--json", "--version").error["message"]
    assert ov("--json", "-h").stdout == ov().stdout and ov("--json", "-h").exit_code == 0


@pytest.mark.parametrize(
    "args, stdin, check",
    [
        (["write", "viking://resources/a.md", "--from-file", "-"], "from stdin\n", ["read", "viking://resources/a.md"]),
        (["session", "add-messages", "s1", "-"], '[{"role": "user", "content": "from stdin"}]', ["session", "show", "s1"]),
    ],
)
def test_dash_names_standard_input(ov, args, stdin, check):
    result = ov(*args, stdin=stdin)
    assert result.exit_code == 0, result.stderr
    assert "from stdin" in ov(*check).stdout


def test_version_option(ov):
    from ov import __version__

    result = ov("--version")
    assert result.exit_code == 0, result.stderr
    assert result.stdout == f"ov {__version__}\n"


def test_version_lists_what_a_bug_report_needs(ov):
    data = ov("version", "--json").json["result"]
    for name in ("tantivy", "hnswlib", "numpy", "model2vec", "pypdf", "litellm", "dulwich", "typer"):
        assert data["libraries"][name], name
    assert data["python"] and data["platform"]
    text = ov("version").stdout
    assert text.splitlines()[0].startswith("ov ") and "tantivy " in text and "litellm " in text and "python " in text


def test_version_reads_metadata_without_importing_the_libraries():
    proc = subprocess.run([sys.executable, "-c", PROBE, "version"], capture_output=True, text=True, check=True)
    loaded = set(json.loads(proc.stderr.strip().splitlines()[-1]))
    assert not loaded & {"tantivy", "hnswlib", "numpy", "model2vec", "pypdf", "litellm"}


def test_a_command_line_builds_only_the_command_it_names():
    """typer turns each registered command into click objects on every run; `ov session add`
    builds that one command, and anything that names none (help, a typo) the whole group."""
    from ov.cli import session_cmd
    from ov.cli.main import _narrowed, app

    only = _narrowed(app, ["session", "add", "s1", "--text", "hi"])
    assert only.registered_commands == []
    [group] = only.registered_groups
    assert group.name == "session"
    assert [c.callback for c in group.typer_instance.registered_commands] == [session_cmd.session_add]
    assert _narrowed(app, ["session", "--help"]).registered_groups[0].typer_instance is session_cmd.app
    assert _narrowed(app, ["session", "adx"]).registered_groups[0].typer_instance is session_cmd.app
    assert _narrowed(app, ["--version"]) is app


# --- sessions -----------------------------------------------------------------------


def test_session_show_header_gives_counts(ov):
    assert ov("session", "add", "s1", "--text", "hi").exit_code == 0
    assert ov("session", "add", "s1", "--text", "there").exit_code == 0
    lines = ov("session", "show", "s1", "--last", "1").stdout.splitlines()
    assert lines[1].startswith("2 live / 2 total messages, 0 commits"), lines
    assert "[{" not in lines[1]


# --- pipes --------------------------------------------------------------------------


@pytest.fixture
def many_entries(ov, tmp_path):
    """A store whose `ls -r` runs to hundreds of lines, and a file far larger than a pipe holds."""
    source = tmp_path / "many"
    for i in range(300):
        folder = source / f"d{i % 10}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"f{i}.md").write_text(f"file {i}\n")
    assert ov("add-resource", str(source)).exit_code == 0
    assert ov("write", "viking://resources/big.md", "--content", "line of text\n" * 20000).exit_code == 0


@pytest.mark.skipif(shutil.which("bash") is None or shutil.which("head") is None, reason="needs bash and head")
@pytest.mark.parametrize(
    "pipeline",
    ["OV ls -r viking:// | head -1", "OV read viking://resources/big.md | head -1", "OV ls viking://resources | true"],
)
def test_a_reader_that_goes_away_is_not_a_failure(many_entries, pipeline):
    ov_cmd = f"{sys.executable} -m ov"
    proc = subprocess.run(["bash", "-o", "pipefail", "-c", pipeline.replace("OV", ov_cmd)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
@pytest.mark.parametrize("pipeline", ["OV restore /nonexistent.ovpack 2>&1 | true", "OV read viking://resources/missing.md --json 2>&1 | head -c 1"])
def test_a_failure_whose_reader_went_away_still_fails(hermetic_env, pipeline):
    """The reader of the error message gone (`2>&1 | head -1`) must not turn a failure into success:
    a script under pipefail would take a failed restore for a done one."""
    ov_cmd = f"{sys.executable} -m ov"
    proc = subprocess.run(["bash", "-o", "pipefail", "-c", pipeline.replace("OV", ov_cmd) + " > /dev/null"], capture_output=True, text=True, timeout=60)
    assert proc.returncode in (1, 2), proc.stdout + proc.stderr


def test_the_ov_program_delivers_all_its_output_and_its_exit_code(many_entries, ov, ov_process):
    """The program ends without unwinding the interpreter (ov.cli.main.entry): what it printed
    must still arrive whole, on both streams, with the command's own exit code."""
    listing = ov_process("read", "viking://resources/big.md")
    assert listing.exit_code == 0 and listing.stdout == ov("read", "viking://resources/big.md").stdout
    missing = ov_process("read", "viking://resources/missing.md", "--json")
    assert missing.exit_code == ov("read", "viking://resources/missing.md").exit_code == 1
    assert json.loads(missing.stderr)["error"]["code"] == "not_found"


def test_the_ov_program_waits_for_a_thread_still_running(tmp_path, hermetic_env):
    done = tmp_path / "done"
    script = (
        "import sys, threading, time\n"
        "from ov.cli.entry import entry\n"
        f"threading.Thread(target=lambda: (time.sleep(0.3), open({str(done)!r}, 'w').close())).start()\n"
        "sys.argv = ['ov', '--version']\n"
        "entry()\n"
    )
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and proc.stdout.startswith("ov ")
    assert done.exists()


def test_a_second_ctrl_c_during_the_first_ones_clean_up_is_ignored(tmp_path, ov_home):
    """A user pressing Ctrl-C twice: the second SIGINT, landing while the first one's interrupt is
    being handled, printed a traceback and killed the process by the signal. Now it is ignored:
    exit 130 and the first one's message alone."""
    (tmp_path / "a.md").write_text("alpha\n")
    script = (
        "import os, signal, sys\n"
        "from ov.cli import main\n"
        "from ov.ingest import resource\n"
        "def pressed(*args, **kwargs):\n"
        "    os.kill(os.getpid(), signal.SIGINT)\n"
        "said = main.error\n"
        "def pressed_again(*args, **kwargs):\n"
        "    os.kill(os.getpid(), signal.SIGINT)\n"
        "    return said(*args, **kwargs)\n"
        "resource.collect, main.error = pressed, pressed_again\n"
        "from ov.cli.entry import entry\n"
        f"sys.argv = ['ov', 'add-resource', {str(tmp_path / 'a.md')!r}]\n"
        "entry()\n"
    )
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 130
    assert proc.stderr.startswith("error: ov add-resource was interrupted") and proc.stderr.count("error:") == 1
    assert "Traceback" not in proc.stderr


# --- exit codes ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        ["import", "{tmp}/missing.ovpack", "viking://resources"],
        ["restore", "{tmp}/missing.ovpack"],
        ["export", "viking://resources/docs", "{tmp}/no/such/folder/docs.ovpack"],
        ["backup", "{tmp}/no/such/folder/all.ovpack"],
        ["write", "viking://resources/x.md", "--from-file", "{tmp}/missing.md"],
        ["add-resource", "{tmp}/missing.md"],
        ["add-skill", "{tmp}/missing-skill"],
    ],
)
def test_a_missing_local_file_or_folder_is_bad_input(ov, tmp_path, store_state, args):
    assert ov("write", "viking://resources/docs/a.md", "--content", "a\n").exit_code == 0
    before = store_state()
    result = ov(*[a.replace("{tmp}", str(tmp_path)) for a in args], "--json")
    assert result.exit_code == 2, result.stderr
    assert result.error["message"] and result.error["hint"]
    assert store_state() == before


def test_grep_exits_1_when_nothing_matches_and_still_prints_json(ov):
    assert ov("write", "viking://resources/a.md", "--content", "alpha\n").exit_code == 0
    none = ov("grep", "zebra", "--json")
    assert none.exit_code == 1 and none.json == {"ok": True, "result": []} and none.stderr == ""
    assert ov("grep", "zebra").exit_code == 1
    assert ov("grep", "alpha").exit_code == 0


@pytest.mark.parametrize("as_json", [False, True])
@pytest.mark.parametrize(
    "args, code",
    [
        (["grep", "alpha", "--uri", "viking://resources/nope"], "not_found"),  # a runtime error elsewhere (exit 1)
        (["grep", "alpha", "-u", "viking://resources/nope"], "not_found"),
        (["grep", "alpha", "--account", "typo"], "account_not_found"),  # a store it cannot read
        (["grep", "(unclosed"], "invalid_input"),
        (["grep", "alpha", "--bogus"], "usage"),
        (["--json", "grep"], "usage"),  # no pattern; the common option before the command
    ],
)
def test_grep_exits_2_on_any_error_as_grep_and_rg_do(ov, args, code, as_json):
    """1 is grep's "no line matched": a failure exiting 1 read as "no match" to a script."""
    assert ov("write", "viking://resources/a.md", "--content", "alpha\n").exit_code == 0
    result = ov(*args, *(["--json"] if as_json else []))
    assert (result.exit_code, result.stdout) == (2, "")
    if as_json or "--json" in args:
        assert json.loads(result.stderr)["ok"] is False and result.error["code"] == code
    else:
        assert result.stderr.startswith("error: ") and "\nhint: " in result.stderr
    # Every other command keeps the global convention: 1 a runtime error.
    assert ov("ls", "viking://resources/nope").exit_code == 1


def test_grep_is_interrupted_as_any_command_not_failed(ov, monkeypatch):
    """Ctrl-C is the shell's 130 for grep too: the user stopped it, nothing failed."""
    import ov.retrieval.grep as core

    assert ov("write", "viking://resources/a.md", "--content", "alpha\n").exit_code == 0

    def stopped(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(core, "grep", stopped)
    result = ov("grep", "alpha")
    assert (result.exit_code, result.stderr) == (130, "error: ov grep was interrupted\nhint: nothing to undo; run the command again to finish it\n")


@pytest.mark.parametrize("args", [["ls", "-r"], ["snapshot", "log", "-n", "2"]])
def test_ctrl_c_while_the_command_line_is_read_is_said_as_any_other(ov, monkeypatch, args):
    """(found by a review: typer turned Ctrl-C during the parsing of the arguments, an option's
    callback or conversion, into a silent exit 130)"""
    import click

    read = click.Option.process_value

    def stopped(self, ctx, value):
        if self.name in ("recursive", "limit", "number", "n"):
            raise KeyboardInterrupt
        return read(self, ctx, value)

    monkeypatch.setattr(click.Option, "process_value", stopped)
    shown = " ".join(args[:2] if args[0] == "snapshot" else args[:1])
    result = ov(*args)
    assert (result.exit_code, result.stderr) == (130, f"error: ov {shown} was interrupted\nhint: nothing to undo; run the command again to finish it\n")
    assert ov(*args, "--json").error["code"] == "interrupted"


def test_ctrl_c_says_what_it_stopped_and_that_nothing_landed(ov, store_state, monkeypatch):
    """130 alone said nothing: the user learns what stopped, and that the store (or the index in
    use, for a reindex) is as it was; on stderr, as JSON with --json."""
    from ov.index.sync import Indices
    from ov.ingest import resource

    assert ov("write", "viking://resources/a.md", "--content", "alpha\n").exit_code == 0
    assert ov("reindex").exit_code == 0
    before = store_state()

    def stopped(*args, **kwargs):
        raise KeyboardInterrupt

    with monkeypatch.context() as patched:
        patched.setattr(resource, "collect", stopped)
        added = ov("add-resource", str(__file__), "--json")
        patched.setattr(Indices, "_rebuild", stopped)
        rebuilt = ov("reindex")
    assert (added.exit_code, added.stdout) == (130, "")
    assert added.error["code"] == "interrupted"
    assert added.error["message"] == "ov add-resource was interrupted before its commit: nothing was changed in the store"
    assert store_state() == before
    assert rebuilt.exit_code == 130 and rebuilt.stderr.startswith("error: ov reindex was interrupted: the index in use is kept as it was\n")
    assert ov("grep", "alpha").exit_code == 0 and ov("find", "alpha", "--json").json["result"]["total"] == 1


def test_ctrl_c_while_reindex_makes_vectors_says_they_are_to_make(ov, ov_home, monkeypatch):
    """The new full text is swapped in before the vectors are made: an interrupt then has dropped
    the old vectors, and the message says so rather than that the index is kept as it was."""
    from ov.index import vector_writes

    assert ov("config", "set", "embedding.provider", "hash").exit_code == 0
    assert ov("write", "viking://resources/a.md", "--content", "alpha\n").exit_code == 0
    assert ov("reindex", "--json").json["result"]["vectors"] > 0

    def stopped(*args, **kwargs):
        raise KeyboardInterrupt

    with monkeypatch.context() as patched:
        patched.setattr(vector_writes, "make_vectors", stopped)
        rebuilt = ov("reindex")
    assert rebuilt.exit_code == 130
    assert rebuilt.stderr.startswith(
        "error: ov reindex was interrupted while making the vectors: the full text was rebuilt, "
        "the vectors are made again by the next search or `ov reindex`\n"
    )
    assert "kept as it was" not in rebuilt.stderr
    meta = ov_home / "state" / "default" / "index" / "meta.json"
    assert json.loads(meta.read_text())["vectors_stale"] is True
    assert ov("find", "alpha", "--json").json["result"]["total"] == 1
    assert json.loads(meta.read_text())["vectors"] > 0  # made again by that search


@pytest.mark.parametrize(
    "args",
    [
        ["grep", "alpha"],
        ["glob", "**"],
        ["find", "alpha"],
        ["search", "alpha"],
        ["snapshot", "log"],
        ["snapshot", "show", "HEAD~1"],
        ["snapshot", "diff", "HEAD~2", "HEAD"],
        ["snapshot", "restore", "HEAD~2", "--dry-run"],
    ],
)
def test_every_uri_option_is_also_u(ov, args):
    """`-u` is `--uri` wherever a command takes one, as grep and glob first had it."""
    for content in ("alpha one\n", "alpha two\n"):
        assert ov("write", "viking://resources/a/x.md", "--content", content).exit_code == 0
    assert ov("write", "viking://resources/b/y.md", "--content", "alpha elsewhere\n").exit_code == 0
    scope = "viking://resources/a/x.md" if args[:2] == ["snapshot", "show"] else "viking://resources/a"
    long, short = (ov(*args, option, scope, "--json") for option in ("--uri", "-u"))
    assert (long.exit_code, short.exit_code) == (0, 0), short.stderr
    named = re.findall(r"viking://[^\s\"]+", short.stdout)
    assert named == re.findall(r"viking://[^\s\"]+", long.stdout)
    assert named and not [uri for uri in named if "resources/b" in uri], short.stdout  # scoped as --uri scopes


def test_no_command_takes_u_for_anything_but_uri():
    from ov.cli.docgen import iter_commands

    for path, command in iter_commands():
        for param in command.params:
            opts = [*getattr(param, "opts", ()), *getattr(param, "secondary_opts", ())]
            if "--uri" in opts or "-u" in opts:
                assert {"--uri", "-u"} <= set(opts), (path, opts)


@pytest.mark.parametrize("command", ["find", "search"])
def test_find_and_search_succeed_with_no_results(ov, command):
    assert ov("write", "viking://resources/a.md", "--content", "alpha\n").exit_code == 0
    result = ov(command, "zebra", "--json")
    assert result.exit_code == 0, result.stderr
    assert ov(command, "zebra").exit_code == 0


# --- error envelopes ----------------------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        ["mkdir", "viking://resources/d"],  # already exists
        ["grep", "(unclosed"],
        ["read", "viking://resources/nothing.md"],
        ["ls", "nota-uri"],
        ["snapshot", "show", "nosuchtag"],
        ["no-such-command"],
    ],
)
def test_every_error_envelope_has_a_hint(ov, args):
    assert ov("mkdir", "viking://resources/d").exit_code == 0
    result = ov(*args, "--json")
    assert result.exit_code in (1, 2)
    envelope = json.loads(result.stderr)
    assert envelope["ok"] is False and set(envelope["error"]) == {"code", "message", "hint"}
    assert envelope["error"]["hint"].strip()


def _subclasses(cls):
    for sub in cls.__subclasses__():
        yield sub
        yield from _subclasses(sub)


def test_every_error_class_has_a_default_hint():
    import importlib
    import pkgutil

    import ov
    from ov.errors import OvError

    for module in pkgutil.walk_packages(ov.__path__, "ov."):
        if ".cli" not in module.name:
            importlib.import_module(module.name)
    for cls in [OvError, *_subclasses(OvError)]:
        error = cls.__new__(cls)
        OvError.__init__(error, "something went wrong")
        assert error.to_dict()["hint"].strip(), cls.__name__


def test_an_explicit_hint_wins_over_the_default():
    from ov.errors import NotFound

    assert NotFound("gone", hint="look elsewhere").to_dict() == {"code": "not_found", "message": "gone", "hint": "look elsewhere"}
    assert NotFound("gone").to_dict()["hint"] == NotFound.hint


# --- bytes that are not UTF-8 -------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (["write", "viking://resources/caf\udce9.md", "--content", "x"], "URI"),
        (["write", "viking://resources/a.md", "--content", "caf\udce9"], "--content"),
        (["find", "caf\udce9"], "QUERY"),
    ],
)
def test_arguments_that_are_not_utf8_are_refused_by_name(ov, store_state, args, named):
    before = store_state()
    result = ov(*args, "--json")
    assert result.exit_code == 2, result.stderr
    assert result.error["code"] == "invalid_input"
    assert named in result.error["message"] and "UTF-8" in result.error["message"]
    assert store_state() == before


def test_raw_bytes_on_a_real_command_line_are_refused(hermetic_env):
    proc = subprocess.run(
        [sys.executable.encode(), b"-m", b"ov", b"write", b"viking://resources/caf\xe9.md", b"--content", b"x"],
        capture_output=True,
        env=os.environ,
    )
    assert proc.returncode == 2, proc.stderr
    assert b"URI" in proc.stderr and b"UTF-8" in proc.stderr and b"internal error" not in proc.stderr


# --- a full disk ----------------------------------------------------------------------


def test_disk_full_is_recognised_from_errno_and_from_tantivy():
    from ov.errors import DiskFull, disk_full

    for code in (errno.ENOSPC, errno.EDQUOT):
        found = disk_full(OSError(code, os.strerror(code)), "/data/ov")
        assert isinstance(found, DiskFull) and found.exit_code == 1 and found.code == "disk_full"
        assert found.message == "no space left on device under /data/ov" and found.hint
    assert disk_full(OSError(errno.EACCES, "denied"), "/data/ov") is None
    tantivy = ValueError("An IO error occurred: 'No space left on device (os error 28) at path \"/x/index/.tmp\"'")
    assert isinstance(disk_full(tantivy, "/data/ov"), DiskFull)
    assert disk_full(ValueError("An IO error occurred: 'Permission denied (os error 13)'"), "/data/ov") is None


def test_limits_of_the_process_are_typed_errors_with_a_hint():
    from ov.errors import OutOfMemory, TooManyOpenFiles, os_failure, resource_exhausted

    for exc in (MemoryError(), RuntimeError("can't start new thread"), OSError(errno.ENOMEM, "Cannot allocate memory")):
        found = os_failure(exc, Path("/data/ov"))
        assert isinstance(found, OutOfMemory) and found.exit_code == 1 and found.code == "out_of_memory"
        assert "ulimit -v" in found.hint
    for exc in (OSError(errno.EMFILE, "Too many open files"), ValueError("An IO error occurred: 'Too many open files (os error 24)'")):
        found = resource_exhausted(exc)
        assert isinstance(found, TooManyOpenFiles) and found.code == "too_many_open_files" and "ulimit -n" in found.hint
        assert found.message.startswith("too many open files (`ulimit -n` is ")
    assert "ENFILE" in resource_exhausted(OSError(errno.ENFILE, "Too many open files in system")).message
    assert resource_exhausted(RuntimeError("other")) is None and resource_exhausted(OSError(errno.EACCES, "x")) is None


def test_out_of_memory_is_said_even_when_the_limit_cannot_be_read(monkeypatch):
    """Out of memory, loading the `resource` module itself failed ("failed to map segment")."""
    from ov.errors import OutOfMemory

    monkeypatch.setitem(sys.modules, "resource", None)  # an import of it raises ImportError
    assert OutOfMemory().message == "ov ran out of memory"


@pytest.mark.parametrize(
    ("raised", "code"),
    [(MemoryError(), "out_of_memory"), (RuntimeError("can't start new thread"), "out_of_memory"), (OSError(errno.EMFILE, "Too many open files"), "too_many_open_files")],
)
def test_a_limit_reached_mid_command_is_one_line_and_exit_1(ov, ov_home, monkeypatch, raised, code):
    from ov.store.gitstore import GitStore

    assert ov("write", "viking://resources/a.md", "--content", "a").exit_code == 0

    def fail(*args, **kwargs):
        raise raised

    monkeypatch.setattr(GitStore, "_write_journal", fail)
    result = ov("write", "viking://resources/b.md", "--content", "b", "--json")
    assert result.exit_code == 1, result.stderr
    error = json.loads(result.stderr)["error"]
    assert error["code"] == code and "internal error" not in error["message"] and "ulimit" in error["hint"]


def test_file_writes_ahead_share_a_few_threads_and_never_wait_for_one_that_cannot_start(tmp_path, monkeypatch):
    """Under `ulimit -v` a pool made per call ran out of address space, and a thread whose
    start-up died of MemoryError left Thread.start waiting for ever: the add hung."""
    import threading

    from ov.store import writers

    before = threading.active_count()
    for batch in range(5):
        futures = writers.submit_all(Path.write_bytes, [(tmp_path / f"{batch}-{i}", b"x") for i in range(20)])
        assert [f.result() for f in futures] == [1] * 20
    assert threading.active_count() - before <= writers.WORKERS  # the same threads, batch after batch
    assert writers.submit_all(Path.write_bytes, [(tmp_path / "small", b"y")])[0].done()  # a file or two: inline

    def refused(*args):
        raise RuntimeError("can't start new thread")

    monkeypatch.setattr(writers, "_started", 0)
    monkeypatch.setattr(writers, "_running", 0)
    monkeypatch.setattr(writers._thread, "start_new_thread", refused)
    futures = writers.submit_all(Path.write_bytes, [(tmp_path / f"inline-{i}", b"z") for i in range(10)])
    assert all(f.done() for f in futures) and (tmp_path / "inline-9").read_bytes() == b"z"  # written here instead
    monkeypatch.setattr(writers, "_started", 0)
    monkeypatch.setattr(writers, "_never", False)  # remembered for the process: put back after
    monkeypatch.setattr(writers._thread, "start_new_thread", lambda fn, args: 1)  # started, never runs
    monkeypatch.setattr(writers, "_STARTED_WITHIN", 0.05)
    futures = writers.submit_all(Path.write_bytes, [(tmp_path / f"late-{i}", b"w") for i in range(10)])
    assert all(f.done() for f in futures)


def test_a_full_disk_is_one_clear_error(small_disk, ov_process):
    home = small_disk / "home"
    env = {"OV_HOME": str(home)}
    for i in range(3):
        assert ov_process("write", f"viking://resources/doc{i}.md", "--content", f"deploy notes {i}\n", env=env).exit_code == 0
    assert ov_process("find", "deploy", env=env).exit_code == 0
    fill_disk(small_disk)
    for args in (
        ["write", "viking://resources/new.md", "--content", "hello disk full"],
        ["session", "add", "s1", "--text", "hi"],
        ["mkdir", "viking://resources/newdir"],
        ["reindex"],
    ):
        result = ov_process(*args, "--json", env=env)
        assert result.exit_code == 1, (args, result.stderr)
        assert "Exception ignored" not in result.stderr and "Traceback" not in result.stderr
        error = json.loads(result.stderr)["error"]
        assert error["code"] == "disk_full", (args, error)
        assert error["message"].startswith("no space left on device under ") and error["hint"]
    human = ov_process("write", "viking://resources/new.md", "--content", "x", env=env)
    assert human.stderr.startswith(f"error: no space left on device under {home}"), human.stderr


# --- standard streams closed or full ---------------------------------------------------


def _shell(command: str, env: dict | None = None) -> subprocess.CompletedProcess:
    ov_cmd = f"{sys.executable} -m ov"
    return subprocess.run(["bash", "-c", command.replace("OV", ov_cmd)], capture_output=True, text=True, timeout=60, env=env)


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
@pytest.mark.parametrize("command", ["OV session add s1 -t 'one message' >&-", "OV session add s1 -t 'one message' --json >&- 2>&-"])
def test_a_write_with_stdout_closed_lands_once_and_succeeds(hermetic_env, ov_process, command):
    """A supervisor that closes stdout must not see a failure (its retry would add the message twice):
    the output is dropped, as for a reader gone away."""
    proc = _shell(command)
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    assert len(ov_process("session", "show", "s1", "--json").json["result"]["messages"]) == 1
    listing = _shell("OV ls viking:// >&-")
    assert listing.returncode == 0 and listing.stderr == ""


@pytest.mark.skipif(shutil.which("bash") is None or not os.path.exists("/dev/full"), reason="needs bash and /dev/full")
def test_a_full_stdout_is_told_from_a_full_store(hermetic_env, ov_process):
    """ENOSPC on stdout names no file, as a store write's does: it must not read "no space left under
    $OV_HOME, run the command again", which would add the message a second time."""
    wrote = _shell("OV session add s1 -t 'one message' > /dev/full")
    assert wrote.returncode == 1
    assert "no space left on device under" not in wrote.stderr and "then run the command again" not in wrote.stderr
    assert wrote.stderr.startswith("error: the change is kept (commit "), wrote.stderr
    assert "standard output: No space left on device" in wrote.stderr and "do not run the command again" in wrote.stderr
    assert len(ov_process("session", "show", "s1", "--json").json["result"]["messages"]) == 1
    for command in ("OV ls -r viking:// --json > /dev/full", "OV --version > /dev/full"):
        read = _shell(command)
        assert read.returncode == 1 and "Traceback" not in read.stderr, read.stderr
        if "--json" in command:
            assert json.loads(read.stderr)["error"]["code"] == "output_failed"
        else:
            assert read.stderr.startswith("error: cannot write to standard output: No space left on device")


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_a_closed_stdin_is_no_input(hermetic_env, tmp_path):
    """A hook answers nothing and exits 0 whatever its stdin (and logs why); install takes the hosts
    it finds; the MCP server has no client; a command that needs input says it has none."""
    env = dict(os.environ, HOME=str(tmp_path / "userhome"))
    (tmp_path / "userhome" / ".claude").mkdir(parents=True)
    for command in ("OV hook claude stop <&-", "OV hook claude session-start --account default <&-"):
        proc = _shell(command, env)
        assert (proc.returncode, proc.stdout, proc.stderr) == (0, "", ""), (command, proc.stderr)
    logged = [json.loads(line) for line in (hermetic_env / "logs" / "hooks.jsonl").read_text().splitlines()]
    assert [r["event"] for r in logged] == ["stop", "session-start"]
    assert all("standard input is closed" in r["error"] for r in logged)
    installed = _shell("OV install hooks <&-", env)
    assert installed.returncode == 0 and "claude" in installed.stdout, installed.stderr
    assert _shell("OV mcp <&-", env).returncode == 0
    refused = _shell("OV write viking://resources/a.md <&-", env)
    assert refused.returncode == 2 and "no content given" in refused.stderr


# --- OV_HOME that cannot be a home ----------------------------------------------------------


@pytest.mark.parametrize("where", ["a file", "below a file", "relative"])
def test_an_ov_home_that_cannot_be_one_is_named_as_the_problem(tmp_path, hermetic_env, where):
    """A file, or a relative path (another, empty store in each folder ov runs in): every command
    says OV_HOME is what is wrong (not config.yaml, with a fix that cannot work), and writes nothing."""
    (tmp_path / "file").write_text("x")
    (tmp_path / "cwd").mkdir()
    home = {"a file": str(tmp_path / "file"), "below a file": str(tmp_path / "file" / "sub"), "relative": ".ov"}[where]

    def ov_in_cwd(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
        env = dict(os.environ, OV_HOME=home)
        return subprocess.run([sys.executable, "-m", "ov", *args], input=stdin, cwd=tmp_path / "cwd", capture_output=True, text=True, env=env, timeout=60, check=False)

    for args in (["init"], ["config", "set", "retrieval.budget", "900"], ["doctor"], ["ls", "viking://"]):
        proc = ov_in_cwd(*args, "--json")
        assert proc.returncode == 2, (args, proc.stderr)
        error = json.loads(proc.stderr)["error"]
        assert error["code"] == "home_invalid" and error["message"].startswith(f"OV_HOME='{home}' is "), error
    hook = ov_in_cwd("hook", "claude", "stop", stdin="{}")
    assert (hook.returncode, hook.stderr) == (0, "")  # a hook fails open
    assert os.listdir(tmp_path / "cwd") == [] and (tmp_path / "file").read_text() == "x"


@pytest.mark.skipif(sys.platform == "win32", reason="symbolic links and PATH_MAX as on POSIX")
@pytest.mark.parametrize("where", ["a symbolic link loop", "too long"])
def test_an_ov_home_that_cannot_be_stated_is_home_invalid_with_its_reason(tmp_path, hermetic_env, where):
    """(found by an audit) An OV_HOME whose stat fails with ELOOP or ENAMETOOLONG gave every command
    a raw traceback (twice: the error reporter looked at the home again), and the hook exit 1 with
    the traceback on stderr: a hook fails open."""
    if where == "too long":
        home = str(tmp_path / "/".join(["e" * 200] * 22))
        reason = "the path is too long"
    else:
        (tmp_path / "a").symlink_to(tmp_path / "b")
        (tmp_path / "b").symlink_to(tmp_path / "a")
        home = str(tmp_path / "a")
        reason = "a symbolic link loop"
    env = dict(os.environ, OV_HOME=home)

    def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "ov", *args], input=stdin, capture_output=True, text=True, env=env, timeout=60, check=False)

    for args in (["ls", "viking://resources"], ["status"]):
        proc = run(*args, "--json")
        assert proc.returncode == 2 and "Traceback" not in proc.stderr, (args, proc.stderr)
        error = json.loads(proc.stderr)["error"]
        assert error["code"] == "home_invalid" and error["message"].startswith("OV_HOME='") and f"cannot be used: {reason}" in error["message"], error
    hook = run("hook", "claude", "prompt-submit", stdin='{"session_id": "s1", "hook_event_name": "UserPromptSubmit", "prompt": "hello there"}')
    assert (hook.returncode, hook.stderr) == (0, "")


def test_a_home_behind_a_folder_that_may_not_be_searched_names_that_folder(tmp_path, monkeypatch):
    import errno as errnos

    from ov import home as homes

    locked = tmp_path / "locked"
    real_stat = os.stat

    def stat(path, *args, **kwargs):
        if str(path).startswith(f"{locked}/"):
            raise PermissionError(errnos.EACCES, os.strerror(errnos.EACCES), str(path))
        return real_stat(path, *args, **kwargs)

    locked.mkdir()
    monkeypatch.setattr(os, "stat", stat)
    with pytest.raises(homes.HomeInvalid) as raised:
        homes.Home.from_env({"OV_HOME": str(locked / "x" / "ov")})
    assert raised.value.message.endswith(f"cannot be used: permission denied on {locked}")


def _long_folder(base, size: int) -> str:
    """A folder below ``base`` whose path is ``size`` bytes, in names of at most 200."""
    rest = size - len(str(base)) - 1
    names = []
    while rest > 0:
        names.append("d" * min(200, rest))
        rest -= len(names[-1]) + 1
    return str(base / "/".join(names))


@pytest.mark.skipif(sys.platform == "win32", reason="PATH_MAX as on POSIX")
def test_a_path_over_path_max_under_a_long_home_is_path_too_long_and_changes_nothing(tmp_path, hermetic_env):
    """(session 38's leftover) A home just under PATH_MAX passed its check, then a deeper file
    ended in "internal error: File name too long" (the lock's release hid where it came from),
    and the first write left a .git without a commit that `ov fsck` called a broken branch. Now
    a path error (exit 2, path_too_long) naming the length and the limit, and nothing changed."""
    src = tmp_path / "src" / "sub"
    src.mkdir(parents=True)
    (src / "readme.md").write_text("hello\n")

    def run(home: str, *args: str) -> subprocess.CompletedProcess:
        env = dict(os.environ, OV_HOME=home)
        return subprocess.run([sys.executable, "-m", "ov", *args], capture_output=True, text=True, env=env, timeout=120, check=False)

    def refused(proc: subprocess.CompletedProcess) -> dict:
        assert proc.returncode == 2 and "internal error" not in proc.stderr, proc.stderr
        error = json.loads(proc.stderr)["error"]
        assert error["code"] == "path_too_long" and "limit of 4,096" in error["message"] and "(PATH_MAX)" in error["message"], error
        return error

    # No room for the repository's own objects: the account is not made at all.
    home = _long_folder(tmp_path / "a", 4030)
    for args in (["write", "viking://resources/a/b/c.md", "-c", "x"], ["add-resource", str(tmp_path / "src")]):
        error = refused(run(home, *args, "--json"))
        assert error["message"].endswith("that folder's path alone is 4,030 bytes"), error
    assert not (Path(home) / "accounts" / "default" / ".git").exists()
    assert run(home, "fsck").returncode == 0

    # Room for the store, not for a deep file in it: the file's path is named, with its length.
    home = _long_folder(tmp_path / "b", 3990)
    assert run(home, "write", "viking://resources/a.md", "-c", "x").returncode == 0
    deep = "viking://resources/" + "/".join(["e" * 50] * 3) + "/c.md"
    error = refused(run(home, "write", deep, "-c", "x", "--json"))
    assert error["message"].startswith("the path '") and "/c.md' is 4,175 bytes, over the system's limit of 4,096" in error["message"], error
    fsck = run(home, "fsck")
    assert fsck.returncode == 0 and "(2 commits" in fsck.stdout, fsck.stdout + fsck.stderr
    assert not (Path(home) / "accounts" / "default" / "resources" / ("e" * 50)).exists()


def test_enametoolong_is_path_too_long_wherever_it_comes_from(tmp_path):
    """The MCP server and the CLI ask os_failure alike: the whole path over PATH_MAX, a name over
    NAME_MAX, and tantivy's text say which limit; an error that names no file names the home."""
    from ov.errors import EXIT_USAGE, PathTooLong, os_failure

    deep = _long_folder(tmp_path, 4200) + "/c.md"
    whole = os_failure(OSError(errno.ENAMETOOLONG, "File name too long", deep), tmp_path)
    assert isinstance(whole, PathTooLong) and whole.exit_code == EXIT_USAGE
    assert whole.message.endswith("/c.md' is 4,205 bytes, over the system's limit of 4,096 (PATH_MAX)"), whole.message
    name = os_failure(OSError(errno.ENAMETOOLONG, "File name too long", str(tmp_path / ("n" * 300))), tmp_path)
    assert "is 300 bytes, over the file system's limit of 255 (NAME_MAX)" in name.message
    unnamed = os_failure(ValueError("Failed to open file for write: 'IoError { io_error: (os error 36) }'"), tmp_path)
    assert isinstance(unnamed, PathTooLong) and unnamed.message.startswith(f"a file under '{tmp_path}' would have")
    assert os_failure(OSError(errno.EIO, "I/O error"), tmp_path) is None


# --- an empty HOME --------------------------------------------------------------------


def test_an_empty_home_variable_is_unset_not_the_root_folder(monkeypatch):
    """(found by an audit) HOME= (set but empty: `env HOME=`, some service managers) made
    Path.home() "/", and ov's home /.ov: the password database's entry is the user's home, as a
    shell's ~ takes it; with none, the home is refused rather than put at the root."""
    import pwd
    from pathlib import Path

    from ov.errors import HomeInvalid, InvalidInput
    from ov.home import Home, user_home
    from ov.hosts.hostconfig import config_dir

    entry = pwd.getpwuid(os.getuid()).pw_dir
    monkeypatch.setenv("HOME", "")
    assert user_home({"HOME": ""}) == Path(entry) != Path("/")
    assert Home.from_env({"HOME": ""}).root == Path(entry) / ".ov"
    assert Home.from_env({}).root == Path(entry) / ".ov"
    assert config_dir("claude", "user", Path(), {"HOME": ""}) == Path(entry) / ".claude"

    def nobody(uid):
        raise KeyError(uid)

    monkeypatch.setattr(pwd, "getpwuid", nobody)
    with pytest.raises(HomeInvalid) as raised:
        Home.from_env({"HOME": ""})
    assert raised.value.code == "home_invalid" and "HOME is empty" in raised.value.message
    with pytest.raises(InvalidInput):
        config_dir("claude", "user", Path(), {"HOME": ""})
    assert Home.from_env({"HOME": "", "OV_HOME": "/srv/ov"}).root == Path("/srv/ov")


def test_a_tilde_in_a_given_path_is_the_same_home_under_an_empty_home_variable(monkeypatch, tmp_path):
    """(session 38's leftover) OV_HOME=~/x under an empty HOME was /x: Python's expanduser takes
    an empty HOME for the root. Every ~ ov expands in a path from the environment or a config
    finds the user's home as the default ~/.ov does (the password database's entry)."""
    import pwd

    from ov.errors import HomeInvalid
    from ov.history.remotes import normalize_url
    from ov.home import Home, expand_user
    from ov.hosts.ovcommand import server_env
    from ov.index.embedders.registry import _local_path

    entry = Path(pwd.getpwuid(os.getuid()).pw_dir)
    monkeypatch.setenv("HOME", "")
    assert Home.from_env({"HOME": "", "OV_HOME": "~/x"}).root == entry / "x"
    assert Home.from_env({"OV_HOME": "~"}).root == entry
    assert server_env({"HOME": "", "OV_HOME": "~/x"})["OV_HOME"] == str(entry / "x")
    assert _local_path("~/models/m", Home(tmp_path)) == (entry / "models" / "m").resolve()
    assert normalize_url("~/backup.git") == str(entry / "backup.git")
    assert expand_user("~") == entry and expand_user("a/~") == Path("a/~")
    assert expand_user("~/x", {"HOME": "/home/other"}) == Path("/home/other/x")
    root_user = pwd.getpwuid(0)
    assert expand_user(f"~{root_user.pw_name}/y") == Path(root_user.pw_dir) / "y"

    def nobody(uid):
        raise KeyError(uid)

    monkeypatch.setattr(pwd, "getpwuid", nobody)
    assert expand_user("~/x") == Path("~/x")  # no home to put there: a relative path, refused as one
    with pytest.raises(HomeInvalid) as raised:
        Home.from_env({"HOME": "", "OV_HOME": "~/x"})
    assert "relative path" in raised.value.message


# --- a store ov may not write to -----------------------------------------------------


def test_a_refused_write_is_recognised_from_errno_and_from_tantivy(tmp_path):
    from ov.errors import StoreNotWritable, not_writable

    there = tmp_path / "there.md"
    there.write_text("x")
    for code in (errno.EACCES, errno.EPERM, errno.EROFS):
        found = not_writable(OSError(code, os.strerror(code), str(tmp_path / "queue" / ".ticket")), "/data/ov")
        assert isinstance(found, StoreNotWritable) and found.exit_code == 1 and found.code == "store_not_writable"
        # The file that could not be made is not there: the folder that refused it is named.
        assert found.message == f"ov cannot write to {tmp_path / 'queue'}: {os.strerror(code)}" and found.hint
    assert not_writable(PermissionError(errno.EACCES, "denied", str(there)), "/data/ov").path == str(there)
    assert "read-only" in not_writable(OSError(errno.EROFS, "ro", str(there)), "/data/ov").hint
    assert not_writable(OSError(errno.ENOSPC, "full", str(there)), "/data/ov") is None
    tantivy = ValueError('Failed to acquire Lockfile: IoError(Os { code: 13, kind: PermissionDenied, message: "Permission denied" }). None')
    assert not_writable(tantivy, "/data/ov/index/text").message == "ov cannot write to /data/ov/index/text: Permission denied"
    assert not_writable(ValueError("An IO error occurred: 'No space left on device (os error 28)'"), "/data/ov") is None


def test_what_reaches_an_edge_untranslated_is_read_by_one_function(tmp_path):
    """The CLI and the MCP server both ask os_failure what a raw OSError (or tantivy's ValueError) means."""
    from ov.errors import DiskFull, StoreNotWritable, os_failure

    home = tmp_path / "home"
    (home / "accounts").mkdir(parents=True)
    refused = os_failure(PermissionError(errno.EACCES, "denied", str(home / "accounts" / "new")), home)
    assert isinstance(refused, StoreNotWritable) and refused.message == f"ov cannot write to {home / 'accounts'}: Permission denied"
    # A file elsewhere (an .ovpack a user exports) is the command's own to report.
    assert os_failure(PermissionError(errno.EACCES, "denied", str(tmp_path / "out.ovpack")), home) is None
    full = os_failure(OSError(errno.ENOSPC, "full", str(tmp_path / "usb" / "out.ovpack")), home)
    assert isinstance(full, DiskFull) and full.path == tmp_path / "usb"
    assert os_failure(ValueError("An IO error occurred: 'No space left on device (os error 28)'"), home).path == home
    assert os_failure(FileNotFoundError(errno.ENOENT, "gone", str(home / "x")), home) is None
    assert os_failure(RuntimeError("a bug"), home) is None


def test_a_store_ov_may_not_write_to_is_one_clear_error_and_status_still_reads_it(ov, ov_home, bound_by_permissions):
    """With the home read-only every command ended in "internal error: PermissionError ... report
    it"; a find read tantivy's refused lock file as damage, and `ov status` took the write lock.
    Writes are refused with one clear error; reads (find, status, fsck, doctor) go on."""
    as_user = bound_by_permissions
    assert ov("config", "set", "embedding.provider", "hash").exit_code == 0  # no model for doctor to load
    assert ov("write", "viking://resources/a.md", "--content", "alpha beta").exit_code == 0
    assert ov("find", "alpha").exit_code == 0
    index = ov_home / "state/default/index"
    built = sorted(p.name for p in index.rglob("*"))
    set_writable(ov_home, False)
    try:
        for args in (["write", "viking://resources/b.md", "--content", "b"], ["reindex"]):
            result = as_user(*args, "--json")
            assert result.exit_code == 1 and "internal error" not in result.stderr and "Traceback" not in result.stderr, (args, result.stderr)
            assert result.error["code"] == "store_not_writable", (args, result.error)
            assert result.error["message"].startswith(f"ov cannot write to {ov_home}/state/default/") and result.error["hint"]
        searched = as_user("find", "alpha", "--json")
        assert searched.exit_code == 0 and searched.stderr == "", searched.stderr  # at HEAD: nothing to say
        assert [r["uri"] for r in searched.json["result"]["resources"]] == ["viking://resources/a.md"]
        status = as_user("status", "--json")
        assert status.exit_code == 0, status.stderr
        assert status.json["result"]["clean"] and "write.queue: Permission denied" in status.json["result"]["read_only"]
        diff = as_user("snapshot", "diff", "--json")  # takes the write lock as status does, and goes on without it
        assert diff.exit_code == 0 and diff.json["result"]["changes"] == [], diff.stderr
        fsck = as_user("fsck", "--json")
        report = json.loads(fsck.stdout)["result"]
        findings = report["findings"]
        assert fsck.exit_code == 1 and [f["severity"] for f in findings if f["area"] == "store"] == ["problem"]
        assert findings[0]["message"] == f"ov cannot write to {ov_home}/state/default: Permission denied"
        assert not any("reindex" in f["fix"] for f in findings)  # not damage: a reindex cannot help
        assert [f for f in findings if f["area"] == "index"] == [] and report["checked"]["records"] == 1  # read, and checked
        doctor = as_user("doctor", "--json")
        checks = {c["name"]: c for c in json.loads(doctor.stdout)["result"]["checks"]}
        assert doctor.exit_code == 1 and checks["writable"]["status"] == "fail" and checks["index"]["status"] == "ok"
    finally:
        set_writable(ov_home, True)
    assert sorted(p.name for p in index.rglob("*")) == built  # nothing was dropped as damaged
    found = ov("find", "alpha", "--json").json["result"]
    assert [r["uri"] for r in found["resources"]] == ["viking://resources/a.md"] and not found["index"].get("actions")  # no rebuild
    assert {c["name"]: c for c in ov("doctor", "--json").json["result"]["checks"]}["writable"]["status"] == "ok"


def test_a_write_the_object_folder_refuses_is_rolled_back_by_the_same_command(ov, ov_home, bound_by_permissions):
    as_user = bound_by_permissions
    assert ov("write", "viking://resources/a.md", "--content", "alpha").exit_code == 0
    objects = ov_home / "accounts/default/.git/objects"
    set_writable(objects, False)
    try:
        refused = as_user("remember", "My shell is zsh", "--json")
    finally:
        set_writable(objects, True)
    assert refused.exit_code == 1 and refused.error["code"] == "store_not_writable"
    # The folder refused: objects, or the fan-out folder of the new object's hash when the first
    # write made it already (a 1-in-7 chance here).
    assert re.fullmatch(rf"ov cannot write to {re.escape(str(objects))}(/[0-9a-f]{{2}})?: Permission denied", refused.error["message"])
    assert not (ov_home / "state/default/journal.json").exists()
    again = as_user("remember", "My shell is zsh")
    assert again.exit_code == 0 and "recovered" not in again.stderr, again.stderr


def test_bad_input_without_a_hint_of_its_own_points_at_that_commands_help(ov):
    result = ov("grep", "(", "--json")
    assert result.exit_code == 2 and result.error["hint"] == "see `ov grep --help` for what it accepts"
    assert ov("remember", "!!!").stderr.endswith("hint: see `ov remember --help` for what it accepts\n")


def test_counts_and_articles_read_as_english():
    from ov.wording import a, counted

    assert [counted(n, "hook") for n in (0, 1, 2)] == ["0 hooks", "1 hook", "2 hooks"]
    assert counted(1, "entry", "entries") == "1 entry" and counted(3, "entry", "entries") == "3 entries"
    assert [a(w) for w in ("OpenCode", "Codex", "Gemini CLI", "entry")] == ["an OpenCode", "a Codex", "a Gemini CLI", "an entry"]


def test_common_options_may_come_before_the_command(ov):
    """As with git and gh: `ov --json ls` and `ov --user dana remember ...` were usage errors."""
    assert ov("--user", "dana", "remember", "I prefer tabs over spaces").exit_code == 0
    listed = ov("--json", "--user=dana", "ls", "viking://~/memories/preferences")
    assert listed.exit_code == 0 and listed.json["result"], listed.stderr
    elsewhere = ov("--json", "--account", "elsewhere", "ls", "viking://resources")  # taken: an account not there
    assert elsewhere.exit_code == 1 and elsewhere.error["code"] == "account_not_found" and "'elsewhere' (from flag)" in elsewhere.error["message"]
    assert ov("--json").exit_code == 2, "no command named: still a usage error (test_common_options_with_no_command_say_so)"
    # Moved to just after the command's name: never into an option's value or past a `--`.
    assert ov("--json", "write", "viking://resources/dash.md", "--content", "--").json["ok"]
    assert ov("read", "viking://resources/dash.md").stdout == "--"
    assert ov("--json", "snapshot", "log", "-n", "1").json["result"][0]["command"] == "write"


def test_common_options_may_come_between_a_group_and_its_command(ov):
    """`ov session --json list` and `ov snapshot --account default log` were "No such option"."""
    assert ov("session", "new", "--id", "s1").exit_code == 0
    assert ov("session", "--json", "list").json["result"]["sessions"][0]["session"] == "s1"
    assert ov("snapshot", "--account", "default", "--json", "log", "-n", "1").json["result"][0]["command"] == "session new"
    assert ov("--json", "snapshot", "--account=default", "log", "-n", "1").json["ok"]  # before and between at once
    elsewhere = ov("session", "--account", "elsewhere", "--json", "list")
    assert elsewhere.exit_code == 1 and elsewhere.error["code"] == "account_not_found"
    assert "Usage: ov session list" in ov("session", "--help", "list").stdout
    assert ov("session", "--json").exit_code == 2, "no command named: still a usage error"


# --- progress on a terminal --------------------------------------------------------------

# `ov ARGS` with SHOW_AFTER set first; the top-level modules it loaded are the last line on stdout.
TERMINAL_PROBE = """
import json, sys
import ov.cli.progress
ov.cli.progress.SHOW_AFTER = float(sys.argv[1])
from ov.cli.main import run
code = run(sys.argv[2:])
sys.stdout.flush()
print(json.dumps(sorted({m.split('.')[0] for m in sys.modules})))
sys.exit(code)
"""


def _on_a_terminal(show_after: float, *argv: str) -> tuple[int, list[str], str, set[str]]:
    """`ov ARGV` with its stderr on a pseudo-terminal: its exit code, its stdout lines, what the
    terminal showed, and the top-level modules it imported."""
    import pty
    import threading

    controller, terminal = pty.openpty()
    shown = bytearray()

    def drain() -> None:  # read as it comes: a full pseudo-terminal would block the writer
        while True:
            try:
                chunk = os.read(controller, 65536)
            except OSError:  # EIO: the other end is closed and nothing is left
                return
            if not chunk:
                return
            shown.extend(chunk)

    reader = threading.Thread(target=drain)
    reader.start()
    try:
        env = dict(os.environ, TERM="xterm", COLUMNS="100")
        proc = subprocess.run([sys.executable, "-c", TERMINAL_PROBE, str(show_after), *argv], stdout=subprocess.PIPE, stderr=terminal, env=env, timeout=120, check=False)
    finally:
        os.close(terminal)
        reader.join(timeout=30)
        os.close(controller)
    lines = proc.stdout.decode().splitlines()
    return proc.returncode, lines[:-1], shown.decode(errors="replace"), set(json.loads(lines[-1]))


def test_a_long_operation_draws_a_progress_bar_on_the_terminal_and_erases_it(ov):
    for name in ("a", "b", "c"):
        assert ov("write", f"viking://resources/{name}.md", "--content", f"Notes on {name}.\n").exit_code == 0
    code, out, shown, loaded = _on_a_terminal(0.0, "reindex")
    assert code == 0 and len(out) == 1 and out[0].startswith("indexed "), (out, shown)
    assert "index: reading files" in shown and "index: full text" in shown and "━" in shown
    assert shown.rstrip("\r\n").endswith("\x1b[2K"), "the bar is erased when the work is done"
    assert "rich" in loaded


def test_an_operation_done_before_the_bar_is_due_shows_nothing_and_imports_no_rich(ov):
    for name in ("a", "b", "c"):
        assert ov("write", f"viking://resources/{name}.md", "--content", f"Notes on {name}.\n").exit_code == 0
    # The first find builds the index, and reports every step of it: none of them comes late enough.
    code, out, shown, loaded = _on_a_terminal(600.0, "find", "notes")
    assert code == 0 and any("viking://resources/a.md" in line for line in out), out
    assert shown == "" and "rich" not in loaded


@pytest.fixture
def long_work(ov, tmp_path):
    """A store with an index behind HEAD and a backup of it, and each long command that has a bar:
    argv, a stage it reports. The bar is due at once (SHOW_AFTER 0)."""
    for name in ("a", "b", "c"):
        assert ov("write", f"viking://resources/notes/{name}.md", "--content", f"Notes on {name}.\n").exit_code == 0
    assert ov("backup", str(tmp_path / "all.ovpack")).exit_code == 0
    assert ov("export", "viking://resources/notes", str(tmp_path / "notes.ovpack")).exit_code == 0
    assert ov("find", "notes").exit_code == 0
    assert ov("write", "viking://resources/notes/d.md", "--content", "Notes on d.\n").exit_code == 0  # the index is behind
    return {
        "find": (["find", "notes"], "index: reading files"),  # the catch-up
        "search": (["search", "notes"], "index: reading files"),
        "reindex": (["reindex"], "index: full text"),
        "fsck": (["fsck"], "checking files"),
        "backup": (["backup", str(tmp_path / "again.ovpack")], "writing the pack"),
        "export": (["export", "viking://resources/notes", str(tmp_path / "again-notes.ovpack")], "writing the pack"),
        "restore": (["restore", str(tmp_path / "all.ovpack")], "reading the pack"),
        "import": (["import", str(tmp_path / "notes.ovpack"), "viking://resources/copy"], "committing"),  # its last stage
        "mv": (["mv", "viking://resources/notes", "viking://resources/moved"], "checking files"),
        "rm": (["rm", "-r", "viking://resources/notes"], "committing"),
    }


@pytest.mark.parametrize("command", [["grep", "needle"], ["find", "needle"], ["search", "needle"]])
def test_on_a_terminal_a_match_and_its_uri_stay_on_one_line(ov, monkeypatch, command):
    """As grep and rg print them: the terminal wraps a long line, and a copy of it is whole (rich
    broke it at words, padded it with spaces, and cut a URI in two at a narrow width)."""
    uri = "viking://resources/src/docs/file1/long.md"
    line = "needle " + "word " * 40 + "tail_end_marker"
    assert ov("write", uri, "--content", line + "\n").exit_code == 0
    monkeypatch.setenv("OV_COLOR", "always")
    monkeypatch.setenv("COLUMNS", "30")
    out = re.sub(r"\x1b\[[0-9;]*m", "", ov(*command).stdout)
    assert any(uri in printed for printed in out.splitlines()), out
    assert any(printed.rstrip().endswith(line.split(" ", 1)[1].rstrip()) for printed in out.splitlines()), out
    assert not any(printed != printed.rstrip() for printed in out.splitlines()), "padded with spaces"


@pytest.mark.parametrize("command", ["find", "search", "reindex", "fsck", "backup", "export", "restore", "import", "mv", "rm"])
@pytest.mark.parametrize("stderr", ["terminal", "terminal --json", "pipe"])
def test_long_commands_draw_their_bar_on_a_terminal_only(ov, long_work, monkeypatch, command, stderr):
    argv, stage = long_work[command]
    monkeypatch.setattr("ov.cli.progress.SHOW_AFTER", 0.0)
    if stderr.startswith("terminal"):
        monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    result = ov(*argv, *(["--json"] if stderr.endswith("--json") else []))
    assert result.exit_code == 0, result.stderr
    if stderr == "terminal":
        assert stage in result.stderr
        assert stage not in result.stdout
    else:
        assert result.stderr == "", "no bar with --json or into a pipe"
        if stderr.endswith("--json"):
            assert result.json["ok"]


# --- colour --------------------------------------------------------------------------


class _Stream:
    def __init__(self, tty: bool) -> None:
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty


@pytest.mark.parametrize(
    ("ov_color", "no_color", "tty", "expected"),
    [
        ("auto", None, True, True),  # a terminal is styled
        ("auto", None, False, False),  # a pipe gets plain lines
        ("auto", "1", True, False),  # NO_COLOR asks for none
        ("always", "1", False, True),  # an explicit setting wins over NO_COLOR, and styles a pipe
        ("never", None, True, False),
    ],
)
def test_one_function_decides_styled_or_plain_output(monkeypatch, ov_color, no_color, tty, expected):
    """(`output.color` in the file, the same setting, is checked through `ov snapshot diff` in test_history.)"""
    from ov.cli.output import styled

    monkeypatch.setenv("OV_COLOR", ov_color)
    if no_color is None:
        monkeypatch.delenv("NO_COLOR", raising=False)
    else:
        monkeypatch.setenv("NO_COLOR", no_color)
    assert styled(_Stream(tty)) is expected


def test_an_unknown_ov_color_is_refused_before_anything_changes(ov, store_state, monkeypatch):
    assert ov("init").exit_code == 0
    before = store_state()
    monkeypatch.setenv("OV_COLOR", "bogus")
    for args in (("write", "viking://resources/a.md", "--content", "a"), ("ls",)):
        result = ov(*args, "--json")
        assert result.exit_code == 2 and result.error["code"] == "invalid_input", result.stderr
        assert "OV_COLOR='bogus'" in result.error["message"] and "always" in result.error["hint"]
    assert store_state() == before
    plain = ov("ls")
    assert plain.stderr.startswith("error: OV_COLOR='bogus'") and "\x1b[" not in plain.stderr
    # A hook fails open: it answers its host whatever the environment holds.
    assert ov("hook", "claude", "stop", stdin="{}").exit_code == 0


@pytest.mark.parametrize(
    "args, says",
    [
        (("remote", "list"), "no remotes (add one with `ov remote add origin URL`)"),
        (("session", "list"), "no sessions yet"),
        (("snapshot", "tag"), "no tags"),
        (("snapshot", "log", "--uri", "viking://resources/none"), "no commits touched viking://resources/none"),
        (("snapshot", "diff", "HEAD", "HEAD"), "no differences"),
        (("hooks", "log"), "no hook has run yet"),
        (("usage",), "no LLM calls recorded"),
        (("find", "zebra", "--uri", "viking://agent"), "no results"),
    ],
)
def test_an_empty_listing_says_so_on_stderr_and_leaves_stdout_empty(ov, args, says):
    """A pipe (`ov remote list | while read ...`) read the placeholder as a line of data."""
    assert ov("write", "viking://resources/a.md", "--content", "alpha\n").exit_code == 0
    result = ov(*args)
    assert (result.exit_code, result.stdout) == (0, "")
    assert result.stderr.startswith(says)


def test_status_says_no_store_yet_on_stderr(ov, ov_home):
    """Its stdout keeps only what status reports: who, and where the store would be."""
    result = ov("status")
    assert result.exit_code == 0, result.stderr
    assert result.stdout == f"account default  user default\nrepository {ov_home / 'accounts/default'}\n"
    assert result.stderr == "no store yet: the first write creates it (or run `ov init`)\n"
    as_json = ov("status", "--json")
    assert (as_json.exit_code, as_json.stderr) == (0, "") and as_json.json["result"]["exists"] is False


def test_json_says_what_it_does_where_the_output_is_never_ovs_json(ov):
    """(found by an audit: `ov mcp --help` offered --json to "Print machine-readable JSON" for a
    server whose stdout is MCP's JSON-RPC whatever the flag says; so did `ov hook`'s)"""
    import re

    def said(*command: str) -> str:
        text = ov(*command, "--help").stdout
        return " ".join(re.search(r"--json\s+(.*?)\n  --account", text, re.DOTALL).group(1).split())

    assert said("mcp") == "Report a failure to start as JSON (once serving, stdout carries only MCP's JSON-RPC)."
    assert said("hook") == "Report a usage error as JSON (the hook answers in its host's format whatever this says)."
    assert said("find") == "Print machine-readable JSON."
    failed = ov("mcp", "--user", "bad/x", "--json")
    assert failed.exit_code == 2 and json.loads(failed.stdout or failed.stderr)["error"]["code"] == "invalid_id"


# --- stored text on a terminal ---------------------------------------------------------

ESCAPES = "okapi \x1b]0;TITLE\x07 then \x1b[2J cleared \x1b[31mred \x9b31m"


@pytest.mark.parametrize("color", ["never", "always"])
def test_a_terminal_is_shown_the_control_sequences_of_stored_text_not_sent_them(ov, monkeypatch, color):
    """A log's escape sequences in a find or search hit, a session message or a context block
    cleared the screen, left a colour on or set the title; on a terminal they are shown as
    `cat -v` shows them. A pipe, --json, `ov read` and `ov grep` still get the text as it is."""
    assert ov("write", "viking://resources/log.txt", "--content", ESCAPES + "\n").exit_code == 0
    assert ov("session", "add", "s1", "--text", ESCAPES).exit_code == 0
    commands = [("find", "okapi"), ("search", "okapi"), ("search", "okapi", "--mode", "context"), ("session", "show", "s1")]
    for args in commands:
        assert ESCAPES in ov(*args).stdout, args
    assert ESCAPES in ov("find", "okapi", "--json").json["result"]["resources"][0]["snippet"]
    assert ESCAPES in ov("read", "viking://resources/log.txt").stdout
    assert ESCAPES in ov("grep", "okapi").stdout
    monkeypatch.setenv("OV_COLOR", color)
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    for args in commands:
        shown = ov(*args).stdout
        assert "^[]0;TITLE^G then ^[[2J cleared ^[[31mred M-^[31m" in shown, args
        assert "\x1b]" not in shown and "\x1b[2J" not in shown and "\x1b[31m" not in shown and "\x9b" not in shown, args
    assert ESCAPES in ov("find", "okapi", "--json").json["result"]["resources"][0]["snippet"]


# --- a limit on a file's size (`ulimit -f`) ----------------------------------------------


def test_a_file_size_limit_is_no_room_as_a_full_disk_is():
    from ov.errors import DiskFull, disk_full

    found = disk_full(OSError(errno.EFBIG, os.strerror(errno.EFBIG)), "/data/ov")
    assert isinstance(found, DiskFull) and found.code == "disk_full"
    assert found.message == "a file under /data/ov reached the limit on a file's size (`ulimit -f`)" and "ulimit" in found.hint
    tantivy = ValueError("Internal error: 'File too large (os error 27)'")
    assert isinstance(disk_full(tantivy, "/data/ov"), DiskFull)
    assert disk_full(OSError(errno.ENOSPC, "full"), "/data/ov").message == "no space left on device under /data/ov"


@pytest.mark.skipif(sys.platform == "win32", reason="RLIMIT_FSIZE is POSIX")
def test_under_a_file_size_limit_an_add_stands_a_write_is_refused_and_find_searches_as_it_is(hermetic_env, ov_process, tmp_path):
    """(found by an audit) Under `ulimit -f`, the full-text index of a store holding one large file
    cannot be written (EFBIG, which tantivy reports as a ValueError): add-resource said "internal
    error" and exit 1 after its commit had landed, `ov write` of a large file "internal error", and
    `ov find` too instead of searching the index it had."""
    import base64
    import resource

    limit = 100 * 1024

    def limited(*args: str) -> subprocess.CompletedProcess:
        hard = resource.getrlimit(resource.RLIMIT_FSIZE)[1]
        return subprocess.run(
            [sys.executable, "-m", "ov", *args], capture_output=True, text=True, timeout=120, check=False,
            preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (limit, hard)),
        )

    def large(name: str):
        path = tmp_path / name
        path.write_text(base64.encodebytes(os.urandom(3 * limit)).decode())
        return path

    assert ov_process("write", "viking://resources/large.md", "--from-file", str(large("large.txt"))).exit_code == 0
    source = tmp_path / "docs"
    source.mkdir()
    for i in range(5):
        (source / f"note{i}.md").write_text(f"# Note {i}\n\nThe heron migrates in spring, note {i}.\n")
    added = limited("add-resource", str(source), "--to", "viking://resources/docs")
    assert added.returncode == 0, added.stderr
    assert "the search index was not built" in added.stderr and "limit on a file's size" in added.stderr
    assert "internal error" not in added.stderr
    assert len(ov_process("ls", "viking://resources/docs", "--json").json["result"]) >= 5

    refused = limited("write", "viking://resources/larger.md", "--from-file", str(large("larger.txt")), "--json")
    assert refused.returncode == 1 and json.loads(refused.stderr)["error"]["code"] == "disk_full", refused.stderr
    assert "limit on a file's size" in json.loads(refused.stderr)["error"]["message"]

    assert ov_process("find", "heron").exit_code == 0  # no limit: the index is built
    assert ov_process("write", "viking://resources/larger.md", "--from-file", str(large("larger.txt"))).exit_code == 0
    searched = limited("find", "heron", "--json")
    assert searched.returncode == 0, searched.stderr
    assert "behind HEAD and cannot be updated" in searched.stderr
    assert any("docs/note" in hit["uri"] for hit in json.loads(searched.stdout)["result"]["resources"])


def test_an_index_failure_after_add_resource_committed_is_a_warning(ov, tmp_path, monkeypatch):
    """tantivy reports its failures as ValueErrors; one the index cannot name (a writer killed by
    an earlier IO error) ended add-resource in "internal error" and exit 1, its commit landed."""
    from ov.index import sync

    def killed(self):
        raise ValueError("Internal error: 'An index writer was killed.'")

    source = tmp_path / "docs"
    source.mkdir()
    (source / "a.md").write_text("# A\n\nThe heron migrates in spring.\n")
    with monkeypatch.context() as patch:
        patch.setattr(sync.Indices, "build_full_text", killed)
        added = ov("add-resource", str(source), "--to", "viking://resources/docs")
    assert added.exit_code == 0, added.stderr
    assert "the search index was not built (ValueError: Internal error: 'An index writer was killed.')" in added.stderr
    assert ov("find", "heron", "--json").json["result"]["resources"]


@pytest.fixture
def index_bug(tmp_path, monkeypatch):
    """A folder to add, and a bug (a TypeError) in the index build that follows the add."""
    from ov.index import sync

    def bug(self):
        raise TypeError("'NoneType' object is not subscriptable")

    source = tmp_path / "docs"
    source.mkdir()
    (source / "a.md").write_text("# A\n\nThe heron migrates in spring.\n")
    monkeypatch.setattr(sync.Indices, "build_full_text", bug)
    return source


def test_a_bug_in_the_index_after_add_resource_is_called_one_and_raised_with_ov_debug(ov, index_bug, monkeypatch):
    """(review) The catch that keeps a committed add at exit 0 took a bug (a TypeError) for an
    index failure: the warning read as the disk's or tantivy's, and OV_DEBUG showed nothing."""
    source = index_bug
    added = ov("add-resource", str(source), "--to", "viking://resources/docs")
    assert added.exit_code == 0, added.stderr
    assert "internal error: TypeError" in added.stderr and "OV_DEBUG=1" in added.stderr
    monkeypatch.setenv("OV_DEBUG", "1")
    with pytest.raises(TypeError):  # main raises what it would call an internal error
        ov("add-resource", str(source), "--to", "viking://resources/docs2")


@pytest.mark.parametrize("off", ["0", "false", "No", " off ", ""])
def test_ov_debug_set_to_a_no_keeps_the_one_line_internal_error(ov, index_bug, monkeypatch, off):
    """(review rev20) `OV_DEBUG=0` in a shell profile or a CI matrix says "no": read as "set", it
    raised the traceback it was meant to keep away."""
    monkeypatch.setenv("OV_DEBUG", off)
    added = ov("add-resource", str(index_bug), "--to", "viking://resources/docs")
    assert added.exit_code == 0, added.stderr
    assert "internal error: TypeError" in added.stderr


# --- output in a locale that is not UTF-8 -----------------------------------------------------


def test_output_to_a_pipe_is_utf8_whatever_the_locale(hermetic_env, ov_process, tmp_path):
    """Windows opens a pipe in its ANSI code page (cp1252 here stands in): a hook's answer holding
    "Łukasz" or a Japanese note, and `ov tree`'s box lines, raised UnicodeEncodeError there, and
    the host read no context. Pipes get UTF-8, as hosts and agents read it."""
    cp1252 = {"PYTHONIOENCODING": "cp1252"}
    assert ov_process("remember", "My name is Łukasz").exit_code == 0
    assert ov_process("write", "viking://resources/ja.md", "--content", "# ログ設定\n\nログは毎日ローテーションされます。\n").exit_code == 0
    read = ov_process("read", "viking://resources/ja.md", env=cp1252)
    assert (read.exit_code, read.stderr) == (0, "") and "ローテーション" in read.stdout
    tree = ov_process("tree", "viking://resources", env=cp1252)
    assert tree.exit_code == 0 and "└──" in tree.stdout, tree.stderr
    project = tmp_path / "project"
    project.mkdir()
    stdin = json.dumps({"session_id": "s-1", "cwd": str(project), "hook_event_name": "SessionStart", "source": "startup"}).encode()
    hook = ov_process("hook", "claude", "session-start", stdin=stdin, env=cp1252)
    assert hook.exit_code == 0 and "Łukasz" in json.loads(hook.stdout)["hookSpecificOutput"]["additionalContext"], hook.stderr


@pytest.mark.skipif(sys.platform == "win32", reason="Windows' file system encoding is UTF-8 whatever its code page")
def test_names_and_arguments_are_utf8_under_a_locale_that_is_not(hermetic_env, ov_process, tmp_path, monkeypatch):
    """(found by an audit) Under LC_ALL=C with PYTHONUTF8=0 (a legacy locale does the same),
    Python decoded names and arguments as ASCII: a committed "ünï café.md" was left out of `ov ls`
    and "deleted" in `ov status`, `ov find über` was refused as not UTF-8, and every hook under a
    non-ASCII OV_HOME failed. ov runs in Python's UTF-8 mode there (one re-exec, before anything)."""
    home = tmp_path / "hömé"
    monkeypatch.setenv("OV_HOME", str(home))
    legacy = {"LC_ALL": "C", "PYTHONUTF8": "0"}
    source = tmp_path / "src"
    source.mkdir()
    (source / "a.md").write_text("# Notes\n\nplain ascii notes\n")
    (source / "ünï café.md").write_text("# Café\n\nÜber notes about the heron\n", encoding="utf-8")
    assert ov_process("add-resource", str(source)).exit_code == 0
    listed = ov_process("ls", "viking://resources/src", env=legacy)
    assert listed.exit_code == 0 and "ünï café.md" in listed.stdout and "a.md" in listed.stdout, listed
    status = ov_process("status", env=legacy)
    assert status.exit_code == 0 and "deleted" not in status.stdout and "no hand edits" in status.stdout, status
    found = ov_process("find", "über heron", "--json", env=legacy)
    assert found.exit_code == 0, found.stderr
    assert "viking://resources/src/ünï café.md" in {hit["uri"] for hit in json.loads(found.stdout)["result"]["resources"]}
    read = ov_process("read", "viking://resources/src/ünï café.md", env=legacy)
    assert (read.exit_code, read.stdout) == (0, "# Café\n\nÜber notes about the heron\n"), read.stderr
    project = tmp_path / "pröject"
    project.mkdir()
    stdin = json.dumps({"session_id": "s-1", "cwd": str(project), "hook_event_name": "UserPromptSubmit", "prompt": "what are the über notes about the heron?"}).encode()
    hook = ov_process("hook", "claude", "prompt-submit", stdin=stdin, env=legacy)
    assert (hook.exit_code, hook.stderr) == (0, "") and "ünï café.md" in hook.stdout
    from ov.hosts import hooklog

    (line,) = hooklog.read(home, host="claude")
    assert line["outcome"] == "injected", line


@pytest.mark.skipif(sys.platform == "win32", reason="Windows' file system encoding is UTF-8 whatever its code page")
def test_ov_starts_again_in_utf8_mode_only_where_the_locale_is_not_utf8(hermetic_env):
    """The re-exec costs an interpreter start: under a UTF-8 locale, and under LC_ALL=C where
    Python's own default is UTF-8 mode, it never happens."""
    probe = (
        "import atexit, os, sys\n"
        "sys.argv = ['ov', '--version']\n"
        "atexit.register(lambda: print(os.environ.get('PYTHONUTF8'), sys.flags.utf8_mode, file=sys.stderr))\n"
        "atexit.register(lambda: print(os.environ.get('OV_UTF8_RESTARTED'), file=sys.stderr))\n"
        "from ov.cli.entry import entry\n"
        "entry()\n"
    )

    def flags(*options: str, **env: str) -> str:
        full = {k: v for k, v in os.environ.items() if k not in ("PYTHONUTF8", "LC_ALL", "LC_CTYPE", "LANG", "OV_UTF8_RESTARTED")}
        proc = subprocess.run([sys.executable, *options, "-c", probe], capture_output=True, text=True, env=dict(full, **env), timeout=60, check=False)
        assert proc.returncode == 0, proc.stderr
        # atexit runs the last registered first: the marker's line, then the flags' line.
        *_, marker, flags_line = proc.stderr.strip().splitlines()
        assert marker == "None", "the re-exec's marker leaks to the children ov starts"
        return flags_line

    assert flags(LC_ALL="C.UTF-8") == "None 0"
    assert flags(LC_ALL="C") == "None 1"  # Python's own UTF-8 mode: nothing to do
    assert flags(LC_ALL="C", PYTHONUTF8="0") == "1 1"  # started again, and its jobs inherit it
    # An interpreter that ignores the environment (-E) is told on its command line, and a start
    # again that still is not in UTF-8 mode goes on as it is rather than start for ever.
    assert flags("-E", "-X", "utf8=0", LC_ALL="C") == "1 1"
    assert flags(LC_ALL="C", PYTHONUTF8="0", OV_UTF8_RESTARTED="1") == "0 0"


@pytest.mark.skipif(sys.platform == "win32", reason="RLIMIT_FSIZE is POSIX")
@pytest.mark.parametrize("command", ["export", "backup"])
def test_an_export_out_of_room_names_its_destination_not_the_home(hermetic_env, ov_process, tmp_path, command):
    """(found by an audit) An export or a backup that ran out of room at its destination (another
    disk, `ulimit -f`) said "a file under $OV_HOME reached the limit": the user freed space on the
    wrong disk. The error carries no file name; the writer names the pack's folder."""
    import base64
    import resource

    source = tmp_path / "src"
    source.mkdir()
    (source / "big.md").write_text(base64.encodebytes(os.urandom(300_000)).decode())
    assert ov_process("add-resource", str(source)).exit_code == 0
    dest = tmp_path / "dest"
    dest.mkdir()
    hard = resource.getrlimit(resource.RLIMIT_FSIZE)[1]
    args = ["export", "viking://resources/src"] if command == "export" else ["backup"]
    proc = subprocess.run(
        [sys.executable, "-m", "ov", *args, str(dest / "x.ovpack"), "--json"], capture_output=True, text=True, timeout=120, check=False,
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (50 * 1024, hard)),
    )
    assert proc.returncode == 1, proc.stderr
    error = json.loads(proc.stderr)["error"]
    assert error["code"] == "disk_full" and error["message"] == f"a file under {dest} reached the limit on a file's size (`ulimit -f`)", error
    assert os.listdir(dest) == []
