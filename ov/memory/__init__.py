"""Long-term memories: schemas per memory type, the file format, merging, extraction and planning.

Everything here is a pure function of its inputs; the session commit reads
the current memory files, asks :func:`plan_memory_writes` what to write, and
writes the result with the archive and ``memory_diff.json`` in one commit.
"""

from ov.memory.extract import Candidate, extract_explicit
from ov.memory.files import build_meta, format_time, parse_memory, render_memory
from ov.memory.merge import merge_fields, patch_text
from ov.memory.plan import MemoryPlan, build_memory_diff, plan_memory_writes
from ov.memory.schema import FieldSpec, MemorySchema, load_schemas

__all__ = [
    "Candidate",
    "FieldSpec",
    "MemoryPlan",
    "MemorySchema",
    "build_memory_diff",
    "build_meta",
    "extract_explicit",
    "format_time",
    "load_schemas",
    "merge_fields",
    "parse_memory",
    "patch_text",
    "plan_memory_writes",
    "render_memory",
]
