"""A corpus for the redactor: secrets in the forms agents meet them, and ordinary text that must survive.

Every secret is built at run time from a seeded generator, so the file holds no literal token
(nothing for a secret scanner or GitHub push protection to flag), yet each is shaped like the
real thing: the right prefix, length and alphabet. ``AUDIT`` rebuilds the forms of the
reliability audit of 2026-12-01 (69 secret forms, 39 ordinary texts); ``SECRETS`` and
``ORDINARY`` add many more providers and contexts.

A case is ``(id, value, secrets)``: ``value`` is a string, or JSON-like data for
``redact_value`` (a tool input); ``secrets`` are the substrings that must not survive.
"""

from __future__ import annotations

import base64
import itertools
import json
import random
import string

_ALNUM = string.ascii_letters + string.digits
_HEX = "0123456789abcdef"
_B64 = _ALNUM + "+/"
_URLSAFE = _ALNUM + "_-"
_seeds = itertools.count()


def rand(n: int, alphabet: str = _ALNUM) -> str:
    """A random-looking body of ``n`` characters (deterministic: each call takes the next seed)."""
    rng = random.Random(next(_seeds))
    # Like a real token, the body mixes every kind of character its alphabet has.
    kinds = [kind for kind in (str.isdigit, str.isupper, str.islower) if any(kind(c) for c in alphabet)]
    while True:
        out = "".join(rng.choice(alphabet) for _ in range(n))
        if n < 8 or all(any(kind(c) for c in out) for kind in kinds):
            return out


def hexs(n: int) -> str:
    return rand(n, _HEX)


def b64(n: int) -> str:
    return rand(n, _B64)


def pem(label: str, lines: int = 6, escaped: bool = False) -> str:
    nl = "\\n" if escaped else "\n"
    body = nl.join(b64(64) for _ in range(lines)) + nl + b64(20) + "=="
    return f"-----BEGIN {label}-----{nl}{body}{nl}-----END {label}-----"


# ----- the tokens -------------------------------------------------------------------------

OPENAI = "sk-" + rand(48)
OPENAI_PROJ = "sk-proj-" + rand(74, _URLSAFE) + "T3BlbkFJ" + rand(74, _URLSAFE)
OPENAI_SVC = "sk-svcacct-" + rand(64, _URLSAFE)
OPENAI_ADMIN = "sk-admin-" + rand(64, _URLSAFE)
ANTHROPIC = "sk-ant-api03-" + rand(93, _URLSAFE) + "AA"
ANTHROPIC_ADMIN = "sk-ant-admin01-" + rand(93, _URLSAFE) + "AA"
GOOGLE_KEY = "AIza" + rand(35, _URLSAFE)
GOOGLE_OAUTH_SECRET = "GOCSPX-" + rand(28, _URLSAFE)
GOOGLE_ACCESS = "ya29." + rand(150, _URLSAFE)
GOOGLE_REFRESH = "1//0" + rand(99, _URLSAFE)
AWS_ID = "AKIA" + rand(16, string.ascii_uppercase + string.digits)
AWS_STS_ID = "ASIA" + rand(16, string.ascii_uppercase + string.digits)
AWS_SECRET = rand(40, _B64)
AWS_SESSION = "IQoJb3JpZ2luX2Vj" + rand(300, _B64)
GITHUB_CLASSIC = "ghp_" + rand(36)
GITHUB_OAUTH = "gho_" + rand(36)
GITHUB_USER = "ghu_" + rand(36)
GITHUB_APP = "ghs_" + rand(36)
GITHUB_REFRESH = "ghr_" + rand(76)
GITHUB_PAT = "github_pat_" + rand(22) + "_" + rand(59)
GITLAB = "glpat-" + rand(20, _URLSAFE)
GITLAB_DEPLOY = "gldt-" + rand(20, _URLSAFE)
GITLAB_RUNNER = "glrt-" + rand(20, _URLSAFE)
SLACK_BOT = "xoxb-" + rand(12, string.digits) + "-" + rand(13, string.digits) + "-" + rand(24)
SLACK_USER = "xoxp-" + rand(12, string.digits) + "-" + rand(12, string.digits) + "-" + rand(13, string.digits) + "-" + hexs(32)
SLACK_APP = "xapp-1-A" + rand(10, string.ascii_uppercase + string.digits) + "-" + rand(13, string.digits) + "-" + hexs(64)
SLACK_HOOK = "T" + rand(10, string.ascii_uppercase + string.digits) + "/B" + rand(10, string.ascii_uppercase + string.digits) + "/" + rand(24)
STRIPE_LIVE = "sk_live_" + rand(99)
STRIPE_TEST = "sk_test_" + rand(99)
STRIPE_RESTRICTED = "rk_live_" + rand(99)
STRIPE_WEBHOOK = "whsec_" + rand(32)
SENDGRID = "SG." + rand(22, _URLSAFE) + "." + rand(43, _URLSAFE)
MAILGUN = "key-" + hexs(32)
MAILCHIMP = hexs(32) + "-us" + "14"
TELEGRAM = rand(10, string.digits).lstrip("0").rjust(10, "7") + ":AA" + rand(33, _URLSAFE)
# A bot token opens with its user id (a snowflake) in base64.
DISCORD_BOT = base64.b64encode(("1" + rand(17, string.digits)).encode()).decode().rstrip("=") + "." + rand(6, _URLSAFE) + "." + rand(38, _URLSAFE)
DISCORD_HOOK = rand(18, string.digits) + "/" + rand(68, _URLSAFE)
TWILIO_TOKEN = hexs(32)
TWILIO_KEY_SECRET = rand(32)
HF = "hf_" + rand(34)
NPM = "npm_" + rand(36)
PYPI = "pypi-AgEIcHlwaS5vcmc" + rand(120, _URLSAFE)
VAULT = "hvs." + rand(90, _URLSAFE)
DIGITALOCEAN = "dop_v1_" + hexs(64)
SHOPIFY = "shpat_" + hexs(32)
SHOPIFY_SECRET = "shpss_" + hexs(32)
DATABRICKS = "dapi" + hexs(32)
ATLASSIAN = "ATATT3xFfGF0" + rand(180, _URLSAFE) + "=" + hexs(8).upper()
LINEAR = "lin_api_" + rand(40)
NOTION = "secret_" + rand(43)
NOTION_NEW = "ntn_" + rand(46)
NEWRELIC = "NRAK-" + rand(27, string.ascii_uppercase + string.digits)
GRAFANA = "glsa_" + rand(32) + "_" + hexs(8)
GRAFANA_CLOUD = "glc_" + b64(120) + "=="
POSTMAN = "PMAK-" + hexs(24) + "-" + hexs(34)
DOPPLER = "dp.st.prd." + rand(40)
PULUMI = "pul-" + hexs(40)
TERRAFORM = rand(14) + ".atlasv1." + rand(67)
SUPABASE = "sbp_" + hexs(40)
NETLIFY = "nfp_" + rand(36)
AGE = "AGE-SECRET-KEY-1" + rand(58, "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L")
AZURE_CLIENT_SECRET = rand(3) + "8Q~" + rand(34, _ALNUM + "_~.-")
AZURE_ACCOUNT_KEY = b64(86) + "=="
AZURE_SAS_SIG = rand(43, _ALNUM) + "%3D"
DD_API = hexs(32)
HEROKU = f"{hexs(8)}-{hexs(4)}-{hexs(4)}-{hexs(4)}-{hexs(12)}"
JWT = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9." + rand(60, _URLSAFE) + "." + rand(43, _URLSAFE)
JWT_RS = "eyJhbGciOiJSUzI1NiIsImtpZCI6IjEifQ." + rand(200, _URLSAFE) + "." + rand(342, _URLSAFE)
OPAQUE = rand(40)
DJANGO = "django-insecure-" + rand(50, string.ascii_lowercase + string.digits + "!@#%^&*(-_=+)")
RSA = pem("RSA PRIVATE KEY")
OPENSSH = pem("OPENSSH PRIVATE KEY")
EC = pem("EC PRIVATE KEY", 3)
PKCS8 = pem("PRIVATE KEY")
PGP = pem("PGP PRIVATE KEY BLOCK")
ENCRYPTED = pem("ENCRYPTED PRIVATE KEY")
GCP_KEY = pem("PRIVATE KEY", escaped=True)
PASSWORD_GEN = rand(16, _ALNUM + "!#%^*")
PW = ["hunter2", "S3cr3t!pass", "Tr0ub4dor&3", "p@ssw0rd99", "Zq8-x7Lm", "correct-horse-42", "bluebird7", "Xk29fjA8qLm", "Summer2026!", "letmein123"]


def _gcp_json() -> dict:
    return {
        "type": "service_account",
        "project_id": "demo-project",
        "private_key_id": hexs(40),
        "private_key": GCP_KEY.replace("\\n", "\n") + "\n",
        "client_email": "svc@demo-project.iam.gserviceaccount.com",
        "client_id": rand(21, string.digits),
    }


def _docker_auths() -> dict:
    return {"auths": {"https://index.docker.io/v1/": {"auth": b64(40) + "=", "email": "me@example.com"}}}


DOCKER_AUTHS = _docker_auths()
GCP_JSON = _gcp_json()

# ----- the audit's forms (reliability audit of 2026-12-01, defect 10) ----------------------------

AUDIT: list[tuple[str, object, tuple[str, ...]]] = [
    ("aws-key-id", f"aws_access_key_id = {AWS_ID}", (AWS_ID,)),
    ("aws-credentials-file", f"[default]\naws_access_key_id = {AWS_ID}\naws_secret_access_key = {AWS_SECRET}\n", (AWS_SECRET,)),
    ("aws-iam-json", json.dumps({"AccessKey": {"UserName": "ci", "AccessKeyId": AWS_ID, "Status": "Active", "SecretAccessKey": AWS_SECRET}}, indent=4), (AWS_ID, AWS_SECRET)),
    ("aws-session-token", f"export AWS_SESSION_TOKEN={AWS_SESSION}", (AWS_SESSION,)),
    ("github-classic", f"GITHUB_TOKEN={GITHUB_CLASSIC}", (GITHUB_CLASSIC,)),
    ("github-fine-grained", f"Use this token: {GITHUB_PAT}", (GITHUB_PAT,)),
    ("github-oauth", f"gh auth status\n  - Token: {GITHUB_OAUTH}", (GITHUB_OAUTH,)),
    ("github-app", f"installation token {GITHUB_APP} expires in 1h", (GITHUB_APP,)),
    ("github-remote-url", f"git remote add origin https://x-access-token:{GITHUB_APP}@github.com/acme/app.git", (GITHUB_APP,)),
    ("gitlab", f"GITLAB_TOKEN={GITLAB}", (GITLAB,)),
    ("openai-project", f'client = OpenAI(api_key="{OPENAI_PROJ}")', (OPENAI_PROJ,)),
    ("openai-legacy", f"OPENAI_API_KEY={OPENAI}", (OPENAI,)),
    ("anthropic-env-dict", {"command": "python agent.py", "env": {"ANTHROPIC_API_KEY": ANTHROPIC, "DEBUG": "1"}}, (ANTHROPIC,)),
    ("anthropic-tool-output", f"$ env | grep ANTH\nANTHROPIC_API_KEY={ANTHROPIC}\n", (ANTHROPIC,)),
    ("slack-bot", f"SLACK_BOT_TOKEN={SLACK_BOT}", (SLACK_BOT,)),
    ("slack-user", f"slack user token: {SLACK_USER}", (SLACK_USER,)),
    ("slack-webhook", f"curl -X POST https://hooks.slack.com/services/{SLACK_HOOK} -d '{{}}'", (SLACK_HOOK,)),
    ("stripe-secret", f"stripe.api_key = '{STRIPE_LIVE}'", (STRIPE_LIVE,)),
    ("stripe-restricted", f"STRIPE_RESTRICTED_KEY={STRIPE_RESTRICTED}", (STRIPE_RESTRICTED,)),
    ("stripe-webhook", f"endpoint_secret = '{STRIPE_WEBHOOK}'", (STRIPE_WEBHOOK,)),
    ("google-key-url", f"https://maps.googleapis.com/maps/api/geocode/json?address=Paris&key={GOOGLE_KEY}", (GOOGLE_KEY,)),
    ("jwt-header", f"Authorization: Bearer {JWT}", (JWT,)),
    ("jwt-bare", f"the id_token was {JWT_RS}", (JWT_RS,)),
    ("rsa-key", RSA, (RSA[40:100],)),
    ("openssh-key", f"cat ~/.ssh/id_ed25519\n{OPENSSH}\n", (OPENSSH[40:100],)),
    ("ec-key", EC, (EC[40:100],)),
    ("pgp-key", PGP, (PGP[40:100],)),
    ("gcp-service-account-dict", GCP_JSON, (GCP_KEY.split("\\n")[1],)),
    ("truncated-key", RSA.split("\n", 3)[0] + "\n" + RSA.split("\n")[1] + "\n" + RSA.split("\n")[2] + "\n[output truncated]", (RSA.split("\n")[1],)),
    ("url-postgres", "DATABASE_URL=postgres://app:" + PW[1] + "@db.internal:5432/app", (PW[1],)),
    ("url-mongodb-srv", "mongodb+srv://admin:" + PW[2] + "@cluster0.ab1cd.mongodb.net/test?retryWrites=true", (PW[2],)),
    ("url-redis-no-user", "REDIS_URL=redis://:" + PW[3] + "@cache:6379/0", (PW[3],)),
    ("url-amqp", "amqp://guest:" + PW[9] + "@rabbit:5672/%2f", (PW[9],)),
    ("dotenv", "DB_HOST=db\nDB_USER=app\nDB_PASSWORD=" + PW[0] + "\nDEBUG=false\n", (PW[0],)),
    ("yaml-password", "database:\n  host: db\n  password: " + PW[4] + "\n", (PW[4],)),
    ("export-api-key", f"export API_KEY={OPAQUE}", (OPAQUE,)),
    ("authorization-bearer", f"curl -H 'Authorization: Bearer {OPAQUE}' https://api.example.com/v1/me", (OPAQUE,)),
    ("authorization-basic", "Authorization: Basic " + b64(28) + "=", ()),
    ("django-secret-key", f"SECRET_KEY = '{DJANGO}'", (DJANGO,)),
    ("client-secret", json.dumps({"client_id": "1234.apps.example.com", "client_secret": rand(32)}), ()),
    ("huggingface", f"huggingface-cli login --token {HF}", (HF,)),
    ("npm", f"//registry.npmjs.org/:_authToken={NPM}", (NPM,)),
    ("pypi", f"[pypi]\nusername = __token__\npassword = {PYPI}\n", (PYPI,)),
    ("vault", f"VAULT_TOKEN={VAULT}", (VAULT,)),
    ("twilio-assignment", f"TWILIO_AUTH_TOKEN={TWILIO_TOKEN}", (TWILIO_TOKEN,)),
    ("azure-connection-string", f"DefaultEndpointsProtocol=https;AccountName=acme;AccountKey={AZURE_ACCOUNT_KEY};EndpointSuffix=core.windows.net", (AZURE_ACCOUNT_KEY,)),
    ("docker-env-flag", f"docker run -d -e DD_API_KEY={DD_API} datadog/agent", (DD_API,)),
    ("discord-bot-token", f"discord bot token: {DISCORD_BOT}", (DISCORD_BOT,)),
    ("flag-password-equals", "mysqldump --password=" + PW[5] + " -h db app > dump.sql", (PW[5],)),
    ("dict-password", {"user": "admin", "password": PW[6]}, (PW[6],)),
    ("docker-auths", DOCKER_AUTHS, (DOCKER_AUTHS["auths"]["https://index.docker.io/v1/"]["auth"],)),
    ("k8s-secret-data", "apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\ndata:\n  password: " + b64(24) + "=\n", ()),
    ("pgpassword", "PGPASSWORD=" + PW[7] + " psql -h db -U app", (PW[7],)),
    ("remember-openai", f"Remember that my OpenAI key is {OPENAI_SVC}", (OPENAI_SVC,)),
    ("remember-github", f"remember: the deploy token is {GITHUB_USER}", (GITHUB_USER,)),
    ("remember-db-url", "I prefer the staging DB at postgres://me:" + PW[8] + "@staging/db", (PW[8],)),
    ("remember-aws", f"My AWS key is {AWS_STS_ID}", (AWS_STS_ID,)),
    ("remember-anthropic", f"Note: use {ANTHROPIC_ADMIN} for the admin API", (ANTHROPIC_ADMIN,)),
    # What the audit found missed.
    ("google-oauth-client-secret", f'{{"installed": {{"client_id": "123-abc.apps.googleusercontent.com", "client_secret": "{GOOGLE_OAUTH_SECRET}"}}}}', (GOOGLE_OAUTH_SECRET,)),
    ("google-oauth-client-secret-prose", f"the OAuth secret is {GOOGLE_OAUTH_SECRET}", (GOOGLE_OAUTH_SECRET,)),
    ("sendgrid", f"sg = SendGridAPIClient('{SENDGRID}')", (SENDGRID,)),
    ("telegram", f"curl https://api.telegram.org/bot{TELEGRAM}/getMe", (TELEGRAM,)),
    ("mailgun", f"MAILGUN_API_KEY={MAILGUN}", (MAILGUN,)),
    ("mailgun-curl", f"curl -s --user 'api:{MAILGUN}' https://api.mailgun.net/v3/mg.example.com/messages", (MAILGUN,)),
    ("sshpass", "sshpass -p '" + PW[1] + "' ssh deploy@web1", (PW[1],)),
    ("mysql-short-flag", "mysql -u root -p" + PW[0] + " -h 127.0.0.1 app", (PW[0],)),
    ("prose-my-password", "my password is " + PW[9], (PW[9],)),
    ("message-id", {"id": OPENAI, "text": "hi"}, (OPENAI,)),
]

# The audit's ordinary texts: these survived then and must keep surviving.
AUDIT_ORDINARY: list[tuple[str, object]] = [
    ("python-if-password", "password = get_password()\nif not password: raise"),
    ("python-if-password-more", "password = get_password()\nif not password: raise ValueError('no password')"),
    ("commit-hash", "commit 3f2c1e9a7b4d5c6e8f9a0b1c2d3e4f5a6b7c8d9e\nAuthor: Jane <jane@example.com>"),
    ("short-hash", "fixed in 3f2c1e9 and 9a0b1c2d"),
    ("uuid", "request_id=123e4567-e89b-12d3-a456-426614174000"),
    ("uuids-json", json.dumps({"ids": ["9f1c2b7e-0d4a-4c3b-8e2f-1a2b3c4d5e6f", "00000000-0000-0000-0000-000000000000"]})),
    ("base64-image", "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="),
    ("base64-blob", "payload: " + "SGVsbG8gV29ybGQhIFRoaXMgaXMgYSB0ZXN0IG9mIGJhc2U2NCBlbmNvZGluZy4="),
    ("sha256", "sha256:2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"),
    ("sha512", "sha512-z4PhNX7vuL3xVChQ1m2AB9Yg5AULVxXcg/SpIdNs6c5H0NE8XYXysP+DGNKHfuwvY7kxvUdBeoGlODJ6+SfaPg=="),
    ("camel-case", "getUserAuthenticationTokenRefreshIntervalMilliseconds"),
    ("snake-case", "max_password_reset_attempts_per_hour_for_unverified_accounts"),
    ("arn", "arn:aws:iam::123456789012:role/service-role/MyLambdaExecutionRole"),
    ("arn-secret", "arn:aws:secretsmanager:us-east-1:123456789012:secret:prod/db-AbCdEf"),
    ("path", "/home/user/.config/gcloud/application_default_credentials.json"),
    ("path-windows", r"C:\Users\me\AppData\Roaming\npm\node_modules"),
    ("docs-token-prefixes", "GitHub classic tokens start with ghp_, fine-grained ones with github_pat_, and OpenAI keys with sk-."),
    ("docs-aws", "AWS access key ids begin with AKIA (long-term) or ASIA (temporary)."),
    ("docs-stripe", "Stripe secret keys start with sk_live_ or sk_test_; publishable keys with pk_."),
    ("prose-reset", "Please reset your password from the settings page."),
    ("prose-token-budget", "The token budget is 2000, so the tokenizer trims long files."),
    ("prose-bearer", "Bearer authentication sends a token in the Authorization header."),
    ("python-getpass", "password = getpass.getpass('Password: ')"),
    ("python-env", "api_key = os.environ['OPENAI_API_KEY']"),
    ("js-token", "const token = await getToken(req);"),
    ("yaml-ref", "password: ${DB_PASSWORD}\ntoken: ${{ secrets.GITHUB_TOKEN }}"),
    ("placeholder-env", "OPENAI_API_KEY=sk-...\nAPI_KEY=<your-api-key>\nPASSWORD=changeme"),
    ("numbers", "PASSWORD_MIN_LENGTH=8\nmax_tokens: 4096"),
    ("url-no-password", "https://user@example.com/path and git@github.com:org/repo.git"),
    ("url-placeholder", "postgres://user:password@localhost:5432/db"),
    ("public-key", "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIG9yLm9yZy9leGFtcGxlL2tleS9mb3IvZG9jcw user@host"),
    ("certificate", "-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIUEXAMPLE\n-----END CERTIFICATE-----"),
    ("semver", "upgraded requests 2.31.0 -> 2.32.3 and urllib3 1.26.18 -> 2.2.1"),
    ("timestamp", "2026-12-01T08:15:30.123Z INFO started in 35 ms"),
    ("ipv6", "listening on [2001:db8::1]:8443 and fe80::1ff:fe23:4567:890a"),
    ("mac", "eth0 link/ether 02:42:ac:11:00:02"),
    ("k8s-configmap", "kind: ConfigMap\ndata:\n  LOG_LEVEL: debug\n  TOKEN_URL: https://auth.example.com/token"),
    ("sql", "SELECT id FROM users WHERE password_hash = $1 AND token_expires_at > now()"),
    ("markdown-table", "| Setting | Value |\n|---|---|\n| token | 2000 |\n| auth | oauth |"),
    ("empty", ""),
]

# ----- more providers and contexts ------------------------------------------------------------


def _forms(name: str, token: str) -> list[tuple[str, object, tuple[str, ...]]]:
    """One token in the contexts tokens turn up in: prose, a quoted config value, a tool input."""
    return [
        (f"{name}-prose", f"Here is the key you asked for: {token} (rotate it after the demo).", (token,)),
        (f"{name}-json", json.dumps({"service": name, "credentials": {"value": token}}), (token,)),
        (f"{name}-tool-input", {"command": f"deploy --target prod --auth {token}", "timeout": 60}, (token,)),
    ]


PROVIDERS = [
    ("openai", OPENAI), ("openai-project", OPENAI_PROJ), ("openai-service-account", OPENAI_SVC), ("openai-admin", OPENAI_ADMIN),
    ("anthropic", ANTHROPIC), ("google-api", GOOGLE_KEY), ("google-oauth-secret", GOOGLE_OAUTH_SECRET),
    ("google-access-token", GOOGLE_ACCESS), ("google-refresh-token", GOOGLE_REFRESH), ("aws-key-id", AWS_ID),
    ("github-classic", GITHUB_CLASSIC), ("github-refresh", GITHUB_REFRESH), ("github-pat", GITHUB_PAT),
    ("gitlab", GITLAB), ("gitlab-deploy", GITLAB_DEPLOY), ("gitlab-runner", GITLAB_RUNNER),
    ("slack-bot", SLACK_BOT), ("slack-app", SLACK_APP), ("stripe-test", STRIPE_TEST), ("sendgrid", SENDGRID),
    ("mailgun", MAILGUN), ("mailchimp", MAILCHIMP), ("telegram", TELEGRAM), ("discord", DISCORD_BOT),
    ("huggingface", HF), ("npm", NPM), ("pypi", PYPI), ("vault", VAULT), ("digitalocean", DIGITALOCEAN),
    ("shopify", SHOPIFY), ("shopify-secret", SHOPIFY_SECRET), ("databricks", DATABRICKS), ("atlassian", ATLASSIAN),
    ("linear", LINEAR), ("notion", NOTION), ("notion-new", NOTION_NEW), ("newrelic", NEWRELIC), ("grafana", GRAFANA), ("grafana-cloud", GRAFANA_CLOUD),
    ("postman", POSTMAN), ("doppler", DOPPLER), ("pulumi", PULUMI), ("terraform-cloud", TERRAFORM),
    ("supabase", SUPABASE), ("netlify", NETLIFY), ("age", AGE), ("azure-client-secret", AZURE_CLIENT_SECRET), ("jwt", JWT),
]

CONTEXTS: list[tuple[str, object, tuple[str, ...]]] = [
    # Passwords and generic secrets in config and code.
    ("env-quoted", 'export DB_PASSWORD="' + PW[2] + '"', (PW[2],)),
    ("env-single-quoted", "REDIS_PASSWORD='" + PW[3] + "'", (PW[3],)),
    ("compose-environment", "services:\n  db:\n    environment:\n      - POSTGRES_PASSWORD=" + PW[1] + "\n      - POSTGRES_USER=app", (PW[1],)),
    ("compose-map", "    environment:\n      MYSQL_ROOT_PASSWORD: " + PW[5] + "\n      MYSQL_DATABASE: app", (PW[5],)),
    ("ini", "[database]\nuser = app\npassword = " + PW[7] + "\n", (PW[7],)),
    ("toml", '[tool.poetry.http-basic.private]\nusername = "ci"\npassword = "' + PW[8] + '"', (PW[8],)),
    ("json-nested", json.dumps({"db": {"host": "db", "password": PW[0]}}), (PW[0],)),
    ("json-escaped-in-string", json.dumps(json.dumps({"password": PW[1]})), (PW[1],)),
    ("python-kwarg", 'conn = psycopg.connect(host="db", user="app", password="' + PW[2] + '")', (PW[2],)),
    ("python-dict", "settings = {'api_key': '" + OPAQUE + "', 'timeout': 30}", (OPAQUE,)),
    ("js-object", "const config = { apiKey: '" + rand(32) + "', region: 'eu' };", ()),
    ("go-const", 'const apiToken = "' + rand(40) + '"', ()),
    ("terraform", 'resource "aws_db_instance" "db" {\n  password = "' + PW[6] + '"\n}', (PW[6],)),
    ("properties", "spring.datasource.password=" + PW[4], (PW[4],)),
    ("connection-string", "Server=tcp:db.example.com,1433;Database=app;User ID=sa;Password=" + PW[7] + ";Encrypt=True;", (PW[7],)),
    ("jdbc-url", "jdbc:mysql://db:3306/app?user=app&password=" + PW[3], (PW[3],)),
    ("header-api-key", "X-Api-Key: " + rand(32), ()),
    ("header-in-curl", "curl -H 'X-Auth-Token: " + OPAQUE + "' https://api.example.com", (OPAQUE,)),
    ("query-access-token", "GET /callback?code=abc&access_token=" + rand(40) + "&state=xyz", ()),
    ("netrc", "machine api.example.com\n  login me\n  password " + PW[1] + "\n", (PW[1],)),
    ("dict-api-key", {"headers": {"x-api-key": OPAQUE, "accept": "application/json"}}, (OPAQUE,)),
    ("dict-secret-nested", {"env": [{"name": "DB_PASSWORD", "value": PW[9]}], "image": "app:1"}, ()),
    ("k8s-string-data", "kind: Secret\nstringData:\n  password: " + PW[8] + "\n  username: app\n", (PW[8],)),
    ("url-https-credentials", "https://deploy:" + PW[1] + "@registry.example.com/v2/", (PW[1],)),
    ("url-mysql", "mysql://root:" + PW[2] + "@127.0.0.1:3306/app", (PW[2],)),
    ("url-ftp", "ftp://anon:" + PW[4] + "@files.example.com/pub", (PW[4],)),
    ("url-smtp", "SMTP_URL=smtps://mailer:" + PW[5] + "@smtp.example.com:465", (PW[5],)),
    ("aws-secret-env", f"AWS_SECRET_ACCESS_KEY={AWS_SECRET}", (AWS_SECRET,)),
    ("azure-sas", f"https://acct.blob.core.windows.net/c/f.txt?sv=2022-11-02&ss=b&srt=o&sp=r&se=2026-12-31&sig={AZURE_SAS_SIG}", (AZURE_SAS_SIG,)),
    ("heroku", f"HEROKU_API_KEY={HEROKU}", (HEROKU,)),
    ("twilio-key-secret", f"TWILIO_API_SECRET={TWILIO_KEY_SECRET}", (TWILIO_KEY_SECRET,)),
    ("slack-webhook-json", json.dumps({"webhook_url": f"https://hooks.slack.com/services/{SLACK_HOOK}"}), (SLACK_HOOK,)),
    ("discord-webhook", f"https://discord.com/api/webhooks/{DISCORD_HOOK}", (DISCORD_HOOK.split("/")[1],)),
    ("telegram-env", f"TELEGRAM_BOT_TOKEN={TELEGRAM}", (TELEGRAM,)),
    ("telegram-prose", f"the bot token from BotFather: {TELEGRAM}", (TELEGRAM,)),
    ("sendgrid-env", f"SENDGRID_API_KEY={SENDGRID}", (SENDGRID,)),
    ("mailgun-env", f"MAILGUN_API_KEY={MAILGUN}", (MAILGUN,)),
    ("gcp-json-string", json.dumps(GCP_JSON), (GCP_KEY.split("\\n")[1],)),
    ("private-key-pkcs8", PKCS8, (PKCS8[40:100],)),
    ("private-key-encrypted", ENCRYPTED, (ENCRYPTED[40:100],)),
    ("private-key-in-markdown", "Found this in the repo:\n\n```\n" + OPENSSH + "\n```\n", (OPENSSH[40:100],)),
    ("bearer-in-log", f"2026-12-01 10:00:01 DEBUG request headers={{'Authorization': 'Bearer {OPAQUE}'}}", (OPAQUE,)),
    ("bearer-json", json.dumps({"headers": {"Authorization": f"Bearer {OPAQUE}"}}), (OPAQUE,)),
    ("basic-in-dict", {"Authorization": "Basic " + b64(32)}, ()),
    ("git-credential-store", f"https://octocat:{GITHUB_CLASSIC}@github.com", (GITHUB_CLASSIC,)),
    ("npmrc", f"//npm.pkg.github.com/:_authToken={GITHUB_CLASSIC}\n@acme:registry=https://npm.pkg.github.com", (GITHUB_CLASSIC,)),
    ("pip-index-url", f"PIP_INDEX_URL=https://__token__:{PYPI}@upload.pypi.org/legacy/", (PYPI,)),
    ("docker-login-stdin-prose", "docker login -u ci -p " + PW[3] + " registry.example.com", (PW[3],)),
    # Command lines with password flags.
    ("mysql-attached", "mysql -h db -uroot -p" + PW[7] + " app < schema.sql", (PW[7],)),
    ("mysqldump-attached", "mysqldump -u backup -p'" + PW[1] + "' --all-databases", (PW[1],)),
    ("mysqladmin-attached", "mysqladmin -u root -p" + PW[6] + " status", (PW[6],)),
    ("mariadb-attached", 'mariadb -u app -p"' + PW[2] + '" -e "show tables"', (PW[2],)),
    ("sshpass-unquoted", "sshpass -p " + PW[0] + " scp backup.tgz deploy@web1:/srv", (PW[0],)),
    ("sshpass-double-quoted", 'sshpass -p "' + PW[5] + '" ssh -o StrictHostKeyChecking=no root@10.0.0.5', (PW[5],)),
    ("sshpass-attached", "sshpass -p" + PW[8] + " rsync -a src/ host:dst/", (PW[8],)),
    ("redis-cli", "redis-cli -h cache -a " + PW[4] + " ping", (PW[4],)),
    ("password-flag-space", "psql --password " + PW[7] + " --host db", (PW[7],)),
    ("password-flag-equals-quoted", 'wget --password="' + PW[9] + '" https://example.com/file', (PW[9],)),
    ("http-password-flag", "wget --http-user=me --http-password=" + PW[3] + " https://example.com/a.zip", (PW[3],)),
    ("openssl-pass", "openssl pkcs12 -export -in cert.pem -inkey key.pem -out c.p12 -passout pass:" + PW[2], (PW[2],)),
    ("keytool", "keytool -importkeystore -srckeystore a.p12 -srcstorepass " + PW[6] + " -deststorepass " + PW[1], (PW[6], PW[1])),
    ("zip-password", "zip -P " + PW[5] + " secrets.zip notes.txt", (PW[5],)),
    ("7z-password", "7z x -p" + PW[0] + " archive.7z", (PW[0],)),
    ("sqlcmd", "sqlcmd -S db -U sa -P '" + PW[2] + "' -Q 'SELECT 1'", (PW[2],)),
    ("mongosh-flag", "mongosh --host db -u admin -p " + PW[4] + " --authenticationDatabase admin", (PW[4],)),
    ("htpasswd-batch", "htpasswd -bc .htpasswd admin " + PW[7], (PW[7],)),
    ("kubectl-from-literal", "kubectl create secret generic db --from-literal=password=" + PW[8], (PW[8],)),
    ("docker-env-password", "docker run -e MYSQL_ROOT_PASSWORD=" + PW[9] + " -d mysql:8", (PW[9],)),
    # Prose.
    ("prose-password-is", "The password is " + PW[1] + ", don't share it.", (PW[1],)),
    ("prose-password-quoted", "my wifi password is 'bluebird'", ("bluebird",)),
    # (found as a bug: a sentence going on with "if", "and", "or", "for" read as an expression)
    ("prose-password-quoted-if", 'The wifi password is "bluebird42" if you need it', ("bluebird42",)),
    ("prose-password-quoted-and", 'my password is "correct-horse-battery" and the stripe key is elsewhere', ("correct-horse-battery",)),
    ("prose-password-backticks", "the admin password is `" + PW[4] + "`.", (PW[4],)),
    ("prose-password-for", "The password for the staging database is " + PW[3], (PW[3],)),
    ("prose-set-to", "I set the root password to " + PW[8] + " for now.", (PW[8],)),
    ("prose-changed-to", "changed my password to " + PW[2] + " yesterday", (PW[2],)),
    ("prose-passphrase", "the passphrase is " + PW[5], (PW[5],)),
    ("prose-colon", "Login details -- user: admin, password: " + PW[6], (PW[6],)),
    ("prose-was", "Her old password was " + PW[7] + ".", (PW[7],)),
    ("prose-token-is", f"the token is {rand(32)}.", ()),
    ("prose-api-key-is", f"our api key is {OPAQUE}", (OPAQUE,)),
    ("prose-pw-generated", "The generated password is " + PASSWORD_GEN, (PASSWORD_GEN,)),
]

# Cases above whose secret is whatever random body they were built with: list the body here.
_DERIVED = {
    "client-secret": lambda v: (json.loads(v)["client_secret"],),
    "k8s-secret-data": lambda v: (v.rsplit("password: ", 1)[1].strip(),),
    "authorization-basic": lambda v: (v.split("Basic ", 1)[1],),
    "js-object": lambda v: (v.split("'")[1],),
    "go-const": lambda v: (v.split('"')[1],),
    "header-api-key": lambda v: (v.split(": ", 1)[1],),
    "query-access-token": lambda v: (v.split("access_token=", 1)[1].split("&")[0],),
    "dict-secret-nested": lambda v: (v["env"][0]["value"],),
    "basic-in-dict": lambda v: (v["Authorization"].split(" ", 1)[1],),
    "prose-token-is": lambda v: (v.split("is ", 1)[1].rstrip("."),),
}


def _resolved(cases: list[tuple[str, object, tuple[str, ...]]]) -> list[tuple[str, object, tuple[str, ...]]]:
    return [(name, value, _DERIVED[name](value) if name in _DERIVED else secrets) for name, value, secrets in cases]


SECRETS = _resolved(AUDIT + [case for name, token in PROVIDERS for case in _forms(name, token)] + CONTEXTS)

ORDINARY: list[tuple[str, object]] = AUDIT_ORDINARY + [
    # Code that handles secrets without holding one.
    ("python-check", "if not api_key:\n    raise RuntimeError('set OPENAI_API_KEY')\nclient = OpenAI(api_key=api_key)"),
    ("python-while", "while token:\n    token = page.next_token"),
    ("python-elif", "elif password: return check(password)"),
    ("python-lambda", "key_of = lambda token: token.lower()"),
    ("python-annotation", "def login(user: str, password: str, *, otp: str | None = None) -> Session: ..."),
    ("python-dataclass", "@dataclass\nclass Creds:\n    token: str\n    secret: bytes = b''"),
    ("python-match", "match token:\n    case None: pass"),
    ("python-settings", "SECRET_KEY = os.environ.get('DJANGO_SECRET_KEY')\nPASSWORD_HASHERS = ['django.contrib.auth.hashers.Argon2PasswordHasher']"),
    ("python-pydantic", "class Settings(BaseSettings):\n    api_key: SecretStr\n    db_password: SecretStr = Field(..., env='DB_PASSWORD')"),
    ("js-destructure", "const { token, password } = req.body;\nif (!token) return res.status(401).end();"),
    ("ts-interface", "interface Credentials {\n  apiKey: string;\n  secret?: string;\n}"),
    ("go-struct", 'type Config struct {\n\tToken string `json:"token"`\n\tPassword string `yaml:"password"`\n}'),
    ("rust-fn", "fn auth(token: &str) -> Result<Claims, Error> { verify(token, &KEY) }"),
    ("shell-read", 'read -rsp "Password: " password && echo\nexport PGPASSWORD="$password"'),
    ("shell-vault", "export VAULT_TOKEN=$(vault print token)\nexport GITHUB_TOKEN=$(gh auth token)"),
    ("github-actions", "env:\n  GITHUB_TOKEN: ${{ secrets.GITHUB_TOKEN }}\n  NPM_TOKEN: ${{ secrets.NPM_TOKEN }}"),
    ("terraform-var", 'password = var.db_password\napi_key  = data.vault_generic_secret.api.data["key"]'),
    ("helm-values", "auth:\n  existingSecret: db-credentials\n  secretKeys:\n    adminPasswordKey: admin-password"),
    ("k8s-secret-ref", "env:\n  - name: DB_PASSWORD\n    valueFrom:\n      secretKeyRef:\n        name: db\n        key: password"),
    ("ansible-vault", "db_password: \"{{ vault_db_password }}\""),
    ("dotenv-example", "# .env.example\nOPENAI_API_KEY=\nDB_PASSWORD=\nSECRET_KEY=your-secret-key-here"),
    # Command lines whose short flags are not passwords.
    ("mkdir-p", "mkdir -p build/output && cp -pr assets build/"),
    ("perl-pe", "perl -pe 's/foo/bar/g' input.txt"),
    ("ps-p", "ps -p 12345 -o pid,cmd"),
    ("docker-port", "docker run -p 8080:80 -p 443:443 nginx"),
    ("mysql-prompt", "mysql -u root -p\nEnter password:"),
    ("mysql-prompt-db", "mysql -u root -p app_db < schema.sql"),
    ("mysql-port", "mysql -h db -P 3306 -u app -p"),
    ("ssh-port", "ssh -p 2222 deploy@web1 && scp -P 2222 a.txt web1:"),
    ("sshpass-file", "sshpass -f ~/.ssh/pass.txt ssh deploy@web1\nsshpass -e ssh deploy@web2"),
    ("sshpass-env-ref", "sshpass -p \"$SSHPASS\" ssh host"),
    ("markdown-options", "the password options of `mysql -pX`, `sshpass -p`, `docker login -p`, and `sshpass -p `cat f``"),
    ("redis-port", "redis-cli -h cache -p 6379 ping"),
    ("password-stdin", "echo $PASS | docker login -u ci --password-stdin registry.example.com"),
    ("psql-password-flag", "psql --password --host db app"),
    ("git-log-p", "git log -p --all -- src/auth.py"),
    ("pip-install", "pip install -U -p requests"),
    ("openssl-env", "openssl enc -aes-256-cbc -pass env:ENC_PASS -in a -out b"),
    ("keytool-prompt", "keytool -genkeypair -alias app -keystore app.jks"),
    # Prose that talks about passwords and tokens without holding one.
    ("prose-required", "The password is required and must be at least 12 characters."),
    ("prose-too-short", "My password is too short, the form says."),
    ("prose-incorrect", "It says the password is incorrect."),
    ("prose-stored", "The password is stored in Vault under secret/db."),
    ("prose-hashed", "Each password is hashed with bcrypt before it is saved."),
    ("prose-case", "The password is case-sensitive."),
    ("prose-encoded", "The token is base64-encoded and signed."),
    ("prose-expired", "Your token is expired; run gh auth login again."),
    ("prose-same", "my password is the same as before"),
    ("prose-env", "The API key is read from OPENAI_API_KEY at start-up."),
    ("prose-rotate", "Rotate the password every 90 days and never commit it."),
    ("prose-where", "Where is the password for the staging database kept?"),
    ("prose-not-set", "The password is not set, so the server refuses logins."),
    ("prose-number", "The password is 8 characters long at minimum."),
    ("prose-secret-to", "The secret to fast hooks is doing less work."),
    ("prose-set-password", "Set the password to something long, then save."),
    ("prose-colon-word", "Password: see the team vault."),
    ("prose-token-word", "the token is valid for one hour"),
    ("prose-hunter", "In the famous bash.org quote the password is asterisks."),
    # Identifiers, hashes and data that look random.
    ("git-log", "a1b2c3d Merge pull request #42 from acme/fix-auth\n9f8e7d6 Bump version to 1.4.2"),
    ("docker-digest", "nginx@sha256:0d17b565c37bcbd895e9d92315a05c1c3c9a29f762b011a10c54a66cd53c9b31"),
    ("npm-integrity", '"integrity": "sha512-v2kDEe57lecTulaDIuNTPy3Ry4gLGJ6Z1O3vE1krgXZNrsQ+LFTGHVxVjcXPs17LhbZVGedAJv8XZ1tvj5FvSg=="'),
    ("sri", '<script src="app.js" integrity="sha384-oqVuAfXRKap7fdgcCY5uykM6+R9GqQ8K/uxy9rx7HNQlGYl1kPzQho1wx4JwY8wC"></script>'),
    ("md5", "md5sum: d41d8cd98f00b204e9800998ecf8427e  empty.txt"),
    ("git-blob", "blob 8ab686eafeb1f44702738c8b0f24f2567c36da6d\ntree 4b825dc642cb6eb9a060e54bf8d69288fbee4904"),
    ("jwt-header-only", "The JWT header eyJhbGciOiJIUzI1NiJ9 decodes to {\"alg\":\"HS256\"}."),
    ("base64-json-data", "data:application/json;base64,eyJuYW1lIjoiSmFuZSIsInJvbGUiOiJhZG1pbiJ9"),
    ("pgp-public", "-----BEGIN PGP PUBLIC KEY BLOCK-----\nmQINBGExampleExampleExample\n-----END PGP PUBLIC KEY BLOCK-----"),
    ("ulid", "event 01HZX3M7Q9K2V8T4B6N1R5C0DE created"),
    ("nanoid", "short link https://ex.am/p/V1StGXR8_Z5jdHi6B-myT"),
    ("telegram-docs", "Bot tokens look like 123456:ABC-DEF1234ghIkl-zyx57W2v1u123ew11 in the docs."),
    ("telegram-like-log", "2026-12-01 user 123456789: sent /start"),
    ("mailgun-like", "a key-value store keyed by key-0 .. key-9"),
    ("sendgrid-like", "SG.com and sg.example.com are domains"),
    ("gocspx-docs", "Google OAuth client secrets now start with GOCSPX-."),
    ("docs-prefixes-more", "Slack bot tokens start with xoxb-, GitLab personal tokens with glpat-, Hugging Face with hf_."),
    ("docs-ya29", "Google access tokens start with ya29. and expire after an hour."),
    ("aws-example-doc", "Replace AKIAXXXXXXXXXXXXXXXX with your key id."),
    ("hex-color", "color: #ff8800; background: #1a2b3c"),
    ("ports", "services listen on 127.0.0.1:5432, 0.0.0.0:8080 and :9090"),
    ("version-list", "python 3.11.7, node 20.11.1, go1.22.0"),
    ("filenames", "see src/auth/token_store.py, tests/test_password_reset.py and docs/secrets.md"),
    ("s3-url", "s3://acme-backups/2026/12/01/db.sql.gz"),
    ("gcs-url", "gs://acme-models/checkpoints/step-120000/model.safetensors"),
    ("arn-kms", "arn:aws:kms:eu-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab"),
    ("long-identifier", "test_a_message_id_that_holds_a_secret_is_redacted_and_still_de_duplicates"),
    ("env-dump", "PWD=/work/main\nOLDPWD=/home/user\nSSH_AUTH_SOCK=/tmp/ssh-XXXX/agent.123\nTERM=xterm-256color"),
    ("config-names", "token_type: bearer\nauth_mode: oauth\npassword_policy: strong\nsecret_name: prod-db"),
    ("tool-input-plain", json.dumps({"command": "pytest -q tests/test_auth.py", "timeout": 120, "description": "run the auth tests"})),
    ("cjk-prose", "请在设置页面重置密码。令牌预算为 2000。"),
    ("emoji", "Deployed 🚀 with token budget 4000 ✅"),
    ("url-encoded", "https://example.com/search?q=password%20reset&page=2"),
    ("html", '<input type="password" name="password" autocomplete="current-password">'),
    ("regex", r"PASSWORD_RE = re.compile(r'^(?=.*\d)(?=.*[a-z]).{12,}$')"),
    ("uuid-in-path", "/api/v1/tokens/5f0c6a3e-9b1d-4e2f-8a7c-3d4b5e6f7a8b/revoke"),
    ("hash-sha1-list", "\n".join(f"{i:02d} {h}" for i, h in enumerate(["da39a3ee5e6b4b0d3255bfef95601890afd80709", "2fd4e1c67a2d28fced849ee1bb76e7391b93eb12"]))),
    # Code that reads, validates or describes a secret (an ingest audit of real projects).
    ("python-form-password", 'password = request.form["password"]\nusername = request.form.get("username", "")'),
    ("python-token-regex", 'TOKEN_PATTERN = r"[A-Za-z0-9]{32}"\nAPI_KEY_RE = re.compile(r"sk-[A-Za-z0-9]{48}")'),
    ("python-secret-default", 'SECRET_KEY = os.environ.get("SECRET_KEY", "dev")\nSECRET_KEY = "dev-secret-key-for-tests"'),
    ("django-form", "password_field = forms.CharField(widget=forms.PasswordInput)"),
    ("pydantic-field", 'api_key: str = Field(default="", alias="OPENAI_API_KEY")'),
    ("kwargs-pop", 'self.auth_token = kwargs.pop("auth_token", None)'),
    ("cache-key-fstring", 'cache_key = f"user:{user_id}:token:{version}"'),
    ("bcrypt", "password_hash = bcrypt.hashpw(password.encode(), bcrypt.gensalt())"),
    ("assembly-public-key-token", '<assemblyIdentity name="Microsoft.VC90.CRT" version="9.0.21022.8" publicKeyToken="1fc8b3b9a1e18e3b"/>'),
    ("ssh-key-fingerprint", 'ssh_key_fingerprint = "SHA256:nThbg6kXUpJWGl7E1IGOCspRomTxdCARLviKw6E5SY8"'),
    ("secret-manager-path", 'secret_version = "projects/my-project/secrets/db-password/versions/latest"'),
    ("placeholders-in-docs", "DB_PASSWORD=changeme\nDB_PASSWORD=<password>\nDB_PASSWORD=${DB_PASSWORD}\nPASSWORD=xxx\nPASSWORD=your-password-here"),
]
