"""Talking to a language model: the client, the prompt templates, and token accounting.

``client`` is the only place ov calls a model. It routes a litellm model string
(``routes``) to ov's own client for OpenAI-compatible servers, Anthropic and Ollama
(``native``, sending through ``wire`` on the standard library), and to litellm for
every other provider (imported on first use, never at start-up: it takes seconds);
``prompts`` loads the YAML templates in ``templates/`` (or the user's overrides in
``$OV_HOME/prompts/``); ``usage`` appends every call's tokens to the account's usage
log. It depends only on the basics; summaries, ingest, sessions, the API embedder and
the query planner build on it.
"""
