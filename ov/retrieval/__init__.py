"""Retrieval: answering a query from the indices and the work tree.

``find`` ranks records from both indices and fuses them; ``plan`` turns a
query (and the session's recent messages) into sub-queries, deterministically
or with an LLM; ``search`` runs a plan and ``context`` packs the hits into a
token budget for an agent; ``grep`` matches patterns on the work tree's lines
and paths. Built on the indices and everything below them.
"""
