#!/usr/bin/env bash
# Install ov into ./.venv and take it for a first run on a throwaway store.
# Offline and key-free: everything runs on the embedded defaults.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-}
if [ -z "$PYTHON" ]; then
  for candidate in python3.11 python3.12 python3.13 python3; do
    if command -v "$candidate" >/dev/null 2>&1; then PYTHON=$candidate; break; fi
  done
fi
if ! "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
  echo "ov needs Python 3.11 or newer (found: $("$PYTHON" --version 2>&1))" >&2
  exit 1
fi

[ -x .venv/bin/python ] || "$PYTHON" -m venv .venv
.venv/bin/python -m pip install --quiet --disable-pip-version-check -e '.[test]'

# A store of its own, so the tour never touches ~/.ov.
export OV_HOME="$PWD/.ov-quickstart"
rm -rf "$OV_HOME"
OV=.venv/bin/ov

if [ -t 1 ]; then BOLD=$'\033[1m'; RESET=$'\033[0m'; else BOLD=; RESET=; fi

show() {  # print a command line the way you would type it
  local line="\$" arg
  for arg in "$@"; do
    case "$arg" in
      *[!A-Za-z0-9_./:~=@-]*|'') line+=" '${arg//\'/\'\\\'\'}'" ;;
      *) line+=" $arg" ;;
    esac
  done
  printf '\n%s%s%s\n' "$BOLD" "$line" "$RESET"
}

step() {
  show ov "$@"
  "$OV" "$@"
}

echo "ov is installed in .venv; this tour uses OV_HOME=$OV_HOME"
step init
step mkdir viking://resources/handbook --description "How our team builds and ships software."
step write viking://resources/handbook/deploys.md --content "# Deploys
We deploy from main with a green CI.
Rollbacks use the previous release tag.
"
printf '# Auth\nTokens live in the vault.\nRotate them every 90 days.\n' > "$OV_HOME/auth-note.md"
step write viking://resources/handbook/auth.md --from-file "$OV_HOME/auth-note.md"
step write viking://resources/handbook/draft.md --content "TODO: write this up."
step write viking://~/memories/preferences/reviews.md --content "Prefers small, reviewed pull requests."
step ls -r viking://resources
step tree viking://
step read viking://resources/handbook/deploys.md --lines 2:3
step edit viking://resources/handbook/auth.md --old "90 days" --new "30 days"
step grep -i "tokens|deploy"
step glob "**/*.md" --uri viking://resources
step mv viking://resources/handbook/auth.md viking://resources/handbook/security/auth.md
step abstract viking://resources/handbook
step rm viking://resources/handbook/draft.md
step status

# Ingest: a folder of Markdown and a PDF, then a page served on this machine.
SAMPLE="$OV_HOME/sample-docs"
mkdir -p "$SAMPLE"
cp docs/concepts.md docs/storage.md docs/configuration.md "$SAMPLE/"
.venv/bin/python -c 'import sys; from tests.pdfs import make_pdf; open(sys.argv[1], "wb").write(make_pdf([("Release checklist", ["Run the tests. Tag the release."]), ("Rollback", ["Revert the tag and redeploy."])]))' "$SAMPLE/release-guide.pdf"
step add-resource "$SAMPLE" --reason "How ov stores and configures things, plus a release guide."
step tree viking://resources/sample-docs -L 2
step overview viking://resources/sample-docs

PORT=$(.venv/bin/python -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
# A small HTML page of our own (the tour's find below should meet it, not ov's own docs).
SITE="$OV_HOME/site"
mkdir -p "$SITE"
cat > "$SITE/runbook.html" <<'HTML'
<!doctype html>
<html><head><title>On-call runbook</title></head>
<body><nav>Home | Runbooks</nav>
<h1>On-call runbook</h1>
<h2>Deploying a hotfix</h2><p>Cherry-pick the fix onto the release branch, wait for CI, then deploy with <code>make deploy ENV=prod</code>.</p>
<h2>Paging</h2><p>Page the secondary after 15 minutes without an acknowledgement.</p>
</body></html>
HTML
.venv/bin/python -m http.server "$PORT" --bind 127.0.0.1 --directory "$SITE" >/dev/null 2>&1 &
SERVER=$!
trap 'kill $SERVER 2>/dev/null' EXIT
for _ in $(seq 50); do
  .venv/bin/python -c 'import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=1)' "http://127.0.0.1:$PORT/" 2>/dev/null && break
  sleep 0.1
done
step add-resource "http://127.0.0.1:$PORT/runbook.html"
kill $SERVER 2>/dev/null; trap - EXIT
step ls viking://resources

# A session: capture two turns, commit them into an archive and long-term memories.
step session add demo --text "I prefer small pull requests. My editor is Neovim. How do we deploy?"
step session add demo --role assistant --text "We deploy from main with a green CI (see viking://resources/handbook)."
step commit demo
step tree viking://~/ -L 3
step read viking://~/memories/profile.md
step stat viking://resources/sample-docs/release-guide.md

# Retrieval: full-text search and vectors (the built-in embedder, on by default), no LLM needed.
step find "how do we deploy"
step find "which editor" --type memory,session
step search "how do we ship a release" --mode context --budget 400
step fsck

# History: audit what changed the memories, then undo the last change as a new commit.
step snapshot log --uri viking://~/memories
step snapshot restore HEAD~1 --uri viking://~/memories --dry-run

show git -C "$OV_HOME/accounts/default" log --oneline
if command -v git >/dev/null 2>&1; then
  git -C "$OV_HOME/accounts/default" log --oneline
else
  .venv/bin/python - "$OV_HOME/accounts/default" <<'PY'
import sys
from dulwich.repo import Repo
for entry in Repo(sys.argv[1]).get_walker():
    print(entry.commit.id.decode()[:7], entry.commit.message.decode().splitlines()[0])
PY
fi
printf '\nEvery change above is one git commit. Next: `.venv/bin/python -m pytest -q` runs the tests.\n'
