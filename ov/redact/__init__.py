"""Secret redaction: what is scrubbed from session messages before anything reaches disk.

Callers import :mod:`ov.redact.engine`: ``redact`` for a text, ``redact_value`` for
JSON-like data; :mod:`ov.redact.recurring` recognises a value taken out of one message where a
later one repeats it. :mod:`ov.redact.rules` holds the table of recognisers and what they
recognise; :mod:`ov.redact.checks` the judgements of names and values with which
they tell a secret from code and prose. It depends on nothing in ov but the lazy
regular expressions of :mod:`ov.regex` and the URLs' user info of :mod:`ov.urls`. This
file imports nothing, since hooks import the package on every agent turn.
"""
