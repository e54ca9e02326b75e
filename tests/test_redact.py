"""Secrets never reach disk: every rule redacts its secret, ordinary text survives."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time

import pytest

from ov.redact.engine import redact, redact_value
from ov.redact.rules import RULES
from tests.secrets_corpus import AUDIT, AUDIT_ORDINARY, ORDINARY, SECRETS


def fake(n: int, alphabet: str = "aB3dE5gH7jK9mN1pQ2rS4tU6vW8xY0z") -> str:
    """A deterministic random-looking body; built at run time so no literal token sits in the repo."""
    return (alphabet * (n // len(alphabet) + 1))[:n]


OPENAI = "sk-" + fake(48)
OPENAI_PROJ = "sk-proj-" + fake(40) + "_" + fake(20) + "-" + fake(30)
ANTHROPIC = "sk-ant-api03-" + fake(93) + "AA"
GOOGLE = "AIza" + fake(35)
AWS_ID = "AKIA" + "IOSFODNN7EXAMPL3"
AWS_STS_ID = "ASIA" + "Y34FZKBOKMUTVV7A"
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCY" + "EXAMPLEKEY"
AWS_SECRET_B64 = fake(40, "Tq8vR2mZ/kP4xW9nL7bC3dF6hJ1sA5eG0yU2iO8+")
AWS_SECRET_TWO_DIGITS = fake(40, "qTvRmZ/kPxWnL8bCdFhJsAeG/yUiOwQzXcVb3NmLk")
GITHUB = "ghp_" + fake(36)
GITHUB_PAT = "github_pat_" + fake(22) + "_" + fake(59)
GITLAB = "glpat-" + fake(20)
SLACK = "xoxb-" + "1234567890-1234567890123-" + fake(24)
STRIPE = "sk_live_" + fake(24)
STRIPE_RESTRICTED = "rk_live_" + fake(24)
HF = "hf_" + fake(34)
NPM = "npm_" + fake(36)
JWT = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9" + ".eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ" + ".SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
VAULT = "hvs." + fake(90)
PYPI = "pypi-AgEIcHlwaS5vcmc" + fake(60)
OPAQUE = fake(32)

PRIVATE_KEY_BODY = "\n".join(fake(64) for _ in range(5)) + "\n" + fake(20) + "=="


def private_key(label: str) -> str:
    begin, end = f"-----BEGIN {label}PRIVATE KEY", f"-----END {label}PRIVATE KEY"
    tail = " BLOCK-----" if label.startswith("PGP") else "-----"
    return f"{begin}{tail}\n{PRIVATE_KEY_BODY}\n{end}{tail}"


# (id, text, secret that must vanish, text that must survive, expected count)
POSITIVE = [
    ("openai", f"export OPENAI_API_KEY={OPENAI}", OPENAI, "export OPENAI_API_KEY=[REDACTED:openai_key]", 1),
    ("openai-project", f"key is {OPENAI_PROJ} ok", OPENAI_PROJ, "key is [REDACTED:openai_key] ok", 1),
    ("anthropic", f'client = Anthropic(api_key="{ANTHROPIC}")', ANTHROPIC, '(api_key="[REDACTED:anthropic_key]")', 1),
    ("google", f"https://maps.googleapis.com/maps/api?key={GOOGLE}&q=x", GOOGLE, "?key=[REDACTED:google_api_key]&q=x", 1),
    ("aws-id", f"aws_access_key_id = {AWS_ID}", AWS_ID, "aws_access_key_id = [REDACTED:aws_access_key_id]", 1),
    ("aws-sts-id", f'"AccessKeyId": "{AWS_STS_ID}",', AWS_STS_ID, '"AccessKeyId": "[REDACTED:aws_access_key_id]",', 1),
    ("aws-secret", f"aws_secret_access_key = {AWS_SECRET}\n", AWS_SECRET, "aws_secret_access_key = [REDACTED:aws_secret_key]\n", 1),
    ("aws-secret-json", f'"SecretAccessKey": "{AWS_SECRET}"', AWS_SECRET, '"SecretAccessKey": "[REDACTED:aws_secret_key]"', 1),
    (
        "aws-secret-in-prose",
        f"My AWS key is {AWS_STS_ID} and secret {AWS_SECRET_B64}, please set up the S3 upload",
        AWS_SECRET_B64,
        "My AWS key is [REDACTED:aws_access_key_id] and secret [REDACTED:aws_secret_key], please set up the S3 upload",
        2,
    ),
    ("aws-secret-beside-its-id", f"{AWS_ID},{AWS_SECRET_B64}\n", AWS_SECRET_B64, "[REDACTED:aws_access_key_id],[REDACTED:aws_secret_key]\n", 2),
    ("aws-secret-before-its-id", f"use {AWS_SECRET_B64} with key id {AWS_ID}", AWS_SECRET_B64, "use [REDACTED:aws_secret_key] with key id", 2),
    ("aws-configure", f"AWS Secret Access Key [None]: {AWS_SECRET_B64}\n", AWS_SECRET_B64, "AWS Secret Access Key [None]: [REDACTED:aws_secret_key]\n", 1),
    ("aws-secret-said", f"the Secret access key is {AWS_SECRET_B64}.", AWS_SECRET_B64, "the Secret access key is [REDACTED:aws_secret_key].", 1),
    # Two digits are what a random key has at the least (one in a hundred has fewer); slashes too.
    ("aws-secret-two-digits", f"secret {AWS_SECRET_TWO_DIGITS}", AWS_SECRET_TWO_DIGITS, "secret [REDACTED:aws_secret_key]", 1),
    ("github", f"git clone https://{GITHUB}@github.com/o/r", GITHUB, "https://[REDACTED:github_token]@github.com/o/r", 1),
    ("github-pat", f"token {GITHUB_PAT} expired", GITHUB_PAT, "token [REDACTED:github_token] expired", 1),
    ("github-app", f"x-access-token:{'ghs_' + fake(36)}", "ghs_", "x-access-token:[REDACTED:github_token]", 1),
    ("gitlab", f"GITLAB_TOKEN={GITLAB}", GITLAB, "GITLAB_TOKEN=[REDACTED:gitlab_token]", 1),
    ("slack", f"bot token: {SLACK}", SLACK, "bot token: [REDACTED:slack_token]", 1),
    (
        "slack-webhook",
        "post to https://hooks.slack.com/services/T0ABCDEF1/B0ABCDEF2/" + fake(24) + " now",
        fake(24),
        "post to https://hooks.slack.com/services/[REDACTED:slack_webhook] now",
        1,
    ),
    ("stripe", f"stripe.api_key = '{STRIPE}'", STRIPE, "stripe.api_key = '[REDACTED:stripe_key]'", 1),
    ("stripe-restricted", f"use {STRIPE_RESTRICTED}.", STRIPE_RESTRICTED, "use [REDACTED:stripe_key].", 1),
    ("huggingface", f"huggingface-cli login --token {HF}", HF, "--token [REDACTED:huggingface_token]", 1),
    ("npm", f"//registry.npmjs.org/:_authToken={NPM}", NPM, ":_authToken=[REDACTED:npm_token]", 1),
    ("jwt", f"the cookie was session={JWT}; Path=/", JWT, "session=[REDACTED:jwt]; Path=/", 1),
    (
        "authorization-bearer",
        f"curl -H 'Authorization: Bearer {OPAQUE}' https://api.example.com",
        OPAQUE,
        "curl -H 'Authorization: Bearer [REDACTED:bearer_token]' https://api.example.com",
        1,
    ),
    ("bearer-jwt", f"Authorization: Bearer {JWT}", JWT, "Authorization: Bearer [REDACTED:jwt]", 1),
    ("bearer-anywhere", f'{{"headers": {{"auth": "Bearer {OPAQUE}"}}}}', OPAQUE, '"auth": "Bearer [REDACTED:bearer_token]"', 1),
    ("authorization-basic", "Authorization: Basic dXNlcjpodW50ZXIy", "dXNlcjpodW50ZXIy", "Authorization: Basic [REDACTED:authorization]", 1),
    ("authorization-raw", f"Authorization: {OPAQUE}", OPAQUE, "Authorization: [REDACTED:authorization]", 1),
    # A session's cookie, where cookies are sent; a line of ~/.pgpass.
    ("curl-cookie", "curl -b 'session=9f8e7d6c5b4a39281706f5e4d3c2b1a0' https://app.example.com/api", "9f8e7d6c5b4a392817", "-b 'session=[REDACTED:session_cookie]'", 1),
    ("cookie-header-second", "Cookie: theme=dark; _session_id=q8vr2mz4xw9kl3pt7s; lang=en", "q8vr2mz4xw9kl3pt7s", "_session_id=[REDACTED:session_cookie]; lang=en", 1),
    ("set-cookie", "Set-Cookie: JSESSIONID=A1B2C3D4E5F60718293A; Path=/; HttpOnly", "A1B2C3D4E5F60718293A", "JSESSIONID=[REDACTED:session_cookie]; Path=/", 1),
    ("pgpass-line", "db.example.com:5432:app:app_user:Xk9mPq2vLr8s\n*:*:*:postgres:S3cr3tpass\n", "Xk9mPq2vLr8s", "app_user:[REDACTED:pgpass_password]\n*:*:*:postgres:[REDACTED:pgpass_password]\n", 2),
    ("pgpass-echo", 'echo "localhost:5432:*:bob:Tr0ub4dor3x" >> ~/.pgpass', "Tr0ub4dor3x", 'bob:[REDACTED:pgpass_password]" >>', 1),
    # The password option of a tool's `login` (Azure's service principal, OpenShift, Helm), OpenLDAP's
    # `-w`, a password joined to its user (Oracle's `user/pw@db`, Samba's `-U user%pw`); the whole
    # of an Azure client secret, its first four characters included.
    ("az-login", "az login --service-principal -u 1111-22 -p Xk9mPq2vLr8sTw4zQa --tenant t", "Xk9mPq2vLr8sTw4zQa", "-p [REDACTED:cli_password] --tenant", 1),
    ("az-login-client-secret", "az login --service-principal -u 1111-22 -p abc8Q~deFGhijKLmnOPqrSTuvWXyz0123456789 --tenant t", "abc8", "-p [REDACTED:azure_client_secret] --tenant", 1),
    ("oc-login", "oc login https://api.c1:6443 -u dev -p Tr0ub4dor3xQ", "Tr0ub4dor3xQ", "-u dev -p [REDACTED:cli_password]", 1),
    ("helm-registry-login", "helm registry login ghcr.io -u me -p 'p@ss w0rd'", "p@ss w0rd", "-p '[REDACTED:cli_password]'", 1),
    ("any-tools-login-in-a-command", '{"command": "regctl registry login r.io -u ci -p Xk9mPq2vLr8s"}', "Xk9mPq2vLr8s", "-u ci -p [REDACTED:cli_password]", 1),
    ("any-tools-login-after-a-prompt", "$ crane auth login r.io -u ci -p Xk9mPq2vLr8s", "Xk9mPq2vLr8s", "-u ci -p [REDACTED:cli_password]", 1),
    # A kind beside a password, a password in mixed case, a letter and digits: values, not kinds.
    ("assigned-kind-and-password", "creds: pkcs12/Zq8vR2pLw", "pkcs12/Zq8vR2pLw", "creds: [REDACTED:assigned_secret]", 1),
    ("assigned-word-with-digits", "auth_pass: e20417", "e20417", "auth_pass: [REDACTED:assigned_secret]", 1),
    ("assigned-mixed-case-kind-word", "password: Kerberos5", "Kerberos5", "password: [REDACTED:assigned_secret]", 1),
    ("ldapsearch-w", "ldapsearch -x -D cn=admin,dc=ex,dc=org -w Xk9mPq2vLr8sTw4zQa -b dc=ex", "Xk9mPq2vLr8sTw4zQa", "-w [REDACTED:cli_password] -b dc=ex", 1),
    ("ldapmodify-w-attached", "ldapmodify -x -D cn=admin -wS3cr3tpass -f add.ldif", "S3cr3tpass", "-w[REDACTED:cli_password] -f add.ldif", 1),
    ("sqlplus", "sqlplus scott/Xk9mPq2vLr8sTw4zQa@orcl", "Xk9mPq2vLr8sTw4zQa", "sqlplus scott/[REDACTED:cli_password]@orcl", 1),
    ("sqlplus-options", "sqlplus -s -L system/Summer2026!@//db:1521/svc @run.sql", "Summer2026!", "system/[REDACTED:cli_password]@//db:1521/svc @run.sql", 1),
    ("rman-target", "rman target sys/oracle123 nocatalog", "oracle123", "target sys/[REDACTED:cli_password] nocatalog", 1),
    ("expdp-userid", "expdp userid=scott/tiger77 directory=d dumpfile=x.dmp", "tiger77", "userid=scott/[REDACTED:cli_password] directory", 1),
    ("smbclient-U", "smbclient //srv/share -U bob%Xk9mPq2vLr8sTw4zQa -c ls", "Xk9mPq2vLr8sTw4zQa", "-U bob%[REDACTED:cli_password] -c ls", 1),
    ("rpcclient-domain-user", "rpcclient -U 'CORP\\bob%p@ssw0rd99' 10.0.0.5", "p@ssw0rd99", "'CORP\\bob%[REDACTED:cli_password]'", 1),
    ("net-username", "net rpc password alice -S dc1 --user=admin%Zq8x7Lm2", "Zq8x7Lm2", "--user=admin%[REDACTED:cli_password]", 1),
    ("private-key-rsa", private_key("RSA "), PRIVATE_KEY_BODY, "[REDACTED:private_key]", 1),
    ("private-key-ec", private_key("EC "), PRIVATE_KEY_BODY, "[REDACTED:private_key]", 1),
    ("private-key-openssh", private_key("OPENSSH "), PRIVATE_KEY_BODY, "[REDACTED:private_key]", 1),
    ("private-key-dsa", private_key("DSA "), PRIVATE_KEY_BODY, "[REDACTED:private_key]", 1),
    ("private-key-pkcs8", private_key(""), PRIVATE_KEY_BODY, "[REDACTED:private_key]", 1),
    ("private-key-encrypted", private_key("ENCRYPTED "), PRIVATE_KEY_BODY, "[REDACTED:private_key]", 1),
    ("private-key-pgp", private_key("PGP "), PRIVATE_KEY_BODY, "[REDACTED:private_key]", 1),
    # The rest of a key written in parts, its first part redacted already as a truncated key.
    ("private-key-rest", "[REDACTED:private_key]Zm9vYmFy/+q\nQUJDREVGR0hJSktMTU5PUA==\n-----END OPENSSH PRIVATE KEY-----\n", "QUJDREVGR0hJSktMTU5PUA==", "[REDACTED:private_key][REDACTED:private_key]\n", 1),
    (
        "private-key-truncated",
        "$ head -3 id_rsa\n-----BEGIN RSA PRIVATE KEY-----\n" + fake(64) + "\n" + fake(64) + "\n$ ls",
        fake(64),
        "$ head -3 id_rsa\n[REDACTED:private_key]\n$ ls",
        1,
    ),
    ("url-password", "DATABASE_URL=postgres://app:s3cr3t-pw@db.internal:5432/app", "s3cr3t-pw", "postgres://app:[REDACTED:url_password]@db.internal:5432/app", 1),
    ("url-password-at-sign", "mongodb://admin:p@ss:w0rd@localhost/db", "p@ss:w0rd", "mongodb://admin:[REDACTED:url_password]@localhost/db", 1),
    ("url-password-hash", "DATABASE_URL=postgres://payments:Xk9!vR2#pLq7@db.staging.internal:5432/payments", "Xk9!vR2#pLq7", "postgres://payments:[REDACTED:url_password]@db.staging.internal:5432/payments", 1),
    ("url-password-at-and-hash", "REDIS_URL=redis://:p@ss#w0rd9@cache:6379/0", "p@ss#w0rd9", "redis://:[REDACTED:url_password]@cache:6379/0", 1),
    ("url-password-no-user", "redis://:hunter2@cache:6379/0", "hunter2", "redis://:[REDACTED:url_password]@cache:6379/0", 1),
    ("env-plain", "DB_PASSWORD=hunter2\nDEBUG=true", "hunter2", "DB_PASSWORD=[REDACTED:assigned_secret]\nDEBUG=true", 1),
    ("env-export-quoted", 'export DB_PASSWORD="correct horse battery"', "correct horse", 'export DB_PASSWORD="[REDACTED:assigned_secret]"', 1),
    ("env-docker-default", "POSTGRES_PASSWORD=postgres", "=postgres", "POSTGRES_PASSWORD=[REDACTED:assigned_secret]", 1),
    ("yaml-secret", "app:\n  SECRET: abcd1234efgh\n  port: 80", "abcd1234efgh", "  SECRET: [REDACTED:assigned_secret]\n  port: 80", 1),
    ("yaml-password", "  password: hunter2  # dev only", "hunter2", "  password: [REDACTED:assigned_secret]  # dev only", 1),
    ("python-token", "token = 'abc123def456'", "abc123def456", "token = '[REDACTED:assigned_secret]'", 1),
    ("json-client-secret", '{"client_id": "my-app", "client_secret": "Qx7-vb9.Zz"}', "Qx7-vb9.Zz", '"client_id": "my-app", "client_secret": "[REDACTED:assigned_secret]"', 1),
    ("json-escaped", '{\\"password\\": \\"hunter2\\"}', "hunter2", '{\\"password\\": \\"[REDACTED:assigned_secret]\\"}', 1),
    ("camel-case", "const apiKey = 'k_8f7e6d5c';", "k_8f7e6d5c", "const apiKey = '[REDACTED:assigned_secret]';", 1),
    ("upper-key", "STRIPE_KEY=abc123xyz789", "abc123xyz789", "STRIPE_KEY=[REDACTED:assigned_secret]", 1),
    ("header-api-key", "X-Api-Key: 9f8e7d6c5b4a", "9f8e7d6c5b4a", "X-Api-Key: [REDACTED:assigned_secret]", 1),
    ("query-token", "GET /cb?access_token=abc123def&state=xyz", "abc123def", "?access_token=[REDACTED:assigned_secret]&state=xyz", 1),
    ("flag-equals", "mysql --password=hunter2 -h db", "hunter2", "mysql --password=[REDACTED:assigned_secret] -h db", 1),
    ("flag-space", "psql --password Zq8-x7Lm now", "Zq8-x7Lm", "--password [REDACTED:assigned_secret] now", 1),
    ("vault", f"vault login {VAULT}", VAULT, "vault login [REDACTED:vault_token]", 1),
    ("vault-legacy", f"VAULT_TOKEN={'s.' + fake(24)}", "s." + fake(24), "VAULT_TOKEN=[REDACTED:assigned_secret]", 1),
    ("credentials", "GOOGLE_CREDENTIALS='{\"k\": 1}'", '{"k": 1}', "GOOGLE_CREDENTIALS='[REDACTED:assigned_secret]'", 1),
    ("passwd-pwd", "DB_PWD=x9y8 passwd=zz77", "x9y8", "DB_PWD=[REDACTED:assigned_secret] passwd=[REDACTED:assigned_secret]", 2),
    ("auth-token", "AUTH_TOKEN=tok_12345678", "tok_12345678", "AUTH_TOKEN=[REDACTED:assigned_secret]", 1),
    ("long-number-is-a-secret", "PIN_PASSWORD=12345678901", "12345678901", "PIN_PASSWORD=[REDACTED:assigned_secret]", 1),
    ("docker-compose", "    environment:\n      - POSTGRES_PASSWORD=s3cret!\n      - POSTGRES_USER=app", "s3cret!", "      - POSTGRES_PASSWORD=[REDACTED:assigned_secret]\n      - POSTGRES_USER=app", 1),
    ("k8s-secret", "kind: Secret\ndata:\n  password: cGFzc3dvcmQxMjM=\n", "cGFzc3dvcmQxMjM=", "  password: [REDACTED:assigned_secret]\n", 1),
    ("ini-spaced", "[pypi]\nusername = __token__\npassword = " + PYPI + "\n", PYPI, "password = [REDACTED:pypi_token]\n", 1),
    ("ini-generated", "[db]\npassword = Xk29fjA8qLm\n", "Xk29fjA8qLm", "password = [REDACTED:assigned_secret]\n", 1),
    ("connection-string", "Server=tcp:db;Database=app;User Id=sa;Password=Pa55w0rd!;Encrypt=true", "Pa55w0rd!", "User Id=sa;Password=[REDACTED:assigned_secret];Encrypt=true", 1),
    ("django", "SECRET_KEY = 'django-insecure-7x#k2!ab9@zq'", "django-insecure", "SECRET_KEY = '[REDACTED:assigned_secret]'", 1),
    ("aws-session", "export AWS_SESSION_TOKEN=IQoJb3JpZ2luX2VjE" + fake(60), "IQoJb3JpZ2luX2VjE", "export AWS_SESSION_TOKEN=[REDACTED:assigned_secret]", 1),
    ("curl-user", "curl -u admin:hunter2 https://example.com/api", "hunter2", "curl -u admin:[REDACTED:user_password] https://example.com/api", 1),
    ("netrc", "machine api.example.com\n  login me\n  password hunter2\n", "hunter2", "  password [REDACTED:netrc_password]\n", 1),
    ("netrc-one-line", "machine example.com login me password s3cr3t", "s3cr3t", "login me password [REDACTED:netrc_password]", 1),
    ("putty", "PuTTY-User-Key-File-3: ssh-ed25519\nPrivate-Lines: 1\n" + fake(44) + "\nPrivate-MAC: abc", fake(44), "Private-Lines: 1\n[REDACTED:private_key]\nPrivate-MAC: abc", 1),
    (
        "inside-a-rejected-value",
        '{"command": "TOKEN=abc123 ./run.sh", "env": "A=1,API_KEY=Zx8Pq2Lm9Rt4"}',
        "abc123",
        '{"command": "TOKEN=[REDACTED:assigned_secret] ./run.sh", "env": "A=1,API_KEY=[REDACTED:assigned_secret]"}',
        2,
    ),
    ("stripe-webhook", f"STRIPE_WEBHOOK={'whsec_' + fake(32)}", "whsec_", "STRIPE_WEBHOOK=[REDACTED:stripe_key]", 1),
    ("yaml-api-key", "api_key: Zx8Pq2Lm9Rt4", "Zx8Pq2Lm9Rt4", "api_key: [REDACTED:assigned_secret]", 1),
    # "password X" with no verb, when X is made up.
    # Capitalised parts joined by hyphens read like a header's name, but under a password's name
    # (or a secret's, with a digit) they are the password.
    ("env-password-of-words", "DB_PASSWORD=Plaza-Wobble-Turtle7", "Plaza-Wobble-Turtle7", "DB_PASSWORD=[REDACTED:assigned_secret]", 1),
    ("yaml-password-of-parts", "POSTGRES_PASSWORD: Hx7q-K2mz-Pw9r", "Hx7q-K2mz-Pw9r", "POSTGRES_PASSWORD: [REDACTED:assigned_secret]", 1),
    ("quoted-password-of-words", 'password = "S3cure-Adm1n"', "S3cure-Adm1n", 'password = "[REDACTED:assigned_secret]"', 1),
    ("json-secret-of-words", '{"client_secret": "Maple-Orbit-Lantern42"}', "Maple-Orbit-Lantern42", '"client_secret": "[REDACTED:assigned_secret]"', 1),
    ("prose-password-of-words", "my password is S3cure-Adm1n", "S3cure-Adm1n", "my password is [REDACTED:prose_secret]", 1),
    ("prose-passphrase-of-words", "the vault passphrase is Copper-Meadow-Falcon", "Copper-Meadow-Falcon", "passphrase is [REDACTED:prose_secret]", 1),
    ("prose-password-no-verb", "the staging login uses password Zx9pQ2rT7v", "Zx9pQ2rT7v", "uses password [REDACTED:prose_secret]", 1),
    ("prose-password-with", "ssh root with password Zx9pQ2rT7v.", "Zx9pQ2rT7v", "with password [REDACTED:prose_secret].", 1),
    ("prose-password-default", "the default password admin123 works", "admin123", "password [REDACTED:prose_secret] works", 1),
    # (found by an audit: "the staging admin login is admin / S3cure-Adm1n" was kept) A user and
    # its password said together after a login word, with no key naming the password.
    ("credential-pair-login-is", "the qa box login is tester / Qz7-Wp4k", "Qz7-Wp4k", "login is tester / [REDACTED:credential_pair]", 1),
    ("credential-pair-creds-colon", "the backup creds are backup_svc:Lm3$Rt8v", "Lm3$Rt8v", "creds are backup_svc:[REDACTED:credential_pair]", 1),
    ("credential-pair-user-pass", "ssh with user deploy pass Yt5rE2wq", "Yt5rE2wq", "user deploy pass [REDACTED:credential_pair]", 1),
    ("credential-pair-for-what", "the login for the grafana dashboard was viewer / N0rth#Star", "N0rth#Star", "was viewer / [REDACTED:credential_pair]", 1),
    ("credential-pair-both-named", "username/password: ops@acme.io / K1ng-Fisher9.", "K1ng-Fisher9", "ops@acme.io / [REDACTED:credential_pair].", 1),
    # A password that only opens with what credentials are kept as or in is a password all the same.
    ("credential-pair-kind-word-inside", "the staging login is admin / Pkcs12-Vault9", "Pkcs12-Vault9", "login is admin / [REDACTED:credential_pair]", 1),
    ("credential-pair-kind-word-and-more", "the creds for grafana are viewer:oauth2Tr0ub", "oauth2Tr0ub", "are viewer:[REDACTED:credential_pair]", 1),
    ("prose-passphrase-quoted", 'unlock it with passphrase "s3cret!x"', "s3cret!x", 'passphrase "[REDACTED:prose_secret]"', 1),
    # A PIN said outright in a session (memories refused it; the archive kept it).
    ("pin-is", "my PIN is 4921", "4921", "my PIN is [REDACTED:pin]", 1),
    ("pin-for-the-door", "the PIN for the door is 4921.", "4921", "the PIN for the door is [REDACTED:pin].", 1),
    ("pin-colon", "PIN: 4921", "4921", "PIN: [REDACTED:pin]", 1),
    # YAML in line-numbered tool output: an agent's file reader, cat -n, grep -n and grep -rn.
    ("yaml-read-tool", "     3→db:\n     4→  password: supersecret\n", "supersecret", "     4→  password: [REDACTED:assigned_secret]\n", 1),
    ("yaml-cat-n", "     4\t  password: supersecret\n", "supersecret", "     4\t  password: [REDACTED:assigned_secret]", 1),
    ("yaml-grep-n", "4:  password: supersecret\n", "supersecret", "4:  password: [REDACTED:assigned_secret]", 1),
    ("yaml-grep-n-top-level", "4:password: supersecret\n", "supersecret", "4:password: [REDACTED:assigned_secret]", 1),
    ("yaml-grep-context", "12-  db_password: supersecret\n", "supersecret", "12-  db_password: [REDACTED:assigned_secret]", 1),
    ("yaml-grep-rn", "config/db.yml:4:  password: supersecret\n", "supersecret", "config/db.yml:4:  password: [REDACTED:assigned_secret]", 1),
    ("yaml-grep-rn-top-level", "config/app.yaml:4:password: hunter22\n", "hunter22", "config/app.yaml:4:password: [REDACTED:assigned_secret]\n", 1),
    ("env-grep-rn-context", "config/app.env:5-password=hunter33\n", "hunter33", "config/app.env:5-password=[REDACTED:assigned_secret]\n", 1),
    ("yaml-grep-rn-context-colon", "src/x.yml:17-db_password: hunter44\n", "hunter44", "src/x.yml:17-db_password: [REDACTED:assigned_secret]\n", 1),
    # grep -rn's context lines have a `-` gutter: `path-N-` (the name must not swallow `db.yml-3-`).
    ("yaml-grep-rn-context", "config/db.yml-3-password: hunter2secret\n", "hunter2secret", "config/db.yml-3-password: [REDACTED:assigned_secret]\n", 1),
    ("yaml-grep-rn-context-nested", "x\nsrc/a-b.yml-12-  db_password: hunter55\n", "hunter55", "src/a-b.yml-12-  db_password: [REDACTED:assigned_secret]\n", 1),
    ("yaml-grep-rn-windows", "C:\\dir\\app.yaml:4:password: hunter66\n", "hunter66", "C:\\dir\\app.yaml:4:password: [REDACTED:assigned_secret]\n", 1),
    ("yaml-grep-rn-windows-context", "C:\\dir\\app.yaml-4-password: hunter77\n", "hunter77", "C:\\dir\\app.yaml-4-password: [REDACTED:assigned_secret]\n", 1),
    # Pre-signed URLs: the signature, credential and session token go, the rest stays readable.
    (
        "s3-presigned-signature",
        f"https://bucket.s3.amazonaws.com/r.pdf?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Date=20250101T000000Z&X-Amz-Expires=3600&X-Amz-SignedHeaders=host&X-Amz-Signature={fake(64)}",
        fake(64),
        "r.pdf?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Date=20250101T000000Z&X-Amz-Expires=3600&X-Amz-SignedHeaders=host&X-Amz-Signature=[REDACTED:signed_url]",
        1,
    ),
    (
        "s3-presigned-token-and-credential",
        f"?X-Amz-Credential={AWS_STS_ID}%2F20250101%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Security-Token={fake(80)}%2F%2F{fake(20)}&X-Amz-Date=x",
        fake(80),
        "?X-Amz-Credential=[REDACTED:aws_access_key_id]%2F20250101%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Security-Token=[REDACTED:signed_url]&X-Amz-Date=x",
        2,
    ),
    ("s3-credential-other-id", f"x-amz-credential={fake(20)}/20250101/us-east-1/s3/aws4_request", fake(20), "x-amz-credential=[REDACTED:signed_url]", 1),
    ("sts-token-header", f"curl -H 'X-Amz-Security-Token: {fake(120)}' https://s3.amazonaws.com", fake(120), "'X-Amz-Security-Token: [REDACTED:signed_url]'", 1),
    (
        "gcs-signed-url",
        f"https://storage.googleapis.com/b/o?X-Goog-Algorithm=GOOG4-RSA-SHA256&X-Goog-Expires=900&X-Goog-Signature={fake(256)} ok",
        fake(256),
        "X-Goog-Expires=900&X-Goog-Signature=[REDACTED:signed_url] ok",
        1,
    ),
    # A short (made-up) SAS signature is one when the SAS's version or expiry stands beside it.
    ("azure-sas-short", "https://a.blob.core.windows.net/c/b.txt?sv=2022-11-02&se=2025-01-01&sig=Zx9pQ2rT7v", "Zx9pQ2rT7v", "&se=2025-01-01&sig=[REDACTED:azure_sas_signature]", 1),
    ("azure-sas-sig-first", "https://a.blob.core.windows.net/c/b.txt?sig=Zx9pQ2rT7v&sv=2022-11-02.", "Zx9pQ2rT7v", "?sig=[REDACTED:azure_sas_signature]&sv=2022-11-02.", 1),
    (
        "azure-sas-json-escaped",
        '{"url": "https://a.blob.core.windows.net/c?sv=2022-11-02\\u0026sig=' + fake(44) + '%3D"}',
        fake(44),
        "\\u0026sig=[REDACTED:azure_sas_signature]\"",
        1,
    ),
    # ODBC and ADO connection strings spell the password PWD.
    (
        "odbc-pwd",
        "Driver={ODBC Driver 18};Server=db;Uid=sa;PWD=Zx9pQ2rT7v;",
        "Zx9pQ2rT7v",
        "Uid=sa;PWD=[REDACTED:assigned_secret];",
        1,
    ),
    ("ado-pwd-word", "Server=db;User Id=sa;Pwd=hunter;", "hunter", "Pwd=[REDACTED:assigned_secret];", 1),
    # Beside the identifiers and digests kept above: a generated value, in code or an env file, a
    # password's bcrypt hash (not a bare digest), a digest under a name that is no hash's.
    ("code-generated-value", "token = AbCdEf12345678XyZ", "AbCdEf12345678XyZ", "token = [REDACTED:assigned_secret]", 1),
    ("env-words-and-digits", "DB_PASSWORD=Winter2023Secure", "Winter2023Secure", "DB_PASSWORD=[REDACTED:assigned_secret]", 1),
    ("yaml-class-shaped", "api_token: Sam3LiteTextModel2", "Sam3LiteTextModel2", "api_token: [REDACTED:assigned_secret]", 1),
    (
        "bcrypt-under-hash-name",
        'password_hash = "$2b$12$KIXQJQ9tWqYwOeZr8m1nUeJx0e5xK2iVb1cGq9y3fH6aH1lQpZ0mG"',
        "KIXQJQ9tWqYwOeZr8m1nUeJx0e5xK2iVb1cGq9y3fH6aH1lQpZ0mG",
        'password_hash = "[REDACTED:assigned_secret]"',
        1,
    ),
    ("hex-password", 'password = "' + "9c" * 32 + '"', "9c" * 32, 'password = "[REDACTED:assigned_secret]"', 1),
    # (found by a review) A password made of words, one of them "password", is no name: people
    # name keys and resources in lower-case words or camelCase, not `Summer2024Password`.
    ("code-password-of-words", 'password = "Summer2024Password"', "Summer2024Password", 'password = "[REDACTED:assigned_secret]"', 1),
    ("env-password-of-words", "PASSWORD=Summer2024Password", "Summer2024Password", "PASSWORD=[REDACTED:assigned_secret]", 1),
    ("yaml-password-of-words", 'password: "Summer2024Password"', "Summer2024Password", 'password: "[REDACTED:assigned_secret]"', 1),
    ("json-password-of-words", '{"password": "Correct-Horse-9"}', "Correct-Horse-9", '"password": "[REDACTED:assigned_secret]"', 1),
    ("json-secret-words-written-after", '{"client_secret": "MySecretToken"}', "MySecretToken", '"client_secret": "[REDACTED:assigned_secret]"', 1),
    ("code-token-words-written-after", "auth_token = 'TokenOfMarch7'", "TokenOfMarch7", "auth_token = '[REDACTED:assigned_secret]'", 1),
    ("yaml-password-written-after", "db:\n  password: Spring-Password-2025", "Spring-Password-2025", "  password: [REDACTED:assigned_secret]", 1),
    # (found by a review) Under a password's name a capitalised word is the password, not a type
    # (outside a block of code) nor a kind of credential, which a token or a secret may name.
    ("yaml-password-capitalised-words", "db:\n  password: PasswordReset\n", "PasswordReset", "  password: [REDACTED:assigned_secret]\n", 1),
    ("yaml-top-level-password-word", "password: Bluebird", "Bluebird", "password: [REDACTED:assigned_secret]", 1),
    ("env-password-of-credential-words", "password=AccessToken", "AccessToken", "password=[REDACTED:assigned_secret]", 1),
    ("json-password-of-credential-words", '{"password": "AccessToken"}', "AccessToken", '"password": "[REDACTED:assigned_secret]"', 1),
    ("yaml-db-pass-of-credential-words", "DB_PASS: RefreshToken", "RefreshToken", "DB_PASS: [REDACTED:assigned_secret]", 1),
    (
        "several",
        f"OPENAI_API_KEY={OPENAI}\nANTHROPIC_API_KEY={ANTHROPIC}\nDB_PASSWORD=hunter2\n",
        "hunter2",
        "OPENAI_API_KEY=[REDACTED:openai_key]\nANTHROPIC_API_KEY=[REDACTED:anthropic_key]\nDB_PASSWORD=[REDACTED:assigned_secret]\n",
        3,
    ),
]


@pytest.mark.parametrize(("text", "secret", "kept", "count"), [c[1:] for c in POSITIVE], ids=[c[0] for c in POSITIVE])
def test_secret_is_redacted(text: str, secret: str, kept: str, count: int):
    out, n = redact(text)
    assert secret not in out
    assert kept in out
    assert n == count


@pytest.mark.parametrize("text", [c[1] for c in POSITIVE], ids=[c[0] for c in POSITIVE])
def test_redaction_is_idempotent(text: str):
    once, _ = redact(text)
    twice, n = redact(once)
    assert (twice, n) == (once, 0)


@pytest.mark.parametrize("separator", ["\n", " ", "", '", "'])
def test_mixed_document_is_idempotent(separator: str):
    # Cases run into each other here, so one rule's match can straddle another's text.
    text = separator.join(c[1] for c in POSITIVE + NEGATIVE)
    once, _ = redact(text)
    assert redact(once) == (once, 0)
    if separator == "\n":
        others = {c[0]: text.replace(c[1], "") for c in POSITIVE}
        assert not [c[0] for c in POSITIVE if c[2] in once and c[2] not in others[c[0]]]


def test_every_rule_has_a_positive_case():
    texts = [case[1] for case in POSITIVE] + [value for _, value, _ in SECRETS if isinstance(value, str)]
    markers = {name for text in texts for name in re.findall(r"\[REDACTED:(\w+)\]", redact(text)[0])}
    assert {rule.name for rule in RULES} <= markers
    for rule in RULES:
        assert any(rule.pattern.search(text) for text in texts), f"no case for a {rule.name} pattern"


NEGATIVE = [
    # Ports, paths and format strings beside the options above.
    ("login-port", "ssh login@bastion -p 2222\nthe login page -p is for the port\n"),
    ("ldap-prompt", "ldapsearch -x -W -D cn=admin -b dc=ex\nldapadd -x -y ~/.ldappw -f a.ldif"),
    ("sqlplus-no-login", "sqlplus /nolog @run.sql > logs/out.txt\nsqlplus / as sysdba\nsqlplus -s @scripts/a/b.sql > out/x.log"),
    ("cookies-not-a-session", "Cookie: theme=dark; lang=en\nCookie: sessionid=<your-session-id>\ngit checkout -b session-9f8e7d6c5b4a"),
    ("colon-runs", "10:20:30:40:50\nmain.c:12:3: warning: unused\nlocalhost:5432:*:me:password\n"),
    ("dash-U-without-percent", "psql -U postgres -c 'select 100%2'\nsort -u a/b%c"),
    ("prose-password", "Please reset your password from the settings page."),
    ("header-name-values", 'api_key: X-Api-Key\n"token_header": "X-Auth-Token"\n{"auth": "X-Access-Token"}'),
    ("prose-password-colon", "Password: must be at least 8 characters long."),
    ("prose-token", "The token budget is 2000, so the tokenizer trims long files."),
    ("prose-tokens", "It used 1,234 tokens; the token count is shown below."),
    ("prose-bearer", "The bearer of this letter is a friend. Bearer authentication sends a token."),
    ("prose-auth", "Authorization: required for every endpoint listed below."),
    ("prose-key", "The key insight: keys are sorted. Press any key."),
    ("prose-secret", "The secret to fast hooks is doing less work."),
    ("numbers", "PASSWORD_MIN_LENGTH=8\nmax_tokens = 2000\ntoken_budget: 4000\nexpires_in: 3600"),
    ("bools", "AUTH_ENABLED=true\nrequire_password: false\ntoken = None\nsecret: null"),
    ("placeholders", "API_KEY=<your-api-key>\nTOKEN=${GITHUB_TOKEN}\nPASSWORD=changeme\nSECRET_KEY=your_secret_key_here\nOPENAI_API_KEY=sk-...\nAWS_SECRET=xxxxxxxx\npassword = '****'"),
    ("template", "token: ${{ secrets.GITHUB_TOKEN }}\npassword: {{ db_password }}\nAPI_KEY=$API_KEY\nset KEY=%API_KEY%"),
    ("metadata-names", "TOKEN_URL=https://auth.example.com/token\nDB_PASSWORD_FILE=/run/secrets/db\nSECRET_NAME=prod-db\nAUTH_TYPE=oauth\ntoken_type: bearer"),
    ("env-dump", "PWD=/work/main\nOLDPWD=/home/user\nSSH_AUTH_SOCK=/tmp/ssh-XXXXabc/agent.123\nXAUTHORITY=/home/user/.Xauthority\nAUTHOR=Jane Doe"),
    ("python", "api_key = os.environ[\"OPENAI_API_KEY\"]\ntoken = get_token()\npassword = getpass.getpass()\nself.token = token\nclient = OpenAI(api_key=api_key)"),
    ("python-typed", "def login(user: str, password: str) -> None:\n    token: str\n    api_key: Optional[str] = None\n    if token is None:\n        return"),
    ("python-more", "headers = {\"Authorization\": f\"Bearer {token}\"}\nsort_key = lambda x: x[0]\nfor key, value in items.items():\n    cache_key = key\nd = {\"token\": token}"),
    ("javascript", "const token = await getToken();\nconst secret = new Secret();\nconst password = req.body.password;\nreturn { token, password: hashedPassword };"),
    ("comparisons", "if token == expected:\n    ok = password != ''\nassert secret_len >= 8\nauth := login()"),
    ("urls", "See https://example.com/docs/auth?page=2 and https://user@example.com/path and http://localhost:8080/token and git@github.com:org/repo.git and http://[::1]:80/"),
    ("shas", "commit 3f2c1e9a7b4d5c6e8f9a0b1c2d3e4f5a6b7c8d9e and abbreviation 3f2c1e9"),
    # 40 characters, like an AWS secret key: hex (a commit), or base64 that no key id or "secret" stands beside.
    ("secret-and-shas", "The secret fix is commit 3f2c1e9a7b4d5c6e8f9a0b1c2d3e4f5a6b7c8d9e and its upper-case 3F2C1E9A7B4D5C6E8F9A0B1C2D3E4F5A6B7C8D9E near a secret"),
    ("secret-far-from-base64", "Keep it a secret between us: the build id of the nightly run is " + fake(40) + "."),
    ("base64-40-alone", "etag " + fake(40) + " and a longer run secret " + fake(44) + " and secret thisIsJustAVeryLongCamelCaseIdentifierName"),
    # 40 characters after "secret" that are a source path or a name, not random base64 (found by a
    # review: the path was stored as "[REDACTED:aws_secret_key].php" and `ov remember` refused it).
    ("secret-then-source-path", "The webhook secret is checked in app/Http/Middleware/VerifyApiSecretToken.php, can you add a test?"),
    ("secret-then-path-of-words", "the secret handler is packages/ui/src/components/Button2Group3 now, and src/Http/Middleware/OAuth2Ver1fyWebhooks"),
    ("secret-then-file-name", "the secret check lives in HmacSha256SignatureVerifierForWebhooks12.ts"),
    ("secret-then-name-one-digit", "the secret rotation runs in RotateProductionKeysBeforeTheAuditSteps1 daily"),
    ("uuids", "request_id 123e4567-e89b-12d3-a456-426614174000 and session 9f1c2b7e-0d4a-4c3b-8e2f-1a2b3c4d5e6f"),
    ("base64-image", "![img](data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==)"),
    ("base64-json", "data:application/json;base64,eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9eyJzdWIiOiIxMjM0NTY3ODkwIn0="),
    ("sk-inside-words", "task-sk-ip risk-assessment-for-the-quarterly-report sk-learn-compatible-estimator-api-docs desk-top"),
    ("identifiers", "hf_hub_download hf_AutoModelForCausalLMWithValueHead npm_config_registry ghp_placeholder_value"),
    ("markdown", "## Authentication\n\n| Key | Value |\n|---|---|\n| token | 2000 |\n\n- **Password**: see the vault\n- `secret` is a keyword"),
    ("public-material", "-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE\n-----END PUBLIC KEY-----\n-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\nssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIG9y user@host"),
    ("flags", "gh auth login --with-token < token.txt\ndocker login --password-stdin\ngenerate --max-tokens 2000\nssh --identity-file ~/.ssh/id_rsa\ncli --auth github"),
    ("yaml-structures", "auth:\n  provider: github\ncredentials: {}\ntokens:\n  - a\nkey: value"),
    ("code-more", "cred = GenericOAuth2Credential(\n    token=str(payload['token']),\n    api_key=key,\n)\nself._owner_token = uuid.uuid4().hex\nif api_key == ANY($1::text[]):"),
    ("enums", 'AUTH = "auth"\nOAUTH2 = "oauth2"\nAPI_KEY_HEADER = "x-api-key"\nTOKEN_ENV = "GITHUB_TOKEN"\napi_key = "api_key"\nSECRET_ARN = "arn:aws:secretsmanager:us-east-1:123:secret:x"'),
    ("type-hints", 'def f(user_api_key_dict: "UserAPIKeyAuth | None" = None, credentials: "Credentials" = None): ...\nsigning_key: "jwt.PyJWK"\ncredentials: MCPCredentials'),
    ("tokenizer-tokens", 'tokenizer.eos_token = "</s>"\npad_token: "<pad>"\n"bos_token": "<s>",\nmax_token = 512'),
    ("ci", "permissions:\n  id-token: write\n  contents: read\nenv:\n  GITHUB_TOKEN: ${{ secrets.GITHUB_TOKEN }}"),
    ("references", 'api_key: os.environ/OPENAI_API_KEY\n"Authorization": "Bearer ${TOKEN}"\nTOKEN=$(gh auth token)\nkey: &default_key\n//registry.npmjs.org/:_authToken=${NPM_TOKEN}'),
    ("urls-without-password", "auth: https://docs.example.com/auth#oauth-flow\nTOKEN_ENDPOINT=https://login.example.com/oauth2/token"),
    ("prose-netrc-like", "Password reset\npassword required\nmachine learning is fun"),
    ("not-credentials", 'CONFIG_KEY = "pydantic-mypy"\nsort_key = "name"\non_pass: next\ntokens = text.split()\nauthor = "Jane Doe"\nauthenticated = user.ok'),
    ("prose-password-kinds", "We have a password policy. The password reset flow uses password auth; see the password field."),
    ("prose-password-algorithms", "Store the password sha256 hash? No: password bcrypt12 is gone, password argon2id and password v2 API."),
    ("prose-password-manager", "Use the password manager 1Password; a password 12 characters long."),
    ("password-commands", "sudo passwd alice2\npwd /tmp2\nthe secret s3 bucket\nthe token gpt-4o counts"),
    ("sql-password-column", "CREATE TABLE users (id INT, password VARCHAR(255) NOT NULL, password_hash CHAR(60));"),
    ("shell-pwd-paths", "PWD=/\nPWD=~\nOLDPWD=.\nPWD=C:\\Users\\dev\npwd = os.getcwd()\nPWD=$(pwd)"),
    ("grep-rn-code", "src/auth.py:10:    if not password: raise\nsrc/auth.py:11:def login(password: str) -> None:\n"),
    ("grep-rn-context-code", "src/auth.py-10-    if not password: raise\nsrc/auth.py-11-def login(password: str) -> None:\n"),
    ("dashed-words-prose", "the well-2-known password: reset it from settings\nre-1-password: see the wiki page"),
    ("signed-url-placeholders", "X-Amz-Signature=<signature>&X-Amz-Credential=${CREDENTIAL}\nX-Goog-Signature=...\n?sv=2022-11-02&sig={sig}"),
    ("sig-not-sas", "sig = inspect.signature(f); f(sig=signature)\nhttps://example.com/feed?page=2&sig=abc123def"),
    ("numbered-not-secrets", "     4→  password: str\n5:  token: string\nstep 4: password: reset it from the settings\n  7\t  secret: null\n"),
    ("pin-numbers", "PIN 3 on the GPIO header is ground; pin 4921 is reserved, the pin for the LED is 13."),
    # Slashes and colons after a login word that hold no password: words, numbers, times, paths, files.
    (
        "credential-pair-prose",
        (
            "the login page supports read / write roles; the creds are either/or; user stories pass review\n"
            "the login ratio is 3/4, and the login was 08:45:10Z\nthe default creds are guest/guest\n"
            "the login is at /etc/login.defs and the sign-in is client / server\nthe login script is login: scripts/login.sh"
        ),
    ),
    # (found by an audit: "credentials are x509/pkcs12" lost its "pkcs12") What credentials are
    # kept as, checked by or kept in, where a user and a password would stand: formats with their
    # numbers, auth protocols with their versions, secrets stores.
    (
        "credential-pair-kinds",
        (
            "the client credentials are x509/pkcs12; the creds are PEM / PKCS#12 or pkcs8\nthe login is ldap/kerberos5, the sign-in is oauth2:saml2\n"
            "credentials are keychain/1password, and in vault/kv-v2 on prod; the login is sso/oidc over mtls1.3\ncreds are env/ssm-v2 or gcp-kms/x509v3"
        ),
    ),
    # (found by an audit: `creds: x509/pkcs12` lost its value) What a setting says credentials are,
    # checked by or kept in, under a secret's name: a kind or a few, in one case, not a credential.
    (
        "assigned-credential-kinds",
        "client_auth: mtls\nsecret_store = vault\napi_credentials: pem+der\ntoken_format: JWT\n"
        "sso_auth: oidc | saml2\npassword_storage: keychain\nssh_key: ed25519, rsa4096\ncreds: X.509/PKCS#12",
    ),
    ("pathological-equals", "token" + "=" * 5000),
    # (found by a review: chats redacted these as secrets) A class or constant named in code, digits
    # and all, is an identifier; a hash-named variable's hex digest is what a check compares with.
    ("code-class-with-digits", "token_cls = Sam3LiteTextModel2\nsecret = Model3Config\nauth_model = GPT4Turbo2024Preview"),
    ("code-classes-written-after", "session_token_cls = Llama3ForCausalLM\napi_key_class = Mistral7BInstruct\ntoken_mixer = Resnet50Backbone2d"),
    ("hash-named-digests", 'password_hash = "2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881"\ntoken_sha256 = "' + "ab" * 32 + '"'),
    # Names of secrets, not secrets: a Kubernetes secret's name, a field in camelCase.
    ("secret-names-written-after", 'existingSecret: postgres-auth-token\nsecret: redis-password-2\n"auth": "accessToken"'),
    ("credential-kinds-named", '{"auth": "AccessToken", "secret": "ClientSecret", "token": "RefreshToken"}'),
    # A password's type in a block of code (a class, an interface, an agent's file reader's view of one).
    ("password-typed-in-code-blocks", "class User(BaseModel):\n    password: PasswordHash\ninterface Login {\n  password: HashedPassword\n}\n     3→class Form:\n     4→    passphrase: SecretPhrase"),
    ("password-names-kept", "passwordKey: adminPassword\non_pass: AccessToken\nsecret: ClientSecret\ntoken: Histogram"),
    ("digests-written-after", "api_key_digest: 3f2c1e9a7b4d5c6e8f9a0b1c2d3e4f5a6b7c8d9e\nsecret_checksum = 'D41D8CD98F00B204E9800998ECF8427E'"),
    ("empty", ""),
]


@pytest.mark.parametrize("text", [c[1] for c in NEGATIVE], ids=[c[0] for c in NEGATIVE])
def test_ordinary_text_survives(text: str):
    assert redact(text) == (text, 0)


# Documents and code (an ingested resource that is not a settings file): an assignment or a flag
# is a secret when its name says so and its value is shaped like a generated secret.
BY_SHAPE_SECRETS = [
    ("env-line", "DB_PASSWORD=Xk9mPq2vLr8sTw4zQ\nAPI_SECRET=9f8e7d6c5b4a39281706f5e4d3c2b1a0\n", 2),
    ("shell-export", "#!/bin/sh\nexport DB_PASSWORD=Xk9mPq2vLr8sTw4zQ\n./run.sh\n", 1),
    ("readme-code-span", "Use `export DB_PASSWORD=Xk9mPq2vLr8sTw4zQ` then run.", 1),
    ("django-settings", 'SECRET_KEY = "django-insecure-8f7s6d5f4g3h2j1k0l9z"', 1),
    # What `django-admin startproject` writes: 50 characters of a-z0-9!@#$%^&*(-_=+), parentheses mostly among them.
    ("django-generated-key", "SECRET_KEY = 'django-insecure-q3w(9x!2m%k8z@p7&r^t5v*b1n=c)h6j_4l-e+f0g#y'", 1),
    ("django-production-key", 'SECRET_KEY = "k)2v8#n(z^m4@q7r!t+w=x_1s&c%b9e*h0j-l3p5d(y6u)"', 1),
    ("python-literal", "client_secret = 'q8Zr2LmT5vXw9KpB3nYc'", 1),
    ("yaml-in-markdown", "```yaml\ndb:\n  password: Tq8vR2mZ4xW9kL3p\n```", 1),
    ("cli-flag", "mytool deploy --api-token Zr2q8LmT5vXw9KpB3n", 1),
    ("weak-name-random-value", "STRIPE_KEY=rk9Xm2Pq8vLr4sTw7zQa", 1),
    ("random-base64", 'API_TOKEN = "q1Zx8LmT5vXw9KpB3nYcR2sD4fG6hJ8k0lP7A9=="', 1),
    ("base64-of-a-login", 'AUTH_HEADER_TOKEN = "YWRtaW46WGs5bVBxMnZMcjhz"', 1),
]


@pytest.mark.parametrize(("text", "count"), [c[1:] for c in BY_SHAPE_SECRETS], ids=[c[0] for c in BY_SHAPE_SECRETS])
def test_a_random_looking_assignment_is_a_secret_in_documents_and_code(text: str, count: int):
    out, found = redact(text, by_shape_only=True)
    assert found == count and out.count("[REDACTED:assigned_secret]") == count, out
    assert redact(out, by_shape_only=True) == (out, 0)


# Lines that the full rules take for secrets (said in a chat, `password = "hunter2"` is one) but
# that documents and code hold as examples, test data, class names and patterns.
BY_SHAPE_KEPT = [
    ("example-password", 'password = "hunter2"'),
    ("test-token", 'token = "abc123def456"'),
    ("uuid-token", 'session_token = "123e4567-e89b-12d3-a456-426614174000"'),
    ("test-login", 'client.post("/login", data={"username": "alice", "password": "Passw0rd!"})'),
    ("class-with-digit", "self.token_mixer = Sam3LiteTextRepMixer(config)\nself.token_norm = EsmFold2LayerNorm(config.hidden_size)"),
    ("class-name-value", "token_cls = Sam3LiteTextModel2"),
    ("key-id-pattern", 'ACCESS_KEY_ID_PATTERN = "AKIA[0-9A-Z]{16}"'),
    ("image-token", 'image_token="<|image|>"'),
    ("env-example", "DB_PASSWORD=hunter2\nAPI_KEY=test-key-123\nSECRET=s3cret!"),
    ("flag-word", "mytool --password-file ~/.config/pw --token gh-token-name"),
    # found by a review: an identifier and encoded words are no generated secret, whatever their case
    ("uuid-key", 'SESSION_KEY = "3f2504e0-4f89-11d3-9a0c-0305e82c3301"'),
    ("uuid4-token-upper", 'SESSION_TOKEN = "7C9E6679-7425-40DE-944B-E07FC1F90AE7"'),
    ("base64-of-words", 'TEST_TOKEN = "dGVzdC10b2tlbi1mb3ItdW5pdC10ZXN0cw=="  # base64 of test-token-for-unit-tests'),
    # A call inside quotes is code quoted, or words: parentheses alone make no secret.
    ("quoted-calls", 'api_key = "os.getenv(API_KEY_V2)"\ntoken = "Tensor(float32)"\nSECRET_KEY = "get_random_secret_key()"'),
]


@pytest.mark.parametrize("text", [c[1] for c in BY_SHAPE_KEPT + NEGATIVE], ids=[c[0] for c in BY_SHAPE_KEPT + NEGATIVE])
def test_examples_and_code_survive_in_documents_and_code(text: str):
    assert redact(text, by_shape_only=True) == (text, 0)


def test_private_key_block_inside_other_text():
    block = private_key("OPENSSH ")
    text = f"I found this in ~/.ssh:\n\n```\n{block}\n```\n\nShould I rotate it?"
    out, n = redact(text)
    assert n == 1
    assert out == "I found this in ~/.ssh:\n\n```\n[REDACTED:private_key]\n```\n\nShould I rotate it?"


def test_two_private_keys_are_redacted_separately():
    text = f"{private_key('RSA ')}\nbetween\n{private_key('EC ')}"
    out, n = redact(text)
    assert (out, n) == ("[REDACTED:private_key]\nbetween\n[REDACTED:private_key]", 2)


def test_url_rule_keeps_scheme_user_and_host():
    out, n = redact("postgresql+psycopg2://svc_user:Pa55word!@db.example.com:5432/main?sslmode=require")
    assert (out, n) == ("postgresql+psycopg2://svc_user:[REDACTED:url_password]@db.example.com:5432/main?sslmode=require", 1)


def test_an_error_loses_the_whole_user_info_of_a_url():
    from ov.redact.engine import redact_known

    text = "cannot reach http://bob:p@ss9word@10.0.0.1:8080/v1 (see https://h.example/x?next=a@b)"
    # An unescaped `@` in the password belongs to it: the host's last `@` ends the user info.
    assert redact_known(text) == "cannot reach http://[REDACTED:url_userinfo]@10.0.0.1:8080/v1 (see https://h.example/x?next=a@b)"


def test_redact_value_walks_json():
    value = {
        "tool": "Bash",
        "input": {"command": f"curl -H 'Authorization: Bearer {OPAQUE}' https://x", "timeout": 30},
        "env": {"DB_PASSWORD": "hunter2", "PASSWORD_MIN_LENGTH": "8", "HOME": "/home/u", "api_key": None},
        "outputs": [f"found {GITHUB}", ["nested", {"client_secret": "Qx7vb9"}], 3, True],
        "pair": ("password=hunter2", "plain"),
    }
    out, n = redact_value(value)
    assert n == 5
    assert out["tool"] == "Bash"
    assert out["input"] == {"command": "curl -H 'Authorization: Bearer [REDACTED:bearer_token]' https://x", "timeout": 30}
    assert out["env"] == {"DB_PASSWORD": "[REDACTED:assigned_secret]", "PASSWORD_MIN_LENGTH": "8", "HOME": "/home/u", "api_key": None}
    assert out["outputs"] == ["found [REDACTED:github_token]", ["nested", {"client_secret": "[REDACTED:assigned_secret]"}], 3, True]
    assert out["pair"] == ("password=[REDACTED:assigned_secret]", "plain")
    assert OPAQUE not in json.dumps(out) and "hunter2" not in json.dumps(out)
    assert value["env"]["DB_PASSWORD"] == "hunter2", "the input is not modified"
    assert redact_value(out) == (out, 0)


def test_a_password_of_words_under_a_secret_key_is_redacted_in_data():
    """A tool's input holds `{"password": "Summer2024Password"}`: the word "Password" in it makes no name."""
    value = {"password": "Summer2024Password", "db_secret": "OurSecretIs9", "secret_ref": "db-credentials"}
    out, n = redact_value(value)
    assert n == 2
    assert out == {"password": "[REDACTED:assigned_secret]", "db_secret": "[REDACTED:assigned_secret]", "secret_ref": "db-credentials"}


def test_redact_value_leaves_non_strings_alone():
    assert redact_value(None) == (None, 0)
    assert redact_value(42) == (42, 0)
    assert redact_value([]) == ([], 0)
    assert redact_value({"token": 7}) == ({"token": 7}, 0)


# CPU seconds past which a redaction counts as hung, not slow: how fast it is is bench/redact.py's
# to measure, not a test's to assert on a machine other work shares.
HANG_CPU = 30.0


def _ordinary_text(size: int) -> str:
    chunk = (
        "The agent read src/app.py and found that the token budget is 2000; the tokenizer counts words.\n"
        "def load(path: str, key: str = 'name') -> dict:\n    return json.loads(Path(path).read_text())['items']\n"
        "See https://example.com/docs?page=2 and commit 3f2c1e9a7b4d5c6e8f9a0b1c2d3e4f5a6b7c8d9e.\n"
        "| key | value |\n|-----|-------|\n| auth | oauth |\nPlease reset your password: it expired.\n"
        "request 123e4567-e89b-12d3-a456-426614174000 took 35 ms; Bearer tokens are sent on each call.\n"
    )
    return (chunk * (size // len(chunk) + 1))[:size]


def test_one_megabyte_of_ordinary_text_is_left_as_it_is():
    # How fast: bench/redact.py ("ordinary text", 1 MB; docs/benchmarks.md). Here only a hang,
    # minutes of a quadratic rule, fails it (HANG_CPU).
    text = _ordinary_text(1_000_000)
    start = time.process_time()
    out, n = redact(text)
    assert (n, out == text) == (0, True)
    assert time.process_time() - start < HANG_CPU, "the redaction of 1 MB did not end in reasonable time"


@pytest.mark.parametrize(
    "text",
    [
        "a" * 100_000,
        "=" * 100_000,
        "token=" + "a" * 100_000,
        "password: " + "," * 100_000,
        "-----BEGIN RSA PRIVATE KEY-----\n" + "A" * 100_000,
        "postgres://" + "u" * 100_000 + ":" + "p" * 100_000,
        "Bearer " + "." * 100_000,
        "key_" * 25_000,
        "sk-" * 30_000,
        "x@" * 50_000 + "://a:b",
        "key=" * 25_000,
        '"key": "' * 20_000,
        'sort_key="x' * 20_000,
        "--token " * 20_000,
        "1:a:" * 25_000,
        "\n1:password:" * 10_000,
        "x:1:" * 25_000 + " secret: x",
        "x-1-" * 25_000 + "secret: x",
        "\nsrc/a-b-c.yml" + "-x" * 200 + "-1-password:" * 1_000,
        "&sig=abcd" * 10_000 + "&sv=1",
        ("secret " + fake(40) + " ") * 5_000,
        (fake(40) + " ") * 5_000 + "secret",
        # Shaped like a path whose last segment fails to read as words after a run of capitals.
        ("secret 1a/" + "B" * 34 + "2Xk ") * 100,
        # The command lines of cli_password: each start must not read the rest of the line again.
        '"a b login ' * 20_000 + "-p",
        "az login " * 20_000 + "-p",
        "-U a%" * 25_000,
        "sqlplus a/" * 10_000,
        "ldapsearch -x " * 10_000 + "-w",
        "[REDACTED:private_key]" + "\nAAAA" * 25_000,
        "Cookie: a=b;" * 20_000,
        "curl -b a=" * 20_000,
        "\na.b:1:" * 20_000,
        "login is a / " * 20_000,
        "user a pass " * 20_000,
        "username/password: " * 20_000,
    ],
    ids=[
        "a-run", "equals-run", "long-value", "comma-run", "unterminated-key", "long-url", "dots-after-bearer",
        "key-names", "sk-run", "at-run", "assignment-chain", "json-key-chain", "quoted-chain", "flag-chain",
        "line-number-colons", "numbered-key-lines", "grep-gutter-colons", "grep-gutter-dashes",
        "grep-context-lines", "sas-signature-run", "aws-secrets-in-a-row", "aws-secret-shapes-in-a-row",
        "aws-secret-path-shapes", "any-login-words", "az-logins", "samba-users", "oracle-logins", "ldap-options",
        "private-key-rest-without-end", "cookie-pairs", "curl-cookie-runs", "pgpass-shapes",
        "login-pairs", "user-pass-pairs", "both-named-pairs",
    ],
)
def test_pathological_inputs_do_not_backtrack(text: str):
    # Against ordinary text of the same length, redacted in the same run, so that a loaded machine
    # slows both: a linear scan of these costs at most 20 times as much (the worst, grep context
    # lines, 97 ms against 5), a rule that backtracks 100 times and more (a grep gutter's prefix
    # without its anchor: 4.2 s against 0.04), which a fixed hang bound let through.
    start = time.process_time()
    redact(_ordinary_text(len(text)))
    ordinary = time.process_time() - start
    start = time.process_time()
    redact(text)
    spent = time.process_time() - start
    assert spent < 30 * ordinary + 0.25, f"the redaction backtracked: {spent:.2f} s of CPU against {ordinary:.2f} s for ordinary text"


class _CountedText(str):
    """A text that counts how many characters the searches and slices of the checks read of it."""

    read = 0

    def _note(self, start, end) -> None:
        lo, hi, _ = slice(start, end).indices(len(self))
        _CountedText.read += max(0, hi - lo)

    def find(self, sub, start=None, end=None):
        self._note(start, end)
        return str.find(self, sub, start, end)

    def rfind(self, sub, start=None, end=None):
        self._note(start, end)
        return str.rfind(self, sub, start, end)

    def __getitem__(self, key):
        if isinstance(key, slice):
            self._note(key.start, key.stop)
        return str.__getitem__(self, key)


@pytest.mark.parametrize(
    "unit",
    ["password abc1 machine ", 'password: abc1" ', "password ", "a secret kept by the build id " + fake(40) + " "],
    ids=["netrc-line", "key-line", "words", "aws-secret-shapes"],
)
def test_the_checks_read_a_long_line_once_not_once_per_match(unit: str):
    """100,000 `password` words on one line took seconds: the checks of a key or netrc line looked
    for the line's start by reading back to it from every match. The work is counted, not timed:
    twice the text may cost twice the reading, not four times."""
    read = []
    for count in (2_000, 4_000):
        _CountedText.read = 0
        redact(_CountedText(unit * count))
        read.append(_CountedText.read)
    assert read[1] < 2.5 * read[0], read


# --- the corpus (tests/secrets_corpus.py) -------------------------------------------------------


def _leaks(secret: str, text: str) -> bool:
    """The secret, or any 12-character slice of it, is still in ``text`` (the audit's criterion)."""
    if len(secret) <= 12:
        return secret in text
    return any(secret[i : i + 12] in text for i in range(len(secret) - 11))


def _as_text(value) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def test_corpus_secrets_are_caught_and_ordinary_texts_survive():
    assert len(SECRETS) >= 150 and len(ORDINARY) >= 100
    assert len(AUDIT) >= 60 and len(AUDIT_ORDINARY) >= 39  # the audit's 69 and 39, as far as they are known
    missed, altered = [], []
    for name, value, secrets in SECRETS:
        assert secrets, f"{name}: a secret case names no secret"
        out, _count = redact_value(value)
        if any(_leaks(secret, _as_text(out)) for secret in secrets):
            missed.append(f"{name}: {_as_text(out)[:160]!r}")
        if redact_value(out) != (out, 0):
            altered.append(f"{name} (not idempotent)")
    for name, value in ORDINARY:
        out, count = redact_value(value)
        if (out, count) != (value, 0):
            altered.append(f"{name}: {_as_text(out)[:160]!r}")
        if isinstance(value, str) and redact(value, by_shape_only=True) != (value, 0):
            altered.append(f"{name} (as a document)")
    report = f"{len(SECRETS) - len(missed)}/{len(SECRETS)} secrets caught, {len(altered)}/{len(ORDINARY)} ordinary texts altered"
    assert not missed and not altered, report + "\nmissed:\n  " + "\n  ".join(missed) + "\naltered:\n  " + "\n  ".join(altered)


def test_no_corpus_secret_reaches_the_work_tree_or_history(ov, ov_home):
    """The audit's check, end to end: every secret through add-messages, in every message form."""
    from dulwich.repo import Repo

    messages = []
    for name, value, _ in SECRETS:
        if name == "message-id":
            messages.append({"role": "user", **value})
        elif isinstance(value, str):
            messages += [
                {"role": "user", "content": [{"type": "text", "text": value}]},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"t-{name}", "content": value}]},
            ]
        else:
            messages += [
                {"role": "assistant", "content": [{"type": "tool_use", "id": f"t-{name}", "name": "Bash", "input": value}]},
                {"role": "assistant", "tool_calls": [{"id": f"c-{name}", "type": "function", "function": {"name": "run", "arguments": json.dumps(value)}}]},
            ]
    result = ov("session", "add-messages", "corpus", json.dumps(messages))
    assert result.exit_code == 0, result.stderr
    account = ov_home / "accounts/default"
    stored = [p.read_text(encoding="utf-8") for p in account.rglob("*") if p.is_file() and ".git" not in p.parts]
    repo = Repo(str(account))
    stored += [repo.object_store[sha].as_raw_string().decode("utf-8", "replace") for sha in repo.object_store]
    everything = "\n".join(stored)
    leaked = [name for name, _, secrets in SECRETS if any(_leaks(secret, everything) for secret in secrets)]
    assert not leaked, f"{len(leaked)} of {len(SECRETS)} secrets reached the store: {leaked}"


def test_a_pattern_is_compiled_only_once_a_text_holds_one_of_its_hints():
    """Importing the rules costs no compiling (every `ov session add` imports them); a text
    compiles just the rules its hints wake. Checked in a fresh interpreter."""
    script = """
import json
from ov.redact.engine import redact
from ov.redact.rules import RULES
def compiled():
    return sorted({i for i, rule in enumerate(RULES) if rule.pattern._compiled is not None})
seen = [compiled()]
redact("the build finished in four minutes")
seen.append(compiled())
text = "OPENAI_API_KEY=sk-proj-4f9aQ2mZ7xK1pL8wR3tY6uV0bN5cD2eF"
print(json.dumps([seen, redact(text)[0], compiled()]))
"""
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=True)
    (before, after_plain), redacted, after_secret = json.loads(proc.stdout)
    lowered = "openai_api_key=sk-proj-4f9aq2mz7xk1pl8wr3ty6uv0bn5cd2ef"
    woken = [i for i, rule in enumerate(RULES) if any(hint in lowered for hint in rule.hints)]
    assert before == [] and after_plain == []
    assert redacted == "OPENAI_API_KEY=[REDACTED:openai_key]"
    assert after_secret == woken
