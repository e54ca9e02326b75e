"""Ingest: turning files, directories and URLs into resources with L0/L1 summaries.

``sources`` finds what to read (local paths, URLs), ``parsers`` and ``splitter``
turn each file into Markdown pieces of bounded size, ``resource`` and ``skills``
write the result and its directory summaries into the store as one commit, and
``model`` holds the data passed between them. Built on the store, the LLM client
and the summaries.
"""
