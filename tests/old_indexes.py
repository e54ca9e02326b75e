"""Indices as an older ov wrote them, for the tests of an upgrade (ov.index.lexical.READABLE_SCHEMA)."""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path


def _schema_11():
    """The tantivy schema ov wrote at schema 11 (ov/index/lexical.py before 31e7293), spelled out
    here rather than taken from ov, so that ov's reading of it is what is tested."""
    import tantivy

    sb = tantivy.SchemaBuilder()
    for name in ("id", "path", "uri", "kind", "type", "owner", "parent", "session_id", "message_id", "role"):
        sb.add_text_field(name, stored=True, tokenizer_name="raw")
    sb.add_text_field("ancestors", tokenizer_name="raw", index_option="basic")
    for name in ("title", "text", "speaker"):
        sb.add_text_field(name, stored=True, tokenizer_name="ov")
    sb.add_text_field("context", tokenizer_name="ov")
    sb.add_bytes_field("shown", stored=True, indexed=False)
    sb.add_unsigned_field("level", stored=True, indexed=True, fast=True)
    sb.add_unsigned_field("start_line", stored=True)
    sb.add_unsigned_field("end_line", stored=True)
    sb.add_unsigned_field("label", stored=True, indexed=True, fast=True)
    sb.add_float_field("time", stored=True, indexed=True, fast=True)
    return sb.build()


def as_schema_11(home: Path, account: str = "default") -> Path:
    """Rewrite the built index of ``account`` in ``home`` as ov wrote it at schema 11: its full text
    in schema 11's fields (no "about"), its meta.json saying 11; vectors left as they are. Returns
    the index folder."""
    from ov.config import load_config
    from ov.home import Home
    from ov.identity import Identity
    from ov.store.lock import WriteLock
    from ov.store.store import Store

    ov_home = Home(home)
    store = Store(ov_home, Identity(account=account), load_config(ov_home).config)
    # Under the index's lock, as ov writes it: the catch-up job a write started may still be
    # writing the folder (rmtree met "Directory not empty" under load in CI).
    with WriteLock(store.state / "index.lock", 120, home=ov_home):
        return _rewritten_as_11(store)


def _rewritten_as_11(store) -> Path:
    import tantivy

    from ov.index.lexical import LexicalIndex, analyzer
    from ov.index.rebuild import records_at

    root = store.state / "index"
    meta = json.loads((root / "meta.json").read_text(encoding="utf-8"))
    records = records_at(store.git, meta["commit"])
    shutil.rmtree(root / "text")
    (root / "text").mkdir()
    index = tantivy.Index(_schema_11(), path=str(root / "text"))
    index.register_tokenizer("ov", analyzer(meta["language"]))
    old = LexicalIndex(index, meta["language"], root / "text", schema_version=11)
    for label, record in enumerate(records):
        old.add(replace(record, about="", defines="", identifiers=""), label)  # what schema 11 wrote: none of the fields since
    old.commit()
    old.abandon()
    meta.update(schema_version=11, next_label=len(records), records=len(records))
    (root / "meta.json").write_text(json.dumps(meta), encoding="utf-8")
    return root
