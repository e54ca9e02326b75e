"""The MCP server: ``ov mcp``, ov's tools for a model over stdio, beside the CLI and the hooks.

``server`` speaks MCP's newline-delimited JSON-RPC on stdin and stdout, answering ``tools/list``
within milliseconds of its start (it imports nothing heavy until a tool runs); ``tools`` holds
each tool's schema, its one-line description and the core function it calls, with the same
identity, guarantees and messages as the command line. An adapter: it imports the core, and
nothing imports it but the command line that starts it.
"""
