"""What a memory must never hold: what a password, PIN, token or key is.

Memories are given to every later session of every agent. Redaction (:mod:`ov.redact`) removes
secrets it recognises from everything stored, but a password in plain words ("bluebird") or a
short PIN reads as any other word or number; a statement that says what one is, is kept out of
memories altogether, and even a redacted value would record that the user has one.
"""

from __future__ import annotations

import re

# Secrets that redaction's names do not cover (it reads code and configs more than speech).
_SECRET_NOUNS = frozenset("pin pins passcode passcodes cvv cvc otp ssn combination".split())
# "my wifi password is bluebird", not where it lives or what happens to it ("the API key is in
# 1Password", "... is rotated monthly").
_SECRET_STATED = re.compile(
    r"(?i)\b(?:my|our|the|his|her|their)\s+(?P<key>[\w' -]{1,40}?)(?:\s+(?:is|are|was)\s+|\s*[:=]\s*)"
    r"(?!(?:in|at|on|under|inside|within|from|stored|kept|saved|managed|held|located|rotated|changed|set|reset"
    r"|expired|expiring|missing|required|needed|valid|invalid|wrong|correct|different|the\s+same|shared|never|not|now\s+in)\b)"
)


def states_a_secret(text: str) -> bool:
    """Whether ``text`` says what a password, PIN, token or key is ("my wifi password is ...")."""
    return any(names_a_secret(" ".join(m.group("key").lower().split())) for m in _SECRET_STATED.finditer(text))


def names_a_secret(key: str) -> bool:
    """Whether a "my KEY is ..." statement's key names a secret (a password, passphrase, PIN, token
    or key): redaction misses plain words ("bluebird") and short numbers, and even a redacted
    value would store that the user has one."""
    from ov.redact.checks import is_secret_name

    return is_secret_name("_".join(key.split())) or key.split()[-1] in _SECRET_NOUNS
