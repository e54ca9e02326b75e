"""Directory summaries: the L1 overview and the L0 abstract that ingest and session commits write.

``layers`` holds both summarisers (the offline, deterministic extractive one
and the LLM one) and turns their output into the two sidecar files;
``overview_prompt`` fills the directory-overview prompt within its size limit.
Built on the store's sidecar format and the LLM client.
"""
