"""Whether what someone "moved to" is a place to live: "I moved to Lisbon", "we moved to New York".

In a coding session "we moved to Vercel" and "I moved to Postgres" name what the code runs on, and
such a move is said far more often there than a move of house; read as a home, it would replace
the user's stored one ("Lives in Porto" -> "Lives in Vercel"). A place is a name (capitalised
words) that is not what code is written in or runs on: no version or digits ("Go 1.22", "K8s"),
no inner capital ("GitHub", "PostgreSQL"), no initialism first but a country's or a city's ("AWS",
"GCP"; "NYC", "Austin, TX" are places), no programming language, no known tool of the user's setup
(:data:`ov.sessions.memory.kinds.KINDS`) and no platform, service or framework a team moves to.
A country's "the" is the place's ("we moved to the UK", "the Netherlands", "the Bay Area": "Lives in
the UK"; not "the Enterprise Plan"). What
follows a comma is the place's only when it is a name too, the region or country of a city ("Austin,
TX", "Porto, Portugal"); any other words there are a remark of their own ("we just moved to San
Francisco, the fog is wild").
"""

from __future__ import annotations

import re

from ov.sessions.memory.capitals import LOWER, UPPER
from ov.sessions.memory.standing import looks_like_name

# A version, a digit or an inner capital: "Python 3.12", "K8s", "GitHub", "PostgreSQL".
_NOT_A_PLACE_RE = re.compile(rf"\d|{LOWER}{UPPER}")
PROGRAMMING_LANGUAGES = frozenset(
    "python go golang rust java kotlin scala swift typescript javascript c c++ c# f# ruby php elixir erlang "
    "haskell ocaml clojure dart lua perl r julia zig nim objective-c shell bash sql groovy crystal fortran".split()
)
# The initialisms that name places: what "we moved to the UK" says.
_PLACE_INITIALISMS = frozenset(("uk", "us", "usa", "uae", "eu", "nyc", "la", "sf", "dc", "bc", "nsw", "qld", "nz"))
# The places named with "the": an initialism's, or a plural's, a republic's, a region's ("the
# Netherlands", "the Czech Republic", "the Bay Area"); any other name after "the" is a thing's.
_THE_PLACE_RE = re.compile(
    rf"(?i)^(?:(?:{'|'.join(_PLACE_INITIALISMS)})|.*(?:s|\b(?:republic|kingdom|area|valley|coast|hague|gambia|congo|riviera)))$"
)
# What a team moves its code, its data or its work to, by the first word of its name (lower case):
# clouds and hosts, runtimes and frameworks, databases and queues, build, deploy and work tools.
_PLATFORMS = frozenset((
    # clouds, hosts, orchestration
    "azure", "google", "amazon", "heroku", "vercel", "netlify", "render", "railway", "fly", "cloudflare", "fastly", "akamai",
    "cloud", "digitalocean", "linode", "hetzner", "vultr", "ovh", "scaleway", "oracle", "openshift", "kubernetes", "nomad", "docker",
    "podman", "swarm", "lambda", "fargate", "supabase", "firebase", "appwrite", "convex", "neon", "planetscale", "upstash",
    # runtimes, frameworks, build tools
    "node", "deno", "bun", "react", "vue", "svelte", "sveltekit", "angular", "next", "nuxt", "remix", "astro", "gatsby", "django",
    "flask", "rails", "laravel", "spring", "express", "nest", "vite", "webpack", "rollup", "parcel", "esbuild",
    "turbopack", "turborepo", "nx", "bazel", "gradle", "maven", "poetry", "pipenv", "conda", "yarn", "tailwind", "bootstrap",
    "pydantic", "sqlalchemy", "prisma", "drizzle", "jest", "vitest", "mocha", "pytest", "cypress", "playwright", "selenium",
    # databases, queues, search, observability
    "postgres", "mysql", "mariadb", "sqlite", "mongo", "mongodb", "redis", "valkey", "memcached", "cassandra", "scylla", "dynamo",
    "cockroach", "clickhouse", "snowflake", "redshift", "databricks", "elasticsearch", "opensearch", "solr", "kafka", "rabbitmq",
    "pulsar", "nats", "celery", "temporal", "airflow", "dagster", "prefect", "grafana", "prometheus", "datadog", "sentry",
    "honeycomb", "splunk", "loki", "jaeger", "kibana", "logstash",
    # source, build and deploy
    "bitbucket", "gitea", "forgejo", "jenkins", "buildkite", "drone", "travis", "teamcity", "bamboo", "argo", "flux",
    "spinnaker", "terraform", "pulumi", "ansible", "chef", "puppet", "helm", "vault", "consul", "packer",
    # the team's own tools
    "slack", "teams", "discord", "zoom", "jira", "linear", "asana", "trello", "notion", "confluence", "clickup", "monday",
    "figma", "sketch", "miro", "zendesk", "intercom", "stripe", "twilio", "auth0", "okta", "keycloak",
))


def is_place(value: str) -> bool:
    """Whether ``value``, what someone moved to, names a place to live (see the module's doc)."""
    from ov.sessions.memory.kinds import (
        KINDS,  # (kinds reads the rules, which read this)
    )

    named = re.sub(r"(?i)^the\s+", "", value)  # "the UK", "the Netherlands": the name is what follows
    if named != value and not _THE_PLACE_RE.match(named):
        return False  # "the Enterprise Plan", "the App Router": a thing, not a place
    value, words = named, named.split()
    if not words or _NOT_A_PLACE_RE.search(value) or not looks_like_name(value):
        return False
    if value.lower() in PROGRAMMING_LANGUAGES or words[0].lower().strip(".,") in _PLATFORMS:
        return False
    first = words[0].strip(".,")
    if first.isupper() and len(first) > 1 and first.lower() not in _PLACE_INITIALISMS:
        return False  # "AWS", "GKE Autopilot" (a region's code after a city is the place's: "Austin, TX")
    return not any(value.lower() == name or value.lower().startswith(f"{name} ") for names in KINDS.values() for name in names)


def place_named(value: str) -> str:
    """``value`` without a remark after a comma that names no region of the place ("San Francisco,
    the fog is wild" -> "San Francisco"; "Austin, TX" and "Porto, Portugal" as they are)."""
    place, comma, rest = value.partition(",")
    return value if not comma or (looks_like_name(rest) and len(rest.split()) <= 3) else place.rstrip()
