"""Secret redaction: what is scrubbed from session messages before anything reaches disk.

A basic every layer may use: it depends on nothing in ov but the lazy regular
expressions of :mod:`ov.regex`.
"""
