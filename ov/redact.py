"""Secret redaction: session messages are scrubbed before anything reaches disk.

``redact(text)`` replaces every secret it recognises with ``[REDACTED:<rule>]``
and says how many it replaced; ``redact_value(value)`` does the same for every
string inside JSON-like data (tool inputs and outputs). Both are idempotent:
a marker is never matched again, so redacting twice changes nothing more.

Every recogniser is one row of ``RULES``: a name (the hint left in the marker),
a compiled pattern, a few lowercase substrings of which at least one must occur
before the pattern is tried at all (hooks run this on every agent turn, and most
text holds no secret, so most rules never run), and an optional check that can
veto a match. A pattern that has groups named ``secret...`` replaces only that
group, so names, quotes, ``Bearer``, the URL's scheme, user and host survive.

Rules run in table order. Provider tokens come first, so ``API_KEY=sk-...``
becomes ``API_KEY=[REDACTED:openai_key]`` rather than a generic marker; the
generic rules after them skip anything already holding a marker.

Decisions on the edges (all of them err towards redacting when unsure, except
where the text is clearly code or prose):

* Provider tokens need their prefix at a token boundary (so ``task-sk-ip`` and
  ``sk-learn`` stay), a minimum length, and, where the prefix is short
  (``sk-``, ``hf_``, ``npm_``, ``gh?_``), at least one digit: real tokens are
  random, identifiers such as ``hf_AutoModelForCausalLM`` are not.
* A JWT is ``eyJ`` + base64url, dot, base64url, dot, optional signature.
  Base64 data (images, ``data:`` URLs) has no dots and so never matches.
* ``Bearer <token>`` and ``Authorization: <scheme> <token>`` keep the words and
  redact the token, unless the "token" is an English word ("Bearer
  authentication"), an environment reference (``$TOKEN``, ``ACCESS_TOKEN``)
  or a placeholder.
* URL passwords: ``scheme://user:password@host`` keeps everything but the
  password. URLs without a password are untouched.
* Assignments (``NAME=value``, ``NAME: value``, ``"name": "value"``,
  ``--name=value`` and ``--name value``) redact the value when the name looks
  secret: after splitting it into words (``_``, ``-``, ``.``, camelCase) it
  holds secret, password/passwd/pwd/pass/pw, passphrase, credential(s)/cred(s),
  token (but not tokenizer/tokens), auth (but not author/authority), a
  qualified key (api/access/private/client/... key), or is an UPPER_SNAKE name
  with a KEY word (``STRIPE_KEY``). A bare ``key`` or ``sort_key`` is not
  secret: in code those are dictionary keys. Names whose last word says the
  value is metadata (``_url``, ``_file``, ``_path``, ``_type``, ``_id``,
  ``_length``, ``_budget``, ``_prompt``...) are not secret, nor are ``PWD`` and
  ``OLDPWD`` (shell working directories).
* Values that are not secrets: empty, small numbers (up to six digits:
  ``PASSWORD_MIN_LENGTH=8``, ``max_tokens: 2000``), booleans and nulls,
  placeholders (``<your-key>``, ``${VAR}``, ``$VAR``, ``{{ x }}``, ``%VAR%``,
  ``your_api_key``, ``changeme``, masks such as ``xxxx``, ``****``, ``sk-...``).
  Unquoted values that are code are skipped too: calls and subscripts
  (``get_token()``, ``os.environ["X"]``), dotted attribute paths
  (``self.token``), a variable whose own name looks secret (``api_key=api_key``),
  type names (``password: str``) and keywords (``await``, ``lambda``).
* ``NAME: value`` without quotes only counts when the value is the last thing
  on the line (YAML, HTTP headers); "Password: reset it from settings" is prose.
* Space-separated flags (``--password hunter2``) also need a value that is not
  a plain word or a path, because boolean flags are followed by arguments.
* Known misses: short flags (``-phunter2``), type-annotated TypeScript
  (``const token: string = "..."``), passwords containing whitespace when
  unquoted, and dotted passwords that read like attribute paths (``Ab.cd``).
"""

from __future__ import annotations

import re
from typing import Any, Callable, NamedTuple

__all__ = ["RULES", "Rule", "redact", "redact_value"]

MARKER = "[REDACTED:"


class Rule(NamedTuple):
    name: str
    pattern: re.Pattern[str]
    hints: tuple[str, ...]
    # Given the match and the span about to be replaced; False keeps the text.
    check: Callable[[re.Match[str], int, int], bool] | None = None


def _marker(name: str) -> str:
    return f"{MARKER}{name}]"


# A marker must never be matched again, or redaction would not be idempotent.
_NOT_DONE = r"(?!\[REDACTED)"
# Provider tokens must start at a token boundary, not inside a longer word.
_B = r"(?<![A-Za-z0-9_-])"

# ----- value and name judgements shared by the rules ---------------------------

_MASKED = re.compile(r"\.\.\.|…|x{4,}|X{4,}|\*{4,}|•{3,}")
_PLACEHOLDER = re.compile(
    r"""(?ix)
      [-+]?\d{1,6}(?:\.\d+)?                    # lengths, limits, ports, budgets
    | true|false|yes|no|on|off|null|none|nil|undefined|n/a
    | [x*•._\#-]{3,}                            # masks
    | <[^<>]*> | \{\{.*\}\} | \{[A-Za-z_][\w.]*\}  # template slots
    | \$\{[^}]*\} | \$\(.*\) | \$[A-Za-z_]\w* | %[A-Za-z_]\w*%   # shell/env references
    | your[\s_-]?.* | change[_-]?me | placeholder | redacted | todo | tbd | fixme
    """
)
_IDENT = re.compile(r"[A-Za-z_$][\w$]*")
# Unquoted right-hand sides that are code rather than a literal secret.
_CODE = re.compile(
    r"""(?x)
      [A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+[(\[]?.*   # attribute path, maybe called
    | [A-Za-z_$][\w$]*[(\[].*                         # call or subscript
    | (?i:self|this|cls|await|new|lambda|function|async|yield|not|typeof|return
         |str|string|int|integer|float|bool|boolean|bytes|number|any|object|dict|list
         |optional|secretstr|secretbytes|unknown|void|required)
    """
)
_WORDLIKE = re.compile(r"[A-Za-z][a-z]*|[A-Z]+(?:_[A-Z]+)+")
_PATHLIKE = re.compile(r"(?:~|\.{1,2})?/")

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_NON_ALNUM = re.compile(r"[^a-z0-9]+")
_SECRET_NAME = re.compile(
    r"""(?x)
      secret | passw(?:or)?d | passphrase | pwd | credential
    | (?:^|_)(?:pass|pw|creds?)(?:$|_)
    | token(?!i[sz]|s(?:$|_))                     # not tokenizer, max_tokens
    | auth(?!or(?!i[sz]))                         # authorization, not author(ity)
    | (?:api|access|private|client|master|signing|encryption|app|service|account
         |session|license|webhook|consumer|deploy|ssh|hmac|jwt|bot|admin|root|auth)_?keys?(?:$|_)
    """
)
_UPPER_KEY = re.compile(r"(?:^|_)keys?(?:$|_)")
# The last word of a name saying the value describes the secret rather than being it.
_METADATA_WORD = re.compile(
    r"""(?x)(?:^|_)(?:
      url|uri|urls|endpoint|host|hostname|port|path|file|filename|dir|type|kind|mode|method|methods
    | provider|scheme|name|names|length|len|count|size|limit|budget|timeout|ttl|expiry|expires
    | expires_in|expires_at|format|header|env|var|sock|socket|id|ids|prefix|field|param
    | location|index|version|prompt|label|hint|help|message|msg|text|title|description
    | placeholder|error|enabled|required|policy|strategy|algorithm|alg|backend|manager
    )$"""
)


def _is_secret_name(name: str) -> bool:
    words = _NON_ALNUM.sub("_", _CAMEL.sub("_", name).lower()).strip("_")
    if not words or words in ("pwd", "oldpwd") or _METADATA_WORD.search(words):
        return False
    if _SECRET_NAME.search(words):
        return True
    return not any(c.islower() for c in name) and bool(_UPPER_KEY.search(words))


def _is_literal_secret(value: str) -> bool:
    """A quoted or structured value: anything but empty, markers and placeholders."""
    value = value.strip()
    return bool(value) and MARKER not in value and not _PLACEHOLDER.fullmatch(value) and not _MASKED.search(value)


def _is_unquoted_secret(value: str) -> bool:
    if not _is_literal_secret(value) or _CODE.fullmatch(value):
        return False
    # `api_key=api_key`, `password: db_password`: a variable, not its value.
    return not (_IDENT.fullmatch(value) and _is_secret_name(value))


def _looks_random(value: str) -> bool:
    return _is_literal_secret(value) and not _WORDLIKE.fullmatch(value)


_QUOTE_GROUPS = ("dq", "sq", "bq", "eq")

# ----- checks used by the rules ------------------------------------------------


def _has_digit(m: re.Match[str], start: int, end: int) -> bool:
    secret = m.string[start:end]
    return any(c.isdigit() for c in secret) and not _MASKED.search(secret)


def _check_credential(m: re.Match[str], start: int, end: int) -> bool:
    return _looks_random(m.string[start:end])


def _check_url_password(m: re.Match[str], start: int, end: int) -> bool:
    return _is_literal_secret(m.string[start:end])


def _quoted(m: re.Match[str]) -> bool:
    return any(m.start(g) != -1 for g in _QUOTE_GROUPS)


def _plausible_value(m: re.Match[str], start: int, end: int) -> bool:
    secret = m.string[start:end]
    if _quoted(m):
        return _is_literal_secret(secret)
    # The unquoted value stops before trailing punctuation, which hides an elided `sk-...`.
    return _is_unquoted_secret(secret) and not m.string.startswith(("..", "…"), end)


def _check_assignment(m: re.Match[str], start: int, end: int) -> bool:
    return _is_secret_name(m["name"]) and _plausible_value(m, start, end)


def _check_flag(m: re.Match[str], start: int, end: int) -> bool:
    secret = m.string[start:end]
    return (
        _is_secret_name(m["name"])
        and _plausible_value(m, start, end)
        and not _WORDLIKE.fullmatch(secret)
        and not _PATHLIKE.match(secret)
    )


# ----- the rule table ------------------------------------------------------------

# Unquoted value: up to whitespace, a quote or a backslash (an escaped string),
# or a `&next=` query parameter; trailing punctuation belongs to the sentence.
_UNQUOTED = (
    _NOT_DONE + r"(?![(\[{<$\\])(?:[^\s\"'`&\\]|&(?![\w.-]{1,80}=))*[^\s\"'`&\\,;.)\]}>]"
)
_QUOTED = (
    r"(?:\"(?P<dq>(?:[^\"\\\n]|\\.)*+)\""
    r"|'(?P<sq>(?:[^'\\\n]|\\.)*+)'"
    r"|`(?P<bq>[^`\n]*+)`"
    r"|\\\"(?P<eq>(?:[^\"\\\n]|\\[^\"\n])*+)\\\")"
)
_EQ = r"=(?![=>~])"
_COLON = r":(?![=:])"

_PRIVATE_KEY_LABEL = r"-----{end}[ A-Z0-9]{{0,40}}PRIVATE KEY(?: BLOCK)?-----"


def _compile(pattern: str, flags: int = 0) -> re.Pattern[str]:
    return re.compile(pattern, flags)


RULES: tuple[Rule, ...] = (
    Rule(
        "private_key",
        _compile(
            _PRIVATE_KEY_LABEL.format(end="BEGIN")
            + r"(?:[\s\S]{0,65536}?" + _PRIVATE_KEY_LABEL.format(end="END")
            # Truncated output (no END line): take the base64 and header lines that follow.
            + r"|(?:(?:\r?\n|\\n)[ \t]*(?:[A-Za-z0-9+/=]+|[A-Za-z][\w-]*:[^\r\n\\]*)?[ \t]*(?=\r?\n|\\n|\Z))*+)"
        ),
        ("private key",),
    ),
    Rule("anthropic_key", _compile(_B + r"sk-ant-[A-Za-z0-9_-]{20,}+"), ("sk-ant-",), _has_digit),
    Rule("openai_key", _compile(_B + r"sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}+"), ("sk-",), _has_digit),
    Rule("google_api_key", _compile(_B + r"AIza[A-Za-z0-9_-]{35}(?![A-Za-z0-9_-])"), ("aiza",)),
    Rule(
        "aws_access_key_id",
        _compile(r"(?<![A-Za-z0-9])(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}(?![A-Za-z0-9])"),
        ("akia", "asia", "abia", "acca"),
    ),
    Rule(
        "aws_secret_key",
        _compile(
            r"(?i)(?<![\w])(?:aws_?secret_?(?:access_?)?key|secretaccesskey)[\"']?[ \t]*[:=][ \t]*[\"']?"
            r"(?P<secret>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])"
        ),
        ("secret",),
    ),
    Rule(
        "github_token",
        _compile(_B + r"(?:gh[pousr]_[A-Za-z0-9]{30,}+|github_pat_[A-Za-z0-9_]{22,}+)"),
        ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
        _has_digit,
    ),
    Rule("gitlab_token", _compile(_B + r"gl(?:pat|dt|rt|ptt)-[A-Za-z0-9_-]{20,}+"), ("glpat-", "gldt-", "glrt-", "glptt-")),
    Rule("slack_token", _compile(_B + r"xox[abprs]-[A-Za-z0-9-]{10,}+"), ("xox",)),
    Rule(
        "slack_webhook",
        _compile(r"https://hooks\.slack\.com/services/(?P<secret>T[A-Z0-9]+/B[A-Z0-9]+/[A-Za-z0-9]+)"),
        ("hooks.slack.com",),
    ),
    Rule(
        "stripe_key",
        _compile(_B + r"(?:(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}+|whsec_[A-Za-z0-9]{24,}+)"),
        ("_live_", "_test_", "whsec_"),
    ),
    Rule(
        "vault_token",
        _compile(_B + r"(?:hv[sbr]\.[A-Za-z0-9_-]{24,}+|s\.[A-Za-z0-9]{24}(?![A-Za-z0-9_-]))"),
        ("hvs.", "hvb.", "hvr.", "s."),
        _has_digit,
    ),
    Rule("huggingface_token", _compile(_B + r"hf_[A-Za-z0-9]{30,}+"), ("hf_",), _has_digit),
    Rule("npm_token", _compile(_B + r"npm_[A-Za-z0-9]{30,}+"), ("npm_",), _has_digit),
    Rule(
        "jwt",
        _compile(_B + r"eyJ[A-Za-z0-9_-]{10,}+\.[A-Za-z0-9_-]{4,}+\.[A-Za-z0-9_-]*+(?:\.[A-Za-z0-9_-]++){0,2}"),
        ("eyj",),
    ),
    Rule(
        "url_password",
        _compile(
            r"(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]{0,30}+://[^\s:/?#@\[\]]{0,256}+:"
            + _NOT_DONE
            # The host has no `@`, so an unescaped `@` inside the password stays in the password.
            + r"(?P<secret>[^\s/?#\[\]]{1,256}?)@(?=[A-Za-z0-9\[][^\s/?#@]*(?:[/?#\s]|$))"
        ),
        ("://",),
        _check_url_password,
    ),
    Rule(
        "bearer_token",
        _compile(r"(?i)(?<![\w-])bearer[ \t]+" + _NOT_DONE
            # A sentence's full stop after the token is not part of it.
            + r"(?P<secret>(?=[A-Za-z0-9_~+/.-]{8})[A-Za-z0-9_~+/.-]*[A-Za-z0-9_~+/-]=*)"),
        ("bearer",),
        _check_credential,
    ),
    Rule(
        "authorization",
        _compile(
            r"(?i)(?<![\w-])(?:proxy-)?authorization[\"']?[ \t]*[:=][ \t]*[\"']?"
            # Atomic, so a redacted `Bearer [REDACTED:..]` cannot be re-read with `Bearer` as the token.
            r"(?>(?:(?:bearer|basic|token|bot|apikey|key|ssws)[ \t]+)?)"
            + _NOT_DONE
            + r"(?P<secret>[^\s\"',;]{8,}+)"
        ),
        ("authorization",),
        _check_credential,
    ),
    Rule(
        "assigned_secret",
        _compile(
            r"(?m)(?<![\w.])(?P<q>\\?[\"']|)(?P<name>[A-Za-z_][\w.-]{0,80}+)(?P=q)[ \t]*"
            r"(?:" + _EQ + r"[ \t]*(?P<secret_eq>" + _UNQUOTED + r")"
            r"|" + _COLON + r"[ \t]*(?P<secret_colon>" + _UNQUOTED + r")(?=[ \t]*,?[ \t]*(?:\#|\r?$))"
            r"|(?:" + _EQ + r"|" + _COLON + r")[ \t]*" + _QUOTED + r")"
        ),
        ("secret", "pass", "pw", "cred", "token", "auth", "key"),
        _check_assignment,
    ),
    Rule(
        "assigned_secret",
        _compile(r"(?<![\w-])--(?P<name>[A-Za-z][\w-]{0,60}+)[ \t]+(?:(?P<secret>" + _UNQUOTED + r")|" + _QUOTED + r")"),
        ("--",),
        _check_flag,
    ),
)

_SECRET_GROUPS = {
    id(rule): tuple(g for g in rule.pattern.groupindex if g.startswith("secret") or g in _QUOTE_GROUPS)
    for rule in RULES
}


def _apply(rule: Rule, text: str) -> tuple[str, int]:
    groups = _SECRET_GROUPS[id(rule)]
    marker = _marker(rule.name)
    count = 0

    def replace(m: re.Match[str]) -> str:
        nonlocal count
        start, end = m.span()
        for group in groups:
            if m.start(group) != -1:
                start, end = m.span(group)
                break
        if rule.check is not None and not rule.check(m, start, end):
            return m.group(0)
        count += 1
        whole = m.group(0)
        return whole[: start - m.start()] + marker + whole[end - m.start() :]

    return rule.pattern.sub(replace, text), count


def redact(text: str) -> tuple[str, int]:
    """``text`` with every recognised secret replaced by ``[REDACTED:<rule>]``, and how many."""
    if not text:
        return text, 0
    lowered = text.lower()
    total = 0
    for rule in RULES:
        if not any(hint in lowered for hint in rule.hints):
            continue
        text, count = _apply(rule, text)
        if count:
            total += count
            lowered = text.lower()
    return text, total


def redact_value(value: Any) -> tuple[Any, int]:
    """Redact every string inside dicts, lists and tuples; returns (new value, count).

    A string under a secret-looking key (``{"password": "hunter2"}``) is
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
            if isinstance(key, str) and isinstance(item, str) and _is_secret_name(key) and _is_literal_secret(item):
                item = _marker("assigned_secret")
                total += 1
            out[key] = item
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
