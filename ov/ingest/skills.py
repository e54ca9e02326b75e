"""`ov add-skill`: store an agent skill (a folder with ``SKILL.md``) under ``viking://agent/skills/{name}/``.

``SKILL.md`` starts with YAML frontmatter naming the skill and saying when to
use it (the format Claude Code and other hosts read)::

    ---
    name: pdf-forms
    description: Fill in PDF forms. Use when the user asks to complete a PDF form.
    ---

The skill's directory (its ``SKILL.md`` and any text files beside it) is copied
as one commit; adding a skill of the same name again replaces it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from ov.errors import InvalidInput, quote
from ov.files import utf8_text
from ov.ingest.model import Layout, Skipped, respelled
from ov.ingest.sources import collect_path
from ov.store import sidecar
from ov.store.store import Store
from ov.uri import VikingURI, join_new

SKILL_FILE = "SKILL.md"
NAME_RE = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
NAME_MAX = 64
DESCRIPTION_MAX = 1024
GENERATOR = ("ov-ingest", "skill_ingest")


@dataclass
class SkillResult:
    """What adding a skill wrote, removed and skipped."""

    name: str
    uri: str
    files: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    commit: str | None = None

    def to_dict(self) -> dict:
        return {
            "name": self.name,
            "uri": self.uri,
            "commit": self.commit,
            "changed": self.commit is not None,
            "files": self.files,
            "removed": self.removed,
            "skipped": [{"path": s.path, "reason": s.reason} for s in self.skipped],
        }


def add_skill(store: Store, path: str, *, user_scope: bool = False) -> SkillResult:
    source = Path(path)
    if not source.exists():
        raise InvalidInput(f"{path} does not exist", hint="give a skill folder or its SKILL.md")
    folder = source if source.is_dir() else source.parent
    skill_md = folder / SKILL_FILE if source.is_dir() else source
    if source.is_dir() and not skill_md.is_file():
        raise InvalidInput(f"{folder} has no {SKILL_FILE}")
    if skill_md.name != SKILL_FILE:
        raise InvalidInput(f"{skill_md.name} is not a {SKILL_FILE}")
    # SKILL.md as UTF-8 without a mark: hosts read a skill's frontmatter from its first bytes.
    skill_text = utf8_text(skill_md.read_bytes())
    meta = parse_skill(skill_text, str(skill_md))
    name, description = meta["name"], meta["description"]
    if source.is_dir():
        # Lockfiles and bundles kept: a skill's scripts run with them.
        collected = collect_path(folder, max_bytes=store.config.ingest.max_source_bytes, machine_files=True)
        layout = Layout()
        files = {layout.claim(f.relpath): skill_text if f.relpath == SKILL_FILE else f.data for f in collected.files}
        skipped = collected.skipped
    else:
        files, skipped = {SKILL_FILE: skill_text}, []
    base = ("user", store.identity.user, "skills") if user_scope else ("agent", "skills")
    root = VikingURI((*base, name))
    result = SkillResult(name, str(root), skipped=list(skipped))
    uris = {rel: _skill_file(root, rel) for rel in files}  # every name checked before the lock
    with store.transaction() as tx:
        existing = {u.relative_to(root) for u, _ in store.walk_files(root, show_all=True)} if store.path(root).is_dir() else set()
        keep = set(files) | set(sidecar.SIDECARS)
        renamed = respelled(existing - keep, files)
        for rel in sorted(files):
            uri = uris[rel]
            if tx.existing_file(uri) != files[rel] or rel in renamed:
                tx.put(uri, files[rel])
            result.files.append(str(uri))
        abstract, overview = _sidecars(root, name, description, sorted(files))
        for rel in sorted(existing - keep):
            uri = VikingURI(root.parts + tuple(rel.split("/")))
            if tx.existing_file(uri) is not None:
                tx.delete(uri)
                result.removed.append(str(uri))
        for name_, text in ((sidecar.ABSTRACT, abstract), (sidecar.OVERVIEW, overview)):
            uri = VikingURI((*root.parts, name_))
            if tx.existing_file(uri) != text.encode("utf-8"):
                tx.put(uri, text.encode("utf-8"))
        result.commit = tx.commit("add-skill", [root]).commit
    return result


def _skill_file(root: VikingURI, rel: str) -> VikingURI:
    """Where a file of the skill's folder goes. Unlike a resource's, its name is never changed:
    the skill's instructions may name it, so one ov cannot store refuses the whole skill."""
    try:
        return join_new(root, rel)
    except InvalidInput as exc:
        raise InvalidInput(f"cannot store the skill's file {quote(rel)}: {exc.message}", hint="rename it in the skill's folder, and where its instructions name it") from None


def parse_skill(data: bytes, where: str) -> dict[str, str]:
    """Validate SKILL.md's frontmatter; return its fields (``name`` and ``description`` checked)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise InvalidInput(f"{where} is not UTF-8 text") from None
    if not text.startswith("---"):
        raise InvalidInput(
            f"{where} has no frontmatter",
            hint="start it with a '---' block holding `name:` and `description:`",
        )
    meta, _body = sidecar.parse(text)
    if not meta:
        raise InvalidInput(f"{where} has empty frontmatter", hint="add `name:` and `description:`")
    name = meta.get("name")
    if not isinstance(name, str) or not name.strip():
        raise InvalidInput(f"{where}: frontmatter has no `name`")
    if len(name) > NAME_MAX or not NAME_RE.fullmatch(name):
        raise InvalidInput(
            f"{where}: skill name {name!r} is not allowed",
            hint=f"use lowercase letters, digits and single hyphens, at most {NAME_MAX} characters",
        )
    description = meta.get("description")
    if not isinstance(description, str) or not description.strip():
        raise InvalidInput(f"{where}: frontmatter has no `description`", hint="say what the skill does and when to use it")
    if len(description) > DESCRIPTION_MAX:
        raise InvalidInput(f"{where}: description is longer than {DESCRIPTION_MAX} characters")
    return {**{k: v for k, v in meta.items() if isinstance(v, str)}, "name": name, "description": description.strip()}


def _sidecars(root: VikingURI, name: str, description: str, files: list[str]) -> tuple[str, str]:
    from ov.summaries.layers import derive_abstract, truncate_generated

    lines = [f"# {name}", "", description, "", "## Files"]
    lines += [f"- {rel}" for rel in files]
    overview = truncate_generated("\n".join(lines), sidecar.OVERVIEW_MAX_CHARS)
    meta = {"directory": sidecar.directory_uri(str(root)), "generated_by": {"component": GENERATOR[0], "trigger": GENERATOR[1]}}
    return sidecar.render(meta, derive_abstract(overview)), sidecar.render(meta, overview)
