"""Deterministic memories on statements the extraction rules were not written for.

``tests/test_memory_corrections.py`` holds the table the rules were built against, exactly (file
paths and lines). This set was written afterwards, as a user would phrase things, and is scored
loosely, on what a memory must say and must no longer say, not on its wording:

* ``has``: (file glob under the user's memories, text) -- some file matching the glob contains the
  text (case-insensitive);
* ``lacks``: (file glob, text) -- no file matching the glob contains a line with the text;
* ``no_event``: the statements are not dated happenings, so nothing may land under ``events/``;
* ``nothing``: no memory at all may be written (``ov remember`` may refuse).

Each case runs its ``ov remember`` steps on a fresh store (in-process, the CLI's own path). The
cases are split by position into a **tune** part (the rules may be changed while looking at it)
and a **held** part, every third case, read only to report: the gap between the two says how much
of a gain is the rules learning the tune part's phrasings. A **fresh** part (:data:`FRESH`) was
written after the rules were changed, and run once; when the rules were then changed on what it
showed, a second one (:data:`FRESH2`) was written and run once in its turn, and a third
(:data:`FRESH3`) after the second round. A fourth (:data:`FRESH4`) was written blind by a
different author, who had read neither the rules nor the cases, a sixth (:data:`FRESH6`) by
another, sealed until the rules it measures were done, and a seventh (:data:`FRESH7`) by a third, sealed the same way; an eighth (:data:`FRESH8`) was written
blind before the round after the seventh, held back for it, and read for the round after that; a
ninth (:data:`FRESH9`) was written blind by a helper who read neither the rules nor the earlier blind parts, and is held back; a
tenth (:data:`FRESH10`) was written the same way by another helper, held back, and read for round mem19; an eleventh
(:data:`FRESH11`) by a third, held back to measure mem19 and read for mem20; a twelfth (:data:`FRESH12`) by a
fourth, held back to measure mem20; a thirteenth (:data:`FRESH13`) by a fifth, held back; a fourteenth (:data:`FRESH14`) by a sixth,
held back; a fifteenth (:data:`FRESH15`) by a seventh, held back; a sixteenth (:data:`FRESH16`) by an eighth,
held back; a seventeenth (:data:`FRESH17`) by a ninth, held back. Each comment
says when its part was read untouched; docs/benchmarks.md has the figures.

    .venv/bin/python bench/memory_statements.py [--show tune|held|fresh|fresh2|fresh3|fresh4|fresh5|fresh6|fresh7|fresh8|fresh9|fresh10|fresh11|fresh12|fresh13|fresh14|fresh15|fresh16|fresh17|all] [--json out.json] [--locomo LOCOMO.json]
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import sys
import tempfile
from pathlib import Path

P, ANY, PREF, ENT = "profile.md", "*", "preferences/*", "entities/*"

# (id, steps, checks). Checks: has=[(glob, text)], lacks=[(glob, text)], no_event=True, nothing=True.
CASES: list[tuple[str, list[str], dict]] = [
    ("switched-from-to", ["My editor is Neovim", "I switched from Neovim to Zed"],
     {"has": [(P, "Editor: Zed")], "lacks": [(P, "Editor: Neovim")], "no_event": True}),
    ("moved-from-to-uses", ["I use Vim", "I've moved from Vim to Helix"],
     {"has": [(P, "Helix")], "lacks": [(P, "- Uses Vim")], "no_event": True}),
    ("changed-my-k-to", ["My shell is bash", "I changed my shell to zsh"],
     {"has": [(P, "Shell: zsh")], "lacks": [(P, "Shell: bash")], "no_event": True}),
    ("instead-of-old", ["My shell is bash", "I use zsh now instead of bash"],
     {"has": [(P, "zsh")], "lacks": [(P, "Shell: bash")], "no_event": True}),
    ("call-me", ["Call me Dan"], {"has": [(P, "Dan")], "no_event": True}),
    ("nickname-keeps-name", ["My name is Daniel", "Please call me Dan"],
     {"has": [(P, "Name: Daniel"), (P, "Dan")], "no_event": True}),
    ("live-then-moved", ["I live in Berlin", "I moved to Lisbon"],
     {"has": [(P, "Lisbon")], "lacks": [(P, "Lives in Berlin")], "no_event": True}),
    ("based-in", ["I'm based in Berlin"], {"has": [(P, "Berlin")], "no_event": True}),
    ("so-clause", ["I'm in Berlin, so my timezone is CET"],
     {"has": [(P, "Timezone: CET"), (P, "Berlin")], "lacks": [(P, "so my timezone")], "no_event": True}),
    ("moved-and-timezone-now", ["My timezone is CET", "I moved to New York and my timezone is now EST"],
     {"has": [(P, "Timezone: EST"), (P, "New York")], "lacks": [(P, "Timezone: CET")], "no_event": True}),
    ("dont-use", ["Don't use tabs in this repo"], {"has": [(PREF, "tabs")], "no_event": True}),
    ("always-use", ["Always use type hints"], {"has": [(PREF, "type hints")], "no_event": True}),
    ("never-do", ["Never push directly to main"], {"has": [(PREF, "push directly to main")], "no_event": True}),
    ("use-x-not-y", ["Please use pytest, not unittest"], {"has": [(PREF, "pytest")], "no_event": True}),
    ("id-rather", ["I'd rather have small pull requests"], {"has": [(PREF, "small pull requests")], "no_event": True}),
    ("system-moved", ["Our CI runs on GitHub Actions", "Actually we moved CI to Buildkite"],
     {"has": [(ENT, "Buildkite")], "lacks": [(ENT, "- Runs on GitHub Actions")], "no_event": True}),
    ("remember-adds-to-entity", ["The staging DB is at db-staging.internal:5432", "Remember the staging DB password rotates monthly"],
     {"has": [(ENT, "db-staging.internal:5432"), (ENT, "rotates monthly")], "no_event": True}),
    ("entity-value-now", ["Our main database is Postgres 15", "Our main database is Postgres 16 now"],
     {"has": [(ENT, "Postgres 16")], "lacks": [(ENT, "Postgres 15")], "no_event": True}),
    ("work-at-as", ["I work at Acme as a backend engineer"],
     {"has": [(P, "Acme"), (P, "backend engineer")], "no_event": True}),
    ("because-clause", ["My editor is Vim because it's fast"], {"has": [(P, "- Editor: Vim")], "lacks": [(P, "because")], "no_event": True}),
    ("which-clause", ["My editor is Vim, which I've used for ten years"],
     {"has": [(P, "- Editor: Vim")], "lacks": [(P, "Editor: Vim, which")], "no_event": True}),
    ("favorite-now", ["My favorite language is Rust", "My favorite language is Go now"],
     {"has": [(P, "Favorite language: Go")], "lacks": [(P, "Favorite language: Rust")], "no_event": True}),
    ("not-anymore-then-new", ["I use VS Code", "I don't use VS Code anymore, I use Cursor"],
     {"has": [(P, "Uses Cursor")], "lacks": [(P, "- Uses VS Code")], "no_event": True}),
    ("joined-team", ["I joined the Platform team"], {"has": [("entities/teams/*", "Platform")], "no_event": True}),
    ("email-now", ["My email is dan@example.com", "My email is dan@acme.io now"],
     {"has": [(P, "dan@acme.io")], "lacks": [(P, "dan@example.com")], "no_event": True}),
    ("handle", ["My GitHub handle is dortiz"], {"has": [(P, "dortiz")], "no_event": True}),
    ("allergic", ["I'm allergic to peanuts"], {"has": [(P, "allergic to peanuts")], "no_event": True}),
    ("we-switched-tools", ["We use Jira for tickets", "We switched from Jira to Linear"],
     {"has": [(ANY, "Linear")], "lacks": [(ANY, "- Uses Jira")], "no_event": True}),
    ("question-switch", ["Should I switch from Vim to Helix?"], {"nothing": True}),
    ("conditional-we", ["If we move CI to Buildkite, update the docs"], {"nothing": True}),
    ("hypothetical-keeps-value", ["My editor is Vim", "What if I switched to Emacs?"],
     {"has": [(P, "Editor: Vim")], "lacks": [(ANY, "Emacs")]}),
    ("might", ["I might switch to Emacs next year"], {"lacks": [(P, "Editor: Emacs")]}),
    ("three-clauses", ["My editor is Vim and my shell is fish, and I work at Acme"],
     {"has": [(P, "Editor: Vim"), (P, "Shell: fish"), (P, "Works at Acme")], "no_event": True}),
    ("dash-boundary", ["My editor is Vim - my shell is fish"], {"has": [(P, "Editor: Vim"), (P, "Shell: fish")], "no_event": True}),
    ("two-sentences", ["I work at Acme. My role is SRE."], {"has": [(P, "Works at Acme"), (P, "Role: SRE")], "no_event": True}),
    ("love-but-cant-stand", ["I love Rust but I can't stand Java"],
     {"has": [(PREF, "Loves Rust"), (PREF, "Java")], "lacks": [(PREF, "- Likes Java"), (PREF, "- Loves Java")], "no_event": True}),
    ("really-like", ["I really like pair programming"], {"has": [(PREF, "pair programming")], "no_event": True}),
    ("not-a-fan", ["I'm not a fan of long meetings"],
     {"has": [(PREF, "long meetings")], "lacks": [(PREF, "- Likes long meetings")], "no_event": True}),
    ("preferred-now", ["My preferred test runner is pytest", "My preferred test runner is now ward"],
     {"has": [(P, "test runner: ward")], "lacks": [(P, "test runner: pytest")], "no_event": True}),
    ("birthday", ["My birthday is March 3"], {"has": [(P, "March 3")], "no_event": True}),
    ("remember-rate-limit", ["Remember that the API rate limit is 100 requests per minute"],
     {"has": [(ENT, "100 requests per minute")], "no_event": True}),
    ("remember-owner", ["Remember that Bob owns the billing service"], {"has": [(ENT, "Bob")], "no_event": True}),
    ("note-that-corrected", ["Note that the prod cluster is in eu-west-1", "Actually the prod cluster is in eu-central-1"],
     {"has": [(ENT, "eu-central-1")], "lacks": [(ENT, "eu-west-1")], "no_event": True}),
    ("go-by", ["I go by Sam"], {"has": [(P, "Sam")], "no_event": True}),
    ("pronouns", ["My pronouns are she/her"], {"has": [(P, "she/her")], "no_event": True}),
    ("prefer-over-then-flip", ["I prefer Python over Go", "Actually I prefer Go over Python now"],
     {"has": [(PREF, "Prefers Go")], "lacks": [(PREF, "- Prefers Python")], "no_event": True}),
    ("dislike", ["I dislike long commit messages"], {"has": [(PREF, "long commit messages")], "lacks": [(PREF, "- Likes long")], "no_event": True}),
    ("work-from", ["I work from home on Fridays"], {"has": [(ANY, "home on Fridays")], "no_event": True}),
    ("team-uses", ["Our team uses trunk-based development"], {"has": [(ANY, "trunk-based development")], "no_event": True}),
    ("no-longer-at-now-at", ["I work at Acme", "I left Acme and now work at Initech"],
     {"has": [(P, "Works at Initech")], "lacks": [(P, "- Works at Acme")], "no_event": True}),
    ("os", ["I'm on macOS", "I'm on Linux now"], {"has": [(P, "Linux")], "lacks": [(P, "macOS")], "no_event": True}),
    ("language-native", ["My native language is Portuguese"], {"has": [(P, "Native language: Portuguese")], "no_event": True}),
    ("past-event-stays", ["I deployed the billing service to production yesterday"], {"has": [("events/*", "billing service")]}),
    ("quoted-other-person", ["My manager said her editor is Emacs"], {"lacks": [(P, "Editor: Emacs")]}),
]

# Written after the rules had been changed on the tune part above (2026-12-03) and read once
# (25 / 27); the rules were then changed on what it showed, so it is tuned on now.
FRESH: list[tuple[str, list[str], dict]] = [
    ("switched-over", ["My editor is Sublime Text", "I've switched over from Sublime Text to VS Code"],
     {"has": [(P, "Editor: VS Code")], "lacks": [(P, "Editor: Sublime Text")], "no_event": True}),
    ("team-moved-tool", ["I use Poetry for Python packaging", "We moved from Poetry to uv"],
     {"has": [(ANY, "uv")], "lacks": [(ANY, "- Uses Poetry")], "no_event": True}),
    ("call-me-from-now-on", ["Call me Alex from now on"], {"has": [(P, "Alex")], "no_event": True}),
    ("located-relocated", ["I'm located in Toronto", "I recently relocated to Vancouver"],
     {"has": [(P, "Vancouver")], "lacks": [(P, "Toronto")], "no_event": True}),
    ("please-always", ["Please always write commit messages in the imperative mood"], {"has": [(PREF, "imperative mood")], "no_event": True}),
    ("dont-ever", ["Don't ever add emojis to code comments"], {"has": [(PREF, "emojis")], "no_event": True}),
    ("cant-stand", ["I can't stand trailing whitespace"],
     {"has": [(PREF, "trailing whitespace")], "lacks": [(PREF, "- Likes")], "no_event": True}),
    ("big-fan", ["I'm a big fan of property-based testing"], {"has": [(PREF, "property-based testing")], "no_event": True}),
    ("over-flipped", ["I prefer Postgres over MySQL", "I prefer MySQL over Postgres now"],
     {"has": [(PREF, "Prefers MySQL")], "lacks": [(PREF, "- Prefers Postgres")], "no_event": True}),
    ("backups-nightly", ["Remember that the prod database backups run nightly at 2am"], {"has": [(ENT, "nightly")], "no_event": True}),
    ("cache-corrected", ["Our Redis cache is at cache.internal:6379", "Actually our Redis cache is at cache2.internal:6379"],
     {"has": [(ENT, "cache2.internal")], "lacks": [(ENT, "cache.internal:6379")], "no_event": True}),
    ("gateway-migrated", ["Our API gateway runs on Kong", "We migrated the API gateway to Envoy"],
     {"has": [(ENT, "Envoy")], "lacks": [(ENT, "- Runs on Kong")], "no_event": True}),
    ("since-aside", ["My editor is Vim, since I live in the terminal"], {"has": [(P, "- Editor: Vim")], "lacks": [(P, "since")], "no_event": True}),
    ("em-dash", ["My shell is fish \u2014 my terminal is Alacritty"],
     {"has": [(P, "Shell: fish"), (P, "Terminal: Alacritty")], "no_event": True}),
    ("stopped-then-now", ["I stopped using Slack, I use Discord now"],
     {"has": [(P, "Discord")], "lacks": [(P, "- Uses Slack")], "no_event": True}),
    ("quit-and-now", ["I work at Initech", "I quit Initech and now work at Hooli"],
     {"has": [(P, "Works at Hooli")], "lacks": [(P, "- Works at Initech")], "no_event": True}),
    ("request-question", ["Could you switch my editor to Emacs?"], {"nothing": True}),
    ("conditional-move", ["If I move to Berlin, remind me to change my timezone"], {"nothing": True}),
    ("colleague-told", ["My colleague told me her shell is zsh"], {"lacks": [(P, "Shell: zsh")]}),
    ("fixed-yesterday", ["I fixed the login bug yesterday"], {"has": [("events/*", "login bug")]}),
    ("deploy-every", ["We deploy every Tuesday"], {"has": [(ANY, "Tuesday")], "no_event": True}),
    ("moved-so-timezone", ["My timezone is PST", "I moved to London, so my timezone is GMT now"],
     {"has": [(P, "Timezone: GMT"), (P, "London")], "lacks": [(P, "Timezone: PST")], "no_event": True}),
    ("id-prefer-that", ["I'd prefer that you use British spelling"], {"has": [(PREF, "British spelling")], "no_event": True}),
    ("light-mode-day", ["I use light mode during the day"], {"has": [(ANY, "light mode")], "no_event": True}),
    ("manager-named", ["My manager is Priya"], {"has": [("entities/people/*", "Priya")], "no_event": True}),
    ("note-colon", ["Note: the VPN endpoint is vpn.acme.io"], {"has": [(ENT, "vpn.acme.io")], "no_event": True}),
    ("no-longer-remote", ["I no longer work remotely"], {"has": [(P, "remotely")], "no_event": True}),
]

# Written after the rules had been changed on all three parts above (2026-12-03, later) and read
# once (23 / 26); its misses were fixed afterwards, so it is tuned on now too.
FRESH2: list[tuple[str, list[str], dict]] = [
    ("gone-from-to", ["My IDE is IntelliJ", "I've gone from IntelliJ to VS Code"],
     {"has": [(P, "VS Code")], "lacks": [(P, "IntelliJ")], "no_event": True}),
    ("we-switched-to", ["I use npm", "We switched to pnpm"], {"has": [(ANY, "pnpm")]}),
    ("based-then-live-now", ["I'm based in Paris", "I live in Madrid now"],
     {"has": [(P, "Madrid")], "lacks": [(P, "Paris")], "no_event": True}),
    ("you-can-call-me", ["You can call me Liz"], {"has": [(P, "Liz")], "no_event": True}),
    ("never-commit", ["Never commit directly to the release branch"], {"has": [(PREF, "release branch")], "no_event": True}),
    ("always-run", ["Always run the formatter before pushing"], {"has": [(PREF, "formatter")], "no_event": True}),
    ("please-dont-add", ["Please don't add type: ignore comments"], {"has": [(PREF, "type: ignore")], "no_event": True}),
    ("not-a-big-fan", ["I'm not a big fan of ORMs"], {"has": [(PREF, "ORMs")], "lacks": [(PREF, "- Is a fan")], "no_event": True}),
    ("prefer-to", ["I prefer Go to Rust"], {"has": [(PREF, "Go")], "no_event": True}),
    ("lives-then-is-in", ["Our Kafka cluster lives in us-east-1", "Actually our Kafka cluster is in us-west-2 now"],
     {"has": [(ENT, "us-west-2")], "lacks": [(ENT, "us-east-1")], "no_event": True}),
    ("key-expires", ["Remember that the staging API key expires every 90 days"], {"has": [(ENT, "90 days")], "no_event": True}),
    ("migrated-db-from-to", ["We migrated our database from MySQL to Postgres"], {"has": [(ANY, "Postgres")], "no_event": True}),
    ("person-maintains", ["Carol maintains the deploy scripts"], {"has": [("entities/people/*", "deploy scripts")], "no_event": True}),
    ("role-and-manage", ["My role is tech lead, and I manage four engineers"],
     {"has": [(P, "Role: tech lead"), (P, "four engineers")], "no_event": True}),
    ("remote-from", ["I work remotely from Portugal"], {"has": [(P, "Portugal")], "no_event": True}),
    ("vegetarian", ["I'm a vegetarian"], {"has": [(P, "vegetarian")], "no_event": True}),
    ("dash-i-have", ["My favourite editor is Emacs \u2014 I've used it for 20 years"],
     {"has": [(P, "Favourite editor: Emacs")], "lacks": [(P, "20 years")], "no_event": True}),
    ("switching-next-month", ["My shell is zsh", "I'm switching to fish next month"], {"has": [(P, "Shell: zsh")]}),
    ("might-move", ["My shell is zsh", "I might move to fish"], {"has": [(P, "Shell: zsh")]}),
    ("ci-takes", ["The CI pipeline takes about 20 minutes"], {"has": [(ENT, "20 minutes")], "no_event": True}),
    ("replaced-with", ["We deploy with ArgoCD", "We replaced ArgoCD with Flux"],
     {"has": [(ANY, "Flux")], "lacks": [(ANY, "- Team deploys with ArgoCD")]}),
    ("no-longer-prefer", ["I prefer dark mode", "I no longer prefer dark mode"],
     {"has": [(PREF, "No longer prefers dark mode")], "lacks": [(PREF, "- Prefers dark mode")], "no_event": True}),
    ("manager-changed", ["My manager is Dana", "My manager is Sam now"],
     {"has": [("entities/people/*", "Sam")], "lacks": [("entities/people/dana.md", "- The user's manager")], "no_event": True}),
    ("staging-env-at", ["Our staging environment is at staging.acme.dev"], {"has": [(ENT, "staging.acme.dev")], "no_event": True}),
    ("code-mostly-in", ["I code mostly in TypeScript"], {"has": [(P, "TypeScript")], "no_event": True}),
    ("rotation-every-monday", ["Remember: our on-call rotation changes every Monday"], {"has": [(ANY, "every Monday")]}),
]

# Written after the second round of rules and the role fix fresh2 showed (2026-12-03, later
# still) and read once (26 / 26), by the rules' author: a new set by someone else is the next
# honest reading.
FRESH3: list[tuple[str, list[str], dict]] = [
    ("switched-last-week", ["My terminal is iTerm2", "I switched from iTerm2 to WezTerm last week"],
     {"has": [(P, "Terminal: WezTerm")], "lacks": [(P, "Terminal: iTerm2")], "no_event": True}),
    ("living-these-days", ["I'm living in Austin these days"], {"has": [(P, "Austin")], "no_event": True}),
    ("please-call-me", ["Please call me Sasha"], {"has": [(P, "Sasha")], "no_event": True}),
    ("never-force-push", ["Never force-push to shared branches"], {"has": [(PREF, "shared branches")], "no_event": True}),
    ("always-add", ["Always add a changelog entry"], {"has": [(PREF, "changelog entry")], "no_event": True}),
    ("dont-use-print", ["Don't use print statements for debugging"], {"has": [(PREF, "print statements")], "no_event": True}),
    ("cant-stand-flaky", ["I can't stand flaky tests"], {"has": [(PREF, "flaky tests")], "no_event": True}),
    ("huge-fan", ["I'm a huge fan of pair reviews"], {"has": [(PREF, "pair reviews")], "no_event": True}),
    ("over-corrected", ["I prefer pnpm over npm", "Actually I prefer npm over pnpm"],
     {"has": [(PREF, "Prefers npm")], "lacks": [(PREF, "- Prefers pnpm")], "no_event": True}),
    ("api-rate-limit", ["Remember that the billing API rate limit is 50 requests per second"],
     {"has": [(ENT, "50 requests per second")], "no_event": True}),
    ("port-corrected", ["Our Postgres database runs on port 5432", "Actually our Postgres database runs on port 6432"],
     {"has": [(ENT, "6432")], "lacks": [(ENT, "5432")], "no_event": True}),
    ("cache-moved", ["We moved the build cache to S3"], {"has": [(ENT, "S3")], "no_event": True}),
    ("person-leads", ["Eve leads the platform team"], {"has": [("entities/people/*", "platform team")], "no_event": True}),
    ("title-and-work-on", ["My job title is staff engineer, and I work on search"],
     {"has": [(P, "Job title: staff engineer"), (P, "search")], "no_event": True}),
    ("work-from-city", ["I work from Berlin"], {"has": [(P, "Berlin")], "no_event": True}),
    ("pronouns-they", ["My pronouns are they/them"], {"has": [(P, "they/them")], "no_event": True}),
    ("because-of", ["My go-to language is Python because of its ecosystem"],
     {"has": [(P, "Python")], "lacks": [(P, "because")], "no_event": True}),
    ("em-dash-also", ["My OS is Ubuntu \u2014 I also dual-boot Windows"],
     {"has": [(P, "Ubuntu")], "lacks": [(P, "Ubuntu \u2014")], "no_event": True}),
    ("question-we", ["Should we move CI to GitHub Actions?"], {"nothing": True}),
    ("when-clause", ["When the tests fail, I rerun them"], {"nothing": True}),
    ("lead-now", ["My lead is Omar", "My lead is Priya now"], {"has": [(ANY, "Priya")], "lacks": [(P, "Lead: Omar")], "no_event": True}),
    ("team-switched-last-month", ["Our team uses Jira", "We switched from Jira to Linear last month"],
     {"has": [(ANY, "Linear")], "lacks": [(ANY, "- Team uses Jira")]}),
    ("used-to", ["I used to use Vim"], {"lacks": [(P, "- Uses Vim")]}),
    ("deployed-today", ["I deployed the new search service today"], {"has": [("events/*", "search service")]}),
    ("dont-like-before", ["I don't like meetings before 10am"], {"has": [(PREF, "meetings before 10am")], "no_event": True}),
    ("project-now", ["My current project is Hermes", "My current project is Apollo now"],
     {"has": [("entities/projects/*", "Apollo")], "lacks": [("entities/projects/hermes.md", "- The user's current project")], "no_event": True}),
]


# Written 2026-12-04, blind, by a different author than the rules': without reading the
# extraction code, tests/test_memory_corrections.py or the cases above (only this module's
# docstring, its first lines and the functions below), as developers talk to a coding agent.
# Read once, untouched (14 / 30). The rules were then changed, with general rules, on what it
# showed (25 / 30 after: the misses left are "it" in "Scratch that, it's on port 5173", "tabs" kept
# in "No longer prefers tabs", and three texts kept as dated notes by design), so it is tuned on now.
FRESH4: list[tuple[str, list[str], dict]] = [
    ("f4-name-role-employer", ["Hi, I'm Priya Raman, a backend engineer at Stripe."],
     {"has": [(P, "Priya"), (ANY, "Stripe"), (ANY, "backend engineer")], "no_event": True}),
    ("f4-location-timezone", ["I'm based in Berlin, so I'm on CET."],
     {"has": [(P, "Berlin"), (ANY, "CET")], "no_event": True}),
    ("f4-pronouns", ["My pronouns are they/them."],
     {"has": [(P, "they/them")], "no_event": True}),
    ("f4-os-editor-languages", ["I'm on macOS and code in VS Code, mostly Go and TypeScript."],
     {"has": [(P, "macOS"), (P, "VS Code"), (ANY, "TypeScript")], "no_event": True}),
    ("f4-multi-clause-profile", ["I'm Tomás, I work remotely from Buenos Aires for a fintech called Ualá, and my daily driver is Arch with i3."],
     {"has": [(P, "Tomás"), (ANY, "Buenos Aires"), (ANY, "Ualá")], "no_event": True}),
    ("f4-pref-style", ["Please always use type hints and keep functions under 40 lines."],
     {"has": [(ANY, "type hints"), (ANY, "40 lines")], "no_event": True}),
    ("f4-pref-testing", ["When you write tests, use pytest, not unittest, and don't mock the database."],
     {"has": [(ANY, "pytest"), (ANY, "mock")], "no_event": True}),
    ("f4-pref-commits", ["I like small commits with conventional commit messages, like feat: and fix:."],
     {"has": [(ANY, "conventional commit")], "no_event": True}),
    ("f4-pref-avoid-tool", ["Never use npm in this repo, we use pnpm."],
     {"has": [(ANY, "pnpm")], "no_event": True}),
    ("f4-pref-pr-branch", ["Don't open PRs against main directly; always target the develop branch."],
     {"has": [(ANY, "develop")], "no_event": True}),
    ("f4-service-port", ["The billing service runs on port 8443 behind nginx on the staging box."],
     {"has": [(ANY, "8443")], "no_event": True}),
    ("f4-db-version", ["We're on Postgres 15 in production."],
     {"has": [(ANY, "Postgres 15")], "no_event": True}),
    ("f4-endpoint", ["Our internal API lives at https://api.internal.acme.dev/v2"],
     {"has": [(ANY, "api.internal.acme.dev")], "no_event": True}),
    ("f4-team-ownership", ["The payments team owns the ledger service, and Marco is the tech lead there."],
     {"has": [(ANY, "ledger"), (ANY, "payments"), (ANY, "Marco")], "no_event": True}),
    ("f4-actually-editor", ["I use Neovim for everything.", "Actually, I use Emacs these days."],
     {"has": [(P, "Emacs")], "lacks": [(P, "Neovim")], "no_event": True}),
    ("f4-not-anymore-employer", ["I work at Shopify.", "I don't work at Shopify anymore, I joined Datadog last month."],
     {"has": [(ANY, "Datadog")], "lacks": [(P, "Shopify")]}),
    ("f4-these-days-language", ["My main language is Java.", "These days I mostly write Kotlin."],
     {"has": [(ANY, "Kotlin")], "lacks": [(P, "Java")], "no_event": True}),
    ("f4-we-migrated-db", ["We use MySQL for the orders database.", "We migrated the orders database to Postgres in March."],
     {"has": [(ANY, "Postgres")], "lacks": [(P, "MySQL"), (PREF, "MySQL")]}),
    ("f4-scratch-that-port", ["The dev server runs on port 3000.", "Scratch that, it's on port 5173 now that we moved to Vite."],
     {"has": [(ANY, "5173")], "lacks": [(ANY, "port 3000")], "no_event": True}),
    ("f4-correction-timezone", ["My timezone is PST.", "Correction: I'm on Eastern time now, I moved to New York."],
     {"has": [(ANY, "Eastern"), (ANY, "New York")], "lacks": [(P, "PST")]}),
    ("f4-i-was-wrong-version", ["We run Node 18 on the build servers.", "I was wrong, the build servers are on Node 20."],
     {"has": [(ANY, "Node 20")], "lacks": [(ANY, "Node 18")], "no_event": True}),
    ("f4-since-last-week-role", ["I'm a frontend developer.", "Since last week I'm the team lead for the platform team."],
     {"has": [(ANY, "team lead")]}),
    ("f4-no-longer-os", ["I develop on Windows.", "Not on Windows anymore - I switched to Fedora Linux."],
     {"has": [(P, "Fedora")], "lacks": [(P, "Windows")], "no_event": True}),
    ("f4-pref-reversed", ["I prefer tabs for indentation.", "Actually I've come around to spaces, 4 spaces please."],
     {"has": [(ANY, "spaces")], "lacks": [(ANY, "tabs")], "no_event": True}),
    ("f4-ownership-moved", ["The search service is owned by the data team.", "Heads up: ownership of the search service moved to the platform team."],
     {"has": [(ANY, "platform team")], "lacks": [(ANY, "data team")]}),
    ("f4-question", ["What's the difference between a mutex and a semaphore?"],
     {"nothing": True}),
    ("f4-one-off-fix", ["Fix the failing test in test_auth.py please."],
     {"nothing": True}),
    ("f4-chit-chat", ["Thanks, that worked great! Have a good weekend."],
     {"nothing": True}),
    ("f4-one-off-run", ["Can you run the migrations and then restart the worker?"],
     {"nothing": True}),
    ("f4-venting", ["Ugh, this build is so slow today."],
     {"nothing": True}),
]


# Written blind on 2026-12-04 (author read neither the rules nor the other cases);
# sealed until the rules change of that day is done.
# Written 2026-12-04, blind, by a third author who read neither the rules, nor the table test,
# nor the case lists above; sealed (kept in a file of its own, unread by whoever changed the
# rules) until the rules change made on FRESH4 was done, then run once on the rules before and
# after that change. Thirds: facts about the user, working preferences, project and system facts,
# about half of each third corrections over two or three steps; no `nothing` checks (an explicit
# remember keeps what it cannot read as a dated note, by design).
FRESH5: list[tuple[str, list[str], dict]] = [
    # --- standing facts about the user ---
    ("f5-self-based-in", ["I'm based in Lisbon, so my timezone is WET"],
     {"has": [(ANY, "Lisbon")], "no_event": True}),
    ("f5-self-work-as", ["I work as a backend engineer at a fintech startup"],
     {"has": [(P, "backend engineer")], "no_event": True}),
    ("f5-self-first-language", ["My first language is Portuguese, English is my second"],
     {"has": [(ANY, "Portuguese")], "no_event": True}),
    ("f5-self-fyi-shell", ["fyi I use fish as my shell"],
     {"has": [(ANY, "fish")], "no_event": True}),
    ("f5-self-machine", ["I'm on an M2 MacBook Air"],
     {"has": [(ANY, "MacBook")], "no_event": True}),
    # corrections
    ("f5-self-editor-actually",
     ["I use VS Code for everything", "Actually, I've moved over to JetBrains Rider"],
     {"has": [(ANY, "Rider")], "lacks": [(P, "VS Code")]}),
    ("f5-self-city-update",
     ["I live in Berlin", "Update: I moved to Amsterdam last month"],
     {"has": [(ANY, "Amsterdam")], "lacks": [(P, "Berlin")]}),
    ("f5-self-surname-scratch",
     ["My name is Sam Ortiz", "Scratch that - my last name is Ortega"],
     {"has": [(ANY, "Ortega")], "lacks": [(P, "Ortiz")], "no_event": True}),
    ("f5-self-team-these-days",
     ["I'm on the payments team", "These days I'm on the platform team"],
     {"has": [(ANY, "platform")], "lacks": [(P, "payments team")], "no_event": True}),
    ("f5-self-experience-was-wrong",
     ["I've got about 5 years of Go experience",
      "I was wrong earlier, it's closer to 8 years of Go",
      "and around 3 years of Rust"],
     {"has": [(ANY, "8 years"), (ANY, "Rust")], "lacks": [(P, "5 years")], "no_event": True}),
    # --- working preferences / instructions ---
    ("f5-pref-when-commit", ["When you write commit messages, use the conventional commits format"],
     {"has": [(PREF, "conventional commit")], "no_event": True}),
    ("f5-pref-dont-emoji", ["Please don't put emojis in code comments"],
     {"has": [(PREF, "emoji")], "no_event": True}),
    ("f5-pref-rather-pytest", ["I'd rather you use pytest fixtures than unittest setUp methods"],
     {"has": [(PREF, "pytest")], "no_event": True}),
    ("f5-pref-going-forward-hints", ["Going forward, always add type hints to new Python functions"],
     {"has": [(PREF, "type hint")], "no_event": True}),
    ("f5-pref-ask-before-deps", ["Ask me before adding any new dependency to the project"],
     {"has": [(PREF, "dependenc")], "no_event": True}),
    # corrections
    ("f5-pref-indent-changed-mind",
     ["I prefer tabs for indentation", "Changed my mind, I prefer 2 spaces for indentation"],
     {"has": [(PREF, "2 spaces")], "lacks": [(PREF, "tabs")], "no_event": True}),
    ("f5-pref-quotes-actually",
     ["Use single quotes in JavaScript",
      "Actually, use double quotes in JavaScript, it matches prettier's default"],
     {"has": [(PREF, "double quotes")], "lacks": [(PREF, "single quotes")], "no_event": True}),
    ("f5-pref-answers-no-wait",
     ["Keep your answers short, bullet points only",
      "No wait, I'd rather get full explanations with your reasoning",
      "but keep code blocks minimal"],
     {"has": [(PREF, "explanation"), (PREF, "code block")],
      "lacks": [(PREF, "bullet points only")], "no_event": True}),
    ("f5-pref-rebase-not-anymore",
     ["Always rebase feature branches onto main instead of merging",
      "I don't want you rebasing anymore, just merge main into the branch"],
     {"has": [(PREF, "merge")], "lacks": [(PREF, "always rebase")], "no_event": True}),
    ("f5-pref-test-runner-update",
     ["Write the frontend tests with Jest",
      "Update: we've switched to Vitest, please write the tests with that"],
     {"has": [(ANY, "Vitest")], "lacks": [(PREF, "Jest")]}),
    # --- project / system facts ---
    ("f5-proj-broker", ["Our message broker is RabbitMQ, running on port 5672"],
     {"has": [(ANY, "RabbitMQ")], "no_event": True}),
    ("f5-proj-staging-host", ["Staging lives at staging.acme-internal.net"],
     {"has": [(ANY, "staging.acme-internal.net")], "no_event": True}),
    ("f5-proj-owner", ["Priya owns the billing service"],
     {"has": [(ANY, "Priya"), (ANY, "billing")], "no_event": True}),
    ("f5-proj-ci", ["Our CI runs on GitHub Actions with self-hosted runners"],
     {"has": [(ANY, "GitHub Actions")], "no_event": True}),
    ("f5-proj-where-workers-run", ["We deploy the background workers to Fly.io, ams region"],
     {"has": [(ANY, "Fly.io")], "no_event": True}),
    # corrections
    ("f5-proj-port-correction",
     ["The API gateway runs on port 8080", "Correction: the gateway is on port 8443"],
     {"has": [(ANY, "8443")], "lacks": [(ANY, "8080")], "no_event": True}),
    ("f5-proj-python-since-moved",
     ["The backend runs on Python 3.10", "We've since moved the backend to Python 3.12"],
     {"has": [(ANY, "3.12")], "lacks": [(P, "3.10"), (ENT, "3.10")]}),
    ("f5-proj-owner-not-anymore",
     ["Marco is the owner of the search service",
      "Marco doesn't own search anymore, Dana took it over"],
     {"has": [(ANY, "Dana")], "lacks": [(ANY, "Marco is the owner")]}),
    ("f5-proj-redis-scratch",
     ["Redis is at cache-01.internal:6379", "Scratch that, Redis is at cache-02.internal"],
     {"has": [(ANY, "cache-02")], "lacks": [(ANY, "cache-01")], "no_event": True}),
    ("f5-proj-region-three-steps",
     ["Production runs in us-east-1",
      "No wait, production is in eu-west-1",
      "Actually it's eu-central-1; eu-west-1 is only the DR region"],
     {"has": [(ANY, "eu-central-1")], "lacks": [(ANY, "us-east-1")], "no_event": True}),
]


# Written blind on 2026-12-05 by an author who had read neither the rules, nor the tests, nor the
# cases above, and kept sealed while the rules changed (fresh5's misses, a review's nine defects);
# run once on the rules before and after that change (docs/benchmarks.md).
FRESH6: list[tuple[str, list[str], dict]] = [
    # ---------------- standing facts about the user (10) ----------------
    ("f6-fact-name-role",
     ["hey, I'm Priyanka — backend lead at Northwind Logistics, mostly writing Kotlin these days"],
     {"has": [("profile.md", "Priyanka"), ("profile.md", "Northwind"), ("*", "Kotlin")],
      "no_event": True}),
    ("f6-fact-location-casual",
     ["fyi im based in lisbon so my evenings are your afternoons if you're in the US"],
     {"has": [("profile.md", "Lisbon")], "no_event": True}),
    ("f6-fact-editor",
     ["btw my editor is Helix, keybindings and all"],
     {"has": [("*", "Helix")], "no_event": True}),
    ("f6-fact-shell-terminal",
     ["Shell's fish, terminal is WezTerm, fwiw."],
     {"has": [("*", "fish"), ("*", "WezTerm")], "no_event": True}),
    ("f6-fact-languages-typo",
     ["i mostly write rust, plus some pyhton for glue scripts"],
     {"has": [("*", "rust")], "no_event": True}),
    ("f6-fact-freelance-client",
     ["Quick context: I freelance. The current client is Halvorsen Bank, I'm doing their payments backend."],
     {"has": [("*", "Halvorsen")], "no_event": True}),
    ("f6-fact-nickname",
     ["My full name is Julien Marchetti but everyone calls me Jules, so go with that"],
     {"has": [("profile.md", "Jules")], "no_event": True}),
    ("f6-fact-hours-tz",
     ["I work roughly 7am to 3pm Pacific time, so anything async should be ready by then"],
     {"has": [("*", "Pacific")], "no_event": True}),
    ("f6-fact-team-manager",
     ["I'm on the platform team (six engineers) and I report to Dana Okafor"],
     {"has": [("*", "platform"), ("*", "Okafor")], "no_event": True}),
    ("f6-fact-mood-plus-role",
     ["so tired today lol. anyway, for context I'm the tech lead on the mobile app, iOS side mostly"],
     {"has": [("*", "mobile"), ("*", "iOS")], "lacks": [("*", "tired")], "no_event": True}),

    # ---------------- working preferences / standing instructions (8) ----------------
    ("f6-pref-clippy",
     ["always run `cargo clippy -- -D warnings` before you tell me something is done"],
     {"has": [("preferences/*", "clippy")], "no_event": True}),
    ("f6-pref-no-force-push",
     ["never force-push to a shared branch, even if the history would be cleaner"],
     {"has": [("preferences/*", "force")], "no_event": True}),
    ("f6-pref-no-emoji-commits",
     ["don't put emoji in commit messages pls"],
     {"has": [("preferences/*", "emoji")], "no_event": True}),
    ("f6-pref-pnpm",
     ["Please use pnpm in the JS repos."],
     {"has": [("preferences/*", "pnpm")], "no_event": True}),
    ("f6-pref-conventional-commits",
     ["Conventional Commits for everything, with the scope in parens, e.g. fix(auth): ..."],
     {"has": [("preferences/*", "conventional")], "no_event": True}),
    ("f6-pref-small-prs",
     ["I like PRs small — under ~300 lines of diff if you can manage it"],
     {"has": [("preferences/*", "300")], "no_event": True}),
    ("f6-pref-terse-bullets",
     ["keep explanations short. bullet points > paragraphs"],
     {"has": [("preferences/*", "bullet")], "no_event": True}),
    ("f6-pref-vendored",
     ["The vendored/ directory is generated — don't ever edit files in there by hand."],
     {"has": [("*", "vendored")], "no_event": True}),

    # ---------------- corrections over 2–3 statements (6) ----------------
    ("f6-corr-city-moved",
     ["I live in Munich.",
      "actually we moved to Rotterdam last month, I keep forgetting to update people"],
     {"has": [("profile.md", "Rotterdam")], "lacks": [("profile.md", "Munich")]}),
    ("f6-corr-editor-wait-no",
     ["my editor is Sublime Text",
      "wait no, that's old — I switched to Emacs (doom) a while ago"],
     {"has": [("*", "Emacs")], "lacks": [("profile.md", "Sublime")]}),
    ("f6-corr-employer",
     ["I'm an SRE at Brightwave.",
      "Correction: I left Brightwave in the spring. I'm at Kestrel Labs now, same kind of role."],
     {"has": [("profile.md", "Kestrel")], "lacks": [("profile.md", "Brightwave")]}),
    ("f6-corr-pkg-manager-3step",
     ["use yarn for installing deps in the web repo",
      "hmm, actually npm is fine there",
      "ok final answer: we standardized on bun across the web repos, so use bun"],
     {"has": [("preferences/*", "bun")], "lacks": [("preferences/*", "yarn")]}),
    ("f6-corr-shell-not-anymore",
     ["default shell is zsh with oh-my-zsh",
      "zsh — not anymore, I'm on nushell now"],
     {"has": [("*", "nushell")], "lacks": [("profile.md", "zsh")]}),
    ("f6-corr-billing-postgres",
     ["the billing service runs on Postgres 13",
      "as of last weekend billing is on Postgres 16, the upgrade went through"],
     {"has": [("entities/*", "16")], "lacks": [("entities/*", "Postgres 13")]}),

    # ---------------- facts about systems / projects (3) ----------------
    ("f6-sys-api-gateway",
     ["our API gateway runs on Kong, deployed to EKS in eu-west-1"],
     {"has": [("entities/*", "Kong"), ("*", "eu-west-1")], "no_event": True}),
    ("f6-sys-billing-owner",
     ["The billing service is owned by the Payments Core team; their on-call lives in PagerDuty under pc-billing."],
     {"has": [("entities/*", "Payments Core")], "no_event": True}),
    ("f6-sys-ci",
     ["fyi the monorepo's CI runs on Buildkite and the deploys go through ArgoCD"],
     {"has": [("*", "Buildkite"), ("*", "ArgoCD")], "no_event": True}),

    # ---------------- must NOT become standing memories (3) ----------------
    ("f6-none-question",
     ["what's the actual difference between `git rebase --onto` and a plain rebase?"],
     {"nothing": True}),
    ("f6-none-pasted-traceback",
     [("Traceback (most recent call last):\n"
      "  File \"app/main.py\", line 42, in <module>\n"
      "    handle(request)\n"
      "  File \"app/handlers.py\", line 17, in handle\n"
      "    uid = payload[\"user_id\"]\n"
      "KeyError: 'user_id'")],
     {"nothing": True}),
    ("f6-none-chitchat",
     ["ugh that test is flaky again. rerun it? brb grabbing coffee"],
     {"nothing": True}),
]


# Written blind on 2026-12-05 by a third author who had read neither the rules, nor the tests, nor
# the cases above, and kept sealed while the rules changed (states of the moment, tasks for now,
# casual typing, corrections in other words); run once before and once after (docs/benchmarks.md).
FRESH7: list[tuple[str, list[str], dict]] = [
    # ---------------- standing facts about the user (10) ----------------
    ("f7-fact-name", ["hey, I'm Priyanka, Pri is fine too"],
     {"has": [("*", "Priyanka")], "no_event": True}),
    ("f7-fact-employer-role", ["I'm a staff SRE at Datadog, mostly on the metrics ingestion side"],
     {"has": [("*", "Datadog"), ("*", "SRE")], "no_event": True}),
    ("f7-fact-editor", ["btw i use neovim for evrything, so skip the vscode-specific tips"],
     {"has": [("*", "neovim")], "no_event": True}),
    ("f7-fact-shell", ["My shell is fish, not bash. Keep that in mind when you give me one-liners."],
     {"has": [("*", "fish")], "no_event": True}),
    ("f7-fact-languages", ["these days I write mostly Elixir, with a bit of Rust on the side"],
     {"has": [("*", "Elixir"), ("*", "Rust")], "no_event": True}),
    ("f7-fact-timezone", ["timezone is America/Denver fwiw"],
     {"has": [("profile.md", "Denver")], "no_event": True}),
    ("f7-fact-location", ["fyi I'm based in Lisbon"],
     {"has": [("profile.md", "Lisbon")], "no_event": True}),
    ("f7-fact-team-lead", ["I'm the tech lead for the payments team at Klarna."],
     {"has": [("*", "Klarna"), ("*", "payments")], "no_event": True}),
    ("f7-fact-machine", ["I'm on an M2 MacBook Air with 16GB, so don't suggest anything that needs a big local GPU"],
     {"has": [("*", "MacBook")], "no_event": True}),
    ("f7-fact-pronouns", ["for the record my pronouns are they/them"],
     {"has": [("*", "they/them")], "no_event": True}),

    # ---------------- working preferences / standing instructions (8) ----------------
    ("f7-pref-format", ["Always run `mix format` before you tell me something is done."],
     {"has": [("preferences/*", "mix format")], "no_event": True}),
    ("f7-pref-no-push-main", ["never push straight to main, open a PR instead"],
     {"has": [("preferences/*", "main")], "no_event": True}),
    ("f7-pref-comments", ["don't add comments that just restate what the code does"],
     {"has": [("preferences/*", "comment")], "no_event": True}),
    ("f7-pref-uv", ["please use uv for python envs and deps, not pip + venv"],
     {"has": [("preferences/*", "uv")], "no_event": True}),
    ("f7-pref-conventional", ["Commit messages in conventional commits style pls (feat:, fix:, chore: ...)"],
     {"has": [("preferences/*", "conventional")], "no_event": True}),
    ("f7-pref-tabs", ["tabs over spaces for me, always"],
     {"has": [("preferences/*", "tab")], "no_event": True}),
    ("f7-pref-pytest", ["pytest, not unittest. plain asserts, fixtures over setUp/tearDown."],
     {"has": [("preferences/*", "pytest")], "no_event": True}),
    ("f7-pref-terraform", ["dont ever run `terraform apply` yourself — show me the plan and I'll apply it"],
     {"has": [("preferences/*", "terraform apply")], "no_event": True}),

    # ---------------- corrections over 2-3 statements (6) ----------------
    ("f7-corr-editor", ["My editor is VS Code.",
                        "wait no, I use Zed now, switched a couple of weeks ago"],
     {"has": [("*", "Zed")],
      "lacks": [("profile.md", "VS Code"), ("preferences/*", "VS Code")]}),
    ("f7-corr-employer", ["I work at Shopify on the checkout team",
                          "correction: I'm at Stripe now, changed jobs in the spring"],
     {"has": [("profile.md", "Stripe")], "lacks": [("profile.md", "Shopify")]}),
    ("f7-corr-location", ["I'm in London, so GMT for meeting times",
                          "not anymore - we relocated to Toronto in March"],
     {"has": [("profile.md", "Toronto")], "lacks": [("profile.md", "London")]}),
    ("f7-corr-languages-3step", ["I mostly write Kotlin",
                                 "and some TypeScript for the admin frontend",
                                 "scratch the frontend part, that got handed to another team. it's just Kotlin for me"],
     {"has": [("*", "Kotlin")], "lacks": [("profile.md", "TypeScript")]}),
    ("f7-corr-owner", ["the billing service is owned by team Falcon",
                       "as of last sprint billing belongs to team Osprey"],
     {"has": [("entities/*", "Osprey")], "lacks": [("entities/*", "Falcon")]}),
    ("f7-corr-line-length", ["max line length in our repo is 100",
                             "we bumped that to 120 last week"],
     {"has": [("*", "120")],
      "lacks": [("preferences/*", "100"), ("entities/*", "100")]}),

    # ---------------- facts about systems / projects (3) ----------------
    ("f7-sys-gateway", ["our API gateway runs on Kong, deployed on EKS in us-east-1"],
     {"has": [("entities/*", "Kong")], "no_event": True}),
    ("f7-sys-notifications-owner", ["the notifications service is owned by team Hermes, ping #notif-eng for anything there"],
     {"has": [("entities/*", "Hermes")], "no_event": True}),
    ("f7-sys-build", ["fyi the monorepo builds with Bazel and CI is on Buildkite"],
     {"has": [("*", "Bazel"), ("*", "Buildkite")], "no_event": True}),

    # ---------------- must NOT be kept (3) ----------------
    ("f7-none-question", ["how do I undo the last git commit but keep the changes staged?"],
     {"nothing": True}),
    ("f7-none-momentary", ["ugh this test is flaky again, just rerun it"],
     {"nothing": True}),
    ("f7-none-pasted", ["here's what I get:\nTypeError: Cannot read properties of undefined (reading 'map')\n    at UserList (src/components/UserList.tsx:42:18)\n    at renderWithHooks (react-dom.development.js:14985:18)"],
     {"nothing": True}),
]


# An eighth part (:data:`FRESH8`), written blind by the author of the rules' next round before reading
# their code, and held back: no rule may be fixed on one of its cases by name. First run on main at
# 5007f36 (before that round's rules): 16/30; still 16/30 after it (8d26e90). Read for the round
# after (mem18b), whose rules were written for the classes its misses showed: 30/30, a tuned figure.
FRESH8: list[tuple[str, list[str], dict]] = [
    # ---------------- who the user is (6) ----------------
    ("f8-id-name-role", ["Hi! Name's Oluwaseun, I'm a frontend dev on the growth squad"],
     {"has": [("profile.md", "Oluwaseun")], "no_event": True}),
    ("f8-id-employer", ["I work for Mercado Libre, in the logistics org"],
     {"has": [("profile.md", "Mercado Libre")], "no_event": True}),
    ("f8-id-city-tz", ["I live in Montreal so expect replies on Eastern time"],
     {"has": [("profile.md", "Montreal")], "no_event": True}),
    ("f8-id-github", ["my github username is k-nakamura if you need it for the CODEOWNERS file"],
     {"has": [("*", "k-nakamura")], "no_event": True}),
    ("f8-id-years", ["I've been writing Go professionally for about six years"],
     {"has": [("*", "Go")], "no_event": True}),
    ("f8-id-accessibility", ["I'm colorblind (deuteranopia), so don't rely on red vs green in diagrams"],
     {"has": [("*", "colorblind")], "no_event": True}),

    # ---------------- tools, editor, shell (5) ----------------
    ("f8-tool-editor", ["I'm a JetBrains person, IntelliJ for everything"],
     {"has": [("*", "IntelliJ")], "no_event": True}),
    ("f8-tool-shell", ["shell: zsh with oh-my-zsh"],
     {"has": [("*", "zsh")], "no_event": True}),
    ("f8-tool-terminal", ["My terminal is WezTerm and I run everything inside tmux"],
     {"has": [("*", "WezTerm")], "no_event": True}),
    ("f8-tool-pkg", ["we use pnpm in this repo, never npm or yarn"],
     {"has": [("*", "pnpm")], "no_event": True}),
    ("f8-tool-os", ["I'm on Arch, btw"],
     {"has": [("profile.md", "Arch")], "no_event": True}),

    # ---------------- team practices / preferences (6) ----------------
    ("f8-team-squash", ["We always squash-merge PRs here"],
     {"has": [("*", "squash")], "no_event": True}),
    ("f8-team-review", ["Every PR needs two approvals before it can merge"],
     {"has": [("*", "two approvals")], "no_event": True}),
    ("f8-pref-short", ["keep your answers short, I'll ask if I need more detail"],
     {"has": [("preferences/*", "short")], "no_event": True}),
    ("f8-pref-no-mocks", ["I prefer integration tests against a real Postgres over mocking the DB"],
     {"has": [("preferences/*", "integration tests")], "no_event": True}),
    ("f8-pref-fragment", ["early returns over nested ifs"],
     {"has": [("preferences/*", "early returns")], "no_event": True}),
    ("f8-pref-dont-touch", ["Don't touch the generated files under src/gen/, they're overwritten by protoc"],
     {"has": [("preferences/*", "src/gen")], "no_event": True}),

    # ---------------- corrections over time (6) ----------------
    ("f8-corr-editor", ["I use Emacs", "moved to Neovim a while ago actually"],
     {"has": [("profile.md", "Neovim")], "lacks": [("profile.md", "Emacs")]}),
    ("f8-corr-employer", ["I'm an engineer at Spotify", "I left Spotify last month, now I'm at Canva"],
     {"has": [("profile.md", "Canva")], "lacks": [("profile.md", "Spotify")]}),
    ("f8-corr-city", ["I'm based in Madrid", "we moved to Valencia over the summer"],
     {"has": [("profile.md", "Valencia")], "lacks": [("profile.md", "Madrid")]}),
    ("f8-corr-shell", ["My shell is zsh", "switched to fish last week, zsh is gone"],
     {"has": [("profile.md", "fish")], "lacks": [("profile.md", "Shell: zsh")]}),
    ("f8-corr-db-version", ["The orders service uses MySQL 5.7", "we finally upgraded the orders service to MySQL 8"],
     {"has": [("entities/*", "MySQL 8")], "lacks": [("entities/*", "5.7")]}),
    ("f8-corr-name", ["My name is Katherine", "Actually call me Kate, nobody uses Katherine"],
     {"has": [("profile.md", "Kate")], "no_event": True}),

    # ---------------- project facts / events (3) ----------------
    ("f8-proj-deploy", ["Staging deploys automatically from the develop branch"],
     {"has": [("*", "develop")], "no_event": True}),
    ("f8-proj-owner", ["The search service is owned by Priya's team"],
     {"has": [("entities/*", "Priya")], "no_event": True}),
    ("f8-event-incident", ["We had an outage on the checkout API last night, root cause was an expired TLS cert"],
     {"has": [("events/*", "TLS cert")]}),

    # ---------------- non-English (2) ----------------
    ("f8-intl-es-editor", ["Uso Neovim como editor"],
     {"has": [("*", "Neovim")], "no_event": True}),
    ("f8-intl-de-name", ["Ich heiße Jörg und arbeite bei SAP"],
     {"has": [("*", "Jörg")], "no_event": True}),

    # ---------------- must NOT be kept (2) ----------------
    ("f8-none-thanks", ["thanks, that worked! can you also fix the lint warnings?"],
     {"nothing": True}),
    ("f8-none-hypothetical", ["if I were using Emacs, how would I bind this to a key?"],
     {"nothing": True}),
]


# A ninth part (:data:`FRESH9`), written blind on 2026-12-06 by a helper who read neither the rules'
# code nor fresh4-fresh8's cases (two of fresh8's lines for the format), and held back: no rule may
# be fixed on one of its cases by name. First run on main at 8d26e90: see docs/benchmarks.md.
FRESH9: list[tuple[str, list[str], dict]] = [
    # ---------------- who the user is (2) ----------------
    ("f9-id-name-lead", ["I'm Ingrid Halvorsen, tech lead for the billing platform team"],
     {"has": [(P, "Ingrid Halvorsen"), (P, "tech lead")], "no_event": True}),
    ("f9-id-city-lower", ["im based in singapore, UTC+8"],
     {"has": [(P, "Singapore")], "no_event": True}),
    # ---------------- tools, editor, shell, OS (4) ----------------
    ("f9-tool-editor", ["I use VS Code with the Vim keybindings"],
     {"has": [(P, "VS Code")], "no_event": True}),
    ("f9-tool-os", ["I'm on a MacBook Pro (M2) running macOS Sonoma"],
     {"has": [(P, "macOS")], "no_event": True}),
    ("f9-tool-shell-lower", ["my shell is nushell btw"],
     {"has": [(P, "nushell")], "no_event": True}),
    ("f9-tool-pnpm-never-npm", ["I use pnpm, never npm"],
     {"has": [(ANY, "pnpm")], "no_event": True}),
    # ---------------- languages and versions (2) ----------------
    ("f9-lang-python", ["We're on Python 3.12 across all our services"],
     {"has": [(ANY, "Python 3.12")], "no_event": True}),
    ("f9-lang-node", ["The frontend targets Node 20 LTS"],
     {"has": [(ANY, "Node 20")], "no_event": True}),
    # ---------------- team practices (2) ----------------
    ("f9-team-conventional", ["We use conventional commits (feat:, fix:, chore: prefixes)"],
     {"has": [(ANY, "conventional commits")], "no_event": True}),
    ("f9-team-approvals", ["Every PR needs two approvals before it can be merged"],
     {"has": [(ANY, "two approvals")], "no_event": True}),
    # ---------------- project facts (3) ----------------
    ("f9-proj-port", ["The auth service runs on port 8443 locally"],
     {"has": [(ANY, "8443")], "no_event": True}),
    ("f9-proj-host", ["Staging DB is at pg-staging.internal:5432"],
     {"has": [(ANY, "pg-staging.internal")], "no_event": True}),
    ("f9-proj-deadline", ["Heads up: the v2 API freeze is January 15, 2027"],
     {"has": [(ANY, "API freeze")]}),
    # ---------------- preferences (4) ----------------
    ("f9-pref-terse-lower", ["keep answers short"],
     {"has": [(PREF, "short")], "no_event": True}),
    ("f9-pref-polite-question", ["Could you please always run the linter before you tell me something is done?"],
     {"has": [(PREF, "linter")], "no_event": True}),
    ("f9-pref-never", ["Never add emojis to commit messages"],
     {"has": [(PREF, "emoji")], "no_event": True}),
    ("f9-pref-typo-nopunct", ["pls dont add semicolons in our js files"],
     {"has": [(PREF, "semicolons")], "no_event": True}),
    # ---------------- corrections over time (4) ----------------
    ("f9-corr-actually", ["My editor is Sublime Text", "Actually, I use Helix these days, not Sublime"],
     {"has": [(P, "Helix")], "lacks": [(P, "Editor: Sublime")], "no_event": True}),
    ("f9-corr-employer", ["I work at Shopify", "I left Shopify, I'm at Datadog now"],
     {"has": [(P, "Datadog")], "lacks": [(P, "Works at Shopify")], "no_event": True}),
    ("f9-corr-scratch-that", ["Use tabs for indentation", "scratch that, use 4 spaces"],
     {"has": [(PREF, "4 spaces")], "lacks": [(PREF, "use tabs")]}),
    ("f9-corr-upgraded", ["We're on Postgres 14", "we upgraded to Postgres 16 last month"],
     {"has": [(ANY, "Postgres 16")], "lacks": [(ANY, "on Postgres 14")]}),
    # ---------------- dated events (2) ----------------
    ("f9-event-yesterday", ["Yesterday we migrated the payments service to Kubernetes"],
     {"has": [("events/*", "Kubernetes")]}),
    ("f9-event-iso-date", ["On 2026-11-20 we had an outage caused by an expired TLS certificate"],
     {"has": [("events/*", "TLS")]}),
    # ---------------- other languages (4) ----------------
    ("f9-fr-pref", ["Réponds-moi toujours en français, s'il te plaît"],
     {"has": [(PREF, "français")], "no_event": True}),
    ("f9-es-identity", ["Me llamo Lucía y trabajo como desarrolladora backend en Globant"],
     {"has": [(P, "Lucía")], "no_event": True}),
    ("f9-de-tool", ["Wir verwenden Poetry für das Dependency-Management, nicht pip"],
     {"has": [(ANY, "Poetry")], "no_event": True}),
    ("f9-pt-correction", ["Eu uso o Emacs", "Agora uso o Neovim em vez do Emacs"],
     {"has": [(P, "Neovim")], "lacks": [(P, "Uses Emacs"), (P, "Eu uso o Emacs"), (P, "Editor: Emacs")], "no_event": True}),
    # ---------------- nothing to keep (3) ----------------
    ("f9-none-question", ["what's the difference between a mutex and a semaphore?"],
     {"nothing": True}),
    ("f9-none-command", ["run the tests and fix whatever fails"],
     {"nothing": True}),
    ("f9-none-chatter", ["lol ok that worked, thanks!"],
     {"nothing": True}),
]


# A tenth part, written blind on 2026-12-06 by a helper who read neither the rules' code nor the
# earlier blind parts' cases (two of fresh9's, for the format): a data scientist, a mobile dev, a
# DevOps engineer, a student and a manager. Held back: no rule may be fixed on one of its cases by name.
FRESH10: list[tuple[str, list[str], dict]] = [
    # ---------------- identity and role (4) ----------------
    ("f10-ds-identity", ["I'm Priya, a data scientist on the fraud detection team"],
     {"has": [(P, "Priya")], "no_event": True}),
    ("f10-mobile-employer", ["I work as an iOS developer at Monzo"],
     {"has": [(P, "Monzo"), (P, "iOS")], "no_event": True}),
    ("f10-student-lowercase", ["i'm a second year computer science student at TU Delft"],
     {"has": [(P, "TU Delft")], "no_event": True}),
    ("f10-manager-role", ["I'm the engineering manager of the platform team, so I mostly review and rarely write code"],
     {"has": [(P, "engineering manager")], "no_event": True}),
    # ---------------- tools and versions (2) ----------------
    ("f10-python-version", ["This project is pinned to Python 3.11, so don't suggest 3.12-only syntax"],
     {"has": [(ANY, "3.11")], "no_event": True}),
    ("f10-k8s-version", ["Our clusters run Kubernetes 1.29 on EKS"],
     {"has": [(ANY, "1.29")], "no_event": True}),
    # ---------------- team conventions (2) ----------------
    ("f10-conventional-commits", ["Commit messages follow Conventional Commits in this repo"],
     {"has": [(ANY, "Conventional Commits")], "no_event": True}),
    ("f10-squash-lowercase", ["we always squash merge PRs"],
     {"has": [(ANY, "squash")], "no_event": True}),
    # ---------------- project facts (4) ----------------
    ("f10-staging-url", ["The staging API lives at https://staging-api.acme.io"],
     {"has": [(ANY, "staging-api.acme.io")], "no_event": True}),
    ("f10-port", ["The auth service listens on port 8443"],
     {"has": [(ANY, "8443")], "no_event": True}),
    ("f10-owner", ["Marco owns the billing service, ask him before touching it"],
     {"has": [(ANY, "Marco"), (ANY, "billing")], "no_event": True}),
    ("f10-deadline", ["The App Store submission deadline for v2.0 is March 14"],
     {"has": [(ANY, "March 14")]}),
    # ---------------- preferences (5) ----------------
    ("f10-pref-short", ["Please keep your answers short, I don't need long explanations"],
     {"has": [(PREF, "short")], "no_event": True}),
    ("f10-pref-rather", ["I'd rather you use pandas than polars in examples"],
     {"has": [(PREF, "pandas")], "no_event": True}),
    ("f10-pref-never-nopunct", ["never force push to main"],
     {"has": [(ANY, "force push")], "no_event": True}),
    ("f10-pref-typo", ["i prefere type hints evrywhere"],
     {"has": [(PREF, "type hints")], "no_event": True}),
    ("f10-pref-emoji", ["No emojis in commit messages or code comments, thanks"],
     {"has": [(PREF, "emoji")], "no_event": True}),
    # ---------------- corrections over time (4) ----------------
    ("f10-ditched-editor", ["My editor is VS Code", "I've ditched VS Code for Cursor"],
     {"has": [(P, "Cursor")], "lacks": [(P, "Editor: VS Code"), (P, "Uses VS Code")], "no_event": True}),
    ("f10-flutter-three-steps", ["We're on Flutter 3.19", "we moved to Flutter 3.22 last sprint", "correction: it's Flutter 3.24, not 3.22"],
     {"has": [(ANY, "3.24")], "lacks": [(ANY, "Flutter 3.19"), (ANY, "Flutter 3.22")]}),
    ("f10-not-anymore-city", ["I live in Toronto", "I don't live in Toronto anymore, I'm in Vancouver now"],
     {"has": [(P, "Vancouver")], "lacks": [(P, "- Lives in Toronto")], "no_event": True}),
    ("f10-promoted", ["I'm a junior backend developer", "I got promoted, I'm a senior backend developer now"],
     {"has": [(P, "senior")], "lacks": [(P, "junior")]}),
    # ---------------- dated events (2) ----------------
    ("f10-event-date", ["On 3 November 2026 we rolled back the iOS release because of a crash on launch"],
     {"has": [("events/*", "rolled back")]}),
    ("f10-event-last-friday", ["Last Friday the migration to Postgres 16 finally finished"],
     {"has": [("events/*", "Postgres 16")]}),
    # ---------------- other languages (4) ----------------
    ("f10-it-identity", ["Mi chiamo Giulia e sono una sviluppatrice Android"],
     {"has": [(P, "Giulia")], "no_event": True}),
    ("f10-nl-pref", ["Gebruik altijd Engelse namen voor variabelen"],
     {"has": [(PREF, "Engelse")], "no_event": True}),
    ("f10-ja-editor", ["私はエディタとしてVimを使っています"],
     {"has": [(ANY, "Vim")], "no_event": True}),
    ("f10-pl-employer", ["Pracuję w Allegro jako inżynier DevOps"],
     {"has": [(P, "Allegro")], "no_event": True}),
    # ---------------- nothing to keep (3) ----------------
    ("f10-none-question", ["can you explain what a left join does?"],
     {"nothing": True}),
    ("f10-none-command", ["refactor this function to use a list comprehension"],
     {"nothing": True}),
    ("f10-none-chatter", ["hmm ok let me think about it"],
     {"nothing": True}),
]


# An eleventh part, written blind on 2026-12-06 by a helper who read neither the rules' code nor the
# earlier blind parts' cases (two of fresh10's, for the format): a game developer, a firmware
# engineer, a security engineer, a QA engineer, a technical writer and a freelancer with two
# clients. Held back to measure mem19 (19 / 30), then read for round mem20 (docs/benchmarks.md).
FRESH11: list[tuple[str, list[str], dict]] = [
    # ---------------- identity and role (3) ----------------
    ("f11-firmware-identity", ["I'm an embedded firmware engineer at Nordic Semiconductor, mostly writing Zephyr drivers"],
     {"has": [(P, "Nordic Semiconductor"), (P, "firmware engineer")], "no_event": True}),
    ("f11-security-lowercase", ["im the appsec engineer on the payments team"],
     {"has": [(P, "appsec engineer")], "no_event": True}),
    ("f11-freelancer-clients", ["I'm a freelancer with two clients at the moment: Brightwave (a fintech) and Koru Health"],
     {"has": [(ANY, "Brightwave"), (ANY, "Koru Health")], "no_event": True}),
    # ---------------- tools and versions (2) ----------------
    ("f11-unity-version", ["We build the mobile port with Unity 2022.3 LTS"],
     {"has": [(ANY, "2022.3")], "no_event": True}),
    ("f11-toolchain-version", ["Firmware builds use arm-none-eabi-gcc 12.2 with CMake and Ninja"],
     {"has": [(ANY, "12.2")], "no_event": True}),
    # ---------------- team conventions (3) ----------------
    ("f11-conv-we-squash", ["We squash-merge every PR, and the PR title becomes the commit message"],
     {"has": [(ANY, "squash")], "no_event": True}),
    ("f11-conv-docs-headings", ["Docs convention: headings are in sentence case, not Title Case"],
     {"has": [(ANY, "sentence case")], "no_event": True}),
    ("f11-conv-lowercase-isr", ["in this codebase every ISR has to be marked IRAM_ATTR"],
     {"has": [(ANY, "IRAM_ATTR")], "no_event": True}),
    # ---------------- project facts (3) ----------------
    ("f11-fact-ci-url-port", ["The staging build server is ci.lumenforge.dev on port 8111"],
     {"has": [(ANY, "ci.lumenforge.dev"), (ANY, "8111")], "no_event": True}),
    ("f11-fact-owner", ["Maja owns the payments service, so any change to it needs her review"],
     {"has": [(ANY, "Maja"), (ANY, "payments")], "no_event": True}),
    ("f11-fact-deadline", ["Brightwave's launch deadline is March 3, 2027"],
     {"has": [(ANY, "March 3")]}),
    # ---------------- preferences (6) ----------------
    ("f11-pref-no-x-please", ["No Hungarian notation please"],
     {"has": [(PREF, "Hungarian")], "no_event": True}),
    ("f11-pref-x-gt-y", ["Composition > inheritance in gameplay code"],
     {"has": [(PREF, "Composition")], "no_event": True}),
    ("f11-pref-polite-question", ["Could you please always put the unit in constant names, like TIMEOUT_MS?"],
     {"has": [(PREF, "TIMEOUT_MS")], "no_event": True}),
    ("f11-pref-dislike", ["I really dislike magic numbers in driver code"],
     {"has": [(PREF, "magic numbers")], "no_event": True}),
    ("f11-pref-love", ["I love property-based tests; Hypothesis beats hand-written examples every time"],
     {"has": [(PREF, "Hypothesis")], "no_event": True}),
    ("f11-pref-typo", ["plz dont use pasive voice in the docs"],
     {"has": [(PREF, "voice")], "no_event": True}),
    # ---------------- corrections over time (4) ----------------
    ("f11-switched-from-engine", ["I use Unity for all my games", "I switched from Unity to Godot 4 after the pricing change"],
     {"has": [(P, "Godot")], "lacks": [(P, "- Uses Unity")], "no_event": True}),
    ("f11-ditched-editor", ["My editor is CLion", "I ditched CLion, my editor is VS Code with PlatformIO now"],
     {"has": [(P, "VS Code")], "lacks": [(P, "Editor: CLion")], "no_event": True}),
    ("f11-three-step-actually", ["Our target frame rate is 30 fps", "We raised the target frame rate to 60 fps",
                                 "actually no, the target frame rate is 120 fps"],
     {"has": [(ANY, "120 fps")], "lacks": [(ANY, "30 fps"), (ANY, "60 fps")], "no_event": True}),
    ("f11-no-longer-tracker", ["I use Jira for bug tracking", "I no longer use Jira, we track bugs in Linear now"],
     {"has": [(ANY, "Linear")], "lacks": [(ANY, "- Uses Jira")], "no_event": True}),
    # ---------------- dated events (2) ----------------
    ("f11-event-yesterday", ["Yesterday we shipped firmware v2.4.1 to the field units"],
     {"has": [("events/*", "2.4.1")]}),
    ("f11-event-dated-pentest", ["On November 28 our pentest of the Brightwave API found two critical IDORs"],
     {"has": [("events/*", "IDOR")]}),
    # ---------------- other languages (4) ----------------
    ("f11-sv-identity", ["Jag heter Ingrid och jobbar som teknisk skribent"],
     {"has": [(P, "Ingrid")], "no_event": True}),
    ("f11-ko-engine", ["저는 Unity로 모바일 게임을 개발하고 있어요"],
     {"has": [(ANY, "Unity")], "no_event": True}),
    ("f11-ru-pref", ["Пожалуйста, не используй табы, только пробелы"],
     {"has": [(PREF, "табы")], "no_event": True}),
    ("f11-de-fact", ["Unser Staging-Server läuft auf Port 8443"],
     {"has": [(ANY, "8443")], "no_event": True}),
    # ---------------- nothing to keep (3) ----------------
    ("f11-none-question", ["why does this shader take so long to compile on Android?"],
     {"nothing": True}),
    ("f11-none-command", ["add a unit test for the crc16 function and run it"],
     {"nothing": True}),
    ("f11-none-thinking", ["hmm, maybe the race is in the DMA callback... let me look at that first"],
     {"nothing": True}),
]

# A twelfth part, written blind on 2026-12-06 by a helper who read neither the rules' code nor the
# earlier blind parts' cases (a few of fresh11's, for the format): a data engineer (Airflow/dbt), an
# SRE on call, an iOS developer, an ML researcher, a product manager who codes a little and an
# open-source maintainer. Held back: no rule may be fixed on one of its cases by name.
FRESH12: list[tuple[str, list[str], dict]] = [
    # ---------------- identity and role (3) ----------------
    ("f12-data-engineer-identity", ["I'm a data engineer at Zalando, I own the Airflow DAGs for the pricing pipeline"],
     {"has": [(P, "data engineer"), (P, "Zalando")], "no_event": True}),
    ("f12-sre-lowercase", ["i'm an sre on the platform team"],
     {"has": [(P, "sre"), (ANY, "platform team")], "no_event": True}),
    ("f12-pm-name-role", ["My name is Priya and I'm a product manager who codes a little, mostly SQL and small Python scripts"],
     {"has": [(P, "Priya"), (P, "product manager")], "no_event": True}),
    # ---------------- tools and versions (3) ----------------
    ("f12-dbt-snowflake", ["We're on dbt 1.8 with Snowflake as the warehouse"],
     {"has": [(ANY, "dbt 1.8"), (ANY, "Snowflake")], "no_event": True}),
    ("f12-xcode-swift", ["I use Xcode 16.1 and Swift 6"],
     {"has": [(P, "Xcode 16.1"), (P, "Swift 6")], "no_event": True}),
    ("f12-pytorch-typo", ["i mostly use pytorch 2.4 and wandb for experiment trackng"],
     {"has": [(ANY, "pytorch 2.4"), (ANY, "wandb")], "no_event": True}),
    # ---------------- team conventions (3) ----------------
    ("f12-we-squash-conventional", ["We squash-merge every PR, and PR titles must follow Conventional Commits"],
     {"has": [(ANY, "Conventional Commits"), (ANY, "squash")], "no_event": True}),
    ("f12-stg-prefix-no-we", ["Every dbt source gets a staging model prefixed with stg_"],
     {"has": [(ANY, "stg_")], "no_event": True}),
    ("f12-norwegian-rebase", ["Vi rebaser alltid før vi merger, og vi bruker aldri merge-commits."],
     {"has": [(ANY, "rebaser")], "no_event": True}),
    # ---------------- project facts (4) ----------------
    ("f12-service-port-url", ["The ingestion service listens on port 8443 at https://ingest.internal.example.com"],
     {"has": [(ANY, "8443"), (ANY, "ingest.internal.example.com")], "no_event": True}),
    ("f12-owner", ["Marta owns the feature store, ask her before changing its schema"],
     {"has": [(ANY, "Marta"), (ANY, "feature store")], "no_event": True}),
    ("f12-deadline", ["The App Store submission deadline for v3.2 is March 14"],
     {"has": [(ANY, "March 14"), (ANY, "3.2")]}),
    ("f12-environments-lowercase", ["our environments are dev, staging and prod; staging is https://staging.api.example.io"],
     {"has": [(ANY, "staging.api.example.io")], "no_event": True}),
    # ---------------- preferences (6) ----------------
    ("f12-pref-no-x-please", ["no emojis in commit messages please"],
     {"has": [(PREF, "emoji")], "no_event": True}),
    ("f12-pref-x-gt-y", ["polars > pandas for anything new"],
     {"has": [(PREF, "polars")], "no_event": True}),
    ("f12-pref-polite-request", ["Could you please always add docstrings to public functions?"],
     {"has": [(PREF, "docstring")], "no_event": True}),
    ("f12-pref-dislike-typo", ["I realy dislike force-unwrapping optionals in swift"],
     {"has": [(PREF, "force-unwrap")], "no_event": True}),
    ("f12-pref-french", ["Je préfère des messages de commit en anglais."],
     {"has": [(PREF, "anglais")], "no_event": True}),
    ("f12-pref-spanish-like", ["Me gusta que los tests usen fixtures de pytest, no setUp."],
     {"has": [(PREF, "fixtures")], "no_event": True}),
    # ---------------- corrections over time (5) ----------------
    ("f12-switched-from-helm", ["Our deploys use Helm charts", "We've switched from Helm to Argo CD"],
     {"has": [(ANY, "Argo CD")], "lacks": [(ANY, "Helm charts")], "no_event": True}),
    ("f12-ditched-cocoapods", ["I use CocoaPods for dependencies", "we ditched CocoaPods, everything is on Swift Package Manager now"],
     {"has": [(ANY, "Swift Package Manager")], "lacks": [(ANY, "CocoaPods for dependencies"), (ANY, "uses CocoaPods")], "no_event": True}),
    ("f12-no-longer-pagerduty", ["Our pager tool is PagerDuty", "We no longer use PagerDuty; alerts go to Opsgenie now"],
     {"has": [(ANY, "Opsgenie")], "lacks": [(ANY, "tool is PagerDuty"), (ANY, "tool: PagerDuty")], "no_event": True}),
    ("f12-python-three-steps", ["My default Python is 3.10", "I upgraded to Python 3.11", "actually it's Python 3.12 now"],
     {"has": [(ANY, "3.12")], "lacks": [(ANY, "3.10"), (ANY, "3.11")], "no_event": True}),
    ("f12-chinese-branch-rename", ["我们的主分支叫 master", "主分支已经改名为 main 了"],
     {"has": [(ANY, "main")], "lacks": [(ANY, "master")], "no_event": True}),
    # ---------------- dated events (2) ----------------
    ("f12-event-outage", ["Yesterday we had a 40-minute outage of the checkout API because a TLS cert expired"],
     {"has": [("events/*", "outage")]}),
    ("f12-event-release", ["On 2026-11-28 I released tomlkit-lite 3.0 to PyPI"],
     {"has": [("events/*", "3.0")]}),
    # ---------------- nothing to keep (4) ----------------
    ("f12-none-question", ["why is dbt run so slow on the incremental models?"],
     {"nothing": True}),
    ("f12-none-command", ["bump the version in pyproject.toml and tag the release"],
     {"nothing": True}),
    ("f12-none-thinking", ["hmm, maybe the leak comes from the image cache, let me check in Instruments"],
     {"nothing": True}),
    ("f12-none-chatter", ["thanks, that worked!"],
     {"nothing": True}),
]

# A thirteenth part, written blind on 2026-12-06 by a helper who read neither the rules' code nor the
# earlier blind parts' cases (two of fresh12's, for the format): a backend Go developer, a frontend
# React/TypeScript developer, a database administrator, a bioinformatics researcher, a platform team
# lead and a bootcamp student. Held back: no rule may be fixed on one of its cases by name.
FRESH13: list[tuple[str, list[str], dict]] = [
    # ---------------- identity and role (3) ----------------
    ("f13-go-backend-identity", ["I'm Tomasz, a backend engineer at Allegro writing Go services for the checkout team"],
     {"has": [(P, "Tomasz"), (P, "backend engineer"), (ANY, "Allegro")], "no_event": True}),
    ("f13-bootcamp-lowercase", ["im a bootcamp student at le wagon, week 6 of 9"],
     {"has": [(P, "bootcamp"), (P, "le wagon")], "no_event": True}),
    ("f13-dba-role", ["I work as the DBA for our Postgres fleet, about 40 clusters"],
     {"has": [(P, "DBA"), (ANY, "Postgres")], "no_event": True}),
    # ---------------- tools and versions (3) ----------------
    ("f13-go-sqlc", ["We're on Go 1.23 and use sqlc for the data layer"],
     {"has": [(ANY, "Go 1.23"), (ANY, "sqlc")], "no_event": True}),
    ("f13-react-ts-vite", ["I use React 19 with TypeScript 5.6 and Vite"],
     {"has": [(ANY, "React 19"), (ANY, "TypeScript 5.6"), (ANY, "Vite")], "no_event": True}),
    ("f13-bio-tools-lowercase", ["i run most of my pipelines with snakemake 8 and conda, samtools 1.20 for bam files"],
     {"has": [(ANY, "snakemake 8"), (ANY, "samtools 1.20")], "no_event": True}),
    # ---------------- team conventions (3) ----------------
    ("f13-we-table-naming", ["We name tables in snake_case and always in the singular, e.g. order_item not order_items"],
     {"has": [(ANY, "snake_case"), (ANY, "singular")], "no_event": True}),
    ("f13-migrations-no-we", ["Every schema migration goes through a PR reviewed by a DBA before it touches prod"],
     {"has": [(ANY, "migration"), (ANY, "DBA")], "no_event": True}),
    ("f13-platform-terraform", ["On the platform team all infra changes go through Terraform, no clicking around in the AWS console"],
     {"has": [(ANY, "Terraform"), (ANY, "console")], "no_event": True}),
    # ---------------- project facts (3) ----------------
    ("f13-service-port-url", ["The payments-api service listens on port 8443 and its staging URL is https://payments.staging.internal"],
     {"has": [(ANY, "8443"), (ANY, "payments.staging.internal")], "no_event": True}),
    ("f13-owner-deadline", ["Marta owns the billing-worker repo; the migration off Heroku has to be done by January 31"],
     {"has": [(ANY, "Marta"), (ANY, "billing-worker"), (ANY, "January 31")]}),
    ("f13-environments-lowercase", ["we have three environments: dev, staging and prod, and prod runs in eu-west-1"],
     {"has": [(ANY, "eu-west-1"), (ANY, "staging")], "no_event": True}),
    # ---------------- preferences (4) ----------------
    ("f13-pref-no-x-please", ["No default exports please, named exports only"],
     {"has": [(PREF, "named exports")], "no_event": True}),
    ("f13-pref-gt", ["tailwind > css modules for anything new"],
     {"has": [(PREF, "tailwind")], "no_event": True}),
    ("f13-pref-polite-request", ["Could you always use table-driven tests when you write Go tests? I find them much easier to read"],
     {"has": [(PREF, "table-driven")], "no_event": True}),
    ("f13-pref-dislike", ["I really dislike ORMs, I'd rather write plain SQL"],
     {"has": [(PREF, "plain SQL"), (PREF, "ORM")], "no_event": True}),
    # ---------------- corrections over time (4) ----------------
    ("f13-switched-from-editor", ["I use VS Code", "I switched from VS Code to Neovim last month"],
     {"has": [(P, "Neovim")], "lacks": [(P, "Uses VS Code"), (P, "Editor: VS Code")]}),
    ("f13-ditched-terminal", ["My terminal is iTerm2", "ditched iterm2 for ghostty"],
     {"has": [(P, "ghostty")], "lacks": [(P, "Terminal: iTerm2")], "no_event": True}),
    ("f13-postgres-three-steps", ["We run Postgres 14 in production", "We upgraded prod to Postgres 15",
                                  "actually it's Postgres 16 now, 15 was only on staging"],
     {"has": [(ANY, "Postgres 16")], "lacks": [(P, "Postgres 14"), (ENT, "Postgres 14")]}),
    ("f13-no-longer-lead", ["I'm the tech lead of the platform team",
                            "I'm no longer the tech lead, I moved to an IC role on the observability team"],
     {"has": [(P, "observability")], "lacks": [(P, "tech lead of the platform team")]}),
    # ---------------- dated events (2) ----------------
    ("f13-event-failover", ["On 2026-11-30 the primary on db-prod-3 failed over and we lost about 2 minutes of writes"],
     {"has": [("events/*", "db-prod-3")]}),
    ("f13-event-shipped", ["Yesterday we shipped v2.0 of the design system to npm"],
     {"has": [("events/*", "v2.0")]}),
    # ---------------- nothing to keep (4) ----------------
    ("f13-none-question", ["what's the difference between useMemo and useCallback again?"],
     {"nothing": True}),
    ("f13-none-command", ["run go test ./... with -race and paste me the failures"],
     {"nothing": True}),
    ("f13-none-thinking", ["hmm so if the join is on a non-indexed column that would explain the seq scan... let me look at EXPLAIN"],
     {"nothing": True}),
    ("f13-none-chatter", ["lol ok that was dumb of me, nice catch"],
     {"nothing": True}),
    # ---------------- other languages (4) ----------------
    ("f13-cs-comments-english", ["Prosím, piš komentáře v kódu vždy anglicky."],
     {"has": [(PREF, "anglicky")], "no_event": True}),
    ("f13-vi-identity", ["Tôi là nghiên cứu sinh tin sinh học ở Đại học Quốc gia Hà Nội."],
     {"has": [(P, "tin sinh học")], "no_event": True}),
    ("f13-fr-nextflow", ["J'utilise Nextflow 24.04 pour tous mes pipelines de séquençage."],
     {"has": [(ANY, "Nextflow 24.04")], "no_event": True}),
    ("f13-pt-team-tests", ["Na nossa equipe, todo endpoint novo precisa de testes de integração antes do merge."],
     {"has": [(ANY, "testes de integração")], "no_event": True}),
]


# A fourteenth part, written blind on 2026-12-06 by a helper who read neither the rules' code nor the
# earlier blind parts' cases (two of fresh12's, for the format; one line of fresh13's last case seen by
# accident while reading split()): an Android/Kotlin developer, a Unity/C# game developer, a
# Spark/Airflow data engineer, an embedded C/Rust firmware engineer, an SRE on call and a PhD student
# in NLP. Held back: no rule may be fixed on one of its cases by name.
FRESH14: list[tuple[str, list[str], dict]] = [
    ("f14-identity-android", ["Hi, I'm Marta Kowalczyk, senior Android dev at Bolt, mostly working on the rider app in Kotlin"],
     {"has": [(P, "Marta"), (ANY, "Bolt"), (ANY, "Android")], "no_event": True}),
    ("f14-identity-phd", ["im a 3rd year phd student in NLP at the university of edinburgh my thesis is on low-resource machine translation"],
     {"has": [(P, "phd"), (ANY, "edinburgh"), (ANY, "machine translation")], "no_event": True}),
    ("f14-identity-sre", ["I work as an SRE on the payments infra team and I'm on the pager rotation every fourth week"],
     {"has": [(P, "SRE"), (ANY, "payments")], "no_event": True}),
    ("f14-tools-unity", ["We're on Unity 2022.3 LTS with URP, all the gameplay code is C#"],
     {"has": [(ANY, "2022.3"), (ANY, "URP")], "no_event": True}),
    ("f14-tools-spark", ["our cluster runs spark 3.5.1 on EMR and airflow 2.8 does the orchestration"],
     {"has": [(ANY, "3.5.1"), (ANY, "airflow"), (ANY, "2.8")], "no_event": True}),
    ("f14-tools-firmware", ["I build the firmware with arm-none-eabi-gcc 12.2, and the newer parts are Rust (embassy) on an STM32H7"],
     {"has": [(ANY, "12.2"), (ANY, "embassy"), (ANY, "STM32H7")], "no_event": True}),
    ("f14-team-review", ["On our team every PR needs two approvals and detekt has to pass before anything gets merged"],
     {"has": [(ANY, "two approvals"), (ANY, "detekt")], "no_event": True}),
    ("f14-team-dag-names", ["convention here: DAG ids are snake_case and prefixed with the owning team, e.g. growth_daily_sessions"],
     {"has": [(ANY, "snake_case"), (ANY, "prefix")], "no_event": True}),
    ("f14-team-postmortem", ["we alwyas write a blameless postmortem within 48 hours of any SEV1/SEV2"],
     {"has": [(ANY, "postmortem"), (ANY, "48 hours")], "no_event": True}),
    ("f14-project-game", ["The game is called Driftwood, a co-op survival game for Steam and Switch; release is planned for Q3 2027"],
     {"has": [(ANY, "Driftwood"), (ANY, "Switch"), (ANY, "Q3 2027")]}),
    ("f14-project-firmware", ["the sensor node firmware lives in the fw-node repo and talks to the gateway over LoRa at 868 MHz"],
     {"has": [(ANY, "fw-node"), (ANY, "LoRa"), (ANY, "868")], "no_event": True}),
    ("f14-project-pipeline", ["Our main pipeline ingests clickstream from Kafka into Delta tables on S3 - roughly 2 TB a day"],
     {"has": [(ANY, "Kafka"), (ANY, "Delta"), (ANY, "2 TB")], "no_event": True}),
    ("f14-pref-coroutines", ["prefer coroutines + Flow over RxJava in any new code pls"],
     {"has": [(PREF, "coroutines")], "no_event": True}),
    ("f14-pref-unwrap", ["When you write Rust for me: no unwrap() in library code, use proper error types with thiserror"],
     {"has": [(PREF, "unwrap"), (PREF, "thiserror")], "no_event": True}),
    ("f14-pref-latex", ["I'd like explanations with the math written out in LaTeX, not just the intuition"],
     {"has": [(PREF, "LaTeX")], "no_event": True}),
    ("f14-pref-incident", ["keep answers short when im debuging an incident. bullet points, commands first, explanation after"],
     {"has": [(PREF, "bullet"), (PREF, "commands first")], "no_event": True}),
    ("f14-corr-switched-ide", ["I use Android Studio Hedgehog", "switched to Android Studio Koala last week"],
     {"has": [(ANY, "Koala")], "lacks": [(ANY, "Hedgehog")]}),
    ("f14-corr-no-longer-cron", ["We schedule all our jobs with cron on one big VM", "we no longer use cron for scheduling, everything is an Airflow DAG now"],
     {"has": [(ANY, "Airflow")], "lacks": [(ANY, "big VM")], "no_event": True}),
    ("f14-corr-target-sdk", ["our targetSdk is 33", "we bumped targetSdk to 34", "actually it's 35 now, Play Store requires it"],
     {"has": [(ANY, "35")], "lacks": [(ANY, "33"), (ANY, "34")]}),
    ("f14-corr-ditched-jenkins", ["We use Jenkins for the Unity builds", "ditched jenkins, the builds run on GitHub Actions with GameCI now"],
     {"has": [(ANY, "GitHub Actions")], "lacks": [(ANY, "use jenkins"), (ANY, "uses jenkins")]}),
    ("f14-corr-replaced-tokenizer", ["My tokenizer is SentencePiece with a 32k vocab", "replaced the sentencepiece tokenizer with byte-level BPE, vocab is 50k now"],
     {"has": [(ANY, "50k")], "lacks": [(ANY, "32k")]}),
    ("f14-event-failover", ["Last night around 2am the primary Postgres failed over to the replica and we lost ~3 min of writes"],
     {"has": [("events/*", "Postgres")]}),
    ("f14-event-paper", ["On 2026-11-20 my paper on low-resource MT got accepted at ACL!"],
     {"has": [("events/*", "ACL")]}),
    ("f14-none-question", ["why does gradle keep re-downloading all the dependencies on every build?"],
     {"nothing": True}),
    ("f14-none-command", ["regenerate the protobuf bindings and rerun the HIL tests"],
     {"nothing": True}),
    ("f14-none-thinking", ["maybe the race is in the DMA interrupt handler... or the ring buffer wraps early, not sure yet"],
     {"nothing": True}),
    ("f14-none-chatter", ["lol ok nice, good catch"],
     {"nothing": True}),
    ("f14-it-pref", ["Preferisco che i commenti nel codice siano in inglese, anche se parliamo in italiano"],
     {"has": [(PREF, "inglese")], "no_event": True}),
    ("f14-pl-identity", ["Jestem inżynierem firmware, piszę głównie w C i Rust na mikrokontrolery nRF52"],
     {"has": [(P, "firmware"), (ANY, "nRF52")], "no_event": True}),
    ("f14-nl-team", ["Bij ons team draaien alle Spark jobs eerst op de acceptatie-omgeving voordat ze naar productie gaan"],
     {"has": [(ANY, "acceptatie")], "no_event": True}),
]

# A fifteenth part, written blind on 2026-12-06 by a helper who read neither the rules' code nor the
# earlier blind parts' cases (two of fresh12's, for the format; the prose of round mem21's section in
# docs/benchmarks.md seen by accident after these were drafted, and nothing changed for it): a Rails
# developer at a startup, a quant developer (Python/kdb+), an Elixir/Phoenix developer, a weekend
# hobbyist (Raspberry Pi), a computational physicist on an HPC cluster (Fortran/MPI) and a Solidity
# smart-contract developer; German, Korean and Turkish. Held back: no rule may be fixed on one of its
# cases by name.
FRESH15: list[tuple[str, list[str], dict]] = [
    ("f15-role-rails", ["im the only backend dev at a 6 person startup, mostly rails these days"],
     {"has": [(P, "backend"), (ANY, "rails")], "no_event": True}),
    ("f15-role-quant", ["I work as a quant developer on an equities stat-arb desk — Python and q/kdb+ all day."],
     {"has": [(P, "quant developer"), (ANY, "kdb")], "no_event": True}),
    ("f15-role-physicist", ["By training I'm a computational physicist, but these days I mostly maintain a big Fortran plasma code for our group"],
     {"has": [(P, "physicist"), (ANY, "fortran")], "no_event": True}),
    ("f15-tool-elixir", ["I think we're on Elixir 1.16 / OTP 26 at the moment, with Phoenix 1.7 and LiveView"],
     {"has": [(ANY, "1.16"), (ANY, "phoenix 1.7")]}),
    ("f15-tool-foundry", ["For smart contracts I use Foundry rather than Hardhat, with solc pinned at 0.8.24"],
     {"has": [(ANY, "foundry"), (ANY, "0.8.24")], "no_event": True}),
    ("f15-tool-homeassistant", ["my raspberry pi 4 runs home assistant 2024.11 in docker, plus mosquitto for mqtt"],
     {"has": [(ANY, "home assistant"), (ANY, "2024.11")], "no_event": True}),
    ("f15-team-migrations", ["Team rule: every migration has to be reversible, and PRs need one approval before they go into main"],
     {"has": [(ANY, "reversible"), (ANY, "approval")], "no_event": True}),
    ("f15-team-credo", ["in our phoenix repo CI runs mix format --check-formatted and credo --strict, nobody merges if either fails"],
     {"has": [(ANY, "credo")], "no_event": True}),
    ("f15-team-slither", ["Our convention: any change to the vault contracts needs a second reviewer AND a clean slither run before it gets deployed"],
     {"has": [(ANY, "slither")], "no_event": True}),
    ("f15-project-tidepool", ["The product is called Tidepool. Background jobs go through Sidekiq backed by Redis."],
     {"has": [(ANY, "tidepool"), (ANY, "sidekiq")], "no_event": True}),
    ("f15-project-plasmax", ["our code is PLASMAX, roughly 200k lines of Fortran 90 + MPI, and it runs on the uni cluster which is called hydra"],
     {"has": [(ANY, "plasmax"), (ANY, "hydra")], "no_event": True}),
    ("f15-project-backtester", ["FYI the backtester lives in the quant-core repo and reads end-of-day data from the HDB at /data/hdb"],
     {"has": [(ANY, "quant-core"), (ANY, "/data/hdb")], "no_event": True}),
    ("f15-pref-rspec", ["I prefer RSpec over minitest, and go easy on let blocks please"],
     {"has": [(PREF, "rspec")], "no_event": True}),
    ("f15-pref-short", ["pls keep explanations short, most of the time i just want the diff"],
     {"has": [(PREF, "short")], "no_event": True}),
    ("f15-pref-q-names", ["When you write q for me I'd like descriptive variable names, not the usual one-letter terse style"],
     {"has": [(PREF, "variable names")], "no_event": True}),
    ("f15-pref-beginner", ["i only code on weekends so explain things like im a beginner, dont assume i know the jargon"],
     {"has": [(PREF, "beginner")], "no_event": True}),
    ("f15-corr-ditched-heroku", ["We deploy the Rails app to Heroku", "we ditched heroku last month, everything runs on fly.io now"],
     {"has": [(ANY, "fly.io")], "lacks": [(ANY, "app to heroku")]}),
    ("f15-corr-actually-postgres", ["Our Phoenix app uses MySQL", "actually no, its Postgres. I misspoke earlier"],
     {"has": [(ANY, "postgres")], "lacks": [(ANY, "uses mysql")], "no_event": True}),
    ("f15-corr-editor-zed", ["I use vim for everything", "switched from vim to vs code when i started with the pi stuff",
                             "no longer on VS Code either — moved to Zed last week"],
     {"has": [(ANY, "zed")], "lacks": [(ANY, "vim for everything")]}),
    ("f15-corr-replaced-pbs", ["We submit cluster jobs with PBS", "PBS was replaced by Slurm over the summer, so it's sbatch now"],
     {"has": [(ANY, "slurm")], "lacks": [(ANY, "jobs with pbs")]}),
    ("f15-corr-tickerplant-port", ["the kdb tickerplant listens on port 5010", "it moved to 5012 when we migrated hosts",
                                   "scratch that, prod is 5014 — 5012 was the staging box"],
     {"has": [(ANY, "5014")], "lacks": [(ANY, "port 5010")]}),
    ("f15-event-reentrancy", ["On Nov 28 someone drained 12 ETH from our testnet faucet through a reentrancy bug in withdraw()"],
     {"has": [("events/*", "reentrancy")]}),
    ("f15-event-rails-upgrade", ["yesterday we finally upgraded to rails 7.2, took the whole day because of a zeitwerk issue"],
     {"has": [("events/*", "7.2")]}),
    ("f15-none-question", ["whats the difference between GenServer.call and cast again?"],
     {"nothing": True}),
    ("f15-none-command", ["run the migrations then restart the sidekiq worker"],
     {"nothing": True}),
    ("f15-none-thinking", ["hmm maybe the segfault comes from the MPI buffer size... let me check the halo exchange"],
     {"nothing": True}),
    ("f15-none-chatter", ["lol ok that's way better, cheers mate"],
     {"nothing": True}),
    ("f15-de-pref", ["Ich bevorzuge ExUnit-Tests mit describe-Blöcken, schreib sie bitte immer so."],
     {"has": [(PREF, "describe")], "no_event": True}),
    ("f15-ko-role", ["저는 핀테크 회사에서 kdb+ 개발자로 일하고 있어요"],
     {"has": [(P, "kdb")], "no_event": True}),
    ("f15-tr-project", ["Projemizin adı Kestrel; Phoenix LiveView ile yazıldı ve Gigalixir'de çalışıyor."],
     {"has": [(ANY, "kestrel"), (ANY, "gigalixir")], "no_event": True}),
]


# A sixteenth part, written blind on 2026-12-06 by a helper who read neither the rules' code nor the
# earlier blind parts' cases (two of fresh12's, for the format; a few rows of docs/sessions.md's table
# seen while looking up what the memory types mean, no phrasing taken from them; fresh15's last case
# line seen while finding its end, after these were drafted): a Salesforce/Apex
# consultant, an OCaml/Haskell compiler contributor, a PHP/Laravel freelancer, a Flutter/Dart mobile
# developer, a Vue/Nuxt frontend developer and a platform engineer doing Terraform on Azure; Indonesian,
# Hindi and Portuguese. Held back: no rule may be fixed on one of its cases by name.
FRESH16: list[tuple[str, list[str], dict]] = [
    ("f16-identity-salesforce", ["hey! I'm Priya Raman, independent Salesforce consultant — mostly Apex and LWC for mid-size nonprofits."],
     {"has": [(P, "Priya"), (P, "Salesforce")], "no_event": True}),
    ("f16-identity-compiler", ["Context on me: I write OCaml at my day job (a fintech in Paris) and in my spare time I contribute to GHC, mostly the typechecker."],
     {"has": [(P, "OCaml"), (P, "GHC")], "no_event": True}),
    ("f16-identity-freelance", ["im a freelance php dev laravel mostly, been doing it like 8 yrs"],
     {"has": [(P, "freelance"), (P, "laravel")], "no_event": True}),
    ("f16-version-flutter", ["we're on flutter 3.22 w/ dart 3.4, go_router for navigation"],
     {"has": [(ANY, "3.22"), (ANY, "go_router")], "no_event": True}),
    ("f16-version-terraform", ["Terraform 1.7.5, azurerm provider pinned to ~> 3.100. Don't bump either without asking me first."],
     {"has": [(ANY, "1.7.5"), (ANY, "3.100")], "no_event": True}),
    ("f16-version-nuxt", ["The storefront is Nuxt 3.11 on Node 20, with Pinia for the stores, deployed on Vercel"],
     {"has": [(ANY, "3.11"), (ANY, "Pinia")], "no_event": True}),
    ("f16-team-apex", ["In our org every Apex trigger delegates to a handler class: one trigger per object, zero logic in the trigger body."],
     {"has": [(ANY, "handler")], "no_event": True}),
    ("f16-team-terraform", ["team rules for the infra repo:\n- every azure resource gets owner + cost-center tags\n- nobody runs terraform apply locally, pipeline only"],
     {"has": [(ANY, "cost-center"), (ANY, "apply")], "no_event": True}),
    ("f16-team-flutter", ["We squash-merge everything, and PR titles follow conventional commits (feat:, fix:, chore:)."],
     {"has": [(ANY, "squash"), (ANY, "conventional commits")], "no_event": True}),
    ("f16-project-nuxt-api", ["fwiw the nuxt app hits https://api.shopfront.dev/v2 in prod; staging is staging-api.shopfront.dev I believe"],
     {"has": [(ANY, "api.shopfront.dev/v2"), (ANY, "staging-api.shopfront.dev")], "no_event": True}),
    ("f16-project-azure", ["Prod subscription is in West Europe with DR in North Europe. Terraform state lives in a storage account named sttfstateprod01."],
     {"has": [(ANY, "West Europe"), (ANY, "sttfstateprod01")], "no_event": True}),
    ("f16-project-client", ["For the Bakker client: the site runs on a Forge-managed DigitalOcean droplet, PHP 8.2 + MySQL 8. Their contact person is Joris."],
     {"has": [(ANY, "8.2"), (ANY, "Joris")], "no_event": True}),
    ("f16-pref-form-requests", ["When you write Laravel code for me please use Form Requests for validation instead of validating inside the controller"],
     {"has": [(PREF, "Form Request")], "no_event": True}),
    ("f16-pref-short", ["keep answers short. bullets > paragraphs"],
     {"has": [(PREF, "bullets")], "no_event": True}),
    ("f16-pref-haskell", ["For Haskell: give every top-level binding an explicit type signature, and avoid point-free style unless it's dead obvious."],
     {"has": [(PREF, "type signature"), (PREF, "point-free")], "no_event": True}),
    ("f16-pref-vuex", ["ngl Pinia >>> Vuex, pls never suggest vuex to me again"],
     {"has": [(PREF, "vuex")], "no_event": True}),
    ("f16-corr-ditched", ["State management in the Flutter app is Provider", "we ditched Provider for Riverpod last sprint"],
     {"has": [(ANY, "Riverpod")], "lacks": [(ANY, "is Provider"), (ANY, "management: Provider")]}),
    ("f16-corr-no-longer", ["I manage our Azure infra with Terraform Cloud", "I no longer use Terraform Cloud, state moved to an azurerm backend in our own storage account"],
     {"has": [(ANY, "azurerm")], "lacks": [(ANY, "with Terraform Cloud")]}),
    ("f16-corr-three-steps", ["My main editor is VS Code", "switched to PhpStorm", "actually I replaced PhpStorm with Zed, phpstorm was just too heavy on my laptop"],
     {"has": [(ANY, "Zed")], "lacks": [(P, "editor is VS Code"), (P, "editor: VS Code"), (P, "editor: PhpStorm"), (P, "editor is PhpStorm")]}),
    ("f16-corr-replaced", ["We deploy metadata with change sets", "we replaced change sets with sfdx + GitHub Actions"],
     {"has": [(ANY, "GitHub Actions")], "lacks": [(ANY, "metadata with change sets")]}),
    ("f16-corr-switched", ["We test the Vue components with Jest", "we switched from Jest to Vitest, way faster with Vite"],
     {"has": [(ANY, "Vitest")], "lacks": [(ANY, "components with Jest")]}),
    ("f16-event-store", ["On 2026-11-28 we pushed v4.2 of the Flutter app to the Play Store and it got rejected over the photo permission"],
     {"has": [("events/*", "4.2"), ("events/*", "rejected")]}),
    ("f16-event-destroy", ["last night someone ran terraform destroy on the dev workspace by mistake, took us 3 hours to rebuild"],
     {"has": [("events/*", "destroy")]}),
    ("f16-none-question", ["what's the difference between a Nuxt server route and a Nitro plugin?"],
     {"nothing": True}),
    ("f16-none-command", ["bump laravel/framework in composer.json and run the test suite"],
     {"nothing": True}),
    ("f16-none-thinking", ["hmm, maybe the GADT is overkill here... or maybe not, let me think"],
     {"nothing": True}),
    ("f16-none-chatter", ["lol ok that's hilarious, nice one 😂"],
     {"nothing": True}),
    ("f16-id-identity", ["Saya developer Flutter di startup fintech di Jakarta, udah 3 tahun pakai Dart."],
     {"has": [(P, "Flutter")], "no_event": True}),
    ("f16-hi-preference", ["मुझे code में comments हमेशा English में चाहिए, हिंदी में नहीं।"],
     {"has": [(PREF, "comments")], "no_event": True}),
    ("f16-pt-project", ["O nosso cluster AKS de produção fica na região Brazil South e usa o Azure CNI."],
     {"has": [(ANY, "Brazil South")], "no_event": True}),
]


# A seventeenth part, written blind on 2026-12-06 by a helper who read neither the rules' code nor the
# earlier blind parts' cases (two of fresh12's, for the format; fresh16's last three case lines and
# its comment seen while finding its end, after these were drafted): a bioinformatician (R/Nextflow),
# a DBA (Oracle PL/SQL and PostgreSQL), a student learning Go, a Godot indie game developer, a robotics
# engineer (ROS 2/C++) and a Clojure backend developer; Czech, Vietnamese and Greek. Held back: no rule
# may be fixed on one of its cases by name.
FRESH17: list[tuple[str, list[str], dict]] = [
    # who the user is
    ("f17-identity-bioinf", ["I'm a bioinformatician in a cancer genomics lab - mostly R and Nextflow pipelines, some Python when I must"],
     {"has": [(P, "bioinformatician")], "no_event": True}),
    ("f17-identity-dba", ["fwiw im the only DBA here, 12 yrs of oracle / PL/SQL and lately moving everything to postgres"],
     {"has": [(P, "DBA")], "no_event": True}),
    ("f17-identity-student", ["Hi! Second-year CS student, teaching myself Go this semester. Explain things like I'm new to it, please."],
     {"has": [(P, "student")], "no_event": True}),
    # tools and versions
    ("f17-tools-ros", ["stack for the rover:\n- ROS 2 Humble\n- Nav2 for navigation\n- C++17, built with colcon"],
     {"has": [(ANY, "Humble"), (ANY, "Nav2")], "no_event": True}),
    ("f17-tools-godot", ["My game is made in Godot 4.2 with GDScript only, no C# anywhere"],
     {"has": [(ANY, "4.2"), (ANY, "GDScript")], "no_event": True}),
    ("f17-tools-clojure", ["our services are Clojure 1.11 on Ring + Reitit, deps.edn (not lein)"],
     {"has": [(ANY, "Reitit")], "no_event": True}),
    # team conventions
    ("f17-conv-nextflow", ["Team rule: every Nextflow process must declare a container and a resource label, no exceptions."],
     {"has": [(ANY, "container"), (ANY, "label")], "no_event": True}),
    ("f17-conv-plsql", ["in our shop all PL/SQL lives in packages (no standalone procs) and every migration ships with a rollback script"],
     {"has": [(ANY, "rollback")], "no_event": True}),
    ("f17-conv-ros-topics", ["We name ROS topics in snake_case under the robot's namespace, e.g. /rover1/wheel_odom"],
     {"has": [(ANY, "snake_case")], "no_event": True}),
    # project facts
    ("f17-project-godot", ["The project is called Lanternfall, a 2D roguelike; it'll ship on Steam and itch.io"],
     {"has": [(ANY, "Lanternfall"), (ANY, "roguelike")], "no_event": True}),
    ("f17-project-billing-db", ["the billing db is Postgres 15, one primary and two streaming replicas, roughly 3 TB"],
     {"has": [(ANY, "billing"), (ANY, "replica")], "no_event": True}),
    ("f17-project-order-router", ["Our order-router service consumes from Kafka and writes to Datomic. It lives in the monorepo under services/order-router."],
     {"has": [(ANY, "order-router"), (ANY, "Datomic")], "no_event": True}),
    # preferences
    ("f17-pref-tidyverse", ["please always write R in tidyverse style with the native pipe |>, never base R for loops"],
     {"has": [(PREF, "tidyverse")], "no_event": True}),
    ("f17-pref-launch-files", ["when you touch a launch file: use the Python launch format, not XML"],
     {"has": [(PREF, "launch"), (PREF, "Python")], "no_event": True}),
    ("f17-pref-go-errors", ["I'd like you to wrap errors with fmt.Errorf and %w instead of just returning them, so I actually learn the idiom"],
     {"has": [(PREF, "Errorf")], "no_event": True}),
    ("f17-pref-short", ["keep answers short pls, bullet points > paragraphs"],
     {"has": [(PREF, "bullet")], "no_event": True}),
    # corrections over time
    ("f17-corr-godot-version", ["We're on Godot 4.2.", "Upgraded to Godot 4.3 as of last week."],
     {"has": [(ANY, "4.3")], "lacks": [(ANY, "4.2")]}),
    ("f17-corr-go-orm", ["for my Go side project I'm using GORM with sqlite",
                         "actually I ditched the ORM, it's sqlc + pgx on postgres now"],
     {"has": [(ANY, "sqlc")], "lacks": [(ANY, "GORM")]}),
    ("f17-corr-oracle-version", ["Our main Oracle instance is 19c.", "scratch that - it got upgraded to 23ai in March"],
     {"has": [(ANY, "23ai")], "lacks": [(ANY, "19c")]}),
    ("f17-corr-lidar", ["the rover uses a Velodyne VLP-16 lidar",
                        "we swapped the Velodyne for an Ouster OS1 last month",
                        "the Ouster is the 64-channel one btw"],
     {"has": [(ANY, "Ouster")], "lacks": [(ANY, "VLP-16")]}),
    ("f17-corr-commits", ["Please write commit messages in Conventional Commits style.",
                          "forget the feat:/fix: prefixes from now on - the team writes plain imperative messages with the Jira key first"],
     {"has": [(PREF, "imperative")], "lacks": [(PREF, "Conventional Commits")]}),
    # dated happenings
    ("f17-event-migration", ["Last Thursday we finished moving the reporting schema from Oracle to Postgres, it took the whole weekend downtime window"],
     {"has": [("events/*", "reporting")]}),
    ("f17-event-demo", ["shipped the Lanternfall demo on itch.io on Nov 28, 2k downloads the first day 🎉"],
     {"has": [("events/*", "demo")]}),
    # nothing to keep
    ("f17-none-question", ["can you explain what a goroutine leak looks like?"],
     {"nothing": True}),
    ("f17-none-command", ["run nextflow run main.nf -profile test,docker and show me the output"],
     {"nothing": True}),
    ("f17-none-thinking", ["hmm maybe the tf tree is wrong... or the timestamps are off? let me think"],
     {"nothing": True}),
    ("f17-none-chatter", ["lol ok nice, ty"],
     {"nothing": True}),
    # other languages
    ("f17-cs-identity", ["Jsem robotik, píšu hlavně v C++ a ROS 2."],
     {"has": [(P, "ROS")], "no_event": True}),
    ("f17-vi-preference", ["Làm ơn luôn viết docstring bằng tiếng Anh."],
     {"has": [(PREF, "docstring")], "no_event": True}),
    ("f17-el-project", ["Η βάση δεδομένων παραγωγής μας τρέχει PostgreSQL 16 στο AWS RDS."],
     {"has": [(ANY, "RDS")], "no_event": True}),
]


def split(name: str) -> list[tuple[str, list[str], dict]]:
    """``tune``, ``held`` (every third case), ``fresh`` (:data:`FRESH`), ``fresh2``, ``fresh3``, ``fresh4`` or ``all``."""
    if name == "fresh":
        return FRESH
    if name == "fresh2":
        return FRESH2
    if name == "fresh3":
        return FRESH3
    if name == "fresh4":
        return FRESH4
    if name == "fresh5":
        return FRESH5
    if name == "fresh6":
        return FRESH6
    if name == "fresh7":
        return FRESH7
    if name == "fresh8":
        return FRESH8
    if name == "fresh9":
        return FRESH9
    if name == "fresh10":
        return FRESH10
    if name == "fresh11":
        return FRESH11
    if name == "fresh12":
        return FRESH12
    if name == "fresh13":
        return FRESH13
    if name == "fresh14":
        return FRESH14
    if name == "fresh15":
        return FRESH15
    if name == "fresh16":
        return FRESH16
    if name == "fresh17":
        return FRESH17
    if name == "all":
        return CASES + FRESH + FRESH2 + FRESH3 + FRESH4 + FRESH5 + FRESH6 + FRESH7 + FRESH8 + FRESH9 + FRESH10 + FRESH11 + FRESH12 + FRESH13 + FRESH14 + FRESH15 + FRESH16 + FRESH17
    return [c for i, c in enumerate(CASES) if (i % 3 == 2) == (name == "held")]


def memories(root: Path) -> dict[str, str]:
    """Each memory file's visible text, by path under the user's memories."""
    from ov.sessions.memory.files import parse_memory

    base = root / "accounts" / "default" / "user" / "default" / "memories"
    out = {}
    for path in sorted(base.rglob("*.md")) if base.exists() else []:
        rel = path.relative_to(base).as_posix()
        if not rel.startswith(".") and "/." not in rel:
            out[rel] = parse_memory(path.read_text(encoding="utf-8"))[0]
    return out


def failures(files: dict[str, str], checks: dict, refused: bool) -> list[str]:
    """What of ``checks`` does not hold for ``files`` (empty: the case passes)."""
    bad = []
    if checks.get("nothing"):
        if files:
            bad.append(f"nothing expected, got {sorted(files)}")
        return bad

    def matching(glob: str) -> list[str]:
        return [text for path, text in files.items() if fnmatch.fnmatch(path, glob)]

    for glob, text in checks.get("has", ()):
        if not any(text.lower() in body.lower() for body in matching(glob)):
            bad.append(f"no {glob} says {text!r}")
    for glob, text in checks.get("lacks", ()):
        if any(text.lower() in line.lower() for body in matching(glob) for line in body.splitlines()):
            bad.append(f"a {glob} still says {text!r}")
    if checks.get("no_event") and any(p.startswith("events/") for p in files):
        bad.append(f"filed as an event: {[p for p in files if p.startswith('events/')]}")
    return bad


def run_case(steps: list[str]) -> tuple[dict[str, str], bool]:
    """The memories a fresh store holds after ``ov remember`` of each step; whether one refused."""
    import common
    from ov.errors import OvError
    from ov.sessions.remember import remember

    with tempfile.TemporaryDirectory(prefix="ov-bench-memory-") as tmp:
        store = common.open_store(Path(tmp))
        refused = False
        for text in steps:
            try:
                remember(store, text)
            except OvError:
                refused = True
        return memories(Path(tmp)), refused


def conversation_memories(path: Path) -> list[dict]:
    """What a session commit would extract from every turn of LoCoMo's conversations, each turn read
    as a user message: a check on precision, since chit-chat states little worth keeping."""
    from datetime import datetime, timezone

    from ov.sessions.memory.extract import extract_explicit

    when = datetime(2024, 1, 1, tzinfo=timezone.utc)
    out = []
    for sample in json.loads(path.read_text(encoding="utf-8")):
        conversation = sample["conversation"]
        for key in sorted(k for k in conversation if k.startswith("session_") and not k.endswith("date_time")):
            for turn in conversation[key]:
                message = {"id": turn["dia_id"], "role": "user", "parts": [{"type": "text", "text": turn["text"]}]}
                for candidate in extract_explicit([message], when=when, user="u"):
                    out.append({"turn": turn["text"], "type": candidate.memory_type, "content": candidate.fields.get("content", "")})
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--show", choices=("tune", "held", "fresh", "fresh2", "fresh3", "fresh4", "fresh5", "fresh6", "fresh7", "fresh8", "fresh9", "fresh10", "fresh11", "fresh12", "fresh13", "fresh14", "fresh15", "fresh16", "fresh17", "all", "none"), default="none", help="print each failing case of a part")
    parser.add_argument("--json", type=Path, help="write the per-case results here")
    parser.add_argument("--locomo", type=Path, metavar="JSON", help="also list what every turn of these LoCoMo conversations would yield")
    args = parser.parse_args(argv)
    results = {}
    for part in ("tune", "held", "fresh", "fresh2", "fresh3", "fresh4", "fresh5", "fresh6", "fresh7", "fresh8", "fresh9", "fresh10", "fresh11", "fresh12", "fresh13", "fresh14", "fresh15", "fresh16", "fresh17"):
        rows = []
        for name, steps, checks in split(part):
            files, refused = run_case(steps)
            rows.append({"id": name, "steps": steps, "failures": failures(files, checks, refused), "files": files})
        results[part] = rows
    for part, rows in results.items():
        passed = sum(not r["failures"] for r in rows)
        print(f"{part}: {passed}/{len(rows)} cases hold ({passed / len(rows):.0%})")
        if args.show in (part, "all"):
            for r in rows:
                if r["failures"]:
                    print(f"  {r['id']}: {'; '.join(r['failures'])}")
                    for path, body in r["files"].items():
                        print(f"      {path}: {body!r}")
    if args.locomo:
        found = conversation_memories(args.locomo)
        results["locomo"] = found
        kinds = {kind: sum(1 for f in found if f["type"] == kind) for kind in sorted({f["type"] for f in found})}
        print(f"locomo: {len(found)} memories from every turn read as the user's ({', '.join(f'{k} {n}' for k, n in kinds.items())})")
        for f in found if args.show != "none" else ():
            print(f"  {f['type']}: {f['content'].splitlines()[-1]!r}  <- {f['turn'][:100]!r}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
