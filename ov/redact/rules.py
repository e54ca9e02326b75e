"""The rule table: what redaction recognises as a secret.

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
* An AWS secret access key is redacted after its label (``aws_secret_access_key =``,
  ``"SecretAccessKey":``) and without one: exactly 40 characters of base64 that mix upper and
  lower case with at least two digits (as randomness does: one key in a hundred has fewer),
  within eight words of an access key id (its marker: the id's rule runs first) or within five
  words after the word "secret" ("and secret Tq8v...", "Secret Access Key [None]: Tq8v...").
  A git commit or SHA-1 is hex (one case) and stays, and so does a 40-character token with
  neither beside it, one followed by ``.`` and a letter (a file's extension) and a path whose
  segments read as words (``app/Http/Middleware/VerifyApiSecretToken``).
* A JWT is ``eyJ`` + base64url, a dot, base64url, a dot and an optional
  signature; base64 data (images, ``data:`` URLs) has no dots.
* ``Bearer <token>`` and ``Authorization: <scheme> <token>`` keep the words and
  redact a token-looking token: not an English word ("Bearer authentication"),
  a name (``ACCESS_TOKEN``), a reference (``$TOKEN``, ``{token}``) or code.
* ``scheme://user:password@host`` keeps everything but the password, except
  the literal placeholders ``password``/``pass``/``secret`` of documentation.
* Pre-signed URLs lose the values of ``X-Amz-Signature``, ``X-Amz-Credential``,
  ``X-Amz-Security-Token`` and ``X-Goog-Signature`` (the rest of the URL stays
  readable); an Azure SAS ``sig=`` goes when it is long (a real one is 44
  characters of base64 or more) or when ``sv=`` or ``se=`` stands in its query.
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
  ``_type``, ``_id``, ``_length``, ``_budget``, ``_prompt``...) is not secret;
  ``PWD`` is a password in an ODBC string (``PWD=...;``) but not when its value
  is a path (the shell's ``PWD``/``OLDPWD``).
* Values that are not secrets: under four characters; numbers of up to six
  digits (``PASSWORD_MIN_LENGTH=8``, ``max_tokens: 2000``; longer ones may be
  PINs or keys); booleans, nulls and modes (``true``, ``none``, ``write``);
  placeholders and masks (``<your-key>``, ``${VAR}``, ``$VAR``, ``{{ x }}``,
  ``your_api_key``, ``changeme``, ``xxxx``, ``****``, ``sk-...``); names
  (``"api_key"``, ``GITHUB_TOKEN``, ``X-Api-Key``, an enum spelling its own
  name; a secret's name in lower-case words or camelCase, ``db-credentials``,
  ``accessToken``, or a kind of credential, ``ClientSecret``, except under a
  password's name, ``password=AccessToken``; but not other words
  with capitals or digits, ``Summer2024Password``, ``MySecretToken``, which is how a
  password is made of words); paths; URLs without credentials; quoted type annotations and prose
  of six words or more. Unquoted code is skipped too: calls and subscripts
  (``get_token()``), attribute paths (``self.token``), variables in code
  (``api_key = key``, ``f(token=tok)``), type names (``password: str``,
  ``token: Histogram``; a capitalised word after a password's name is a type only
  in a block of code, under ``class User:`` or ``interface Login {``, and in YAML,
  ``password: PasswordReset``, the password).
  A random-looking value (digits mixed with letters) outweighs these guesses,
  but for a name in code that is half words or more, digits and all
  (``token_cls = Sam3LiteTextModel2``: unquoted, spaces around ``=``). A hex
  digest (MD5 to SHA-512 lengths) under a name ending in hash, digest,
  checksum or sha256 is what a check compares with (``password_hash = "<hex>"``);
  a bcrypt hash there is not a bare digest, and goes.
* ``NAME: value`` without quotes counts only when the value ends the line
  (YAML, HTTP headers, or a header closing its quote in ``curl -H '...'``):
  "Password: reset it from settings" is prose. Opening a line (after
  indentation, a list or comment marker, or the line number of ``cat -n``,
  ``grep -n``, ``grep -rn`` or an agent's file reader: ``4→  password: x``,
  ``config/db.yml:4:password: x``, a context line's ``config/db.yml-4-``) it is YAML; further into a line it is
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
  "password X" with no verb (password, passphrase, passcode only: ``passwd``
  and ``pwd`` are commands) counts only when X mixes letters with digits or
  symbols and is no algorithm or version ("with password Zx9pQ2rT7v"; not
  "password policy", "password sha256", ``password VARCHAR(255)``).
* A PIN said outright (``pin``): "my PIN is 4921", "the PIN for the door is 4921", "PIN: 4921"
  lose the four to eight digits after an "is", ":" or "="; "PIN 3 on the GPIO header" and "pin
  4921 is reserved" say no value, and stay.
* Known misses: TypeScript annotations (``const token: string = "..."``),
  unquoted passwords with spaces, plain-word passwords in code-like positions
  (``password = hunter``) and in prose unless quoted ("my password is
  bluebird", "the passphrase is correct-horse-battery-staple"), passwords that
  read like attribute paths or names (``Ab.cd``, ``my_password``), short PINs
  (numbers of up to six digits) not said to be one, and ``mysql -p SECRET`` (which mysql itself
  reads as a database name).

The judgements of names and values and the checks that veto a match are in
:mod:`ov.redact.checks`; :mod:`ov.redact.engine` applies the table.
"""

from __future__ import annotations

import re
from typing import Callable, NamedTuple

from ov.redact.checks import (
    check_assignment,
    check_assignment_by_shape,
    check_aws_secret,
    check_cli_password,
    check_credential,
    check_credential_pair,
    check_discord,
    check_flag,
    check_flag_by_shape,
    check_netrc,
    check_prose,
    check_sas_signature,
    check_session_cookie,
    check_url_password,
    has_digit,
    is_generated_token,
    not_masked,
    not_placeholder,
)
from ov.regex import LazyPattern

__all__ = ["PIN_STATED", "RULES", "Rule"]


class Rule(NamedTuple):
    """One recogniser; see the module docstring."""

    name: str
    pattern: LazyPattern
    hints: tuple[str, ...]
    # Given the match and the span about to be replaced; False keeps the text.
    check: Callable[[re.Match[str], int, int], bool] | None = None
    # A rule of CONTEXTUAL applies to documents and code (redact's by_shape_only) with this check
    # instead, or not at all when there is none.
    by_shape: Callable[[re.Match[str], int, int], bool] | None = None


# A marker must never be matched again, or redaction would not be idempotent.
_NOT_DONE = r"(?!\[REDACTED)"

# Unquoted value: up to whitespace, a quote or a backslash (an escaped string),
# or a `&next=` query parameter; trailing punctuation belongs to the sentence.
_UNQUOTED = (
    # String prefixes (f"", b"", r"") start code, not a value.
    # A leading `&` or `*` is a YAML anchor or alias, `!` a negation, `#` a comment, `/^` a regex literal.
    # Bounded, so that rescanning inside a rejected value (see the engine's `_apply`) stays linear.
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


# A PIN's digits said outright, whatever stands between: "the PIN for the door is 4921", "my PIN
# is: 4921", "PIN = 49213". The shape decides, not the word: "PIN 3 on the GPIO header" and
# "pin 4921 is reserved" give no value after an "is", ":" or "=", and a pin's number is short.
# Also what keeps a statement of one out of memories (ov.sessions.memory.secrets).
PIN_STATED = (
    r"(?i)(?<![\w-])pins?(?:\s+(?:code|number))?(?:\s+(?:for|of|to|on|at)\s+[^.,;:=\n]{1,40}?)?"
    r"(?:\s+(?:is|was)(?:\s+(?:still|now))?\s*:?|\s*[:=])\s*" + _NOT_DONE + r"(?P<secret>\d{4,8})(?![\w-])"
)


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
        # The rest of a key whose start is redacted already (up to its END line; from mid-line):
        # a key written in parts, the first part alone taken as a truncated one (Store.write's ``redact``).
        LazyPattern(
            r"\[REDACTED:private_key\](?P<secret>[A-Za-z0-9+/=]*+[ \t]*(?:\r?\n|\\n)"
            r"(?:[ \t]*(?:[A-Za-z0-9+/=]+|[A-Za-z][\w-]*:[^\r\n\\]*)?[ \t]*(?:\r?\n|\\n))*+" + _PRIVATE_KEY_LABEL.format(end="END") + ")"
        ),
        ("[redacted:private_key]",),
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
    Rule("anthropic_key", LazyPattern(_token("sk-ant-", r"[A-Za-z0-9_-]{20,}+")), ("sk-ant-",), has_digit),
    Rule("openai_key", LazyPattern(_token("sk-", r"(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}+")), ("sk-",), has_digit),
    Rule("google_api_key", LazyPattern(_token("AIza", r"[A-Za-z0-9_-]{35}(?![A-Za-z0-9_-])")), ("aiza",)),
    Rule(
        "aws_access_key_id",
        LazyPattern(r"(?:AKIA|ASIA|ABIA|ACCA)(?<![A-Za-z0-9]....)[A-Z0-9]{16}(?![A-Za-z0-9])"),
        ("akia", "asia", "abia", "acca"),
        not_masked,  # AKIAXXXXXXXXXXXXXXXX in docs
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
    Rule(
        "aws_secret_key",
        # Unlabelled ("My AWS key is AKIA... and secret Tq8v..."): exactly 40 characters of base64,
        # which the check wants beside a key id or after the word "secret".
        LazyPattern(r"(?<![A-Za-z0-9/+_-])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=_-])"),
        ("secret", "akia", "asia", "abia", "acca"),
        check_aws_secret,
    ),
    Rule("github_token", LazyPattern(_token("gh[pousr]_", r"[A-Za-z0-9]{30,}+")), ("ghp_", "gho_", "ghu_", "ghs_", "ghr_"), has_digit),
    Rule("github_token", LazyPattern(_token("github_pat_", r"[A-Za-z0-9_]{22,}+")), ("github_pat_",), has_digit),
    Rule(
        "gitlab_token",
        # Personal, deploy, runner, pipeline-trigger, CI-job, incoming-mail and SCIM tokens.
        LazyPattern(r"gl(?<![A-Za-z0-9_-]gl)(?:pat|dt|rt|ptt|cbt|imt|soat)-[A-Za-z0-9_-]{20,}+"),
        ("glpat-", "gldt-", "glrt-", "glptt-", "glcbt-", "glimt-", "glsoat-"),
        has_digit,
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
    Rule("vault_token", LazyPattern(_token(r"hv[sbr]\.", r"[A-Za-z0-9_-]{24,}+")), ("hvs.", "hvb.", "hvr."), has_digit),
    Rule("huggingface_token", LazyPattern(_token("hf_", r"[A-Za-z0-9]{30,}+")), ("hf_",), has_digit),
    Rule("pypi_token", LazyPattern(_token("pypi-AgE", r"[A-Za-z0-9_-]{50,}+")), ("pypi-",)),
    Rule("npm_token", LazyPattern(_token("npm_", r"[A-Za-z0-9]{30,}+")), ("npm_",), has_digit),
    Rule("google_oauth_secret", LazyPattern(_token("GOCSPX-", r"[A-Za-z0-9_-]{28}(?![A-Za-z0-9_-])")), ("gocspx-",)),
    Rule("google_oauth_token", LazyPattern(_token(r"ya29\.", r"[A-Za-z0-9_-]{30,}+")), ("ya29.",), has_digit),
    Rule("google_oauth_token", LazyPattern(_token("1//0", r"[A-Za-z0-9_-]{40,}+")), ("1//0",), has_digit),
    Rule("sendgrid_key", LazyPattern(_token(r"SG\.", r"[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])")), ("sg.",)),
    Rule("mailgun_key", LazyPattern(_token("key-", r"[0-9a-f]{32}(?![A-Za-z0-9_-])")), ("key-",), has_digit),
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
        check_discord,
    ),
    Rule(
        "discord_webhook",
        LazyPattern(r"https://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/\d+/(?P<secret>[A-Za-z0-9_-]{60,}+)"),
        ("discord",),
    ),
    Rule("digitalocean_token", LazyPattern(_token("do[opr]_v1_", r"[a-f0-9]{64}(?![A-Za-z0-9_-])")), ("dop_v1_", "doo_v1_", "dor_v1_")),
    Rule("shopify_token", LazyPattern(_token("shp(?:at|ss|ca|pa)_", r"[a-fA-F0-9]{32}(?![A-Za-z0-9_-])")), ("shpat_", "shpss_", "shpca_", "shppa_")),
    Rule("databricks_token", LazyPattern(_token("dapi", r"[a-f0-9]{32}(?:-\d)?(?![A-Za-z0-9_-])")), ("dapi",), has_digit),
    Rule("atlassian_token", LazyPattern(_token("ATATT3", r"[A-Za-z0-9_=-]{100,}+")), ("atatt3",)),
    Rule("linear_key", LazyPattern(_token("lin_api_", r"[A-Za-z0-9]{40}(?![A-Za-z0-9_-])")), ("lin_api_",)),
    Rule("notion_token", LazyPattern(_token("secret_", r"[A-Za-z0-9]{43}(?![A-Za-z0-9_-])")), ("secret_",), is_generated_token),
    Rule("notion_token", LazyPattern(_token("ntn_", r"[A-Za-z0-9]{40,50}(?![A-Za-z0-9_-])")), ("ntn_",), has_digit),
    Rule("newrelic_key", LazyPattern(_token("NR(?:AK|II|JS|RA)-", r"[A-Z0-9]{27}(?![A-Za-z0-9_-])")), ("nrak-", "nrii-", "nrjs-", "nrra-")),
    Rule("grafana_token", LazyPattern(_token("glsa_", r"[A-Za-z0-9]{32}_[a-f0-9]{8}(?![A-Za-z0-9_-])")), ("glsa_",)),
    Rule("grafana_token", LazyPattern(_token("glc_", r"[A-Za-z0-9+/]{32,}+={0,2}")), ("glc_",), has_digit),
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
    Rule("netlify_token", LazyPattern(_token("nfp_", r"[A-Za-z0-9]{36}(?![A-Za-z0-9_-])")), ("nfp_",), has_digit),
    Rule("age_secret_key", LazyPattern(_token("AGE-SECRET-KEY-1", r"[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}")), ("age-secret-key-1",)),
    Rule(
        "azure_client_secret",
        # Entra ID client secrets: three characters, a digit, `Q~`, then 31 to 34 more; all of it
        # (matched from `Q~` with the four before it in a lookbehind, those four were kept).
        LazyPattern(r"(?<![A-Za-z0-9_~.-])[A-Za-z0-9_~.-]{3}\dQ~[A-Za-z0-9_~.-]{31,34}(?![A-Za-z0-9_~.-])"),
        ("q~",),
    ),
    Rule(
        "azure_sas_signature",
        # A query parameter (also after `&amp;` or a JSON-escaped `\u0026`); the check wants a long
        # signature or the SAS's other fields beside it.
        LazyPattern(
            r"sig=(?:(?<=[?&;]sig=)|(?<=\\u0026sig=))" + _NOT_DONE + r"(?P<secret>[A-Za-z0-9%+/]++={0,2})(?![\w%+/=-])"
        ),
        ("sig=",),
        check_sas_signature,
    ),
    Rule(
        "signed_url",
        # Pre-signed URLs (S3 and the other SigV4 services, Google Cloud Storage) carry the signature,
        # and for AWS the credential and session token it was made with, as query parameters (the
        # token also as a header); the bucket, object, date and expiry stay readable.
        LazyPattern(
            r"(?i)x-(?<![\w-]x-)(?:amz-(?:signature|credential|security-token)|goog-signature)(?:=|:[ \t]*)"
            + _NOT_DONE
            + r"(?P<secret>[A-Za-z0-9%+/=._~-]++)"
        ),
        ("x-amz-", "x-goog-"),
        not_placeholder,
    ),
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
            # The host has no `@`, so the password ends at the last `@` before it: an unescaped `@`
            # or `#` inside the password stays in the password (`p@ss#w0rd9@cache:6379`).
            + r"(?P<secret>[^\s/?\[\]]{1,256})@(?=[A-Za-z0-9\[][^\s/?#@]*(?:[/?#\s]|$))"
        ),
        ("://",),
        check_url_password,
    ),
    Rule(
        "bearer_token",
        LazyPattern(r"(?i)bearer(?<![\w-]bearer)[ \t]+" + _NOT_DONE + _TOKEN68),
        ("bearer",),
        check_credential,
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
        check_credential,
    ),
    Rule(
        "session_cookie",
        # A session's cookie (`session`, `sessionid`, `_session_id`, `PHPSESSID`, `JSESSIONID`,
        # `connect.sid`, `laravel_session`) where cookies are sent: a `Cookie:` or `Set-Cookie:`
        # header, or curl's `-b` / `--cookie`. Whoever holds it is logged in as its user.
        LazyPattern(
            r"(?i)(?:(?<![\w-])(?:set-)?cookie[ \t]*:[ \t]*|(?<![\w./-])curl(?![\w-])" + _CLI_ARGS + r"(?:-b|--cookie)[ \t]+[\"']?)"
            # Other cookies before it, each bounded: one header's search stays short.
            r"(?:[^\s;=\"']{1,64}=[^\s;\"']{0,1024};[ \t]*){0,16}?"
            r"(?P<name>[\w.-]{0,40}(?:sess|sid)[\w.-]{0,40})=" + _NOT_DONE + r"(?P<secret>[^\s;\"',]{1,4096})"
        ),
        ("cookie", "curl"),
        check_session_cookie,
    ),
    Rule(
        "user_password",
        LazyPattern(r"-(?<![\w-]-)(?:u|-user)[ \t]+[\"']?[^\s:\"'/@\[\]=]+:" + _NOT_DONE + r"(?P<secret>[^\s\"']+)"),
        ("-u ", "-u\t", "--user"),
        check_url_password,
    ),
    Rule(
        "cli_password",
        # Commands that take a password as a short option, each with its own spelling. mysql's
        # must be attached (`-pSECRET`): `-p db` prompts and reads `db` as the database. Only the
        # named commands and kinds: `-p` is a port, a path or `--parents` everywhere else.
        LazyPattern(
            r"(?<![\w./-])(?:"
            r"(?:mysql\w*|mariadb(?:-\w+)?)(?![\w-])" + _CLI_ARGS + r"-p(?=[^\s-])"
            r"|7z[az]?(?![\w-])" + _CLI_ARGS + r"-p(?=\S)"
            r"|sshpass(?![\w-])" + _CLI_ARGS + r"-p[ \t]*"
            # A `login` subcommand's `-p` is its password: the registries' and clouds' named
            # anywhere (`docker login`, `az login`, `oc login`), any tool's where a command line
            # surely starts (quoted, as a tool call's `"command"`, in a code span, after a `$ `
            # prompt, `;`, `&&`, `|`, `(`, `sudo`). Not at a bare line start: "the login page -p …" is prose.
            r"|(?:(?:docker|podman|nerdctl|buildah|skopeo|az|oc|cf|helm[ \t]+registry)[ \t]+"
            r"|(?:(?<=[\"'`;&|(])|(?<=\$ ))[ \t]*(?:sudo[ \t]+)?[\w-]+[ \t]+(?:[\w-]+[ \t]+)?)login(?=[ \t])" + _CLI_ARGS + r"-p[ \t]+"
            r"|mongo(?:sh|dump|restore|import|export)?(?![\w-])" + _CLI_ARGS + r"-p[ \t]+"
            r"|redis-cli(?![\w-])" + _CLI_ARGS + r"-a[ \t]+"
            # OpenLDAP's clients (ldapsearch, ldapmodify, ldapadd, ldapwhoami, ...): `-w` (`-W` prompts).
            r"|ldap\w*(?![\w-])" + _CLI_ARGS + r"-w(?:[ \t]+|(?=[^\s-]))"
            r"|(?:zip|unzip|sqlcmd|bcp|ipmitool|mosquitto_\w+)(?![\w-])" + _CLI_ARGS + r"-P[ \t]+"
            r"|ssh-keygen(?![\w-])" + _CLI_ARGS + r"-[NP][ \t]+"
            # keytool's and jarsigner's, and openssl's `pass:` argument, are spelled like no one else's.
            r"|(?<=[ \t])-(?:src|dest|new)?(?:store|key)pass[ \t]+"
            r"|(?<=[ \t])-pass(?:in|out)?[ \t]+pass:"
            # htpasswd -b[c...] FILE USER PASSWORD (batch mode, with a file).
            r"|htpasswd[ \t]+-[a-mo-zA-Z]*b[a-mo-zA-Z]*[ \t]+[^\s-]\S*[ \t]+[^\s-]\S*[ \t]+"
            # Shell quotes only: a backtick is command substitution (or, in Markdown, the end of code).
            r")" + _NOT_DONE + r"(?:" + _SHELL_QUOTED + r"|(?P<secret>(?:[^\s\"'`;|&]|&(?!&)){1,256}))"
        ),
        ("mysql", "mariadb", "7z", "sshpass", "login", "mongo", "redis-cli", "ldap", "zip", "sqlcmd", "bcp", "ipmitool", "mosquitto", "ssh-keygen", "pass", "htpasswd"),
        check_cli_password,
    ),
    Rule(
        "cli_password",
        # A password joined to its user in one argument. Oracle's tools take `user/password@db`
        # first, after options only (`sqlplus -s scott/pw@orcl`, `rman target sys/pw@db`,
        # `expdp userid=scott/pw`): a later `a/b` is a path. Samba's (smbclient, rpcclient,
        # smbcacls, net) and impacket's take `-U user%password` (`--user=`, `--username=`).
        LazyPattern(
            r"(?<![\w./-])(?:"
            r"(?:sqlplus|sqlcl|rman|expdp|impdp|sqlldr|dgmgrl)(?:[ \t]+-{1,2}[\w-]+){0,8}[ \t]+"
            r"(?:(?:target|catalog|auxiliary)[ \t]+)?(?:userid=)?[\"']?[^\s/@\"'=]{1,128}/"
            # The database after `@`; a Samba password may hold an `@`.
            + _NOT_DONE + r"(?P<secret>[^\s/@\"'`;|&]{1,256})(?![^\s@\"'`;|&])"
            r"|(?:-U[ \t]*|--user(?:name)?(?:=|[ \t]+))[\"']?[^\s%/\"'=-][^\s%/\"'=]{0,127}%"
            + _NOT_DONE + r"(?P<secret_samba>[^\s\"'`;|&]{1,256})"
            r")"
        ),
        ("sqlplus", "sqlcl", "rman", "expdp", "impdp", "sqlldr", "dgmgrl", "-u", "--user"),
        check_cli_password,
    ),
    Rule(
        "pgpass_password",
        # A line of PostgreSQL's ~/.pgpass, `host:port:database:user:password` (`*` for any), alone
        # on its line or quoted (`echo "…" >> ~/.pgpass`). The host holds a letter or a dot (a name,
        # an address) and the port is a number: `10:20:30:40:50` is no such line.
        LazyPattern(
            r"(?m)(?:^|(?<=[\"']))[ \t]*(?:\*|[\w.-]{0,252}[A-Za-z.][\w.-]{0,252}):(?:\d{1,5}|\*):"
            r"[^\s:\"']{1,128}:[^\s:\"']{1,128}:" + _NOT_DONE + r"(?P<secret>(?:[^\s:\\\"']|\\.){1,256})(?=[\"']|[ \t]*\r?$)"
        ),
        (":",),
        check_url_password,
    ),
    Rule(
        "netrc_password",
        LazyPattern(
            r"(?m)password(?<![\w-]password)[ \t]+" + _NOT_DONE
            + r"(?P<secret>\S+)(?=[ \t]*(?:$|(?:machine|login|account|macdef|default)\b))"
        ),
        ("password",),
        check_netrc,
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
        check_assignment,
        check_assignment_by_shape,
    ),
    Rule(
        "assigned_secret",
        # `name: value` to the end of the line (YAML). A name right after a `:` is not a key of its
        # own (`a:b:c`), and leaving it out keeps a long `x:x:x:...` run linear: otherwise every
        # `x` in it starts a match that reads the rest of the run and backtracks through it.
        LazyPattern(
            # A line number's colon does not count: `grep -n`'s (`4:password: x`) in fixed-width
            # lookbehinds, `grep -rn`'s (`config/db.yml:4:password: x`, `C:\app.yaml:4:...`) matched
            # from the line's start. Both anchored at the line start, so that runs of colons
            # (`x:1:x:1:...`) stay linear. So is a `grep -rn` context line's gutter
            # (`config/db.yml-4-password: x`), else the name would swallow it (`db.yml-4-password`).
            r"(?m)(?:(?<![\w.:])|" + "|".join(rf"(?<=^\d{{{n}}}:)" for n in range(1, 7))
            + r"|^(?:[A-Za-z]:[\\/])?[^\s:]{1,400}(?::\d{1,7}:|-\d{1,7}-))"
            r"(?P<name>[A-Za-z_][\w.-]{0,80}+)(?:\\?[\"'])?[ \t]*"
            + _COLON + r"[ \t]*(?P<secret_colon>" + _UNQUOTED + r")(?=[\"'](?:[ \t]|$)|[ \t]*,?[ \t]*(?:\#|\r?$))"
        ),
        ("secret", "pass", "pw", "cred", "token", "auth", "key"),
        check_assignment,
        check_assignment_by_shape,
    ),
    Rule(
        "assigned_secret",
        LazyPattern(r"--(?<![\w-]--)(?P<name>[A-Za-z][\w-]{0,60}+)[ \t]+(?:(?P<secret>" + _UNQUOTED + r")|" + _QUOTED + r")"),
        ("--",),
        check_flag,
        check_flag_by_shape,
    ),
    Rule(
        "credential_pair",
        # A user name and its password said together, no key naming the password: "the staging
        # login is admin / S3cure-Adm1n", "creds: deploy:Hunter22", "username/password are ops /
        # Tr0ub4dor", "user admin pass hunter2". The words before say a login follows; the check
        # wants a made-up password, so "and / or", "read / write" and paths after them stay.
        LazyPattern(
            r"(?i)(?<![\w./-])(?:"
            # A login named, then the pair: `user / password` or `user:password`.
            r"(?:(?:log-?in|logon|sign-?in)s?(?:[ \t]+details)?|credentials?|creds?"
            r"|(?:user(?:[ _-]?name)?|login)[ \t]*/[ \t]*pass(?:word|wd)?)(?![\w-])"
            r"(?:[ \t]+(?:for|of|to|on)(?:[ \t]+(?!(?:is|are|was|were)\b)[\w.@-]{1,40}){1,3}(?=[ \t]+(?:is|are|was|were)\b))?"
            r"(?:[ \t]+(?:is|are|was|were)(?:[ \t]+(?:now|still|just))?[ \t]+|[ \t]*[:=][ \t]*)"
            r"(?P<user>[^\s/:\"'`,;]{1,64})(?:[ \t]*/[ \t]*|:)"
            # A user named, then its password named: `user admin pass hunter2`, `username: a, password: b`.
            r"|user(?:[ _-]?name)?(?![\w-])(?:[ \t]*[:=][ \t]*|[ \t]+)(?P<named_user>[^\s/:\"'`,;]{1,64})"
            r"(?:[ \t]*[,;][ \t]*|[ \t]+)(?:and[ \t]+)?pass(?:word|wd)?(?![\w-])(?:[ \t]*[:=][ \t]*|[ \t]+(?:is[ \t]+)?)"
            r")" + _NOT_DONE + r"(?P<secret>(?![\[(<{$&*])[^\s\"'`]{0,255}[^\s\"'`.,;:!?)\]}>])"
        ),
        ("login", "log-in", "logon", "sign-in", "signin", "cred", "user"),
        check_credential_pair,
    ),
    Rule("pin", LazyPattern(PIN_STATED), ("pin",)),
    Rule(
        "prose_secret",
        # "my password is X", "the password for the staging db was X", "set the root password to X",
        # "password: X" inside a sentence. Last, so that the rules that know a format go first.
        LazyPattern(
            # Not a word inside a name, path or URN (`arn:aws:...:secret:prod/db`).
            r"(?i)(?<![\w:/.@-])(?P<head>pass(?:word|wd|phrase|code)|pwd|secret|token|api[ _-]?key|access[ _-]?key)(?![\w-])"
            r"(?:[ \t]+(?:for|of|to|on)(?:[ \t]+(?!is\b|was\b)[\w.@-]{1,40}){1,3}(?=[ \t]+(?:is|was)\b))?"
            r"(?:[ \t]+(?:is|was)(?:[ \t]+(?:now|still|just|actually))?[ \t]+|[ \t]+to[ \t]+|[ \t]*(?P<colon>:)[ \t]*"
            # "ssh in with password Zx9pQ2rT7v": no verb at all (the check wants a made-up value).
            r"|(?P<bare>[ \t]+))"
            + _NOT_DONE
            # Not `&str`, `*const T`, `[u8]`, `<T>`, `{...}`, `$VAR`: types and references in code.
            + r"(?:" + _QUOTED + r"|(?P<secret>(?![\[(<{$&*])[^\s\"'`]{0,255}[^\s\"'`.,;:!?)\]}>]))"
        ),
        ("pass", "pwd", "secret", "token", "key"),
        check_prose,
    ),
)


# The rules that judge a value by the words around it (a name, a sentence, a command's flag)
# rather than by its own shape. Right for what an agent and a user say, where a password is as
# often typed as pasted; in documents and source code they also take example values, placeholders
# and sample prompts (`image_token="<|image|>"`, "a new classification token to GPT-2"), so
# ingested resources other than config files are redacted without them, but for an assignment or a
# flag whose value is random-looking besides (a rule's ``by_shape`` check): `DB_PASSWORD=Xk9mPq2vLr8sTw4zQ`
# in a README, a secrets.txt or a script's `export` is a password wherever it stands.
CONTEXTUAL = frozenset({"assigned_secret", "prose_secret", "credential_pair", "cli_password", "user_password", "pin"})
