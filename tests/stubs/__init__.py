"""Loopback model stubs for the real-host tests: each serves one model API on 127.0.0.1.

- :mod:`tests.stubs.anthropic`: the Messages API (Claude Code, OpenCode's anthropic provider);
- :mod:`tests.stubs.openai_responses`: the Responses API (Codex);
- :mod:`tests.stubs.gemini`: the Gemini API (Gemini CLI).

Each stub is a context manager that records every request it was sent and answers model calls
with one configurable reply text; each module's ``text_of(request)`` flattens what the model was
shown in one request, so a test can assert that injected context reached the model. A test can
also script tool calls (``stub.script = [ToolCall(...), ..., "text"]``, :mod:`tests.stubs.base`)
and read back the results the host returned (``stub.tool_result(call)``).
"""
