"""Sessions and the long-term memories distilled from them.

``messages`` parses the JSON forms a message arrives in into the one form ov
stores; ``session`` captures an agent conversation turn by turn (create, add,
list, show, delete); ``commit`` archives a session, summarises it and writes the
memories it yields, with ``memory_diff.json``, in one commit; ``overview`` writes
an archive's working-memory summary and knows which of its words are the
template's; ``live`` keeps the marks of the sessions a host's hooks captured since
their last commit; ``remember`` writes a memory directly, without a session or an LLM;
``memory`` holds the memory types, their file format and the pure extraction,
merge and planning logic.
Built on the store, the LLM client and the summaries.
"""
