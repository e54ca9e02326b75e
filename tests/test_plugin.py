"""`ov plugin build`: the package conforms to Agent Plugins 1.0 and starts ov.

:func:`conformance_problems` implements every check of OpenViking's
``agent-plugins/plugin.test.mjs`` (items 1-6 of the list in the verified notes) and the
spec's own rules (``spec/1.0.0.md`` and the two 1.0.0 schemas), each named by where it comes
from. OpenViking's item 7 (the relative imports of its vendored ``servers/mcp-proxy.mjs``
exist) is specific to their Node proxy: ov ships no Node code, and the ``.mjs`` check below
would catch a broken one. Each rule is also shown to catch the fault it is there for, on a
package broken on purpose.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from collections.abc import Callable
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import yaml

from ov.mcp import plugin
from ov.mcp.tools import TOOLS

REPO = Path(__file__).resolve().parents[1]
OV = Path(sys.executable).parent / "ov"

SPEC = "1.0.0"
PLUGIN_SCHEMA = f"https://agent-plugins.org/schemas/{SPEC}/plugin.schema.json"
MCP_SCHEMA = f"https://agent-plugins.org/schemas/{SPEC}/mcp.schema.json"
SCHEMA_VERSION = re.compile(r"^https://agent-plugins\.org/schemas/(\d+\.\d+\.\d+)/(plugin|mcp)\.schema\.json$")
PLUGIN_KEYS = {"$schema", "name", "version", "description", "author", "homepage", "repository", "license", "keywords", "extensions"}
AUTHOR_KEYS = {"name", "email", "url"}
# plugin.schema.json's name pattern, and OpenViking's (which also caps the length at 64).
SPEC_NAME = re.compile(r"^(?!.*(?:--|\.\.))[a-z0-9](?:[a-z0-9.-]*[a-z0-9])?$")
OV_TEST_NAME = re.compile(r"^[a-z0-9](?:[a-z0-9]|[-.](?=[a-z0-9])){0,63}$")
# Agent Skills: a skill's name is lowercase letters, digits and single hyphens, at most 64.
SKILL_NAME = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
SEMVER = re.compile(
    r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?"
    r"(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$"
)
REVERSE_DOMAIN = re.compile(r"^[a-z0-9-]+(?:\.[a-z0-9-]+)+$")
STDIO_KEYS = {"type", "command", "args", "env", "cwd"}
HTTP_KEYS = {"type", "url", "headers"}
CWD = re.compile(r"^(?:\./|\$\{PLUGIN_ROOT\}(?:/|$)|\$\{PLUGIN_DATA\}(?:/|$))")
SECRET_NAME = re.compile(r"authorization|api[-_]?key|token|secret|cookie|passw(or)?d|credential", re.IGNORECASE)
SECRET_VALUE = re.compile(r"(?:sk|pk|rk)-[A-Za-z0-9_-]{16,}|gh[pousr]_[A-Za-z0-9]{20,}|AKIA[0-9A-Z]{16}|xox[abposr]-|-----BEGIN [A-Z ]*PRIVATE KEY|^Bearer\s")
PLACEHOLDER = re.compile(r"\$\{(PLUGIN_ROOT|PLUGIN_DATA)\}")
MD_LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")


def _inside(root: Path, path: Path) -> bool:
    """``path`` is inside ``root`` once every symlink is resolved."""
    return path.resolve().is_relative_to(root.resolve())


def conformance_problems(root: Path) -> list[str]:
    """Every way the package at ``root`` breaks Agent Plugins 1.0 or OpenViking's plugin test."""
    problems: list[str] = []
    add = problems.append

    # --- plugin.json: spec §5 and plugin.schema.json; OpenViking's item 1 ------------------
    try:
        manifest = json.loads((root / "plugin.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        return [f"plugin.json: unreadable: {exc}"]
    if not isinstance(manifest, dict):
        return ["plugin.json: the root is not an object"]
    if manifest.get("$schema") != PLUGIN_SCHEMA:
        add(f"plugin.json: $schema is {manifest.get('$schema')!r}, not {PLUGIN_SCHEMA}")
    if extra := set(manifest) - PLUGIN_KEYS:
        add(f"plugin.json: keys the 1.0 schema does not allow: {sorted(extra)}")
    name = manifest.get("name")
    if not isinstance(name, str) or not 1 <= len(name) <= 64:
        add(f"plugin.json: name must be a string of 1-64 characters, not {name!r}")
    elif not SPEC_NAME.match(name) or not OV_TEST_NAME.match(name) or "--" in name or ".." in name:
        add(f"plugin.json: name {name!r} does not match the name pattern")
    if "version" in manifest and not (isinstance(manifest["version"], str) and SEMVER.match(manifest["version"])):
        add(f"plugin.json: version {manifest['version']!r} is not semver (OpenViking's check)")
    for key in ("description", "license"):  # required by OpenViking's test, optional in the spec
        if not isinstance(manifest.get(key), str):
            add(f"plugin.json: {key} must be a string")
    for key in ("homepage", "repository"):
        if key in manifest and not isinstance(manifest[key], str):
            add(f"plugin.json: {key} must be a string")
    if "author" in manifest:
        author = manifest["author"]
        if not isinstance(author, dict) or set(author) - AUTHOR_KEYS or not all(isinstance(v, str) for v in author.values()):
            add(f"plugin.json: author must be an object of strings with only {sorted(AUTHOR_KEYS)}: {author!r}")
        elif not isinstance(author.get("name"), str):
            add("plugin.json: author.name must be a string")
    if "keywords" in manifest:
        keywords = manifest["keywords"]
        if not isinstance(keywords, list) or not all(isinstance(k, str) for k in keywords):
            add(f"plugin.json: keywords must be an array of strings: {keywords!r}")
    if "extensions" in manifest:
        extensions = manifest["extensions"]
        if not isinstance(extensions, dict) or not all(REVERSE_DOMAIN.match(k) and isinstance(v, dict) for k, v in extensions.items()):
            add(f"plugin.json: extensions must map reverse-domain names to objects: {extensions!r}")

    # --- mcp.json: spec §7 and mcp.schema.json; OpenViking's items 2 and 3 ---------------
    if (root / "mcp.json").exists():
        problems += _mcp_problems(root, manifest)

    # --- skills/: spec §6 and Agent Skills; OpenViking's items 4 and 5 --------------------
    skills = root / "skills"
    if skills.exists():
        for folder in sorted(skills.iterdir()):
            problems += _skill_problems(root, folder)

    # --- OpenViking's item 6: every .mjs file parses ---------------------------------------
    node = shutil.which("node")
    for script in sorted(root.rglob("*.mjs")):
        if node is None:
            continue  # the rule holds where node is installed; CI has it (the hosts need it)
        check = subprocess.run([node, "--check", str(script)], capture_output=True, text=True, timeout=60)
        if check.returncode != 0:
            add(f"{script.relative_to(root)}: node --check fails: {check.stderr.strip()[:300]}")
    return problems


def _mcp_problems(root: Path, manifest: dict) -> list[str]:
    problems: list[str] = []
    add = problems.append
    try:
        config = json.loads((root / "mcp.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        return [f"mcp.json: unreadable: {exc}"]
    if not isinstance(config, dict):
        return ["mcp.json: the root is not an object"]
    if config.get("$schema") != MCP_SCHEMA:
        add(f"mcp.json: $schema is {config.get('$schema')!r}, not {MCP_SCHEMA}")
    versions = {what: SCHEMA_VERSION.match(str(data.get("$schema"))) for what, data in (("plugin", manifest), ("mcp", config))}
    if not all(versions.values()) or versions["plugin"].group(1) != versions["mcp"].group(1):
        add("mcp.json: its $schema's spec version differs from plugin.json's")
    if set(config) != {"$schema", "mcpServers"}:
        add(f"mcp.json: the root keys must be exactly $schema and mcpServers, not {sorted(config)}")
    servers = config.get("mcpServers")
    if not isinstance(servers, dict) or not servers:
        return [*problems, "mcp.json: mcpServers must be a non-empty object"]
    for server_name, server in servers.items():
        where = f"mcp.json: server {server_name!r}"
        if not isinstance(server, dict):
            add(f"{where}: not an object")
            continue
        kind = server.get("type")
        if kind in ("streamable-http", "sse"):
            problems += _http_problems(where, server)
        elif kind == "stdio":
            problems += _stdio_problems(root, where, server)
        else:
            add(f"{where}: type must be stdio, streamable-http or sse, not {kind!r}")
    return problems


def _http_problems(where: str, server: dict) -> list[str]:
    problems: list[str] = []
    if extra := set(server) - HTTP_KEYS:
        problems.append(f"{where}: keys outside the {server['type']} variant: {sorted(extra)}")
    url = server.get("url")
    parts = urlsplit(url) if isinstance(url, str) else None
    if parts is None or parts.scheme not in ("http", "https") or not parts.hostname:
        problems.append(f"{where}: url must be an absolute http(s) URL, not {url!r}")
    else:
        if parts.scheme == "http" and parts.hostname not in ("127.0.0.1", "localhost", "::1"):
            problems.append(f"{where}: url must be https unless the host is loopback")
        if parts.username or parts.password or parts.fragment:
            problems.append(f"{where}: url may hold no userinfo and no fragment")
    headers = server.get("headers", {})
    if not isinstance(headers, dict) or not all(isinstance(v, str) for v in headers.values()):
        problems.append(f"{where}: headers must be an object of strings")
    else:
        problems += [f"{where}: header {k!r} looks like a secret" for k, v in headers.items() if SECRET_NAME.search(k) or SECRET_VALUE.search(v)]
    problems += [f"{where}: {key} may not hold ${{PLUGIN_ROOT}}/${{PLUGIN_DATA}}" for key in ("type", "url", "headers") if PLACEHOLDER.search(json.dumps(server.get(key)))]
    return problems


def _stdio_problems(root: Path, where: str, server: dict) -> list[str]:
    problems: list[str] = []
    add = problems.append
    if extra := set(server) - STDIO_KEYS:
        add(f"{where}: keys outside the stdio variant: {sorted(extra)}")
    command = server.get("command")
    if not isinstance(command, str) or not command or re.search(r"\s", command) or "${" in command:
        add(f"{where}: command must be one token with no whitespace and no ${{...}}: {command!r}")
    elif command.startswith("./"):
        target = root / command
        if not target.is_file() or not _inside(root, target):
            add(f"{where}: command {command} is not a file inside the plugin")
        elif not os.access(target, os.X_OK):
            add(f"{where}: command {command} is not executable")
    elif "/" in command or "\\" in command:
        add(f"{where}: command {command!r} is neither a bare name nor a ./ path inside the plugin")
    args = server.get("args", [])
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        add(f"{where}: args must be an array of strings")
        args = []
    for arg in args:  # OpenViking: an arg naming ${PLUGIN_ROOT} points at a file inside it
        if "${PLUGIN_ROOT}" in arg:
            target = Path(arg.replace("${PLUGIN_ROOT}", str(root)))
            if not target.exists() or not _inside(root, target):
                add(f"{where}: arg {arg!r} does not resolve to a file inside the plugin")
    if PLACEHOLDER.search(json.dumps(server.get("type"))):
        add(f"{where}: type may not hold a placeholder")
    if "cwd" in server:
        cwd = server["cwd"]
        if not isinstance(cwd, str) or not CWD.match(cwd):
            add(f"{where}: cwd {cwd!r} must start with ./, ${{PLUGIN_ROOT}} or ${{PLUGIN_DATA}}")
        elif cwd.startswith("./") and not _inside(root, root / cwd):
            add(f"{where}: cwd {cwd!r} leaves the plugin")
    env = server.get("env", {})
    if not isinstance(env, dict) or not all(isinstance(v, str) for v in env.values()):
        add(f"{where}: env must be an object of strings")
    else:
        if reserved := {"PLUGIN_ROOT", "PLUGIN_DATA"} & set(env):
            add(f"{where}: env may not set {sorted(reserved)} (the client sets them)")
        problems += [f"{where}: env {k!r} looks like a secret" for k, v in env.items() if SECRET_NAME.search(k) or SECRET_VALUE.search(v)]
    return problems


def _skill_problems(root: Path, folder: Path) -> list[str]:
    where = f"skills/{folder.name}"
    skill = folder / "SKILL.md"
    if not folder.is_dir() or not skill.is_file():
        return [f"{where}: no SKILL.md"]
    text = skill.read_text(encoding="utf-8")
    match = re.match(r"^---\r?\n(.*?)\r?\n---\r?\n", text, re.DOTALL)
    if not match:
        return [f"{where}/SKILL.md: does not start with YAML frontmatter"]
    try:
        front = yaml.safe_load(match.group(1))
    except yaml.YAMLError as exc:
        return [f"{where}/SKILL.md: the frontmatter is not YAML: {exc}"]
    if not isinstance(front, dict):
        return [f"{where}/SKILL.md: the frontmatter is not a mapping"]
    problems = []
    name, description = front.get("name"), front.get("description")
    if name != folder.name:
        problems.append(f"{where}/SKILL.md: name {name!r} is not the folder's name")
    if not isinstance(name, str) or len(name) > 64 or not SKILL_NAME.match(name) or not OV_TEST_NAME.match(name):
        problems.append(f"{where}/SKILL.md: name {name!r} does not match the name pattern")
    if not isinstance(description, str) or not description.strip() or len(description) > 1024:
        problems.append(f"{where}/SKILL.md: description must be 1-1024 characters")
    body = re.sub(r"```.*?```|`[^`\n]*`", "", text[match.end() :], flags=re.DOTALL)  # links in code are not links
    for target in MD_LINK.findall(body):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.IGNORECASE) or target.startswith("#"):
            continue  # a URL or an anchor in the same file
        path = (folder / target.split("#")[0]).resolve()
        if not path.exists() or not _inside(root, path):
            problems.append(f"{where}/SKILL.md: the link {target!r} leads to no file inside the plugin")
    return problems


# --- the package ov builds --------------------------------------------------------------------


@pytest.fixture
def package(ov, tmp_path: Path) -> Path:
    out = tmp_path / "ov-plugin"
    result = ov("plugin", "build", "--out", str(out), "--json")
    assert result.exit_code == 0, result.stderr
    assert result.json["result"]["files"] == ["plugin.json", "mcp.json", "bin/ov", "skills/ov-memory/SKILL.md"]
    return out


def test_the_built_package_conforms(package):
    assert conformance_problems(package) == []


def test_the_package_is_the_one_the_brief_describes(package):
    manifest = json.loads((package / "plugin.json").read_text())
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    from ov import __version__

    assert manifest["name"] == "ov" and manifest["version"] == __version__
    assert manifest["license"] == project["license"]["text"] == "Apache-2.0"
    assert manifest["homepage"] == project["urls"]["Documentation"]
    assert manifest["keywords"] == project["keywords"]
    assert manifest["author"] == {"name": project["authors"][0]["name"]}
    assert not {"displayName", "icon"} & set(manifest)  # 1.1 draft keys, unknown to 1.0
    config = json.loads((package / "mcp.json").read_text())
    assert config["mcpServers"] == {"ov": {"type": "stdio", "command": "./bin/ov", "args": ["mcp"]}}
    assert sorted(p.relative_to(package).as_posix() for p in package.rglob("*") if p.is_file()) == [
        "bin/ov",
        "mcp.json",
        "plugin.json",
        "skills/ov-memory/SKILL.md",
    ]


def test_plugin_json_mcp_json_and_the_launcher_snapshot(package, snapshot):
    launcher = (package / "bin" / "ov").read_text().replace(str(OV), "<ov>").replace(os.environ["OV_HOME"], "<ov home>")
    assert {
        "plugin.json": json.loads((package / "plugin.json").read_text()),
        "mcp.json": json.loads((package / "mcp.json").read_text()),
        "bin/ov": launcher,
    } == snapshot


def test_the_launcher_starts_this_ov(package):
    proc = subprocess.run(["./bin/ov", "--version"], cwd=package, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    from ov import __version__

    assert proc.stdout.strip() == f"ov {__version__}"


def test_a_host_starting_the_server_as_mcp_json_says_gets_ovs_tools(tmp_path):
    """Build with the console script, then start the server as a client does: the plugin root as
    cwd, PLUGIN_ROOT and PLUGIN_DATA set. (No in-process `ov` here: the SDK hands the server
    sys.stderr, which capsys replaces.)"""
    from mcp import Client, StdioServerParameters

    package = tmp_path / "ov-plugin"
    for args in (["plugin", "build", "--out", str(package)], ["remember", "I prefer tabs over spaces for indentation."]):
        proc = subprocess.run([str(OV), *args], capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, proc.stderr
    server = json.loads((package / "mcp.json").read_text())["mcpServers"]["ov"]
    env = {**os.environ, "PLUGIN_ROOT": str(package), "PLUGIN_DATA": str(package.parent / "data")}
    params = StdioServerParameters(command=str(package / server["command"]), args=server["args"], env=env, cwd=str(package))

    async def run():
        async with Client(params) as client:
            tools = {t.name for t in (await client.list_tools()).tools}
            found = await client.call_tool("find", {"query": "indentation tabs", "limit": 5})
            return tools, found.content[0].text

    tools, found = asyncio.run(run())
    assert tools == {t["name"] for t in TOOLS}
    assert "preferences" in found


def test_the_launcher_says_what_to_do_when_its_ov_is_gone(tmp_path):
    missing = tmp_path / "gone" / "bin" / "ov"
    plugin.build(tmp_path / "pkg", [str(missing)])
    proc = subprocess.run(["./bin/ov", "--version"], cwd=tmp_path / "pkg", capture_output=True, text=True, timeout=60)
    assert proc.returncode == 127
    assert str(missing) in proc.stderr and "ov plugin build" in proc.stderr


def test_a_relative_command_is_refused(tmp_path):
    from ov.errors import InvalidInput

    with pytest.raises(InvalidInput):
        plugin.build(tmp_path / "pkg", ["ov"])
    assert not (tmp_path / "pkg").exists()


def test_rebuilding_over_an_earlier_package_replaces_it(ov, package):
    (package / "skills" / "old-skill").mkdir()
    (package / "skills" / "old-skill" / "SKILL.md").write_text("left from an earlier version\n")
    first = {p.relative_to(package): p.read_bytes() for p in package.rglob("*") if p.is_file() and "old-skill" not in p.parts}
    result = ov("plugin", "build", "--out", str(package))
    assert result.exit_code == 0, result.stderr
    assert "wrote the ov plugin package (4 files)" in result.stdout
    assert {p.relative_to(package): p.read_bytes() for p in package.rglob("*") if p.is_file()} == first
    assert conformance_problems(package) == []
    assert sorted(p.name for p in package.parent.iterdir()) == [package.name]  # no staging left beside it
    assert subprocess.run(["./bin/ov", "--version"], cwd=package, capture_output=True, timeout=60).returncode == 0


def test_the_builders_ov_home_travels_in_the_launcher(ov, tmp_path, ov_home):
    """Hosts start plugin servers with their own environment (Codex drops OV_HOME): the launcher
    carries the builder's, as a default the host's environment may still override."""
    out = tmp_path / "pkg"
    assert ov("plugin", "build", "--out", str(out)).exit_code == 0
    probe = "import os; print(os.environ['OV_HOME'])"
    lines = (out / "bin" / "ov").read_text().splitlines(keepends=True)
    launcher = "".join(f"exec {sys.executable} -c {probe!r}\n" if line.startswith("exec ") else line for line in lines)
    (out / "bin" / "probe").write_text(launcher)
    (out / "bin" / "probe").chmod(0o755)
    bare = {k: v for k, v in os.environ.items() if k != "OV_HOME"}
    assert subprocess.run([str(out / "bin" / "probe")], env=bare, capture_output=True, text=True).stdout.strip() == str(ov_home)
    other = subprocess.run([str(out / "bin" / "probe")], env={**bare, "OV_HOME": "/elsewhere"}, capture_output=True, text=True)
    assert other.stdout.strip() == "/elsewhere"


def test_the_builds_identity_options_travel_in_the_launcher(ov, tmp_path, monkeypatch):
    """`ov plugin build --user bob` wrote a launcher without bob: the package's server then acted
    as whoever the host's environment named, where `ov install --user bob` pins bob in every entry."""
    out = tmp_path / "pkg"
    monkeypatch.setenv("OV_PEER", "laptop")
    assert ov("--account", "acme", "--user", "bob", "plugin", "build", "--out", str(out)).exit_code == 0
    lines = (out / "bin" / "ov").read_text().splitlines(keepends=True)
    probe = "import os; print(os.environ.get('OV_ACCOUNT'), os.environ.get('OV_USER'), os.environ.get('OV_PEER'))"
    launcher = "".join(f"exec {sys.executable} -c {probe!r}\n" if line.startswith("exec ") else line for line in lines)
    (out / "bin" / "probe").write_text(launcher)
    (out / "bin" / "probe").chmod(0o755)
    bare = {k: v for k, v in os.environ.items() if k not in ("OV_ACCOUNT", "OV_USER", "OV_PEER")}
    assert subprocess.run([str(out / "bin" / "probe")], env=bare, capture_output=True, text=True, check=True).stdout.split() == ["acme", "bob", "laptop"]
    refused = ov("--user", "not a name", "plugin", "build", "--out", str(tmp_path / "other"))
    assert refused.exit_code != 0 and not (tmp_path / "other").exists()


def test_the_identity_the_build_was_told_is_fixed_and_the_environments_a_default(ov, tmp_path, monkeypatch):
    """`ov plugin build --user bob` wrote bob as a default (`:=`): a host whose environment named
    another user (or an OV_USER left in a desktop session) ran the package's server as that user,
    where `ov install --user bob` pins bob. What came from the builder's environment stays a default."""
    out = tmp_path / "pkg"
    monkeypatch.setenv("OV_PEER", "laptop")
    assert ov("--account", "acme", "--user", "bob", "plugin", "build", "--out", str(out)).exit_code == 0
    lines = (out / "bin" / "ov").read_text().splitlines(keepends=True)
    probe = "import os; print(os.environ.get('OV_ACCOUNT'), os.environ.get('OV_USER'), os.environ.get('OV_PEER'))"
    launcher = "".join(f"exec {sys.executable} -c {probe!r}\n" if line.startswith("exec ") else line for line in lines)
    (out / "bin" / "probe").write_text(launcher)
    (out / "bin" / "probe").chmod(0o755)
    hosts = {**os.environ, "OV_ACCOUNT": "other", "OV_USER": "mallory", "OV_PEER": "desktop"}
    ran = subprocess.run([str(out / "bin" / "probe")], env=hosts, capture_output=True, text=True, check=True)
    assert ran.stdout.split() == ["acme", "bob", "desktop"]


def test_an_empty_folder_is_used(ov, tmp_path):
    out = tmp_path / "empty"
    out.mkdir()
    assert ov("plugin", "build", "--out", str(out)).exit_code == 0
    assert conformance_problems(out) == []


@pytest.mark.parametrize("foreign", ["a folder of notes", "a plugin of someone else", "a file"])
def test_a_foreign_out_is_refused_and_left_untouched(ov, tmp_path, foreign):
    out = tmp_path / "out"
    if foreign == "a file":
        out.write_text("mine\n")
    else:
        out.mkdir()
        (out / "notes.md").write_text("mine\n")
        if foreign == "a plugin of someone else":
            (out / "plugin.json").write_text(json.dumps({"$schema": PLUGIN_SCHEMA, "name": "other"}))
    before = _contents(tmp_path)
    result = ov("plugin", "build", "--out", str(out), "--json")
    assert result.exit_code == 2
    assert result.error["code"] == "invalid_input" and result.error["hint"]
    assert _contents(tmp_path) == before  # nothing changed, and nothing was left beside it


def _contents(folder: Path) -> dict[str, bytes | None]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() if p.is_file() else None for p in sorted(folder.rglob("*"))}


def test_the_skill_names_only_tools_and_arguments_ov_has():
    """The skill teaches ov's real tools: each tool and argument it names exists, with the values it uses."""
    text = (plugin.SKILL_MD).split("---", 2)[2]
    schemas = {t["name"]: t["inputSchema"]["properties"] for t in TOOLS}
    taught = {"find": ["query", "limit", "types", "uri"], "search": ["query", "mode", "budget"], "read": ["uris", "lines"], "remember": ["text", "type"], "forget": ["match"]}
    for tool, arguments in taught.items():
        assert f"`{tool}`" in text
        for argument in arguments:
            assert argument in schemas[tool], (tool, argument)
            assert re.search(rf"`{argument}[`:]", text), (tool, argument)  # `limit` or `mode: "context"`
    assert {"context", "list"} <= set(schemas["search"]["mode"]["enum"]) and '`mode: "context"`' in text
    assert set(schemas["find"]["types"]["items"]["enum"]) == {"memory", "resource", "skill", "session"}
    for memory_type in ("preferences", "profile", "entities", "events"):
        assert memory_type in schemas["remember"]["type"]["enum"] and f"`{memory_type}`" in text
    for topic in (".abstract.md", ".overview.md", "secrets", "transient state", "chit-chat"):
        assert topic in plugin.SKILL_MD


# --- the checker catches what it is there for ----------------------------------------------

Breakage = Callable[[Path], None]


def _edit_json(name: str, change: Callable[[dict], None]) -> Breakage:
    def edit(root: Path) -> None:
        data = json.loads((root / name).read_text())
        change(data)
        (root / name).write_text(json.dumps(data))

    return edit


def _server(change: Callable[[dict], None]) -> Breakage:
    return _edit_json("mcp.json", lambda d: change(d["mcpServers"]["ov"]))


def _skill(text: str, folder: str = "ov-memory") -> Breakage:
    def edit(root: Path) -> None:
        (root / "skills" / folder).mkdir(parents=True, exist_ok=True)
        (root / "skills" / folder / "SKILL.md").write_text(text)

    return edit


def _outside_link(root: Path) -> None:
    (root.parent / "elsewhere").write_text("#!/bin/sh\n")
    (root.parent / "elsewhere").chmod(0o755)
    (root / "bin" / "ov").unlink()
    (root / "bin" / "ov").symlink_to(root.parent / "elsewhere")


def _bad_mjs(root: Path) -> None:
    (root / "servers").mkdir()
    (root / "servers" / "proxy.mjs").write_text("export const = 1;\n")


FRONT = "---\nname: ov-memory\ndescription: Use it to recall.\n---\n"
BREAKAGES: dict[str, tuple[Breakage, str]] = {
    "wrong plugin $schema": (_edit_json("plugin.json", lambda d: d.update({"$schema": PLUGIN_SCHEMA.replace("1.0.0", "1.1.0")})), "$schema"),
    "1.1 draft key": (_edit_json("plugin.json", lambda d: d.update(displayName="ov")), "keys the 1.0 schema"),
    "name with --": (_edit_json("plugin.json", lambda d: d.update(name="o--v")), "name pattern"),
    "name too long": (_edit_json("plugin.json", lambda d: d.update(name="o" * 65)), "1-64"),
    "upper-case name": (_edit_json("plugin.json", lambda d: d.update(name="Ov")), "name pattern"),
    "non-semver version": (_edit_json("plugin.json", lambda d: d.update(version="1.0")), "semver"),
    "author with extra key": (_edit_json("plugin.json", lambda d: d.update(author={"name": "x", "twitter": "@x"})), "author"),
    "keywords not strings": (_edit_json("plugin.json", lambda d: d.update(keywords=["a", 1])), "keywords"),
    "no license": (_edit_json("plugin.json", lambda d: d.pop("license")), "license"),
    "no description": (_edit_json("plugin.json", lambda d: d.pop("description")), "description"),
    "bad extensions": (_edit_json("plugin.json", lambda d: d.update(extensions={"ov": {}})), "extensions"),
    "wrong mcp $schema": (_edit_json("mcp.json", lambda d: d.update({"$schema": MCP_SCHEMA.replace("1.0.0", "1.1.0")})), "spec version"),
    "extra mcp root key": (_edit_json("mcp.json", lambda d: d.update(servers={})), "exactly $schema and mcpServers"),
    "no servers": (_edit_json("mcp.json", lambda d: d.update(mcpServers={})), "non-empty"),
    "unknown server type": (_server(lambda s: s.update(type="websocket")), "type must be"),
    "stdio with a url": (_server(lambda s: s.update(url="https://example.com")), "outside the stdio variant"),
    "command with a space": (_server(lambda s: s.update(command="./bin/ov mcp")), "one token"),
    "command with a placeholder": (_server(lambda s: s.update(command="${PLUGIN_ROOT}/bin/ov")), "one token"),
    "missing ./ command": (_server(lambda s: s.update(command="./bin/nothing")), "not a file inside"),
    "absolute command": (_server(lambda s: s.update(command="/usr/bin/ov")), "neither a bare name"),
    "command leaving through a symlink": (_outside_link, "not a file inside"),
    "command not executable": (lambda root: (root / "bin" / "ov").chmod(0o644), "not executable"),
    "arg naming a missing file": (_server(lambda s: s.update(args=["${PLUGIN_ROOT}/server.py"])), "does not resolve"),
    "cwd outside the pattern": (_server(lambda s: s.update(cwd="/tmp")), "cwd"),
    "cwd leaving the plugin": (_server(lambda s: s.update(cwd="./../..")), "leaves the plugin"),
    "env setting PLUGIN_ROOT": (_server(lambda s: s.update(env={"PLUGIN_ROOT": "."})), "may not set"),
    "secret in env": (_server(lambda s: s.update(env={"OPENAI_API_KEY": "sk-abcdefghijklmnopqrstuvwx"})), "secret"),
    "secret in headers": (
        _edit_json("mcp.json", lambda d: d["mcpServers"].update(remote={"type": "streamable-http", "url": "https://example.com/mcp", "headers": {"Authorization": "Bearer x"}})),
        "secret",
    ),
    "http url not https": (_edit_json("mcp.json", lambda d: d["mcpServers"].update(remote={"type": "sse", "url": "http://example.com/mcp"})), "https"),
    "http url with userinfo": (_edit_json("mcp.json", lambda d: d["mcpServers"].update(remote={"type": "sse", "url": "https://me:pw@example.com/"})), "userinfo"),
    "skill folder without SKILL.md": (lambda root: (root / "skills" / "empty").mkdir(), "no SKILL.md"),
    "skill without frontmatter": (_skill("# ov memory\n"), "frontmatter"),
    "skill name not the folder's": (_skill(FRONT.replace("name: ov-memory", "name: ov-recall")), "folder's name"),
    "skill name pattern": (_skill(FRONT.replace("ov-memory", "Ov_Memory"), "Ov_Memory"), "name pattern"),
    "skill description too long": (_skill(FRONT.replace("Use it to recall.", "x" * 1025)), "1-1024"),
    "broken relative link": (_skill(FRONT + "See [the guide](guide.md).\n"), "leads to no file"),
    "link leaving the plugin": (_skill(FRONT + "See [it](../../../outside.md).\n"), "leads to no file"),
    "mjs that does not parse": (_bad_mjs, "node --check"),
}


@pytest.mark.parametrize("breakage", sorted(BREAKAGES))
def test_the_checker_catches(package, tmp_path, breakage):
    if breakage == "mjs that does not parse" and shutil.which("node") is None:
        pytest.skip("node is not installed")
    if breakage == "link leaving the plugin":
        (package.parent / "outside.md").write_text("outside\n")
    broken, says = BREAKAGES[breakage]
    broken(package)
    problems = conformance_problems(package)
    assert any(says in p for p in problems), problems


def test_the_checker_accepts_what_the_spec_allows(package):
    """What is allowed stays allowed: a bare command, placeholders in args/env/cwd, links that resolve."""
    (package / "skills" / "ov-memory" / "guide.md").write_text("guide\n")
    _server(lambda s: s.update(command="ov", args=["mcp", "--data", "${PLUGIN_DATA}/x", "${PLUGIN_ROOT}/mcp.json"], env={"OV_LOG": "${PLUGIN_DATA}/log"}, cwd="${PLUGIN_ROOT}"))(package)
    _edit_json("mcp.json", lambda d: d["mcpServers"].update(local={"type": "streamable-http", "url": "http://127.0.0.1:8765/mcp"}))(package)
    skill = package / "skills" / "ov-memory" / "SKILL.md"
    skill.write_text(skill.read_text() + "\nSee [the guide](guide.md#top), [the spec](https://agent-plugins.org/) and [above](#ov-memory).\n")
    assert conformance_problems(package) == []
