"""Directory summaries: the L1 overview and the L0 abstract that ingest and session commits write.

``layers`` is the entry point: it samples a directory's children, runs one of the
two summarisers and turns their output into the two sidecar files. ``extractive``
is the offline, deterministic summariser, built from what ``facts`` reads out of
each file (kind, title, lead sentence, defined names); ``scaffold`` holds the fixed
words of its template, which the index leaves out; ``text`` holds the sentence
rules both use; ``overview_prompt`` fills the LLM's directory-overview prompt
within its size limit. Built on the store's sidecar format and the LLM client.
"""
