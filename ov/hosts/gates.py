"""Each host's own gate in front of new hooks, handled honestly after an install.

* **Codex** runs a new or changed hook only once the user has reviewed it (``/hooks``), and
  ``codex exec`` skips unreviewed ones without a word. ``--trust`` records the review for ov's own
  handlers through ``codex app-server`` (``hooks/list``, then ``config/batchWrite`` of
  ``hooks.state."<key>".trusted_hash``; Codex computes the hash itself). It is never the default:
  it grants trust on the user's behalf, so it happens only when asked, and says what it trusted.
  Keys are positional, so the trust is written after the hooks file, on every install. A review
  holds the handler's hash, so a handler rewritten (an install from another ov) is "modified" and
  skipped as silently: ``ov doctor`` compares the hash with the handler's (:func:`codex_hook_hash`).
  A project's ``.codex/`` (hooks and all) is loaded only in a project the user's ``config.toml``
  trusts (``[projects."<root>"] trust_level = "trusted"``): until then ``hooks/list`` does not
  even show its hooks. So in project scope ``--trust`` first marks the project trusted (unless the
  user marked it untrusted), through the same ``config/batchWrite``. The reviews of a project's
  hooks live in the user's ``config.toml`` too: Codex ignores ``hooks.state`` in a project's own.
  What ``--trust`` wrote (each review key with its hash, a project it trusted) goes into the
  hooks' receipt, and an uninstall with ``--trust`` takes exactly that out again
  (:func:`plan_trust_removal`), with the ``[hooks.state]`` table Codex made for it: a review Codex
  holds with another hash since, or trust the user gave themselves, stays. ov's handlers an
  install with ``--trust`` finds reviewed already (the record went with ov's home) are recorded too.
* **Gemini CLI** runs project hooks only in a trusted folder, and warns once per changed hook.
* **Cursor** also runs Claude Code's hooks when its "Third-party skills" setting is on; the hook
  runtime answers only one of the two calls (:mod:`ov.hosts.runtime`).
* **Claude Code** holds back every hook of an interactive session until its workspace-trust
  dialog is accepted (``-p`` runs count as trusted).
"""

from __future__ import annotations

import json
import os
import queue
import shutil
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path

from ov.hosts.filechange import Change, read
from ov.hosts.hostconfig import Spec
from ov.hosts.receipts import kept_trust, merged_trust
from ov.wording import counted

# Codex names events in trust keys in snake case.
_CODEX_EVENTS = {"SessionStart": "session_start", "UserPromptSubmit": "user_prompt_submit", "Stop": "stop", "PreCompact": "pre_compact", "SessionEnd": "session_end"}


def after_install(spec: Spec, receipts_dir: Path, *, trust: bool, dry_run: bool, project: Path | None = None) -> list[str]:
    """What the user must know of ``spec``'s host's gate once ov's hooks are in, or what ``trust``
    did about it (recorded in the receipt under ``receipts_dir``); ``project``: the folder the
    install ran in, whose settings may switch the host's hooks off there."""
    if spec.host == "codex":
        return _codex(spec, receipts_dir, trust=trust, dry_run=dry_run)
    off = hooks_switched_off(spec, project)
    if off is not None:
        # The user turned hooks off on purpose: say so rather than flip it.
        return [f"{spec.host:8} skips ov's hooks: {off}; they will not run until that is changed"]
    if spec.host == "gemini" and spec.scope == "project":
        return [f"gemini   runs project hooks only in a trusted folder: trust {spec.path.parent.parent} when Gemini CLI asks"]
    if spec.host == "claude" and spec.scope == "project":
        return ["claude   holds back project hooks until you accept its workspace-trust dialog"]
    if spec.host == "opencode":
        return ["opencode loads ov's plugin when it next starts"]
    return []


# What trusting a project lets Codex do, said wherever ov trusts one or tells the user how to.
_PROJECT_TRUST_GRANTS = "Codex then loads all of the project's .codex/ config, its MCP servers and settings too, and lets the agent write in the project"


def _codex(spec: Spec, receipts_dir: Path, *, trust: bool, dry_run: bool) -> list[str]:
    off = codex_hooks_off(spec)
    if off is not None:
        # The user (or an administrator) turned hooks off on purpose: say so rather than flip it.
        return [f"codex    skips ov's hooks: {off}; they will not run until that is changed"]
    project = codex_project(spec)
    config = codex_user_config(spec)
    state = codex_project_trust(spec) if project else None
    if state == "untrusted":
        # The user said no to this project once; --trust does not overrule that (nor does `codex exec --trust`).
        return [
            f"codex    {project} is marked untrusted in {config}, so Codex runs none of its hooks; ov leaves that to you: "
            f'set trust_level = "trusted" under [projects."{project}"] there ({_PROJECT_TRUST_GRANTS}), then review ov\'s hooks with /hooks in Codex'
        ]
    untrusted_project = project is not None and state is None
    if untrusted_project:
        by_hand = f"{codex_trust_by_hand(project, config)} ({_PROJECT_TRUST_GRANTS}); then open /hooks in Codex and trust ov's hooks"
    else:
        by_hand = "open /hooks in Codex and trust ov's hooks"
    if not trust:
        flags = " --scope project" if project else ""
        gate = "runs a project's hooks only in a trusted project, and each hook only after you review it" if untrusted_project else "runs new hooks only after you review them"
        return [f"codex    {gate}: {by_hand}; or run `ov install hooks --host codex{flags} --trust` to have ov do it"]
    if dry_run:
        also = f"{project} trusted in {config} ({_PROJECT_TRUST_GRANTS}) and " if untrusted_project else ""
        return [f"codex    --trust would mark {also}ov's hooks as reviewed"]
    binary = shutil.which("codex")
    if binary is None:
        return [f"codex    --trust needs the `codex` program on PATH; instead, {by_hand}"]
    from ov.hosts.receipts import record_trust

    made_config = not config.exists()  # Codex makes config.toml for what it writes: the uninstall takes it away again
    # Codex makes `[hooks.state]` for the reviews, and the uninstall takes it out again once they
    # are out, unless it held reviews of other hooks before (ov's own reviews were all it held when
    # ov's home, and the record of them, was removed, then ov installed again).
    state = (_toml(config).get("hooks") or {}).get("state")
    ours = _codex_positions(spec)
    made_state = not isinstance(state, dict) or all(_position(spec, key) in ours for key in state)

    def about_to_write(reviews: dict[str, str] | None = None, project_trusted: bool = False) -> None:
        # Recorded before Codex writes it: an install killed in between leaves a record of trust
        # that may not be there (an uninstall takes out only what still is), never trust no record
        # claims, which a re-install finds "already trusted" and would leave in for good.
        project_ = str(project) if project_trusted else None
        record_trust(receipts_dir, spec, reviews=reviews, project=project_, made_config=made_config, made_state=made_state)

    try:
        made_trusted, trusted = codex_trust(spec, binary, about_to_write=about_to_write)
    except (OSError, RuntimeError, TimeoutError, ValueError) as exc:
        if untrusted_project and codex_project_trust(spec) == "trusted":  # the first step was done
            return [f"codex    trusted the project {project} in {config} ({_PROJECT_TRUST_GRANTS}), but could not record the review of ov's hooks ({exc}): open /hooks in Codex and trust them"]
        return [f"codex    could not record the review ({exc}); instead, {by_hand}"]
    notes = [f"codex    trusted the project {project} in {config}: {_PROJECT_TRUST_GRANTS}"] if made_trusted else []
    if trusted:
        notes.append(f"codex    trusted ov's hooks: {', '.join(sorted(trusted))}")
    elif codex_untrusted(spec):
        notes.append(f"codex    Codex did not list ov's hooks in {spec.path}, so none was reviewed; {by_hand}")
    else:
        notes.append("codex    trusted ov's hooks: already trusted")
    return notes


def codex_trust(spec: Spec, binary: str, *, timeout: float = 30.0, about_to_write: Callable[..., None] | None = None) -> tuple[bool, dict[str, str]]:
    """Mark ov's handlers in ``spec.path`` reviewed in Codex, and in project scope the project
    trusted first (Codex lists no hook of an untrusted project, so none could be reviewed).
    Whether the project was newly trusted, and the trust keys written with the hash each got.
    ``about_to_write`` is told what each write will add (``project_trusted=True``, or
    ``reviews``) before it is sent."""
    ours = _codex_positions(spec)
    env = dict(os.environ)
    if spec.scope == "user" and "CODEX_HOME" not in env:
        env["CODEX_HOME"] = str(spec.path.parent)
    project = codex_project(spec)
    made_trusted = project is not None and codex_project_trust(spec) is None
    with _JsonRpc([binary, "app-server"], env, project or spec.path.parent, timeout) as rpc:
        rpc.call("initialize", {"clientInfo": {"name": "ov", "version": "1"}})
        rpc.notify("initialized")
        if made_trusted:
            # Into the user's config.toml (batchWrite's default file), comments and all; the path
            # quoted as a TOML key, which Codex's key paths accept.
            key = f"projects.{json.dumps(str(project), ensure_ascii=False)}.trust_level"
            if about_to_write is not None:
                about_to_write(project_trusted=True)
            rpc.call("config/batchWrite", {"edits": [{"keyPath": key, "mergeStrategy": "upsert", "value": "trusted"}]})
        listing = rpc.call("hooks/list", {"cwds": [str(project or Path.cwd())]})
        listed = [
            hook
            for entry in (listing or {}).get("data", [])
            for hook in entry.get("hooks", [])
            if _position(spec, hook.get("key")) in ours and hook.get("currentHash")
        ]
        pending = {hook["key"]: {"trusted_hash": hook["currentHash"]} for hook in listed if hook.get("trustStatus") in ("untrusted", "modified")}
        held = {hook["key"]: hook["currentHash"] for hook in listed if hook.get("trustStatus") == "trusted"}
        if held and about_to_write is not None:
            # Reviewed already, by an install whose record went with ov's home, or in /hooks: asked
            # to trust ov's hooks, ov takes them in its record too, so that an uninstall with
            # --trust takes them out with the hooks they were for.
            about_to_write(reviews=held)
        if pending:
            if about_to_write is not None:
                about_to_write(reviews={key: value["trusted_hash"] for key, value in pending.items()})
            rpc.call("config/batchWrite", {"edits": [{"keyPath": "hooks.state", "mergeStrategy": "upsert", "value": pending}]})
    return made_trusted, {key: value["trusted_hash"] for key, value in pending.items()}


def plan_trust_removal(hooks: Change, receipts_dir: Path, *, trust: bool, dry_run: bool, along: list[Change], env=None) -> tuple[Change | None, list[str]]:
    """What becomes of the trust an install's ``--trust`` wrote into Codex's ``config.toml``, as
    ``hooks`` (the uninstall of ov's hooks) takes them out: a change to that file, or None, and
    the notes to show.

    With ``trust`` the trust goes, and only what ov wrote (the receipt's record): each review whose
    hash is still the one ov wrote, and the project's ``trust_level`` when ov made the project
    trusted and it still is. A review given since (Codex's ``/hooks``), or trust the user gave
    themselves, stays. When a change in ``along`` (the server's uninstall, ``--with-mcp``) writes
    the same file, the trust comes out of what it writes instead. Without ``trust`` all of it
    stays, and the note says where; its record is kept past the hooks' receipt
    (:func:`~ov.hosts.receipts.kept_trust`), for a later uninstall with ``trust``. Planned with the
    other changes, before any is written: a layout ov cannot edit is refused with nothing written,
    and ``--dry-run`` shows the diff."""
    if hooks.spec.host != "codex":
        return None, []
    kept = kept_trust(receipts_dir, hooks.spec)
    if not kept and hooks.before is None and not hooks.spec_receipt:
        return None, []  # ov never wired this file, or an uninstall took all of it out
    config = codex_user_config(hooks.spec, env)
    own = hooks.spec_receipt.get("trust") if isinstance(hooks.spec_receipt.get("trust"), dict) else {}
    recorded = merged_trust(kept, own) if kept else own
    reviews, project = _recorded_trust_in_place(config, recorded)
    what = _trust_said(reviews, project)
    if not trust:
        if not what:
            return None, []
        if own:  # the hooks' receipt goes with this uninstall: the record is kept without it
            hooks.trust_kept = (hooks.spec, recorded)
        scope = " --scope project" if hooks.spec.scope == "project" else ""
        how = "add --trust to take it out too" if dry_run else f"ov keeps its record: `ov uninstall hooks --host codex{scope} --trust` takes it out"
        return None, [f"codex    the trust ov's --trust recorded stays in {config} ({what}); {how}"]
    if not recorded:
        return None, [f"codex    --trust: ov recorded no trust of its own for {hooks.spec.path} (installed without --trust, or by an older ov), so {config} is left as it is"]
    # The record goes with this uninstall, whatever is left of the trust to take out.
    forget = (hooks.spec, None) if kept else None
    if not what:
        hooks.trust_kept = forget
        return None, [f"codex    --trust: the trust ov recorded for {hooks.spec.path} is no longer in {config} as ov wrote it, so nothing is taken out"]
    note = f"codex    takes the trust ov's --trust recorded out of {config}: {what}"
    shared = next((c for c in along if c.spec.path == config), None)
    if shared is not None:
        if shared.after is not None:  # else the file goes, and the trust with it
            text = _without_trust(shared.after, config, reviews, project, recorded.get("created_state", True))
            shared.after = None if not text.strip() and shared.spec_receipt.get("created_file") else text.encode("utf-8")
        shared.notes.append(note)
        shared.trust_kept = forget
        return None, []
    before = read(config)
    text = _without_trust(before or b"", config, reviews, project, recorded.get("created_state", True))
    # A config.toml Codex made for ov's --trust goes when nothing else is in it, and so do the
    # folders ov made for the hooks' file that held it (apply removes them when empty).
    after = None if not text.strip() and recorded.get("created_config") else text.encode("utf-8")
    made = hooks.spec_receipt.get("created_dirs")
    dirs = [d for d in (made if isinstance(made, list) else []) if isinstance(d, str) and config.is_relative_to(d)]
    change = Change(Spec("codex", "user", config, "mcp-toml", kind="trust"), before, after, None, [note], spec_receipt={"created_dirs": dirs}, trust_kept=forget)
    return change, []


def _recorded_trust_in_place(config: Path, recorded: dict) -> tuple[list[str], str | None]:
    """Of the trust a receipt recorded, what ``config`` still holds as ov wrote it: the review keys
    with ov's hash, and the project when it is still marked trusted."""
    values = _toml(config)
    hooks = values.get("hooks")
    state = hooks.get("state") if isinstance(hooks, dict) else None
    state = state if isinstance(state, dict) else {}
    written = recorded.get("reviews") if isinstance(recorded.get("reviews"), dict) else {}
    reviews = sorted(key for key, value in written.items() if isinstance(state.get(key), dict) and state[key].get("trusted_hash") == value)
    project = recorded.get("project") if isinstance(recorded.get("project"), str) else None
    projects = values.get("projects")
    table = projects.get(project) if isinstance(projects, dict) and project is not None else None
    return reviews, project if isinstance(table, dict) and table.get("trust_level") == "trusted" else None


def _trust_said(reviews: list[str], project: str | None) -> str:
    parts = [f'[projects."{project}"] trust_level = "trusted"'] if project else []
    if reviews:
        parts.append(f"{counted(len(reviews), 'review')} of ov's hooks")
    return " and ".join(parts)


def _without_trust(data: bytes, config: Path, reviews: list[str], project: str | None, made_state: bool) -> str:
    """``data``, Codex's config, without the review keys and the project's trust, and without the
    ``[hooks.state]`` table Codex made for the reviews (``made_state``) once they were all it
    held; every other byte kept."""
    from ov.hosts import tomltable

    text, values = tomltable.read(data, config)
    owned = [(("hooks", "state", key), "trusted_hash") for key in reviews] + ([(("projects", project), "trust_level")] if project else [])
    for table, key in owned:
        held = tomltable.get(values, table, config)
        if not isinstance(held, dict) or held.get(key) is None:
            continue  # not in ``data`` as it was read
        # Only the key ov wrote; its table too when that key was all it held (Codex keeps a
        # hook's other settings, such as `enabled`, in the same table).
        path = table if set(held) == {key} else (*table, key)
        text = tomltable.drop(text, values, path, config)
        text, values = tomltable.read(text.encode("utf-8"), config)
    if reviews and made_state and tomltable.get(values, ("hooks", "state"), config) == {}:
        text = tomltable.drop(text, values, ("hooks", "state"), config)
    return text


def codex_trust_by_hand(project: Path, config: Path) -> str:
    """How the user trusts ``project`` in Codex themselves."""
    return f'trust {project} when Codex asks on its first start there, or add [projects."{project}"] trust_level = "trusted" to {config}'


def codex_mcp_note(spec: Spec) -> str | None:
    """What to know of ov's server in a project's ``.codex/config.toml``: Codex loads that file
    only in a trusted project (None when the project is trusted)."""
    project = codex_project(spec)
    state = codex_project_trust(spec) if project else None
    if project is None or state == "trusted":
        return None
    config = codex_user_config(spec)
    if state is None:
        how = f"{codex_trust_by_hand(project, config)} ({_PROJECT_TRUST_GRANTS})"
    else:
        how = f'it is marked {state} there: set trust_level = "trusted" under [projects."{project}"] in {config} ({_PROJECT_TRUST_GRANTS})'
    return f"codex    loads a project's .codex/config.toml, and ov's server in it, only in a trusted project: {how}"


def codex_project(spec: Spec) -> Path | None:
    """The project a project-scope Codex install is in (``<project>/.codex/hooks.json`` or
    ``config.toml``); None in user scope."""
    return spec.path.parent.parent if spec.scope == "project" else None


def codex_user_config(spec: Spec, env=None) -> Path:
    """The user's ``config.toml``: where Codex keeps project trust and every hook review, whatever the scope."""
    from ov.hosts.hostconfig import config_dir

    if spec.scope == "user":
        return spec.path.parent / "config.toml"
    return config_dir("codex", "user", Path(), env) / "config.toml"


def codex_project_trust(spec: Spec, env=None) -> str | None:
    """The ``trust_level`` the user's config gives the spec's project (``"trusted"``, ``"untrusted"``),
    or None when it names none (Codex then asks on the first interactive start there)."""
    project = codex_project(spec)
    projects = _toml(codex_user_config(spec, env)).get("projects")
    if project is None or not isinstance(projects, dict):
        return None
    for path, table in projects.items():
        if isinstance(table, dict) and isinstance(table.get("trust_level"), str) and _same_path(path, project):
            return table["trust_level"]
    return None


# Where an administrator's settings of each host live, by system: Claude Code's managed settings,
# Gemini CLI's system settings, Codex's /etc/codex (its system config, legacy managed config and
# requirements). The released Claude Code reads its folder from no variable
# (CLAUDE_CODE_MANAGED_SETTINGS_PATH is honoured by internal builds only) and Codex has none; Gemini
# CLI's variables move its files (:func:`system_layers`), and ov follows them as Gemini CLI does.
_SYSTEM_DIRS = {
    "claude": {"darwin": "/Library/Application Support/ClaudeCode", "win32": "C:\\Program Files\\ClaudeCode", "linux": "/etc/claude-code"},
    "gemini": {"darwin": "/Library/Application Support/GeminiCli", "win32": "C:\\ProgramData\\gemini-cli", "linux": "/etc/gemini-cli"},
    "codex": {"darwin": "/etc/codex", "linux": "/etc/codex"},
}


def system_dir(host: str, root: Path | None = None) -> Path | None:
    """The folder of ``host``'s administrator's settings on this system, or None where it has
    none. ``root``: the file system's root it hangs from (``/``; a test's folder stands in)."""
    import sys

    system = "darwin" if sys.platform == "darwin" else "win32" if os.name == "nt" else "linux"  # "linux": any other Unix too
    folder = _SYSTEM_DIRS.get(host, {}).get(system)
    if folder is None:
        return None
    return Path(folder) if root is None else Path(root) / Path(folder).relative_to(Path(folder).anchor)


def system_layers(host: str, env=None, root: Path | None = None) -> tuple[list[Path], list[Path]]:
    """``host``'s administrator's settings files that it layers under the user's (lowest first)
    and over the user's and the project's (highest last): Claude Code's ``managed-settings.json``
    then its ``managed-settings.d/*.json`` drop-ins, over everything; Gemini CLI's
    ``system-defaults.json`` under and ``settings.json`` over, or where
    ``GEMINI_CLI_SYSTEM_DEFAULTS_PATH`` and ``GEMINI_CLI_SYSTEM_SETTINGS_PATH`` say; Codex's
    ``config.toml`` under and its legacy ``managed_config.toml`` over (its ``requirements.toml``
    constrains rather than layers: :func:`codex_hooks_off`)."""
    env = os.environ if env is None else env
    folder = system_dir(host, root)
    if host == "gemini":
        settings = Path(env["GEMINI_CLI_SYSTEM_SETTINGS_PATH"]) if env.get("GEMINI_CLI_SYSTEM_SETTINGS_PATH") else folder / "settings.json" if folder else None
        defaults = Path(env["GEMINI_CLI_SYSTEM_DEFAULTS_PATH"]) if env.get("GEMINI_CLI_SYSTEM_DEFAULTS_PATH") else settings.parent / "system-defaults.json" if settings else None
        return [p for p in [defaults] if p], [p for p in [settings] if p]
    if folder is None:
        return [], []
    if host == "claude":
        try:
            dropins = sorted(p for p in (folder / "managed-settings.d").iterdir() if p.suffix == ".json" and not p.name.startswith("."))
        except OSError:
            dropins = []
        return [], [folder / "managed-settings.json", *dropins]
    if host == "codex":
        return [folder / "config.toml"], [folder / "managed_config.toml"]
    return [], []


def codex_hooks_off(spec: Spec, env=None, root: Path | None = None) -> str | None:
    """What turns Codex's hooks off, or ov's among them, said as "SETTING in FILE"; None when
    nothing does. ``[features] hooks = false`` (or the old ``codex_hooks``) in the last of the
    system's ``config.toml``, the user's, the project's (in project scope) and the system's
    managed config to set it; or the system's ``requirements.toml``: ``allow_managed_hooks_only``
    (only an administrator's hooks run) or its own ``[features] hooks = false``. ``root``: as for
    :func:`system_dir`."""
    under, over = system_layers("codex", env, root)
    files = [*under, codex_user_config(spec, env)] + ([spec.path.parent / "config.toml"] if spec.scope == "project" else []) + over
    off = None
    for path in files:
        features = _toml(path).get("features")
        value = features.get("hooks", features.get("codex_hooks")) if isinstance(features, dict) else None
        if value is not None:
            off = f"[features] hooks = false in {path}" if value is False else None
    folder = system_dir("codex", root)
    requirements = _toml(folder / "requirements.toml") if folder is not None else {}
    if requirements.get("allow_managed_hooks_only") is True:
        return f"allow_managed_hooks_only = true in {folder / 'requirements.toml'}"
    features = requirements.get("features")
    if isinstance(features, dict) and features.get("hooks") is False:
        return f"[features] hooks = false in {folder / 'requirements.toml'}"
    return off


def hooks_switched_off(spec: Spec, project: Path | None = None, env=None, root: Path | None = None) -> str | None:
    """The host's own setting that keeps ov's hooks in ``spec``'s file from running, said as
    "SETTING in FILE", or None. ``project``: the folder the hooks would run in (a user-scope
    spec's hooks run in every project, whose own settings have the last word there). An
    administrator's settings (:func:`system_layers`) count as the user's do. ``root``: as for
    :func:`system_dir`.

    * Codex: :func:`codex_hooks_off`.
    * Claude Code: ``"disableAllHooks": true``; a later layer (user, project, project local,
      managed) has the last word, as Claude Code's "a project-level false overrides a user-level
      true"; and the managed settings' ``"allowManagedHooksOnly": true``, which runs no user,
      project or plugin hook.
    * Gemini CLI: ``"hooksConfig": {"enabled": false}`` (the later layer wins: system defaults,
      user, workspace, system), or ov's hooks by name (``ov-<event>``) in a ``hooksConfig.disabled``
      or older ``hooks.disabled`` list, which Gemini CLI takes across layers (``/hooks disable``
      writes it).
    """
    if spec.host == "codex":
        return codex_hooks_off(spec, env, root)
    if spec.host not in ("claude", "gemini"):
        return None
    from ov.hosts.hostconfig import config_dir

    if spec.scope == "project":
        project = spec.path.parent.parent
    folder = config_dir(spec.host, "user", Path(), env)
    under, over = system_layers(spec.host, env, root)
    layers = [*under, folder / "settings.json"]
    if project is not None:
        layers += [project / f".{spec.host}" / "settings.json"] + ([project / ".claude" / "settings.local.json"] if spec.host == "claude" else [])
    layers += over
    off, names, disabled, managed_only = None, set(), None, None
    for path in layers:
        values = _settings(path)
        if spec.host == "claude":
            value = values.get("disableAllHooks")
            if isinstance(value, bool):
                off = f'"disableAllHooks": true in {path}' if value else None
            only = values.get("allowManagedHooksOnly") if path in over else None
            if isinstance(only, bool):  # a later drop-in has the last word here too
                managed_only = f'"allowManagedHooksOnly": true in {path}' if only else None
            continue
        config = values.get("hooksConfig") if isinstance(values.get("hooksConfig"), dict) else {}
        if isinstance(config.get("enabled"), bool):
            off = f'"hooksConfig": {{"enabled": false}} in {path}' if not config["enabled"] else None
        hooks = values.get("hooks") if isinstance(values.get("hooks"), dict) else {}
        for key, listed in (("hooksConfig.disabled", config.get("disabled")), ("hooks.disabled", hooks.get("disabled"))):
            ours = sorted({f"ov-{event}" for _native, event, _t in spec.events} & set(listed if isinstance(listed, list) else []) - names)
            if ours:
                names.update(ours)
                disabled = f"{', '.join(ours)} {'is' if len(ours) == 1 else 'are'} listed in {key} of {path}"
    if off is None and names:
        off = disabled
    return managed_only or off


def _settings(path: Path) -> dict:
    """A host's settings file read as JSON with comments; {} when absent or unreadable (doctor
    says what is wrong with a file ov writes, and an install refuses it)."""
    from ov.hosts import jsonc

    try:
        value = jsonc.parse(path.read_text(encoding="utf-8-sig"), name=path, comments=True).value()
    except (OSError, ValueError, jsonc.ConfigFileInvalid):
        return {}
    return value if isinstance(value, dict) else {}


def _toml(path: Path) -> dict:
    try:
        import tomllib

        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def codex_untrusted(spec: Spec, env=None) -> int:
    """How many of ov's Codex handlers Codex skips: never reviewed, or changed since."""
    return sum(codex_unreviewed(spec, env))


def codex_unreviewed(spec: Spec, env=None) -> tuple[int, int]:
    """Of ov's Codex handlers, how many have no review in the user's ``config.toml``, and how
    many have one for another hash than theirs (changed since: a re-install from another ov, an
    upgrade), which Codex skips as silently (``trustStatus: "modified"``). For ``ov doctor``."""
    ours = _codex_handlers(spec)
    if not ours:
        return 0, 0
    state = (_toml(codex_user_config(spec, env)).get("hooks") or {}).get("state") or {}
    reviewed = {}
    for key, value in (state.items() if isinstance(state, dict) else ()):
        position = _position(spec, key)
        if position is not None and isinstance(value, dict) and isinstance(value.get("trusted_hash"), str):
            reviewed[position] = value["trusted_hash"]
    never = changed = 0
    for position, (handler, matcher) in ours.items():
        if position not in reviewed:
            never += 1
            continue
        current = codex_hook_hash(position[0], handler, matcher)
        changed += current is not None and current != reviewed[position]
    return never, changed


# The fields of a command handler Codex hashes, with the defaults it fills in for those left out.
_CODEX_HASHED = {"type": "command", "command": None, "timeout": 600, "async": False}


def codex_hook_hash(event: str, handler: dict, matcher: object = None) -> str | None:
    """The hash Codex gives a command handler of ``event`` (snake case, as in its trust keys), the
    ``currentHash`` its ``hooks/list`` reports and a review must hold: SHA-256 of the compact,
    key-sorted JSON of the event, the group's matcher and the handler with Codex's defaults
    (Codex 0.171; ``tests/test_real_hosts.py`` checks it against the real one). None for a
    handler with a field this does not know how Codex hashes: nothing can be told of it."""
    import hashlib

    if set(handler) - set(_CODEX_HASHED) or not isinstance(handler.get("command"), str):
        return None
    identity: dict = {"event_name": event, "hooks": [{key: handler.get(key, default) for key, default in _CODEX_HASHED.items()}]}
    if isinstance(matcher, str):
        identity["matcher"] = matcher
    text = json.dumps(identity, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def _codex_positions(spec: Spec) -> set[tuple[str, int, int]]:
    """``(event, group, handler)`` of ov's handlers in the file: the tail of Codex's trust keys."""
    return set(_codex_handlers(spec))


def _codex_handlers(spec: Spec) -> dict[tuple[str, int, int], tuple[dict, object]]:
    """ov's handlers in the file, each with its group's matcher, by position (:func:`_codex_positions`)."""
    from ov.hosts.ovcommand import is_ours

    try:
        data = json.loads(spec.path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    hooks = data.get("hooks") if isinstance(data, dict) else None
    found = {}
    for native, groups in (hooks.items() if isinstance(hooks, dict) else ()):
        for gi, group in enumerate(groups if isinstance(groups, list) else []):
            handlers = group.get("hooks") if isinstance(group, dict) else None
            for hi, handler in enumerate(handlers if isinstance(handlers, list) else []):
                if isinstance(handler, dict) and is_ours(handler.get("command")):
                    found[(_CODEX_EVENTS.get(native, native), gi, hi)] = (handler, group.get("matcher"))
    return found


def _position(spec: Spec, key: object) -> tuple[str, int, int] | None:
    """The position a Codex trust key (``<file>:<event>:<group>:<handler>``) names, if it is in ``spec``'s file."""
    if not isinstance(key, str) or key.count(":") < 3:
        return None
    path, event, group, handler = key.rsplit(":", 3)
    try:
        return (event, int(group), int(handler)) if _same_path(path, spec.path) else None
    except ValueError:
        return None


def _same_path(a: str | Path, b: Path) -> bool:
    try:
        return Path(a).resolve() == b.resolve()
    except (OSError, RuntimeError):
        return False


class _JsonRpc:
    """Newline-delimited JSON-RPC 2.0 with a child process over its stdin and stdout."""

    def __init__(self, argv: list[str], env: dict, cwd: Path, timeout: float) -> None:
        self.timeout = timeout
        self.proc = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.lines: queue.Queue[bytes] = queue.Queue()
        self.next_id = 0
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        for line in self.proc.stdout:  # type: ignore[union-attr]
            self.lines.put(line)
        self.lines.put(b"")

    def _send(self, message: dict) -> None:
        self.proc.stdin.write(json.dumps({"jsonrpc": "2.0", **message}).encode() + b"\n")  # type: ignore[union-attr]
        self.proc.stdin.flush()  # type: ignore[union-attr]

    def notify(self, method: str) -> None:
        self._send({"method": method})

    def call(self, method: str, params: dict):
        self.next_id += 1
        self._send({"id": self.next_id, "method": method, "params": params})
        deadline = time.monotonic() + self.timeout
        while True:
            try:
                line = self.lines.get(timeout=max(deadline - time.monotonic(), 0.01))
            except queue.Empty:
                raise TimeoutError(f"codex app-server did not answer {method} in {self.timeout:g} s") from None
            if not line:
                raise RuntimeError(f"codex app-server ended before answering {method}")
            message = json.loads(line)
            if message.get("id") != self.next_id or "method" in message:
                continue  # a notification or a request of the server's own
            if "error" in message:
                raise RuntimeError(f"codex app-server refused {method}: {message['error'].get('message', message['error'])}")
            return message.get("result")

    def __enter__(self) -> _JsonRpc:
        return self

    def __exit__(self, *exc) -> None:
        try:
            self.proc.stdin.close()  # type: ignore[union-attr]
            self.proc.wait(timeout=5)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()
            self.proc.wait()
