"""Retrieval: answering a query from the indices and the work tree.

``find`` ranks records from both indices and fuses them, one result per text
(``copies``), each shown by the lines that hold the query's words
(``snippets``); ``plan`` turns a query (and the session's recent messages) into
sub-queries, deterministically or with an LLM; ``search`` runs a plan and
``context`` packs the hits into a token budget for an agent; ``grep`` matches
patterns on the work tree's lines and paths. Built on the indices and
everything below them.
"""

# The most results one find or search returns: past it a ranking pool of three times as many runs
# into tantivy's own limits (a limit of 2**32 aborted the MCP server on a 206 GB allocation).
MAX_RESULTS = 1000
