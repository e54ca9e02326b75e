"""ov: a local-first, git-backed context database for AI coding agents.

The package is a core library in layers, with adapters on top. The modules at
this root are the basics every layer uses (errors, URIs, identity, home and
config, atomic files, token estimates); above them come the store and the LLM
client, then summaries, then ingest and sessions, then the derived indices,
then retrieval, history, packs and health checks. The command line in
:mod:`ov.cli` is an adapter: it imports the core, and nothing in the core
imports it. ``docs/architecture.md`` draws the layers; ``tests/test_architecture.py``
enforces their order.
"""

__version__ = "0.1.0"
