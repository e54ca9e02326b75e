"""What a memory must never hold: what a password, PIN, token or key is.

Memories are given to every later session of every agent. Redaction (:mod:`ov.redact`) removes
secrets it recognises from everything stored, but a password in plain words ("bluebird") or a
short PIN reads as any other word or number; a statement that says what one is, is kept out of
memories altogether, and even a redacted value would record that the user has one.
"""

from __future__ import annotations

import re

from ov.redact.checks import is_credential_kind, looks_made_up
from ov.redact.rules import PIN_STATED


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# The last word of a name that holds a secret whatever comes before it ("wifi password").
_SECRET_HEADS = _words(
    "password passwords passphrase passphrases passwd passwds pwd pwds pw pws pin pins passcode passcodes token tokens "
    "secret secrets credential credentials creds cvv cvv2 cvc otp ssn iban"
)
# Words before a head that say whose it is, not what kind: "my pass", "and our pass".
_DETERMINERS = _words("my our your his her their the a an and or but also so then")
# A bare "pass" is a password ("my pass is ..."), and so is a pass for something one logs in to;
# a bus, ski or boarding pass is not.
_PASS_KINDS = _words(
    "wifi wi-fi login email mail account user admin root sudo db database vpn router laptop computer phone server bank "
    "vault keychain master"
)
# A key or a code is a secret only of these kinds: "my favourite key is C minor", "the zip code is ...".
_KEY_KINDS = _words(
    "api ssh private access secret signing encryption license licence master deploy gpg pgp aws stripe openai "
    "github gitlab slack admin root recovery product wifi wi-fi wlan wpa wpa2 wep network router activation"
)
_CODE_KINDS = _words("pin alarm door access security gate lock safe backup recovery verification 2fa mfa otp sort")
# A number is a secret of these kinds: "my credit card number", "the account number", "my social security number".
_NUMBER_KINDS = _CODE_KINDS | _words("card account routing iban ssn cvv")
# Phrases and words that restore a wallet or an account: "my seed phrase is apple banana ...".
_PHRASE_KINDS = _words("seed recovery mnemonic secret backup wallet pass passphrase")
# A personal access token or an auth entry of a package registry or service ("my npm auth is ...");
# "our auth is Keycloak" says which system, and is kept.
_TOKEN_KINDS = _KEY_KINDS | _words("npm pypi yarn docker registry basic bearer http proxy azure ado bitbucket")
# Names of a login whose value is a user and a password together: "the admin login is admin / hunter22".
_LOGIN_HEADS = _words("login logins signin sign-in")
# Names that are as often a plan or a kind ("my account is free/paid", "the user is admin/owner"):
# a login only when the second half cannot be a word ("the Jenkins admin account is admin/hunter22").
_ACCOUNT_HEADS = _words("account accounts user users username")
# Names whose value may say what kind they are, not what they are: "the credentials are
# x509/pkcs12", "the login is ldap / kerberos5", "our creds are PEM files".
_KIND_HEADS = _words("credential credentials creds cred login logins signin sign-in")
# A value's first word, or the two of a pair ("x509/pkcs12", "ldap / kerberos5").
_FIRST_WORDS = re.compile(r"\s*(?P<first>[^\s/:,;]+)(?:\s*[/:]\s*(?P<second>[^\s/:,;]+))?")
_USER_AND_PASSWORD = re.compile(r"\s*(?P<user>[^\s/:]+)\s*(?:/|:(?!//))\s*(?P<password>[^\s/]+)")
# "my wifi password is bluebird", "the alarm code: 4821", "my passcode's 1234", "the root password
# was changed to ...", "the admin login uses admin / ..." (a login only); not where a secret
# lives, what happens to it, what kind it is, or a sentence about it ("the API key is in 1Password",
# "... is rotated monthly", "my SSH key is ed25519", "the secret is to batch writes").
_SECRET_STATED = re.compile(
    r"(?i)\b(?P<key>[\w-]+(?:\s+[\w-]+){0,3}?)"
    r"(?:\s+(?:(?:is|are|was|has\s+been|got)\s+)?(?:set|changed|reset|updated)\s+to\s+|\s+(?:is|are|was)\s+|(?P<uses>\s+uses\s+)|'s\s+|\s*[:=]\s*)"
    r"(?!(?:in(?!\s+fact)|at|on|under|inside|within|from|stored|kept|saved|managed|held|located|rotated|changed"
    r"|set(?!\s+to)|reset|expired|expiring|missing|required|needed|valid|invalid|wrong|correct|different|the\s+same"
    r"|shared|never|not|now\s+in|to|that|a\s+secret|hashed|salted|encrypted|hidden|masked|generated|ed25519|rsa|ecdsa|dsa|aes|p-?256|\d+[- ]bits?)\b)"
)
# A secret's name right before its value, with no verb: "ssh root with password Zx9pQ2rT7v", "the
# staging login uses password Zx9pQ2rT7v". The value must look made up (see _looks_made_up), since
# a word there says what kind ("uses password auth", "the password reset flow", "password policy").
_NAME_THEN_VALUE = re.compile(
    r"(?i)(?<![\w-])(?=(?:(?P<before>[\w-]+)\s+)?(?P<head>[\w-]+)\s+(?P<value>\"[^\"\n]{1,80}\"|'[^'\n]{1,80}'|[^\s\"']+))"
)
# "pin numpy==1.26", "pins v2": a verb, not a secret's name, when no verb follows it.
_VERB_HEADS = _words("pin pins")
_PASSWORD_HEADS = _words("password passwords passphrase passwd pwd pw pass passcode")


# A PIN's digits said outright ("the PIN for the door is 4921"): the shape capture's redaction
# takes the digits out by, so a memory refuses what the archive holds as [REDACTED:pin].
_PIN_DIGITS = re.compile(PIN_STATED)


def states_a_secret(text: str) -> bool:
    """Whether ``text`` says what a password, PIN, token or key is ("my wifi password is ...",
    "ssh in with password Zx9pQ2rT7v"), or holds a value redaction took out (``[REDACTED:github_token]``):
    even that records that the user has one, and which kind."""
    if "[REDACTED:" in text or _PIN_DIGITS.search(text):
        return True
    for m in _SECRET_STATED.finditer(text):
        key, value = m.group("key"), text[m.end() :]
        head = key.lower().split()[-1]
        if head in _KIND_HEADS and _names_kinds(value):
            continue
        if not m.group("uses") and names_a_secret(key):
            return True
        if head in _LOGIN_HEADS and _is_user_and_password(value):
            return True
        if head in _ACCOUNT_HEADS and _is_user_and_password(value, strict=True):
            return True
    for m in _NAME_THEN_VALUE.finditer(text):
        head, value = m.group("head").lower(), m.group("value")
        if head in _VERB_HEADS or not names_a_secret(f"{m.group('before') or ''} {head}"):
            continue
        # A password is short; a token or key named without a verb must look generated
        # ("the token gpt-4o", "the secret sauce v2" are about something else).
        if _looks_made_up(value) and (head in _PASSWORD_HEADS or len(value) >= 12):
            return True
    return False


def _looks_made_up(value: str) -> bool:
    """Quoted (the quotes say the words are the value), or made up as redaction judges it ("hunter22")."""
    if value[:1] in "\"'":
        return bool(value[1:-1].strip())
    return looks_made_up(value)


def _names_kinds(value: str) -> bool:
    """Whether ``value`` opens with what credentials are kept as or in, both words of a pair being
    such ("x509/pkcs12", "PEM files"; not "admin / pkcs12")."""
    words = _FIRST_WORDS.match(value)
    return bool(words) and all(is_credential_kind(w) for w in words.group("first", "second") if w is not None)


def _is_user_and_password(value: str, *, strict: bool = False) -> bool:
    """Whether a login's value is a user and a password ("admin / hunter22", "root:toor"), not a
    host and port ("db.local:5432") or a web address. ``strict``: the password must not be a word."""
    pair = _USER_AND_PASSWORD.match(value)
    if not pair or ("." in pair.group("user") and pair.group("password").isdigit()):
        return False
    return not strict or _looks_made_up(pair.group("password"))


def names_a_secret(key: str) -> bool:
    """Whether a "my KEY is ..." statement's key names a secret: a password, passphrase, PIN,
    token or secret, a key of a secret kind ("API key", "SSH key"), a code or number that opens
    something or pays ("alarm code", "credit card number"), or a phrase that restores a wallet
    ("seed phrase")."""
    words = [w for w in key.lower().split() if w not in _DETERMINERS] or [""]
    last, before = words[-1], words[-2] if len(words) > 1 else ""
    if last in ("key", "keys"):
        return before in _KEY_KINDS
    if last in ("code", "codes"):
        return before in _CODE_KINDS
    if last in ("number", "numbers"):
        return before in _NUMBER_KINDS
    if last in ("phrase", "phrases", "words"):
        return before in _PHRASE_KINDS
    if last in ("pass", "passes"):
        return not before or before in _PASS_KINDS
    if last in ("pat", "pats", "auth"):
        return before in _TOKEN_KINDS
    return last in _SECRET_HEADS
