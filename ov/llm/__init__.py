"""Talking to a language model: the litellm client, the prompt templates, and token accounting.

``client`` is the only place ov calls a model (litellm is imported on first use,
never at start-up); ``prompts`` loads the YAML templates in ``templates/`` (or the
user's overrides in ``$OV_HOME/prompts/``); ``usage`` appends every call's tokens to
the account's usage log. It depends only on the basics; summaries, ingest,
sessions, the API embedder and the query planner build on it.
"""
