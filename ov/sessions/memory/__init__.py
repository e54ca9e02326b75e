"""Long-term memories: schemas per memory type, the file format, merging, extraction and planning.

Everything here is a pure function of its inputs; the session commit reads
the current memory files, asks :func:`plan_memory_writes` what to write, and
writes the result with the archive and ``memory_diff.json`` in one commit.
"""
