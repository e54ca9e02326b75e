"""Secret redaction: session messages are scrubbed before anything reaches disk.

``redact(text)`` replaces every secret it recognises with ``[REDACTED:<rule>]``
and says how many it replaced; ``redact_value(value)`` does the same for every
string inside JSON-like data (tool inputs and outputs). Both are idempotent:
a marker is never matched again, so redacting twice changes nothing more.

Every recogniser is one row of ``RULES``: a name (the hint left in the marker),
a pattern (compiled when first needed), lowercase substrings of which one must occur before the
pattern is tried at all (this runs in hooks on every agent turn and most text
holds no secret, so most rules never run), and an optional check that can veto
a match. A pattern with a group named ``secret...`` (or a quoted-value group)
replaces only that group, so names, quotes, ``Bearer``, and the URL's scheme,
user and host survive. Rules run in table order: provider tokens first, so
``API_KEY=sk-...`` becomes ``API_KEY=[REDACTED:openai_key]``, not a generic marker.

Decisions on the edges. Provider formats and URL passwords are redacted
whenever they match; the generic rules (assignments, flags, ``Bearer``) have
to tell secrets from code and prose, and lean towards redacting config-like
text and towards keeping code:

* Provider tokens need their prefix at a token boundary (``task-sk-ip`` and
  ``sk-learn-...`` stay), a minimum length, and where the prefix is short
  (``sk-``, ``hf_``, ``npm_``, ``gh?_``, ``hvs.``, ``key-``, ``secret_``) a digit:
  real tokens are random, identifiers such as ``hf_AutoModelForCausalLM`` are
  not. Formats without a prefix are pinned by their shape: a Telegram bot token
  is a numeric id, ``:AA`` and 33 more; a Discord bot token opens with its
  user id in base64 (checked by decoding it); Mailchimp's is 32 hex digits and
  ``-usNN``. A masked example (``AKIAXXXXXXXXXXXXXXXX``) is not a token.
* A JWT is ``eyJ`` + base64url, a dot, base64url, a dot and an optional
  signature; base64 data (images, ``data:`` URLs) has no dots.
* ``Bearer <token>`` and ``Authorization: <scheme> <token>`` keep the words and
  redact a token-looking token: not an English word ("Bearer authentication"),
  a name (``ACCESS_TOKEN``), a reference (``$TOKEN``, ``{token}``) or code.
* ``scheme://user:password@host`` keeps everything but the password, except
  the literal placeholders ``password``/``pass``/``secret`` of documentation.
* Assignments (``NAME=value``, ``NAME: value``, ``"name": "value"``,
  ``--name=value``, ``--name value``) redact the value of a secret-looking
  name: split into words (``_``, ``-``, camelCase; the last ``.`` part only) it
  holds secret, password/passwd/pwd, passphrase, credential/creds, token (not
  tokenizer, max_tokens, eos_token), auth (not author, authority,
  authenticated), a qualified key (api/access/private/client/... key), or ends
  in pass/pw (``DB_PASS``, not ``on_pass``). An UPPER_SNAKE ``..._KEY`` counts
  weakly (``STRIPE_KEY=...`` in an env file, or a random-looking value); a
  bare ``key`` or ``sort_key`` never does: in code those are dictionary keys.
  A last word that makes the value metadata (``_url``, ``_file``, ``_path``,
  ``_type``, ``_id``, ``_length``, ``_budget``, ``_prompt``...) and the shell's
  ``PWD``/``OLDPWD`` are not secret.
* Values that are not secrets: under four characters; numbers of up to six
  digits (``PASSWORD_MIN_LENGTH=8``, ``max_tokens: 2000``; longer ones may be
  PINs or keys); booleans, nulls and modes (``true``, ``none``, ``write``);
  placeholders and masks (``<your-key>``, ``${VAR}``, ``$VAR``, ``{{ x }}``,
  ``your_api_key``, ``changeme``, ``xxxx``, ``****``, ``sk-...``); names
  (``"api_key"``, ``GITHUB_TOKEN``, ``X-Api-Key``, an enum spelling its own
  name); paths; URLs without credentials; quoted type annotations and prose
  of six words or more. Unquoted code is skipped too: calls and subscripts
  (``get_token()``), attribute paths (``self.token``), variables in code
  (``api_key = key``, ``f(token=tok)``), type names (``password: str``).
  A random-looking value (digits mixed with letters) outweighs these guesses.
* ``NAME: value`` without quotes counts only when the value ends the line
  (YAML, HTTP headers, or a header closing its quote in ``curl -H '...'``):
  "Password: reset it from settings" is prose. Opening a line (after
  indentation, a list or comment marker) it is YAML; further into a line it is
  as often code (``if not password: raise``), so there only a random-looking
  value counts. A netrc ``password`` needs a value that is not a plain word,
  and so does a space-separated ``--flag`` (boolean flags are followed by
  arguments, or by the next ``--flag``).
* Short options (``cli_password``) only for the commands that take a password
  that way, each with its own spelling: ``mysql -pSECRET`` (attached: ``-p db``
  prompts and names the database), ``sshpass -p``, ``docker login -p``,
  ``redis-cli -a``, ``zip -P``, ``7z -p``, ``sqlcmd -P``, ``mongosh -p``,
  ``ssh-keygen -N``, ``htpasswd -b FILE USER PASSWORD``, and keytool's
  ``-storepass`` and openssl's ``pass:`` anywhere. Elsewhere ``-p`` is a port,
  a path or ``--parents``.
* Prose (``prose_secret``, last): "my password is X", "the password for the
  db was X", "set the root password to X", "password: X" in a sentence, also
  for passphrase, secret, token and API key. X counts when quoted (the quotes
  say so) or when it is not a plain word (``required``), a compound ending in
  one (``case-sensitive``, ``base64-encoded``), a name, a placeholder or code.
* Name/value pairs in data (``{"name": "DB_PASSWORD", "value": ...}``) are
  judged like ``DB_PASSWORD=...``.
* Known misses: TypeScript annotations (``const token: string = "..."``),
  unquoted passwords with spaces, plain-word passwords in code-like positions
  (``password = hunter``) and in prose unless quoted ("my password is
  bluebird", "the passphrase is correct-horse-battery-staple"), passwords that
  read like attribute paths or names (``Ab.cd``, ``my_password``), short PINs
  (numbers of up to six digits), and ``mysql -p SECRET`` (which mysql itself
  reads as a database name).
"""

from __future__ import annotations

import base64
import binascii
import functools
import re
from typing import Any, Callable, NamedTuple

from ov.regex import LazyPattern

__all__ = ["RULES", "Rule", "redact", "redact_value"]

MARKER = "[REDACTED:"


class Rule(NamedTuple):
    """One recogniser; see the module docstring."""

    name: str
    pattern: LazyPattern
    hints: tuple[str, ...]
    # Given the match and the span about to be replaced; False keeps the text.
    check: Callable[[re.Match[str], int, int], bool] | None = None


def _marker(name: str) -> str:
    return f"{MARKER}{name}]"


# A marker must never be matched again, or redaction would not be idempotent.
_NOT_DONE = r"(?!\[REDACTED)"

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
_DOTTED_NAME = LazyPattern(r"[a-z_]\w*(?:\.[A-Za-z_]\w*)+")
_CAMEL_TYPE = LazyPattern(r"[A-Z][A-Za-z0-9]*[a-z][A-Za-z0-9]*")
# Absolute paths, and relative resource paths in lowercase (base64 secrets are mixed case).
_PATH = LazyPattern(r"(?:~|\.{1,2})?(?:/[\w.{}-]+){2,}/?|(?:[a-z0-9][a-z0-9._{}-]*/){2,}[a-z0-9][a-z0-9._{}-]*")
_URL = LazyPattern(r"[a-z][a-z0-9+.-]*://[^\s@]+", re.I)
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
    | attr|attribute|form|owner|source|audience|issuer
    )$"""
)


def _words(name: str) -> str:
    return _NON_ALNUM.sub("_", _CAMEL.sub("_", name).lower()).strip("_")


_NOT_SECRET, _WEAK, _STRONG = 0, 1, 2


def _name_strength(name: str) -> int:
    """How surely a name holds a secret: not, weakly (an UPPER_SNAKE `..._KEY`), or strongly."""
    # `self.token`, `config.password`: the attribute names the value, its owner does not.
    name = name.rsplit(".", 1)[-1]
    words = _words(name)
    if not words or words in ("pwd", "oldpwd") or _METADATA_WORD.search(words) or _LANGUAGE_TOKEN.search(words):
        return _NOT_SECRET
    if _SECRET_WORD.search(words) or (_PASS_WORD.search(words) and not _PASS_NOT_SECRET.search(words)):
        return _STRONG
    # STRIPE_KEY is a secret; sort_key and cache_key in code are not, and neither is
    # CONFIG_KEY = "pydantic-mypy", so these need more evidence from the value.
    upper = not any(c.islower() for c in name)
    if upper and _KEY_WORD.search(words) and not _NON_SECRET_KEY.search(words):
        return _WEAK
    return _NOT_SECRET


def _is_secret_name(name: str) -> bool:
    return _name_strength(name) != _NOT_SECRET


def _is_name(value: str, name: str = "") -> bool:
    """The value is itself a name (dict key, enum, env variable, header), not a secret."""
    if not _NAME_CHARS.fullmatch(value) or _has_random_part(value):
        return False
    if _ENV_NAME.fullmatch(value) or _HEADER_NAME.fullmatch(value) or _SNAKE_WORDS.fullmatch(value):
        return True
    if _DOTTED_NAME.fullmatch(value) or (value.startswith("__") and value.endswith("__")):
        return True
    words = _words(value)
    if name:
        name_words = _words(name)
        if name_words.endswith(words) or name_words.rsplit("_", 1)[-1].startswith(words):
            return True  # an enum spelling its own name: AUTH = "auth", password: "pass"
    composed = any(c in "_.-" for c in value) or bool(_CAMEL.search(value))
    return composed and bool(_SECRET_WORD.search(words) or _KEY_WORD.search(words))


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


def _is_secret_value(
    value: str, *, quoted: bool, name: str = "", spaced: bool = False, colon: bool = False, after: str = ""
) -> bool:
    """Whether the value assigned to a secret-looking name is worth redacting.

    ``spaced``: whitespace around ``=``; ``colon``: the separator was ``:``;
    ``after``: the text right after the value (after the closing quote if quoted).
    """
    value = value.strip()
    if _is_placeholder(value) or _is_name(value, name) or _PATH.fullmatch(value) or _is_plain_url(value):
        return False
    if quoted:
        if _is_generated(value):
            return True
        annotation = after.startswith("=") and not after.startswith("==")
        type_expr = ("|" in value or "[" in value) and bool(_TYPE_EXPR.fullmatch(value))
        prose = value.count(" ") >= 5
        return not (annotation or type_expr or prose or _OPERATOR_FOLLOWS.match(after))
    if (_CODE.fullmatch(value) and not _has_random_part(value)) or after.startswith(("..", "…")):
        return False
    if _is_generated(value):
        return True
    if _IDENT.fullmatch(value) and (spaced or _CODE_FOLLOWS.match(after)):
        return False  # a variable: `api_key = key`, `f(token=tok)`, `"token": tok,`
    return not (colon and _CAMEL_TYPE.fullmatch(value))  # `token: Histogram` annotates a type


_QUOTE_GROUPS = ("dq", "sq", "bq", "eq")

# ----- checks used by the rules ------------------------------------------------


def _has_digit(m: re.Match[str], start: int, end: int) -> bool:
    secret = m.string[start:end]
    return any(c.isdigit() for c in secret) and not _MASKED.search(secret)


def _check_credential(m: re.Match[str], start: int, end: int) -> bool:
    token = m.string[start:end].rstrip("=")
    if len(token) < 8 or _is_placeholder(token) or _is_name(token) or _CODE.fullmatch(token):
        return False
    if (m.groupdict().get("scheme") or "").lower() == "basic":
        return True
    return _is_generated(token) or (
        any(c.isupper() for c in token) and any(c.islower() for c in token) and not _CAMEL_TYPE.fullmatch(token)
    )


_URL_PLACEHOLDER_PASSWORDS = frozenset({"password", "passwd", "pass", "pwd", "pw", "secret"})


def _check_url_password(m: re.Match[str], start: int, end: int) -> bool:
    secret = m.string[start:end]
    if secret.lower() in _URL_PLACEHOLDER_PASSWORDS:
        return False  # `scheme://user:password@host` in docs
    return MARKER not in secret and not _PLACEHOLDER.fullmatch(secret) and not _MASKED.search(secret)


_NETRC_LINE_START = LazyPattern(r"[ \t]*(?:machine[ \t]+\S+[ \t]+)?(?:login[ \t]+\S+[ \t]+)?")


def _check_netrc(m: re.Match[str], start: int, end: int) -> bool:
    # Only `password` opening a line or following `machine`/`login`; and since a line
    # of prose can start "password reset", a netrc password must not be a plain word.
    line_start = m.string.rfind("\n", 0, m.start()) + 1
    if not _NETRC_LINE_START.fullmatch(m.string, line_start, m.start()):
        return False
    secret = m.string[start:end]
    return not _WORDLIKE.fullmatch(secret) and _is_secret_value(secret, quoted=False)


def _quoted(m: re.Match[str]) -> bool:
    groups = m.re.groupindex
    return any(g in groups and m.start(g) != -1 for g in _QUOTE_GROUPS)


def _check_assignment(m: re.Match[str], start: int, end: int) -> bool:
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
    # prose rule below judges `password: value` in a sentence).
    if colon and not quoted and not _KEY_LINE_START.fullmatch(m.string, m.string.rfind("\n", 0, m.start()) + 1, m.start()):
        # `arn:aws:secretsmanager:...`: a name inside a chain of colons is not a key at all.
        if not _is_generated(value) or m.string[m.start() - 1 : m.start()] == ":":
            return False
    after_at = m.end() if quoted else end
    return _is_secret_value(
        value,
        quoted=quoted,
        name=name.rsplit(".", 1)[-1],
        spaced=spaced,
        colon=colon,
        after=m.string[after_at : after_at + 12].lstrip(" \t"),
    )


_ASSIGNMENT_START = LazyPattern(r"[A-Za-z_]\w*=")
# What may come before a YAML key or a header name on its line: indentation, a list marker, a
# comment marker (a commented-out setting), an opening quote.
_KEY_LINE_START = LazyPattern(r"[ \t]*(?:(?:#|//)[ \t]*)?(?:[-*+?][ \t]+)*(?:\\?[\"'])?")
_PLAIN_WORD = LazyPattern(r"[A-Za-z]+")
# `base64-encoded`, `case-sensitive`, `auto-generated`: a compound ending in a word is a description.
_COMPOUND_WORD = LazyPattern(r"[A-Za-z0-9]+(?:[-_][A-Za-z0-9]+)*[-_][a-z]+")


def _check_prose(m: re.Match[str], start: int, end: int) -> bool:
    """"my password is X": X is a secret unless it reads as a word, a description, a name or code."""
    value = m.string[start:end]
    if _is_placeholder(value) or _is_name(value) or _PATH.fullmatch(value) or _is_plain_url(value):
        return False
    if _quoted(m):  # "the wifi password is 'bluebird'": quotes say the words are the password
        if "bq" in m.re.groupindex and m.start("bq") != -1 and _CODE.fullmatch(value):
            return False
        if m["colon"] and _CAMEL_TYPE.fullmatch(value):
            return False  # a quoted annotation: `token: "Token"`
        return _is_secret_value(value, quoted=True, after=m.string[m.end() : m.end() + 12].lstrip(" \t")) and value.count(" ") < 3
    if _CODE.fullmatch(value) and not _has_random_part(value):
        return False  # `password: get_password()`, `token: Optional[str]`
    return not (_PLAIN_WORD.fullmatch(value) or _COMPOUND_WORD.fullmatch(value))


def _check_cli_password(m: re.Match[str], start: int, end: int) -> bool:
    return _check_url_password(m, start, end) and not m.string[start:end].startswith("-")


def _not_masked(m: re.Match[str], start: int, end: int) -> bool:
    return not _MASKED.search(m.string[start:end])


def _is_generated_token(m: re.Match[str], start: int, end: int) -> bool:
    return _is_generated(m.string[start:end]) and not _MASKED.search(m.string[start:end])


def _check_discord(m: re.Match[str], start: int, end: int) -> bool:
    # A bot token opens with its bot's user id (a snowflake: 17 to 20 digits) in base64.
    head = m.string[start:end].split(".", 1)[0]
    try:
        user_id = base64.b64decode(head + "=" * (-len(head) % 4), validate=True)
    except (binascii.Error, ValueError):
        return False
    return user_id.isdigit() and 17 <= len(user_id) <= 20


def _check_flag(m: re.Match[str], start: int, end: int) -> bool:
    secret = m.string[start:end]
    return (
        _is_secret_name(m["name"])
        and _is_secret_value(secret, quoted=_quoted(m), name=m["name"])
        and not _WORDLIKE.fullmatch(secret)
        # `psql --password --host db`: a boolean flag followed by the next flag.
        and not secret.startswith(("-", "/", "~/", "./", "../"))
        # `--secrets NAME=value` holds an assignment, which the assignment rule judges.
        and not _ASSIGNMENT_START.match(secret)
    )


# ----- the rule table ------------------------------------------------------------

# Unquoted value: up to whitespace, a quote or a backslash (an escaped string),
# or a `&next=` query parameter; trailing punctuation belongs to the sentence.
_UNQUOTED = (
    # String prefixes (f"", b"", r"") start code, not a value.
    # A leading `&` or `*` is a YAML anchor or alias, `!` a negation, `#` a comment, `/^` a regex literal.
    # Bounded, so that rescanning inside a rejected value (see `_apply`) stays linear.
    _NOT_DONE + r"(?![(\[{<$\\&*!#])(?!/\^)(?![rRbBuUfF]{1,2}[\"'])"
    r"(?:[^\s\"'`&\\;]|&(?!amp;|[\w.-]{1,80}=)){0,1023}[^\s\"'`&\\,;:.)\]}>]"
)
_QUOTED = (
    r"(?:\"(?P<dq>(?:[^\"\\\n]|\\.){0,4096}+)\""
    r"|'(?P<sq>(?:[^'\\\n]|\\.){0,4096}+)'"
    r"|`(?P<bq>[^`\n]{0,4096}+)`"
    r"|\\\"(?P<eq>(?:[^\"\\\n]|\\[^\"\n]){0,4096}+)\\\")"
)
_SHELL_QUOTED = r"(?:\"(?P<dq>(?:[^\"\\\n]|\\.){0,4096}+)\"|'(?P<sq>[^'\n]{0,4096}+)')"
# RFC 7235 token68, ending where the token ends: `Bearer {x}`, `Bearer <x>`, `Basic%20` are not tokens.
# A sentence's full stop after the token is not part of it.
_TOKEN68 = (
    r"(?P<secret>(?=[A-Za-z0-9._~+/-]{8})[A-Za-z0-9._~+/-]*[A-Za-z0-9_~+/-]=*)"
    r"(?=[\s\"'`,;.)\]}>]|$)"
)
_EQ = r"=(?![=>~])"
_COLON = r":(?![=:])"

_PRIVATE_KEY_LABEL = r"-----{end}[ A-Z0-9]{{0,40}}PRIVATE KEY(?: BLOCK)?-----"
# The arguments of one simple command before an option: not across a pipe, `;`, `&&` or a line.
# Nor across a marker: a rule that re-read text past its own marker would not be idempotent.
_CLI_ARGS = r"(?:[ \t](?:(?!\[REDACTED)[^\n|;&]){0,300}?)??[ \t]"


def _token(prefix: str, body: str) -> str:
    """A token that starts with ``prefix`` (fixed width) at a token boundary, not inside a longer word.

    The boundary is checked behind the prefix rather than in front of it, so the
    pattern begins with the literal prefix, which the regex engine finds quickly.
    """
    return f"{prefix}(?<![A-Za-z0-9_-]{prefix}){body}"


RULES: tuple[Rule, ...] = (
    Rule(
        "private_key",
        LazyPattern(
            _PRIVATE_KEY_LABEL.format(end="BEGIN")
            + r"(?:[\s\S]{0,65536}?" + _PRIVATE_KEY_LABEL.format(end="END")
            # Truncated output (no END line): take the base64 and header lines that follow.
            + r"|(?:(?:\r?\n|\\n)[ \t]*(?:[A-Za-z0-9+/=]+|[A-Za-z][\w-]*:[^\r\n\\]*)?[ \t]*(?=\r?\n|\\n|\Z))*+)"
        ),
        ("private key",),
    ),
    Rule(
        "private_key",
        # PuTTY keys keep the private half in base64 lines after `Private-Lines: N`.
        LazyPattern(
            r"Private-Lines:[ \t]*\d+\r?\n"
            r"(?P<secret>[A-Za-z0-9+/=]++(?:\r?\n[A-Za-z0-9+/=]++(?=\r?\n|\Z))*+)(?=\r?\n|\Z)"
        ),
        ("private-lines:",),
    ),
    Rule("anthropic_key", LazyPattern(_token("sk-ant-", r"[A-Za-z0-9_-]{20,}+")), ("sk-ant-",), _has_digit),
    Rule("openai_key", LazyPattern(_token("sk-", r"(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}+")), ("sk-",), _has_digit),
    Rule("google_api_key", LazyPattern(_token("AIza", r"[A-Za-z0-9_-]{35}(?![A-Za-z0-9_-])")), ("aiza",)),
    Rule(
        "aws_access_key_id",
        LazyPattern(r"(?:AKIA|ASIA|ABIA|ACCA)(?<![A-Za-z0-9]....)[A-Z0-9]{16}(?![A-Za-z0-9])"),
        ("akia", "asia", "abia", "acca"),
        _not_masked,  # AKIAXXXXXXXXXXXXXXXX in docs
    ),
    Rule(
        "aws_secret_key",
        LazyPattern(
            r"[Aa][Ww][Ss](?<!\w...)_?(?i:secret_?(?:access_?)?key)[\"']?[ \t]*[:=][ \t]*[\"']?"
            r"(?P<secret>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])"
        ),
        ("aws_secret", "awssecret"),
    ),
    Rule(
        "aws_secret_key",
        # The JSON that `aws sts` and `aws iam create-access-key` print.
        LazyPattern(r"[Ss]ecretAccessKey(?<!\w.ecretAccessKey)\"?[ \t]*:[ \t]*\"?(?P<secret>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])"),
        ("secretaccesskey",),
    ),
    Rule("github_token", LazyPattern(_token("gh[pousr]_", r"[A-Za-z0-9]{30,}+")), ("ghp_", "gho_", "ghu_", "ghs_", "ghr_"), _has_digit),
    Rule("github_token", LazyPattern(_token("github_pat_", r"[A-Za-z0-9_]{22,}+")), ("github_pat_",), _has_digit),
    Rule(
        "gitlab_token",
        # Personal, deploy, runner, pipeline-trigger, CI-job, incoming-mail and SCIM tokens.
        LazyPattern(r"gl(?<![A-Za-z0-9_-]gl)(?:pat|dt|rt|ptt|cbt|imt|soat)-[A-Za-z0-9_-]{20,}+"),
        ("glpat-", "gldt-", "glrt-", "glptt-", "glcbt-", "glimt-", "glsoat-"),
        _has_digit,
    ),
    Rule("slack_token", LazyPattern(_token("xox[abprs]-", r"[A-Za-z0-9-]{10,}+")), ("xox",)),
    Rule("slack_token", LazyPattern(_token("xapp-", r"\d-[A-Z0-9]+-\d+-[A-Za-z0-9]{20,}+")), ("xapp-",)),
    Rule(
        "slack_webhook",
        LazyPattern(r"https://hooks\.slack\.com/services/(?P<secret>T[A-Z0-9]+/B[A-Z0-9]+/[A-Za-z0-9]+)"),
        ("hooks.slack.com",),
    ),
    Rule("stripe_key", LazyPattern(_token("[sr]k_(?:live|test)_", r"[A-Za-z0-9]{16,}+")), ("_live_", "_test_")),
    Rule("stripe_key", LazyPattern(_token("whsec_", r"[A-Za-z0-9]{24,}+")), ("whsec_",)),
    Rule("vault_token", LazyPattern(_token(r"hv[sbr]\.", r"[A-Za-z0-9_-]{24,}+")), ("hvs.", "hvb.", "hvr."), _has_digit),
    Rule("huggingface_token", LazyPattern(_token("hf_", r"[A-Za-z0-9]{30,}+")), ("hf_",), _has_digit),
    Rule("pypi_token", LazyPattern(_token("pypi-AgE", r"[A-Za-z0-9_-]{50,}+")), ("pypi-",)),
    Rule("npm_token", LazyPattern(_token("npm_", r"[A-Za-z0-9]{30,}+")), ("npm_",), _has_digit),
    Rule("google_oauth_secret", LazyPattern(_token("GOCSPX-", r"[A-Za-z0-9_-]{28}(?![A-Za-z0-9_-])")), ("gocspx-",)),
    Rule("google_oauth_token", LazyPattern(_token(r"ya29\.", r"[A-Za-z0-9_-]{30,}+")), ("ya29.",), _has_digit),
    Rule("google_oauth_token", LazyPattern(_token("1//0", r"[A-Za-z0-9_-]{40,}+")), ("1//0",), _has_digit),
    Rule("sendgrid_key", LazyPattern(_token(r"SG\.", r"[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])")), ("sg.",)),
    Rule("mailgun_key", LazyPattern(_token("key-", r"[0-9a-f]{32}(?![A-Za-z0-9_-])")), ("key-",), _has_digit),
    # Mailchimp: 32 hex digits, then the data centre.
    Rule("mailchimp_key", LazyPattern(r"(?<![A-Za-z0-9])[0-9a-f]{32}-us\d{1,2}(?![A-Za-z0-9])"), ("-us",)),
    Rule(
        "telegram_bot_token",
        # The bot's numeric id, a colon and 35 characters that start with AA; in a Bot API URL after `/bot`.
        LazyPattern(r"(?:(?<=/bot)|(?<![\w:]))\d{8,10}:AA[A-Za-z0-9_-]{33}(?![A-Za-z0-9_-])"),
        (":aa",),
    ),
    Rule(
        "discord_token",
        LazyPattern(r"(?<![A-Za-z0-9_.-])[MNO][A-Za-z0-9]{23,27}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,40}(?![A-Za-z0-9_-])"),
        (".",),
        _check_discord,
    ),
    Rule(
        "discord_webhook",
        LazyPattern(r"https://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/\d+/(?P<secret>[A-Za-z0-9_-]{60,}+)"),
        ("discord",),
    ),
    Rule("digitalocean_token", LazyPattern(_token("do[opr]_v1_", r"[a-f0-9]{64}(?![A-Za-z0-9_-])")), ("dop_v1_", "doo_v1_", "dor_v1_")),
    Rule("shopify_token", LazyPattern(_token("shp(?:at|ss|ca|pa)_", r"[a-fA-F0-9]{32}(?![A-Za-z0-9_-])")), ("shpat_", "shpss_", "shpca_", "shppa_")),
    Rule("databricks_token", LazyPattern(_token("dapi", r"[a-f0-9]{32}(?:-\d)?(?![A-Za-z0-9_-])")), ("dapi",), _has_digit),
    Rule("atlassian_token", LazyPattern(_token("ATATT3", r"[A-Za-z0-9_=-]{100,}+")), ("atatt3",)),
    Rule("linear_key", LazyPattern(_token("lin_api_", r"[A-Za-z0-9]{40}(?![A-Za-z0-9_-])")), ("lin_api_",)),
    Rule("notion_token", LazyPattern(_token("secret_", r"[A-Za-z0-9]{43}(?![A-Za-z0-9_-])")), ("secret_",), _is_generated_token),
    Rule("notion_token", LazyPattern(_token("ntn_", r"[A-Za-z0-9]{40,50}(?![A-Za-z0-9_-])")), ("ntn_",), _has_digit),
    Rule("newrelic_key", LazyPattern(_token("NR(?:AK|II|JS|RA)-", r"[A-Z0-9]{27}(?![A-Za-z0-9_-])")), ("nrak-", "nrii-", "nrjs-", "nrra-")),
    Rule("grafana_token", LazyPattern(_token("glsa_", r"[A-Za-z0-9]{32}_[a-f0-9]{8}(?![A-Za-z0-9_-])")), ("glsa_",)),
    Rule("grafana_token", LazyPattern(_token("glc_", r"[A-Za-z0-9+/]{32,}+={0,2}")), ("glc_",), _has_digit),
    Rule("postman_key", LazyPattern(_token("PMAK-", r"[a-f0-9]{24}-[a-f0-9]{34}(?![A-Za-z0-9_-])")), ("pmak-",)),
    Rule(
        "doppler_token",
        LazyPattern(r"dp(?<![A-Za-z0-9_.-]dp)\.(?:st|ct|pt|sa|scim|audit)\.(?:[a-z0-9_-]{2,35}\.)?[A-Za-z0-9]{40,44}(?![A-Za-z0-9_-])"),
        ("dp.",),
    ),
    Rule("pulumi_token", LazyPattern(_token("pul-", r"[a-f0-9]{40}(?![A-Za-z0-9_-])")), ("pul-",)),
    Rule(
        "terraform_token",
        LazyPattern(r"(?<![A-Za-z0-9])[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,70}(?![A-Za-z0-9_=-])"),
        (".atlasv1.",),
    ),
    Rule("supabase_token", LazyPattern(_token("sbp_", r"[a-f0-9]{40}(?![A-Za-z0-9_-])")), ("sbp_",)),
    Rule("netlify_token", LazyPattern(_token("nfp_", r"[A-Za-z0-9]{36}(?![A-Za-z0-9_-])")), ("nfp_",), _has_digit),
    Rule("age_secret_key", LazyPattern(_token("AGE-SECRET-KEY-1", r"[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}")), ("age-secret-key-1",)),
    Rule(
        "azure_client_secret",
        # Entra ID client secrets: three characters, a digit, `Q~`, then 31 to 34 more.
        LazyPattern(r"Q~(?<=(?<![A-Za-z0-9_~.-])[A-Za-z0-9_~.-]{3}\dQ~)[A-Za-z0-9_~.-]{31,34}(?![A-Za-z0-9_~.-])"),
        ("q~",),
    ),
    Rule("azure_sas_signature", LazyPattern(r"[?&]sig=(?P<secret>[A-Za-z0-9%+/]{30,}+={0,2})"), ("sig=",)),
    Rule(
        "jwt",
        LazyPattern(_token("eyJ", r"[A-Za-z0-9_-]{10,}+\.[A-Za-z0-9_-]{4,}+\.[A-Za-z0-9_-]*+(?:\.[A-Za-z0-9_-]++){0,2}")),
        ("eyj",),
    ),
    Rule(
        "url_password",
        # Anchored on `://`; the scheme stays in front of the match, untouched.
        LazyPattern(
            r"://(?<=[A-Za-z0-9]://)[^\s:/?#@\[\]]{0,256}+:"
            + _NOT_DONE
            # The host has no `@`, so an unescaped `@` inside the password stays in the password.
            + r"(?P<secret>[^\s/?#\[\]]{1,256}?)@(?=[A-Za-z0-9\[][^\s/?#@]*(?:[/?#\s]|$))"
        ),
        ("://",),
        _check_url_password,
    ),
    Rule(
        "bearer_token",
        LazyPattern(r"(?i)bearer(?<![\w-]bearer)[ \t]+" + _NOT_DONE + _TOKEN68),
        ("bearer",),
        _check_credential,
    ),
    Rule(
        "authorization",
        LazyPattern(
            r"(?i)authorization(?<!\wauthorization)[\"']?[ \t]*[:=][ \t]*[\"']?"
            # Atomic, so a redacted `Bearer [REDACTED:..]` cannot be re-read with `Bearer` as the token.
            r"(?>(?:(?P<scheme>bearer|basic|token|bot|apikey|key|ssws)[ \t]+)?)"
            + _NOT_DONE
            + _TOKEN68
        ),
        ("authorization",),
        _check_credential,
    ),
    Rule(
        "user_password",
        LazyPattern(r"-(?<![\w-]-)(?:u|-user)[ \t]+[\"']?[^\s:\"'/@\[\]=]+:" + _NOT_DONE + r"(?P<secret>[^\s\"']+)"),
        ("-u ", "-u\t", "--user"),
        _check_url_password,
    ),
    Rule(
        "cli_password",
        # Commands that take a password as a short option, each with its own spelling. mysql's
        # must be attached (`-pSECRET`): `-p db` prompts and reads `db` as the database. Only the
        # named commands: `-p` is a port, a path or `--parents` everywhere else.
        LazyPattern(
            r"(?<![\w./-])(?:"
            r"(?:mysql\w*|mariadb(?:-\w+)?)(?![\w-])" + _CLI_ARGS + r"-p(?=[^\s-])"
            r"|7z[az]?(?![\w-])" + _CLI_ARGS + r"-p(?=\S)"
            r"|sshpass(?![\w-])" + _CLI_ARGS + r"-p[ \t]*"
            r"|(?:docker|podman|nerdctl|buildah)[ \t]+login(?![\w-])" + _CLI_ARGS + r"-p[ \t]+"
            r"|mongo(?:sh|dump|restore|import|export)?(?![\w-])" + _CLI_ARGS + r"-p[ \t]+"
            r"|redis-cli(?![\w-])" + _CLI_ARGS + r"-a[ \t]+"
            r"|(?:zip|unzip|sqlcmd|bcp|ipmitool)(?![\w-])" + _CLI_ARGS + r"-P[ \t]+"
            r"|ssh-keygen(?![\w-])" + _CLI_ARGS + r"-[NP][ \t]+"
            # keytool's and jarsigner's, and openssl's `pass:` argument, are spelled like no one else's.
            r"|(?<=[ \t])-(?:src|dest|new)?(?:store|key)pass[ \t]+"
            r"|(?<=[ \t])-pass(?:in|out)?[ \t]+pass:"
            # htpasswd -b[c...] FILE USER PASSWORD (batch mode, with a file).
            r"|htpasswd[ \t]+-[a-mo-zA-Z]*b[a-mo-zA-Z]*[ \t]+[^\s-]\S*[ \t]+[^\s-]\S*[ \t]+"
            # Shell quotes only: a backtick is command substitution (or, in Markdown, the end of code).
            r")" + _NOT_DONE + r"(?:" + _SHELL_QUOTED + r"|(?P<secret>(?:[^\s\"'`;|&]|&(?!&)){1,256}))"
        ),
        ("mysql", "mariadb", "7z", "sshpass", "login", "mongo", "redis-cli", "zip", "sqlcmd", "bcp", "ipmitool", "ssh-keygen", "pass", "htpasswd"),
        _check_cli_password,
    ),
    Rule(
        "netrc_password",
        LazyPattern(
            r"(?m)password(?<![\w-]password)[ \t]+" + _NOT_DONE
            + r"(?P<secret>\S+)(?=[ \t]*(?:$|(?:machine|login|account|macdef|default)\b))"
        ),
        ("password",),
        _check_netrc,
    ),
    Rule(
        "assigned_secret",
        # The quotes around a name need not pair up: `"token": ...` and `\"token\": ...` both occur.
        LazyPattern(
            r"(?m)(?<![\w.])(?P<name>[A-Za-z_][\w.-]{0,80}+)(?:\\?[\"'])?[ \t]*"
            r"(?:" + _EQ + r"[ \t]*(?P<secret_eq>" + _UNQUOTED + r")"
            r"|(?:" + _EQ + r"|" + _COLON + r")[ \t]*" + _QUOTED + r")"
        ),
        ("secret", "pass", "pw", "cred", "token", "auth", "key"),
        _check_assignment,
    ),
    Rule(
        "assigned_secret",
        # `name: value` to the end of the line (YAML). A name right after a `:` is not a key of its
        # own (`a:b:c`), and leaving it out keeps a long `x:x:x:...` run linear: otherwise every
        # `x` in it starts a match that reads the rest of the run and backtracks through it.
        LazyPattern(
            r"(?m)(?<![\w.:])(?P<name>[A-Za-z_][\w.-]{0,80}+)(?:\\?[\"'])?[ \t]*"
            + _COLON + r"[ \t]*(?P<secret_colon>" + _UNQUOTED + r")(?=[\"'](?:[ \t]|$)|[ \t]*,?[ \t]*(?:\#|\r?$))"
        ),
        ("secret", "pass", "pw", "cred", "token", "auth", "key"),
        _check_assignment,
    ),
    Rule(
        "assigned_secret",
        LazyPattern(r"--(?<![\w-]--)(?P<name>[A-Za-z][\w-]{0,60}+)[ \t]+(?:(?P<secret>" + _UNQUOTED + r")|" + _QUOTED + r")"),
        ("--",),
        _check_flag,
    ),
    Rule(
        "prose_secret",
        # "my password is X", "the password for the staging db was X", "set the root password to X",
        # "password: X" inside a sentence. Last, so that the rules that know a format go first.
        LazyPattern(
            # Not a word inside a name, path or URN (`arn:aws:...:secret:prod/db`).
            r"(?i)(?<![\w:/.@-])(?:pass(?:word|wd|phrase|code)|pwd|secret|token|api[ _-]?key|access[ _-]?key)(?![\w-])"
            r"(?:[ \t]+(?:for|of|to|on)(?:[ \t]+(?!is\b|was\b)[\w.@-]{1,40}){1,3}(?=[ \t]+(?:is|was)\b))?"
            r"(?:[ \t]+(?:is|was)(?:[ \t]+(?:now|still|just|actually))?[ \t]+|[ \t]+to[ \t]+|[ \t]*(?P<colon>:)[ \t]*)"
            + _NOT_DONE
            # Not `&str`, `*const T`, `[u8]`, `<T>`, `{...}`, `$VAR`: types and references in code.
            + r"(?:" + _QUOTED + r"|(?P<secret>(?![\[(<{$&*])[^\s\"'`]{0,255}[^\s\"'`.,;:!?)\]}>]))"
        ),
        ("pass", "pwd", "secret", "token", "key"),
        _check_prose,
    ),
)

@functools.cache
def _secret_groups(pattern: LazyPattern) -> tuple[str, ...]:
    """The groups of a rule's pattern that hold the secret (the rest of the match is kept)."""
    return tuple(g for g in pattern.groupindex if g.startswith("secret") or g in _QUOTE_GROUPS)


_LONGEST_MARKER = max(len(_marker(rule.name)) for rule in RULES)


def _in_marker(text: str, start: int, end: int) -> bool:
    """The span overlaps a marker an earlier rule left (the patterns' own guards aside)."""
    if MARKER[1:-1] in text[start:end]:
        return True
    before = text[max(0, start - _LONGEST_MARKER) : start]
    opened = before.rfind(MARKER)
    return opened != -1 and "]" not in before[opened:]


def _apply(rule: Rule, text: str) -> tuple[str, int]:
    groups = _secret_groups(rule.pattern)
    marker = _marker(rule.name)
    has_markers = MARKER in text
    search = rule.pattern.search
    pieces: list[str] = []
    done = pos = 0
    # Text searched twice; capped so that chains such as `key=key=key=...` stay linear.
    rescan_budget = len(text) + 4096
    while (m := search(text, pos)) is not None:
        start, end = m.span()
        for group in groups:
            if m.start(group) != -1:
                start, end = m.span(group)
                break
        if (has_markers and _in_marker(text, start, end)) or (rule.check is not None and not rule.check(m, start, end)):
            # Not re.sub: a rejected match may hold a secret of its own, as in
            # `"command": "TOKEN=abc123 ./run.sh"`, so the search resumes inside it.
            pos = max(start, m.start() + 1)
            rescan_budget -= m.end() - pos
            if rescan_budget < 0:
                pos = max(m.end(), pos)
            continue
        pieces += (text[done:start], marker)
        done = end
        pos = max(m.end(), m.start() + 1)
    if not pieces:
        return text, 0
    pieces.append(text[done:])
    return "".join(pieces), len(pieces) // 2


def redact(text: str) -> tuple[str, int]:
    """``text`` with every recognised secret replaced by ``[REDACTED:<rule>]``, and how many."""
    if not text:
        return text, 0
    # Lowered once: redaction only removes hints (markers are never matched again).
    lowered = text.lower()
    total = 0
    for rule in RULES:
        if any(hint in lowered for hint in rule.hints):
            text, count = _apply(rule, text)
            total += count
    return text, total


# Lists of settings as objects: `{"name": "DB_PASSWORD", "value": "..."}` (Kubernetes, ECS, GitHub),
# `{"key": ..., "value": ...}` (Postman, Terraform), `{"ParameterKey", "ParameterValue"}` (CloudFormation).
_NAME_VALUE_KEYS = (("name", "value"), ("key", "value"), ("Name", "Value"), ("Key", "Value"), ("ParameterKey", "ParameterValue"))


def redact_value(value: Any) -> tuple[Any, int]:
    """Redact every string inside dicts, lists and tuples; returns (new value, count).

    A string under a secret-looking key (``{"password": "hunter2"}``), or the value of
    a name/value pair naming a secret (``{"name": "DB_PASSWORD", "value": "hunter2"}``), is
    replaced whole, since the key is the only sign that it is a secret.
    """
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        total = 0
        out = {}
        for key, item in value.items():
            if isinstance(key, str):
                key, n = redact(key)
                total += n
            item, n = redact_value(item)
            total += n
            secret_key = isinstance(key, str) and _is_secret_name(key)
            if secret_key and isinstance(item, str) and _is_secret_value(item, quoted=True, name=key):
                item = _marker("assigned_secret")
                total += 1
            out[key] = item
        for name_key, value_key in _NAME_VALUE_KEYS:
            name, item = out.get(name_key), out.get(value_key)
            if isinstance(name, str) and isinstance(item, str) and _is_secret_name(name) and _is_secret_value(item, quoted=True, name=name):
                out[value_key] = _marker("assigned_secret")
                total += 1
        return out, total
    if isinstance(value, (list, tuple)):
        total = 0
        items = []
        for item in value:
            item, n = redact_value(item)
            total += n
            items.append(item)
        return (items if isinstance(value, list) else tuple(items)), total
    return value, 0
