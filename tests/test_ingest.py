"""`ov add-resource` and `ov add-skill` end to end: layout, layers, one commit per add, re-adds, bad input."""

from __future__ import annotations

import codecs
import http.server
import json
import os
import threading
import time
from pathlib import Path
from typing import ClassVar

import pytest
import yaml
from dulwich.objects import Tree
from dulwich.repo import Repo

from ov.store.gitstore import FILE_MODE
from tests.llm_server import API_KEY, API_KEY_ENV, MODEL, llm_server  # noqa: F401 - fixture
from tests.pdfs import make_pdf

LONG_SECTION = "\n".join(f"Paragraph {i} explains the deployment pipeline, its stages and their checks." for i in range(60))


def commits(home: Path) -> list:
    return [w.commit for w in Repo(str(home / "accounts/default")).get_walker()]


def changed(home: Path, commit) -> set[str]:
    repo = Repo(str(home / "accounts/default"))
    parent = repo[commit.parents[0]].tree if commit.parents else None
    return {(n or o).decode() for (o, n), _m, _s in repo.object_store.tree_changes(parent, commit.tree)}


@pytest.fixture
def handbook(tmp_path: Path) -> Path:
    root = tmp_path / "handbook"
    (root / "ops").mkdir(parents=True)
    (root / "README.md").write_text("# Handbook\nThe team handbook: how we build, deploy and support our services.\n")
    (root / "ops" / "deploy.md").write_text(
        "# Deploying\n\n## Before you start\nCheck the release notes.\n\n## Pipeline\n" + LONG_SECTION + "\n\n## Rollback\n"
        + LONG_SECTION.replace("deployment pipeline", "rollback procedure") + "\n"
    )
    (root / "ops" / "oncall.txt").write_text("Pager rotation: weekly, handed over on Mondays.\n")
    (root / "tool.py").write_text("def main():\n    return 'ok'\n")
    (root / "guide.pdf").write_bytes(make_pdf([("Introduction", ["Welcome to the PDF guide."]), ("Security", ["Rotate keys every month."])]))
    (root / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00binary")
    (root / ".gitignore").write_text("scratch/\n")
    (root / "scratch").mkdir()
    (root / "scratch" / "notes.md").write_text("ignored\n")
    return root


def sidecar_meta(path: Path) -> dict:
    text = path.read_text()
    assert text.startswith("---\n")
    return yaml.safe_load(text.split("---\n")[1])


def test_add_a_folder_builds_a_tree_with_layers_in_one_commit(ov, ov_home, handbook):
    before = len(commits(ov_home)) if (ov_home / "accounts/default").exists() else 0
    result = ov("add-resource", str(handbook), "--json")
    assert result.exit_code == 0, result.stderr
    data = result.json["result"]
    assert data["root"] == "viking://resources/handbook"
    assert data["changed"] is True
    skipped = {s["path"]: s["reason"] for s in data["skipped"]}
    assert skipped["logo.png"] == "binary file"
    assert skipped["scratch/"] == "ignored by git"
    assert len(commits(ov_home)) == max(before, 1) + 1  # init + this add
    listing = ov("ls", "-r", "--simple", "viking://resources/handbook").stdout.splitlines()
    assert "viking://resources/handbook/README.md" in listing
    assert "viking://resources/handbook/tool.py" in listing
    assert any(u.startswith("viking://resources/handbook/ops/deploy/") for u in listing), "a long document is split"
    assert any(u.startswith("viking://resources/handbook/guide") for u in listing), "the PDF is ingested"
    store = ov_home / "accounts/default/resources/handbook"
    for directory in [store, store / "ops"]:
        meta = sidecar_meta(directory / ".overview.md")
        assert meta["directory"].endswith("/") and meta["generated_by"]["component"] == "ov-ingest"
        assert meta["freshness"]["total_entries"] >= 1
        assert len(ov("overview", "viking://" + str(directory.relative_to(ov_home / "accounts/default"))).stdout) <= 4001
        abstract = ov("abstract", "viking://" + str(directory.relative_to(ov_home / "accounts/default"))).stdout.strip()
        assert 0 < len(abstract) <= 256
    assert sidecar_meta(store / ".overview.md")["source"] == {"kind": "directory", "uri": str(handbook)}
    assert (ov_home / "accounts/default/resources/.overview.md").exists(), "parents are refreshed"
    subject = commits(ov_home)[0].message.decode().splitlines()[0]
    assert subject == "ov add-resource viking://resources/handbook"


def test_an_import_root_keeps_its_source_when_a_change_below_it_summarises_it_again(ov, ov_home, handbook):
    # (found by an audit: `ov rm` of one file rewrote the root's sidecars without `source:`)
    assert ov("add-resource", str(handbook)).exit_code == 0
    store = ov_home / "accounts/default/resources/handbook"
    assert ov("rm", "viking://resources/handbook/tool.py").exit_code == 0
    assert ov("write", "viking://resources/handbook/ops/new.md", "--content", "# New\n\nA new runbook.\n").exit_code == 0
    for name in (".overview.md", ".abstract.md"):
        assert sidecar_meta(store / name)["source"] == {"kind": "directory", "uri": str(handbook)}, name
        assert sidecar_meta(store / name)["freshness"]["total_entries"] >= 1
    assert "source" not in sidecar_meta(store / "ops/.overview.md")  # below the root: never had one


def test_readding_unchanged_source_changes_nothing(ov, ov_home, handbook):
    assert ov("add-resource", str(handbook)).exit_code == 0
    head = commits(ov_home)[0].id
    files = {p: p.read_bytes() for p in (ov_home / "accounts/default").rglob("*") if p.is_file() and ".git" not in p.parts}
    again = ov("add-resource", str(handbook), "--json").json["result"]
    assert again["changed"] is False and again["added"] == [] and again["updated"] == []
    assert commits(ov_home)[0].id == head
    assert files == {p: p.read_bytes() for p in (ov_home / "accounts/default").rglob("*") if p.is_file() and ".git" not in p.parts}


def test_readding_a_changed_source_updates_exactly_what_changed(ov, ov_home, handbook):
    assert ov("add-resource", str(handbook)).exit_code == 0
    (handbook / "ops" / "oncall.txt").write_text("Pager rotation: daily now.\n")
    (handbook / "tool.py").unlink()
    data = ov("add-resource", str(handbook), "--json").json["result"]
    assert data["updated"] == ["viking://resources/handbook/ops/oncall.txt"]
    assert data["removed"] == ["viking://resources/handbook/tool.py"]
    touched = changed(ov_home, commits(ov_home)[0])
    content = {p for p in touched if not p.rsplit("/", 1)[-1].startswith(".")}
    assert content == {"resources/handbook/ops/oncall.txt", "resources/handbook/tool.py"}
    assert all("deploy" not in p for p in touched), "untouched documents keep their files and sidecars"


def test_reason_becomes_the_description(ov, handbook):
    assert ov("add-resource", str(handbook), "--reason", "Everything new engineers must read.").exit_code == 0
    assert ov("abstract", "viking://resources/handbook").stdout.strip() == "Everything new engineers must read."


def test_single_file_and_provenance(ov, tmp_path):
    doc = tmp_path / "design.md"
    doc.write_text("# Design\nWe keep state in git.\n")
    data = ov("add-resource", str(doc), "--json").json["result"]
    assert data["root"] == "viking://resources/design"
    assert ov("read", "viking://resources/design/design.md").stdout == "# Design\nWe keep state in git.\n"
    info = ov("stat", "viking://resources/design/design.md", "--json").json["result"]
    assert info["source"]["uri"] == str(doc) and info["source"]["lines"] == [1, 2]


def test_to_and_parent_targets(ov, tmp_path):
    doc = tmp_path / "a.md"
    doc.write_text("# A\ntext\n")
    assert ov("add-resource", str(doc), "--to", "viking://~/resources/mine").exit_code == 0
    assert ov("read", "viking://user/default/resources/mine/a.md").exit_code == 0
    assert ov("mkdir", "viking://resources/projects").exit_code == 0
    assert ov("add-resource", str(doc), "--parent", "viking://resources/projects").exit_code == 0
    assert ov("read", "viking://resources/projects/a/a.md").exit_code == 0


def test_include_and_exclude(ov, handbook):
    assert ov("add-resource", str(handbook), "--include", "*.md", "--exclude", "ops/").exit_code == 0
    listing = ov("ls", "-r", "--simple", "viking://resources/handbook").stdout.splitlines()
    assert listing == ["viking://resources/handbook/README.md"]


def test_generated_folders_are_skipped_without_a_gitignore(ov, tmp_path):
    """An installed package or a downloaded project has no .gitignore to leave them out."""
    pkg = tmp_path / "pkg"
    for folder in ("__pycache__", "node_modules/left-pad", "src"):
        (pkg / folder).mkdir(parents=True)
    (pkg / "__pycache__" / "mod.cpython-311.pyc").write_bytes(b"\x00\x01binary")
    (pkg / "node_modules" / "left-pad" / "index.js").write_text("module.exports = pad;\n")
    (pkg / "src" / "mod.py").write_text("def pad(): ...\n")
    data = ov("add-resource", str(pkg), "--json").json["result"]
    assert data["added"] == ["viking://resources/pkg/src/mod.py"]
    assert {(s["path"], s["reason"]) for s in data["skipped"]} == {("__pycache__/", "generated folder"), ("node_modules/", "generated folder")}


def test_a_text_kept_whole_past_the_file_limit_is_skipped(ov, tmp_path):
    """`ov write` refuses a file over store.max_file_bytes; add-resource stored a 15 MB log whole,
    and the next find spent 13 s indexing it."""
    assert ov("config", "set", "store.max_file_bytes", "4000").exit_code == 0
    src = tmp_path / "src"
    src.mkdir()
    (src / "big.log").write_text("x" * 2000 + "\n" + "y" * 3000 + "\n")
    (src / "long.md").write_text("".join(f"# Part {i}\n\n" + "words here. " * 100 + "\n\n" for i in range(6)))  # split into parts
    data = ov("add-resource", str(src), "--json").json["result"]
    assert [s["path"] for s in data["skipped"]] == ["big.log"] and "store.max_file_bytes (4000;" in data["skipped"][0]["reason"]
    assert data["added"] and all(u.startswith("viking://resources/src/long") for u in data["added"])


def test_mkdir_description_of_a_parent_is_kept(ov, tmp_path):
    assert ov("mkdir", "viking://resources/team", "--description", "Team knowledge, curated by hand.").exit_code == 0
    doc = tmp_path / "n.md"
    doc.write_text("# N\nnote\n")
    assert ov("add-resource", str(doc), "--parent", "viking://resources/team").exit_code == 0
    assert ov("abstract", "viking://resources/team").stdout.strip() == "Team knowledge, curated by hand."
    assert "n/" in ov("overview", "viking://resources/team").stdout


def test_many_children_are_sampled_and_stable(ov, ov_home, tmp_path):
    root = tmp_path / "many"
    root.mkdir()
    for i in range(40):
        (root / f"note{i:02d}.md").write_text(f"# Note {i}\nFact number {i}.\n")
    assert ov("add-resource", str(root)).exit_code == 0
    overview = ov_home / "accounts/default/resources/many/.overview.md"
    meta = sidecar_meta(overview)
    assert meta["freshness"]["total_entries"] == 40
    assert meta["freshness"]["sampled_entries"] == 32
    assert meta["freshness"]["unsampled_entries"] == 8
    first = overview.read_bytes()
    assert ov("add-resource", str(root)).exit_code == 0
    assert overview.read_bytes() == first


class _Handler(http.server.BaseHTTPRequestHandler):
    routes: dict = {}

    def do_GET(self):  # noqa: N802 - http.server's naming
        route = self.routes.get(self.path)
        if route is None:
            self.send_error(404, "Not Found")
            return
        status, ctype, body, delay = route
        time.sleep(delay)
        try:
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            # The client gave up (the timeout tests): socketserver would print a traceback on the
            # stderr of whichever test runs by then.
            pass

    def log_message(self, *args):
        pass


@pytest.fixture
def web():
    _Handler.routes = {
        "/docs/auth.html": (200, "text/html", b"<html><head><title>Auth guide</title><script>evil()</script></head><body><h1>Auth</h1><p>Tokens rotate monthly.</p></body></html>", 0),
        "/slow.html": (200, "text/html", b"<p>late</p>", 3),
        "/big.txt": (200, "text/plain", b"x" * 5000, 0),
        "/busy.html": (503, "text/html", b"<p>down for maintenance</p>", 0),
        # Apache's AddDefaultCharset: the charset only in the header, the page in windows-1252.
        "/menu.html": (200, "text/html; charset=ISO-8859-1", "<html><body><h1>Pr\xe9sentation</h1><p>Caf\xe9 cr\xe8me, 5 \u20ac.</p></body></html>".encode("cp1252"), 0),
    }
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_add_a_url(ov, web):
    data = ov("add-resource", f"{web}/docs/auth.html", "--json").json["result"]
    assert data["root"] == "viking://resources/auth"
    text = ov("read", "viking://resources/auth/auth.md").stdout
    assert "Tokens rotate monthly." in text and "evil()" not in text
    info = ov("stat", "viking://resources/auth/auth.md", "--json").json["result"]
    assert info["source"]["kind"] == "http" and info["source"]["uri"] == f"{web}/docs/auth.html"


def test_a_page_whose_charset_only_its_http_header_declares_is_read_in_it(ov, web):
    assert ov("add-resource", f"{web}/menu.html").exit_code == 0
    text = ov("read", "viking://resources/menu/menu.md").stdout
    assert "# Présentation" in text and "Café crème, 5 €." in text  # ISO-8859-1 read as windows-1252, as browsers do


@pytest.mark.parametrize("path, setting, words, hint", [
    ("/missing.html", None, "HTTP 404", "the server has no such page: check the URL"),
    ("/busy.html", None, "HTTP 503", "the server could not answer now: try again later"),
    ("/slow.html", ("ingest.url_timeout", "0.5"), "longer than 0.5s", "raise ingest.url_timeout"),
    ("/big.txt", ("ingest.url_max_bytes", "1000"), "1000-byte limit", "raise ingest.url_max_bytes"),
])
def test_url_failures_change_nothing(ov, web, store_state, path, setting, words, hint):
    if setting:
        assert ov("config", "set", *setting).exit_code == 0
    assert ov("init").exit_code == 0
    before = store_state()
    result = ov("add-resource", f"{web}{path}", "--json")
    assert result.exit_code == 1
    assert result.error["code"] == "fetch_failed"
    assert words in result.error["message"] and result.error["hint"] == hint
    assert store_state() == before


def test_a_server_that_cannot_be_reached_is_a_fetch_failure_with_its_own_hint(ov):
    """`ov doctor` checks ov's set-up and nothing about a URL: the hint is about the URL."""
    import socket

    with socket.socket() as probe:  # a port nothing listens on once the probe is closed
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    result = ov("add-resource", f"http://127.0.0.1:{port}/x.html", "--json")
    assert result.exit_code == 1 and result.error["code"] == "fetch_failed"
    assert "check the URL" in result.error["hint"] and "doctor" not in result.error["hint"]


# --- what ov keeps of a URL, and where it goes --------------------------------------------------

TOKEN = "ghp_" + "abcdefghijklmnopqrstuvwxyzABCDEF1234"


class _Gate(http.server.BaseHTTPRequestHandler):
    """Answers what ``routes`` says: ("page", body), ("redirect", location) or ("login", user:password);
    every request's path and Authorization header are noted in ``seen``."""

    routes: ClassVar[dict] = {}
    seen: ClassVar[list] = []

    def do_GET(self):  # http.server's naming
        import base64

        self.seen.append((self.path, self.headers.get("Authorization")))
        kind, value = self.routes.get(self.path.split("?", 1)[0], ("missing", None))
        if kind == "login" and self.headers.get("Authorization") != "Basic " + base64.b64encode(value.encode()).decode():
            self.send_response(401)
            self.send_header("WWW-Authenticate", 'Basic realm="docs"')
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if kind == "redirect":
            self.send_response(302)
            self.send_header("Location", value)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if kind == "missing":
            self.send_error(404, "Not Found")
            return
        body = b"# Deploy notes\n\nStaging deploys run with make ship.\n"
        self.send_response(200)
        self.send_header("Content-Type", "text/markdown")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture
def gate():
    """Two loopback servers (two origins) with the _Gate handler."""
    _Gate.routes, _Gate.seen = {}, []
    servers = [http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Gate) for _ in range(2)]
    for server in servers:
        threading.Thread(target=server.serve_forever, daemon=True).start()
    yield [f"http://127.0.0.1:{server.server_address[1]}" for server in servers]
    for server in servers:
        server.shutdown()
        server.server_close()


def _kept_anywhere(home: Path, secret: str) -> list[str]:
    """Where ``secret`` is in the account: its files (sidecars, manifest, index state aside) and commit messages."""
    import subprocess

    found = [str(p) for p in home.rglob("*") if p.is_file() and ".git" not in p.parts and secret.encode() in p.read_bytes()]
    log = subprocess.run(["git", "-C", str(home / "accounts/default"), "log", "--format=%B"], capture_output=True, text=True, check=True).stdout
    return found + (["commit message"] if secret in log else [])


def test_a_token_in_a_url_and_in_the_reason_is_redacted_wherever_ov_keeps_it(ov, ov_home, gate):
    _Gate.routes = {"/deploy.md": ("page", None)}
    data = ov("add-resource", f"{gate[0]}/deploy.md?token={TOKEN}", "--reason", f"uses deploy key {TOKEN}", "--json").json["result"]
    assert _Gate.seen[0][0] == f"/deploy.md?token={TOKEN}"  # the server gets the URL as given
    kept = f"{gate[0]}/deploy.md?token=[REDACTED:github_token]"
    assert data["source"] == kept and data["redacted"] == 2
    assert ov("stat", "viking://resources/deploy/deploy.md", "--json").json["result"]["source"]["uri"] == kept
    manifest = json.loads((ov_home / "accounts/default/resources/deploy/.sources.json").read_text())
    assert manifest["source"]["uri"] == kept and manifest["reason"] == "uses deploy key [REDACTED:github_token]"
    assert "uses deploy key [REDACTED:github_token]" in ov("read", "viking://resources/deploy/.abstract.md").stdout
    context = ov("search", "deploy key", "--mode", "context").stdout
    assert TOKEN not in context
    assert _kept_anywhere(ov_home, TOKEN) == []
    # Added again: the same source (its URL as kept), nothing changed.
    again = ov("add-resource", f"{gate[0]}/deploy.md?token={TOKEN}", "--json").json["result"]
    assert again["root"] == "viking://resources/deploy" and again["commit"] is None


def test_a_token_in_a_url_path_does_not_become_the_name(ov, ov_home, gate):
    _Gate.routes = {f"/{TOKEN}": ("page", None)}
    data = ov("add-resource", f"{gate[0]}/{TOKEN}", "--json").json["result"]
    assert TOKEN not in data["root"] and "REDACTED" in data["root"]
    assert data["redacted"] == 1
    assert _kept_anywhere(ov_home, TOKEN) == []


def test_an_error_quotes_the_url_without_its_secrets(ov, ov_home):
    import socket

    with socket.socket() as probe:  # a port nothing listens on once the probe is closed
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    for url in (f"http://127.0.0.1:{port}/x.md?token={TOKEN}", f"http://alice:S3cretPassw0rd@127.0.0.1:{port}/x.md", f"ftp://alice:S3cretPassw0rd@127.0.0.1:{port}/x"):
        result = ov("add-resource", url, "--json")
        assert result.exit_code != 0 and result.error["code"] in ("fetch_failed", "invalid_input")
        assert TOKEN not in result.stderr + result.stdout and "S3cretPassw0rd" not in result.stderr + result.stdout
        assert f"127.0.0.1:{port}" in result.error["message"]


def test_credentials_in_a_url_are_sent_as_basic_auth_and_never_kept(ov, ov_home, gate, store_state):
    _Gate.routes = {"/private/doc.md": ("login", "alice:S3cret Passw0rd")}
    data = ov("add-resource", f"{gate[0].replace('//', '//alice:S3cret%20Passw0rd@')}/private/doc.md", "--json").json["result"]
    assert data["root"] == "viking://resources/doc" and data["source"] == f"{gate[0]}/private/doc.md"
    assert "make ship" in ov("read", "viking://resources/doc/doc.md").stdout
    assert _kept_anywhere(ov_home, "S3cret") == [] and _kept_anywhere(ov_home, "alice") == []
    before = store_state()
    wrong = ov("add-resource", f"{gate[0].replace('//', '//alice:Wr0ngPassw0rd@')}/private/doc.md", "--json")
    assert wrong.exit_code == 1 and "HTTP 401" in wrong.error["message"]
    assert "Wr0ngPassw0rd" not in wrong.stderr + wrong.stdout and store_state() == before


def test_a_password_holding_an_at_sign_is_sent_whole_and_kept_nowhere(ov, ov_home, gate):
    # The user info ends at the host's last `@` (as urllib reads it): `p@ss` is the password, not a host.
    _Gate.routes = {"/private/doc.md": ("login", "alice:Wr@ngle9Pass")}
    data = ov("add-resource", f"{gate[0].replace('//', '//alice:Wr@ngle9Pass@')}/private/doc.md", "--json").json["result"]
    assert data["source"] == f"{gate[0]}/private/doc.md"
    assert _kept_anywhere(ov_home, "Wr@ngle9") == [] and _kept_anywhere(ov_home, "ngle9Pass") == []


def test_the_scheme_of_a_url_is_judged_once_by_the_rule_every_hop_keeps():
    from ov.errors import InvalidInput
    from ov.ingest.sources import FetchError, fetch_url

    for url in ("ftp://alice:S3cretPassw0rd@127.0.0.1:9/x", "gopher://127.0.0.1:9/x"):
        with pytest.raises(FetchError) as info:
            fetch_url(url, timeout=1, max_bytes=1000)
        assert "not an http(s) URL" in info.value.message and "S3cretPassw0rd" not in info.value.message
    with pytest.raises(InvalidInput, match="names no host"):
        fetch_url("http:///x", timeout=1, max_bytes=1000)


def test_credentials_follow_a_redirect_on_their_server_only(ov, gate):
    here, elsewhere = gate
    _Gate.routes = {"/moved.md": ("redirect", "/doc.md"), "/doc.md": ("redirect", f"{elsewhere}/final.md"), "/final.md": ("page", None)}
    assert ov("add-resource", f"{here.replace('//', '//alice:S3cret@')}/moved.md", "--json").exit_code == 0
    sent = {path: auth for path, auth in _Gate.seen}
    assert sent["/moved.md"] and sent["/doc.md"] == sent["/moved.md"]  # the same server
    assert sent["/final.md"] is None  # another server never gets them


@pytest.mark.parametrize("target, words", [
    ("ftp://127.0.0.1:{port}/etc/passwd", "not an http(s) URL"),
    ("file:///etc/passwd", "not allowed"),
    ("http://169.254.169.254/latest/meta-data/", "169.254.169.254 is a link-local address"),
    ("http://[fe80::1]:{port}/", "fe80::1 is a link-local address"),
    ("http://0.0.0.0:{port}/", "0.0.0.0 is an unspecified address"),
])
def test_a_redirect_is_held_to_the_same_rule_as_the_url(ov, gate, store_state, target, words):
    """A redirect to ftp (urllib's default opener follows it and logs in) or to the cloud metadata
    address is refused before any connection is made to it."""
    import socket

    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        listener.settimeout(0.2)
        _Gate.routes = {"/doc.md": ("redirect", target.format(port=listener.getsockname()[1]))}
        assert ov("init").exit_code == 0
        before = store_state()
        result = ov("add-resource", f"{gate[0]}/doc.md", "--json")
        assert result.exit_code == 1 and result.error["code"] == "fetch_failed"
        assert words in result.error["message"]
        with pytest.raises(TimeoutError):
            listener.accept()  # nothing connected to the redirect's target
    assert store_state() == before


@pytest.mark.parametrize("url", ["http://169.254.169.254/latest/meta-data/", "http://[::ffff:169.254.169.254]/", "http://0.0.0.0:9/x"])
def test_link_local_and_unspecified_addresses_are_refused(ov, url):
    result = ov("add-resource", url, "--json")
    assert result.exit_code == 1 and result.error["code"] == "fetch_failed"
    assert "link-local" in result.error["hint"] and "was not fetched" in result.error["message"]


def test_a_name_is_checked_by_the_addresses_it_resolves_to():
    """The connection itself checks what the host resolves to, and connects to an address it checked
    (a name is not resolved twice); loopback is allowed."""
    import socket

    from ov.ingest.web import Refused, _connect, opener

    with pytest.raises(Refused, match="169.254.169.254 is a link-local address"):
        _connect(("169.254.169.254", 80), 1)
    with pytest.raises(Refused, match="0.0.0.0 is an unspecified address"):
        opener().open("http://0.0.0.0:9/", timeout=1)  # through urllib, which must not wrap it as a connection error
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        with _connect(("localhost", listener.getsockname()[1]), 2) as sock:
            assert sock.getpeername()[0] in ("127.0.0.1", "::1")


def test_corrupt_pdf_is_skipped_or_aborts_with_strict(ov, store_state, handbook):
    (handbook / "broken.pdf").write_bytes(b"%PDF-1.4\n1 0 obj garbage")
    assert ov("init").exit_code == 0
    before = store_state()
    strict = ov("add-resource", str(handbook), "--strict", "--json")
    assert strict.exit_code == 2 and "broken.pdf" in strict.error["message"]
    assert store_state() == before
    lenient = ov("add-resource", str(handbook), "--json").json["result"]
    failed = [s for s in lenient["skipped"] if s["failed"]]
    assert [s["path"] for s in failed] == ["broken.pdf"]
    assert "PDF" in failed[0]["reason"]


def test_text_that_is_not_utf8_fails_wherever_its_odd_byte_sits_and_binary_files_are_skipped(ov, store_state, tmp_path):
    # (found by an audit: a Latin-1 accent in the first 8 KB made the file a skipped "binary
    # file", past them a failed "not UTF-8 text"; so --strict stopped on the one and not the other)
    folder = tmp_path / "mixed"
    folder.mkdir()
    (folder / "early.txt").write_bytes(b"caf\xe9 " + b"a" * 20_000)
    (folder / "late.txt").write_bytes(b"a" * 20_000 + b" caf\xe9")
    (folder / "note.md").write_bytes("# Café\n\nUne note écrite en Latin-1.\n".encode("latin-1"))
    (folder / "sjis.txt").write_bytes("設定ファイルの説明です。\n".encode("shift_jis") * 50)
    (folder / "page.html").write_bytes('<html><head><meta charset="iso-8859-1"><title>Café</title></head><body><p>Le café ouvre à neuf heures.</p></body></html>'.encode("latin-1"))
    (folder / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00binary")
    (folder / "late-nul.log").write_bytes(b"a" * 20_000 + b"\x00")
    (folder / "noise.bin").write_bytes(bytes(range(1, 256)) * 20)  # no NUL, but no text either
    (folder / "ok.txt").write_text("fine\n")
    assert ov("init").exit_code == 0
    before = store_state()
    for source in (folder / "early.txt", folder / "note.md", folder):
        strict = ov("add-resource", str(source), "--strict", "--json")
        assert strict.exit_code == 2 and "not UTF-8 text" in strict.error["message"], source
        assert store_state() == before
    data = ov("add-resource", str(folder), "--json").json["result"]
    skipped = {s["path"]: (s["reason"].split(" (")[0], s["failed"]) for s in data["skipped"]}
    assert skipped == {
        "early.txt": ("not UTF-8 text", True),
        "late.txt": ("not UTF-8 text", True),
        "note.md": ("not UTF-8 text", True),
        "sjis.txt": ("not UTF-8 text", True),
        "logo.png": ("binary file", False),
        "late-nul.log": ("binary file", False),
        "noise.bin": ("binary file", False),
    }
    assert "viking://resources/mixed/ok.txt" in data["added"]
    assert "café ouvre" in ov("read", "viking://resources/mixed/page.md").stdout, "HTML reaches its parser, which reads the declared charset"


def test_utf16_and_utf32_text_with_a_byte_order_mark_is_read_and_stored_as_utf8(ov, tmp_path):
    # (found by an audit: Windows tools' UTF-16 files were skipped as "binary file", even with
    # --strict, for the NUL bytes of their ASCII characters)
    folder = tmp_path / "win"
    folder.mkdir()
    (folder / "notes.txt").write_bytes("\ufeffMeeting notes: café\r\nsecond line\r\n".encode("utf-16-le"))
    (folder / "guide.md").write_bytes("\ufeff# Guide\n\nBig endian body.\n".encode("utf-16-be"))
    (folder / "wide.txt").write_bytes("\ufeffthirty two bits\n".encode("utf-32-le"))
    (folder / "torn.txt").write_bytes(codecs.BOM_UTF16_LE + b"a\x00\x00\xd8")  # a lone surrogate: no text
    # (found by a review: wide text went past redaction, a token and all)
    (folder / "secret.md").write_bytes("\ufeff# Notes\ntoken ghp_abcdefghijklmnopqrstuvwxyz0123456789\n".encode("utf-16"))
    data = ov("add-resource", str(folder), "--strict", "--json").json["result"]
    assert {s["path"]: s["reason"] for s in data["skipped"]} == {"torn.txt": "binary file"}
    assert ov("read", "viking://resources/win/notes.txt").stdout == "Meeting notes: café\r\nsecond line\r\n"
    assert ov("read", "viking://resources/win/wide.txt").stdout == "thirty two bits\n"
    assert "Big endian body." in ov("read", "viking://resources/win/guide.md").stdout
    assert ov("find", "meeting notes", "--json").json["result"]["resources"][0]["uri"] == "viking://resources/win/notes.txt"
    assert data["redacted"] == 1 and "[REDACTED:github_token]" in ov("read", "viking://resources/win/secret.md").stdout
    assert not ov("grep", "ghp_abcdef", "--json").json["result"]


def test_a_symbolic_link_loop_is_refused_when_named_and_skipped_in_a_folder(ov, store_state, tmp_path):
    # (found by an audit: `ov add-resource LINK` on a loop was "internal error: RuntimeError: Symlink loop")
    (tmp_path / "l1").symlink_to(tmp_path / "l2")
    (tmp_path / "l2").symlink_to(tmp_path / "l1")
    (tmp_path / "to-loop").symlink_to("l1")
    (tmp_path / "dangling").symlink_to(tmp_path / "nothing")
    assert ov("init").exit_code == 0
    before = store_state()
    for name in ("l1", "to-loop"):
        refused = ov("add-resource", str(tmp_path / name), "--json")
        assert refused.exit_code == 2 and refused.error["code"] == "invalid_input", refused.stderr
        assert refused.error["message"] == f"{tmp_path / name} is a symbolic link in a loop: it never leads to a file or a folder"
    dangling = ov("add-resource", str(tmp_path / "dangling"), "--json")
    assert dangling.exit_code == 2 and "symbolic link to nowhere" in dangling.error["message"]
    assert store_state() == before
    folder = tmp_path / "dir"
    folder.mkdir()
    (folder / "a").symlink_to(folder / "b")
    (folder / "b").symlink_to(folder / "a")
    (folder / "inner").mkdir()
    (folder / "inner" / "self").symlink_to(folder / "inner" / "self")
    (folder / "ok.md").write_text("# OK\n")
    data = ov("add-resource", str(folder), "--strict", "--json").json["result"]
    assert {s["path"]: s["reason"] for s in data["skipped"]} == {"a": "symbolic link", "b": "symbolic link", "inner/self": "symbolic link"}
    assert data["added"] == ["viking://resources/dir/ok.md"]


@pytest.mark.parametrize("make, words", [
    (lambda d: d / "missing.md", "does not exist"),
    (lambda d: (d / "e.pdf").write_bytes(make_pdf([("S", ["secret"])], password="pw")) and d / "e.pdf", "encrypted"),
    (lambda d: (d / "c.pdf").write_bytes(b"%PDF-1.7 not really") and d / "c.pdf", "PDF"),
    (lambda d: (d / "b.bin").write_bytes(b"\x00\x01\x02") and d / "b.bin", "binary"),
])
def test_bad_sources_change_nothing(ov, store_state, tmp_path, make, words):
    source = make(tmp_path)
    assert ov("init").exit_code == 0
    before = store_state()
    result = ov("add-resource", str(source), "--json")
    assert result.exit_code == 2
    assert words in result.error["message"] + result.error.get("hint", "")
    assert store_state() == before


def test_bad_targets_change_nothing(ov, store_state, tmp_path):
    doc = tmp_path / "a.md"
    doc.write_text("# A\n")
    other = tmp_path / "other" / "a.md"
    other.parent.mkdir()
    other.write_text("# Other A\n")
    assert ov("add-resource", str(doc)).exit_code == 0
    before = store_state()
    cases = [
        (["--parent", "viking://resources/nowhere"], 1, "not_found"),
        (["--to", "viking://~/memories/preferences/a"], 2, "invalid_input"),
        (["--to", "viking://resources/x", "--parent", "viking://resources"], 2, "invalid_input"),
        (["--to", "viking://resources/../etc"], 2, "invalid_uri"),
    ]
    for args, code, error in cases:
        result = ov("add-resource", str(doc), *args, "--json")
        assert (result.exit_code, result.error["code"]) == (code, error), args
    clash = ov("add-resource", str(other), "--json")
    assert clash.exit_code == 1 and "was not added from" in clash.error["message"]
    clash = ov("add-resource", str(other), "--to", "viking://resources/a", "--json")
    assert clash.exit_code == 1 and "was not added from" in clash.error["message"]
    # The same source to its own import: an add again, with nothing to change.
    assert ov("add-resource", str(doc), "--to", "viking://resources/a", "--json").json["result"]["commit"] is None
    assert store_state() == before


# --- add-skill ---------------------------------------------------------------------


def _skill(tmp_path: Path, front: str, extra: dict[str, str] | None = None) -> Path:
    folder = tmp_path / "skill"
    folder.mkdir(exist_ok=True)
    (folder / "SKILL.md").write_text(front + "\n# Steps\n1. Open the form.\n")
    for name, text in (extra or {}).items():
        (folder / name).write_text(text)
    return folder


def test_add_skill_folder(ov, ov_home, tmp_path):
    folder = _skill(tmp_path, "---\nname: pdf-forms\ndescription: Fill in PDF forms when asked to complete one.\n---", {"fill.py": "print('fill')\n"})
    data = ov("add-skill", str(folder), "--json").json["result"]
    assert data["uri"] == "viking://agent/skills/pdf-forms"
    assert ov("read", "viking://agent/skills/pdf-forms/fill.py").stdout == "print('fill')\n"
    assert ov("abstract", "viking://agent/skills/pdf-forms").stdout.strip() == "Fill in PDF forms when asked to complete one."
    head = commits(ov_home)[0]
    assert head.message.decode().startswith("ov add-skill viking://agent/skills/pdf-forms")
    assert ov("add-skill", str(folder), "--json").json["result"]["changed"] is False


def test_add_skill_file_into_user_scope(ov, tmp_path):
    folder = _skill(tmp_path, "---\nname: notes\ndescription: Take notes.\n---")
    data = ov("add-skill", str(folder / "SKILL.md"), "--user-scope", "--json").json["result"]
    assert data["uri"] == "viking://user/default/skills/notes"


@pytest.mark.parametrize("encoding", ["utf-8-sig", "utf-16", "utf-32"])
@pytest.mark.parametrize("as_file", [False, True])
def test_a_skill_saved_with_a_byte_order_mark_is_added_as_utf8(ov, tmp_path, encoding, as_file):
    """Notepad and PowerShell 5.1 save with a mark (UTF-8's, or UTF-16): SKILL.md was refused as
    having no frontmatter, or as not UTF-8, while add-resource read the same file."""
    folder = tmp_path / "skill"
    folder.mkdir()
    text = "---\r\nname: rapport\r\ndescription: Génère un rapport PDF.\r\n---\r\n\r\n# Étapes\r\n"
    (folder / "SKILL.md").write_bytes(text.encode(encoding))
    result = ov("add-skill", str(folder / "SKILL.md" if as_file else folder))
    assert result.exit_code == 0, result.stderr
    assert ov("read", "viking://agent/skills/rapport/SKILL.md").stdout == text  # its line ends as they were
    assert ov("abstract", "viking://agent/skills/rapport").stdout.strip() == "Génère un rapport PDF."


@pytest.mark.parametrize("front, words", [
    ("# no frontmatter", "no frontmatter"),
    ("---\ndescription: d\n---", "no `name`"),
    ("---\nname: Bad_Name\ndescription: d\n---", "not allowed"),
    ("---\nname: ok\n---", "no `description`"),
    ("---\nname: [unclosed\n---", "YAML"),
])
def test_add_skill_bad_frontmatter(ov, store_state, tmp_path, front, words):
    folder = _skill(tmp_path, front)
    assert ov("init").exit_code == 0
    before = store_state()
    result = ov("add-skill", str(folder), "--json")
    assert result.exit_code == 2
    assert words in result.error["message"]
    assert store_state() == before


@pytest.mark.parametrize("name, words", [("run ", "whitespace"), ("git~1/x.sh", "reserved"), ("a\\b.sh", "path separator"), ("C:x.sh", "drive-letter")])
def test_a_skill_file_ov_cannot_store_refuses_the_skill(ov, store_state, tmp_path, name, words):
    # (found as a bug: stored under a name no read could address, or one git fsck refuses;
    # a skill's files keep their names, which its instructions may use, so none is renamed)
    folder = _skill(tmp_path, "---\nname: tools\ndescription: Run the tools.\n---", {"ok.sh": "echo ok\n"})
    (folder / name).parent.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text("echo odd\n")
    assert ov("init").exit_code == 0
    before = store_state()
    result = ov("add-skill", str(folder), "--json")
    assert result.exit_code == 2, result.stderr
    assert f"cannot store the skill's file {name!r}" in result.error["message"] and words in result.error["message"], result.error
    assert "rename it" in result.error["hint"]
    assert store_state() == before


def test_a_failure_after_files_were_written_ahead_rolls_everything_back(ov, ov_home, store_state, tmp_path, monkeypatch):
    """Large adds start writing files before their commit; a failure must still leave nothing behind."""
    root = tmp_path / "big"
    root.mkdir()
    for i in range(300):
        (root / f"n{i:03d}.md").write_text(f"# N{i}\nfact {i}\n")
    assert ov("init").exit_code == 0
    before = store_state()

    def boom(*args, **kwargs):
        raise RuntimeError("summariser crashed")

    with monkeypatch.context() as patch:
        patch.setattr("ov.summaries.layers.summarize_directory", boom)
        result = ov("add-resource", str(root), "--json")
    assert result.exit_code == 1 and "summariser crashed" in result.error["message"]
    assert store_state() == before
    assert not (ov_home / "accounts/default/resources/big").exists()
    assert not (ov_home / "state/default/journal.json").exists()
    assert ov("add-resource", str(root)).exit_code == 0
    assert len(ov("ls", "--simple", "viking://resources/big").stdout.splitlines()) == 300


def test_add_resource_with_an_llm_writes_its_summaries_and_records_tokens(ov, tmp_path, monkeypatch, llm_server):
    server = llm_server
    monkeypatch.setenv(API_KEY_ENV, API_KEY)
    for key, value in [("llm.model", MODEL), ("llm.api_base", server.base_url), ("llm.api_key_env", API_KEY_ENV)]:
        assert ov("config", "set", key, value).exit_code == 0
    server.chat("# notes\n\nTeam notes on deploys and paging.\n\n## Contents\n- a.md\n- b.md\n", prompt_tokens=120, completion_tokens=30)
    server.chat("# resources\n\nShared knowledge of the team.\n\n## Contents\n- notes/\n", prompt_tokens=80, completion_tokens=20)
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "a.md").write_text("# Deploys\nWe deploy on Tuesdays.\n")
    (folder / "b.md").write_text("# Paging\nThe pager rotates weekly.\n")
    data = ov("add-resource", str(folder), "--json").json["result"]
    assert data["tokens"] == {"prompt_tokens": 200, "completion_tokens": 50}
    assert ov("abstract", "viking://resources/notes").stdout.strip() == "Team notes on deploys and paging."
    assert ov("abstract", "viking://resources").stdout.strip() == "Shared knowledge of the team."
    first = server.chat_requests()[0]
    assert "We deploy on Tuesdays." in first.prompt and "notes" in first.prompt
    usage = ov("usage", "--json").json["result"]
    assert usage["all"] == {"calls": 2, "prompt_tokens": 200, "completion_tokens": 50}


def test_an_unreachable_llm_falls_back_to_extractive_summaries(ov, tmp_path, monkeypatch, llm_server):
    monkeypatch.setenv(API_KEY_ENV, API_KEY)
    for key, value in [("llm.model", MODEL), ("llm.api_base", llm_server.base_url), ("llm.api_key_env", API_KEY_ENV), ("llm.timeout", "0.5")]:
        assert ov("config", "set", key, value).exit_code == 0
    llm_server.delay(3)
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "a.md").write_text("# Deploys\nWe deploy on Tuesdays.\n")
    result = ov("add-resource", str(folder), "--json")
    assert result.exit_code == 0
    data = result.json["result"]
    assert data["changed"] and "extractive summaries written instead" in data["warnings"][0]
    assert len(llm_server.chat_requests()) == 1, "after one failure the rest of the add stays offline"
    assert ov("abstract", "viking://resources/notes").stdout.strip()


def test_oversized_and_hidden_files_are_skipped_with_reasons(ov, tmp_path):
    folder = tmp_path / "mixed"
    folder.mkdir()
    (folder / "small.md").write_text("# Small\nfits\n")
    (folder / "huge.md").write_text("# Huge\n" + "x" * 5000 + "\n")
    (folder / ".env").write_text("SECRET=1\n")
    assert ov("config", "set", "ingest.max_source_bytes", "1000").exit_code == 0
    data = ov("add-resource", str(folder), "--json").json["result"]
    reasons = {s["path"]: s["reason"] for s in data["skipped"]}
    assert reasons["huge.md"].startswith("larger than 1000 bytes")
    assert reasons[".env"] == "hidden"
    assert data["added"] == ["viking://resources/mixed/small.md"]


def test_summaries_from_worker_processes_are_identical_to_in_process_ones(ov, ov_home, tmp_path, monkeypatch):
    folder = tmp_path / "docs"
    for i in range(6):
        (folder / f"area{i % 2}").mkdir(parents=True, exist_ok=True)
        (folder / f"area{i % 2}" / f"doc{i}.md").write_text(f"# Doc {i}\nIntro {i}.\n\n## Part A\n{LONG_SECTION}\n\n## Part B\n{LONG_SECTION}\n")

    def sidecars() -> dict[str, bytes]:
        root = ov_home / "accounts/default/resources"
        return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob(".*.md"))}

    monkeypatch.setattr("ov.ingest.resource.PARALLEL_SUMMARIES", 1_000_000)
    assert ov("add-resource", str(folder)).exit_code == 0
    in_process = sidecars()
    assert ov("rm", "-r", "viking://resources/docs").exit_code == 0  # a whole scope is refused
    monkeypatch.setattr("ov.ingest.resource.PARALLEL_SUMMARIES", 2)
    assert ov("add-resource", str(folder)).exit_code == 0
    assert sidecars() == in_process
    assert len(in_process) > 10


# --- hostile and awkward sources ---------------------------------------------------------


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_a_named_pipe_in_a_folder_is_skipped_not_opened(ov_process, tmp_path):
    # (found as a bug: add-resource of a folder holding a FIFO never returned)
    folder = tmp_path / "withpipe"
    folder.mkdir()
    (folder / "a.md").write_text("# A\nkept\n")
    os.mkfifo(folder / "pipe.md")
    result = ov_process("add-resource", str(folder), "--json", timeout=30)
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)["result"]
    assert data["added"] == ["viking://resources/withpipe/a.md"]
    assert {"path": "pipe.md", "reason": "named pipe", "failed": False} in data["skipped"]


def _stored_uris(ov, root: str) -> list[str]:
    result = ov("glob", "**", "-u", root)
    assert result.exit_code == 0, result.stderr
    return result.stdout.splitlines()


def test_odd_file_and_folder_names_are_renamed_and_every_stored_name_reads_back(ov, tmp_path, monkeypatch):
    # (found as bugs: "todo " was stored and then refused by read and restore; one folder named
    # "back\\slash" aborted the whole add, while a file of that name was renamed)
    root = tmp_path / "odd"
    for folder in ("back\\slash", "back_slash", "t\tab", "git~1", "C:x", "sub ", " lead"):
        (root / folder).mkdir(parents=True)
        (root / folder / "a.txt").write_text(f"in {folder!r}\n")
    (root / "todo ").write_text("buy milk\n")
    (root / "nb\u00a0").write_text("non-breaking\n")
    (root / "ok.txt").write_text("fine\n")
    result = ov("add-resource", str(root), "--json")
    assert result.exit_code == 0, result.stderr
    base = "viking://resources/odd/"
    uris = _stored_uris(ov, "viking://resources/odd")
    folders = ["back_slash", "back_slash_2", "t_ab", "git_1", "C_x", "sub", "lead"]
    assert sorted(u.removeprefix(base) for u in uris) == sorted([*folders, *(f"{f}/a.txt" for f in folders), "todo", "nb", "ok.txt"])
    # The folder named as it is keeps its name; the renamed one beside it takes a number.
    assert ov("read", base + "back_slash/a.txt").stdout == "in 'back_slash'\n"
    assert ov("read", base + "back_slash_2/a.txt").stdout == "in 'back\\\\slash'\n"
    for uri in uris:
        assert ov("stat", uri).exit_code == 0, uri
        if uri.endswith((".txt", "todo", "nb")):
            assert ov("read", uri).exit_code == 0, uri
    assert ov("read", base + "todo").stdout == "buy milk\n"
    # Everything stored comes back from a backup: the summaries of the renamed folders too.
    assert ov("backup", str(tmp_path / "all.ovpack")).exit_code == 0
    monkeypatch.setenv("OV_HOME", str(tmp_path / "second-home"))
    restored = ov("restore", str(tmp_path / "all.ovpack"), "--json")
    assert restored.exit_code == 0, restored.stderr
    assert _stored_uris(ov, "viking://resources/odd") == uris
    assert ov("abstract", base + "back_slash_2").exit_code == 0


def test_adding_a_folder_again_replaces_a_name_an_older_version_stored_with_a_space(ov, ov_home, tmp_path):
    import subprocess

    root = tmp_path / "notes"
    root.mkdir()
    (root / "todo ").write_text("buy milk\n")
    (root / "other.txt").write_text("x\n")
    assert ov("add-resource", str(root)).exit_code == 0
    # What an older version stored: the file as "todo ", and so in the manifest.
    repo = ov_home / "accounts" / "default"
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.com"]
    subprocess.run([*git, "mv", "resources/notes/todo", "resources/notes/todo "], check=True)
    manifest = repo / "resources" / "notes" / ".sources.json"
    data = json.loads(manifest.read_text())
    data["files"]["todo "] = data["files"].pop("todo")
    manifest.write_text(json.dumps(data, indent=2, sort_keys=True))
    subprocess.run([*git, "add", "resources/notes/.sources.json"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "as an older version stored it"], check=True)
    result = ov("add-resource", str(root), "--json")
    assert result.exit_code == 0, result.stderr
    data = result.json["result"]
    assert data["added"] == ["viking://resources/notes/todo"] and data["removed"] == ["viking://resources/notes/todo "]
    listed = subprocess.run([*git, "ls-files", "resources/notes"], check=True, capture_output=True, text=True).stdout.splitlines()
    assert "resources/notes/todo " not in listed and "resources/notes/todo" in listed


def test_a_file_named_like_the_folder_a_document_splits_into_does_not_hang_the_add(ov_process, tmp_path):
    # (found as a bug: "guide" beside a "guide.md" split into guide/ looped for ever)
    root = tmp_path / "lay"
    root.mkdir()
    (root / "guide").write_text("plain text\n")
    (root / "guide.md").write_text("# Guide\n\n" + "\n\n".join(f"## Part {i}\n{LONG_SECTION}" for i in range(4)) + "\n")
    result = ov_process("add-resource", str(root), "--json", timeout=60)
    assert result.exit_code == 0, result.stderr
    added = json.loads(result.stdout)["result"]["added"]
    assert "viking://resources/lay/guide" in added
    split = [u for u in added if u.startswith("viking://resources/lay/guide_2/")]
    assert len(split) >= 4 and len(added) == len(split) + 1


def _long_rst(title: str, parts: int) -> str:
    heads = "".join(f"\n{title} part {i}\n{'-' * (len(title) + 7)}\n\n{LONG_SECTION}\n" for i in range(parts))
    return f"{title}\n{'=' * len(title)}\n{heads}"


def test_each_split_document_has_a_folder_of_its_own(ov, ov_home, tmp_path):
    # (found as a bug: a long guide.md and a long guide.rst both split into guide/, their sections
    # mixed; a long hosts.md split into the source's own folder hosts/)
    root = tmp_path / "docs"
    (root / "hosts").mkdir(parents=True)
    (root / "hosts" / "readme.md").write_text("# Hosts folder\n\nA file of the folder.\n")
    (root / "guide.md").write_text("# Guide\n\n" + "\n\n".join(f"## Md part {i}\n{LONG_SECTION}" for i in range(4)) + "\n")
    (root / "guide.rst").write_text(_long_rst("Guide", 4))
    (root / "hosts.md").write_text("# Hosts\n\n" + "\n\n".join(f"## Host part {i}\n{LONG_SECTION}" for i in range(4)) + "\n")
    assert ov("add-resource", str(root)).exit_code == 0
    manifest = json.loads((ov_home / "accounts/default/resources/docs/.sources.json").read_text())["files"]
    sources = {}
    for rel, entry in manifest.items():
        sources.setdefault(rel.split("/", 1)[0], set()).add(Path(entry["uri"]).name)
    assert sources == {"guide": {"guide.md"}, "guide_2": {"guide.rst"}, "hosts": {"readme.md"}, "hosts_2": {"hosts.md"}}
    stored = {u.removeprefix("viking://resources/docs/") for u in _stored_uris(ov, "viking://resources/docs")}
    assert stored == set(manifest) | set(sources)
    # The same source again: the same folders, nothing written.
    again = ov("add-resource", str(root), "--json").json["result"]
    assert not again["changed"] and again["unchanged"] == len(manifest)
    # guide.md made short is a file again, and none of its sections is left behind; guide.rst's
    # keep their folder (links to them hold), though the plain name is free now.
    (root / "guide.md").write_text("# Guide\n\nShort now.\n")
    assert ov("add-resource", str(root)).exit_code == 0
    manifest = json.loads((ov_home / "accounts/default/resources/docs/.sources.json").read_text())["files"]
    stored = {u.removeprefix("viking://resources/docs/") for u in _stored_uris(ov, "viking://resources/docs")}
    assert "guide.md" in manifest and not any(rel.startswith("guide/") for rel in stored)
    assert {Path(manifest[rel]["uri"]).name for rel in manifest if rel.startswith("guide_2/")} == {"guide.rst"}
    assert stored == set(manifest) | {"guide_2", "hosts", "hosts_2"}


def test_a_split_document_keeps_its_folder_when_another_of_its_name_comes_before_it(ov, ov_home, tmp_path):
    """A long guide.md added beside a long guide.rst sorts first and took guide/, moving the
    sections of guide.rst (every URI of them, in links and memories) to guide_2/: first come keeps
    the plain name."""
    root = tmp_path / "docs"
    root.mkdir()
    (root / "guide.rst").write_text(_long_rst("Guide", 4))
    (root / "hosts.md").write_text("# Hosts\n\n" + "\n\n".join(f"## Host part {i}\n{LONG_SECTION}" for i in range(4)) + "\n")
    assert ov("add-resource", str(root)).exit_code == 0
    manifest_path = ov_home / "accounts/default/resources/docs/.sources.json"
    before = json.loads(manifest_path.read_text())["files"]
    assert {Path(before[rel]["uri"]).name for rel in before if rel.startswith("guide/")} == {"guide.rst"}
    (root / "guide.md").write_text("# Guide\n\n" + "\n\n".join(f"## Md part {i}\n{LONG_SECTION}" for i in range(4)) + "\n")
    (root / "hosts").mkdir()  # and a folder of the name another document's sections hold
    (root / "hosts" / "readme.md").write_text("# Hosts folder\n\nA file of the folder.\n")
    added = ov("add-resource", str(root), "--json").json["result"]
    after = json.loads(manifest_path.read_text())["files"]
    owners = {rel.split("/", 1)[0]: Path(entry["uri"]).name for rel, entry in after.items() if "/" in rel}
    assert owners == {"guide": "guide.rst", "guide_2": "guide.md", "hosts": "readme.md", "hosts_2": "hosts.md"}
    # guide.rst's sections were not touched; hosts.md's moved, since a folder of the source keeps its name.
    assert not any(uri.startswith("viking://resources/docs/guide/") for uri in added["added"] + added["updated"] + added["removed"])
    assert {rel for rel in after if rel.startswith("guide/")} == {rel for rel in before if rel.startswith("guide/")}


def test_a_document_whose_folder_a_source_folder_takes_moves_alone(ov, ov_home, tmp_path):
    """guide.rst's sections in guide/, guide.md's in guide_2/; then the source gets a folder
    guide_2/ of its own. guide.md, which sorts first, lost its folder and took the free guide/,
    moving guide.rst's sections to guide_3/ as well: only the document whose folder was taken
    moves, and its old sections go in the same commit."""
    root = tmp_path / "docs"
    root.mkdir()
    (root / "guide.rst").write_text(_long_rst("Guide", 4))
    assert ov("add-resource", str(root)).exit_code == 0
    (root / "guide.md").write_text("# Guide\n\n" + "\n\n".join(f"## Md part {i}\n{LONG_SECTION}" for i in range(4)) + "\n")
    assert ov("add-resource", str(root)).exit_code == 0
    manifest_path = ov_home / "accounts/default/resources/docs/.sources.json"
    before = json.loads(manifest_path.read_text())["files"]
    assert {rel.split("/", 1)[0]: Path(entry["uri"]).name for rel, entry in before.items() if "/" in rel} == {"guide": "guide.rst", "guide_2": "guide.md"}
    (root / "guide_2").mkdir()
    (root / "guide_2" / "notes.md").write_text("# Notes\n\nA file of the folder.\n")
    count = len(commits(ov_home))
    added = ov("add-resource", str(root), "--json").json["result"]
    after = json.loads(manifest_path.read_text())["files"]
    owners = {rel.split("/", 1)[0]: Path(entry["uri"]).name for rel, entry in after.items() if "/" in rel}
    assert owners == {"guide": "guide.rst", "guide_2": "notes.md", "guide_3": "guide.md"}
    assert {rel for rel in after if rel.startswith("guide/")} == {rel for rel in before if rel.startswith("guide/")}
    assert not any(uri.startswith("viking://resources/docs/guide/") for uri in added["added"] + added["updated"] + added["removed"])
    stored = {u.removeprefix("viking://resources/docs/") for u in _stored_uris(ov, "viking://resources/docs")}
    assert stored == set(after) | {"guide", "guide_2", "guide_3"}  # guide.md's old sections removed
    assert len(commits(ov_home)) == count + 1


def test_a_folder_too_deep_for_its_summaries_is_refused_before_anything_is_written(ov, tmp_path, store_state):
    # (found as a bug: a folder whose deepest directory was 3,062 bytes got summaries of 3,075
    # bytes, which neither read nor restore accepts)
    from ov.uri import MAX_DIR_BYTES

    root = tmp_path / "deep"
    folder, size = root, len("resources/deep")
    while size + 201 <= MAX_DIR_BYTES:
        folder, size = folder / ("d" * 200), size + 201
    folder = folder / ("e" * (MAX_DIR_BYTES + 4 - size - 1))  # 4 bytes over; its file "n" still fits 3,072
    folder.mkdir(parents=True)
    (folder / "n").write_text("far down\n")
    assert ov("init").exit_code == 0
    before = store_state()
    result = ov("add-resource", str(root), "--json")
    assert result.exit_code == 2, result.stderr
    assert f"is {MAX_DIR_BYTES + 4} bytes long" in result.error["message"]
    assert "summaries" in result.error["hint"] and "nested less deeply" in result.error["hint"]
    assert store_state() == before


def test_a_url_with_escapes_is_named_without_them(ov, web):
    # (found as a bug: stored as viking://resources/caf_C3_A9_20menu)
    _Handler.routes["/caf%C3%A9%20menu.html"] = (200, "text/html", b"<h1>Menu</h1><p>Soup of the day.</p>", 0)
    data = ov("add-resource", f"{web}/caf%C3%A9%20menu.html", "--json").json["result"]
    assert data["root"] == "viking://resources/café_menu"
    assert all(uri.startswith("viking://resources/café_menu/") for uri in data["added"])
    assert "Soup of the day." in ov("read", data["added"][0]).stdout


class _Drip(http.server.BaseHTTPRequestHandler):
    """Sends a page that never ends, one byte every half second until the client goes: each read
    succeeds well within any socket timeout, so only a deadline on the whole download stops it."""

    def do_GET(self):  # noqa: N802 - http.server's naming
        try:
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            # No Content-Length (HTTP/1.0: the body ends when the connection does): a length past
            # ov's size limit would be refused before the download starts.
            self.end_headers()
            while True:
                self.wfile.write(b"x")
                self.wfile.flush()
                time.sleep(0.5)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def log_message(self, *args):
        pass


def test_a_url_that_trickles_fails_after_url_timeout(ov_process, store_state):
    # (found as a bug: url_timeout bounded each read, not the download; a drip ran for ever)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Drip)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        assert ov_process("config", "set", "ingest.url_timeout", "2").exit_code == 0
        assert ov_process("init").exit_code == 0
        before = store_state()
        # The page never ends: an add that returns at all was stopped by its deadline (one that
        # bounded each read would be killed by the 40 s timeout), with no wall-clock bound.
        result = ov_process("add-resource", f"http://127.0.0.1:{server.server_address[1]}/drip.txt", "--json", timeout=40)
    finally:
        server.shutdown()
        server.server_close()
    assert result.exit_code == 1, result.stderr
    error = json.loads(result.stderr)["error"]
    assert error["code"] == "fetch_failed" and "longer than 2s" in error["message"]
    assert store_state() == before


def test_deeply_nested_html_is_converted(ov, tmp_path):
    # (found as a bug: 50,000 nested <div>s ended in "internal error: RecursionError")
    folder = tmp_path / "deep"
    folder.mkdir()
    (folder / "page.html").write_text("<html><body><h1>Deep</h1>" + "<div>" * 50_000 + "the innermost words" + "</div>" * 50_000 + "</body></html>")
    result = ov("add-resource", str(folder), "--json")
    assert result.exit_code == 0, result.stderr
    assert "the innermost words" in ov("read", "viking://resources/deep/page.md").stdout


def test_a_file_whose_name_is_not_utf8_is_skipped_alone(ov, tmp_path):
    # (found as a bug: one such name failed the whole add with UnicodeEncodeError)
    folder = tmp_path / "names"
    folder.mkdir()
    (folder / "ok.md").write_text("# OK\nkept\n")
    try:
        (folder / os.fsdecode(b"caf\xe9.md")).write_text("# Latin-1 name\n")
        (folder / os.fsdecode(b"d\xffir")).mkdir()
    except (OSError, UnicodeError):
        pytest.skip("this file system refuses names that are not UTF-8")
    result = ov("add-resource", str(folder), "--json")
    assert result.exit_code == 0, result.stderr
    data = result.json["result"]
    assert data["added"] == ["viking://resources/names/ok.md"]
    skipped = {s["path"]: s["reason"] for s in data["skipped"]}
    assert skipped == {"caf\\xe9.md": "name is not UTF-8", "d\\xffir/": "name is not UTF-8"}
    human = ov("add-resource", str(folder), "--to", "viking://resources/names2")
    assert human.exit_code == 0 and "skipped caf\\xe9.md: name is not UTF-8" in human.stdout


@pytest.mark.parametrize("where", ["home", "inside", "holding"])
def test_a_source_that_is_or_holds_the_store_is_refused(ov, ov_home, tmp_path, store_state, where):
    # (found as a bug: `ov add-resource $OV_HOME` ingested the store into itself)
    assert ov("write", "viking://resources/notes/a.md", "--content", "# A\nx\n").exit_code == 0
    source = {"home": ov_home, "inside": ov_home / "accounts" / "default" / "resources", "holding": tmp_path}[where]
    before = store_state()
    result = ov("add-resource", str(source), "--json")
    assert result.exit_code == 2, result.stderr
    assert "ov's store" in result.error["message"]
    assert store_state() == before


@pytest.mark.parametrize("source", ["", "  "])
def test_an_empty_source_is_refused_not_read_as_the_working_directory(ov, tmp_path, monkeypatch, store_state, source):
    # (found by an audit: `ov add-resource ""` added the folder it ran in)
    (tmp_path / "here.md").write_text("# Here\n")
    monkeypatch.chdir(tmp_path)
    before = store_state()
    result = ov("add-resource", source, "--json")
    assert result.exit_code == 2 and result.error["message"] == "the source is empty"
    assert store_state() == before


def test_a_folder_kept_beside_the_config_in_ov_home_is_an_ordinary_source(ov, ov_home):
    # The quick start keeps its sample documents under $OV_HOME; only the stores themselves are off limits.
    notes = ov_home / "sample-docs"
    notes.mkdir(parents=True)
    (notes / "guide.md").write_text("# Guide\n\nShip on Tuesdays.\n")
    result = ov("add-resource", str(notes), "--json")
    assert result.exit_code == 0, result.stderr


@pytest.mark.parametrize("option", ["--include", "--exclude"])
def test_a_malformed_pattern_is_refused_without_dulwich_noise(ov_process, handbook, store_state, option):
    # (found as a bug: dulwich logged "Ignoring malformed pattern b'['" and every file was skipped)
    assert ov_process("init").exit_code == 0
    before = store_state()
    result = ov_process("add-resource", str(handbook), option, "[")  # a process: its real stderr
    assert result.exit_code == 2
    # The message names the patterns as both edges do (the MCP tool's argument is `exclude`).
    assert result.stderr.startswith(f"error: invalid {option.removeprefix('--')} pattern '['"), result.stderr
    assert "Ignoring malformed pattern" not in result.stderr
    assert store_state() == before


CJK_LINE = "我们从主分支部署，持续集成必须通过。回滚使用上一个发布标签。\n"


def _straddling(prefix: str, line: str, size: int = 18_000) -> str:
    """Text of about ``size`` bytes in which a multi-byte character straddles byte 8192."""
    text = prefix
    while len(text.encode()) < size:
        text += line
    assert not _decodes(text.encode()[:8192]), "the fixture must cut a character at byte 8192"
    return text


def _decodes(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def test_utf8_text_split_by_the_binary_sniff_is_not_binary(ov, tmp_path):
    # (found as a bug: a CJK file over 8 KiB was skipped as "binary file" when a character
    # straddled byte 8192; so were rich's _spinners.py and _unicode_data/unicode8-0-0.py)
    folder = tmp_path / "cjk"
    folder.mkdir()
    (folder / "guide.md").write_text(_straddling("# 部署指南\n\n", CJK_LINE))
    (folder / "spinners.py").write_text(_straddling("SPINNERS = [\n", '    "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏",\n') + "]\n")
    folder_result = ov("add-resource", str(folder), "--json")
    assert folder_result.exit_code == 0, folder_result.stderr
    data = folder_result.json["result"]
    assert data["skipped"] == []
    assert "viking://resources/cjk/spinners.py" in data["added"]
    assert any(u.startswith("viking://resources/cjk/guide/") for u in data["added"])
    single = ov("add-resource", str(folder / "guide.md"), "--json")
    assert single.exit_code == 0, single.stderr
    assert single.json["result"]["skipped"] == []


def test_a_split_single_file_lands_in_its_root_once(ov, tmp_path, ov_home):
    # (found as a bug: `ov add-resource libtasn1.pdf` gave resources/libtasn1/libtasn1/00_...md)
    doc = tmp_path / "deploy.md"
    doc.write_text("# Deploying\n\n## Pipeline\n" + LONG_SECTION + "\n\n## Rollback\n" + LONG_SECTION + "\n")
    data = ov("add-resource", str(doc), "--json").json["result"]
    assert data["root"] == "viking://resources/deploy"
    assert data["added"] and all(u.count("/") == 4 for u in data["added"]), data["added"]  # viking://resources/deploy/NAME
    assert not any(u.startswith("viking://resources/deploy/deploy") for u in data["added"])
    info = ov("stat", data["added"][0], "--json").json["result"]
    assert info["source"]["uri"] == str(doc)
    again = ov("add-resource", str(doc), "--json").json["result"]
    assert again["commit"] is None and again["unchanged"] == len(data["added"])
    pdf = tmp_path / "manual.pdf"
    pdf.write_bytes(make_pdf([("Introduction", ["Welcome to the manual. " * 200]), ("Security", ["Rotate keys every month. " * 200])]))
    pdf_data = ov("add-resource", str(pdf), "--json").json["result"]
    assert pdf_data["root"] == "viking://resources/manual"
    assert len(pdf_data["added"]) > 1 and not any("/manual/manual" in u for u in pdf_data["added"]), pdf_data["added"]


def test_a_url_without_a_path_is_named_after_host_and_port(ov, web):
    # (found as a bug: http://127.0.0.1:PORT/ landed in resources/127.0.0, the port dropped)
    _Handler.routes["/"] = (200, "text/html", b"<html><body><h1>Home</h1><p>Welcome.</p></body></html>", 0)
    port = web.rsplit(":", 1)[1]
    data = ov("add-resource", f"{web}/", "--json").json["result"]
    assert data["root"] == f"viking://resources/127.0.0.1_{port}"
    assert ov("add-resource", f"{web}/", "--json").json["result"]["commit"] is None


def test_a_large_add_into_a_new_folder_commits_the_tree_built_before_the_lock(ov, ov_home, tmp_path, monkeypatch):
    """The folder's tree is built while planning; under the lock the commit names it in one
    entry. The result is the tree file-by-file building gives, every file in it."""
    from dulwich import object_store

    source = tmp_path / "notes"
    for i in range(120):
        folder = source / f"part{i % 3}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"n{i:03d}.md").write_text(f"# Note {i}\n\nThe deploy window of week {i}.\n")
    assert ov("write", "viking://resources/seed.md", "--content", "seed\n").exit_code == 0
    sizes: list[int] = []  # entries of each commit's tree change (not the folder's, built apart)
    real = object_store.commit_tree_changes
    depth = [0]

    def counting(store, tree, changes):
        if depth[0] == 0 and isinstance(store, object_store.OverlayObjectStore):
            sizes.append(len(changes))
        depth[0] += 1
        try:
            return real(store, tree, changes)
        finally:
            depth[0] -= 1

    monkeypatch.setattr(object_store, "commit_tree_changes", counting)
    assert ov("add-resource", str(source), "--to", "viking://resources/notes").exit_code == 0
    monkeypatch.setattr(object_store, "commit_tree_changes", real)

    account = ov_home / "accounts/default"
    repo = Repo(str(account))
    try:
        head_tree = repo[repo.head()].tree
        in_head = {path.decode(): repo[sha].data for path, _, sha in object_store.iter_tree_contents(repo.object_store, head_tree)}
        # The same files, committed one entry each, make the same tree.
        files = sorted((p, FILE_MODE, repo.object_store[head_tree].lookup_path(repo.__getitem__, p.encode())[1]) for p in in_head)
        rebuilt = real(repo.object_store, Tree(), [(p.encode(), mode, sha) for p, mode, sha in files])
    finally:
        repo.close()
    on_disk = {p.relative_to(account).as_posix(): p.read_bytes() for p in account.rglob("*") if p.is_file() and ".git" not in p.parts}
    assert in_head == on_disk
    assert sum(1 for p in in_head if p.startswith("resources/notes/part") and p.rsplit("/", 1)[1].startswith("n")) == 120
    assert rebuilt == head_tree
    # The commit under the lock: the folder's entry (and the scope's refreshed summaries), not 126.
    assert len(sizes) == 1 and sizes[0] < 10, sizes
    assert ov("status", "--json").json["result"]["clean"] is True


# --- summaries after rm and mv ----------------------------------------------------------


def _summary(ov, command: str, uri: str) -> str:
    result = ov(command, uri)
    assert result.exit_code == 0, result.stderr
    return result.stdout


def test_mv_and_rm_write_the_generated_summaries_they_make_stale_in_the_same_commit(ov, ov_home, handbook):
    # (found by an audit: after `ov mv` and `ov rm` the scope's summary still listed docs/, and
    # `ov find` returned it)
    assert ov("add-resource", str(handbook)).exit_code == 0
    assert "handbook/" in _summary(ov, "abstract", "viking://resources")
    commits = len(ov("snapshot", "log", "--json").json["result"])
    assert ov("mv", "viking://resources/handbook", "viking://resources/manual").exit_code == 0
    scope = _summary(ov, "overview", "viking://resources")
    assert "manual/" in scope and "handbook/" not in scope
    assert _summary(ov, "overview", "viking://resources/manual").startswith("# manual\n")  # it named the old folder
    assert ov("rm", "-r", "viking://resources/manual/ops").exit_code == 0
    manual = _summary(ov, "overview", "viking://resources/manual")
    assert "ops/" not in manual and "README.md" in manual
    assert "ops" not in _summary(ov, "abstract", "viking://resources")
    assert len(ov("snapshot", "log", "--json").json["result"]) == commits + 2  # one commit each
    assert ov("rm", "-r", "viking://resources/manual").exit_code == 0
    assert _summary(ov, "abstract", "viking://resources") == "This directory is empty.\n"
    assert ov("fsck").exit_code == 0


def test_a_summary_written_by_hand_is_kept_by_mv_and_rm(ov, ov_home, handbook, tmp_path):
    assert ov("mkdir", "viking://resources/team", "--description", "Our team's folder, kept by hand.").exit_code == 0
    assert ov("add-resource", str(handbook), "--parent", "viking://resources/team").exit_code == 0
    assert ov("rm", "viking://resources/team/handbook/tool.py").exit_code == 0
    assert _summary(ov, "abstract", "viking://resources/team") == "Our team's folder, kept by hand.\n"
    assert "tool.py" not in _summary(ov, "overview", "viking://resources/team/handbook")
    # A summary edited by hand since its commit is the user's: the rm goes on and leaves it.
    edited = ov_home / "accounts" / "default" / "resources" / "team" / "handbook" / ".overview.md"
    edited.write_text(edited.read_text().replace("# handbook", "# handbook (my notes)"))
    assert ov("rm", "viking://resources/team/handbook/README.md").exit_code == 0
    assert "(my notes)" in edited.read_text() and "README.md" in edited.read_text()


def test_a_summary_changed_with_ov_edit_is_the_users_and_survives_rm(ov, ov_home, handbook):
    # (found by a review: `ov edit` kept `generated_by: ov-ingest`, so the next rm wrote the summary again)
    assert ov("add-resource", str(handbook)).exit_code == 0
    uri = "viking://resources/handbook/.overview.md"
    assert ov("edit", uri, "--old", "# handbook", "--new", "# handbook\n\nMy own note: keep the beta on Friday.").exit_code == 0
    assert ov("rm", "viking://resources/handbook/tool.py").exit_code == 0
    overview = ov("read", uri).stdout
    assert "My own note: keep the beta on Friday." in overview and "trigger: edit" in overview


def test_rm_with_an_llm_configured_writes_summaries_without_asking_it(ov, tmp_path, monkeypatch, llm_server):
    """rm and mv hold the write lock: a model's latency there would stall every other writer."""
    monkeypatch.setenv(API_KEY_ENV, API_KEY)
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "a.md").write_text("# Deploys\nWe deploy on Tuesdays.\n")
    (folder / "b.md").write_text("# Paging\nThe pager rotates weekly.\n")
    assert ov("add-resource", str(folder)).exit_code == 0
    for key, value in [("llm.model", MODEL), ("llm.api_base", llm_server.base_url), ("llm.api_key_env", API_KEY_ENV)]:
        assert ov("config", "set", key, value).exit_code == 0
    assert ov("rm", "viking://resources/notes/b.md").exit_code == 0
    assert llm_server.chat_requests() == []
    overview = ov("overview", "viking://resources/notes").stdout
    assert "a.md" in overview and "b.md" not in overview


def test_rm_of_an_added_folders_last_file_takes_the_folder_with_it(ov, tmp_path):
    folder = tmp_path / "solo"
    folder.mkdir()
    (folder / "only.md").write_text("# Only\nThe one note.\n")
    assert ov("add-resource", str(folder)).exit_code == 0
    assert ov("rm", "viking://resources/solo/only.md").exit_code == 0
    assert ov("ls", "viking://resources", "-a").stdout.splitlines() == ["viking://resources/.abstract.md", "viking://resources/.overview.md"]


def test_secrets_are_redacted_before_anything_is_stored(ov, ov_home, tmp_path):
    """A token in a README would otherwise be committed, summarised into every folder above it,
    packed into backups and injected into prompts."""
    from tests.secrets_corpus import OPENAI

    project = tmp_path / "proj"
    project.mkdir()
    (project / "README.md").write_text(f"# App\n\nSet `OPENAI_API_KEY={OPENAI}` before you run it.\n")
    (project / ".env").write_text("AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE\n")
    out = ov("add-resource", str(project))
    assert out.exit_code == 0 and "1 secret redacted" in out.stdout and "skipped .env: hidden" in out.stdout
    stored = [p for p in (ov_home / "accounts").rglob("*") if p.is_file() and ".git" not in p.parts]
    assert not [p for p in stored if OPENAI in p.read_text(errors="replace")]
    assert "[REDACTED:" in ov("read", "viking://resources/proj/README.md").stdout
    assert ov("add-resource", str(project), "--json").json["result"]["changed"] is False, "the redacted text is what an unchanged source compares with"

    # Documents and code keep what only looks like a secret from the words around it.
    (project / "notes.md").write_text('# Tokens\n\nSet `image_token="<|image|>"` to add a new classification token to GPT-2.\n')
    assert ov("add-resource", str(project)).exit_code == 0
    assert ov("read", "viking://resources/proj/notes.md").stdout.endswith('`image_token="<|image|>"` to add a new classification token to GPT-2.\n')

    # A heading names the file it becomes: redacted before the document is split.
    long = "".join(f"## Part {i}\n\n" + "Words of the part. " * 60 + "\n\n" for i in range(4))
    (project / "guide.md").write_text(f"# Guide\n\n## Token {OPENAI}\n\nKeep it safe.\n\n{long}")
    assert ov("add-resource", str(project)).exit_code == 0
    assert not [p for p in (ov_home / "accounts").rglob("*") if OPENAI in p.name or (p.is_file() and ".git" not in p.parts and OPENAI in p.read_text(errors="replace"))]

    # A hidden file named on purpose is stored where ls and grep show it, and redacted in full
    # (a settings file: PASSWORD=... is a password there).
    (project / ".env").write_text("AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE\nDB_PASSWORD=hunter2-but-longer\n")
    data = ov("add-resource", str(project / ".env"), "--to", "viking://resources/envfile", "--json").json["result"]
    assert data["added"] == ["viking://resources/envfile/_.env"] and data["redacted"] == 2
    assert ov("read", "viking://resources/envfile/_.env").stdout == "AWS_ACCESS_KEY_ID=[REDACTED:aws_access_key_id]\nDB_PASSWORD=[REDACTED:assigned_secret]\n"

    # YAML, JSON and TOML hold settings too (a docker-compose.yml kept POSTGRES_PASSWORD); a schema's
    # field named password is no secret.
    compose = project / "deploy"
    compose.mkdir()
    (compose / "docker-compose.yml").write_text("services:\n  db:\n    environment:\n      POSTGRES_PASSWORD: Xk9mPq2vLr8sTw4z\n")
    (compose / "settings.json").write_text('{"api_key": "q8Zr2LmT5vXw9KpB3nYc", "retries": 3}\n')
    (compose / "schema.yaml").write_text("properties:\n  password: {type: string}\n")
    data = ov("add-resource", str(compose), "--to", "viking://resources/deploy", "--json").json["result"]
    assert data["redacted"] == 2, data
    assert "POSTGRES_PASSWORD: [REDACTED:assigned_secret]" in ov("read", "viking://resources/deploy/docker-compose.yml").stdout
    assert ov("read", "viking://resources/deploy/settings.json").stdout == '{"api_key": "[REDACTED:assigned_secret]", "retries": 3}\n'
    assert ov("read", "viking://resources/deploy/schema.yaml").stdout == "properties:\n  password: {type: string}\n"

    # A PDF's outline titles name its parts too: its text is redacted as it is extracted, before the split.
    pdf = tmp_path / "handover.pdf"
    pdf.write_bytes(make_pdf([(f"Token {OPENAI}", ["Keep the token safe. " * 200]), ("Rotation", [f"Rotate {OPENAI} monthly. " + "Then check the logs. " * 200])]))
    data = ov("add-resource", str(pdf), "--json").json["result"]
    assert len(data["added"]) > 1 and data["redacted"] == 2, data  # the outline title and the second page
    assert not [p for p in (ov_home / "accounts").rglob("*") if OPENAI in p.name or (p.is_file() and ".git" not in p.parts and OPENAI in p.read_text(errors="replace"))]
    assert any("REDACTED" in uri for uri in data["added"]), data["added"]
    # A control character inside a token hid it from the redaction, and was stripped afterwards.
    for i, mark in enumerate(["\x01", "\x81"]):  # a C0 and a C1 control character
        hidden = tmp_path / f"hidden{i}.pdf"
        hidden.write_bytes(make_pdf([(f"key AKIAIOSFODN{mark}N7EXAMPLE", [f"aws key AKIAIOSFODN{mark}N7EXAMPLE here"])]))
        assert ov("add-resource", str(hidden), "--json").json["result"]["redacted"] == 2, repr(mark)
        assert ov("grep", "AKIAIOSFODN", "--uri", f"viking://resources/hidden{i}").exit_code == 1, repr(mark)


@pytest.mark.parametrize(
    ("name", "stored", "text", "redacted"),
    [
        (".env.production", "_.env.production", "DATABASE_PASSWORD=Zx9pQ2rT7v\n", "DATABASE_PASSWORD=[REDACTED:assigned_secret]\n"),
        (".env.local", "_.env.local", "DATABASE_PASSWORD=hunter\n", "DATABASE_PASSWORD=[REDACTED:assigned_secret]\n"),
        (".envrc", "_.envrc", "export DB_PASSWORD=hunter\n", "export DB_PASSWORD=[REDACTED:assigned_secret]\n"),
        (
            "terraform.tfstate",
            "terraform.tfstate",
            '{"attributes": {"password": "hunter22"}}\n',
            '{"attributes": {"password": "[REDACTED:assigned_secret]"}}\n',
        ),
    ],
)
def test_a_settings_file_added_on_its_own_is_redacted_in_full(ov, tmp_path, name, stored, text, redacted):
    # The stored name is shown (`_.env.production`); whether a file holds settings is judged by
    # the name it has on disk.
    (tmp_path / name).write_text(text)
    data = ov("add-resource", str(tmp_path / name), "--to", "viking://resources/prod", "--json").json["result"]
    assert data["added"] == [f"viking://resources/prod/{stored}"] and data["redacted"] == 1
    assert ov("read", f"viking://resources/prod/{stored}").stdout == redacted


def test_code_named_env_is_not_a_settings_file(ov, tmp_path):
    # alembic's env.py: only secrets known by their shape are redacted in code.
    (tmp_path / "env.py").write_text('password = "hunter"\n')
    data = ov("add-resource", str(tmp_path / "env.py"), "--to", "viking://resources/code", "--json").json["result"]
    assert data["redacted"] == 0 and ov("read", "viking://resources/code/env.py").stdout == 'password = "hunter"\n'


def test_a_first_add_that_fails_leaves_no_account_behind(ov, ov_home, tmp_path):
    """add-resource makes the repository before it plans without the lock; failing after that,
    it left a mistyped account that every later read found empty instead of refusing."""
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "a.md").write_text("# A\n\nalpha\n")
    assert ov("remember", "I like tea").exit_code == 0
    failed = ov("add-resource", str(folder), "--account", "t4", "--to", "viking://resources")
    assert failed.exit_code == 2 and "scope" in failed.stderr
    assert sorted(p.name for p in (ov_home / "accounts").iterdir()) == ["default"]
    assert ov("ls", "--account", "t4").exit_code == 1  # still refused as a typo
    assert ov("add-resource", str(folder), "--account", "t4").exit_code == 0  # a first add that works makes it


def test_a_reason_is_kept_when_the_source_is_added_again_without_one(ov, ov_home, handbook):
    assert ov("add-resource", str(handbook), "--reason", "Everything new engineers must read.").exit_code == 0
    (handbook / "ops" / "oncall.txt").write_text("Pager rotation: daily now.\n")
    assert ov("add-resource", str(handbook)).exit_code == 0
    assert ov("abstract", "viking://resources/handbook").stdout.strip() == "Everything new engineers must read."
    head = commits(ov_home)[0].id
    again = ov("add-resource", str(handbook), "--json").json["result"]
    assert again["changed"] is False and commits(ov_home)[0].id == head


def test_a_plan_made_again_under_the_lock_counts_each_file_once(ov, handbook, monkeypatch):
    """Another writer changed what the first plan read, so it is planned again under the lock."""
    from ov.store.store import Draft

    monkeypatch.setattr(Draft, "still_holds", lambda self, tx, *scopes: False)
    data = ov("add-resource", str(handbook), "--json").json["result"]
    assert data["added"] and len(data["added"]) == len(set(data["added"])), "the second plan's files were added to the first's"


# --- names in another Unicode normal form --------------------------------------------------

NFC_CAFE, NFD_CAFE = "caf\u00e9", "cafe\u0301"  # é as one character; e and a combining accent (macOS)


def _stored_names(ov_home: Path, folder: str) -> list[str]:
    return sorted(p.name for p in (ov_home / "accounts/default/resources" / folder).iterdir() if not p.name.startswith("."))


def test_a_folder_from_macos_is_stored_under_nfc_names_and_a_look_alike_pair_is_numbered(ov, ov_home, tmp_path):
    """Names came in as on disk: a decomposed café.txt beside a composed one were two files that
    looked the same, a typed URI reached only one, and their export could not be imported."""
    folder = tmp_path / "cv"
    (folder / NFD_CAFE).mkdir(parents=True)
    (folder / f"{NFC_CAFE}.txt").write_text("composed\n")
    (folder / f"{NFD_CAFE}.txt").write_text("decomposed\n")
    (folder / NFD_CAFE / "menu.txt").write_text("espresso\n")
    data = ov("add-resource", str(folder), "--json").json["result"]
    # The decomposed name sorts first, so it keeps the name; the other one is numbered.
    assert sorted(data["added"]) == [f"viking://resources/cv/{NFC_CAFE}.txt", f"viking://resources/cv/{NFC_CAFE}/menu.txt", f"viking://resources/cv/{NFC_CAFE}_2.txt"]
    assert _stored_names(ov_home, "cv") == [NFC_CAFE, f"{NFC_CAFE}.txt", f"{NFC_CAFE}_2.txt"]
    assert ov("read", f"viking://resources/cv/{NFD_CAFE}.txt").stdout == "decomposed\n"
    assert ov("read", f"viking://resources/cv/{NFC_CAFE}_2.txt").stdout == "composed\n"
    pack = tmp_path / "cv.ovpack"
    assert ov("export", "viking://resources/cv", str(pack)).exit_code == 0
    assert ov("import", str(pack), "viking://resources/team").exit_code == 0
    again = ov("add-resource", str(folder), "--json").json["result"]
    assert again["changed"] is False and again["unchanged"] == 3


def test_readding_a_decomposed_source_finds_the_nfc_file_an_import_made(ov, ov_home, tmp_path, monkeypatch):
    folder = tmp_path / "src9"
    folder.mkdir()
    (folder / f"{NFD_CAFE}.txt").write_text("menu\n")
    assert ov("add-resource", str(folder)).exit_code == 0
    pack = tmp_path / "src9.ovpack"
    assert ov("export", "viking://resources/src9", str(pack)).exit_code == 0
    monkeypatch.setenv("OV_HOME", str(tmp_path / "other-home"))
    assert ov("import", str(pack), "viking://resources").exit_code == 0
    again = ov("add-resource", str(folder), "--json").json["result"]
    assert again["changed"] is False and again["added"] == []
    assert sorted(p.name for p in (tmp_path / "other-home/accounts/default/resources/src9").iterdir() if not p.name.startswith(".")) == [f"{NFC_CAFE}.txt"]


def test_readding_over_a_name_an_older_ov_stored_decomposed_renames_it_in_one_commit(ov, ov_home, tmp_path):
    folder = tmp_path / "menu"
    folder.mkdir()
    (folder / f"{NFD_CAFE}.txt").write_text("espresso\n")
    assert ov("add-resource", str(folder)).exit_code == 0
    # What an older ov made of it: the file and its manifest entry under the decomposed name.
    root = ov_home / "accounts/default/resources/menu"
    (root / f"{NFC_CAFE}.txt").rename(root / f"{NFD_CAFE}.txt")
    manifest = json.loads((root / ".sources.json").read_text())
    manifest["files"] = {f"{NFD_CAFE}.txt": manifest["files"][f"{NFC_CAFE}.txt"]}
    (root / ".sources.json").write_text(json.dumps(manifest))
    assert ov("snapshot", "commit", "-m", "as an older ov stored it").exit_code == 0
    head = commits(ov_home)[0].id
    data = ov("add-resource", str(folder), "--json").json["result"]
    assert data["added"] == [f"viking://resources/menu/{NFC_CAFE}.txt"] and data["removed"] == [f"viking://resources/menu/{NFD_CAFE}.txt"]
    assert commits(ov_home)[1].id == head  # one commit
    assert _stored_names(ov_home, "menu") == [f"{NFC_CAFE}.txt"]
    assert ov("status", "--json").json["result"]["clean"]


def test_a_skill_from_macos_is_stored_under_nfc_names(ov, ov_home, tmp_path):
    folder = _skill(tmp_path, "---\nname: menu\ndescription: Read the menu.\n---", {f"{NFD_CAFE}.txt": "espresso\n", f"{NFC_CAFE}.txt": "latte\n"})
    data = ov("add-skill", str(folder), "--json").json["result"]
    assert data["files"] == ["viking://agent/skills/menu/SKILL.md", f"viking://agent/skills/menu/{NFC_CAFE}.txt", f"viking://agent/skills/menu/{NFC_CAFE}_2.txt"]
    stored = ov_home / "accounts/default/agent/skills/menu"
    assert sorted(p.name for p in stored.iterdir() if not p.name.startswith(".")) == ["SKILL.md", f"{NFC_CAFE}.txt", f"{NFC_CAFE}_2.txt"]
    assert ov("add-skill", str(folder), "--json").json["result"]["changed"] is False


def test_adding_a_folder_again_replaces_a_name_git_reserves_that_an_older_version_stored(ov, ov_home, tmp_path):
    # (an upgrade audit: ov at 5b929ee's time stored "git~1" as it was; adding the folder again
    # added "git_1" beside it and left "git~1" in every later commit)
    from dulwich.repo import Repo

    from tests.hostile_trees import FILE, add_commit

    root = tmp_path / "src"
    root.mkdir()
    (root / "a.md").write_text("# A\n\nalpha\n")
    assert ov("add-resource", str(root)).exit_code == 0
    repo = ov_home / "accounts" / "default"
    manifest = repo / "resources" / "src" / ".sources.json"
    data = json.loads(manifest.read_text())
    data["files"]["git~1"] = dict(data["files"]["a.md"], title="git~1", uri=str(root / "git~1"))
    older = json.dumps(data, indent=2, sort_keys=True).encode()
    add_commit(repo, {(b"resources", b"src", b"git~1"): (FILE, b"tilde\n"), (b"resources", b"src", b".sources.json"): (FILE, older)})
    manifest.write_bytes(older)  # the work tree as the older version left it
    (repo / "resources" / "src" / "git~1").write_text("tilde\n")
    (root / "git~1").write_text("tilde\n")
    result = ov("add-resource", str(root), "--json")
    assert result.exit_code == 0, result.stderr
    assert result.json["result"]["removed"] == ["viking://resources/src/git~1"]
    with Repo(str(repo)) as r:
        tree = r[r[r.head()].tree]
        src = r[r[tree[b"resources"][1]][b"src"][1]]
        assert b"git_1" in src and b"git~1" not in src
    assert ov("fsck").exit_code == 0


def test_adding_a_host_only_url_again_updates_the_folder_an_older_version_named_otherwise(ov, web):
    # (an upgrade audit: an older ov named http://localhost:8766/'s folder "localhost"; adding the
    # URL again made a second copy in "localhost_8766", found twice by every search)
    _Handler.routes["/"] = (200, "text/html", b"<html><body><h1>Gizmo</h1><p>The gizmo spins at 300 rpm.</p></body></html>", 0)
    first = ov("add-resource", f"{web}/", "--json").json["result"]["root"]
    host = web.removeprefix("http://").split(":")[0]
    assert first == f"viking://resources/{host}_{web.rsplit(':', 1)[1]}"
    assert ov("mv", first, f"viking://resources/{host}").exit_code == 0  # where the older version put it
    again = ov("add-resource", f"{web}/", "--json")
    assert again.exit_code == 0, again.stderr
    assert again.json["result"]["root"] == f"viking://resources/{host}"
    assert [e["uri"] for e in ov("ls", "viking://resources", "--json").json["result"]] == [f"viking://resources/{host}"]
    # another URL of the same host still gets a folder of its own
    _Handler.routes["/other/"] = (200, "text/html", b"<p>other</p>", 0)
    assert ov("add-resource", f"{web}/other/", "--json").json["result"]["root"] == "viking://resources/other"


def test_a_folder_added_again_by_another_spelling_of_its_path_is_the_same_source(ov, ov_home, tmp_path, monkeypatch):
    """`..`, a relative path, a linked folder above it: one folder, one source, updated when added
    again from another folder or shell (a cron job names it absolutely), never refused as another's."""
    import subprocess

    docs = tmp_path / "real" / "src" / "docs"
    docs.mkdir(parents=True)
    (docs / "a.md").write_text("hello\n")
    (tmp_path / "real" / "other").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    monkeypatch.chdir(tmp_path / "real" / "other")
    assert ov("add-resource", "../src/docs").exit_code == 0
    assert ov("stat", "viking://resources/docs/a.md", "--json").json["result"]["source"]["uri"] == str(docs / "a.md")
    spellings = [(tmp_path / "real" / "src", str(docs)), (tmp_path / "link" / "src", "docs"), (tmp_path, str(tmp_path / "link" / "src" / "docs"))]
    for n, (cwd, spelling) in enumerate(spellings):
        (docs / "a.md").write_text(f"changed {n}\n")
        monkeypatch.chdir(cwd)
        result = ov("add-resource", spelling, "--json")
        assert result.exit_code == 0, (spelling, result.stderr)
        assert result.json["result"]["updated"] == ["viking://resources/docs/a.md"]
    # What an older version recorded: the path as given, `..` and all. Adding it again updates it.
    repo = ov_home / "accounts" / "default"
    manifest = repo / "resources" / "docs" / ".sources.json"
    data = json.loads(manifest.read_text())
    data["source"]["uri"] = str(tmp_path / "real" / "other" / ".." / "src" / "docs")
    manifest.write_text(json.dumps(data, indent=2, sort_keys=True))
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.com"]
    subprocess.run([*git, "commit", "-q", "-am", "as an older version recorded it"], check=True)
    (docs / "a.md").write_text("changed again\n")
    result = ov("add-resource", str(docs), "--json")
    assert result.exit_code == 0, result.stderr
    assert result.json["result"]["updated"] == ["viking://resources/docs/a.md"]


def test_a_source_whose_linked_folder_moved_is_refused_naming_where_it_was_added_from(ov, ov_home, tmp_path):
    """A source is recorded by its real path: a linked folder above it that now leads elsewhere
    (the disk moved, the link pointed again) is another source; the refusal says which one the
    stored folder came from and that it is gone, so that replacing it is one `ov rm -r` away."""
    (tmp_path / "disk1/proj/docs").mkdir(parents=True)
    (tmp_path / "disk1/proj/docs/a.md").write_text("hello\n")
    link = tmp_path / "proj"
    link.symlink_to(tmp_path / "disk1/proj")
    assert ov("add-resource", str(link / "docs")).exit_code == 0
    (tmp_path / "disk2").mkdir()
    (tmp_path / "disk1/proj").rename(tmp_path / "disk2/proj")
    link.unlink()
    link.symlink_to(tmp_path / "disk2/proj")
    result = ov("add-resource", str(link / "docs"), "--json")
    assert (result.exit_code, result.error["code"]) == (1, "already_exists")
    assert str(tmp_path / "disk1/proj/docs") in result.error["message"]
    assert "no longer exists" in result.error["hint"] and "`ov rm viking://resources/docs --recursive`" in result.error["hint"]
    assert ov("rm", "-r", "viking://resources/docs").exit_code == 0
    assert ov("add-resource", str(link / "docs")).exit_code == 0


def test_a_random_looking_password_assignment_is_redacted_in_any_file(ov, ov_home, tmp_path):
    # (found by an ingest audit: only settings-file names got the assignment rule, and the README's
    # line became the folder's L0)
    project = tmp_path / "proj"
    project.mkdir()
    secrets = "DB_PASSWORD=Xk9mPq2vLr8sTw4zQ\nAPI_SECRET=9f8e7d6c5b4a39281706f5e4d3c2b1a0\n"
    (project / "secrets.txt").write_text(secrets)
    (project / "env.local").write_text(secrets)
    (project / "deploy.sh").write_text("#!/bin/sh\nexport DB_PASSWORD=Xk9mPq2vLr8sTw4zQ\n./run\n")
    (project / "README.md").write_text("# Deploy\n\nUse `export DB_PASSWORD=Xk9mPq2vLr8sTw4zQ` then run.\n")
    (project / "app.py").write_text('password = request.form["password"]\nEXAMPLE_PASSWORD = "hunter2"\n')
    data = ov("add-resource", str(project), "--json").json["result"]
    assert data["redacted"] == 6, data
    files = [p for p in (ov_home / "accounts").rglob("*") if p.is_file() and ".git" not in p.parts]
    assert not [p for p in files if "Xk9mPq2vLr8sTw4zQ" in p.read_text(errors="replace") or "9f8e7d6c5b4a39281706f5e4d3c2b1a0" in p.read_text(errors="replace")]
    assert ov("read", "viking://resources/proj/README.md").stdout.endswith("Use `export DB_PASSWORD=[REDACTED:assigned_secret]` then run.\n")
    assert ov("read", "viking://resources/proj/app.py").stdout == 'password = request.form["password"]\nEXAMPLE_PASSWORD = "hunter2"\n'


def test_status_walks_heads_tree_once(ov, monkeypatch):
    # An audit (scale, finding 6): `ov status` walked HEAD's tree a second time to find notebooks
    # stored as JSON, a third of a 1.5 s status at 16,000 files.
    from ov.store.gitstore import GitStore

    notebook = {"cells": [{"cell_type": "markdown", "metadata": {}, "source": ["# Churn"]}], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    assert ov("write", "viking://resources/nbs/churn.ipynb", "--content", json.dumps(notebook)).exit_code == 0
    for i in range(5):
        assert ov("write", f"viking://resources/docs/d{i}.md", "--content", f"# doc {i}").exit_code == 0
    walked = []
    entries = GitStore.iter_entries

    def counted(self, tree_id, prefix=""):
        for entry in entries(self, tree_id, prefix):
            walked.append(entry[0])
            yield entry

    monkeypatch.setattr(GitStore, "iter_entries", counted)
    result = ov("status", "--json").json["result"]
    assert result["notebooks_as_json"] == ["viking://resources/nbs/churn.ipynb"]
    assert len(walked) == len(set(walked)) and "resources/docs/d0.md" in walked


def test_fsck_names_a_notebook_an_older_ov_stored_as_json_with_the_add_that_converts_it(ov, ov_home, tmp_path):
    """(found by a review) A notebook added before notebooks were stored as Markdown stays JSON,
    searched and shown as such: fsck says so with the command that converts it, and changes nothing."""
    notebook = {"cells": [{"cell_type": "markdown", "metadata": {}, "source": ["# Churn\n", "Why users leave."]}], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    source = tmp_path / "src" / "nbs"
    source.mkdir(parents=True)
    (source / "churn.ipynb").write_text(json.dumps(notebook))
    assert ov("add-resource", str(source)).exit_code == 0
    # The folder as an older ov wrote it: the notebook's JSON under its own name.
    folder = ov_home / "accounts/default/resources/nbs"
    (folder / "churn.md").unlink()
    (folder / "churn.ipynb").write_text(json.dumps(notebook))
    manifest = json.loads((folder / ".sources.json").read_text())
    manifest["files"] = {"churn.ipynb": {k: v for k, v in manifest["files"]["churn.md"].items() if k != "blob"}}  # an older ov named no blob
    (folder / ".sources.json").write_text(json.dumps(manifest))
    assert ov("snapshot", "commit", "-m", "an older ov's add").exit_code == 0
    assert ov("write", "viking://resources/loose.ipynb", "--content", json.dumps(notebook)).exit_code == 0
    assert ov("write", "viking://resources/data.ipynb", "--content", '{"rows": [1, 2]}').exit_code == 0  # JSON, no notebook
    head = ov("snapshot", "log", "-n", "1", "--json").json["result"][0]["commit"]
    (note,) = [f for f in ov("fsck", "--json").json["result"]["findings"] if "notebook" in f["message"]]
    assert note["severity"] == "note" and "2 notebooks stored as JSON" in note["message"]
    assert "'resources/loose.ipynb', 'resources/nbs/churn.ipynb'" in note["message"] and "data.ipynb" not in note["message"]
    assert f"`ov add-resource {source}`" in note["fix"] and "`ov rm` the JSON copy" in note["fix"]
    assert ov("snapshot", "log", "-n", "1", "--json").json["result"][0]["commit"] == head  # nothing rewritten
    # `ov status` says so in one line, pointing to fsck (found by a review: only fsck named them).
    status = ov("status")
    assert "note: 2 notebooks stored as JSON by an older ov" in status.stdout and "`ov fsck`" in status.stdout
    assert ov("status", "--json").json["result"]["notebooks_as_json"] == ["viking://resources/loose.ipynb", "viking://resources/nbs/churn.ipynb"]
    assert ov("add-resource", str(source)).exit_code == 0
    assert ov("rm", "viking://resources/loose.ipynb").exit_code == 0
    assert not [f for f in ov("fsck", "--json").json["result"]["findings"] if "notebook" in f["message"]]
    assert "stored as JSON" not in ov("status").stdout and ov("status", "--json").json["result"]["notebooks_as_json"] == []
    assert ov("read", "viking://resources/nbs/churn.md").stdout.startswith("# Churn")


def _project(folder: Path) -> Path:
    """A folder of 12 files to add (3 of them a lockfile, a hidden file and a large one, skipped)."""
    for name in ("docs/a.md", "docs/b.md", "docs/c.md", "docs/d.md", "docs/e.md", "src/x.py", "src/y.py", "src/z.py", "README.md"):
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(f"# {name}\n{name} says something.\n")
    (folder / "uv.lock").write_text("lock\n")
    (folder / ".env").write_text("X=1\n")
    (folder / "big.md").write_text("# Big\n" + "x" * 5000 + "\n")  # past ingest.max_source_bytes: counts for nothing
    return folder


def test_a_folder_of_more_files_than_the_limit_is_refused_before_anything_is_written(ov, tmp_path, store_state):
    # (found by an audit: `add_resource /usr/share` read 665 MB and ran nine minutes, every other
    # write of the MCP server waiting behind it)
    folder = _project(tmp_path / "project")
    assert ov("config", "set", "ingest.max_source_bytes", "1000").exit_code == 0
    assert ov("config", "set", "ingest.max_source_files", "8").exit_code == 0
    before = store_state()
    refused = ov("add-resource", str(folder), "--json")
    assert refused.exit_code == 2 and refused.error["code"] == "source_too_large"
    assert refused.error["message"] == (
        f"{folder} holds 9 files (336 bytes) to add, more than ingest.max_source_files (8 files) allows; the most in docs/ (5), src/ (3): nothing was added"
    )
    hint = refused.error["hint"]
    assert "add one of its subfolders, or leave parts out with --exclude" in hint and "`ov config set ingest.max_source_files N`" in hint
    assert "--include picks the files to add, --no-limit adds it as it is" in hint
    assert store_state() == before
    # What the hint says works: a subfolder, an --exclude, the override.
    assert ov("add-resource", str(folder / "docs")).exit_code == 0
    assert ov("add-resource", str(folder), "--exclude", "docs/", "--to", "viking://resources/code").exit_code == 0
    added = ov("add-resource", str(folder), "--to", "viking://resources/all", "--no-limit", "--json").json["result"]
    assert len(added["added"]) == 9


def test_a_folder_of_more_bytes_than_the_limit_is_refused(ov, tmp_path):
    folder = _project(tmp_path / "project")
    assert ov("config", "set", "ingest.max_source_total_bytes", "200").exit_code == 0
    refused = ov("add-resource", str(folder), "--json")
    assert refused.exit_code == 2 and "holds 10 files (5,343 bytes) to add, more than ingest.max_source_total_bytes (200 bytes) allows" in refused.error["message"]
    assert "`ov config set ingest.max_source_total_bytes N`" in refused.error["hint"]


def test_an_add_can_be_stopped_while_it_gathers_a_folders_files(ov, ov_home, tmp_path):
    """(found by an audit: gathering a folder's 10,000 files took seconds in which an MCP server's
    cancellation or stop was not asked: the first question came at parsing, after them all) The
    walk tells its progress of each name, so a callback that raises stops it there, before any
    file after it is read; nothing is written."""
    from ov.config import load_config
    from ov.errors import Interrupted
    from ov.home import Home
    from ov.identity import Identity
    from ov.ingest.resource import add_resource
    from ov.store.store import Store

    folder = tmp_path / "notes"
    for d in range(3):
        (folder / f"d{d}").mkdir(parents=True)
        for i in range(5):
            (folder / f"d{d}" / f"n{i}.md").write_text(f"note {d}-{i}\n")
    assert ov("init").exit_code == 0
    head = ov("snapshot", "log", "--json").json["result"]
    store = Store(Home.from_env(), Identity(), load_config(Home.from_env()).config)
    told: list[tuple[str, int, int | None]] = []

    def progress(stage: str, done: int, total: int | None) -> None:
        told.append((stage, done, total))
        if stage == "gather" and done == 7:
            raise Interrupted("stopped")

    with pytest.raises(Interrupted):
        add_resource(store, str(folder), progress=progress)
    assert told == [("gather", done, None) for done in range(8)]  # one step a name, stopped at the eighth
    assert ov("snapshot", "log", "--json").json["result"] == head
    told.clear()
    result = add_resource(store, str(folder), progress=lambda *step: told.append(step))
    assert len(result.added) == 15 and [s for s in told if s[0] == "gather"][-1] == ("gather", 14, None)
