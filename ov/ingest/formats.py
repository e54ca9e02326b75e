"""The file extensions ingest reads as documents, and the names of files written for machines: a
module of constants alone, so that the prompt hook can read them (:mod:`ov.retrieval.named`) without importing ingest's data classes."""

from __future__ import annotations

# The documents ingest reads as Markdown, each written as ``{stem}.md`` or, when long, as a folder
# ``{stem}/`` of its sections (:mod:`ov.ingest.splitter`): a query naming ``guide.rst`` means either.
MARKDOWN_EXTENSIONS = frozenset({".md", ".markdown", ".mdx", ".mdown", ".mkd", ".mkdn"})
RST_EXTENSIONS = frozenset({".rst", ".rest"})
HTML_EXTENSIONS = frozenset({".html", ".htm", ".xhtml"})
PDF_EXTENSIONS = frozenset({".pdf"})
NOTEBOOK_EXTENSIONS = frozenset({".ipynb"})
DOCUMENT_EXTENSIONS = MARKDOWN_EXTENSIONS | RST_EXTENSIONS | HTML_EXTENSIONS | PDF_EXTENSIONS | NOTEBOOK_EXTENSIONS
# How the entries of a long document's folder of sections are named: numbered in document order,
# two digits at least (``01_Intro.md``, ``02_Setup/``, ``00_`` for a preamble; ov.ingest.splitter).
# What tells such a folder from a folder of the source of the same name.
SECTION_NAME = r"[0-9]{2,}_"
# Files tools write for machines, not people (ingest skips them, find ranks them below code:
# ov.retrieval.secondary): dependency lockfiles, minified bundles and source
# maps (hundreds of kilobytes of hashes or one line of code each, that would crowd the index and the
# summaries). A folder outside git, or a committed dist/, has no .gitignore to leave them out;
# --include takes them back.
LOCKFILES = frozenset({
    "uv.lock", "poetry.lock", "pdm.lock", "Pipfile.lock", "package-lock.json", "npm-shrinkwrap.json", "yarn.lock",
    "pnpm-lock.yaml", "bun.lock", "Cargo.lock", "Gemfile.lock", "composer.lock", "go.sum", "Podfile.lock",
    "pubspec.lock", "mix.lock", "flake.lock", "packages.lock.json", "Package.resolved",
})  # fmt: skip
MACHINE_SUFFIXES = ((".min.js", "minified bundle"), (".min.css", "minified bundle"), (".map", "source map"))
