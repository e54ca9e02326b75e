"""Directory summaries: the L1 overview (``.overview.md``) and the L0 abstract derived from it.

Two summarisers produce the same Markdown shape (H1 = directory name, a brief
paragraph that becomes L0, then ``##`` sections):

* the **extractive** one (:mod:`ov.summaries.extractive`) runs offline and is
  deterministic, so an unchanged tree gives byte-identical sidecars and clean git diffs;
* with an enabled ``llm`` config, a prompt template (``ov/llm/templates/overview.yaml``,
  overridable in ``$OV_HOME/prompts``) is sent through :mod:`ov.llm.client`.

Size rules follow OpenViking: L0 ≤ 256 and L1 ≤ 4000 characters, cut at a
sentence end. Directories with more than 32 children are summarised from a
stable sample of them.
"""

from __future__ import annotations

import hashlib
import logging
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ov.config import LLMConfig
from ov.errors import InvalidInput
from ov.store import sidecar
from ov.summaries.text import truncate_generated

if TYPE_CHECKING:
    from ov.llm.usage import UsageLog
    from ov.waiting import Stop

SAMPLE_LIMIT = 32
# Names that usually introduce a directory; they lead the brief paragraph and are always sampled.
REPRESENTATIVE = (
    "readme", "index", "_index", "intro", "introduction", "overview", "about", "summary",
    "__init__", "pyproject", "package", "cargo", "lib", "mod",
)  # fmt: skip

log = logging.getLogger(__name__)

__all__ = [
    "REPRESENTATIVE",
    "SAMPLE_LIMIT",
    "ChildInfo",
    "DirectorySummary",
    "clean_overview",
    "derive_abstract",
    "render_sidecars",
    "sample_children",
    "summarize_directory",
    "truncate_generated",
]


@dataclass
class DirectorySummary:
    """The L1 body a summariser produced for one directory, and what it cost."""

    overview: str  # Markdown body: H1, brief paragraph (becomes L0), then sections
    total_entries: int
    sampled_entries: int
    tokens: dict[str, int] = field(default_factory=dict)  # prompt/completion tokens when an LLM wrote it


@dataclass(frozen=True)
class ChildInfo:
    """One direct child of the directory being summarised."""

    name: str
    is_dir: bool
    title: str | None = None
    text: str = ""  # files: their content (the caller may have cut it short)
    abstract: str | None = None  # directories: their current L0 body


# --- public API ----------------------------------------------------------------


def summarize_directory(
    dir_uri: str,
    children: list[ChildInfo],
    *,
    description: str | None = None,
    llm: LLMConfig | None = None,
    prompts_dir: Path | None = None,
    usage: UsageLog | None = None,
    stop: Stop | None = None,
) -> DirectorySummary:
    """The L1 body of ``dir_uri`` from its direct ``children`` (pass them in a stable order).

    Without an enabled ``llm`` the summary is extractive and deterministic. With one,
    a model writes it; an answer without an H1 and a brief paragraph is replaced by
    the extractive summary (logged), and network or HTTP failures raise
    :class:`ov.llm.client.LLMError`. ``usage`` logs the model's call; ``stop`` (:mod:`ov.waiting`)
    ends the wait for it with :class:`~ov.errors.Interrupted`.
    """
    # Deferred: session commits and skills import this module for derive_abstract and
    # truncate_generated alone, and the summariser's patterns cost tens of milliseconds.
    from ov.summaries.extractive import extractive_overview

    sample = sample_children(children)
    if llm is not None and llm.enabled:
        return _llm_summary(dir_uri, children, sample, description, llm, prompts_dir, usage, stop)
    overview = extractive_overview(_dir_name(dir_uri), children, sample, description)
    return DirectorySummary(overview=overview, total_entries=len(children), sampled_entries=len(sample))


def sample_children(children: list[ChildInfo], limit: int = SAMPLE_LIMIT) -> list[ChildInfo]:
    """At most ``limit`` children, in their original order.

    The choice depends on each name alone (introductory files first, then by a hash
    of the name), so adding or removing one child changes at most one sampled entry.
    """
    if len(children) <= limit:
        return list(children)
    ranked = sorted(range(len(children)), key=lambda i: (stem(children[i].name).lower() not in REPRESENTATIVE, _name_rank(children[i].name), i))
    chosen = set(ranked[:limit])
    return [child for i, child in enumerate(children) if i in chosen]


def derive_abstract(overview_body: str) -> str:
    """L0 from an L1 body: the lines between the leading title/blank lines and the first ``##`` line."""
    collected: list[str] = []
    for line in overview_body.splitlines():
        stripped = line.strip()
        if not collected and (not stripped or stripped.startswith("#")):
            continue
        if stripped.startswith("##"):
            break
        if stripped:
            collected.append(stripped)
    return truncate_generated("\n".join(collected), sidecar.ABSTRACT_MAX_CHARS)


def render_sidecars(
    dir_uri: str,
    summary: DirectorySummary,
    *,
    source: dict | None,
    generated_by: tuple[str, str],
) -> tuple[str, str]:
    """The full text of ``.abstract.md`` and ``.overview.md`` (OKF frontmatter and body)."""
    component, trigger = generated_by
    for label in (component, trigger):
        if not isinstance(label, str) or not label or len(label) > 128:
            raise InvalidInput(f"generated_by labels must be 1 to 128 characters, not {label!r}")
    meta: dict = {"directory": sidecar.directory_uri(dir_uri)}
    if source is not None:
        kind, uri = source.get("kind"), source.get("uri")
        if not isinstance(kind, str) or not isinstance(uri, str) or len(uri) > 4096:
            raise InvalidInput("a sidecar source needs a kind and a uri of at most 4096 characters")
        meta["source"] = {"kind": kind, "uri": uri}
    total, sampled = summary.total_entries, min(summary.sampled_entries, summary.total_entries)
    meta["generated_by"] = {"component": component, "trigger": trigger}
    meta["freshness"] = {
        "total_entries": total,
        "sampled_entries": sampled,
        "unsampled_entries": total - sampled,
        "pending_child_changes": 0,
    }
    overview = truncate_generated(summary.overview.strip(), sidecar.OVERVIEW_MAX_CHARS)
    return sidecar.render(meta, derive_abstract(overview)), sidecar.render(meta, overview)


# --- the LLM summariser --------------------------------------------------------


def _llm_summary(
    dir_uri: str,
    children: list[ChildInfo],
    sample: list[ChildInfo],
    description: str | None,
    llm: LLMConfig,
    prompts_dir: Path | None,
    usage: UsageLog | None,
    stop: Stop | None,
) -> DirectorySummary:
    from ov.llm.client import complete
    from ov.summaries.extractive import extractive_overview
    from ov.summaries.overview_prompt import load_overview_prompt, overview_messages

    name = _dir_name(dir_uri)
    prompt = load_overview_prompt(prompts_dir)
    messages = overview_messages(
        prompt,
        dir_uri=sidecar.directory_uri(dir_uri),
        dir_name=name,
        sample=sample,
        sampled=len(sample) < len(children),
        description=description,
        max_prompt_chars=llm.max_prompt_chars,
    )
    if messages is None:
        log.warning("%s: llm.max_prompt_chars leaves no room for the entries; using the extractive summary", dir_uri)
        return DirectorySummary(extractive_overview(name, children, sample, description), len(children), len(sample))
    completion = complete(llm, messages, purpose=f"overview of {sidecar.directory_uri(dir_uri)}", temperature=prompt.temperature, usage=usage, stop=stop)
    tokens = {"prompt_tokens": completion.prompt_tokens, "completion_tokens": completion.completion_tokens}
    overview = clean_overview(completion.text, name)
    if overview is None:
        log.warning("%s: the model's overview has no title and brief paragraph; using the extractive summary", dir_uri)
        overview = extractive_overview(name, children, sample, description)
    return DirectorySummary(
        overview=truncate_generated(overview, sidecar.OVERVIEW_MAX_CHARS),
        total_entries=len(children),
        sampled_entries=len(sample),
        tokens=tokens,
    )


def clean_overview(text: str, dir_name: str) -> str | None:
    """The model's answer as an overview body, or None when it lacks an H1 followed by a brief paragraph.

    Reasoning blocks and a wrapping code fence are removed; the H1 is set to the
    directory name so every overview is titled alike.
    """
    text = re.sub(r"<think>.*?</think>", "", text, flags=re.DOTALL | re.IGNORECASE).strip()
    fence = re.fullmatch(r"(```|~~~)[\w-]*\n(.*)\n\1", text, flags=re.DOTALL)
    if fence:
        text = fence.group(2).strip()
    lines = text.splitlines()
    if not lines or not re.match(r"#\s+\S", lines[0]):
        return None
    rest = "\n".join(lines[1:]).strip()
    if not rest or rest.startswith("#") or not derive_abstract(rest):
        return None
    return f"# {dir_name}\n\n{rest}"


# --- names -----------------------------------------------------------------------


def _dir_name(dir_uri: str) -> str:
    path = dir_uri.split("://", 1)[-1].strip("/")
    return path.rsplit("/", 1)[-1] if path else dir_uri


def stem(name: str) -> str:
    """A file name without its extension ("README" of "README.md"; ".env" stays)."""
    return name.rsplit(".", 1)[0] if "." in name.strip(".") else name


def _name_rank(name: str) -> bytes:
    return hashlib.sha256(name.encode("utf-8", "surrogatepass")).digest()
