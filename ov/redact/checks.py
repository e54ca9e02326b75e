"""How the redaction rules tell a secret from code and prose: judgements and checks.

The judgements of names and values (does ``DB_PASS`` name a secret, is
``get_token()`` a secret or code) are shared by the rules' checks and by
:func:`ov.redact.engine.redact_value`, which judges dict keys the same way. A
check is the veto of one rule (or a few) in :mod:`ov.redact.rules` over a match
of its pattern, reading the pattern's named groups. The decisions they make are
listed in the docstring of :mod:`ov.redact.rules`.
"""

from __future__ import annotations

import base64
import binascii
import re

from ov.regex import LazyPattern

__all__ = [
    "MARKER",
    "QUOTE_GROUPS",
    "check_assignment",
    "check_assignment_by_shape",
    "check_aws_secret",
    "check_cli_password",
    "check_credential",
    "check_discord",
    "check_flag",
    "check_flag_by_shape",
    "check_netrc",
    "check_prose",
    "check_sas_signature",
    "check_session_cookie",
    "check_url_password",
    "has_digit",
    "is_generated_token",
    "is_secret_name",
    "is_secret_value",
    "looks_made_up",
    "names_a_password",
    "not_masked",
    "not_placeholder",
]

# What every marker starts with. Here rather than in the engine: the judgements below need it too
# (a value holding a marker is never a secret to redact again).
MARKER = "[REDACTED:"

# ----- value and name judgements shared by the rules ---------------------------

# Anywhere in a value, these say it is an example or a template, not a secret.
_MASKED = LazyPattern(
    r"""(?x)
      \.\.\. | … | x{4,} | X{4,} | \*{3,} | •{3,} | REDACTED
    | <[A-Za-z_][\w.:()\s-]*(?:>|$)                 # <your-token>
    | \{[A-Za-z_][\w.]*[}\s(\[!:]                    # {token}, {{ secrets.X }}, {name or ...}
    | \$\{ | \$[A-Z_][A-Z0-9_]{2,}\b | \$\(          # ${...}, $API_KEY, $(command)
    | -----BEGIN\ (?:PUBLIC\ KEY|CERTIFICATE)         # public material
    """
)
# The whole value is one of these.
_PLACEHOLDER = LazyPattern(
    r"""(?ix)
      [-+]?(?:\d{1,6}(?:\.\d+)?|\d{1,3}(?:_\d{3})+|\d*\.\d+)(?:e[-+]?\d+)?   # lengths, limits, prices
    | 0x[0-9a-f]{1,8} | \#[0-9a-f]{3,8}                     # bit masks, colours
    | (?:\\[ux][0-9a-f]{2,8})+                               # escaped characters
    | true|false|yes|no|on|off|null|none|nil|undefined|n/a|value|string
    | include|omit|same-origin|read|write|enabled|disabled  # modes and permissions
    | [x*•._\#-]+                                           # masks
    | \{\{.*\}\} | \{[^{}"':]*\}                            # template slots (not JSON)
    | \$\(.*\) | \$[A-Za-z_]\w* | %[A-Za-z_]\w*%               # shell and env references
    | (?-i:[\w.]+[/:][A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)          # os.environ/API_KEY, env:API_KEY
    | %[-+\ \#0-9.]*[sdifrx] | %\(\w+\)[sdifr] | \?           # printf and SQL parameters
    | your[\s_-].* | [\w.-]*[_-]here | change[_-]?me | placeholder | todo | tbd | fixme
    | (?:bearer|basic|token|digest)(?:\s+[a-z_]*)?            # a scheme waiting for its token
    """
)
_NAME_CHARS = LazyPattern(r"[A-Za-z_][\w.-]*")
_ENV_NAME = LazyPattern(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+")
_HEADER_NAME = LazyPattern(r"(?:[A-Z][A-Za-z0-9]*-)+[A-Z][A-Za-z0-9]*")
_SNAKE_WORDS = LazyPattern(r"[a-z]+(?:[_.][a-z]+)+")
# How people name a key or a resource that holds a secret: lower-case words joined
# (`db-credentials`, `admin_password_2`, the names of Kubernetes secrets) or a code
# identifier in camelCase words (`apiKey`, `adminPasswordKey`). A password built of words has
# capitals or digits among them instead (`Summer2024Password`, `MyPasswordIs42`).
_LOWER_COMPOUND = LazyPattern(r"[a-z][a-z0-9]*(?:[-_.][a-z0-9]+)+")
_CAMEL_IDENT = LazyPattern(r"[a-z]+(?:[A-Z][a-z]+)+")
# A kind of credential named in capitalised words (`ApiKey`, `AccessToken`, `ClientSecret`: a
# scheme's or a field's name) holds no other word; `MySecretToken` and `PasswordReset` do.
_KIND_OF_SECRET = LazyPattern(
    r"(?:(?:api|access|refresh|id|client|bearer|oauth|session|private|master|service|account|app|user|admin|root|bot"
    r"|webhook|consumer|deploy|signing|encryption|ssh|jwt|hmac|auth|secret|password|passwd|token|key|keys)(?:_|$))+"
)
_DOTTED_NAME = LazyPattern(r"[a-z_]\w*(?:\.[A-Za-z_]\w*)+")
_CAMEL_TYPE = LazyPattern(r"[A-Z][A-Za-z0-9]*[a-z][A-Za-z0-9]*")
# Absolute paths, and relative resource paths in lowercase (base64 secrets are mixed case).
_PATH = LazyPattern(r"(?:~|\.{1,2})?(?:/[\w.{}-]+){2,}/?|(?:[a-z0-9][a-z0-9._{}-]*/){2,}[a-z0-9][a-z0-9._{}-]*")
_URL = LazyPattern(r"[a-z][a-z0-9+.-]*://[^\s@]+", re.I)
_SHELL_DIR = LazyPattern(r"[/~]|\.{1,2}(?:/|$)|[A-Za-z]:[\\/]")
_URL_PART = LazyPattern(r"[^/?&=#.:]+")
_TYPE_EXPR = LazyPattern(r"[A-Za-z_][\w.\[\], |\"']*")
_IDENT = LazyPattern(r"[A-Za-z_$][\w$]*")
# Unquoted right-hand sides that are code rather than a literal secret.
_CODE = LazyPattern(
    r"""(?x)
      [A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+(?:[(\[)\]{}+*|&!?<>=,:].*)?   # attribute path in an expression
    | [A-Za-z_$][\w$]*[(\[)\]{}].*                              # call, subscript, end of a call
    | (?i:self|this|cls|await|new|lambda|function|async|yield|not|typeof|return
         |str|string|int|integer|float|bool|boolean|bytes|number|any|object|dict|list
         |optional|secretstr|secretbytes|unknown|void|required|callable)
    """
)
# What follows a value that is an operand in an expression rather than the whole right-hand side.
_OPERATOR_FOLLOWS = LazyPattern(r"\s*(?:[+*/%|^<>!=?]|-\s|&&|\.\w|(?:or|and|if|else|in|is|not|for)\b)")
# The words of _OPERATOR_FOLLOWS, which in a sentence ("... is "x" and the key is ...") go on with it.
_PROSE_GOES_ON = LazyPattern(r"(?:or|and|if|else|in|is|not|for)\b")
_CODE_FOLLOWS = LazyPattern(r"\s*[,)\]}]|" + _OPERATOR_FOLLOWS.pattern)
_WORDLIKE = LazyPattern(r"[A-Za-z][a-z]*|[A-Z]+")

_CAMEL = LazyPattern(r"(?<=[a-z0-9])(?=[A-Z])")
_NON_ALNUM = LazyPattern(r"[^a-z0-9]+")
_SECRET_WORD = LazyPattern(
    r"""(?x)
      secret | passw(?:or)?d | passphrase | pwd | credential | (?:^|_)creds?(?:$|_)
    | token(?!i[sz]|s(?:$|_))                     # not tokenizer, max_tokens
    | auth(?!or(?!i[sz])|ent)                     # authorization, not author(ity), authenticated
    | (?:api|access|private|client|master|signing|encryption|app|service|account
         |session|license|webhook|consumer|deploy|ssh|hmac|jwt|bot|admin|root|auth)_?keys?(?:$|_)
    """
)
# `pass` and `pw` are words of their own too (on_pass, first_pass): only a last word, after a noun.
_PASS_WORD = LazyPattern(r"(?:^|_)(?:pass|pw)$")
_PASS_NOT_SECRET = LazyPattern(r"(?:^|_)(?:on|first|second|third|last|next|each|per|single|multi|dry|one|two|by)_(?:pass|pw)$")
# Tokens of a tokenizer or of a model's usage, not credentials.
_LANGUAGE_TOKEN = LazyPattern(
    r"(?:^|_)(?:bos|eos|pad|unk|sep|cls|mask|special|stop|start|end|max|min|num|first|last|next|prev"
    r"|input|output|prompt|completion|reasoning|cached|per)_tokens?(?:$|_)"
)
_KEY_WORD = LazyPattern(r"(?:^|_)keys?(?:$|_)")
# In UPPER_SNAKE constants, `<noun>_KEY` names a dict key or a cache key, not a credential.
_NON_SECRET_KEY = LazyPattern(
    r"(?:^|_)(?:cache|sort|primary|foreign|partition|group|lookup|dict|map|hash|idempotency|state|response"
    r"|request|header|query|params?|id|name|field|attr|attribute|metadata|meta|storage|store|object|index"
    r"|label|tag|config|setting|row|column|table|event|context|route|path|resource|model|message|data|item"
    r"|entry|record|result|value|var|version|prefix|lock|queue|job|task|bucket|file|missing|default|unique"
    r"|composite|sequence|foreign|public)_keys?$"
)
# The last word of a name saying the value describes or handles the secret rather than being it.
_METADATA_WORD = LazyPattern(
    r"""(?x)(?:^|_)(?:
      url|uri|urls|endpoint|host|hostname|port|path|file|filename|dir|type|kind|mode|method|methods
    | provider|scheme|name|names|alias|length|len|count|counter|size|limit|budget|timeout|ttl
    | expiry|expires|expires_in|expires_at|format|header|headers|env|var|sock|socket|id|ids
    | prefix|field|param|params|location|index|version|prompt|label|hint|help|message|msg|text
    | title|description|placeholder|error|errors|enabled|required|policy|strategy|algorithm|alg
    | user|username|login|email|arn|str|string|time|date|at|begin|end|start|eof|open|close
    | backend|manager|cache|dict|map|obj|object|handler|class|model|schema|table|column|scope
    | scopes|status|state|info|config|settings|options|role|roles|cost|price|rate|seconds|ms|usage
    | attr|attribute|form|owner|source|audience|issuer|fingerprint|thumbprint
    )$"""
)


# What is public by name: a .NET assembly's publicKeyToken, a VAPID public_key.
_PUBLIC = LazyPattern(r"(?:^|_)public(?:$|_)")


def _words(name: str) -> str:
    return _NON_ALNUM.sub("_", _CAMEL.sub("_", name).lower()).strip("_")


_NOT_SECRET, _WEAK, _STRONG = 0, 1, 2


def _name_strength(name: str) -> int:
    """How surely a name holds a secret: not, weakly (an UPPER_SNAKE `..._KEY`), or strongly."""
    # `self.token`, `config.password`: the attribute names the value, its owner does not.
    name = name.rsplit(".", 1)[-1]
    words = _words(name)
    if not words or _METADATA_WORD.search(words) or _LANGUAGE_TOKEN.search(words) or _PUBLIC.search(words):
        return _NOT_SECRET
    if _SECRET_WORD.search(words) or (_PASS_WORD.search(words) and not _PASS_NOT_SECRET.search(words)):
        return _STRONG
    # STRIPE_KEY is a secret; sort_key and cache_key in code are not, and neither is
    # CONFIG_KEY = "pydantic-mypy", so these need more evidence from the value.
    upper = not any(c.islower() for c in name)
    if upper and _KEY_WORD.search(words) and not _NON_SECRET_KEY.search(words):
        return _WEAK
    return _NOT_SECRET


def is_secret_name(name: str) -> bool:
    return _name_strength(name) != _NOT_SECRET


def _is_name(value: str, name: str = "") -> bool:
    """The value is itself a name (dict key, enum, env variable, header), not a secret."""
    if not _NAME_CHARS.fullmatch(value) or _has_random_part(value):
        return False
    if _ENV_NAME.fullmatch(value) or _SNAKE_WORDS.fullmatch(value):
        return True
    # A header's name (`"auth": "X-Api-Key"`) says where a token goes. A password is no header, so
    # under its name capitalised parts joined by hyphens are the password (`Plaza-Wobble-Turtle7`),
    # and so they are under a secret's name with a digit among them, which header names seldom hold.
    if _HEADER_NAME.fullmatch(value) and not (names_a_password(name) or (is_secret_name(name) and any(c.isdigit() for c in value))):
        return True
    if _DOTTED_NAME.fullmatch(value) or (value.startswith("__") and value.endswith("__")):
        return True
    words = _words(value)
    if name:
        name_words = _words(name)
        if name_words.endswith(words) or name_words.rsplit("_", 1)[-1].startswith(words):
            return True  # an enum spelling its own name: AUTH = "auth", password: "pass"
    # A kind of credential is what a token or a secret is (`"auth": "AccessToken"`); a password is
    # no kind of token, so under a password's name those words are the password.
    kind = bool(_KIND_OF_SECRET.fullmatch(words)) and not names_a_password(name)
    named = bool(_LOWER_COMPOUND.fullmatch(value) or _CAMEL_IDENT.fullmatch(value) or kind)
    return named and bool(_SECRET_WORD.search(words) or _KEY_WORD.search(words))


# A name whose last word says its value is a password (`password`, `DB_PASS`, `admin_pwd`): the
# value is the password whatever its case, where a token's or a secret's may name a kind or a type.
_PASSWORD_WORD = LazyPattern(r"(?:^|_)(?:passw(?:or)?d|passphrase|passcode|pwd|pass|pw)$")


def names_a_password(name: str) -> bool:
    words = _words(name.rsplit(".", 1)[-1])
    return bool(_PASSWORD_WORD.search(words)) and not _PASS_NOT_SECRET.search(words)


_CAPITALISED_WORD = LazyPattern(r"[A-Z]?[a-z]{3,}")
# A name's last word saying its value is a digest of the secret, and a digest's lengths in hex
# (MD5, SHA-1, SHA-224, SHA-256, SHA-384, SHA-512).
_DIGEST_NAME = LazyPattern(r"(?:^|_)(?:hash|hashed|digest|checksum|md5|sha1|sha224|sha256|sha384|sha512)$")
_HEX_DIGEST = LazyPattern(r"[0-9a-f]+|[0-9A-F]+")
_DIGEST_LENGTHS = frozenset({32, 40, 56, 64, 96, 128})


def _is_hex_digest(value: str) -> bool:
    return len(value) in _DIGEST_LENGTHS and bool(_HEX_DIGEST.fullmatch(value))


def _mostly_words(value: str) -> bool:
    """Half or more of it in words of three letters or more (`Sam3LiteTextModel2`, `Qwen2Tokenizer`):
    a name someone gave, digits and all; a generated token has few such runs (`AbCdEf12345678XyZ`)."""
    return sum(len(word) for word in _CAPITALISED_WORD.findall(value)) >= len(value) / 2


def _is_generated(value: str) -> bool:
    """Random-looking: generated secrets mix digits with letters, people's names for things rarely do."""
    digits = any(c.isdigit() for c in value)
    alpha = any(c.isalpha() for c in value)
    mixed = any(c.isupper() for c in value) and any(c.islower() for c in value)
    return digits and alpha and (mixed or len(value) >= 16) and not _ENV_NAME.fullmatch(value)


_CHAR_CLASS_RUNS = LazyPattern(r"[a-z]+|[A-Z]+|[0-9]+")
_WORD_RUNS = LazyPattern(r"[a-z]{4,}")
_CODE_PARTS = LazyPattern(r"[^._()\[\]{}-]{12,}")


def _has_random_part(value: str) -> bool:
    """`s.Ab12Cd34Ef56Gh78` reads as an attribute path but holds a token.

    Random text switches between lower case, upper case and digits far more often
    than names do, and has few runs of four lower-case letters (names are words).
    """
    for part in _CODE_PARTS.findall(value):
        if not any(c.isdigit() for c in part):
            continue
        switches = len(_CHAR_CLASS_RUNS.findall(part))
        in_words = sum(len(word) for word in _WORD_RUNS.findall(part))
        if switches >= 0.4 * len(part) and in_words < 0.3 * len(part):
            return True
    return False


def _is_placeholder(value: str) -> bool:
    # Below four characters nothing is worth protecting, and `*`, `f`, `ok` are everywhere in code.
    return len(value) < 4 or MARKER in value or bool(_PLACEHOLDER.fullmatch(value) or _MASKED.search(value))


def _is_plain_url(value: str) -> bool:
    """A URL carrying no credentials (those with a password are the URL rule's)."""
    return bool(_URL.fullmatch(value)) and not any(
        len(part) >= 16 and _is_generated(part) for part in _URL_PART.findall(value)
    )


def is_secret_value(
    value: str, *, quoted: bool, name: str = "", spaced: bool = False, colon: bool = False, after: str = ""
) -> bool:
    """Whether the value assigned to a secret-looking name is worth redacting.

    ``spaced``: whitespace around ``=``; ``colon``: the separator was ``:`` where a type may
    follow (see :func:`check_assignment`);
    ``after``: the text right after the value (after the closing quote if quoted).
    """
    value = value.strip()
    if _is_placeholder(value) or _is_name(value, name) or _PATH.fullmatch(value) or _is_plain_url(value):
        return False
    if names_credential_kinds(value):
        return False  # `creds: x509/pkcs12`, `auth: saml`: what the credentials are, not one of them
    if _DIGEST_NAME.search(_words(name)) and _is_hex_digest(value):
        return False  # `password_hash = "<sha256>"`: what a check compares with, not the password
    if _words(name) in ("pwd", "oldpwd") and _SHELL_DIR.match(value):
        return False  # the shell's working directory, not ODBC's `PWD=...;`
    if quoted:
        if _is_generated(value):
            return True
        annotation = after.startswith("=") and not after.startswith("==")
        type_expr = ("|" in value or "[" in value) and bool(_TYPE_EXPR.fullmatch(value))
        prose = value.count(" ") >= 5
        return not (annotation or type_expr or prose or _OPERATOR_FOLLOWS.match(after))
    if (_CODE.fullmatch(value) and not _has_random_part(value)) or after.startswith(("..", "…")):
        return False
    if _IDENT.fullmatch(value) and spaced and _mostly_words(value):
        return False  # a class or a constant in code, digits and all: `token_cls = Sam3LiteTextModel2`
    if _is_generated(value):
        return True
    if _IDENT.fullmatch(value) and (spaced or _CODE_FOLLOWS.match(after)):
        return False  # a variable: `api_key = key`, `f(token=tok)`, `"token": tok,`
    return not (colon and _CAMEL_TYPE.fullmatch(value))  # `token: Histogram` annotates a type


# The groups of the rules' quoted-value fragments that hold the value without its quotes.
QUOTE_GROUPS = ("dq", "sq", "bq", "eq")

# ----- checks used by the rules ------------------------------------------------


def has_digit(m: re.Match[str], start: int, end: int) -> bool:
    secret = m.string[start:end]
    return any(c.isdigit() for c in secret) and not _MASKED.search(secret)


def check_session_cookie(m: re.Match[str], start: int, end: int) -> bool:
    """A session cookie's value: a generated id (8 characters or more, a digit among them), not
    an example's placeholder (`sessionid=<your-session>`, `session=xxxxxxxx`)."""
    value = m.string[start:end]
    return len(value) >= 8 and has_digit(m, start, end) and not _is_placeholder(value)


def check_credential(m: re.Match[str], start: int, end: int) -> bool:
    token = m.string[start:end].rstrip("=")
    if len(token) < 8 or _is_placeholder(token) or _is_name(token) or _CODE.fullmatch(token):
        return False
    if (m.groupdict().get("scheme") or "").lower() == "basic":
        return True
    return _is_generated(token) or (
        any(c.isupper() for c in token) and any(c.islower() for c in token) and not _CAMEL_TYPE.fullmatch(token)
    )


_URL_PLACEHOLDER_PASSWORDS = frozenset({"password", "passwd", "pass", "pwd", "pw", "secret"})


def check_url_password(m: re.Match[str], start: int, end: int) -> bool:
    secret = m.string[start:end]
    if secret.lower() in _URL_PLACEHOLDER_PASSWORDS:
        return False  # `scheme://user:password@host` in docs
    return MARKER not in secret and not _PLACEHOLDER.fullmatch(secret) and not _MASKED.search(secret)


# What may stand before a key on its line (indentation, a line number or a file's path and line
# number, a list or comment marker; netrc's `machine HOST login NAME`) is short. Looking no further
# back for the line's start keeps the check of every match on one long line from reading the line
# again (100,000 `password` words on one line cost seconds).
_LINE_PREFIX_CHARS = 1024


def _line_start(text: str, pos: int) -> int | None:
    """Where the line holding ``pos`` starts; None when that is over :data:`_LINE_PREFIX_CHARS` before it."""
    lowest = pos - _LINE_PREFIX_CHARS
    newline = text.rfind("\n", max(0, lowest), pos)
    if newline == -1:
        return 0 if lowest <= 0 else None
    return newline + 1


def _opens_line(pattern: LazyPattern, m: re.Match[str]) -> bool:
    """Whether what stands before the match on its line is all ``pattern`` (a line's opening)."""
    line_start = _line_start(m.string, m.start())
    return line_start is not None and pattern.fullmatch(m.string, line_start, m.start()) is not None


_NETRC_LINE_START = LazyPattern(r"[ \t]*(?:machine[ \t]+\S+[ \t]+)?(?:login[ \t]+\S+[ \t]+)?")


def check_netrc(m: re.Match[str], start: int, end: int) -> bool:
    # Only `password` opening a line or following `machine`/`login`; and since a line
    # of prose can start "password reset", a netrc password must not be a plain word.
    if not _opens_line(_NETRC_LINE_START, m):
        return False
    secret = m.string[start:end]
    return not _WORDLIKE.fullmatch(secret) and is_secret_value(secret, quoted=False)


def _quoted(m: re.Match[str]) -> bool:
    groups = m.re.groupindex
    return any(g in groups and m.start(g) != -1 for g in QUOTE_GROUPS)


def check_assignment(m: re.Match[str], start: int, end: int) -> bool:
    name = m["name"]
    strength = _name_strength(name)
    if strength == _NOT_SECRET:
        return False
    value = m.string[start:end]
    between = m.string[m.end("name") : start]
    quoted = _quoted(m)
    spaced = "=" in between and (" " in between or "\t" in between)
    colon = ":" in between
    # A weak name is trusted in an env file (`STRIPE_KEY=...`), elsewhere only with a random-looking value.
    if strength == _WEAK and (quoted or spaced or colon) and not _is_generated(value):
        return False
    # Markdown backticks hold code: "the token: `get_token()`".
    if "bq" in m.re.groupindex and m.start("bq") != -1 and _CODE.fullmatch(value):
        return False
    # `NAME: value` opening a line is YAML or a header; further into a line it is as often code
    # (`if not password: raise`) or prose, so there only a random-looking value counts (the
    # prose rule, last in the table, judges `password: value` in a sentence).
    if colon and not quoted and not _opens_line(_KEY_LINE_START, m):
        # `arn:aws:secretsmanager:...`: a name inside a chain of colons is not a key at all.
        if not _is_generated(value) or m.string[m.start() - 1 : m.start()] == ":":
            return False
    after_at = m.end() if quoted else end
    # `token: Histogram` annotates a type; `password: PasswordReset` in YAML is a password made of
    # words. A password's name takes a type only inside a block of code (`class User:`, `interface
    # Login {`); elsewhere a capitalised word after it is its value.
    typed = colon and (not names_a_password(name) or _in_code_block(m))
    return is_secret_value(
        value,
        quoted=quoted,
        name=name.rsplit(".", 1)[-1],
        spaced=spaced,
        colon=typed,
        after=m.string[after_at : after_at + 12].lstrip(" \t"),
    )


# One token of a secret's characters: no call, subscript, quote or space (`Norm(size)`, `a[0]`).
_SECRET_TOKEN = LazyPattern(r"[^\s()\[\]{}<>\"'`,;]+")
# Inside quotes a value is a literal, never a call: a parenthesis there is a secret's character like
# any other (Django's `get_random_secret_key()` draws from `a-z0-9!@#$%^&*(-_=+)`, so most of its
# keys hold one). Brackets and braces still make a regex or a placeholder (`[A-Z]{32}`, `${VAR}`).
_QUOTED_SECRET_TOKEN = LazyPattern(r"[^\s\[\]{}<>\"'`,;]+")


_UUID = LazyPattern(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_BASE64 = LazyPattern(r"[A-Za-z0-9+/_-]{16,}={0,2}")
_TEXT_WORD = LazyPattern(r"[A-Za-z]{3,}")


def _encoded_words(value: str) -> bool:
    """Base64 of words (`dGVzdC10b2tlbi1mb3ItdW5pdC10ZXN0cw==`, "test-token-for-unit-tests"), as a
    test fixture holds: random bytes decode to no text. A login ("user:pass") is a credential."""
    if not _BASE64.fullmatch(value):
        return False
    try:
        text = base64.b64decode(value.replace("-", "+").replace("_", "/") + "=" * (-len(value) % 4), validate=True).decode("ascii")
    except (binascii.Error, ValueError):
        return False
    words = sum(len(word) for word in _TEXT_WORD.findall(text))
    return text.isprintable() and ":" not in text and words >= 0.7 * len(text)


def _random_token(value: str, *, quoted: bool = False) -> bool:
    """Shaped like a generated secret: one token (``quoted``: a string literal's, which may hold
    parentheses) with a random-looking run (:func:`_has_random_part`) that is not mostly words, as a
    class name with a digit in it is (`Sam3LiteTextRepMixer`), nor an identifier (a UUID) or words
    in base64 (:func:`_encoded_words`)."""
    if not (_QUOTED_SECRET_TOKEN if quoted else _SECRET_TOKEN).fullmatch(value) or not _has_random_part(value) or _UUID.fullmatch(value) or _encoded_words(value):
        return False
    return not _mostly_words(value)


def check_assignment_by_shape(m: re.Match[str], start: int, end: int) -> bool:
    """An assignment in a document or code rather than a settings file: a secret only when its value
    is shaped like a generated one too (:func:`_random_token`), which no example (`password="hunter2"`),
    placeholder (`changeme`, `<password>`, `${VAR}`), regex (`r"[A-Za-z0-9]{32}"`) or expression
    (`request.form["password"]`, `Norm3d(size)`) is."""
    return _random_token(m.string[start:end], quoted=_quoted(m)) and check_assignment(m, start, end)


_ASSIGNMENT_START = LazyPattern(r"[A-Za-z_]\w*=")
# What may come before a YAML key or a header name on its line: indentation, a list marker, a
# comment marker (a commented-out setting), an opening quote.
# A line number in front counts as the line's start: `cat -n` (a tab), an agent's file reader
# (`     4→`), `grep -n` (`4:`, a context line `4-`) and `grep -rn` (`config/db.yml:4:`, a context
# line `config/db.yml-4-`, a Windows path `C:\app.yaml:4:`).
_KEY_LINE_START = LazyPattern(
    r"(?:[ \t]*\d{1,7}(?:→|\t|:|-)|(?:[A-Za-z]:[\\/])?[^\s:]{1,400}(?::\d{1,7}[:-]|-\d{1,7}-))?"
    r"[ \t]*(?:(?:#|//)[ \t]*)?(?:[-*+?][ \t]+)*(?:\\?[\"'])?"
)
# The gutter a file reader or grep puts before a line (as in _KEY_LINE_START), then the line's indentation.
_GUTTER_INDENT = LazyPattern(
    r"(?:[ \t]*\d{1,7}(?:→|\t|:|-)|(?:[A-Za-z]:[\\/])?[^\s:]{1,400}(?::\d{1,7}[:-]|-\d{1,7}-))?(?P<indent>[ \t]*)"
)
# A line that opens a block of code whose members are annotated: a class, function, interface,
# struct or record header (Python's ends in `:`), or any line ending in `{` or `(`. A YAML
# mapping's parent (`db:`) is none of these.
_CODE_BLOCK_HEADER = LazyPattern(
    r"(?:(?:export|public|private|protected|internal|abstract|final|data|sealed|pub|async|declare|default)\s+)*"
    r"(?:class|def|interface|struct|enum|record|trait|impl|type|fn|func|function|object|namespace)\b.*[:{(]\s*$"
    r"|.*[{(]\s*$"
)
# How far back the block's header is looked for: one bounded read per candidate keeps it linear.
_BLOCK_HEADER_CHARS = 4096


def _in_code_block(m: re.Match[str]) -> bool:
    """Whether the key of ``m`` is a member of a block of code: the nearest line above it that is
    indented less (its parent) opens a class, a function, an interface or a brace."""
    text = m.string
    line_start = _line_start(text, m.start())
    if line_start is None:
        return False
    gutter = _GUTTER_INDENT.match(text, line_start, m.start())
    indent = len(gutter["indent"]) if gutter else 0
    if indent == 0:
        return False  # a top-level key has no parent block
    above = text[max(0, line_start - _BLOCK_HEADER_CHARS) : line_start].splitlines()
    for line in reversed(above):
        line_gutter = _GUTTER_INDENT.match(line)
        content = line[line_gutter.end() :] if line_gutter else line
        if content.strip() and len(line_gutter["indent"] if line_gutter else "") < indent:
            return bool(_CODE_BLOCK_HEADER.match(content))
    return False


_PLAIN_WORD = LazyPattern(r"[A-Za-z]+")
# `base64-encoded`, `case-sensitive`, `auto-generated`: a compound ending in a word is a description.
_COMPOUND_WORD = LazyPattern(r"[A-Za-z0-9]+(?:[-_][A-Za-z0-9]+)*[-_][a-z]+")


# Algorithms, encodings and versions, which follow "password" or "key" as kinds ("password sha256 hashes").
_KIND_VALUE = LazyPattern(
    r"(?i)(?:sha-?\d+|md\d|argon2\w*|pbkdf2\w*|bcrypt\w*|scrypt|blake\d\w*|[ex]\d+|rsa-?\d*|aes-?\d+\w*|hmac\w*"
    r"|utf-?\d+|base\d+|v\d+(?:\.\d+)*|p-?\d+|ecdsa\w*|dsa|ed\d+|\d+-?bits?)"
)
_BARE_HEADS = ("password", "passphrase", "passcode")


def looks_made_up(value: str) -> bool:
    """A value no one would take for a word: letters mixed with digits or symbols ("hunter22",
    "Zx9pQ2rT7v"), and not an algorithm, encoding or version (``sha256``, ``utf-8``, ``v2``)."""
    value = value.rstrip(".,;:!?)")
    if len(value) < 4 or _KIND_VALUE.fullmatch(value) or "://" in value or value.startswith(("/", "~", "$", "<", "{", "[")):
        return False
    letters = any(c.isalpha() for c in value)
    others = any(c.isdigit() or not (c.isalnum() or c in "-_.'") for c in value)
    return letters and others


def check_prose(m: re.Match[str], start: int, end: int) -> bool:
    """"my password is X": X is a secret unless it reads as a word, a description, a name or code."""
    value = m.string[start:end]
    if _is_placeholder(value) or _is_name(value, m["head"]) or _PATH.fullmatch(value) or _is_plain_url(value):
        return False
    # "password X" with no verb: only a made-up X is the password ("with password Zx9pQ2rT7v",
    # not "password policy"), and `passwd alice2`, `pwd` are commands.
    if m["bare"] is not None and (m["head"].lower() not in _BARE_HEADS or not looks_made_up(value)):
        return False
    if _quoted(m):  # "the wifi password is 'bluebird'": quotes say the words are the password
        if "bq" in m.re.groupindex and m.start("bq") != -1 and _CODE.fullmatch(value):
            return False
        if m["colon"] and _CAMEL_TYPE.fullmatch(value):
            return False  # a quoted annotation: `token: "Token"`
        after = m.string[m.end() : m.end() + 12].lstrip(" \t")
        if _PROSE_GOES_ON.match(after):
            after = ""  # 'the password is "bluebird" if you need it': a sentence goes on, no expression
        return is_secret_value(value, quoted=True, after=after) and value.count(" ") < 3
    if _CODE.fullmatch(value) and not _has_random_part(value):
        return False  # `password: get_password()`, `token: Optional[str]`
    return not (_PLAIN_WORD.fullmatch(value) or _COMPOUND_WORD.fullmatch(value))


# A file's name (`creds.md`, `login.py`): what follows a login word as often as a password does.
_FILE_NAME = LazyPattern(r"[\w-]+\.[a-z]{1,4}")
# What credentials are kept as, checked by or kept in, which a sentence about them names where a
# pair would stand ("credentials are x509/pkcs12", "the login is ldap/kerberos5", "creds are
# keychain/1password", "vault/kv-v2"): a format (a version or number and all), an auth protocol,
# or a secrets store. Only those with a digit or symbol are listed: a plain word is never taken
# for a password. A fullmatch of one bounded value, so the rule stays linear.
_CREDENTIAL_KIND = LazyPattern(
    r"(?i)(?:pkcs|x[.-]?509|p|pfx|pem|der|jks|jwks?|gpg|pgp|ssh-?(?:rsa|ed25519)|oauth|saml|ldaps?|kerberos|krb|ntlm|spnego|oidc"
    r"|m?tls|ssl|fido|webauthn|u2f|totp|hotp|mfa|2fa|sso|1pass(?:word)?|kv|vault|keychain|keyring|bitwarden|keepass(?:xc)?|kdbx"
    r"|(?:aws|gcp|azure)?-?kms|s3|ssm|sops|secrets?-?manager)"
    r"(?:[ #.-]?v?\d{1,2}(?:\.\d{1,2})?a?)?"  # and its version or number: `pkcs#12`, `x509v3`, `oauth2`, `tls1.3`, `kv-v2`
)


def is_credential_kind(word: str) -> bool:
    """Whether ``word`` is what credentials are kept as, checked by or kept in (``x509``, ``PKCS#12``,
    ``kerberos5``, ``vault``, ``1password``) or an algorithm (``sha256``), not a value of one."""
    word = word.rstrip(".,;:!?)")
    return bool(_CREDENTIAL_KIND.fullmatch(word) or _KIND_VALUE.fullmatch(word))


# Kinds said together: `x509/pkcs12`, `oauth2+oidc`, `pem, der`. At most a few, each short.
_KIND_LIST = LazyPattern(r"[\w#.-]{1,24}(?:[ \t]*[/+,|][ \t]*[\w#.-]{1,24}){0,5}")
_KIND_SEPARATOR = LazyPattern(r"[ \t]*[/+,|][ \t]*")


def names_credential_kinds(value: str) -> bool:
    """Whether ``value`` is one kind of credential or a few joined by ``/``, ``+``, ``,`` or ``|``
    (:func:`is_credential_kind`: a format, an auth protocol, a secrets store, an algorithm, each
    with its version), all in lower case or all in upper case: what a setting says credentials are
    (`creds: x509/pkcs12`, `auth: kerberos`), not a credential. A password mixes cases or holds a
    word no such list names ("hunter2", "x509/Hunter22")."""
    value = value.strip().rstrip(".,;:!?)")
    if not _KIND_LIST.fullmatch(value) or not (value.islower() or value.isupper() or not any(c.isalpha() for c in value)):
        return False
    return all(_is_kind_word(kind) for kind in _KIND_SEPARATOR.split(value))


def _is_kind_word(word: str) -> bool:
    """A format, protocol or store (:data:`_CREDENTIAL_KIND`), or an algorithm or encoding of two
    letters or more (``sha256``, ``ed25519``): a letter and digits (``e12345``, ``v7``) may well be
    a password."""
    return bool(_CREDENTIAL_KIND.fullmatch(word)) or (sum(c.isalpha() for c in word) >= 2 and bool(_KIND_VALUE.fullmatch(word)))


def check_credential_pair(m: re.Match[str], start: int, end: int) -> bool:
    """"the login is admin / S3cure-Adm1n": the password goes when it is made up (letters with
    digits or symbols). A word ("read / write", "admin/admin"), a file or a path after a slash
    (``creds: docs/creds.md``, ``login: src/auth/login.py``), a placeholder and a number pair
    (a time, a date, a ratio: a user name is not digits alone) and what credentials are kept as or
    in ("credentials are x509/pkcs12", :data:`_CREDENTIAL_KIND`) stay."""
    value = m.string[start:end]
    user = m["user"] if m["user"] is not None else m["named_user"]
    if user.isdigit() or _is_placeholder(value) or "/" in value or _FILE_NAME.fullmatch(value) or is_credential_kind(value):
        return False
    return looks_made_up(value) and not _is_plain_url(value)


def check_cli_password(m: re.Match[str], start: int, end: int) -> bool:
    return check_url_password(m, start, end) and not m.string[start:end].startswith("-")


def not_masked(m: re.Match[str], start: int, end: int) -> bool:
    return not _MASKED.search(m.string[start:end])


def not_placeholder(m: re.Match[str], start: int, end: int) -> bool:
    return not _is_placeholder(m.string[start:end])


# An Azure SAS signature is 44 characters of base64 or more once escaped; a shorter `sig=` is
# one when the SAS's service version or expiry stands in the same query.
_SAS_SIGNATURE_CHARS = 30
# Anchored on the field's own letters, which the regex engine finds quickly.
_SAS_FIELD = LazyPattern(r"s[ve]=(?:(?<=[?&;]s[ve]=)|(?<=^s[ve]=)|(?<=\\u0026s[ve]=))")
_NOT_IN_URL = LazyPattern(r"[\s\"'<>`]")
# How far around the signature its query is looked for: one search per match stays linear.
_SAS_QUERY_CHARS = 1024


def check_sas_signature(m: re.Match[str], start: int, end: int) -> bool:
    signature = m.string[start:end]
    if _is_placeholder(signature):
        return False
    if len(signature) >= _SAS_SIGNATURE_CHARS:
        return True
    before = m.string[max(0, m.start() - _SAS_QUERY_CHARS) : m.start()]
    after = m.string[end : end + _SAS_QUERY_CHARS]
    # The substring tests first: most `sig=` have no such field near, and they cost little.
    if ("sv=" in before or "se=" in before) and _SAS_FIELD.search(_NOT_IN_URL.split(before)[-1]):
        return True
    return ("sv=" in after or "se=" in after) and bool(_SAS_FIELD.search(_NOT_IN_URL.split(after, 1)[0]))


def is_generated_token(m: re.Match[str], start: int, end: int) -> bool:
    return _is_generated(m.string[start:end]) and not _MASKED.search(m.string[start:end])


# An AWS secret access key without its label: 40 characters of base64 beside the key id (which the
# id's rule, earlier in the table, has redacted: its marker stands there) or after the word
# "secret" ("secret Tq8v...", "Secret Access Key [None]: Tq8v..."). Near is counted in words, which
# redaction keeps (a secret and its marker are one word each), so a second pass decides as the
# first did; the words are read from a fixed window around the candidate, so a text of many
# candidates is still read in linear time.
_AWS_ID_MARKER = MARKER + "aws_access_key_id]"
_AWS_ID_NEAR_WORDS = 8
_AWS_SECRET_WORDS = 5  # "secret access key is", "Secret Access Key [None]:"
_AWS_NEAR_CHARS = 400
# 40 random characters of base64 hold six digits on average; fewer than two in one of a hundred
# keys. A path or a name of 40 characters seldom holds two.
_AWS_SECRET_DIGITS = 2
# A segment of a path that reads as words: CamelCase, lower-case or upper-case words, numbers
# ("Http", "VerifyApiSecretToken", "OAuth2", "v2", "i18n"). Random base64 breaks it within a few
# characters (an upper-case letter with one lower-case letter after it: "Tq8vR2mZ"). Atomic: each
# word is read one way, so a run of capitals that fails at its end is not split every other way.
_WORD_SEGMENT = LazyPattern(r"(?>[A-Z]?[a-z]{2,}|[A-Z]{2,}(?![a-z])|[A-Z]+(?=[A-Z][a-z]{2})|[0-9]+|[a-z](?![a-z]))+")


def _reads_as_path(value: str) -> bool:
    """``app/Http/Middleware/VerifyApiSecretToken``: segments between slashes that read as words."""
    return "/" in value and all(_WORD_SEGMENT.fullmatch(part) for part in value.split("/") if part)


def check_aws_secret(m: re.Match[str], start: int, end: int) -> bool:
    """40 characters shaped like an AWS secret key, beside a key id or after the word "secret".

    Random base64 mixes upper and lower case with digits; a git commit or SHA-1 (hex: one case), a
    word, a name or a source path (``app/Http/Middleware/VerifyApiSecretToken.php``: words between
    slashes, a file extension after it) does not."""
    value = m.string[start:end]
    mixed = any(c.isupper() for c in value) and any(c.islower() for c in value)
    if not mixed or sum(c.isdigit() for c in value) < _AWS_SECRET_DIGITS:
        return False
    if _MASKED.search(value) or _reads_as_path(value):
        return False
    text = m.string
    if text[end : end + 1] == "." and text[end + 1 : end + 2].isalpha():
        return False  # a file's stem and its extension
    before = text[max(0, start - _AWS_NEAR_CHARS) : start].split()
    after = text[end : end + _AWS_NEAR_CHARS].split()
    if any(_AWS_ID_MARKER in word for word in (*before[-_AWS_ID_NEAR_WORDS:], *after[:_AWS_ID_NEAR_WORDS])):
        return True
    # Not the word inside a marker: `[REDACTED:aws_secret_key]` says nothing of what follows it.
    return any("secret" in word.lower() and MARKER not in word for word in before[-_AWS_SECRET_WORDS:])


def check_discord(m: re.Match[str], start: int, end: int) -> bool:
    # A bot token opens with its bot's user id (a snowflake: 17 to 20 digits) in base64.
    head = m.string[start:end].split(".", 1)[0]
    try:
        user_id = base64.b64decode(head + "=" * (-len(head) % 4), validate=True)
    except (binascii.Error, ValueError):
        return False
    return user_id.isdigit() and 17 <= len(user_id) <= 20


def check_flag_by_shape(m: re.Match[str], start: int, end: int) -> bool:
    """`--password Xk9mPq2vLr8sTw4zQ` in a document or code: as :func:`check_assignment_by_shape`."""
    return _random_token(m.string[start:end]) and check_flag(m, start, end)


def check_flag(m: re.Match[str], start: int, end: int) -> bool:
    secret = m.string[start:end]
    return (
        is_secret_name(m["name"])
        and is_secret_value(secret, quoted=_quoted(m), name=m["name"])
        and not _WORDLIKE.fullmatch(secret)
        # `psql --password --host db`: a boolean flag followed by the next flag.
        and not secret.startswith(("-", "/", "~/", "./", "../"))
        # `--secrets NAME=value` holds an assignment, which the assignment rule judges.
        and not _ASSIGNMENT_START.match(secret)
    )
