"""ov: a local-first, git-backed context database for AI coding agents.

The package is a core library (this package's modules) with a thin command
line adapter in :mod:`ov.cli`. Nothing outside ``ov.cli`` imports typer or rich.
"""

__version__ = "0.1.0"
