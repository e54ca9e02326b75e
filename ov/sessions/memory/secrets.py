"""What a memory must never hold: what a password, PIN, token or key is.

Memories are given to every later session of every agent. Redaction (:mod:`ov.redact`) removes
secrets it recognises from everything stored, but a password in plain words ("bluebird") or a
short PIN reads as any other word or number; a statement that says what one is, is kept out of
memories altogether, and even a redacted value would record that the user has one.
"""

from __future__ import annotations

import re

# The last word of a name that holds a secret whatever comes before it ("wifi password").
_SECRET_HEADS = frozenset(
    "password passwords passphrase passphrases passwd pwd pin pins passcode passcodes token tokens secret secrets "
    "credential credentials cvv cvc otp ssn".split()
)
# A key or a code is a secret only of these kinds: "my favourite key is C minor", "the zip code is ...".
_KEY_KINDS = frozenset(
    "api ssh private access secret signing encryption license licence master deploy gpg pgp aws stripe openai "
    "github gitlab slack admin root recovery product".split()
)
_CODE_KINDS = frozenset("pin alarm door access security gate lock safe backup recovery verification 2fa mfa otp".split())
# "my wifi password is bluebird", "the alarm code: 4821", "my passcode's 1234"; not where a secret
# lives, what happens to it, what kind it is, or a sentence about it ("the API key is in 1Password",
# "... is rotated monthly", "my SSH key is ed25519", "the secret is to batch writes").
_SECRET_STATED = re.compile(
    r"(?i)\b(?P<key>[\w-]+(?:\s+[\w-]+){0,3}?)(?:\s+(?:is|are|was)\s+|'s\s+|\s*[:=]\s*)"
    r"(?!(?:in(?!\s+fact)|at|on|under|inside|within|from|stored|kept|saved|managed|held|located|rotated|changed"
    r"|set(?!\s+to)|reset|expired|expiring|missing|required|needed|valid|invalid|wrong|correct|different|the\s+same"
    r"|shared|never|not|now\s+in|to|that|a\s+secret|ed25519|rsa|ecdsa|dsa|aes|p-?256|\d+[- ]bits?)\b)"
)


def states_a_secret(text: str) -> bool:
    """Whether ``text`` says what a password, PIN, token or key is ("my wifi password is ...")."""
    return any(names_a_secret(m.group("key")) for m in _SECRET_STATED.finditer(text))


def names_a_secret(key: str) -> bool:
    """Whether a "my KEY is ..." statement's key names a secret: a password, passphrase, PIN,
    token or secret, a key of a secret kind ("API key", "SSH key") or a code that opens something
    ("alarm code", "PIN number")."""
    words = key.lower().split()
    if not words:
        return False
    last, before = words[-1], words[-2] if len(words) > 1 else ""
    if last in ("key", "keys"):
        return before in _KEY_KINDS
    if last in ("code", "codes", "number"):
        return before in _CODE_KINDS
    return last in _SECRET_HEADS
