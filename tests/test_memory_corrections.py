"""Deterministic memories that correct themselves (issue #14), through `ov remember` and `ov commit`.

Each row of the table is a sequence of steps run against a fresh store, and the
memory files that must exist afterwards, with their visible content, exactly:

- ``"text"``: one `ov remember TEXT` (one call, one commit);
- ``("refused", "text")``: `ov remember TEXT` that finds nothing to remember (exit 2);
- ``("as", "alice", "text")``: `ov remember TEXT --user alice`;
- ``("stored", "path", "content")``: a memory file as an older ov wrote it (its trailer
  included), written through the store with `ov write`;
- ``[message, ...]``: one session, captured with `ov session add-messages` and committed
  with `ov commit` (a message is a text said by the user, or ``(role, text or parts)``).

Expected files are paths under the default user's memories, or ``"alice:path"`` for
another user's. A row may also name the ``updates`` the last step's diff must hold
(``ov remember --json`` operations, or the archive's ``memory_diff.json``).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from ov.sessions.memory.files import parse_memory, render_memory
from tests.conftest import STORE_DAY

ACCOUNT = "accounts/default/user"
AT = "2026-05-01T09:00:00Z"


def bash(cmd: str, output: str, status: str = "completed") -> dict:
    return {"type": "tool", "tool_name": "bash", "tool_input": {"command": cmd}, "tool_output": output, "tool_status": status}


def edit(path: str) -> dict:
    return {"type": "tool", "tool_name": "edit", "tool_input": {"file_path": path}, "tool_output": "ok", "tool_status": "completed"}


def said(text: str) -> dict:
    return {"type": "text", "text": text}


def grep(pattern: str) -> dict:
    return {"type": "tool", "tool_name": "grep", "tool_input": {"pattern": pattern}, "tool_output": "", "tool_status": "completed"}


FLAKY_FIX = [
    "Let's fix the flaky login test.",
    ("assistant", [said("Running the login tests first."), bash("pytest tests/test_login.py", "1 failed", "error")]),
    ("assistant", [said("The test waits on a real clock; I will freeze it."), edit("tests/test_login.py")]),
    ("assistant", [bash("pytest tests/test_login.py", "3 passed")]),
]
FLAKY_EXPERIENCE = (
    "## Situation\n\nGoal: fix the flaky login test.\n\n"
    "## Approach\n\n"
    "1. Running the login tests first\n"
    "2. bash: `pytest tests/test_login.py` (error)\n"
    "3. The test waits on a real clock; I will freeze it\n"
    "4. edit: `tests/test_login.py`\n"
    "5. bash: `pytest tests/test_login.py`\n\n"
    "## Reflect\n\nOutcome: success; the user confirmed \"That fixed it, tests pass now\" (2026-05-01)."
)

def failing_test(name: str, goal: str = "Fix the failing test in tests/test_{}.py") -> list:
    return [goal.format(name), ("assistant", [said(f"Root cause in {name}."), bash(f"pytest tests/test_{name}.py", "2 passed")]),
            "That fixed it, thanks."]


def failing_test_experience(name: str, goal: str = "fix the failing test in tests/test_{}.py") -> str:
    return (f"## Situation\n\nGoal: {goal.format(name)}.\n\n## Approach\n\n1. Root cause in {name}\n"
            f"2. bash: `pytest tests/test_{name}.py`\n\n## Reflect\n\nOutcome: success; the user confirmed \"That fixed it, thanks\" (2026-05-01).")


# Twelve searches, then the fix: too many steps, and the fix and the test run are what must stay.
SEARCHED_FIX = [
    "Let's fix the deadlock in worker/pool.py.",
    *(("assistant", [grep(f"cache{n}")]) for n in range(12)),
    ("assistant", [said("The pool never releases its lock on a timeout; releasing it in finally."), edit("worker/pool.py")]),
    ("assistant", [bash("pytest tests/test_pool.py", "8 passed")]),
    "That fixed it.",
]
SEARCHED_EXPERIENCE = (
    "## Situation\n\nGoal: fix the deadlock in worker/pool.py.\n\n## Approach\n\n"
    + "".join(f"{n - 4}. grep: `cache{n}`\n" for n in range(5, 12))
    + "8. The pool never releases its lock on a timeout; releasing it in finally\n"
    "9. edit: `worker/pool.py`\n"
    "10. bash: `pytest tests/test_pool.py`\n\n"
    "## Reflect\n\nOutcome: success; the user confirmed \"That fixed it\" (2026-05-01)."
)
TODAY = STORE_DAY.astimezone()  # the store's day (the store_day fixture) on the user's calendar, as memories date events
RETRY_SESSION = [
    "Hey, can you help me add retry logic to the payment client? We use httpx, not requests, in this repo.",
    ("assistant", [said("Sure. Let me look at the client first."), edit("billing/client.py")]),
    "Always use tenacity for retries, and never retry on 4xx errors. Also my editor is Neovim so keep lines under 100 chars.",
    ("assistant", [said("Adding a tenacity decorator."), bash("pytest tests/test_client.py", "5 passed")]),
    "Don't change the tests. I moved to Lisbon last month by the way.",
    "Perfect, that works now. Thanks!",
]
RETRY_EXPERIENCE = (
    "## Situation\n\nGoal: add retry logic to the payment client.\n\n"
    "## Approach\n\n"
    "1. Let me look at the client first\n"
    "2. edit: `billing/client.py`\n"
    "3. Adding a tenacity decorator\n"
    "4. bash: `pytest tests/test_client.py`\n\n"
    "## Reflect\n\nOutcome: success; the user confirmed \"Perfect, that works now\" (2026-05-01)."
)

CASES = [
    # --- a new value for the same key replaces the old one ------------------------------------
    pytest.param(["My editor is Neovim", "My editor is Emacs"], {"profile.md": "- Editor: Emacs"},
                 {"profile.md": ("- Editor: Neovim", "- Editor: Emacs")}, id="same-key-replaced"),
    pytest.param(["My editor is Neovim", "My editor is Emacs", "Actually, my editor is Helix"], {"profile.md": "- Editor: Helix"},
                 {"profile.md": ("- Editor: Emacs", "- Editor: Helix")}, id="third-value-still-one-line"),
    pytest.param(["My editor is Neovim. My editor is Emacs."], {"profile.md": "- Editor: Emacs"}, None, id="same-key-in-one-text"),
    pytest.param([["My shell is bash."], ["My shell is zsh."]], {"profile.md": "- Shell: zsh"},
                 {"profile.md": ("- Shell: bash", "- Shell: zsh")}, id="same-key-across-session-commits"),
    pytest.param(["My shell is bash", ["My shell is zsh."]], {"profile.md": "- Shell: zsh"}, None, id="remember-then-commit-merge-alike"),
    pytest.param(["I work at Acme", "I work at Globex"], {"profile.md": "- Works at Globex"}, None, id="employer-replaced"),
    pytest.param(["I work for Acme", "I work at Globex"], {"profile.md": "- Works at Globex"}, None, id="work-for-and-at-are-one-key"),
    pytest.param(["My editor is Neovim", "I prefer tabs", "My editor is Emacs"],
                 {"profile.md": "- Editor: Emacs", "preferences/default/tabs.md": "- Prefers tabs"}, None, id="other-files-untouched"),
    pytest.param(["My editor is vim", "My favourite editor is Emacs"], {"profile.md": "- Editor: vim\n- Favourite editor: Emacs"},
                 None, id="different-keys-both-kept"),
    pytest.param(["I work at Acme", "I work on the billing service"], {"profile.md": "- Works at Acme\n- Works on the billing service"},
                 None, id="works-on-is-not-the-employer"),
    # --- a topic is named in every script and in NFC, so it finds its file typed either way (lines are stored in NFC)
    pytest.param(["I like caf\u00e9", "I love cafe\u0301"], {"preferences/default/caf\u00e9.md": "- Likes caf\u00e9\n- Loves caf\u00e9"},
                 None, id="topic-typed-composed-or-decomposed-is-one-file"),
    pytest.param(["I prefer C++ for systems code", "I prefer C# for games"],
                 {"preferences/default/cpp.md": "- Prefers C++ for systems code", "preferences/default/csharp.md": "- Prefers C# for games"},
                 None, id="c++-and-c#-are-two-topics"),
    pytest.param(["I prefer \u0442\u0430\u0431\u044b", "I hate \u0442\u0430\u0431\u044b"], {"preferences/default/\u0442\u0430\u0431\u044b.md": "- Hates \u0442\u0430\u0431\u044b"},
                 None, id="cyrillic-topic-is-its-own-word"),
    pytest.param(["I like jazz", "I hate jazz"], {"preferences/default/jazz.md": "- Hates jazz"},
                 {"preferences/default/jazz.md": ("- Likes jazz", "- Hates jazz")}, id="opposite-preference-replaced"),
    pytest.param(["I always squash commits", "I never squash commits"], {"preferences/default/squash_commits.md": "- Never squash commits"},
                 None, id="always-then-never"),
    pytest.param(["I like jazz", "I love jazz"], {"preferences/default/jazz.md": "- Likes jazz\n- Loves jazz"}, None,
                 id="same-side-preferences-supplement"),
    # --- actually / now / no longer / not ... anymore / instead / switched / these days -------
    pytest.param(["My editor is Neovim", "Actually, my editor is Vim now."], {"profile.md": "- Editor: Vim"}, None, id="actually-and-now"),
    pytest.param(["My editor is Vim now"], {"profile.md": "- Editor: Vim"}, None, id="trailing-now-dropped"),
    pytest.param(["My editor is now Helix"], {"profile.md": "- Editor: Helix"}, None, id="inner-now-dropped"),
    pytest.param(["I work at Acme", "I work at Globex now"], {"profile.md": "- Works at Globex"}, None, id="now-replaces-employer"),
    pytest.param(["My status is away for now"], {"profile.md": "- Status: away for now"}, None, id="for-now-is-kept"),
    pytest.param(["I use Neovim", "I don't use Neovim anymore"], {"profile.md": "- No longer uses Neovim"}, None, id="not-anymore-negates"),
    # Each "No longer" line ends the line naming what it negates, not another "No longer" line sharing
    # its verb ("No longer uses Jenkins" replaced "No longer uses bash": half its words were "uses").
    pytest.param(["I no longer use bash", "I no longer use Jenkins", "I don't use Trello anymore"],
                 {"profile.md": "- No longer uses bash\n- No longer uses Jenkins\n- No longer uses Trello"}, None,
                 id="two-tools-no-longer-used-are-two-lines"),
    pytest.param(["I no longer use bash", "I use Jenkins", "I no longer use Jenkins"],
                 {"profile.md": "- No longer uses bash\n- No longer uses Jenkins"}, None,
                 id="a-tool-no-longer-used-ends-its-use-only"),
    pytest.param(["My editor is Neovim", "I no longer use Neovim"], {"profile.md": "- No longer uses Neovim"}, None,
                 id="no-longer-negates-a-keyed-line"),
    pytest.param(["I work at Acme", "I no longer work at Acme"], {"profile.md": "- No longer works at Acme"}, None, id="no-longer-works-at"),
    pytest.param(["I use fish", "I stopped using fish"], {"profile.md": "- No longer uses fish"}, None, id="stopped-using"),
    pytest.param(["I prefer tabs", "I no longer prefer tabs"], {"preferences/default/tabs.md": "- No longer prefers tabs"}, None,
                 id="no-longer-prefers"),
    pytest.param(["I'm a manager", "I'm not a manager anymore"], {"profile.md": "- Is no longer a manager"}, None, id="not-a-x-anymore"),
    pytest.param(["My editor is Neovim", "My editor is no longer Neovim"], {"profile.md": "- Editor: no longer Neovim"}, None,
                 id="my-k-is-no-longer"),
    pytest.param(["My editor is Vim", "I switched my editor from Vim to Helix"], {"profile.md": "- Editor: Helix"}, None, id="switched-my-k"),
    pytest.param(["I prefer tabs over spaces", "I actually prefer spaces over tabs now"],
                 {"preferences/default/tabs.md": "- No longer prefers tabs", "preferences/default/spaces.md": "- Prefers spaces over tabs"},
                 None, id="I-actually-prefer"),
    pytest.param(["I work at Acme", "I actually work at Globex"], {"profile.md": "- Works at Globex"}, None, id="I-actually-work-at"),
    pytest.param(["These days I prefer dark mode"], {"preferences/default/dark_mode.md": "- Prefers dark mode"}, None, id="these-days-dropped"),
    pytest.param(["I prefer spaces instead"], {"preferences/default/spaces.md": "- Prefers spaces"}, None, id="instead-dropped"),
    # --- clause boundaries ----------------------------------------------------------------------
    pytest.param(["My name is Dana and I work at Acme"], {"profile.md": "- Name: Dana\n- Works at Acme"}, None, id="and-I"),
    pytest.param(["My name is Dana, and my editor is Vim"], {"profile.md": "- Name: Dana\n- Editor: Vim"}, None, id="comma-and-my"),
    pytest.param(["I like Python, but I hate Java"],
                 {"preferences/default/python.md": "- Likes Python", "preferences/default/java.md": "- Hates Java"}, None, id="but-I"),
    pytest.param(["My editor is Vim; my shell is fish"], {"profile.md": "- Editor: Vim\n- Shell: fish"}, None, id="semicolon"),
    pytest.param(["I'm a backend engineer and my team is Platform"],
                 {"profile.md": "- Is a backend engineer", "entities/teams/platform.md": "# Platform\n\n- The user's team"}, None,
                 id="profile-and-entity"),
    pytest.param(["I like red, green, and blue"], {"preferences/default/red_green.md": "- Likes red, green, and blue"}, None,
                 id="a-list-is-not-split"),
    pytest.param(["I prefer tabs, but only in Go"], {"preferences/default/tabs.md": "- Prefers tabs, but only in Go"}, None,
                 id="a-qualifier-is-not-split"),
    # --- a correction lands in the file named for what it says ----------------------------------
    pytest.param(["I prefer tabs. Actually, I prefer spaces."], {"preferences/default/spaces.md": "- Prefers spaces"}, None,
                 id="tabs-then-spaces-in-one-text"),
    pytest.param(["I prefer tabs. No, I meant spaces."], {"preferences/default/spaces.md": "- Prefers spaces"}, None, id="i-meant-spaces"),
    pytest.param([["I prefer tabs.", ("assistant", "Noted."), "Actually, I prefer spaces."]],
                 {"preferences/default/spaces.md": "- Prefers spaces"}, None, id="tabs-then-spaces-in-a-session"),
    pytest.param(["I prefer tabs", "Actually, I prefer spaces"],
                 {"preferences/default/spaces.md": "- Prefers spaces", "preferences/default/tabs.md": "- No longer prefers tabs"},
                 {"preferences/default/tabs.md": ("- Prefers tabs", "- No longer prefers tabs")}, id="stored-tabs-negated"),
    pytest.param(["I prefer tabs over spaces", "I prefer spaces now"],
                 {"preferences/default/spaces.md": "- Prefers spaces", "preferences/default/tabs.md": "- No longer prefers tabs"}, None,
                 id="tabs-over-spaces-then-spaces"),
    # an older ov merged "... and my name is Ada" into the line: the correction ends the choice, not the name,
    # which goes where `ov remember "my name is Ada"` puts it
    pytest.param([("stored", "preferences/default/tabs.md", "- Prefers tabs over spaces and my name is Ada"), "I prefer spaces over tabs now"],
                 {"preferences/default/spaces.md": "- Prefers spaces over tabs", "preferences/default/tabs.md": "- No longer prefers tabs",
                  "profile.md": "- Name: Ada"},
                 {"preferences/default/tabs.md": ("- Prefers tabs over spaces and my name is Ada", "- No longer prefers tabs")},
                 id="a-correction-keeps-a-statement-an-older-ov-merged-into-the-line"),
    pytest.param([("stored", "preferences/default/tabs.md", "- Prefers tabs over spaces and my name is Ada"), ["I prefer spaces over tabs now."]],
                 {"preferences/default/spaces.md": "- Prefers spaces over tabs", "preferences/default/tabs.md": "- No longer prefers tabs",
                  "profile.md": "- Name: Ada"},
                 None, id="a-merged-statement-goes-to-its-file-in-a-session-commit"),
    pytest.param([("stored", "preferences/default/tabs.md", "- Prefers tabs; my shell is fish"), "Actually, I prefer spaces"],
                 {"preferences/default/spaces.md": "- Prefers spaces", "preferences/default/tabs.md": "- No longer prefers tabs",
                  "profile.md": "- Shell: fish"},
                 None, id="a-correction-keeps-what-follows-a-semicolon"),
    pytest.param([("stored", "profile.md", "- Editor: Neovim and I work at Acme now"), "My editor is Emacs"],
                 {"profile.md": "- Editor: Emacs\n- Works at Acme"}, None, id="a-new-value-keeps-the-clause-after-the-old-one"),
    pytest.param([("stored", "profile.md", "- Editor: Neovim and I like jazz"), "My editor is Emacs"],
                 {"profile.md": "- Editor: Emacs", "preferences/default/jazz.md": "- Likes jazz"}, None,
                 id="a-merged-preference-goes-to-its-topic"),
    pytest.param([("stored", "preferences/default/tabs.md", "- Prefers tabs and my name is Ada"), ("stored", "profile.md", "- Name: Ada"),
                  "I prefer spaces"],
                 {"preferences/default/spaces.md": "- Prefers spaces", "preferences/default/tabs.md": "- No longer prefers tabs",
                  "profile.md": "- Name: Ada"}, None, id="a-merged-statement-already-stored-is-not-doubled"),
    # when it was said is not known: it replaces no line ("Works at Globex" may be the later), and gives way to the line it
    # would replace, so one line holds the key (a freed "Works at Acme" or "Name: Ada" never stands beside another)
    pytest.param([("stored", "profile.md", "- Works at Globex\n- Editor: Neovim and I work at Acme"), "My editor is Emacs"],
                 {"profile.md": "- Works at Globex\n- Editor: Emacs"}, None, id="a-merged-statement-replaces-no-line"),
    pytest.param(["My name is Bob", ("stored", "preferences/default/tabs.md", "- Prefers tabs over spaces and my name is Ada"),
                  "I prefer spaces over tabs now"],
                 {"preferences/default/spaces.md": "- Prefers spaces over tabs", "preferences/default/tabs.md": "- No longer prefers tabs",
                  "profile.md": "- Name: Bob"}, None, id="a-freed-name-gives-way-to-the-stored-one"),
    pytest.param([("stored", "preferences/default/tabs.md", "- Prefers tabs over spaces and my name is Ada"),
                  ["My name is Bob. I prefer spaces over tabs now."]],
                 {"preferences/default/spaces.md": "- Prefers spaces over tabs", "preferences/default/tabs.md": "- No longer prefers tabs",
                  "profile.md": "- Name: Bob"}, None, id="a-freed-name-gives-way-to-one-said-with-the-correction"),
    pytest.param([("stored", "preferences/default/jazz.md", "- Hates jazz"), ("stored", "preferences/default/tabs.md", "- Prefers tabs; I like jazz"),
                  "I prefer spaces"],
                 {"preferences/default/spaces.md": "- Prefers spaces", "preferences/default/tabs.md": "- No longer prefers tabs",
                  "preferences/default/jazz.md": "- Hates jazz"}, None, id="a-freed-liking-gives-way-to-the-stored-opposite"),
    pytest.param([("stored", "profile.md", "- Works at Globex\n- Editor: Neovim and I work at Acme"), "My editor is Emacs", "I work at Initech"],
                 {"profile.md": "- Works at Initech\n- Editor: Emacs"}, None, id="a-later-statement-replaces-both"),
    # what the rules do not read, or read as a dated note (it would be dated today), stays in the user's words
    pytest.param([("stored", "profile.md", "- Editor: Neovim and my build is green; I deployed the app yesterday"), "My editor is Emacs"],
                 {"profile.md": "- Editor: Emacs\n- My build is green\n- I deployed the app yesterday"}, None,
                 id="a-merged-statement-no-rule-reads-stays"),
    pytest.param([("stored", "profile.md", "- Editor: Neovim and I like jazz. It is loud"), "My editor is Emacs"],
                 {"profile.md": "- Editor: Emacs\n- I like jazz. It is loud"}, None, id="a-merged-statement-of-two-sentences-stays"),
    # --- a line an older ov filed in general.md moves to its topic's file when the topic is next named
    pytest.param([("stored", "preferences/default/general.md", "- Prefers Make\n- Prefers short commit messages"), "I prefer Make"],
                 {"preferences/default/make.md": "- Prefers Make", "preferences/default/general.md": "- Prefers short commit messages"},
                 {"preferences/default/general.md": ("- Prefers Make\n- Prefers short commit messages", "- Prefers short commit messages")},
                 id="general-md-line-moves-to-its-topic"),
    pytest.param([("stored", "preferences/default/general.md", "- Prefers Make"), "I prefer CMake over Make"],
                 {"preferences/default/cmake.md": "- Prefers CMake over Make", "preferences/default/make.md": "- No longer prefers Make"},
                 None, id="general-md-line-moves-and-is-corrected-there"),
    pytest.param([("stored", "preferences/default/general.md", "- Prefers Make"), ["I prefer CMake over Make."]],
                 {"preferences/default/cmake.md": "- Prefers CMake over Make", "preferences/default/make.md": "- No longer prefers Make"},
                 None, id="general-md-line-moves-in-a-session-commit"),
    pytest.param([("stored", "preferences/default/general.md", "- Prefers Make over CMake\n- Likes makefiles"), "I prefer CMake"],
                 {"preferences/default/cmake.md": "- Prefers CMake",
                  "preferences/default/general.md": "- Prefers Make over CMake\n- Likes makefiles"},
                 None, id="general-md-line-of-another-choice-stays"),
    # topics whose names spell out symbols: a line moves when its words, spelled as topics are, name the topic
    pytest.param([("stored", "preferences/default/general.md", "- Prefers C++ for systems code\n- Prefers C for firmware"), "I prefer C++ over Rust"],
                 {"preferences/default/cpp.md": "- Prefers C++ for systems code\n- Prefers C++ over Rust",
                  "preferences/default/general.md": "- Prefers C for firmware"}, None, id="general-md-line-moves-to-cpp"),
    pytest.param([("stored", "preferences/default/general.md", "- Likes C# for games\n- Likes C"), "I like C#"],
                 {"preferences/default/csharp.md": "- Likes C# for games\n- Likes C#", "preferences/default/general.md": "- Likes C"},
                 None, id="general-md-line-moves-to-csharp"),
    pytest.param([("stored", "preferences/default/general.md", "- Prefers F# for data scripts"), "I prefer F#"],
                 {"preferences/default/fsharp.md": "- Prefers F# for data scripts\n- Prefers F#"}, None, id="general-md-line-moves-to-fsharp"),
    pytest.param([("stored", "preferences/default/general.md", "- Prefers Objective-C over Swift\n- Prefers Objective-C++"), "I prefer Objective-C"],
                 {"preferences/default/objective-c.md": "- Prefers Objective-C over Swift",  # it says so already: not twice
                  "preferences/default/general.md": "- Prefers Objective-C++"}, None, id="general-md-line-moves-to-objective-c"),
    pytest.param([("stored", "preferences/default/general.md", "- Prefers .NET for backends\n- Prefers ASP.NET Core"), "I prefer .NET"],
                 {"preferences/default/net.md": "- Prefers .NET for backends\n- Prefers .NET",
                  "preferences/default/general.md": "- Prefers ASP.NET Core"}, None, id="general-md-line-moves-to-dotnet"),
    pytest.param([("stored", "preferences/default/general.md", "- Prefers Node.js for scripts\n- Prefers Node"), "I prefer Node.js"],
                 {"preferences/default/node.js.md": "- Prefers Node.js for scripts\n- Prefers Node.js",
                  "preferences/default/general.md": "- Prefers Node"}, None, id="general-md-line-moves-to-node-js"),
    pytest.param([("stored", "preferences/default/general.md", "- Prefers Node.js for scripts"), "I prefer Node"],
                 {"preferences/default/node.md": "- Prefers Node", "preferences/default/general.md": "- Prefers Node.js for scripts"},
                 None, id="general-md-line-of-node-js-is-not-node"),
    pytest.param([("stored", "preferences/default/tabs.md", "- Prefers tabs, but only in Go"), "I prefer spaces in Go"],
                 {"preferences/default/spaces.md": "- Prefers spaces in Go", "preferences/default/tabs.md": "- Prefers tabs, but only in Go"},
                 None, id="a-qualifier-is-no-statement-of-its-own"),
    pytest.param(["I hate tabs", "I prefer spaces"],
                 {"preferences/default/tabs.md": "- Hates tabs", "preferences/default/spaces.md": "- Prefers spaces"}, None,
                 id="a-rival-only-negates-a-preference-for-it"),
    pytest.param(["I prefer dark mode", "I prefer light mode"],
                 {"preferences/default/dark_mode.md": "- No longer prefers dark mode", "preferences/default/light_mode.md": "- Prefers light mode"},
                 None, id="dark-then-light-mode"),
    # --- "I meant X" changes the statement just made only when X can be its value ---------------
    pytest.param([["My editor is Neovim.", "I meant line 42, not 24.", "I prefer tabs for indentation.", "No, I meant the other file."]],
                 {"profile.md": "- Editor: Neovim", "preferences/default/tabs.md": "- Prefers tabs for indentation"}, None,
                 id="i-meant-a-place-in-the-code-is-no-value"),
    pytest.param([["I work at Acme. No wait, I meant the staging server crashed."]], {"profile.md": "- Works at Acme"}, None,
                 id="i-meant-a-clause-of-its-own-is-no-value"),
    pytest.param([["My editor is Neovim.", "Sorry, I meant the build is broken."]], {"profile.md": "- Editor: Neovim"}, None,
                 id="i-meant-a-clause-with-is-is-no-value"),
    pytest.param([["My editor is Neovim.", "I meant Vim, not Emacs."]], {"profile.md": "- Editor: Neovim"}, None,
                 id="i-meant-x-not-something-else"),
    pytest.param([["My editor is Neovim.", "No, I meant Vim, not Neovim."]], {"profile.md": "- Editor: Vim"}, None,
                 id="i-meant-x-not-the-old-value"),
    pytest.param(["I prefer tabs in Go. No, I meant spaces, not tabs."], {"preferences/default/spaces.md": "- Prefers spaces in Go"}, None,
                 id="i-meant-x-not-y-keeps-the-rest"),
    pytest.param(["I'm a designer. I meant engineer, not designer."], {"profile.md": "- Is an engineer"}, None, id="i-meant-x-not-y-article"),
    pytest.param(["I prefer long functions. No, I meant small functions."],
                 {"preferences/default/small_functions.md": "- Prefers small functions"}, None, id="i-meant-a-kind-of-code-is-a-value"),
    pytest.param(["I work at Acme. No wait, I meant Globex."], {"profile.md": "- Works at Globex"}, None, id="i-meant-a-name"),
    # --- a choice in one context leaves the choices of other contexts ---------------------------
    pytest.param([["I prefer tabs in Go code."], ["I prefer spaces in Python."]],
                 {"preferences/default/tabs.md": "- Prefers tabs in Go code", "preferences/default/spaces.md": "- Prefers spaces in Python"},
                 None, id="choices-in-two-contexts-both-stand"),
    pytest.param(["I prefer dark mode in my terminal", "I prefer light mode for printed docs"],
                 {"preferences/default/dark_mode.md": "- Prefers dark mode in their terminal",
                  "preferences/default/light_mode.md": "- Prefers light mode for printed docs"}, None, id="modes-in-two-contexts-both-stand"),
    pytest.param(["I prefer tabs in Go code", "I prefer spaces in Go code"],
                 {"preferences/default/tabs.md": "- No longer prefers tabs in Go code", "preferences/default/spaces.md": "- Prefers spaces in Go code"},
                 None, id="choices-in-one-context-rule-out"),
    pytest.param(["I prefer tabs", "I prefer spaces in Python"],
                 {"preferences/default/tabs.md": "- Prefers tabs", "preferences/default/spaces.md": "- Prefers spaces in Python"},
                 None, id="a-choice-for-a-context-leaves-the-general-one"),
    pytest.param(["I prefer tabs in Go code", "I prefer spaces"],
                 {"preferences/default/tabs.md": "- Prefers tabs in Go code", "preferences/default/spaces.md": "- Prefers spaces"},
                 None, id="a-general-choice-leaves-one-for-a-context"),
    # --- "I always X" and the instruction "Always X" are one statement ----------------------------
    pytest.param([["I always use type hints."], ["Never use type hints."]], {"preferences/default/type_hints.md": "- Never use type hints"},
                 None, id="i-always-then-never-instruction"),
    pytest.param([["I always use type hints."], ["Always use type hints."]], {"preferences/default/type_hints.md": "- Always use type hints"},
                 None, id="i-always-and-always-are-one-line"),
    pytest.param(["Never use type hints", "I always use type hints"], {"preferences/default/type_hints.md": "- Always use type hints"},
                 None, id="never-instruction-then-i-always"),
    pytest.param(["I always eat lunch late", "I never eat lunch late"], {"preferences/default/eat_lunch_late.md": "- Never eats lunch late"},
                 None, id="a-habit-outside-the-work-is-the-users"),
    # --- returning to a choice ends its "No longer" line ----------------------------------------
    pytest.param(["I prefer tabs", "I prefer spaces", "I prefer tabs over spaces"],
                 {"preferences/default/tabs.md": "- Prefers tabs over spaces", "preferences/default/spaces.md": "- No longer prefers spaces"},
                 None, id="back-to-a-choice"),
    pytest.param(["I prefer tabs over spaces", "I no longer prefer tabs over spaces", "I prefer tabs"],
                 {"preferences/default/tabs.md": "- Prefers tabs"}, None, id="back-to-a-choice-said-over-another"),
    pytest.param(["I prefer tabs in Go code", "I prefer spaces in Go code", "I prefer tabs"],
                 {"preferences/default/tabs.md": "- No longer prefers tabs in Go code\n- Prefers tabs",
                  "preferences/default/spaces.md": "- Prefers spaces in Go code"}, None, id="a-general-choice-leaves-a-context-no-longer"),
    pytest.param(["I prefer using pytest for tests", "I hate pytest"], {"preferences/default/pytest.md": "- Hates pytest"}, None,
                 id="hate-replaces-prefers-using"),
    pytest.param(["I hate using pytest", "I like pytest"], {"preferences/default/pytest.md": "- Likes pytest"}, None,
                 id="like-replaces-hates-using"),
    pytest.param(["I prefer pytest for unit tests", "I hate pytest for integration tests"],
                 {"preferences/default/pytest.md": "- Prefers pytest for unit tests\n- Hates pytest for integration tests"}, None,
                 id="feelings-in-two-contexts-both-stand"),
    # --- "remember that" states a fact --------------------------------------------------------
    pytest.param(["Remember that our staging DB is on port 5433"], {"entities/systems/staging_db.md": "# Staging DB\n\n- Is on port 5433"},
                 None, id="remember-that-fact"),
    pytest.param(["Our staging database runs on port 5433, remember that."],
                 {"entities/systems/staging_database.md": "# Staging database\n\n- Runs on port 5433"}, None, id="fact-then-remember-that"),
    pytest.param([["Our staging DB runs on port 5433. Remember that."]],
                 {"entities/systems/staging_db.md": "# Staging DB\n\n- Runs on port 5433"}, None, id="bare-remember-that-in-a-session"),
    pytest.param(["Remember that our staging DB runs on port 5433", "Remember that our staging DB runs on port 5434 now"],
                 {"entities/systems/staging_db.md": "# Staging DB\n\n- Runs on port 5434"}, None, id="fact-corrected"),
    pytest.param(["Remember that our staging DB is read-only and I need the VPN for it"],
                 {"entities/systems/staging_db.md": "# Staging DB\n\n- Is read-only\n- Our staging DB is read-only and I need the VPN for it"},
                 None, id="fact-clause-split-and-the-whole-text-kept"),
    pytest.param(["Keep in mind that the release is tomorrow."],
                 {f"events/{TODAY:%Y/%m/%d}/release.md": f"- The release is tomorrow ({TODAY + timedelta(days=1):%Y-%m-%d})"},
                 None, id="a-dated-note-stays-an-event"),
    # --- a change said in other words (bench/memory_statements.py measures more) ---------------------
    pytest.param(["My editor is Neovim", "I switched from Neovim to Zed"], {"profile.md": "- Editor: Zed"},
                 {"profile.md": ("- Editor: Neovim", "- Editor: Zed")}, id="switched-from-to-keeps-the-key"),
    pytest.param(["I switched from Neovim to Zed"], {"profile.md": "- Switched from Neovim to Zed"}, None, id="switched-with-nothing-stored"),
    pytest.param(["I use Vim daily", "I've moved over from Vim to Helix"], {"profile.md": "- Uses Helix daily"}, None, id="moved-over-from-to"),
    pytest.param(["My shell is bash", "I use zsh instead of bash"], {"profile.md": "- Shell: zsh"}, None, id="use-y-instead-of-x"),
    pytest.param(["My shell is bash", "I changed my shell to zsh"], {"profile.md": "- Shell: zsh"}, None, id="changed-my-k-to"),
    pytest.param(["I live in Berlin", "I moved to Lisbon"], {"profile.md": "- Lives in Lisbon"}, None, id="moved-to-replaces-where-i-live"),
    pytest.param(["I moved to Lisbon"], {"profile.md": "- Moved to Lisbon"}, None, id="moved-to-with-nothing-stored"),
    pytest.param(["I'm based in Berlin", "I relocated to Lisbon"], {"profile.md": "- Lives in Lisbon"}, None, id="based-in-then-relocated"),
    pytest.param([["Call me Dan."]], {"profile.md": "- Preferred name: Dan"}, None, id="call-me"),
    pytest.param(["My name is Daniel", "I go by Dan"], {"profile.md": "- Name: Daniel\n- Preferred name: Dan"}, None, id="go-by-keeps-the-name"),
    pytest.param([["Always use type hints."], ["Never use type hints."]], {"preferences/default/type_hints.md": "- Never use type hints"},
                 None, id="standing-instruction-flipped"),
    pytest.param(["Don't use tabs in this repo"], {"preferences/default/tabs.md": "- Don't use tabs in this repo"}, None,
                 id="remembered-instruction"),
    pytest.param(["Please use pytest, not unittest"], {"preferences/default/pytest.md": "- Use pytest, not unittest"}, None,
                 id="remembered-please-use"),
    pytest.param(["I'm not a fan of long meetings"], {"preferences/default/long_meetings.md": "- Is not a fan of long meetings"}, None,
                 id="not-a-fan"),
    pytest.param(["I like Java", "I can't stand Java"], {"preferences/default/java.md": "- Cannot stand Java"}, None, id="cannot-stand-replaces-likes"),
    pytest.param(["I'd prefer that you use British spelling"],
                 {"preferences/default/british_spelling.md": "- Would prefer that you use British spelling"}, None, id="would-prefer-that-you"),
    pytest.param([["I'd rather have small pull requests."]], {}, None, id="a-wish-in-a-session-is-about-the-task"),
    pytest.param(["Remember that Alice reviews all DB migrations", "Bob owns the billing service"],
                 {"entities/people/alice.md": "# Alice\n\n- Reviews all DB migrations", "entities/people/bob.md": "# Bob\n\n- Owns the billing service"},
                 None, id="what-a-person-does"),
    pytest.param([["Bob owns the billing service."]], {}, None, id="a-person-fact-in-a-session-needs-asking"),
    pytest.param(["My editor is Vim. Lunch was great today."],
                 {"profile.md": "- Editor: Vim", f"events/{TODAY:%Y/%m/%d}/editor.md": f"- My editor is Vim. Lunch was great today ({TODAY:%Y-%m-%d})"},
                 None, id="a-remembered-text-read-in-part-is-also-kept-whole"),
    pytest.param(["Remember that the build takes 20 minutes. The cache lives in S3."],
                 {"entities/systems/build.md": "# Build\n\n- The build takes 20 minutes. The cache lives in S3"},
                 None, id="a-second-sentence-no-rule-reads-is-kept"),
    pytest.param(["Remember that releases need:\n- [ ] a green CI run\n- [x] the changelog\n2. a tag"],
                 {f"events/{TODAY:%Y/%m/%d}/releases.md": "- Releases need: a green CI run; the changelog; a tag"},
                 None, id="a-checklist-is-kept-as-one-line-of-its-items"),
    pytest.param([["My wifi password is bluebird. My PIN is 4821. Remember that my ssh passphrase is swordfish. My editor is Neovim."]],
                 {"profile.md": "- Editor: Neovim"}, None, id="what-a-secret-is-never-becomes-a-memory"),
    pytest.param([["My wifi pw is bluebird42. My login is admin and my pass is Summer2024! My ski pass is Epic.",
                   "My credit card number is 4111 1111 1111 1111. My phone number is 555-0100. My seed phrase is apple banana cherry.",
                   "My bank account number is 12345678. My IBAN is DE89370400440532013000. My favourite phrase is carpe diem.",
                   "Remember that the staging admin login is admin / hunter22. Remember that the staging login is via SSO."]],
                 {"profile.md": "- Login: admin\n- Ski pass: Epic\n- Phone number: 555-0100\n- Favourite phrase: carpe diem",
                  f"events/{TODAY:%Y/%m/%d}/staging_login.md": "- The staging login is via SSO"},
                 None, id="short-names-of-secrets-and-logins-with-a-password-are-never-memories"),
    pytest.param([["My editor is Vi\x00m. Remember that the build uses\x01 make."]],
                 {"profile.md": "- Editor: Vim", f"events/{TODAY:%Y/%m/%d}/build.md": "- The build uses make"},
                 None, id="a-control-character-never-reaches-a-memory"),
    pytest.param([["Remember that the bastion accepts ssh root with password Zx9pQ2rT7v. My editor is Neovim.",
                   "The Jenkins admin account is admin/hunter22. The office wifi key is Zx9pQ2rT7v."]],
                 {"profile.md": "- Editor: Neovim"}, None, id="a-password-without-a-verb-or-an-account-with-its-password-is-never-a-memory"),
    pytest.param([["My github PAT is ghp_abcdefghijklmnopqrstuvwxyz0123456789. My npm auth is npm_abcdefghijklmnopqrstuvwxyz0123456789.",
                   "Remember that the seed phrase is in the office safe. My editor is Neovim."]],
                 {"profile.md": "- Editor: Neovim", f"events/{TODAY:%Y/%m/%d}/seed_phrase.md": "- The seed phrase is in the office safe"},
                 None, id="a-redacted-value-is-never-a-memory"),
    pytest.param(["My favourite language is Go", "My favorite language is Rust"], {"profile.md": "- Favorite language: Rust"},
                 {"profile.md": ("- Favourite language: Go", "- Favorite language: Rust")}, id="one-key-in-either-spelling"),
    pytest.param(["My editor is Vim", "My editor is actually Emacs"], {"profile.md": "- Editor: Emacs"},
                 {"profile.md": ("- Editor: Vim", "- Editor: Emacs")}, id="actually-inside-the-value"),
    pytest.param(["The API key is in 1Password", "Our deploy token is rotated monthly"],
                 {"entities/systems/api.md": "# API\n\n- Key is in 1Password",
                  "profile.md": "- Team's deploy token is rotated monthly"},
                 None, id="where-a-secret-lives-is-remembered"),
    pytest.param(['I prefer tabs. "Never deploy on Fridays."'],
                 {"preferences/default/tabs.md": "- Prefers tabs",
                  f"events/{TODAY:%Y/%m/%d}/tabs_never_deploy.md": '- I prefer tabs. "Never deploy on Fridays."'},
                 None, id="a-quotation-given-to-remember-is-kept-in-the-note"),
    pytest.param(["Remember that Atlas runs on Kubernetes"], {"entities/systems/atlas.md": "# Atlas\n\n- Atlas runs on Kubernetes"}, None,
                 id="a-name-that-runs-is-no-person"),
    pytest.param([["I joined the Platform team."]], {"entities/teams/platform.md": "# Platform\n\n- The user's team"}, None, id="joined-the-team"),
    pytest.param(["My manager is Dana", "My manager is Sam now"],
                 {"entities/people/dana.md": "# Dana\n\n- No longer the user's manager", "entities/people/sam.md": "# Sam\n\n- The user's manager"},
                 {"entities/people/dana.md": ("# Dana\n\n- The user's manager", "# Dana\n\n- No longer the user's manager")},
                 id="a-role-moves-to-another-card"),
    pytest.param([["My team is Search."], ["I joined the Ranking team."]],
                 {"entities/teams/search.md": "# Search\n\n- No longer the user's team", "entities/teams/ranking.md": "# Ranking\n\n- The user's team"},
                 None, id="a-role-moves-in-a-session-commit"),
    pytest.param(["My current project is Atlas", "My other project is Hermes"],
                 {"entities/projects/atlas.md": "# Atlas\n\n- The user's current project",
                  "entities/projects/hermes.md": "# Hermes\n\n- The user's other project"}, None, id="another-role-leaves-the-first"),
    pytest.param([("as", "alice", "My manager is Dana"), ("as", "bob", "My manager is Sam")],
                 {"alice:entities/people/dana.md": "# Dana\n\n- The user's manager", "bob:entities/people/sam.md": "# Sam\n\n- The user's manager"},
                 None, id="a-role-is-per-user"),
    pytest.param(["Remember that the prod database backups run nightly at 2am"],
                 {"entities/systems/prod_database.md": "# Prod database\n\n- Backups run nightly at 2am"}, None, id="a-plural-part-of-a-system"),
    pytest.param(["I'd rather have small pull requests"],
                 {"preferences/default/small_pull_requests.md": "- Would rather have small pull requests"}, None, id="would-rather"),
    pytest.param(["I prefer Python over Go", "I prefer Go over Python now"],
                 {"preferences/default/go.md": "- Prefers Go over Python", "preferences/default/python.md": "- No longer prefers Python"},
                 None, id="a-named-rival-is-negated"),
    pytest.param(["Remember that the staging DB password rotates monthly"],
                 {"entities/systems/staging_db.md": "# Staging DB\n\n- Password rotates monthly"}, None, id="a-fact-about-a-systems-part"),
    pytest.param(["Note that the prod cluster is in eu-west-1", "Actually the prod cluster is in eu-central-1"],
                 {"entities/systems/prod_cluster.md": "# Prod cluster\n\n- Is in eu-central-1"}, None, id="remembered-fact-actually-corrected"),
    pytest.param(["Our CI runs on GitHub Actions", "We moved CI to Buildkite"], {"entities/systems/ci.md": "# CI\n\n- Moved to Buildkite"},
                 None, id="a-system-moved"),
    pytest.param(["Our Kafka cluster lives in us-east-1", "Actually our Kafka cluster is in us-west-2 now"],
                 {"entities/systems/kafka_cluster.md": "# Kafka cluster\n\n- Is in us-west-2"}, None, id="a-place-corrected-with-another-verb"),
    pytest.param(["Remember that the staging DB is in us-east-1", "Remember that the staging DB runs on Kubernetes",
                  "Actually the staging DB is on port 5433"],
                 {"entities/systems/staging_db.md": "# Staging DB\n\n- Is in us-east-1\n- Runs on Kubernetes\n- Is on port 5433"}, None,
                 id="a-port-is-no-place"),
    pytest.param(["We deploy with ArgoCD", "We replaced ArgoCD with Flux"], {"profile.md": "- Team deploys with Flux"}, None,
                 id="replaced-x-with-y"),
    pytest.param(["We use Jira for tickets", "We switched from Jira to Linear"], {"profile.md": "- Team uses Linear for tickets"}, None,
                 id="a-team-tool-switched"),
    pytest.param(["We shipped v2 yesterday"], {f"events/{TODAY:%Y/%m/%d}/v2.md":
                 f"- We shipped v2 yesterday ({TODAY - timedelta(days=1):%Y-%m-%d})"}, None, id="a-dated-team-note-is-an-event"),
    pytest.param(["I'm on macOS", "I'm on Linux now"], {"profile.md": "- OS: Linux"}, None, id="a-first-person-fact-corrected"),
    # (found by a review) a dated note is filed under its day and its text keeps the date: its name says neither
    pytest.param(["Remember: dentist tomorrow at 3pm"], {f"events/{TODAY:%Y/%m/%d}/dentist.md":
                 f"- Dentist tomorrow ({TODAY + timedelta(days=1):%Y-%m-%d}) at 3pm"}, None, id="a-dated-note-is-named-without-its-day"),
    pytest.param(["Remember that the plumber comes tonight", "Remember that on 2027-01-04 the office reopens",
                  "Remember that the board review is next Thursday"],
                 {f"events/{TODAY:%Y/%m/%d}/plumber_comes.md": "- The plumber comes tonight",
                  f"events/{TODAY:%Y/%m/%d}/office_reopens.md": "- On 2027-01-04 the office reopens",
                  f"events/{TODAY:%Y/%m/%d}/board_review.md": "- The board review is next Thursday"}, None,
                 id="notes-written-after-are-named-without-their-days"),

    # --- a known tool said as a change is the value of its key, whatever the stored key's wording (kinds.py)
    pytest.param(["My editor is Sublime Text", "I switched to Emacs a while ago"], {"profile.md": "- Editor: Emacs"}, None,
                 id="switched-to-a-tool-of-a-key"),
    pytest.param(["My default shell is zsh", "I use Neovim for everything", "I'm using nushell these days", "Actually, I use Helix now"],
                 {"profile.md": "- Shell: nushell\n- Editor: Helix"}, None, id="a-changed-tool-replaces-its-kinds-lines"),
    pytest.param(["My default shell is zsh", "My shell is fish", "I'm on macOS", "My operating system is Fedora"],
                 {"profile.md": "- Shell: fish\n- Operating system: Fedora"}, None, id="a-key-of-a-kind-in-other-words"),
    pytest.param(["I use Vim", "I use Emacs", "I use fish tacos in demos", "I use bash now"],
                 {"profile.md": "- Uses Vim\n- Uses Emacs\n- Uses fish tacos in demos\n- Shell: bash"}, None,
                 id="tools-said-without-a-change-stand-together"),
    pytest.param(["My editor is Vim because it's fast"], {"profile.md": "- Editor: Vim"}, None, id="a-reason-is-not-the-value"),
    pytest.param(["My editor is Vim, which I've used for years"], {"profile.md": "- Editor: Vim"}, None, id="an-aside-is-not-the-value"),
    pytest.param(["My editor is Vim, because it's fast"], {"profile.md": "- Editor: Vim"}, None, id="a-reason-after-a-comma"),
    # an aside at either end of a statement is no part of it ("by the way", "btw", "FYI", ...)
    pytest.param(["My manager is Dana by the way"], {"entities/people/dana.md": "# Dana\n\n- The user's manager"}, None,
                 id="by-the-way-is-not-the-name"),
    pytest.param(["My editor is Vim by the way"], {"profile.md": "- Editor: Vim"}, None, id="by-the-way-is-not-the-value"),
    pytest.param(["By the way, my editor is Vim"], {"profile.md": "- Editor: Vim"}, None, id="leading-by-the-way"),
    pytest.param(["I prefer tabs, btw"], {"preferences/default/tabs.md": "- Prefers tabs"}, None, id="trailing-btw"),
    pytest.param(["BTW my shell is fish"], {"profile.md": "- Shell: fish"}, None, id="leading-btw"),
    pytest.param(["I work at Acme FYI"], {"profile.md": "- Works at Acme"}, None, id="trailing-fyi"),
    pytest.param(["My team is Platform, just fyi"], {"entities/teams/platform.md": "# Platform\n\n- The user's team"}, None,
                 id="trailing-just-fyi"),
    pytest.param(["FYI: I'm a backend engineer"], {"profile.md": "- Is a backend engineer"}, None, id="leading-fyi"),
    pytest.param(["I live in Berlin, for what it's worth"], {"profile.md": "- Lives in Berlin"}, None, id="trailing-for-what-its-worth"),
    pytest.param(["For what it’s worth, I prefer dark mode"], {"preferences/default/dark_mode.md": "- Prefers dark mode"}, None,
                 id="leading-for-what-its-worth"),
    pytest.param(["I always squash commits fwiw"], {"preferences/default/squash_commits.md": "- Always squash commits"}, None,
                 id="trailing-fwiw"),
    pytest.param(["My timezone is CET, just so you know"], {"profile.md": "- Timezone: CET"}, None, id="trailing-just-so-you-know"),
    pytest.param(["Just so you know, my timezone is CET"], {"profile.md": "- Timezone: CET"}, None, id="leading-just-so-you-know"),
    pytest.param(["As a heads-up, my shell is zsh"], {"profile.md": "- Shell: zsh"}, None, id="leading-as-a-heads-up"),
    pytest.param(["Remember that the staging DB is on port 5433, as a heads-up"],
                 {"entities/systems/staging_db.md": "# Staging DB\n\n- Is on port 5433"}, None, id="trailing-as-a-heads-up"),
    pytest.param(["I like jazz, for the record"], {"preferences/default/jazz.md": "- Likes jazz"}, None, id="trailing-for-the-record"),
    pytest.param(["My shell is fish btw, because it is fast"], {"profile.md": "- Shell: fish"}, None, id="an-aside-then-a-reason"),
    pytest.param(["My editor is Vim. Just FYI."], {"profile.md": "- Editor: Vim"}, None, id="an-aside-alone-is-no-note"),
    pytest.param([["My manager is Dana by the way.", "By the way, I prefer tabs btw."]],
                 {"entities/people/dana.md": "# Dana\n\n- The user's manager", "preferences/default/tabs.md": "- Prefers tabs"}, None,
                 id="asides-in-a-session-commit"),
    pytest.param(["My favourite album is By the Way"], {"profile.md": "- Favourite album: By the Way"}, None,
                 id="a-title-that-reads-like-an-aside-is-the-value"),
    pytest.param([["My manager said her editor is Emacs."]], {}, None, id="reported-speech-is-not-the-users"),
    pytest.param(["I use VS Code", "I don't use VS Code anymore, I use Cursor"], {"profile.md": "- No longer uses VS Code\n- Uses Cursor"},
                 None, id="comma-splice"),
    pytest.param(["My editor is Vim - my shell is fish"], {"profile.md": "- Editor: Vim\n- Shell: fish"}, None, id="dash"),
    # (found by an audit) " so " after a value opens what follows from it, whatever its verb
    pytest.param(["My timezone is Europe/Berlin so schedule the export cron for 06:00 my time. My shell is fish so adjust the install script. "
                  "My editor is Helix so configure the LSP for it."],
                 {"profile.md": "- Timezone: Europe/Berlin\n- Shell: fish\n- Editor: Helix"}, None, id="a-value-ends-before-so-and-a-request"),
    pytest.param(["I'm in Berlin, so my timezone is CET"], {"profile.md": "- Is in Berlin\n- Timezone: CET"}, None, id="so-my"),
    pytest.param(["I work at Acme", "I left Acme and now work at Initech"], {"profile.md": "- Works at Initech"}, None,
                 id="left-and-now-work-at"),  # (the employer line says where they work: "Left Acme" beside it said no more)
    # --- more correction markers, and standing facts about systems and teams --------------------
    pytest.param(["My editor is Vim", "Scratch that, my editor is Helix"], {"profile.md": "- Editor: Helix"}, None,
                 id="scratch-that-corrects"),
    pytest.param(["My editor is Vim", "No wait, my editor is Helix"], {"profile.md": "- Editor: Helix"}, None, id="no-wait-corrects"),
    pytest.param(["Update: the prod cluster is in eu-central-1"], {"entities/systems/prod_cluster.md": "# Prod cluster\n\n- Is in eu-central-1"},
                 None, id="update-colon-is-a-marker"),
    pytest.param(["My timezone is PST", "Correction: I'm on Eastern time now, I moved to New York"],
                 {"profile.md": "- Timezone: Eastern time\n- Moved to New York"}, None, id="on-a-time-is-a-timezone"),
    pytest.param(["The billing service runs on port 8443 behind nginx"],
                 {"entities/systems/billing_service.md": "# Billing service\n\n- Runs on port 8443 behind nginx"}, None,
                 id="a-service-fact-is-standing"),
    pytest.param(["The payments team owns the ledger service"], {"entities/teams/payments.md": "# Payments\n\n- Owns the ledger service"},
                 None, id="a-team-fact-is-the-teams"),
    pytest.param(["We use MySQL for the orders database", "We migrated the orders database to Postgres"],
                 {"entities/systems/orders_database.md": "# Orders database\n\n- Moved to Postgres"}, None, id="we-use-x-for-a-system"),
    pytest.param(["We run Node 18 on the build servers", "I was wrong, the build servers are on Node 20"],
                 {"entities/systems/build_servers.md": "# Build servers\n\n- Are on Node 20"}, None, id="another-version-replaces"),
    pytest.param(["We're on Postgres 15 in production"], {"profile.md": "- Team is on Postgres 15 in production"}, None, id="we-are-on"),
    pytest.param(["The search service is owned by the data team", "Heads up: ownership of the search service moved to the platform team"],
                 {"entities/systems/search_service.md": "# Search service\n\n- Is owned by the platform team"}, None, id="ownership-moved"),
    pytest.param(["When you write tests, use pytest, not unittest"],
                 {"preferences/default/pytest.md": "- When you write tests, use pytest, not unittest"}, None, id="when-you-instruction"),
    pytest.param(["Whenever you touch the schema, add a migration"],
                 {"preferences/default/add_migration.md": "- Whenever you touch the schema, add a migration"}, None,
                 id="whenever-you-any-verb-of-the-work"),
    # a heading before the statement ("Huge news:") and when it happened ("three weeks ago") leave it read
    pytest.param(["I live in Madrid", "Huge news: I moved to Valencia."], {"profile.md": "- Lives in Valencia"}, None,
                 id="a-heading-before-a-move-leaves-it-read"),
    pytest.param(["I work at Initech", "Personal update - I joined Hooli three weeks ago"], {"profile.md": "- Works at Hooli"}, None,
                 id="a-heading-and-a-time-around-a-new-employer-leave-it-read"),
    pytest.param(["I live in Oslo", "Exciting news, I moved to Bergen last spring"], {"profile.md": "- Lives in Bergen"}, None,
                 id="a-heading-before-a-comma-leaves-a-move-read"),
    pytest.param(["I work at Acme", "Life update \u2014 I joined Umbrella a few days ago"], {"profile.md": "- Works at Umbrella"}, None,
                 id="a-heading-before-a-dash-leaves-a-new-employer-read"),
    pytest.param(["I work at Shopify", "I don't work at Shopify anymore, I joined Datadog last month"], {"profile.md": "- Works at Datadog"},
                 None, id="joined-a-new-employer"),
    # (found by an audit) a new employer however said, in a session as with remember, replaces the old
    pytest.param([["I work at Shopify."], ["I don't work at Shopify anymore, I joined Datadog."]], {"profile.md": "- Works at Datadog"},
                 {"profile.md": ("- Works at Shopify", "- Works at Datadog")}, id="joined-a-new-employer-in-a-session"),
    pytest.param([["I work at Shopify."], ["I left Shopify, I'm at Globex now."]], {"profile.md": "- Works at Globex"}, None,
                 id="left-one-and-at-another-in-a-session"),
    pytest.param(["I work at Shopify", "I left Shopify, I'm at Globex now."], {"profile.md": "- Works at Globex"}, None,
                 id="left-one-and-at-another-remembered"),
    pytest.param([["I work for Acme."], ["I quit Acme and joined Initech as a staff engineer."]], {"profile.md": "- Works at Initech"}, None,
                 id="quit-one-and-joined-another"),
    # (found by a review) "I'm at X now" alone is where the user is, never the employer, stored or not
    pytest.param([["I work at Acme."], ["Sorry for the slow replies, I'm at Starbucks now."]], {"profile.md": "- Works at Acme"}, None,
                 id="at-a-place-now-keeps-the-employer"),
    pytest.param([["I work at Acme."], ["I'm at Heathrow now.", "ok I'm at Home now. Let's continue"]], {"profile.md": "- Works at Acme"},
                 None, id="at-places-now-keep-the-employer"),
    pytest.param([["I'm at Starbucks now."]], {}, None, id="at-a-place-now-in-a-session"),
    pytest.param([["I work at Acme."], ["I work at Globex now."]], {"profile.md": "- Works at Globex"}, None, id="work-at-another-now"),
    pytest.param([["I work at Acme."], ["I'm working at Globex now."]], {"profile.md": "- Works at Globex"}, None,
                 id="working-at-another-now"),
    # (found by a review) a nested list, or a list item's indented paragraph, is the user's text, not code
    pytest.param([["Some things about me:\n\n- Editors:\n\n    - My editor is Emacs\n    - I prefer tabs over spaces\n"]],
                 {"profile.md": "- Editor: Emacs", "preferences/default/tabs.md": "- Prefers tabs over spaces"}, None, id="a-nested-list-is-no-code"),
    pytest.param([["About me\n\n1. Work\n\n    I work at Acme as a data engineer.\n\n2. Tools\n\n    My editor is Emacs."]],
                 {"profile.md": "- Works at Acme as a data engineer\n- Editor: Emacs"}, None, id="a-list-items-paragraph-is-no-code"),
    pytest.param([["My schedule:\nMonday 9:30\nI prefer async standups over meetings.\nMy editor is Emacs."]],
                 {"profile.md": "- Editor: Emacs", "preferences/default/async_standups.md": "- Prefers async standups over meetings"}, None,
                 id="a-schedule-line-is-no-chat-log"),
    pytest.param([["Hey Gemini,\nI prefer tabs over spaces.\nThanks, Gemini", "Hi,\nMy editor is Emacs.\nThanks,\nBob"]],
                 {"profile.md": "- Editor: Emacs", "preferences/default/tabs.md": "- Prefers tabs over spaces"}, None,
                 id="a-message-to-the-agent-is-no-letter"),
    pytest.param([["I work at Acme."], ["I'm working at home today."]], {"profile.md": "- Works at Acme"}, None, id="working-at-home"),
    # ... and leaving one place for another is a new employer only when the place left is the stored employer
    pytest.param([["I quit Twitter and joined Bluesky."]], {}, None, id="quit-an-app-and-joined-another"),
    pytest.param([["I left Slack and joined Discord."]], {}, None, id="left-an-app-and-joined-another"),
    pytest.param([["I left Berlin, I'm at Heathrow now."]], {}, None, id="left-a-city-for-an-airport"),
    pytest.param([["I work at Acme."], ["I quit Twitter and joined Bluesky."]], {"profile.md": "- Works at Acme"}, None,
                 id="quit-an-app-keeps-the-employer"),
    pytest.param(["I quit Twitter and joined Bluesky"], {}, None, id="quit-an-app-remembered"),
    pytest.param(["My main language is Java", "These days I mostly write Kotlin"], {"profile.md": "- Main language: Kotlin"}, None,
                 id="mostly-write-a-language"),
    # From a review: what only looks like a timezone or a language replaces nothing.
    pytest.param(["My timezone is PST", "I'm on GPT-4"], {"profile.md": "- Timezone: PST\n- Is on GPT-4"}, None, id="gpt-4-is-no-timezone"),
    pytest.param(["My language is German", "I mostly write Kotlin", "I mostly write PRs"],
                 {"profile.md": "- Language: German\n- Main language: Kotlin\n- Mostly writes PRs"}, None, id="a-spoken-language-stays"),
    pytest.param(["I develop on Windows", "Not on Windows anymore - I switched to Fedora Linux"], {"profile.md": "- Develops on Fedora Linux"},
                 None, id="not-on-x-anymore-switched-to-y"),
    pytest.param(["I prefer tabs", "I've come around to spaces"],
                 {"preferences/default/spaces.md": "- Prefers spaces", "preferences/default/tabs.md": "- No longer prefers tabs"}, None,
                 id="come-around-to"),
    pytest.param([["I'm on Pacific time."]], {"profile.md": "- Timezone: Pacific time"}, None, id="timezone-in-a-session"),
    pytest.param([["I joined Toastmasters last year.", "When you get a chance, use the new API.", "Update the docs."]], {}, None,
                 id="joined-when-you-and-update-in-a-session"),
    pytest.param([RETRY_SESSION], {
        "experiences/add_retry_logic_payment_client.md": RETRY_EXPERIENCE,
        "preferences/default/tenacity.md": "- Always use tenacity for retries",
        "preferences/default/retry.md": "- Never retry on 4xx errors",
        "profile.md": "- Editor: Neovim\n- Moved to Lisbon",
    }, None, id="a-working-session"),
    # --- said in a session, these stay unremembered: only what is asked to be kept is read so widely ---
    pytest.param([["We use Jira for tickets.", "Don't use tabs in this file.", "Use the new API here."]], {}, None,
                 id="team-talk-and-task-instructions-in-a-session"),
    pytest.param([["Never mind.", "Never do that again.", "Never use print here, use logging."]], {}, None, id="never-mind"),
    # talk, not instructions (all said in LoCoMo's conversations)
    pytest.param([["Never give up!", "Always good to hear!", "Never saw this coming.", "Always up for something sweet."]], {}, None,
                 id="never-and-always-in-talk"),
    pytest.param([["They brighten up our day and always make us smile."]], {}, None, id="and-always-in-talk"),
    pytest.param([["My favorite character is Aragorn, he grows so much throughout the story."]],
                 {"profile.md": "- Favorite character: Aragorn"}, None, id="an-aside-after-a-comma"),
    pytest.param([["I'm a huge fan of it, that's why I go!", "Allergies make it so I don't really want to get any."]], {}, None,
                 id="pointing-and-so-without-a-comma"),
    # --- what names someone or something, and what is only said of it today -----------------------
    pytest.param([["My manager is Dana Lee."], ["My manager is OOO until Monday, so the review waits."]],
                 {"entities/people/dana_lee.md": "# Dana Lee\n\n- The user's manager"}, None, id="a-status-is-no-new-manager"),
    pytest.param([["My boss is OK with the delay.", "My colleague is OOO today.", "My project is 2 weeks late.",
                   "My repo is GitHub-hosted.", "My team is US-based.", "My service is HTTP only.", "My company is AI-first."]],
                 {"profile.md": "- Repo: GitHub-hosted\n- Team: US-based\n- Service: HTTP only\n- Company: AI-first"}, None,
                 id="a-description-is-no-name"),
    pytest.param([["My manager is Ludwig van Beethoven.", "My company is Bank of America.", "My project is Atlas 2.",
                   "My colleague is Jean-Luc Picard.", "My product is Auth0-based."]],
                 {"entities/organizations/bank_of_america.md": "# Bank of America\n\n- The user's company",
                  "entities/people/jean-luc_picard.md": "# Jean-Luc Picard\n\n- The user's colleague",
                  "entities/people/ludwig_van_beethoven.md": "# Ludwig van Beethoven\n\n- The user's manager",
                  "entities/projects/atlas_2.md": "# Atlas 2\n\n- The user's project",
                  "profile.md": "- Product: Auth0-based"}, None, id="names-with-particles-numbers-and-hyphens"),
    pytest.param([["My test is failing with a timeout.", "My PR is #1234.", "My changes are in the stash.", "My team is blocked on this.",
                   "Actually, my build is green now.", "My project is due tomorrow.", "My terminal is showing weird characters.",
                   "My code is on the feature branch.", "My fix is to add a lock.", "My manager is out this week.", "My CI is red."]],
                 {}, None, id="how-a-thing-is-doing-today-is-no-profile-fact"),
    pytest.param([["My desk is on the third floor.", "My hobby is painting.", "My favourite colour is green.", "My car is red.",
                   "My role is back-end developer.", "My dream is to visit Japan.", "My favourite song is Bring It Back."]],
                 {"profile.md": "- Desk: on the third floor\n- Hobby: painting\n- Favourite colour: green\n- Car: red\n"
                                "- Role: back-end developer\n- Dream: to visit Japan\n- Favourite song: Bring It Back"}, None,
                 id="what-only-sounds-like-a-passing-state-stays"),
    pytest.param(["My build is green", "I'm such an idiot"],
                 {f"events/{TODAY:%Y/%m/%d}/build.md": "- My build is green",
                  f"events/{TODAY:%Y/%m/%d}/such_idiot.md": "- I'm such an idiot"}, None,
                 id="a-passing-remark-asked-to-be-kept-is-a-note-not-the-profile"),
    # (found by an audit) what points at the conversation or at a time that passes, what flatters the
    # assistant or proposes what to do now, and what takes itself back is no standing fact
    pytest.param([["my code is below", "My output is empty.", "My current directory is /tmp.", "My log is full of warnings.",
                   "The error is above, my traceback is attached."]], {}, None, id="the-work-at-hand-is-no-profile-fact"),
    pytest.param([["I'm a fan of your work.", "I love how fast this is.", "I love your explanations.", "I like how you structured it.",
                   "I prefer we go with option 2 for this PR.", "I prefer that we ship on Friday."]], {}, None,
                 id="compliments-and-proposals-are-no-preferences"),
    pytest.param([["I work on the frontend this sprint.", "I'm a release manager this week.", "I always get confused by this API.",
                   "I like these colours.", "Never touch this function."]], {}, None, id="this-sprint-and-this-api-are-of-the-moment"),
    pytest.param([["I prefer tabs - said no one ever.", "I love meetings... NOT!", "My editor is Vim, I think.", "I like Java. Just kidding."]],
                 {}, None, id="what-takes-itself-back"),
    pytest.param([["I prefer tabs, I believe.", "I believe my editor is Vim."]], {}, None, id="i-believe-hedges-as-i-think"),
    # (found by a review) a standing thing said with a word of the work at hand, or a convention the team keeps, is kept
    pytest.param([["My home directory is /home/bob.", "My working directory is usually ~/src.", "My output is always JSON."]],
                 {"profile.md": "- Home directory: /home/bob\n- Working directory: usually ~/src\n- Output: always JSON"}, None,
                 id="a-standing-directory-or-output"),
    pytest.param([["I prefer we keep PRs small.", "I prefer we use Postgres for new services.", "I prefer we go with this."]],
                 {"preferences/default/keep_prs_small.md": "- Keep PRs small (team convention)",
                  "preferences/default/postgres.md": "- Use Postgres for new services (team convention)"}, None,
                 id="a-team-convention-is-a-preference"),
    pytest.param([["I prefer tabs in this repo.", "My office is above the bakery.", "I prefer your answers short.", "I love how Rust handles errors.",
                   "I mostly write Kotlin these days."]],
                 {"preferences/default/tabs.md": "- Prefers tabs in this repo", "preferences/default/answers_short.md": "- Prefers your answers short",
                  "preferences/default/how_rust_handles.md": "- Loves how Rust handles errors",
                  "profile.md": "- Office: above the bakery\n- Main language: Kotlin"}, None, id="what-only-sounds-of-the-moment-stays"),
    # (found by an audit) a moment named in the reason given after a preference dates the reason, not the preference
    pytest.param([["I prefer httpx over requests because requests broke our retries last week.",
                   "I prefer squash merges; we lost a bisect to merge commits last month.",
                   "I prefer ruff over flake8, it caught two real bugs last time.", "I prefer Postgres this quarter."]],
                 {"preferences/default/httpx.md": "- Prefers httpx over requests because requests broke our retries last week",
                  "preferences/default/squash_merges.md": "- Prefers squash merges",
                  "preferences/default/ruff.md": "- Prefers ruff over flake8, it caught two real bugs last time"}, None,
                 id="a-moment-in-the-reason-after-a-preference"),
    # (found by an audit) asking the agent ("I want you to", "I'd like you to") is an imperative; it stands when it
    # says so, or after "from now on", "going forward", which make any instruction of the work a standing one
    pytest.param([["ok and also from now on I want you to always run ruff format before committing"],
                  ["going forward I want you to use httpx, not requests"], ["I'd like you to always write docstrings in Google style."],
                  ["Moving forward, add type hints to new functions."],
                  ["I want you to use the staging database for this.", "I'd like you to rename this function."]],
                 {"preferences/default/run_ruff_format.md": "- Always run ruff format before committing",
                  "preferences/default/httpx.md": "- Always use httpx, not requests",
                  "preferences/default/write_docstrings.md": "- Always write docstrings in Google style",
                  "preferences/default/add_type_hints.md": "- Always add type hints to new functions"}, None,
                 id="asking-the-agent-from-now-on-is-a-standing-instruction"),
    # (found by an audit) a contrast with what was just proposed ("though", "however") answers about the task at hand
    pytest.param([["I don't want a 10 minute leeway though, 30 seconds is plenty.", "I prefer a flat config file though.",
                   "I don't want retries on the webhook handler, however.", "I don't want mocks in integration tests."]],
                 {"preferences/default/mocks.md": "- Does not want mocks in integration tests"}, None, id="a-contrast-with-a-proposal-is-of-the-task"),
    # --- what the user says of the conversation is no standing taste ------------------------------
    pytest.param([["I like your suggestion.", "I prefer option B.", "I love Python but I hate its packaging.", "I never understood regexes.",
                   "I always forget the flag for this.", "I am an idiot, I forgot to save the file.",
                   "I prefer not to discuss the design right now.", "I like the second approach.", "I never liked Java."]],
                 {"preferences/default/python.md": "- Loves Python"}, None, id="remarks-on-the-conversation-are-no-preferences"),
    pytest.param([["I prefer your answers short.", "I always write tests first.", "I always need coffee.", "I hate Java packaging.",
                   "I am an engineer.", "I prefer the Go option."]],
                 {"preferences/default/answers_short.md": "- Prefers your answers short",
                  "preferences/default/write_tests_first.md": "- Always write tests first",  # a verb of the work: as an instruction
                  "preferences/default/coffee.md": "- Always needs coffee",
                  "preferences/default/java_packaging.md": "- Hates Java packaging",
                  "preferences/default/go_option.md": "- Prefers the Go option",
                  "profile.md": "- Is an engineer"}, None, id="standing-tastes-and-habits-stay"),
    # --- what the user quotes, dictates or pastes is not the user speaking ------------------------
    pytest.param([["Add a fixture user whose bio reads: I am a data scientist and I work at Initech."]], {}, None,
                 id="words-after-reads-colon-are-someone-elses"),
    pytest.param([["Add a user with this bio:\nI'm a teacher. I work at Initech.", "Error: I work at Globex"]], {}, None,
                 id="every-sentence-after-a-text-noun-colon-that-ends-its-line"),
    pytest.param([["I get this error: ModuleNotFoundError. I use Python 3.12 and my shell is fish.",
                   "The build log says: OK. I prefer tabs over spaces.", "Error: none. My editor is Vim.",
                   "Add a user with this bio: I'm a teacher. I work at Initech."]],
                 {"profile.md": "- Shell: fish\n- Editor: Vim\n- Works at Initech", "preferences/default/tabs.md": "- Prefers tabs over spaces"},
                 None, id="the-user-speaks-again-after-the-sentence-a-colon-introduces"),
    pytest.param([["The log says:\n\n I am a teapot\n- I work at Acme\n\nMy editor is Vim."]], {"profile.md": "- Editor: Vim"}, None,
                 id="pasted-lines-after-says-colon-end-at-a-blank-line"),
    pytest.param([["Write a test where the user says I prefer tabs and I like jazz.", "Bob told me I work too hard and I live in Berlin.",
                   "You said my editor is Emacs."]], {}, None, id="what-someone-else-says-i-am"),
    pytest.param([['Add a user whose bio is "I am a data scientist and I work at Initech".',
                   "Set the placeholder to 'I'm a teapot and I work at Acme'."]], {}, None, id="a-quotation-inside-a-sentence"),
    # (mem19: the task for now keeps nothing; the bio said as a fact is a note)
    pytest.param([("refused", "Add a fixture user whose bio reads: I am a data scientist and I work at Initech"),
                  "The fixture user's bio reads: I am a data scientist and I work at Initech"],
                 {"entities/systems/fixture_user_s_bio.md": "# Fixture user's bio\n\n- The fixture user's bio reads: I am a data scientist and I work at Initech"},
                 None, id="a-quoted-bio-asked-to-be-kept-is-a-note"),
    # (found by an audit) what was pasted: an email, a letter, a chat log, a review comment, a git
    # log; and what is framed as made up. None of it may become, or replace, the user's memory.
    pytest.param([["My editor is Neovim. I prefer double quotes."],
                  ["Can you reply to this?\n\nFrom: Dana <dana@acme.com>\nSubject: style\n\nI always use single quotes. My editor is Sublime."],
                  ["Summarise this thread.\n\nTo: ops@acme.com\nDate: Monday\n\nMy shell is fish.\n\nI work at Globex."]],
                 {"preferences/default/double_quotes.md": "- Prefers double quotes", "profile.md": "- Editor: Neovim"}, None,
                 id="a-pasted-email-is-not-the-users"),
    pytest.param([["Here's what Sarah sent me:\n\nHi Priya,\nI prefer meetings on Tuesdays.\nBest, Sarah",
                   "Dear team,\nI prefer async standups.\n\nI live in Oslo.\n\nCheers,\nTom", "Hi,\nmy editor is Vim.\nThanks!"]],
                 {"profile.md": "- Editor: Vim"}, None, id="a-letter-signed-by-someone-is-theirs"),
    pytest.param([["Bob Smith  10:42 AM\nI prefer tabs, my editor is Emacs", "[5/1/26, 10:42:01] Ann: I work at Initech",
                   "Alice \u2014 Today at 10:42 AM\nI live in Paris\n\nBob \u2014 Today at 10:43 AM\nMy shell is zsh",
                   "I have a standup at 10:30 AM. I prefer spaces."]],
                 {"preferences/default/spaces.md": "- Prefers spaces"}, None, id="a-pasted-chat-log-is-its-speakers"),
    pytest.param([["**bob** commented on line 42:\nI prefer early returns here.", "Alice suggested:\nI always squash my commits.",
                   "Dana forwarded this:\nI'm a designer."]], {}, None, id="a-pasted-review-comment-is-its-authors"),
    pytest.param([["Translate to German:\n\nMy name is Dmitri. I live in Lisbon. I prefer tea over coffee.",
                   "Here is the README intro, tighten it:\n\nMy name is Ana and I maintain the release process. I prefer small pull requests.",
                   "Could you make it sound friendlier: I work at Globex and my editor is Emacs.",
                   "I prefer British spelling. Please proofread this:\nI live in Boston. I prefer tabs."]],
                 {"preferences/default/british_spelling.md": "- Prefers British spelling"}, None, id="a-text-given-to-be-worked-on-is-not-the-users"),
    pytest.param([["commit abc123\nAuthor: Bob <bob@x.com>\n\n    I prefer explicit imports",
                   "Here's my config:\n\n    I prefer tabs\n    my editor = vim\n\nMy editor is Vim."]],
                 {"profile.md": "- Editor: Vim"}, None, id="a-git-log-and-an-indented-block-are-no-prose"),
    pytest.param([["In the test fixture, my name is John and I work at Initech.", "My name is Jane in this example.",
                   "For this mock, I live in Oslo.", "Let's say I work at Hooli.", "I use pytest for the mock server. I prefer tabs."]],
                 {"preferences/default/tabs.md": "- Prefers tabs"}, None, id="what-is-framed-as-made-up"),
    # ... while the user's own words around it, and what the user says they said, are theirs
    pytest.param([["The README says we use tabs, but I prefer spaces."]], {"preferences/default/spaces.md": "- Prefers spaces"}, None,
                 id="the-users-words-after-but"),
    pytest.param([['He said "I like jazz and I work at Acme." I prefer tabs.']], {"preferences/default/tabs.md": "- Prefers tabs"}, None,
                 id="the-users-words-after-a-quotation"),
    pytest.param([["I said I prefer tabs.", "As I mentioned, my editor is Vim."]],
                 {"preferences/default/tabs.md": "- Prefers tabs", "profile.md": "- Editor: Vim"}, None, id="what-the-user-says-they-said"),
    pytest.param([["FYI: I'm a backend engineer and I prefer tabs."]],
                 {"profile.md": "- Is a backend engineer", "preferences/default/tabs.md": "- Prefers tabs"}, None,
                 id="a-colon-after-a-marker-introduces-the-users-words"),
    # a colon after the user's own heading is no one else's words; after a speaker or a source it is
    pytest.param([["Two things: I prefer tabs and my editor is Vim.", "Preferences: my shell is fish.", "Some context: I work at Acme."]],
                 {"preferences/default/tabs.md": "- Prefers tabs", "profile.md": "- Editor: Vim\n- Shell: fish\n- Works at Acme"}, None,
                 id="a-colon-after-the-users-own-heading"),
    pytest.param([["He said: I work at Acme.", "Bob: I prefer tabs.", "Bob's notes: my editor is Emacs.", "Sample facts: I live in Oslo.",
                   "Two things: I am a nurse."]],
                 {"profile.md": "- Is a nurse"}, None, id="a-colon-after-a-speaker-or-a-source-is-theirs"),
    # a heading is the user's own only when every word of it is a heading's: naming a source or an
    # artefact ("Ticket details", "Interview notes") it introduces pasted words, whatever noun ends it
    pytest.param([["Ticket details: I work at Globex as a cashier.", "User story details: I am a store manager.",
                   "Customer feedback summary: I hate the new dashboard.", "Interview notes: I prefer remote work.",
                   "Bug report summary: my editor is Notepad.", "Persona info: I live in Lima.", "Email context: I am a pilot."]],
                 {}, None, id="a-heading-naming-a-source-introduces-its-words"),
    pytest.param([["Note: I prefer tabs.", "Quick note: my editor is Vim.", "My preferences: my shell is fish.",
                   "Update: I work at Acme.", "A few things about me: I live in Oslo."]],
                 {"preferences/default/tabs.md": "- Prefers tabs", "profile.md": "- Editor: Vim\n- Shell: fish\n- Works at Acme\n- Lives in Oslo"},
                 None, id="a-bare-heading-of-the-users-own"),
    pytest.param([['My favourite quote is "my way or the highway".']], {"profile.md": '- Favourite quote: "my way or the highway"'}, None,
                 id="a-quoted-value-is-kept-whole"),
    # (found by an audit) the same choice said again is not stored again; said with more, it extends the line
    pytest.param([["I prefer tabs over spaces"], ["I prefer tabs"], ["I prefer using tabs"]], {"preferences/default/tabs.md": "- Prefers tabs over spaces"},
                 None, id="the-same-choice-is-stored-once"),
    # (found by an audit) a habit said again with backticks, an article or another form of its verb is the same line
    pytest.param([["for the record I always run tests with `pytest -x -q`, don't run the whole verbose suite every time."],
                  ["I always run tests with pytest -x -q."], ["Always run the tests with pytest -x -q."],
                  ["I always lint the code with `ruff check`."], ["I always lint code with ruff check."], ["Always linting the code with ruff check."]],
                 {"preferences/default/run_tests.md": "- Always run tests with `pytest -x -q`, don't run the whole verbose suite every time",
                  "preferences/default/lint_code.md": "- Always lint the code with `ruff check`"}, None, id="the-same-habit-in-other-words-is-stored-once"),
    pytest.param(["I prefer tabs", "I prefer using tabs", "I prefer tabs over spaces", "I prefer tabs rather than spaces"],
                 {"preferences/default/tabs.md": "- Prefers tabs over spaces"}, None, id="a-choice-said-with-more-extends-its-line"),
    pytest.param(["I like Go over Python", "I like Go", "I like Go over Rust", "I prefer Go"],
                 {"preferences/default/go.md": "- Likes Go over Python\n- Likes Go over Rust\n- Prefers Go"}, None,
                 id="another-alternative-or-feeling-is-another-line"),
    # (found by an audit) a comma after a short first clause splits, and the topic is the first clause's
    pytest.param([["My editor is Neovim."], ["I prefer tabs, my editor is Emacs"]],
                 {"preferences/default/tabs.md": "- Prefers tabs", "profile.md": "- Editor: Emacs"}, None, id="a-short-clause-and-a-comma"),
    pytest.param([["I like jazz, my favourite band is Muse.", "I hate Java, I use Kotlin."]],
                 {"preferences/default/jazz.md": "- Likes jazz", "preferences/default/java.md": "- Hates Java",
                  "profile.md": "- Favourite band: Muse"}, None, id="short-clauses-and-commas"),
    # --- "X over Y": the file is the preferred thing's, even a word that starts no topic ------------
    pytest.param(["I prefer Make over CMake"], {"preferences/default/make.md": "- Prefers Make over CMake"}, None, id="make-over-cmake"),
    # ... a thing, not a verb of what is done over something: the topic is then what follows "over"
    pytest.param(["I prefer working over SSH"], {"preferences/default/ssh.md": "- Prefers working over SSH"}, None, id="working-over-ssh"),
    pytest.param(["I like working over the weekend"], {"preferences/default/weekend.md": "- Likes working over the weekend"}, None,
                 id="working-over-the-weekend"),
    pytest.param(["I like to work over the weekend"], {"preferences/default/weekend.md": "- Likes to work over the weekend"}, None,
                 id="to-work-over-the-weekend"),
    # (a preference naming no alternative went to general.md: its one word is a verb, as in "Make over CMake")
    pytest.param(["I prefer Make"], {"preferences/default/make.md": "- Prefers Make"}, None, id="make-alone"),
    pytest.param(["I prefer Make", "I prefer CMake over Make"],
                 {"preferences/default/cmake.md": "- Prefers CMake over Make", "preferences/default/make.md": "- No longer prefers Make"},
                 None, id="make-alone-then-a-rival"),
    pytest.param(["I prefer CMake", "I prefer Make instead of CMake"],
                 {"preferences/default/make.md": "- Prefers Make instead of CMake", "preferences/default/cmake.md": "- No longer prefers CMake"},
                 None, id="make-instead-of-cmake-after-cmake"),
    pytest.param(["I prefer tabs rather than spaces"], {"preferences/default/tabs.md": "- Prefers tabs rather than spaces"}, None,
                 id="tabs-rather-than-spaces-stays-tabs"),
    # --- a line typed with a decomposed accent is the same line ------------------------------------
    pytest.param(["My favourite drink is caf\u00e9 au lait", "My favourite drink is cafe\u0301 au lait"],
                 {"profile.md": "- Favourite drink: caf\u00e9 au lait"}, {}, id="a-decomposed-accent-is-the-same-value"),
    pytest.param(["I like cafe\u0301 au lait", "I like caf\u00e9 au lait", "I like cafe\u0301 au lait"],
                 {"preferences/default/caf\u00e9_au_lait.md": "- Likes caf\u00e9 au lait"}, {}, id="a-decomposed-accent-is-the-same-line"),
    # --- a PIN's digits are a secret; a pin's number is not ----------------------------------------
    pytest.param([["My editor is Vim. The PIN for the door is 4921. My PIN is: 8812.", "PIN 3 on the GPIO header is ground."]],
                 {"profile.md": "- Editor: Vim"}, None, id="a-pins-digits-are-never-kept"),
    pytest.param(["Remember that PIN 3 on the GPIO header is ground"],
                 {"entities/systems/pin_3.md": "# PIN 3\n\n- PIN 3 on the GPIO header is ground"}, None, id="a-pins-number-is-kept"),
    # --- a period after an abbreviation, an initial or inside a word ends no sentence -------------
    pytest.param([["My mentor is Dr. Smith."]], {"entities/people/dr_smith.md": "# Dr. Smith\n\n- The user's mentor"}, None,
                 id="dr-smith-is-one-name"),
    pytest.param([["My favourite author is J. R. R. Tolkien. I work at Acme Inc. in Berlin. I prefer tabs, e.g. in Go."]],
                 {"profile.md": "- Favourite author: J. R. R. Tolkien\n- Works at Acme Inc. in Berlin",
                  "preferences/default/tabs.md": "- Prefers tabs, e.g. in Go"}, None, id="initials-and-abbreviations-inside-a-sentence"),
    pytest.param([["I work at Acme Inc. My grade is B. My editor is Vim."]],
                 {"profile.md": "- Works at Acme Inc\n- Grade: B\n- Editor: Vim"}, None, id="an-abbreviation-or-initial-may-still-end-one"),
    pytest.param([["Fix the timeout in config.py.", ("assistant", [said("Raising the timeout in config.py to 3.5 s, e.g. for slow CI. Then testing."),
                                                                  edit("config.py")]), "That fixed it."]],
                 {"experiences/fix_timeout_config.md": "## Situation\n\nGoal: fix the timeout in config.py.\n\n## Approach\n\n"
                  "1. Raising the timeout in config.py to 3.5 s, e.g. for slow CI\n2. edit: `config.py`\n\n## Reflect\n\n"
                  "Outcome: success; the user confirmed \"That fixed it\" (2026-05-01)."}, None, id="a-step-is-not-cut-inside-a-file-name"),
    # --- the user's "my" in a line said of them, or in an instruction their habit became -----------
    pytest.param(["I always review my own PRs", "I always walk my dog at noon", "My favourite place is my garden"],
                 {"preferences/default/review_my_own.md": "- Always review your own PRs",
                  "preferences/default/walk_my_dog.md": "- Always walks their dog at noon", "profile.md": "- Favourite place: their garden"},
                 None, id="first-person-in-a-stored-line"),
    pytest.param(["Always review my PRs before merging"], {"preferences/default/review_my_prs.md": "- Always review my PRs before merging"},
                 None, id="an-instruction-keeps-the-users-my"),
    pytest.param(["Always review my own PRs", "I never review my own PRs"], {"preferences/default/review_my_own.md": "- Never review your own PRs"},
                 None, id="a-habit-replaces-its-line-in-the-older-wording"),
    pytest.param(["I always review my own PRs", "Never review my own PRs"], {"preferences/default/review_my_own.md": "- Never review my own PRs"},
                 None, id="never-replaces-a-habits-your"),
    pytest.param(["Never review my own PRs", "I always review my own PRs"],
                 {"preferences/default/review_my_own.md": "- Always review your own PRs"}, None, id="a-habit-replaces-never-my"),
    pytest.param(["I always review my own PRs", "Always review my own PRs"], {"preferences/default/review_my_own.md": "- Always review my own PRs"},
                 None, id="a-habit-and-its-instruction-are-one-line"),
    pytest.param(["I prefer tabs in my Go code", "I prefer spaces in my Go code"],
                 {"preferences/default/tabs.md": "- No longer prefers tabs in their Go code",
                  "preferences/default/spaces.md": "- Prefers spaces in their Go code"}, None, id="a-rival-in-their-context"),
    # --- a habit without an object is filed under what it is about, "general" only with no word left
    pytest.param(["I always need coffee", "I never need coffee"], {"preferences/default/coffee.md": "- Never needs coffee"}, None,
                 id="a-need-is-filed-under-what-is-needed"),
    pytest.param(["I prefer VS Code for Go", "I prefer tabs vs spaces", "I like AT&T over Verizon"],
                 {"preferences/default/vs_code.md": "- Prefers VS Code for Go", "preferences/default/tabs.md": "- Prefers tabs vs spaces",
                  "preferences/default/at_t.md": "- Likes AT&T over Verizon"}, None, id="a-name-that-starts-with-a-qualifiers-word"),
    # --- a word that points back, unless a capital makes it a name's ---------------------------------
    pytest.param(["I like US politics", "I love This Is Us", "I enjoy It Follows"],
                 {"preferences/default/us_politics.md": "- Likes US politics", "preferences/default/this_is_us.md": "- Loves This Is Us",
                  "preferences/default/it_follows.md": "- Enjoys It Follows"}, None, id="a-capitalised-pronoun-names-a-thing"),
    pytest.param([["I like US politics. I love it. I LIKE THIS!"]], {"preferences/default/us_politics.md": "- Likes US politics"}, None,
                 id="a-pronoun-still-points-back"),
    # --- the team's way of working, wished for: a convention the agent follows -----------------------
    pytest.param(["I prefer we keep PRs small", "I'd rather we never merge on Fridays", "I like that we write tests first"],
                 {"preferences/default/keep_prs_small.md": "- Keep PRs small (team convention)",
                  "preferences/default/merge.md": "- Never merge on Fridays (team convention)",
                  "preferences/default/write_tests_first.md": "- Write tests first (team convention)"}, None, id="a-team-convention"),
    pytest.param([["I prefer we keep PRs small."], "Never keep PRs small"], {"preferences/default/keep_prs_small.md": "- Never keep PRs small"},
                 None, id="an-instruction-replaces-the-convention-it-contradicts"),
    pytest.param([["I prefer we go with option 2. I prefer we ship on Friday."]], {}, None, id="a-proposal-for-the-task-is-no-convention"),
    # --- leaving the employer: a corporate suffix names the same company; a role there ends too --------
    pytest.param(["I work at Acme", "I left Acme Corp"], {"profile.md": "- No longer works at Acme Corp"}, None, id="left-acme-corp"),
    pytest.param(["I work at Acme Inc.", ["I left Acme."]], {"profile.md": "- No longer works at Acme"}, None, id="left-acme-in-a-session"),
    pytest.param([["I left Berlin."], "I left Berlin"], {"profile.md": "- Left Berlin"}, None, id="leaving-what-is-no-employer"),
    # (found by a review: "I quit my job at Meta" was "Quits their job at Meta" beside "Works at Meta")
    pytest.param(["I work at Meta", "I quit my job at Meta"], {"profile.md": "- No longer works at Meta"}, None, id="quit-my-job-at"),
    pytest.param(["I work at Acme", "I left my job at Acme, now I work at Initech"], {"profile.md": "- Works at Initech"}, None,
                 id="left-my-job-at-for-another"),
    # leaving in one sentence and being elsewhere in the next is one change, a correction's marker before it or not
    pytest.param(["I'm a data engineer at Umbrella.", "Correction: I left Umbrella in May. I'm at Wayne Labs now, same kind of job."],
                 {"profile.md": "- Works at Wayne Labs"}, None, id="left-then-at-in-the-next-sentence"),
    pytest.param(["I work at Acme", "I quit Acme last year. Now I work at Globex."], {"profile.md": "- Works at Globex"}, None,
                 id="quit-then-work-at-in-the-next-sentence"),
    pytest.param(["I work at Acme", "I left my umbrella at Acme"],
                 {"profile.md": "- Works at Acme", f"events/{TODAY:%Y/%m/%d}/umbrella.md": "- I left my umbrella at Acme"}, None,
                 id="leaving-a-thing-at-the-employer"),
    pytest.param(["I'm a backend engineer at Stripe", "I joined Figma"], {"profile.md": "- Works at Figma"}, None, id="a-role-at-the-old-employer"),
    pytest.param(["I'm a backend engineer at Stripe", "I don't work at Stripe anymore, I'm at Figma"], {"profile.md": "- Works at Figma"}, None,
                 id="a-role-at-the-employer-left"),
    pytest.param(["I'm a data scientist at Stripe Inc", "I no longer work at Stripe"], {"profile.md": "- No longer works at Stripe"}, None,
                 id="no-longer-at-a-company-with-a-suffix"),
    pytest.param(["I'm a regular at the gym", "I joined Figma"], {"profile.md": "- Is a regular at the gym\n- Works at Figma"}, None,
                 id="a-role-at-no-company"),
    # --- a time that ends, in the key as in the value ----------------------------------------------
    pytest.param(["My team this quarter is platform"],
                 {f"events/{TODAY:%Y/%m/%d}/team_this_quarter.md": "- My team this quarter is platform"}, None, id="my-team-this-quarter"),
    pytest.param([["My team this quarter is platform. My focus this week is billing."]], {}, None, id="keys-of-the-moment-in-a-session"),
    # --- a state of the moment is no fact about the user: which piece of work they are on, where a thing
    # they carry is, how they are or what they do today, what just happened (a dated note when asked)
    pytest.param(["My current ticket is PROJ-123", "My default branch is main", "My laptop is a ThinkPad"],
                 {f"events/{TODAY:%Y/%m/%d}/current_ticket.md": "- My current ticket is PROJ-123",
                  "profile.md": "- Default branch: main\n- Laptop: a ThinkPad"}, None, id="the-work-item-of-the-moment"),
    pytest.param(["My keys are in the car", "My laptop is on Fedora 40"],
                 {f"events/{TODAY:%Y/%m/%d}/keys.md": "- My keys are in the car", "profile.md": "- Laptop: on Fedora 40"}, None,
                 id="where-a-carried-thing-is"),
    pytest.param(["I'm on call", "I'm at the vet", "I'm reviewing a PR"],
                 {f"events/{TODAY:%Y/%m/%d}/call.md": "- I'm on call", f"events/{TODAY:%Y/%m/%d}/vet.md": "- I'm at the vet",
                  f"events/{TODAY:%Y/%m/%d}/review_pr.md": "- I'm reviewing a PR"}, None, id="the-users-state-of-the-moment"),
    pytest.param(["I'm learning Rust", "I'm studying Japanese", "I'm training for a marathon", "I'm debugging the parser"],
                 {"profile.md": "- Is learning Rust\n- Is studying Japanese\n- Is training for a marathon",
                  f"events/{TODAY:%Y/%m/%d}/debugging_parser.md": "- I'm debugging the parser"}, None,
                 id="a-pursuit-lasts-a-task-passes"),
    pytest.param(["im not sure about the schema"], {f"events/{TODAY:%Y/%m/%d}/sure_about_schema.md": "- I'm not sure about the schema"}, None,
                 id="unsure-of-the-moment"),
    pytest.param(["Our deploy config is in k8s/prod", "The Ansible playbooks are in ops/ansible", ["Our Ansible playbooks moved to infra/ansible."]],
                 {"entities/systems/deploy_config.md": "# Deploy config\n\n- Is in k8s/prod",
                  "entities/systems/ansible_playbooks.md": "# Ansible playbooks\n\n- Moved to infra/ansible"}, None,
                 id="what-the-team-keeps-in-files-is-at-a-path"),
    pytest.param(["I'm off sick with the flu", "We're moving offices this week"],
                 {f"events/{TODAY:%Y/%m/%d}/off_sick.md": "- I'm off sick with the flu",
                  f"events/{TODAY:%Y/%m/%d}/moving_offices.md": "- We're moving offices this week"}, None,
                 id="a-note-is-named-by-its-content-words-not-its-speaker"),
    pytest.param([("stored", "profile.md", "- Ide: PyCharm"), "My CI provider is CircleCI", "my os is Arch", "My IDE is Zed"],
                 {"profile.md": "- IDE: Zed\n- CI provider: CircleCI\n- OS: Arch"}, None, id="an-initialism-in-a-key-keeps-its-capitals"),
    pytest.param(["I grew up in Porto", "I dropped my phone"],
                 {"profile.md": "- Grew up in Porto", f"events/{TODAY:%Y/%m/%d}/phone.md": "- I dropped my phone"}, None,
                 id="a-happening-is-a-note-a-life-is-a-fact"),
    pytest.param([["My current branch is feature/login. I'm out sick. My laptop is at home. I'm a data engineer."]],
                 {"profile.md": "- Is a data engineer"}, None, id="states-of-the-moment-in-a-session"),
    # --- a task for now is no standing instruction: "all" sweeps what exists, a verb of doing names a thing in view
    # (mem19: and keeps nothing, not even a dated note: see ov.sessions.memory.moment)
    pytest.param([("refused", "Upgrade all packages"), ("refused", "Run the linter"), "Run linters before every push", "Write commit messages in English",
                  "Write the docs with MkDocs"],
                 {"preferences/default/run_linters.md": "- Run linters before every push",
                  "preferences/default/write_commit_messages.md": "- Write commit messages in English",
                  "preferences/default/write_docs.md": "- Write the docs with MkDocs"}, None, id="a-task-for-now"),
    # --- casual typing: a contraction without its apostrophe, a key of the user's setup without "my"
    # (asked to remember: in a session "shell is bash" is as often a container's), "A > B"
    pytest.param(["im based in porto", "Terminal's Kitty, browser is Firefox", "short commits > big commits"],
                 {"profile.md": "- Is based in porto\n- Terminal: Kitty\n- Browser: Firefox",
                  "preferences/default/short_commits.md": "- Prefers short commits over big commits"}, None, id="casual-typing"),
    pytest.param([["Shell is bash in the image. Latency > 200ms is bad."]], {}, None, id="casual-keys-not-read-in-a-session"),
    pytest.param(["My shell is zsh with oh-my-zsh"], {"profile.md": "- Shell: zsh with oh-my-zsh"}, None, id="my-inside-a-name-stays"),
    # --- a system named in fewer words later ("auth" for the auth service) at a new version, since when said before it
    pytest.param(["The auth service runs on Node 18", "As of Monday auth is on Node 20, the rollout is done"],
                 {"entities/systems/auth_service.md": "# Auth service\n\n- Is on Node 20"}, None, id="a-short-name-at-a-new-version"),
    pytest.param(["The billing service runs on Go 1.21", "The billing worker runs on Go 1.20", "billing is on Go 1.22"],
                 {"entities/systems/billing_service.md": "# Billing service\n\n- Runs on Go 1.21",
                  "entities/systems/billing_worker.md": "# Billing worker\n\n- Runs on Go 1.20",
                  "entities/systems/billing.md": "# Billing\n\n- Is on Go 1.22"}, None, id="a-short-name-of-two-systems-is-neither"),
    pytest.param(["Our frontend runs on React 17", "We have already migrated the frontend to React 18"],
                 {"entities/systems/frontend.md": "# Frontend\n\n- Moved to React 18"}, None, id="a-system-already-migrated"),
    # --- a system named alone is not one named for an environment: the DB is not the prod DB
    pytest.param(["The prod DB is at db.internal:5432", "The DB is at localhost:5432"],
                 {"entities/systems/prod_db.md": "# Prod DB\n\n- Is at db.internal:5432", "entities/systems/db.md": "# DB\n\n- Is at localhost:5432"},
                 None, id="an-unqualified-system-is-not-the-prod-one"),
    # --- answers and hedges with nothing in them; a step for something that may happen --------------
    pytest.param([("refused", "I think so"), ("refused", "I guess"), ("refused", "I hope not"), ("refused", "I suppose so"),
                  ("refused", "I'm not sure"), ("refused", "Remember that I do too")], {}, None, id="an-answer-with-no-content"),
    # (found by a review: "I know, right" stored "Know, right" as a standing profile line)
    pytest.param([("refused", "I know, right"), ("refused", "I know, exactly"), ["I know, right!"]], {}, None, id="an-agreement-with-no-content"),
    pytest.param([("refused", "If we move CI to Buildkite, update the docs"), ("refused", "Once we ship v2, remove the feature flag"),
                  ("refused", "When the deploy finishes, let me know"),
                  ["If we move CI to Buildkite, update the docs."]], {}, None, id="a-conditional-step-is-no-note"),
    pytest.param(["If you touch the schema, add a migration"],
                 {"preferences/default/add_migration.md": "- If you touch the schema, add a migration"}, None, id="a-conditional-instruction-stands"),
    # (found by a review: any condition but "you" was read as one moment, and `ov remember` refused a standing rule)
    pytest.param(["If the tests fail, check the fixtures first", "When in doubt, ask me"],
                 {"preferences/default/check_fixtures_first.md": "- If the tests fail, check the fixtures first",
                  "preferences/default/ask_me.md": "- When in doubt, ask me"}, None, id="a-condition-of-a-kind-of-situation-is-an-instruction"),
    # --- "from here on", "on second thought", "changed my mind"; a marker cut off by a dash still opens what follows
    pytest.param(["From here on, always run the linter before committing"],
                 {"preferences/default/run_linter.md": "- Always run the linter before committing"}, None, id="from-here-on-is-a-marker"),
    pytest.param(["I prefer dark mode", "On second thought, I prefer light mode"],
                 {"preferences/default/dark_mode.md": "- No longer prefers dark mode", "preferences/default/light_mode.md": "- Prefers light mode"},
                 None, id="on-second-thought"),
    pytest.param(["My editor is Vim", "Scratch that - my editor is Emacs"], {"profile.md": "- Editor: Emacs"}, None, id="scratch-that-dash"),
    # --- a count of a choice is the choice ------------------------------------------------------------
    pytest.param(["I prefer tabs", "I prefer 4 spaces"],
                 {"preferences/default/tabs.md": "- No longer prefers tabs", "preferences/default/4_spaces.md": "- Prefers 4 spaces"}, None,
                 id="a-count-of-spaces-rules-out-tabs"),
    # --- an instruction to use a choice removes the instruction to use its rival, in the same context ---
    pytest.param(["Always use dark mode in the editor", "Use double quotes in Python", "I prefer light mode", "Use light mode in the editor",
                  "Use single quotes in Go"],
                 {"preferences/default/light_mode.md": "- Prefers light mode\n- Use light mode in the editor",
                  "preferences/default/double_quotes.md": "- Use double quotes in Python", "preferences/default/single_quotes.md": "- Use single quotes in Go"},
                 None, id="an-instruction-ends-its-rivals"),
    # --- an imperative of the work said to hold in general is an instruction; a one-off task is a note
    pytest.param(["Run the full test suite before every release", ("refused", "Refactor the login form"), "Don't use tabs, it breaks the YAML linter"],
                 {"preferences/default/run_full_test.md": "- Run the full test suite before every release",
                  "preferences/default/tabs.md": "- Don't use tabs"}, None, id="a-general-imperative-is-an-instruction"),
    # ... while a task on things in view stays a note, and a file or a version is no address
    pytest.param([("refused", "Add all the files"), ("refused", "Create a new branch"), "The bug is in auth.py", "Version is at 1.2.3"],
                 {"entities/systems/version.md": "# Version\n\n- Version is at 1.2.3", f"events/{TODAY:%Y/%m/%d}/bug.md": "- The bug is in auth.py"}, None, id="a-task-in-view-a-file-or-a-version-stay-notes"),
    # --- a thing whose place is an address is a system; "the cluster" is the one cluster stored; a person in a city is a person (mem23) ------
    pytest.param(["Grafana is at grafana.internal:3000", "Grafana is at grafana.corp.example.com", "Bob is in Berlin"],
                 {"entities/people/bob.md": "# Bob\n\n- Bob is in Berlin", "entities/systems/grafana.md": "# Grafana\n\n- Is at grafana.corp.example.com"}, None, id="a-thing-at-an-address-is-a-system"),
    pytest.param(["The build cluster runs on port 9000", "The cluster listens on port 9100"],
                 {"entities/systems/build_cluster.md": "# Build cluster\n\n- Listens on port 9100"}, None, id="the-cluster-is-the-build-cluster"),
    # --- an adverb before the verb stays before it, -ly or not (found by a review: "Team alwayses squash ...")
    pytest.param(["We always squash merge into main", "I often pair on reviews"],
                 {"profile.md": "- Team always squashes merge into main\n- Often pairs on reviews"}, None, id="an-adverb-before-the-verb"),
    pytest.param(["We no longer like long meetings", "I no longer really enjoy pairing"],
                 {"profile.md": "- Team no longer likes long meetings\n- No longer really enjoys pairing"}, None,
                 id="no-longer-before-the-verb"),
    # --- negatives: no memory at all ------------------------------------------------------------
    pytest.param([["Our staging DB runs on port 5433."]], {}, None, id="a-fact-without-remember"),
    pytest.param([["Do I prefer tabs?"]], {}, None, id="question"),
    pytest.param([["Can you check whether my editor is Vim now?"]], {}, None, id="question-with-marker"),
    pytest.param([["If I prefer dark mode and I like jazz, tell me."]], {}, None, id="conditional-with-and-I"),
    pytest.param([["When my editor is Vim, I work faster."]], {}, None, id="conditional-possession"),
    pytest.param([['"I prefer tabs," she said.']], {}, None, id="quote"),
    pytest.param([["> My editor is Emacs"]], {}, None, id="block-quote"),
    pytest.param([["```\nmy editor is vim\nI prefer tabs\n```"]], {}, None, id="fenced-code"),
    pytest.param([["`I no longer use vim`"]], {}, None, id="inline-code"),
    pytest.param([["Let's do it now.", "I like that."]], {}, None, id="marker-without-statement"),
    pytest.param([["I don't use vim for this project."]], {}, None, id="not-without-anymore"),
    pytest.param([("refused", "Do I prefer tabs?")], {}, None, id="remember-refuses-a-question"),
    # --- multi-user isolation -------------------------------------------------------------------
    pytest.param([("as", "alice", "My editor is Vim"), ("as", "bob", "My editor is Emacs")],
                 {"alice:profile.md": "- Editor: Vim", "bob:profile.md": "- Editor: Emacs"}, None, id="users-keep-their-own-key"),
    pytest.param([("as", "alice", "I prefer tabs"), ("as", "bob", "I prefer spaces")],
                 {"alice:preferences/alice/tabs.md": "- Prefers tabs", "bob:preferences/bob/spaces.md": "- Prefers spaces"}, None,
                 id="a-rival-of-another-user-is-untouched"),
    # --- experiences from a session ---------------------------------------------------------------
    pytest.param([[*FLAKY_FIX, "That fixed it, tests pass now."]], {"experiences/fix_flaky_login_test.md": FLAKY_EXPERIENCE}, None,
                 id="experience"),
    pytest.param([[*FLAKY_FIX, "That fixed it, tests pass now."], [*FLAKY_FIX, "Thanks, it works now."]],
                 {"experiences/fix_flaky_login_test.md": FLAKY_EXPERIENCE.replace("That fixed it, tests pass now", "Thanks, it works now")},
                 {"experiences/fix_flaky_login_test.md": (
                     FLAKY_EXPERIENCE, FLAKY_EXPERIENCE.replace("That fixed it, tests pass now", "Thanks, it works now"))},
                 id="experience-updated-by-a-later-run"),
    pytest.param([[*FLAKY_FIX, "It still fails."]], {}, None, id="no-experience-when-it-still-fails"),
    pytest.param([[*FLAKY_FIX, "Thanks."]], {}, None, id="no-experience-without-an-outcome"),
    pytest.param([[*FLAKY_FIX, "Tests pass now, but the e2e suite is broken."]], {}, None, id="no-experience-for-a-hedged-outcome"),
    pytest.param([["Fix the build.", "That worked."]], {}, None, id="no-experience-without-steps"),
    pytest.param([["What does this test do?", *FLAKY_FIX[1:], "That fixed it."]], {}, None, id="no-experience-without-a-goal"),
    pytest.param([[*FLAKY_FIX, "That fixed it. I prefer short test names."]],
                 {"experiences/fix_flaky_login_test.md": FLAKY_EXPERIENCE.replace("That fixed it, tests pass now", "That fixed it"),
                  "preferences/default/short_test_names.md": "- Prefers short test names"}, None, id="experience-and-a-preference"),
    # another goal is another experience: the file it names tells them apart; the same goal, said
    # another way, replaces its own
    pytest.param([failing_test("auth"), failing_test("billing")],
                 {"experiences/fix_failing_test_test_auth.md": failing_test_experience("auth"),
                  "experiences/fix_failing_test_test_billing.md": failing_test_experience("billing")}, None,
                 id="experiences-of-two-goals-about-two-files"),
    pytest.param([failing_test("auth"), failing_test("auth", "Let's fix the failing test in test_{}.py again")],
                 {"experiences/fix_failing_test_test_auth.md": failing_test_experience("auth", "fix the failing test in test_{}.py again")},
                 None, id="the-same-goal-said-another-way-replaces-its-experience"),
    pytest.param([failing_test("auth", "Fix the bug in the {} module"), failing_test("billing", "Fix the bug in the {} module")],
                 {"experiences/fix_bug_auth_module.md": failing_test_experience("auth", "fix the bug in the {} module"),
                  "experiences/fix_bug_billing_module.md": failing_test_experience("billing", "fix the bug in the {} module")}, None,
                 id="experiences-of-two-goals-about-two-modules"),
    # the last word says it does not work, or not thanks to the agent: no experience, never "success"
    pytest.param([[*FLAKY_FIX, "Hmm, that worked on my machine yesterday, now CI is red."]], {}, None, id="no-experience-when-ci-is-red-now"),
    pytest.param([[*FLAKY_FIX, "The tests passed before your edit. Revert it."]], {}, None, id="no-experience-when-it-passed-before"),
    pytest.param([[*FLAKY_FIX, "I reverted your change and it works now."]], {}, None, id="no-experience-when-the-change-was-reverted"),
    pytest.param([[*FLAKY_FIX, "Forget it, I rewrote the test myself and it works now."]], {}, None,
                 id="no-experience-when-the-user-did-it-instead"),
    # ... while a plain "that worked" or "the tests passed", and red that is no build, still confirm it
    pytest.param([[*FLAKY_FIX, "That worked."]], {"experiences/fix_flaky_login_test.md": FLAKY_EXPERIENCE.replace("That fixed it, tests pass now", "That worked")},
                 None, id="experience-confirmed-in-the-past-tense"),
    pytest.param([[*FLAKY_FIX, "Great, the tests passed."]],
                 {"experiences/fix_flaky_login_test.md": FLAKY_EXPERIENCE.replace("That fixed it, tests pass now", "Great, the tests passed")},
                 None, id="experience-when-the-tests-passed"),
    pytest.param([[*FLAKY_FIX, "That fixed it, the red underline is gone."]],
                 {"experiences/fix_flaky_login_test.md": FLAKY_EXPERIENCE.replace("That fixed it, tests pass now", "That fixed it, the red underline is gone")},
                 None, id="experience-with-red-that-is-no-build"),
    pytest.param([[*FLAKY_FIX, "That fixed it, I checked it myself."]],
                 {"experiences/fix_flaky_login_test.md": FLAKY_EXPERIENCE.replace("That fixed it, tests pass now", "That fixed it, I checked it myself")},
                 None, id="experience-the-user-checked-themselves"),
    # a failure the user names as what is over now confirms the fix; one that is not over does not
    pytest.param([[*FLAKY_FIX, "That fixed the error, thanks!"]],
                 {"experiences/fix_flaky_login_test.md": FLAKY_EXPERIENCE.replace("That fixed it, tests pass now", "That fixed the error, thanks")},
                 None, id="experience-when-that-fixed-the-error"),
    pytest.param([[*FLAKY_FIX, "Great, the failing test passes now."]],
                 {"experiences/fix_flaky_login_test.md": FLAKY_EXPERIENCE.replace("That fixed it, tests pass now", "Great, the failing test passes now")},
                 None, id="experience-when-the-failing-test-passes"),
    pytest.param([[*FLAKY_FIX, "Tests pass now, no more failures."]],
                 {"experiences/fix_flaky_login_test.md": FLAKY_EXPERIENCE.replace("That fixed it, tests pass now", "Tests pass now, no more failures")},
                 None, id="experience-when-there-are-no-more-failures"),
    pytest.param([[*FLAKY_FIX, "The crash is gone."]],
                 {"experiences/fix_flaky_login_test.md": FLAKY_EXPERIENCE.replace("That fixed it, tests pass now", "The crash is gone")},
                 None, id="experience-when-the-crash-is-gone"),
    pytest.param([[*FLAKY_FIX, "That fixed the error but now the build fails."]], {}, None, id="no-experience-when-another-failure-follows"),
    pytest.param([[*FLAKY_FIX, "The error is not gone."]], {}, None, id="no-experience-when-the-failure-is-not-gone"),
    pytest.param([[*FLAKY_FIX, "Reverting your last edit fixed it."]], {}, None, id="no-experience-when-undoing-the-change-fixed-it"),
    # too many steps: the edit and the test run stay, the first searches go
    pytest.param([SEARCHED_FIX], {"experiences/fix_deadlock_pool.md": SEARCHED_EXPERIENCE}, None, id="experience-keeps-the-fix-over-searches"),
    # --- a correction said in a session changes the memory it corrects, as `ov remember` would (audit agent #1) ---------
    pytest.param(["I prefer 2-space indentation in YAML config files",
                  ["Correction to what I said before: I now prefer 4-space indentation in YAML files, not 2-space.", ("assistant", "Got it.")]],
                 {"preferences/default/2-space_indentation.md": "- No longer prefers 2-space indentation in YAML config files",
                  "preferences/default/4-space_indentation.md": "- Prefers 4-space indentation in YAML files, not 2-space"},
                 None, id="session-correction-of-a-size-with-a-heading"),
    pytest.param(["Always use ruff for formatting, line length 120", ["Also we switched from ruff to black for formatting, line length 100."]],
                 {"profile.md": "- Team switched from ruff to black for formatting, line length 100"},
                 None, id="session-team-switch-ends-the-instruction-for-the-old-tool"),
    # (review rev21 #10: a switch said with its time in a session only corrects; "last month" in an undated line was wrong a month on;
    # memfix22 #1: having ended the preference, it has corrected a memory, and the team's new value is kept too, undated)
    pytest.param(["I prefer npm for installing packages", ["FYI we migrated from npm to pnpm last month"]],
                 {"preferences/default/npm.md": "- No longer prefers npm for installing packages", "profile.md": "- Team migrated from npm to pnpm"},
                 None, id="session-team-switch-ends-the-preference-for-the-old-tool"),
    pytest.param([["We switched from a list to a dict for the cache."]], {}, None, id="session-switch-of-a-kind-of-thing-is-code-talk"),
    pytest.param([["We switched from unittest to pytest for this file.", "we moved from requests to httpx in that function",
                   "We migrated from print to logging in this module.", "we switched from Flask to FastAPI for these endpoints"]], {}, None,
                 id="session-switch-for-a-thing-in-view-is-code-talk"),
    pytest.param(["The staging server is staging.internal:8443", ["the staging server moved to staging2.internal:9443", ("assistant", "Noted.")]],
                 {"entities/systems/staging_server.md": "# Staging server\n\n- Moved to staging2.internal:9443"},
                 None, id="session-system-moved-to-a-new-address"),
    pytest.param(["Remember that the build box is at build1.corp.example:2222", ["The build box is build7.corp.example:2200"]],
                 {"entities/systems/build_box.md": "# Build box\n\n- Is build7.corp.example:2200"},
                 None, id="session-plain-restatement-of-an-address"),
    pytest.param(["The metrics server is metrics.internal:9090", "The metrics server is metrics-2.internal:9091"],
                 {"entities/systems/metrics_server.md": "# Metrics server\n\n- Is metrics-2.internal:9091"},
                 None, id="remember-a-new-address-replaces-the-old"),
    # (longrun audit #6) a note said again the same day is one note; another thing said of the same
    # thing is a note of its own (a review: "is on Friday" took the place of "is blocked by ...")
    pytest.param(["The release is blocked by the security review", "The release is on Friday"],
                 {f"events/{TODAY:%Y/%m/%d}/release.md": "- The release is blocked by the security review",
                  f"events/{TODAY:%Y/%m/%d}/release_2.md": "- The release is on Friday"}, None,
                 id="another-note-of-the-same-thing-the-same-day-is-a-note-of-its-own"),
    # a note giving a thing a new value the same way takes the old value's place (git keeps it)
    pytest.param(["The deploy window is Tuesday", "The deploy window is Thursday now"],
                 {f"events/{TODAY:%Y/%m/%d}/deploy_window.md": "- The deploy window is Thursday"},
                 {f"events/{TODAY:%Y/%m/%d}/deploy_window.md": ("- The deploy window is Tuesday", "- The deploy window is Thursday")},
                 id="a-note-giving-a-new-value-the-same-day-replaces-the-old"),
    # a time of day is when a meeting is, not a host and port: a note, not a system card
    pytest.param(["The design review is at 14:00", "The design review moved to 15:30", "The build cache is at 10.4.0.9:8080"],
                 {f"events/{TODAY:%Y/%m/%d}/design_review.md": "- The design review moved to 15:30",
                  "entities/systems/build_cache.md": "# Build cache\n\n- Is at 10.4.0.9:8080"}, None,
                 id="a-meeting-at-a-time-is-a-note-not-a-system"),
    # a correction for another purpose is another use, however many words the two share; a move to
    # another version for a purpose replaces that purpose's line, whatever its determiner
    pytest.param(["I use Mocha for integration tests", "Actually, I use Cypress for browser tests"],
                 {"profile.md": "- Uses Mocha for integration tests\n- Uses Cypress for browser tests"}, None,
                 id="a-correction-for-another-purpose-replaces-no-use"),
    pytest.param(["I use Node 18 for my scripts", "I use Node 18 for the API", "I've moved to Node 20 for the scripts"],
                 {"profile.md": "- Uses Node 20 for the scripts\n- Uses Node 18 for the API"}, None,
                 id="a-version-move-for-a-purpose-replaces-that-purposes-line"),
    pytest.param(["The demo went well", "the demo went well."], {f"events/{TODAY:%Y/%m/%d}/demo.md": "- The demo went well"}, None,
                 id="a-note-said-twice-the-same-day-is-one-note"),
    # (longrun audit #9) a self-introduction gives the name and the role, in a session as asked
    pytest.param([["Hi, I'm Marta Rossi, a site reliability engineer. I work at Initech.", ("assistant", "Nice to meet you.")]],
                 {"profile.md": "- Name: Marta Rossi\n- Is a site reliability engineer\n- Works at Initech"}, None,
                 id="session-a-self-introduction-gives-name-and-role"),
    pytest.param(["I am Kofi, an embedded developer"], {"profile.md": "- Name: Kofi\n- Is an embedded developer"}, None,
                 id="remember-a-self-introduction-gives-name-and-role"),
    pytest.param([["I'm Polish, a proud one.", "I'm Japanese, a native speaker."]], {}, None, id="a-nationality-before-a-comma-is-no-name"),
    # a nationality or a description before the role is said as it is, not as a name; a name that
    # ends as some peoples' do ("-ch") is a name
    pytest.param(["I'm Hungarian, a QA lead"], {"profile.md": "- Is Hungarian\n- Is a QA lead"}, None, id="a-nationality-then-a-role"),
    pytest.param(["I'm Swedish-born, a data scientist"], {"profile.md": "- Is Swedish-born\n- Is a data scientist"}, None,
                 id="a-description-then-a-role"),
    pytest.param(["I'm Heinrich, a platform engineer"], {"profile.md": "- Name: Heinrich\n- Is a platform engineer"}, None,
                 id="a-name-ending-like-a-nationality-is-a-name"),
    # a people's word made from a country's name ("Brazil-ian") is no name, nor an answer's word ("certain")
    pytest.param(["I'm Brazilian, a product designer", "I'm Certain, a developer"],
                 {"profile.md": "- Is Brazilian\n- Is a product designer\n- Is a developer"}, None, id="a-peoples-word-or-an-answers-word-is-no-name"),
    # (longrun audit #5) "X over Y" ends Y's preference said with what Y was for, not one said for a context
    pytest.param(["I prefer Poetry for managing dependencies", "I prefer uv over Poetry"],
                 {"preferences/default/poetry.md": "- No longer prefers Poetry", "preferences/default/uv.md": "- Prefers uv over Poetry"},
                 None, id="x-over-y-ends-y-said-with-its-purpose"),
    # a body of work a choice was made for ("side projects", "client repos") is a context, not what
    # both choices are for: a choice over it said without one leaves it
    pytest.param(["I prefer Kotlin for hobby projects", "I prefer Scala over Kotlin"],
                 {"preferences/default/kotlin.md": "- Prefers Kotlin for hobby projects", "preferences/default/scala.md": "- Prefers Scala over Kotlin"},
                 None, id="x-over-y-leaves-y-said-for-a-body-of-work"),
    pytest.param(["I prefer Mocha for unit tests", "I prefer Vitest over Mocha now"],
                 {"preferences/default/mocha.md": "- No longer prefers Mocha", "preferences/default/vitest.md": "- Prefers Vitest over Mocha"},
                 None, id="x-over-y-now-ends-y-for-what-it-was-for"),
    pytest.param(["I prefer Jest for the frontend", "I prefer Vitest over Jest"],
                 {"preferences/default/jest.md": "- Prefers Jest for the frontend", "preferences/default/vitest.md": "- Prefers Vitest over Jest"},
                 None, id="x-over-y-leaves-y-for-a-context"),
    # (longrun audit #4) a change said in a session in ordinary words: after a lead clause, with the time it happened, "now" inside
    pytest.param(["I work at Initech", ["I got a new job: I now work at Hooli.", ("assistant", "Noted.")]], {"profile.md": "- Works at Hooli"},
                 None, id="session-a-lead-clause-before-a-colon-stops-nothing"),
    pytest.param(["My terminal is iTerm2", ["I changed my terminal to WezTerm two weeks ago.", ("assistant", "Noted.")]],
                 {"profile.md": "- Terminal: WezTerm"}, None, id="session-when-a-switch-happened-is-no-part-of-the-value"),
    pytest.param(["My browser is Chrome", ["My browser is Firefox as of Monday."]], {"profile.md": "- Browser: Firefox"}, None,
                 id="session-as-of-a-day-marks-a-change"),
    pytest.param(["The billing service runs on port 8000", ["We bumped the billing service port to 8001 yesterday."]],
                 {"entities/systems/billing_service.md": "# Billing service\n\n- Port is 8001"}, None, id="session-a-port-set-anew"),
    pytest.param(["The search API listens on port 9200", ["The search API now listens on port 9300."]],
                 {"entities/systems/search_api.md": "# Search API\n\n- Listens on port 9300"}, None, id="session-now-after-a-systems-name"),
    pytest.param(["We use Bamboo for CI", ["We migrated our CI from Bamboo to Drone last month."]], {"profile.md": "- Team uses Drone for CI"},
                 None, id="session-a-system-migrated-from-a-tool"),
    pytest.param(["We use trunk for releases", ["We renamed trunk to main last week."]], {"profile.md": "- Team uses main for releases"},
                 None, id="session-a-rename-swaps-the-name"),
    pytest.param([["We renamed parse_config to load_config.", "we renamed the Users table to Accounts"]], {}, None,
                 id="session-a-rename-of-nothing-stored-is-kept-nowhere"),
    # (longrun audit #3, #8) a system moved from one tool to another is the team's switch too; a switch for the same purpose says it once
    pytest.param(["We use CircleCI for builds", "We migrated the build pipeline from CircleCI to Buildkite"],
                 {"profile.md": "- Team uses Buildkite for builds", "entities/systems/build_pipeline.md": "# Build pipeline\n\n- Moved to Buildkite"},
                 None, id="a-system-migrated-from-a-tool-swaps-the-teams-line"),
    pytest.param(["We use Sentry for error tracking", "Our error tracking service moved from Sentry to Rollbar"],
                 {"profile.md": "- Team uses Rollbar for error tracking",
                  "entities/systems/error_tracking_service.md": "# Error tracking service\n\n- Moved to Rollbar"},
                 None, id="a-system-that-moved-from-a-tool-swaps-the-teams-line"),
    pytest.param(["We migrated the CI from TeamCity to Drone"], {"entities/systems/ci.md": "# CI\n\n- Moved to Drone"}, None,
                 id="a-system-migrated-with-no-teams-line-makes-no-profile"),
    pytest.param(["We use Travis for deploys", "We switched from Travis to Drone for deploys"], {"profile.md": "- Team uses Drone for deploys"},
                 None, id="a-switch-for-the-same-purpose-says-it-once"),
    # (longrun audit #2) a port or a host said as the system's attribute is one at a time, as its address is
    pytest.param(["The payments gateway port is 4000", "The payments gateway port is 4100", "the payments gateway port is 4200 these days"],
                 {"entities/systems/payments_gateway.md": "# Payments gateway\n\n- Port is 4200"}, None, id="remember-a-new-port-replaces-the-old"),
    pytest.param(["Our billing service runs on port 5000", "The billing service port is 5001", "The billing service listens on port 5002"],
                 {"entities/systems/billing_service.md": "# Billing service\n\n- Listens on port 5002"}, None,
                 id="remember-a-port-replaces-the-old-whatever-the-wording"),
    pytest.param(["The search cluster hostname is es1.corp.example", "The search cluster hostname is es2.corp.example",
                  "The search cluster is at es3.corp.example"],
                 {"entities/systems/search_cluster.md": "# Search cluster\n\n- Is at es3.corp.example"}, None,
                 id="remember-a-new-host-replaces-the-old"),
    pytest.param(["The billing service runs on Kubernetes", "The search API runs on Elasticsearch",
                  ["the billing service moved to services/billing/", "The search API moved to api/search.py."]],
                 {"entities/systems/billing_service.md": "# Billing service\n\n- Runs on Kubernetes",
                  "entities/systems/search_api.md": "# Search API\n\n- Runs on Elasticsearch"},
                 None, id="session-system-moved-to-a-path-in-the-code-changes-no-memory"),
    pytest.param(["The billing service runs on Kubernetes", "The billing service runs Python 3.11",
                  ["the billing service moved to Python 3.12", ("assistant", "Noted.")]],
                 {"entities/systems/billing_service.md": "# Billing service\n\n- Runs on Kubernetes\n- Moved to Python 3.12"},
                 None, id="session-system-moved-to-a-version-keeps-where-it-runs"),
    pytest.param([["The metrics server moved to metrics2.internal:9090. Our queue service is at mq.internal:5672."]], {}, None,
                 id="session-system-change-of-nothing-stored-is-not-kept"),
    pytest.param(["Remember that the billing service runs on Kubernetes",
                  ["The billing service moved to the new module. We switched from the old parser to the new one."]],
                 {"entities/systems/billing_service.md": "# Billing service\n\n- Runs on Kubernetes"}, None,
                 id="session-move-within-the-code-changes-no-memory"),
    # --- a correction between rival values of the same thing replaces the stored one (audit agent #2) ------------------
    pytest.param(["I prefer 2-space indentation in YAML config files", ["Actually, I prefer 4-space indentation in YAML config files."]],
                 {"preferences/default/2-space_indentation.md": "- No longer prefers 2-space indentation in YAML config files",
                  "preferences/default/4-space_indentation.md": "- Prefers 4-space indentation in YAML config files"},
                 None, id="actually-another-size-ends-the-old-preference"),
    pytest.param(["I prefer 72-character commit subjects", "I prefer 50-character commit subjects"],
                 {"preferences/default/72-character_commit_subjects.md": "- No longer prefers 72-character commit subjects",
                  "preferences/default/50-character_commit_subjects.md": "- Prefers 50-character commit subjects"},
                 None, id="another-size-of-the-same-thing-needs-no-marker"),
    pytest.param(["I prefer pytest for unit tests", ["These days I prefer unittest for unit tests."]],
                 {"preferences/default/pytest.md": "- No longer prefers pytest for unit tests",
                  "preferences/default/unittest.md": "- Prefers unittest for unit tests"},
                 None, id="a-marked-choice-for-the-same-purpose-ends-the-old"),
    # (scale audit #3) the role a choice fills is its purpose: "as the test runner" is "for the test runner"
    pytest.param(["I prefer pytest as the test runner", "I prefer ruff as the linter", "Actually, I prefer unittest as the test runner"],
                 {"preferences/default/pytest.md": "- No longer prefers pytest as the test runner",
                  "preferences/default/ruff.md": "- Prefers ruff as the linter",
                  "preferences/default/unittest.md": "- Prefers unittest as the test runner"},
                 None, id="a-marked-choice-for-the-same-role-ends-the-old"),
    pytest.param(["I prefer pytest as my test runner", "I prefer unittest as my test runner"],
                 {"preferences/default/pytest.md": "- Prefers pytest as their test runner",
                  "preferences/default/unittest.md": "- Prefers unittest as their test runner"},
                 None, id="an-unmarked-choice-for-the-same-role-leaves-the-old"),
    pytest.param(["I like Python as a language", "I like Go as a language now"],
                 {"preferences/default/python.md": "- Likes Python as a language", "preferences/default/go.md": "- Likes Go as a language"},
                 None, id="a-kind-said-with-a-is-no-role-one-thing-fills"),
    pytest.param(["I use pytest as the unit test runner", "Actually I use pytest as the e2e test runner"],
                 {"profile.md": "- Uses pytest as the unit test runner\n- Uses pytest as the e2e test runner"},
                 None, id="a-correction-for-another-role-is-another-use"),
    pytest.param(["I use click as our CLI framework", "I prefer click as our CLI framework", "I switched to typer as our CLI framework"],
                 {"profile.md": "- Uses typer as our CLI framework", "preferences/default/click.md": "- No longer prefers click as our CLI framework"},
                 None, id="a-switch-for-a-role-replaces-the-use-for-it"),
    pytest.param(["Use yarn for scripts", "Actually, I prefer bun for scripts"],
                 {"preferences/default/bun.md": "- Prefers bun for scripts"}, None, id="a-marked-choice-removes-the-instruction-for-the-old"),
    pytest.param(["I like dark roast coffee in the morning", ["I like light roast coffee in the morning now."]],
                 {"preferences/default/dark_roast_coffee.md": "- No longer likes dark roast coffee in the morning",
                  "preferences/default/light_roast_coffee.md": "- Likes light roast coffee in the morning"},
                 None, id="a-marked-other-kind-of-the-same-thing-ends-the-old"),
    pytest.param(["I prefer pytest fixtures for unit tests", "Actually, I prefer pytest for unit tests"],
                 {"preferences/default/pytest_fixtures.md": "- Prefers pytest fixtures for unit tests",
                  "preferences/default/pytest.md": "- Prefers pytest for unit tests"},
                 None, id="a-marked-choice-saying-less-of-the-same-thing-ends-nothing"),
    pytest.param(["I like tea in the morning", "I like coffee in the morning"],
                 {"preferences/default/tea.md": "- Likes tea in the morning", "preferences/default/coffee.md": "- Likes coffee in the morning"},
                 None, id="unmarked-likings-for-one-context-both-stand"),
    pytest.param(["I prefer 4-space indentation in Python", "Actually, I prefer 2-space indentation in YAML"],
                 {"preferences/default/4-space_indentation.md": "- Prefers 4-space indentation in Python",
                  "preferences/default/2-space_indentation.md": "- Prefers 2-space indentation in YAML"},
                 None, id="a-size-for-another-context-stands"),
    pytest.param(["I prefer Go for CLIs", "Actually, I prefer Rust"],
                 {"preferences/default/go.md": "- Prefers Go for CLIs", "preferences/default/rust.md": "- Prefers Rust"},
                 None, id="a-choice-for-no-context-ends-no-choice-for-one"),
    pytest.param(["I prefer Redis for caching in the backend", "Actually, I prefer Postgres for the backend"],
                 {"preferences/default/redis.md": "- Prefers Redis for caching in the backend",
                  "preferences/default/postgres.md": "- Prefers Postgres for the backend"},
                 None, id="a-marked-other-choice-for-a-wider-context-leaves-the-narrower-one"),
    pytest.param(["I prefer Python 2 for legacy scripts", "I prefer Python 3 for scripts"],
                 {"preferences/default/python_2.md": "- Prefers Python 2 for legacy scripts",
                  "preferences/default/python_3.md": "- Prefers Python 3 for scripts"},
                 None, id="an-unmarked-size-for-a-wider-context-leaves-the-narrower-one"),
    pytest.param(["I prefer 14pt font in the terminal", "I prefer 12pt font in the terminal at night"],
                 {"preferences/default/14pt_font.md": "- Prefers 14pt font in the terminal",
                  "preferences/default/12pt_font.md": "- Prefers 12pt font in the terminal at night"},
                 None, id="an-unmarked-size-for-a-narrower-context-is-an-exception"),
    pytest.param(["I prefer 12pt font in the terminal", "I prefer 14pt font in the terminal"],
                 {"preferences/default/12pt_font.md": "- No longer prefers 12pt font in the terminal",
                  "preferences/default/14pt_font.md": "- Prefers 14pt font in the terminal"},
                 None, id="an-unmarked-size-for-the-same-context-ends-the-old"),
    # --- one statement, one memory; a team's rule is the team's (audit agent #10) ------------------------------------
    pytest.param(["Never push directly to main; open a PR"],
                 {"preferences/default/push_directly_to.md": "- Never push directly to main \u2014 open a PR"}, None,
                 id="an-instruction-with-its-alternative-is-one-memory"),
    pytest.param(["Don't amend pushed commits; add a fixup commit", "Always amend pushed commits"],
                 {"preferences/default/amend_pushed_commits.md": "- Always amend pushed commits"}, None,
                 id="an-instruction-with-its-alternative-is-replaced-by-its-opposite"),
    pytest.param(["We decided: refactors never rename public functions, they deprecate them"],
                 {"preferences/default/refactors.md": "- Refactors never rename public functions, they deprecate them (team convention)"},
                 None, id="a-team-decision-of-a-rule-is-a-convention"),
    pytest.param(["We agreed that every schema change must ship with a migration"],
                 {"preferences/default/schema_change.md": "- Every schema change must ship with a migration (team convention)"},
                 None, id="a-team-agreement-of-a-rule-is-a-convention"),
    # --- a named system's new place or tool, a count, a reversal, a home (mem10) ------------------------------------
    pytest.param(["The deploy pipeline uses CircleCI", ["We've moved from CircleCI to GitHub Actions."]],
                 {"entities/systems/deploy_pipeline.md": "# Deploy pipeline\n\n- Uses GitHub Actions"},  # (mem21: the card holds the switch, no profile line)
                 None, id="a-teams-switch-names-the-new-tool-in-the-system-cards"),
    pytest.param(["We run Node 18 on the build servers", "Our CI runs on Jenkins", ["We switched from Node to Bun.", "We switched from Jenkins to Drone for the mobile app."]],
                 {"profile.md": "- Team switched from Node to Bun\n- Team switched from Jenkins to Drone for the mobile app",
                  "entities/systems/build_servers.md": "# Build servers\n\n- Runs Node 18", "entities/systems/ci.md": "# CI\n\n- Runs on Jenkins"},
                 None, id="a-teams-switch-leaves-a-versioned-line-and-one-for-a-purpose-changes-no-card"),
    # (found by a review) A recorded switch is history: the same switch said again is already said,
    # and another switch from the same tool never rewrites it ("from Go to Go", "from GitHub Actions to Drone").
    pytest.param([["We switched from Python to Go for the CLI.", "We replaced Python with Go."]],
                 {"profile.md": "- Team switched from Python to Go for the CLI"}, None, id="the-same-switch-said-twice-is-one-line"),
    pytest.param([["We replaced Jenkins with Drone."], ["We moved from Jenkins to Drone for the mobile app."]],
                 {"profile.md": "- Team moved from Jenkins to Drone for the mobile app"}, None,
                 id="the-same-switch-said-again-with-its-scope-takes-the-records-place"),
    pytest.param([["We switched from Jenkins to Drone for the mobile app."], ["We migrated from Jenkins to GitHub Actions."]],
                 {"profile.md": "- Team switched from Jenkins to Drone for the mobile app\n- Team migrated from Jenkins to GitHub Actions"},
                 None, id="another-switch-from-the-same-tool-leaves-the-record"),
    pytest.param([["We use Yarn instead of npm.", "We swapped npm for Yarn."]], {"profile.md": "- Team uses Yarn instead of npm"}, None,
                 id="a-switch-said-as-instead-of-is-a-record-too"),
    pytest.param([["We switched from Go to Go."]], {}, None, id="a-switch-to-the-same-value-is-never-written"),
    pytest.param(["Our Grafana is at grafana.internal:3000", ["Our Grafana moved to grafana2.internal:3001, FYI."]],
                 {"entities/systems/grafana.md": "# Grafana\n\n- Moved to grafana2.internal:3001"}, None,
                 id="a-system-named-on-its-own-moved-in-a-session-replaces-its-address"),
    pytest.param(["I live in Porto", ["Our office moved to Lisbon.", "Sam moved to Madrid.", "I moved to Go 1.22 for the CLI.",
                                      "I've moved to Rust for the parser."]],
                 {"profile.md": "- Lives in Porto"}, None, id="a-move-of-the-office-a-person-or-the-code-is-no-home"),
    pytest.param(["I live in Porto", ["We moved to Utrecht last spring."]], {"profile.md": "- Lives in Utrecht"}, None,
                 id="we-moved-to-a-place-replaces-where-the-user-lives"),
    pytest.param([["We moved to Utrecht last spring."]], {}, None, id="we-moved-in-a-session-with-no-home-stored-keeps-nothing"),
    # (found by a review) a place's name holds lower-case particles between its capitalised parts
    pytest.param(["I live in Porto", ["We moved to Freiburg im Breisgau."]], {"profile.md": "- Lives in Freiburg im Breisgau"}, None,
                 id="a-move-to-a-place-with-a-particle"),
    pytest.param(["I live in Porto", ["I moved to Henley-on-Thames last year."]], {"profile.md": "- Lives in Henley-on-Thames"}, None,
                 id="a-move-to-a-place-with-a-joined-particle"),
    pytest.param(["I live in Porto", "I've relocated to Burton upon Trent"], {"profile.md": "- Lives in Burton upon Trent"}, None,
                 id="a-relocation-to-a-place-with-a-particle"),
    pytest.param(["I live in Porto", ["We moved to Lisbon on Friday.", "I moved to Go on Linux for the CLI."]], {"profile.md": "- Lives in Porto"},
                 None, id="a-particle-before-a-day-or-after-a-language-makes-no-place"),

    pytest.param(["I live in Porto", ["We relocated to Ghent in the autumn."], "I moved to Leeds back in May"], {"profile.md": "- Lives in Leeds"}, None,
                 id="when-a-move-was-is-no-part-of-the-place"),
    pytest.param(["I prefer 3 monitors", ["I like having two monitors."]],
                 {"preferences/default/3_monitors.md": "- No longer prefers 3 monitors", "preferences/default/two_monitors.md": "- Likes having two monitors"},
                 None, id="another-count-of-the-same-thing-however-liked-ends-the-old"),
    pytest.param(["I prefer MySQL 8 for analytics", "Actually, I prefer port 3307 for analytics"],
                 {"preferences/default/mysql_8.md": "- Prefers MySQL 8 for analytics", "preferences/default/port_3307.md": "- Prefers port 3307 for analytics"},
                 None, id="a-port-is-no-rival-of-a-product"),
    pytest.param(["Always use black for formatting", "Use mypy in strict mode",
                  [("assistant", "Don't use mypy anymore."), "Stop using black for formatting.", "Don't use tabs here."]],
                 {"preferences/default/black.md": "- Don't use black for formatting", "preferences/default/mypy.md": "- Use mypy in strict mode"},
                 None, id="the-user-taking-back-an-instruction-in-a-session-ends-it"),
    # --- (found by a review, rev11b) a move to a platform is no home; a card's history is no line of what it runs ------
    pytest.param(["I live in Porto", ["we moved to Kubernetes last month and the deploys are way faster", "We moved to Vercel.",
                                      "ok so we moved to AWS", "We've moved to Supabase for auth", "we moved to Terraform Cloud"]],
                 {"profile.md": "- Lives in Porto"}, None, id="a-move-to-a-platform-in-a-session-is-no-home"),
    pytest.param(["I live in Porto", "I moved to Postgres"], {"profile.md": "- Lives in Porto\n- Moved to Postgres"}, None,
                 id="i-moved-to-a-database-is-no-home"),
    pytest.param(["I live in Porto", ["we just moved to San Francisco"], "We relocated to Salt Lake City"], {"profile.md": "- Lives in Salt Lake City"}, None,
                 id="a-move-to-a-city-of-more-words-is-a-home"),
    pytest.param(["I live in Porto", "I moved to Austin, TX"], {"profile.md": "- Lives in Austin, TX"}, None,
                 id="a-move-to-a-city-and-its-states-code-is-a-home"),
    pytest.param(["Our CI runs on Jenkins", ("stored", "entities/systems/deploy.md", "# Deploy\n\n- Migrated off Jenkins in 2024\n- Runs on Argo"),
                  ("stored", "entities/systems/release.md", "# Release\n\n- Was on Jenkins until May\n- Runs on Argo"),
                  ("stored", "entities/systems/mobile_builds.md", "# Mobile builds\n\n- Build on Jenkins agents"),
                  ["We switched from Jenkins to Buildkite."]],
                 {"entities/systems/ci.md": "# CI\n\n- Runs on Buildkite",
                  "entities/systems/deploy.md": "# Deploy\n\n- Migrated off Jenkins in 2024\n- Runs on Argo",
                  "entities/systems/release.md": "# Release\n\n- Was on Jenkins until May\n- Runs on Argo",
                  "entities/systems/mobile_builds.md": "# Mobile builds\n\n- Build on Buildkite agents"},
                 None, id="a-teams-switch-leaves-a-cards-line-of-history"),
    # --- (found by an audit, scalemem12) a switch changes what holds now, never the past or someone else's tool ---------
    pytest.param(["I used Jenkins at my previous job for three years", "We use Jenkins for CI", "We switched from Jenkins to Buildkite"],
                 {"profile.md": "- Used Jenkins at their previous job for three years\n- Team uses Buildkite for CI"}, None,
                 id="a-teams-switch-leaves-a-past-line-naming-the-old-tool"),
    pytest.param(["I used to use Vim", "I use Vim daily", "I switched from Vim to Helix"], {"profile.md": "- Used to use Vim\n- Uses Helix daily"},
                 None, id="a-switch-leaves-a-used-to-line"),
    pytest.param(["My manager Sam uses Jira", "We use Jira for tickets", "We switched from Jira to Linear"],
                 {"profile.md": "- The user's manager Sam uses Jira\n- Team uses Linear for tickets"}, None,
                 id="a-teams-switch-leaves-someone-elses-tool"),
    pytest.param(["I used Jenkins at my previous job for three years", "We switched from Jenkins to Buildkite"],
                 {"profile.md": "- Used Jenkins at their previous job for three years\n- Team switched from Jenkins to Buildkite"}, None,
                 id="a-switch-naming-only-a-past-line-is-recorded"),
    pytest.param(["I use Emacs as my editor", "I switched to Neovim as my editor"], {"profile.md": "- Editor: Neovim"}, None,
                 id="a-new-editor-replaces-the-line-of-the-old-one-said-with-as"),
    pytest.param(["I mostly use Helix", "I've moved over to Zed"], {"profile.md": "- Editor: Zed"}, None,
                 id="a-new-editor-replaces-the-line-of-the-old-one-said-with-an-adverb"),
    pytest.param(["Always use black for formatting", "Always use isort", "Use mypy in strict mode",
                  [("assistant", "Want me to run black?"), "Don't use black anymore, it's way too slow.", "stop using isort pls",
                   "Stop using mypy, at least for this PR."]],
                 {"preferences/default/black.md": "- Don't use black", "preferences/default/isort.md": "- Don't use isort",
                  "preferences/default/mypy.md": "- Use mypy in strict mode"},
                 None, id="an-instruction-taken-back-with-its-reason-or-a-please-ends-it"),
    pytest.param(["I prefer 2 reviewers per PR", ["I like having one reviewer per PR.", "I like getting two coffees per day."]],
                 {"preferences/default/2_reviewers_per.md": "- No longer prefers 2 reviewers per PR",
                  "preferences/default/one_reviewer_per.md": "- Likes having one reviewer per PR",
                  "preferences/default/two_coffees_per.md": "- Likes getting two coffees per day"},
                 None, id="a-count-had-with-more-words-ends-the-old"),
    # --- (mem12) a role's move, a country or a remark after a home, a tool no longer used, a switch of product,
    # a correction in a sentence of its own, a day that is no version ----------------------------------------------
    pytest.param(["Our COO moved to Shopify"], {f"events/{TODAY:%Y/%m/%d}/coo.md": "- Our COO moved to Shopify"}, None,
                 id="a-roles-move-asked-to-be-remembered-is-a-note-not-a-system"),
    pytest.param([["Our new Designer moved to Figma.", "Our CFO moved to Canva last week."]], {}, None, id="a-roles-move-in-a-session-is-nothing"),
    pytest.param(["I live in Porto", ["Our CEO moved to Berlin."]], {"profile.md": "- Lives in Porto"}, None, id="a-roles-move-is-no-home"),
    pytest.param(["Our Admin is at admin.internal:8080", ["Our Admin moved to admin2.internal:8443"]],
                 {"entities/systems/admin.md": "# Admin\n\n- Moved to admin2.internal:8443"}, None, id="a-roles-name-at-an-address-is-a-system"),
    pytest.param(["I live in Porto", ["We moved to the Netherlands in March."]], {"profile.md": "- Lives in the Netherlands"}, None,
                 id="a-move-to-a-country-with-its-article-is-a-home"),
    pytest.param(["I live in Porto", "We relocated to the US"], {"profile.md": "- Lives in the US"}, None, id="a-relocation-to-a-countrys-initials"),
    pytest.param(["I live in Porto", ["we just relocated to Montreal, the winters are brutal"]], {"profile.md": "- Lives in Montreal"}, None,
                 id="a-remark-after-a-comma-is-no-part-of-a-home"),
    pytest.param(["I live in Porto", ["We moved to Lyon, France."]], {"profile.md": "- Lives in Lyon, France"}, None,
                 id="a-country-after-a-comma-is-part-of-a-home"),
    pytest.param(["I live in Porto", ["We moved to the Cloud.", "We moved to the Postgres cluster."]], {"profile.md": "- Lives in Porto"}, None,
                 id="a-move-to-the-platform-is-no-home"),
    pytest.param(["I live in Porto", ["We moved to the Pro Plan.", "We relocated to the Scottish Highlands."]],
                 {"profile.md": "- Lives in the Scottish Highlands"}, None, id="a-name-after-the-is-a-place-only-when-a-regions-or-countrys"),
    pytest.param(["Always use prettier for formatting", ["We don't use prettier anymore."]], {}, None,
                 id="the-team-no-longer-using-a-tool-ends-the-instruction-in-a-session"),
    pytest.param(["Always use eslint", "I no longer use eslint"], {"profile.md": "- No longer uses eslint"}, None,
                 id="the-user-no-longer-using-a-tool-ends-the-instruction"),
    pytest.param(["Use mypy in strict mode", "We've stopped using mypy"], {"profile.md": "- Team no longer uses mypy"}, None,
                 id="the-team-no-longer-using-a-tool-asked-to-be-remembered-is-kept"),
    pytest.param(["I prefer yarn", ["we've stopped using yarn, it kept breaking"]], {"preferences/default/yarn.md": "- No longer prefers yarn"}, None,
                 id="the-team-no-longer-using-a-tool-ends-the-preference"),
    pytest.param(["We use Sentry", ["We no longer use Sentry."]], {"profile.md": "- Team no longer uses Sentry"}, None,
                 id="the-team-no-longer-using-a-tool-replaces-the-teams-line"),
    # (scale audit #3) whatever the team no longer does, and what it does instead after a comma
    pytest.param(["We deploy with helm", "We no longer deploy with helm, we deploy with argocd"],
                 {"profile.md": "- Team no longer deploys with helm\n- Team deploys with argocd"}, None,
                 id="the-team-no-longer-doing-a-thing-and-what-it-does-now"),
    pytest.param(["We use helm", "We no longer use helm, we use argocd"], {"profile.md": "- Team no longer uses helm\n- Team uses argocd"}, None,
                 id="the-team-no-longer-using-a-tool-and-what-it-uses-now"),
    pytest.param(["We deploy with helm", "We no longer deploy with helm, it kept breaking"],
                 {"profile.md": "- Team no longer deploys with helm, it kept breaking"}, None, id="the-team-no-longer-doing-a-thing-with-its-reason"),
    pytest.param(["We deploy with helm", "We don't deploy with helm anymore"], {"profile.md": "- Team does not deploy with helm anymore"}, None,
                 id="the-team-not-doing-a-thing-anymore"),
    pytest.param(["We deploy with helm", "We no longer deploy with helm", "We deploy with helm"], {"profile.md": "- Team deploys with helm"}, None,
                 id="the-team-doing-a-thing-again"),
    pytest.param(["In the payments service, we use Kafka"], {"entities/systems/payments_service.md": "# Payments service\n\n- In the payments service, we use Kafka"},
                 None, id="a-scope-before-we-is-no-statement-of-its-own"),
    pytest.param(["Use pnpm for installs", "Use pnpm for scripts", ["we've stopped using pnpm for installs"]],
                 {"preferences/default/pnpm.md": "- Use pnpm for scripts"}, None, id="a-tool-no-longer-used-for-one-thing-ends-only-that-instruction"),
    pytest.param(["Always use pytest", ["we don't use the old fixtures anymore", "We don't work Fridays anymore."]],
                 {"preferences/default/pytest.md": "- Always use pytest"}, None, id="the-team-no-longer-using-something-else-leaves-the-instruction"),
    pytest.param(["Our Elasticsearch is at es.internal:9200", ["Our Elasticsearch moved to OpenSearch."]],
                 {"entities/systems/elasticsearch.md": "# Elasticsearch\n\n- Moved to OpenSearch"}, None,
                 id="a-system-moved-to-another-product-loses-its-old-address"),
    pytest.param(["Our CI is at ci.internal:8080", "Our CI runs on Jenkins", "we moved CI to Buildkite"],
                 {"entities/systems/ci.md": "# CI\n\n- Moved to Buildkite"}, None, id="a-system-moved-to-another-product-asked-loses-its-old-address"),
    pytest.param(["Our Postgres cluster runs in us-west-2", "Our Postgres cluster is at pg.internal:5432", ["we moved our Postgres cluster to eu-central-1"]],
                 {"entities/systems/postgres_cluster.md": "# Postgres cluster\n\n- Moved to eu-central-1\n- Is at pg.internal:5432"}, None,
                 id="a-system-moved-to-a-region-keeps-its-address"),
    pytest.param([("stored", "profile.md", "- Team uses Jenkins for CI\n- Chris uses Jenkins\n- Marcus' team deploys with Jenkins"),
                  ["We switched from Jenkins to Buildkite."]],
                 {"profile.md": "- Team uses Buildkite for CI\n- Chris uses Jenkins\n- Marcus' team deploys with Jenkins"}, None,
                 id="a-switch-leaves-what-another-person-uses"),
    pytest.param([("stored", "profile.md", "- Uses Jenkins since 2019\n- Team runs nightly builds on Jenkins (since March 2022)"),
                  "We moved from Jenkins to Buildkite"],
                 {"profile.md": "- Uses Buildkite\n- Team runs nightly builds on Buildkite"}, None,
                 id="a-switch-rewrites-a-line-held-since-a-time-without-it"),
    # (written after the rule) an ending ends what the same session or text said before it, not what is said again after it
    pytest.param([["Always use poetry for packaging", "Let's get started.", "I no longer use poetry"]], {"profile.md": "- No longer uses poetry"},
                 None, id="an-ending-ends-the-instruction-said-earlier-in-the-session"),
    pytest.param([["I prefer pnpm", "we don't use pnpm anymore"]], {"preferences/default/pnpm.md": "- No longer prefers pnpm"}, None,
                 id="an-ending-ends-the-preference-said-earlier-in-the-session"),
    pytest.param(["Always use tox for tests. We switched from tox to nox."], {"profile.md": "- Team switched from tox to nox"}, None,
                 id="a-switch-ends-the-instruction-said-before-it-in-the-same-text"),
    # (and the line that ended it goes: an audit found "No longer uses black" kept beside "Always use black")
    pytest.param([["Always use isort", "I stopped using isort", "Actually, always use isort"]],
                 {"preferences/default/isort.md": "- Always use isort"}, None,
                 id="an-instruction-said-again-after-its-ending-holds"),
    pytest.param(["Always use prettier for markdown", ["we don't use prettier anymore", "Actually, always use prettier for markdown"]],
                 {"preferences/default/prettier.md": "- Always use prettier for markdown"}, None,
                 id="a-stored-instruction-said-again-after-its-ending-in-the-session-holds"),
    # (written after the rule) the team's thing moved to a named product lives there now, its old address gone
    pytest.param(["Our runbooks live at https://runbooks.acme.dev", "We moved our runbooks to Confluence"],
                 {"entities/systems/runbooks.md": "# Runbooks\n\n- Moved to Confluence"}, None, id="a-teams-thing-moved-to-a-product-loses-its-address"),
    pytest.param(["Our roadmap is at https://roadmap.acme.dev", ["we moved the roadmap to Linear"]],
                 {"entities/systems/roadmap.md": "# Roadmap\n\n- Moved to Linear"}, None, id="a-teams-thing-moved-to-a-product-in-a-session"),
    pytest.param(["We moved our standup to Thursday"], {"profile.md": "- Team moved their standup to Thursday"}, None,
                 id="a-move-to-a-day-is-no-product-and-our-is-the-teams"),
    pytest.param(["My terminal is Alacritty. Actually no, it's WezTerm."], {"profile.md": "- Terminal: WezTerm"}, None,
                 id="actually-no-its-x-corrects-the-value-just-said"),
    pytest.param([["My browser is Firefox.", "Oops, Brave."]], {"profile.md": "- Browser: Brave"}, None, id="a-name-after-an-apology-corrects"),
    pytest.param([["I prefer dark mode.", "Sorry - light mode."]], {"preferences/default/light_mode.md": "- Prefers light mode"}, None,
                 id="a-known-choice-after-an-apology-corrects"),
    pytest.param(["We use Jenkins for CI. Sorry, Buildkite."], {"profile.md": "- Team uses Buildkite for CI"}, None,
                 id="a-name-after-an-apology-replaces-the-name-in-a-teams-fact"),
    pytest.param(["I use bash at work. Oops, zsh."], {"profile.md": "- Uses zsh at work"}, None, id="a-known-tool-after-an-apology-replaces-the-tool"),
    pytest.param([["My shell is fish.", "Sorry, my bad.", "Actually, that's fine.", "Sorry, Thanks!"]], {"profile.md": "- Shell: fish"}, None,
                 id="an-apology-or-its-fine-is-no-correction"),
    # (review) a name said to someone after an apology is no value: the agent's, or a person's where a known tool was said
    pytest.param([["My editor is Neovim.", "Sorry, Claude."]], {"profile.md": "- Editor: Neovim"}, None, id="an-apology-to-the-agent-corrects-nothing"),
    pytest.param([["My shell is zsh.", "Sorry, Priya!"]], {"profile.md": "- Shell: zsh"}, None, id="an-apology-to-a-person-after-a-known-tool-corrects-nothing"),
    pytest.param([["My browser is Safari.", "Oops, Gemini."]], {"profile.md": "- Browser: Safari"}, None, id="oops-to-the-agent-corrects-nothing"),
    pytest.param([["I work at Acme.", "Sorry, Monday."]], {"profile.md": "- Works at Acme"}, None, id="a-day-after-an-apology-corrects-nothing"),
    pytest.param([["My terminal is Kitty.", "Sorry, Ghostty."]], {"profile.md": "- Terminal: Ghostty"}, None, id="an-apology-then-a-known-tool-still-corrects"),
    pytest.param([["My editor is VS Code.", "Sorry, Cursor."]], {"profile.md": "- Editor: Cursor"}, None, id="an-agents-name-that-is-a-known-tool-still-corrects"),
    pytest.param(["the offsite is on April 14th", "The migration is on Sept 9"],
                 {f"events/{TODAY:%Y/%m/%d}/offsite.md": "- The offsite is on April 14th",
                  f"events/{TODAY:%Y/%m/%d}/migration.md": "- The migration is on Sept 9"}, None,
                 id="a-day-is-no-version-a-note-of-it-is-filed-under-the-day-said"),
    # (audit) a verb's forms name one topic: "I prefer running tests ..." was running_tests.md beside run_tests.md
    pytest.param(["Lint with ruff before committing", "I prefer linting with ruff --fix"],
                 {"preferences/default/lint.md": "- Lint with ruff before committing\n- Prefers linting with ruff --fix"}, None,
                 id="an-ing-form-files-under-the-verbs-topic"),
    pytest.param(["I like reviewing PRs in the morning", "Always review PRs before lunch"],
                 {"preferences/default/review_prs.md": "- Likes reviewing PRs in the morning\n- Always review PRs before lunch"}, None,
                 id="an-instruction-files-under-the-ing-forms-topic"),
    pytest.param([("stored", "preferences/default/running_tests.md", "- Prefers running tests in parallel"), "I enjoy running tests with xdist"],
                 {"preferences/default/running_tests.md": "- Prefers running tests in parallel\n- Enjoys running tests with xdist"}, None,
                 id="a-topic-named-by-its-ing-form-before-is-still-found"),
    # (audit) "We moved our office to Lisbon" was entities/systems/office.md: a place of the team's that
    # moved to another is a note of what happened; a system's move (a name of its own) is still its card's
    pytest.param(["Our studio moved to Berlin", "We've moved our HQ to the Netherlands", "We moved our Grafana to Frankfurt"],
                 {f"events/{TODAY:%Y/%m/%d}/studio.md": "- Our studio moved to Berlin",
                  f"events/{TODAY:%Y/%m/%d}/hq_to_netherlands.md": "- We've moved our HQ to the Netherlands",
                  "entities/systems/grafana.md": "# Grafana\n\n- Moved to Frankfurt"}, None,
                 id="a-teams-place-moved-to-a-city-is-a-note-not-a-system"),
    pytest.param([["Our lab moved to Cambridge.", "I prefer tabs."]], {"preferences/default/tabs.md": "- Prefers tabs"}, None,
                 id="a-teams-place-moved-in-a-session-is-not-kept-unasked"),
    # (audit) a statement of the user's own and one of the project at hand in one sentence are two
    pytest.param(["I like small PRs, whereas this monorepo's CI runs Bazel"],
                 {"preferences/default/small_prs.md": "- Likes small PRs", "profile.md": "- This monorepo's CI runs Bazel"}, None,
                 id="a-clause-of-this-repo-is-split-from-the-users-own"),
    # (a review) a condition on an instruction is no clause of its own ("while" is no join)
    pytest.param(["Never deploy while this repo's release freeze is on"], {"preferences/default/deploy.md": "- Never deploy while this repo's release freeze is on"}, None,
                 id="a-condition-of-this-repo-stays-with-its-instruction"),
    pytest.param(["We use Jenkins for CI", "In this repo we migrated CI from Jenkins to GitHub Actions"],
                 {"profile.md": "- Team uses GitHub Actions in this repo for CI", "entities/systems/ci.md": "# CI\n\n- Moved to GitHub Actions in this repo"},
                 None, id="a-move-in-this-repo-keeps-its-place-and-no-stray-in"),
    # ... and a sentence asked to be remembered in a session is asked for each of its clauses
    pytest.param([["Remember that I prefer dark mode and I use tmux for everything."]],
                 {"preferences/default/dark_mode.md": "- Prefers dark mode", "profile.md": "- Uses tmux for everything"}, None,
                 id="each-clause-of-a-sentence-asked-to-be-remembered-is-asked"),
    # (audit) a choice said again after it was said to be no longer used: the newer statement holds, the older line goes
    pytest.param(["I've stopped using mypy", "Use mypy in strict mode"], {"preferences/default/mypy.md": "- Use mypy in strict mode"}, None,
                 id="an-instruction-to-use-ends-no-longer-uses"),
    pytest.param(["I no longer use Docker Compose", "I use Docker Compose for local dev", "I prefer tabs"],
                 {"profile.md": "- Uses Docker Compose for local dev", "preferences/default/tabs.md": "- Prefers tabs"}, None,
                 id="uses-again-replaces-no-longer-uses"),
    pytest.param(["We don't use Sentry anymore", "We use Sentry for errors"], {"profile.md": "- Team uses Sentry for errors"}, None,
                 id="the-team-using-again-replaces-its-no-longer"),
    pytest.param(["I don't use pipenv anymore", "Always use uv"], {"profile.md": "- No longer uses pipenv", "preferences/default/uv.md": "- Always use uv"},
                 None, id="another-choice-leaves-no-longer-uses-alone"),
    pytest.param([["I don't use black anymore.", "Always use black."]], {"preferences/default/black.md": "- Always use black"}, None,
                 id="an-instruction-after-no-longer-uses-in-one-session"),
    # (audit) a switch said without the old value replaces the use for the same purpose ("click" beside "typer" for CLIs)
    pytest.param(["I use click for CLIs", "Actually I switched to typer for CLIs"], {"profile.md": "- Uses typer for CLIs"}, None,
                 id="a-switch-for-a-purpose-replaces-the-use-for-it"),
    pytest.param(["I use Jest for unit tests", ["Actually, I've switched to Vitest for unit tests."]], {"profile.md": "- Uses Vitest for unit tests"},
                 None, id="a-switch-for-a-purpose-in-a-session-corrects-the-stored-use"),
    pytest.param(["I prefer Poetry for packaging", "I've moved over to uv for packaging"],
                 {"preferences/default/poetry.md": "- No longer prefers Poetry for packaging", "profile.md": "- Uses uv for packaging"}, None,
                 id="a-switch-for-a-purpose-ends-the-preference-for-another"),
    pytest.param(["I use Jest for unit tests", "I switched to Playwright for e2e tests"],
                 {"profile.md": "- Uses Jest for unit tests\n- Uses Playwright for e2e tests"}, None, id="a-switch-for-another-purpose-leaves-the-use"),
    pytest.param(["I prefer tabs", ["I've migrated to Zod for the validation layer."]], {"preferences/default/tabs.md": "- Prefers tabs"}, None,
                 id="a-switch-for-a-purpose-in-a-session-stores-nothing-of-its-own"),
    # (memfix17) a lead-in is taken off before the sentence is read: "Remember: I'm X, a role" is a
    # self-introduction, in ov remember and in a session alike, never "Is X, a role"
    *(pytest.param([step], {"profile.md": "- Name: Ingrid Olsen\n- Is a platform engineer"}, None, id=f"lead-in-{name}-{how}")
      for name, lead in (("remember", "Remember: "), ("remember-that", "Remember that "), ("note", "Note: "), ("fyi", "FYI "),
                         ("for-the-record", "For the record, "), ("just-so-you-know", "Just so you know, "))
      for how, step in (("remembered", f"{lead}I'm Ingrid Olsen, a platform engineer"),
                        ("in-a-session", [f"{lead}I'm Ingrid Olsen, a platform engineer"]))),
    # (memfix17) the user's certainty is no identity: what they are sure of is the statement
    pytest.param(["I'm certain we use Postgres 16"], {"profile.md": "- Team uses Postgres 16"}, None, id="certain-states-what-follows"),
    pytest.param([["I'm certain we use Postgres 16"]], {}, None, id="certain-of-a-team-fact-in-a-session-is-the-fact-unasked"),
    pytest.param(["I'm sure that our staging DB runs on port 5433", "Remember: I'm positive I prefer tabs", "I'm afraid I don't like Jira"],
                 {"entities/systems/staging_db.md": "# Staging DB\n\n- Runs on port 5433", "preferences/default/tabs.md": "- Prefers tabs",
                  "preferences/default/jira.md": "- Does not like Jira"}, None, id="sure-positive-afraid-state-what-follows"),
    pytest.param([["I'm convinced that I prefer tabs.", "I'm aware I'm a platform engineer."]],
                 {"preferences/default/tabs.md": "- Prefers tabs", "profile.md": "- Is a platform engineer"}, None,
                 id="convinced-aware-in-a-session-state-what-follows"),
    # ... but doubt states nothing of the user (a dated note of it when asked), and a certainty of something is the user's
    pytest.param(["I'm not sure we use Postgres 16", "I'm pretty sure our staging DB runs on port 5433"],
                 {f"events/{TODAY:%Y/%m/%d}/sure_we_use.md": "- I'm not sure we use Postgres 16",
                  f"events/{TODAY:%Y/%m/%d}/pretty_sure.md": "- I'm pretty sure our staging DB runs on port 5433"}, None,
                 id="doubt-is-a-note-never-an-identity"),
    pytest.param([["I'm not sure we use Postgres 16, and I prefer tabs.", "I'm unsure whether I like Jira."]], {}, None,
                 id="a-sentence-opening-on-doubt-states-nothing-in-a-session"),
    pytest.param(["I'm afraid of heights", "I'm confident in Rust"], {"profile.md": "- Is afraid of heights\n- Is confident in Rust"}, None,
                 id="a-certainty-of-something-is-the-users"),
    # (memfix17) a feeling, a readiness or an intent says how the user is now, not who they are: a dated note when asked
    pytest.param(["I'm happy to review PRs on Fridays", "I'm gonna migrate the API to uv", "I'm so proud of the platform team"],
                 {f"events/{TODAY:%Y/%m/%d}/happy_to_review.md": "- I'm happy to review PRs on Fridays",
                  f"events/{TODAY:%Y/%m/%d}/gonna_migrate_api.md": "- I'm gonna migrate the API to uv",
                  f"events/{TODAY:%Y/%m/%d}/proud_of_platform.md": "- I'm so proud of the platform team"}, None,
                 id="a-feeling-or-an-intent-is-no-identity"),
    pytest.param(["I'm allergic to peanuts", "I'm passionate about Rust", "I'm learning Rust"],
                 {"profile.md": "- Is allergic to peanuts\n- Is passionate about Rust\n- Is learning Rust"}, None,
                 id="what-the-user-lastingly-is-stays-theirs"),
    # (memfix17b) "wait, no" opens a correction as "no wait" does, and a subjectless switch after the
    # value ("..., switched a couple of weeks ago") says the change as "now" does, with its time left out
    pytest.param(["My editor is VS Code.", "wait no, I use Zed now, switched a couple of weeks ago"], {"profile.md": "- Editor: Zed"}, None,
                 id="wait-no-corrects-a-stored-line"),
    pytest.param([["My editor is VS Code. Wait, no, it's Zed."]], {"profile.md": "- Editor: Zed"}, None, id="wait-no-its-x-in-a-session"),
    pytest.param(["My shell is bash", "I use fish, switched last month", "I live in London", "I live in Berlin, moved in 2024"],
                 {"profile.md": "- Shell: fish\n- Lives in Berlin"}, None, id="a-switch-said-after-the-value-is-a-change"),
    pytest.param(["My editor is VS Code", "I switched to Zed a couple of weeks ago"], {"profile.md": "- Editor: Zed"}, None,
                 id="a-couple-of-weeks-ago-is-when-not-the-value"),
    pytest.param(["My editor is Vim", "wait, no problem, my editor is Zed"],
                 {"profile.md": "- Editor: Vim", f"events/{TODAY:%Y/%m/%d}/wait_no_problem.md": "- Wait, no problem, my editor is Zed"},
                 None, id="wait-no-problem-corrects-nothing"),
    # (memfix17b) the team's switch for a purpose, without the old tool, replaces the team's use for it
    pytest.param(["We use helm for deploys", "We switched to argocd for deploys"], {"profile.md": "- Team uses argocd for deploys"}, None,
                 id="a-teams-switch-for-a-purpose-replaces-its-use"),
    pytest.param(["Our team uses Jenkins for CI", "We've moved over to GitHub Actions for CI", "I use click for CLIs"],
                 {"profile.md": "- Team uses GitHub Actions for CI\n- Uses click for CLIs"}, None,
                 id="a-teams-switch-leaves-the-users-own-use"),
    pytest.param(["We use Jenkins for CI", "We moved from Jenkins to GitHub Actions"], {"profile.md": "- Team uses GitHub Actions for CI"}, None,
                 id="a-teams-move-from-to-replaces-its-use"),
    pytest.param([["We use helm for deploys"], ["We switched to argocd for deploys"]], {}, None,
                 id="a-teams-switch-in-a-session-only-corrects"),
    # (memfix17b) a name, then a shorter name that will do: two statements
    pytest.param(["hey, I'm Priyanka, Pri is fine too"], {"profile.md": "- Name: Priyanka\n- Preferred name: Pri"}, None,
                 id="a-name-then-a-shorter-one"),
    # (review rev17) a capitalised word, then a clause, is no name: "I'm Stuck, I can't ..." replaced
    # a stored name with "Stuck", and "I'm Sorry, I meant Postgres 15" with "Postgres 15"
    pytest.param(["My name is Dana Lee", ["I'm Stuck, I can't get the tests to pass"], ["I'm Blocked, my PR needs a review"],
                  ["I'm Sorry, I meant Postgres 15"]], {"profile.md": "- Name: Dana Lee"}, None,
                 id="a-capitalised-state-then-a-clause-is-no-name"),
    pytest.param(["I'm German, I work at SAP", "I'm Polish, Pri is fine too"], {"profile.md": "- Is German\n- Works at SAP\n- Is Polish, Pri is fine too"},
                 None, id="a-peoples-word-then-a-clause-is-no-name"),
    # (memfix17b) a sigh or a thanks with nothing the rules read is a remark of the moment, refused; a
    # statement after one is kept, and so is a cause given by "thanks to"
    pytest.param([("refused", "Ugh, this build is so slow today"), ("refused", "Thanks, that worked great! Have a good weekend"),
                  ("refused", "ugh that test is flaky again. rerun it? brb grabbing coffee")], {}, None,
                 id="a-sigh-or-a-thanks-is-no-note"),
    pytest.param(["Ugh, I prefer tabs", "Thanks to Bob, the staging DB runs on port 5433"],
                 {"entities/systems/staging_db.md": "# Staging DB\n\n- Thanks to Bob, the staging DB runs on port 5433", "preferences/default/tabs.md": "- Prefers tabs"}, None,
                 id="a-statement-after-a-sigh-is-kept"),
    # (review rev17) only a remark about the thing at hand is refused: a fact after a thanks or a
    # sigh is kept, as a dated note, as it was before the refusal
    pytest.param(["Thanks, the staging DB moved to db2.internal:5432", "Ugh, the prod API key expires on 2027-01-31"],
                 {f"events/{TODAY:%Y/%m/%d}/thanks_staging_db.md": "- Thanks, the staging DB moved to db2.internal:5432",
                  f"events/{TODAY:%Y/%m/%d}/prod_api_key.md": "- The prod API key expires on 2027-01-31"}, None,
                 id="a-fact-after-a-thanks-or-a-sigh-is-kept"),
    # (mem18) a name, then a first-person clause of its own: the name and the clause, each its line;
    # in a session as in ov remember; a state of the moment opening the same shape is still no name
    pytest.param(["I'm Ilse, I maintain the billing service", "I'm Ilse and my editor is Helix"],
                 {"profile.md": "- Name: Ilse\n- Maintains the billing service\n- Editor: Helix"}, None,
                 id="a-name-then-a-clause-of-its-own"),
    pytest.param([["Hi, I'm Bartosz, I mostly write Kotlin"]], {"profile.md": "- Name: Bartosz\n- Main language: Kotlin"}, None,
                 id="a-name-then-a-clause-in-a-session"),
    pytest.param(["My name is Dana Lee", "I'm Confused, I thought we used Jest"],
                 {"profile.md": "- Name: Dana Lee", f"events/{TODAY:%Y/%m/%d}/confused.md": "- I'm Confused, I thought we used Jest"}, None,
                 id="a-capitalised-word-of-the-moment-then-a-clause-is-no-name"),
    # (mem18) "X, not Y": the value is X; Y's line ends as any other value of the key's does
    pytest.param(["I use zsh", "My shell is nushell, not zsh", "My editor is Kakoune not Vim", "My favorite language is Go, not only for its speed"],
                 {"profile.md": "- Shell: nushell\n- Editor: Kakoune\n- Favorite language: Go, not only for its speed"}, None,
                 id="the-value-said-against-another-is-no-part-of-it"),
    # (mem18, review rev18b) "I'm at X now": the employer, in place of a stored one, with a change of
    # job said or as a correction; alone, where the user is (a conference, a friend's, a shop as often
    # as a new job: a stored employer is never replaced by one); never a venue
    pytest.param(["I work for Initrode", "Correction: I'm at Vandelay Industries now"], {"profile.md": "- Works at Vandelay Industries"}, None,
                 id="im-at-x-now-replaces-the-employer"),
    pytest.param(["I'm an SRE at Globex", "correction: I'm at Hooli now, new job since May"], {"profile.md": "- Works at Hooli"}, None,
                 id="im-at-x-now-replaces-a-role-at-the-employer"),
    pytest.param(["I'm at Umbrella now, switched jobs last month", "I'm at Soylent now"],
                 {"profile.md": "- Works at Umbrella\n- Is at Soylent"}, None, id="im-at-x-now-with-a-job-change-is-the-employer"),
    pytest.param(["I work at Google", "I'm at PyCon now", "I'm at Dana's now", "I'm at KubeCon now"],
                 {"profile.md": "- Works at Google\n- Is at KubeCon"}, None,  # where the user is: the last one said
                 id="im-at-an-event-or-a-friends-now-keeps-the-employer"),
    pytest.param(["I'm at Pied Piper now"], {"profile.md": "- Is at Pied Piper"}, None, id="im-at-x-now-alone-is-where-the-user-is"),
    pytest.param(["I work at Acme", "I'm at Gatwick Airport now"], {"profile.md": "- Works at Acme\n- Is at Gatwick Airport"}, None,
                 id="im-at-a-venue-now-is-no-employer"),
    # (mem18) "not anymore" answering where the user lives: a move, to a place or away
    pytest.param(["I live in Oslo", "not anymore, we moved to Bergen"], {"profile.md": "- Lives in Bergen"}, None,
                 id="not-anymore-we-moved-to-x"),
    # (review rev18b) ... as "we moved to X" is: a team's move to a tool is no home
    pytest.param(["I live in Oslo", "not anymore, we moved to Kubernetes"], {"profile.md": "- Lives in Oslo\n- Team moved to Kubernetes"}, None,
                 id="not-anymore-we-moved-to-a-tool"),
    pytest.param(["I'm based in Kraków", "nope, not anymore - we relocated last spring"], {"profile.md": "- Moved away"}, None,
                 id="not-anymore-we-relocated-ends-the-home"),
    pytest.param(["I'm in Nairobi, so EAT for meetings", "I moved to Kigali"], {"profile.md": "- Lives in Kigali"}, None,
                 id="a-move-replaces-im-in-a-place"),
    pytest.param(["I'm based in Lyon", "I moved away from there"], {"profile.md": "- Moved away"}, None,
                 id="moved-away-ends-the-home"),
    # (mem18) a bare choice, given to be remembered, is a preference
    pytest.param(["Tailwind over CSS modules", "light theme pls", "snake_case please, always"],
                 {"preferences/default/tailwind.md": "- Prefers Tailwind over CSS modules",
                  "preferences/default/light_theme.md": "- Prefers light theme",
                  "preferences/default/snake_case.md": "- Prefers snake_case"}, None,
                 id="a-bare-choice-is-a-preference"),
    pytest.param([("refused", "run the linter please"), "the full log please", "moved over to uv", "Actually I prefer Go over Python"],
                 {                  f"events/{TODAY:%Y/%m/%d}/full_log.md": "- The full log",
                  "profile.md": "- Moved over to uv",  # (the user's change, its "I" dropped: mem18b)
                  "preferences/default/go.md": "- Prefers Go over Python"}, None,
                 id="an-ask-or-a-happening-is-no-bare-choice"),
    # (mem18b) what is chosen over may open on a participle; a key of the setup said as a label; "Name's X"
    pytest.param(["guard clauses over nested conditionals", "composition over inherited behaviour"],
                 {"preferences/default/guard_clauses.md": "- Prefers guard clauses over nested conditionals",
                  "preferences/default/composition.md": "- Prefers composition over inherited behaviour"}, None,
                 id="a-choice-over-a-participle-is-a-preference"),
    pytest.param(["terminal: Alacritty", "editor - Helix, OS: NixOS", "My shell is bash", "shell: nushell"],
                 {"profile.md": "- Terminal: Alacritty\n- Editor: Helix\n- OS: NixOS\n- Shell: nushell"}, None,
                 id="a-setup-key-said-as-a-label-is-the-users"),
    pytest.param(["Hey! Name's Ingrid, I'm a platform engineer", "Hello there. I work at Initech"],
                 {"profile.md": "- Name: Ingrid\n- Is a platform engineer\n- Works at Initech"}, None,
                 id="names-x-is-my-name-and-a-greeting-is-no-note"),
    # (mem18b) a change with its "I" dropped, said with a loose time ("a while back", "over the summer")
    pytest.param(["I use Emacs", "went over to Helix a while back, Emacs is history"], {"profile.md": "- Editor: Helix"}, None,
                 id="a-change-with-its-i-dropped-and-a-loose-time"),
    pytest.param(["My shell is bash", "jumped to nushell two months back"], {"profile.md": "- Shell: nushell"}, None,
                 id="jumped-to-a-tool-months-back"),
    pytest.param(["I live in Porto", "relocated to Braga over the holidays"], {"profile.md": "- Lives in Braga"}, None,
                 id="a-move-with-its-i-dropped-over-the-holidays"),
    pytest.param(["My terminal is iTerm2", "I moved to WezTerm ages ago"], {"profile.md": "- Terminal: WezTerm"}, None,
                 id="a-switch-ages-ago-is-the-tool"),
    # (mem18b) a team's habit said with where it works; a rule said as a fact, not as "we decided"
    pytest.param(["We always rebase-merge feature branches here", "At work, we never deploy after 4pm"],
                 {"profile.md": "- Team always rebase-merges feature branches\n- Team never deploys after 4pm"}, None,
                 id="a-teams-habit-here-is-the-teams"),
    pytest.param(["Each schema change needs a migration script", "All releases must be tagged from main",
                  "hotfix branches should never be rebased"],
                 {"preferences/default/schema_change.md": "- Each schema change needs a migration script (team convention)",
                  "preferences/default/releases.md": "- All releases must be tagged from main (team convention)",
                  "preferences/default/hotfix_branches.md": "- Hotfix branches should never be rebased (team convention)"}, None,
                 id="a-rule-said-as-a-fact-is-a-convention"),
    pytest.param(["The docs need fixing", "Every test must pass today", "we are here"],
                 {f"events/{TODAY:%Y/%m/%d}/docs.md": "- The docs need fixing",
                  f"events/{TODAY:%Y/%m/%d}/every_test.md": "- Every test must pass today (2026-09-15)",
                  f"events/{TODAY:%Y/%m/%d}/here.md": "- We are here"}, None,
                 id="a-need-of-the-moment-is-no-convention"),
    # (mem18b) a system upgraded to a version uses that version, in place of the other
    pytest.param(["The billing API runs Node 18", "we bumped the billing API to Node 22"],
                 {"entities/systems/billing_api.md": "# Billing API\n\n- Uses Node 22"}, None, id="a-system-bumped-to-a-version"),
    pytest.param(["Our search cluster uses Elasticsearch 7.10", "the search cluster was finally upgraded to Elasticsearch 8.12"],
                 {"entities/systems/search_cluster.md": "# Search cluster\n\n- Uses Elasticsearch 8.12"}, None,
                 id="a-system-was-upgraded-to-a-version"),
    pytest.param(["we updated the docs to the new API"], {"profile.md": "- Team updated the docs to the new API"}, None,
                 id="an-update-to-no-version-is-no-systems"),
    # (mem18b) a statement about the user in another language: its opening said in English (languages.py)
    pytest.param(["Me llamo Lucía, vivo en Sevilla y trabajo para Cabify"],
                 {"profile.md": "- Name: Lucía\n- Lives in Sevilla\n- Works at Cabify"}, None, id="spanish-name-home-employer"),
    pytest.param(["Mein Name ist Anke und ich wohne in Köln", "Ich wohne jetzt in Hamburg"],
                 {"profile.md": "- Name: Anke\n- Lives in Hamburg"}, None, id="german-name-and-a-move-now"),
    pytest.param(["J'utilise Vim", "Je m'appelle Amélie et je travaille chez Doctolib", "Eu uso Helix agora"],
                 {"profile.md": "- Editor: Helix\n- Name: Amélie\n- Works at Doctolib"}, None,
                 id="french-and-portuguese-openings"),
    pytest.param(["Soy sauce goes in the marinade", "Jetzt geht es los"],
                 {"entities/systems/soy_sauce.md": "# Soy sauce\n\n- Soy sauce goes in the marinade", f"events/{TODAY:%Y/%m/%d}/jetzt_geht_es.md": "- Jetzt geht es los"}, None,
                 id="another-languages-text-with-no-opening-is-left-alone"),
    # (mem18b) what a value is given for is no part of it; a name to be called by, then a remark on it;
    # an environment named bare is a system
    pytest.param(["my npm username is jdoe-dev, in case you need it for publishing", "My name is Robert", "call me Rob, Robert is too formal"],
                 {"profile.md": "- Npm username: jdoe-dev\n- Name: Robert\n- Preferred name: Rob"}, None,
                 id="a-value-for-your-use-and-a-name-with-a-remark"),
    pytest.param(["Production deploys only from tagged releases", "preprod uses a nightly copy of the prod database", "staging is down"],
                 {"entities/systems/production.md": "# Production\n\n- Deploys only from tagged releases",
                  "entities/systems/preprod.md": "# Preprod\n\n- Uses a nightly copy of the prod database",
                  f"events/{TODAY:%Y/%m/%d}/staging.md": "- Staging is down"}, None,
                 id="an-environment-named-bare-is-a-system"),
    # (mem18) a part of the text that only leans on what the rest said, naming nothing, is no dated note
    pytest.param(["My terminal is Kitty. Bear that in mind when you suggest keybindings.", "never force-push to shared branches, I'll do it myself if needed",
                  "Remember that the docs DB is read-only and I need the bastion for it"],
                 {"entities/systems/docs_db.md": "# Docs DB\n\n- Is read-only\n- The docs DB is read-only and I need the bastion for it", "preferences/default/force-push_to_shared.md": "- Never force-push to shared branches", "profile.md": "- Terminal: Kitty"}, None,
                 id="a-part-leaning-on-the-rest-is-no-note"),
    # (mem18c) a standing instruction asked as a question is one; a one-off request keeps nothing
    pytest.param(["Can you always add docstrings to public functions?", "would you mind never rebasing shared branches?",
                  "could you use ruff from now on?", ("refused", "Could you format this file?")],
                 {"preferences/default/add_docstrings_to.md": "- Always add docstrings to public functions",
                  "preferences/default/rebase_shared_branches.md": "- Never rebase shared branches",
                  "preferences/default/ruff.md": "- Always use ruff"}, None,
                 id="a-standing-instruction-asked-politely"),
    # (review rev18c) a complaint asked with "always"/"never" is no instruction: a verb of the work opens one
    pytest.param([("refused", "can you never just do what I ask?"), ("refused", "will you always be this slow?"),
                  "could you always run the linter before committing?"],
                 {"preferences/default/run_linter.md": "- Always run the linter before committing"}, None,
                 id="a-complaint-asked-with-always-is-no-instruction"),
    # (review rev18c) a value whose other words are not a name keeps them when one of its tools is swapped
    pytest.param(["My shell is zsh on macOS and bash on servers", "I switched from zsh to fish"],
                 {"profile.md": "- Shell: fish on macOS and bash on servers"}, None, id="a-swap-keeps-the-rest-of-the-value"),
    # (mem18c) "pls" typed for "please", a contraction typed without its apostrophe
    pytest.param(["plz dont commit lockfiles from the sandbox"],
                 {"preferences/default/commit_lockfiles.md": "- Don't commit lockfiles from the sandbox"}, None,
                 id="pls-and-a-dropped-apostrophe"),
    # (mem18c) an imperative said with "always" / "never" in another language is the English instruction
    pytest.param(["Responde siempre en español, por favor", "Nunca uses tabs", "Antworte mir immer auf Deutsch"],
                 {"preferences/default/answer_en_español.md": "- Always answer en español",
                  "preferences/default/tabs.md": "- Never use tabs",
                  "preferences/default/answer_me_auf.md": "- Always answer me auf Deutsch"}, None,
                 id="a-standing-order-in-another-language"),
    # (mem18c) a value named by its short name ("Sublime" for "Sublime Text") is replaced whole
    pytest.param(["My IDE is Visual Studio Code", "I moved from Visual to Zed", "My browser is Firefox Developer Edition",
                  "I use Chromium now instead of Firefox"],
                 {"profile.md": "- IDE: Zed\n- Browser: Chromium"}, None, id="a-value-swapped-by-its-short-name-is-replaced-whole"),
    # (mem18c) "I use X these days, not Y" is a switch when a change is said; "I use X, not Y" alone a choice;
    # tabs and spaces are always for indentation, so saying so names no context of its own
    pytest.param(["My terminal is iTerm2", "actually I'm using Ghostty nowadays, not iTerm2", "I use ruff, not flake8",
                  "Always use spaces for indentation", "Scratch that, use tabs"],
                 {"profile.md": "- Terminal: Ghostty\n- Uses ruff, not flake8", "preferences/default/tabs.md": "- Use tabs"}, None,
                 id="a-thing-used-said-against-the-old-one-and-an-indentation-choice-corrected"),
    # (mem18c) the team's "we use" in another language
    pytest.param(["Wir nutzen Renovate für Updates", "Usamos Sentry para errores"],
                 {"profile.md": "- Team uses Renovate für Updates\n- Team uses Sentry para errores"}, None,
                 id="we-use-in-another-language"),
    # (mem18c) a thanks with fillers keeps nothing; (mem19) a task for now keeps nothing either, asked
    # to remember or not: it was a prompt for the agent, and a note of it would be recalled as still to do
    pytest.param([("refused", "haha ok it works now, thanks"), ("refused", "run the linter and fix whatever it flags"),
                  ["run the linter and fix whatever it flags", "lol ok that did it, thanks!"]],
                 {}, None, id="a-thanks-and-a-task-for-now-keep-nothing"),
    # (mem19) thinking aloud keeps nothing; a task made standing, a reminder for a day, or one naming
    # a thing to think about is kept; a statement opening on a name that is also a verb is no task
    pytest.param([("refused", "mmm, alright, let me sleep on it"), ("refused", "please tidy up the imports in that module"),
                  ("refused", "ok now bump the version and rerun the build"),
                  "sort the imports before every release", "rerun the nightly job on Thursday", "Build caches live on the shared runner"],
                 {"entities/systems/build_caches.md": "# Build caches\n\n- Build caches live on the shared runner", f"events/{TODAY:%Y/%m/%d}/rerun_nightly_job.md": "- Rerun the nightly job on Thursday", "preferences/default/sort_imports.md": "- Sort the imports before every release"}, None,
                 id="thinking-aloud-and-a-task-for-now-keep-nothing-a-standing-one-is-kept"),
    # (mem19) the verbs that leave one thing for another are a switch; a drop for a purpose or a reason is none
    pytest.param(["My terminal is Alacritty", "I've dropped Alacritty in favour of WezTerm", "I use pip", "I moved off pip to uv",
                  "I dropped support for Node 16", "My editor is Emacs", "I gave up Emacs to learn Rust"],
                 {"profile.md": "- Terminal: WezTerm\n- Uses uv\n- Editor: Emacs",
                  f"events/{TODAY:%Y/%m/%d}/support.md": "- I dropped support for Node 16",
                  f"events/{TODAY:%Y/%m/%d}/up_emacs.md": "- I gave up Emacs to learn Rust"}, None,
                 id="a-thing-left-for-another-is-a-switch"),
    # (mem19) a key verb typed with one letter wrong; not a word of its own one letter away ("refer", "liked")
    pytest.param(["i prefere tabs", "I perfer short answers", "I refer to the style guide for naming", "I liked the old dashboard"],
                 {"preferences/default/tabs.md": "- Prefers tabs", "preferences/default/short_answers.md": "- Prefers short answers",
                  "profile.md": "- Refers to the style guide for naming",
                  f"events/{TODAY:%Y/%m/%d}/old_dashboard.md": "- I liked the old dashboard"}, None,
                 id="a-key-verb-typed-with-one-letter-wrong"),
    # (mem19) "No X, thanks" is a thing not wanted, for good; not one of the moment
    pytest.param(["No trailing whitespace in Markdown files, thanks", "please, no semicolons in TypeScript", "No errors this time, thanks"],
                 {"preferences/default/trailing_whitespace.md": "- Avoid trailing whitespace in Markdown files",
                  "preferences/default/semicolons.md": "- Avoid semicolons in TypeScript",
                  f"events/{TODAY:%Y/%m/%d}/errors_this_time.md": "- No errors this time"}, None,
                 id="no-x-thanks-is-a-thing-not-wanted"),
    # (mem19) a way of working said as a fact of the repo or the team, with no "we": a convention; not
    # how things go there, nor a rule with no place said
    pytest.param(["Branch names start with the ticket key in this repo", "Hotfixes need a second reviewer here", "The builds here are slow",
                  "PRs need two approvals"],
                 {"entities/systems/prs.md": "# PRs\n\n- PRs need two approvals", f"events/{TODAY:%Y/%m/%d}/builds_here.md": "- The builds here are slow", "preferences/default/branch_names.md": "- Branch names start with the ticket key in this repo (team convention)", "preferences/default/hotfixes.md": "- Hotfixes need a second reviewer here (team convention)"}, None,
                 id="a-convention-said-as-a-fact-of-the-repo"),
    # (mem19) the team's upgrade replaces the version it was on; a line saying more is left, and the
    # new one said beside it; a version corrected over three steps ends with the last
    pytest.param([("stored", "profile.md", "- Team is on Postgres 14"), "we upgraded to Postgres 16", "We're on MySQL 5.7 and Redis 6",
                  "we bumped to Redis 7"],
                 {"profile.md": "- Team is on Postgres 16\n- Team is on MySQL 5.7 and Redis 6\n- Team is on Redis 7"}, None,
                 id="an-upgrade-replaces-the-version-the-team-was-on"),
    # The thing named before its new version ("we upgraded Python to 3.12") is the same upgrade; a
    # setting raised to a number is none ("we bumped the retry limit to 5")
    pytest.param(["We're on Python 3.11", "I use Node 20", "We upgraded Python to 3.12 last week", "I updated Node from 20 to 22",
                  "we bumped the retry limit to 5"],
                 {"profile.md": "- Team is on Python 3.12\n- Is on Node 22\n- Team's retry limit: 5"}, None,
                 id="an-upgrade-naming-the-thing-before-its-version"),
    pytest.param(["We're on Kotlin 1.8", "we went to Kotlin 1.9 last month", "correction: it's Kotlin 2.0, not 1.9"],
                 {"profile.md": "- Team is on Kotlin 2.0"}, None, id="a-version-corrected-over-three-steps-ends-with-the-last"),
    # (mem19) "it's X, not Y" after a correction's lead puts X in the lines naming Y, in a later ov remember too;
    # with none naming Y, what was said is a dated note; a kind of thing ("a list, not a dict") is no value
    pytest.param(["My terminal is Kitty", "no wait, it's Ghostty, not Kitty", "correction: it's Fedora, not Ubuntu",
                  "actually it's a tuple, not a list"],
                 {"profile.md": "- Terminal: Ghostty",
                  f"events/{TODAY:%Y/%m/%d}/correction_it_s_fedora.md": "- It's Fedora, not Ubuntu",
                  f"events/{TODAY:%Y/%m/%d}/actually_it_s_tuple.md": "- It's a tuple, not a list"}, None,
                 id="its-x-not-y-corrects-a-stored-value"),
    # (mem19) more of the family: "swapped X out for Y", "replaced X by Y", "since"; the new value named first
    # ("went with Y over X") only corrects, since a choice of the moment is said so too
    pytest.param(["I use Jest", "I've since swapped Jest out for Vitest", "I use Black", "I replaced Black by Ruff", "My browser is Firefox",
                  "I went with Brave over Firefox", "we settled on Bun rather than Deno"],
                 {"profile.md": "- Uses Vitest\n- Uses Ruff\n- Browser: Brave",
                  f"events/{TODAY:%Y/%m/%d}/bun.md": "- We settled on Bun rather than Deno"}, None,
                 id="a-thing-swapped-out-or-chosen-over-another"),
    # (mem19) "no more X, please" too; an acknowledgement alone or thinking aloud keeps nothing
    pytest.param(["No more print statements in library code, please", "No more questions, thanks",
                  ("refused", "got it, makes sense"), ("refused", "not sure yet, will check later")],
                 {"preferences/default/print_statements.md": "- Avoid print statements in library code",
                  f"events/{TODAY:%Y/%m/%d}/more_questions.md": "- No more questions"}, None,
                 id="no-more-x-please-and-an-acknowledgement"),
    # (mem19) Italian, Dutch and Polish openings; a word of theirs opening an English text is left alone
    pytest.param(["Mi chiamo Lorenzo e lavoro presso Satispay"], {"profile.md": "- Name: Lorenzo\n- Works at Satispay"}, None,
                 id="italian-openings"),
    pytest.param(["Ik woon in Gent en ik werk bij Showpad", "Schrijf altijd tests voor nieuwe endpoints", "Gebruik Docker voor de tests"],
                 {"profile.md": "- Lives in Gent\n- Works at Showpad",
                  "preferences/default/write_tests_voor.md": "- Always write tests voor nieuwe endpoints",
                  f"events/{TODAY:%Y/%m/%d}/gebruik_docker_voor.md": "- Gebruik Docker voor de tests"}, None, id="dutch-openings-and-order"),
    pytest.param(["Nazywam się Ola i pracuję jako tester", "Sono Motors builds solar cars", "Heet water scalds"],
                 {"entities/systems/sono_motors.md": "# Sono Motors\n\n- Sono Motors builds solar cars", f"events/{TODAY:%Y/%m/%d}/heet_water_scalds.md": "- Heet water scalds", "profile.md": "- Name: Ola\n- Works as tester"}, None, id="polish-openings-and-lookalikes-left-alone"),
    # (mem19) a few whole Japanese sentences about the user (its verb comes last: no opening says it); another stays a note
    pytest.param(["私の名前は佐藤です", "私は大阪に住んでいます", "私はシェルとしてfishを使っています", "このテストは遅いです"],
                 {"profile.md": "- Name: 佐藤\n- Lives in 大阪\n- Uses fish as シェル",
                  f"events/{TODAY:%Y/%m/%d}/このテストは遅いです.md": "- このテストは遅いです"}, None, id="japanese-sentences-about-the-user"),
    # (mem20) one thing ranked above another is a choice of it; a measurement ("by 30%") stays a note
    pytest.param(["Pydantic beats hand-rolled validation every time", "the new parser beats the old one by 30%"],
                 {"preferences/default/pydantic.md": "- Prefers Pydantic over hand-rolled validation",
                  f"events/{TODAY:%Y/%m/%d}/new_parser_beats.md": "- The new parser beats the old one by 30%"}, None,
                 id="a-thing-that-beats-another-is-chosen"),
    # (mem20) a guess on the way to a look keeps nothing, even one a rule would read ("I wonder ..."); (mem22) a guess alone neither
    pytest.param([("refused", "hmm, perhaps the leak is in the WebSocket handler... let me check that first"),
                  ("refused", "I wonder if it's the CDN cache; let me check"), ("refused", "perhaps the leak is in the WebSocket handler")],
                 {}, None,
                 id="a-guess-said-on-the-way-to-a-look"),
    # (mem20) the half of a switch that names what was left is "no longer uses", not a note beside the switch;
    # something left that is no name ("the gym plan") keeps the note
    pytest.param(["I use Trello", "I dropped Trello, we plan sprints in Notion now", "My editor is Emacs",
                  "I abandoned Emacs, my editor is Zed now", "I ditched the gym plan, I live in Porto"],
                 {"profile.md": "- No longer uses Trello\n- Team plans sprints in Notion\n- No longer uses Emacs\n- Editor: Zed\n- Lives in Porto",
                  f"events/{TODAY:%Y/%m/%d}/gym_plan.md": "- I ditched the gym plan, I live in Porto"}, None,
                 id="the-left-half-of-a-switch-is-no-note"),
    pytest.param(["My shell is bash", "I've given up on bash, my shell is fish now", ("refused", "I dropped the ball, my bad")],
                 {"profile.md": "- No longer uses bash\n- Shell: fish"}, None,
                 id="the-left-half-of-a-switch-read-by-a-rule-is-no-longer-used"),
    pytest.param(["I got rid of Jenkins, we use Buildkite now"], {"profile.md": "- No longer uses Jenkins\n- Team uses Buildkite"}, None,
                 id="the-left-half-of-the-teams-switch"),
    # (mem20) a project fact said with no "I" or "we": what a kind of build uses, a labelled convention, the
    # team's value and its changes; a complaint, a remark and a day's state stay notes
    pytest.param(["Backend services use Go 1.22 with sqlc", "Tests use too much memory",
                  "Commit convention: subject lines under 60 characters", "Our sprint length is two weeks",
                  "We bumped the sprint length to three weeks", "Our code is a mess", "the staging deploy is broken today"],
                 {"entities/systems/backend_services.md": "# Backend services\n\n- Use Go 1.22 with sqlc", "entities/systems/code.md": "# Code\n\n- Our code is a mess", "entities/systems/tests.md": "# Tests\n\n- Tests use too much memory", f"events/{TODAY:%Y/%m/%d}/staging_deploy.md": f"- The staging deploy is broken today ({TODAY:%Y-%m-%d})", "preferences/default/commit.md": "- Commit convention: subject lines under 60 characters (team convention)", "profile.md": "- Team's sprint length: three weeks"}, None,
                 id="project-facts-said-plainly"),
    pytest.param(["Our p95 latency budget is 200 ms", "We lowered the p95 latency budget to 150 ms", "no wait, the p95 latency budget is 120 ms"],
                 {"profile.md": "- Team's p95 latency budget: 120 ms"}, None, id="a-teams-value-corrected-in-three-forms"),
    # (mem20) a role said to hold "right now" holds as "now" says; a state "at the moment" is of the moment
    pytest.param(["I'm a consultant with two clients right now: Acme (retail) and Globex", "I'm busy at the moment"],
                 {"profile.md": "- Is a consultant with two clients: Acme (retail) and Globex",
                  f"events/{TODAY:%Y/%m/%d}/busy.md": "- I'm busy at the moment"}, None, id="a-role-right-now"),
    # (mem20) Swedish, Russian and Korean statements about the user; "don't use" and "never use" in Swedish and
    # Russian; where the team's system runs in German and Swedish; another Korean sentence stays a note
    pytest.param(["Jag heter Sven och bor i Umeå", "Använd aldrig tabbar", "Я работаю в Яндексе",
                  "Пожалуйста, не используй var", "저는 Godot로 게임을 만들고 있어요", "저는 버그를 고치고 있어요",
                  "Vårt CI körs på Hetzner", "Unser Staging-Server läuft auf Port 8443"],
                 {"profile.md": "- Name: Sven\n- Lives in Umeå\n- Works in Яндексе\n- Uses Godot",
                  "preferences/default/tabbar.md": "- Never use tabbar", "preferences/default/var.md": "- Don't use var",
                  "entities/systems/ci.md": "# CI\n\n- Runs on Hetzner",
                  "entities/systems/staging-server.md": "# Staging-Server\n\n- Runs on port 8443",
                  f"events/{TODAY:%Y/%m/%d}/저는_버그를_고치고.md": "- 저는 버그를 고치고 있어요"}, None,
                 id="swedish-russian-korean-and-a-teams-system"),
    # (mem20) what made a switch is no part of the new value; Italian "ora" is "now"; a system's value corrected by "it's X, not Y"
    pytest.param(["I use Jenkins for all our builds", "I switched from Jenkins to Buildkite after the outage", "Uso Neovim ora",
                  "the billing db is on Postgres 15", "correction: it's Postgres 16, not Postgres 15"],
                 {"profile.md": "- Uses Buildkite for all our builds\n- Editor: Neovim",
                  "entities/systems/billing_db.md": "# Billing db\n\n- Is on Postgres 16"}, None,
                 id="a-switchs-cause-italian-now-and-a-cards-value-corrected"),
    # (review rev19) a thing left for a while, an occasion or a purpose is no switch: the stored tool stays, the text is a note;
    # left for another thing (a name, a known tool) it still is one
    pytest.param(["I use Vim", "I dropped Vim for two weeks", "I gave up Vim for Lent", "I abandoned Vim for local dev"],
                 {"profile.md": "- Uses Vim", f"events/{TODAY:%Y/%m/%d}/vim.md": "- I dropped Vim for two weeks",
                  f"events/{TODAY:%Y/%m/%d}/up_vim.md": "- I gave up Vim for Lent",
                  f"events/{TODAY:%Y/%m/%d}/vim_2.md": "- I abandoned Vim for local dev"}, None,
                 id="a-thing-left-for-a-while-or-an-occasion-is-no-switch"),
    pytest.param(["I use Python 3.12", "I dropped Python for months", "I use Rust", "I dropped Rust for personal projects",
                  "I use Docker", "I traded Docker for a few days of Podman"],
                 {"profile.md": "- Uses Python 3.12\n- Uses Rust\n- Uses Docker", f"events/{TODAY:%Y/%m/%d}/python.md": "- I dropped Python for months",
                  f"events/{TODAY:%Y/%m/%d}/rust.md": "- I dropped Rust for personal projects",
                  f"events/{TODAY:%Y/%m/%d}/docker.md": "- I traded Docker for a few days of Podman"}, None,
                 id="a-thing-left-for-a-time-or-a-kind-of-work-is-no-switch"),
    pytest.param(["I use Postgres", "We moved off Postgres to save money", "I use Heroku", ["I moved off Heroku to cut costs."]],
                 {"profile.md": "- Uses Postgres\n- Team moved off Postgres to save money\n- Uses Heroku"}, None, id="a-move-off-a-thing-to-do-something-is-no-switch"),
    pytest.param(["I use Vim", ["I gave up Vim for Lent."], "I use npm", "I ditched npm for pnpm", "My shell is bash",
                  "I gave up bash for fish", "I use Heroku", ["I moved off Heroku to Fly.io."]],
                 {"profile.md": "- Uses Vim\n- Uses pnpm\n- Shell: fish\n- Uses Fly.io"}, None,
                 id="a-session-agrees-and-a-thing-left-for-another-thing-still-switches"),
    # (review rev19) working from home, for oneself or at weekends is no employer, in any language: the stored one stays
    # (mem24: said by the verb alone, "Lavoro", "Pracuję", "Trabajo", it is the user's line as "Ik werk ..." is, not a dated note)
    pytest.param(["I work at Globex", "Lavoro da casa", "Pracuję w domu", "Ik werk voor mezelf", "Ik werk bij voorkeur thuis", "Trabajo en casa"],
                 {"profile.md": "- Works at Globex\n- Lavoro da casa\n- Pracuję w domu\n- Ik werk voor mezelf\n- Ik werk bij voorkeur thuis\n- Trabajo en casa"},
                 None, id="working-from-home-in-another-language-is-no-employer"),
    pytest.param(["I work at Globex", "I work at home", "I work for myself", "Pracuję w weekendy", "Lavoro a tempo pieno"],
                 {"profile.md": "- Works at Globex\n- Works at home\n- Works for themselves\n- Pracuję w weekendy\n- Lavoro a tempo pieno"}, None,
                 id="working-at-home-or-for-oneself-is-no-employer"),
    pytest.param(["I work at Globex", "Lavoro presso Olivetti", "Ik werk bij Philips", "Pracuję dla Allegro", "Trabajo para Telefónica"],
                 {"profile.md": "- Works at Telefónica"}, None, id="an-employer-in-another-language-still-replaces-the-stored-one"),
    # (review rev19) an imperative said with a condition, a habit, a choice against another, a kind of case or a
    # language is how to work for good, kept; a bare task of the moment is still refused
    pytest.param(["Format the code with black, not autopep8", "Debug it with pdb rather than print statements",
                  "Try the integration suite first if CI is red", ("refused", "format this file with black")],
                 {"preferences/default/debug_it.md": "- Debug it with pdb rather than print statements", "preferences/default/format_code.md": "- Format the code with black, not autopep8", "preferences/default/try_integration_suite.md": "- Try the integration suite first if CI is red"}, None,
                 id="an-imperative-with-a-condition-or-a-contrast-is-kept"),
    pytest.param(["Bump the patch version for bug fixes", "Clean up the temp files at the end of each session",
                  "Write the commit messages in English", "Rename the branch to main once we migrate",
                  ("refused", "bump the version and push it"), ("refused", "rename it to parse_args")],
                 {f"events/{TODAY:%Y/%m/%d}/rename_branch.md": "- Rename the branch to main once we migrate", "preferences/default/bump_patch_version.md": "- Bump the patch version for bug fixes", "preferences/default/clean_up_temp.md": "- Clean up the temp files at the end of each session", "preferences/default/write_commit_messages.md": "- Write the commit messages in English"}, None,
                 id="an-imperative-for-a-kind-of-case-or-a-language-is-kept"),
    # (review rev19) how things go here is no convention (a note); what is done, used or kept here still is one
    pytest.param(["Tests run slowly here", "Meetings start late here", "Things go wrong here", "Users start complaining around here",
                  "Secrets live in Vault here", "Migrations go in the db folder here", "Builds run on the shared runner here"],
                 {f"events/{TODAY:%Y/%m/%d}/tests_run_slowly.md": "- Tests run slowly here", f"events/{TODAY:%Y/%m/%d}/meetings_start_late.md": "- Meetings start late here",
                  f"events/{TODAY:%Y/%m/%d}/things_go_wrong.md": "- Things go wrong here",
                  f"events/{TODAY:%Y/%m/%d}/users_start_complaining.md": "- Users start complaining around here",
                  "preferences/default/secrets.md": "- Secrets live in Vault here (team convention)",
                  "preferences/default/migrations.md": "- Migrations go in the db folder here (team convention)",
                  "preferences/default/builds.md": "- Builds run on the shared runner here (team convention)"}, None,
                 id="how-things-go-here-is-no-convention"),
    # (review rev19) an offer declined in chat is no thing avoided for good; a thing of the work still is
    pytest.param(["No coffee for me, thanks", "No sugar, thanks", "No emojis for me, thanks"],
                 {f"events/{TODAY:%Y/%m/%d}/coffee.md": "- No coffee for me", f"events/{TODAY:%Y/%m/%d}/sugar.md": "- No sugar",
                  "preferences/default/emojis.md": "- Avoid emojis"}, None, id="an-offer-declined-is-no-thing-avoided"),
    # (review rev18c) ... but a thanks that goes on to say a cause found keeps it
    pytest.param(["thanks, so that's why the build failed: the cache was stale"],
                 {f"events/{TODAY:%Y/%m/%d}/thanks.md": "- Thanks, so that's why the build failed: the cache was stale"}, None,
                 id="a-thanks-with-a-cause-found-is-kept"),
    # (mem21) a switch or a correction whose old value lives on a system card corrects the card and adds no profile line
    pytest.param(["Our main database is Postgres 15", "actually it's Postgres 16, not 15", "Our CI uses Jenkins", "We've switched from Jenkins to Buildkite"],
                 {"entities/systems/main_database.md": "# Main database\n\n- Is Postgres 16", "entities/systems/ci.md": "# CI\n\n- Uses Buildkite"}, None,
                 id="a-switch-found-on-a-card-adds-no-profile-line"),
    # (mem21) "moved off X to Y" is a switch, whoever's line names X; a place of the team's that moved is still a note
    pytest.param(["We deploy on Heroku", "We moved off Heroku to Fly.io", "I use Netlify", "We moved off Netlify to Vercel", "We moved our office to Lisbon"],
                 {"profile.md": "- Team deploys on Fly.io\n- Uses Vercel", f"events/{TODAY:%Y/%m/%d}/office_to_lisbon.md": "- We moved our office to Lisbon"}, None,
                 id="a-move-off-a-named-thing-to-another-is-a-switch"),
    # (mem21) an apology keeps nothing, alone or before a statement; "sorry, X" still says what was meant
    pytest.param([("refused", "I dropped the ball, my bad"), ("refused", "oops, I messed up, that's on me"), "my bad, the staging DB runs on port 5433",
                  "I use Postgres. Sorry, MySQL"],
                 {"entities/systems/staging_db.md": "# Staging DB\n\n- Runs on port 5433", "profile.md": "- Uses MySQL"}, None,
                 id="an-apology-keeps-nothing"),
    # (mem21) a role or a team left ends its line; a tool the team no longer uses ends the team's key naming it
    pytest.param(["I'm the tech lead of the payments team", "I'm no longer the tech lead", "Our pager tool is PagerDuty", "We don't use PagerDuty anymore",
                  "I work at Globex", "I work from home"],
                 {"profile.md": "- Is no longer the tech lead\n- Team no longer uses PagerDuty\n- Works at Globex\n- Works from home"}, None,
                 id="a-role-or-a-tool-no-longer-held-ends-its-line"),
    # (mem21) a thing left in one clause and its successor in the next are one switch; a reason is no successor
    pytest.param(["We use Jenkins", "we moved away from Jenkins - builds run on GitHub Actions now", "Our tracker is Jira",
                  "we got rid of Jira; bugs live in Linear these days", "We use Trello", "we dropped Trello, it was too slow"],
                 {"profile.md": "- Team uses GitHub Actions\n- Team's tracker: Linear\n- Team uses Trello",
                  f"events/{TODAY:%Y/%m/%d}/trello.md": "- We dropped Trello, it was too slow"}, None,
                 id="a-thing-left-and-its-successor-in-the-next-clause-are-a-switch"),
    pytest.param(["My editor is CLion", "I ditched CLion, my editor is VS Code with PlatformIO now"],
                 {"profile.md": "- No longer uses CLion\n- Editor: VS Code with PlatformIO"}, None, id="a-key-said-after-a-thing-left-is-the-keys"),
    # (mem21) a thing at a new version, upgraded to or corrected with "it's X now", replaces it at any other, a key's too
    pytest.param(["My default Node is 18", "I upgraded to Node 20", "it's Node 22 now", "I use Python 3.11. Actually, it's Python 3.12"],
                 {"profile.md": "- Is on Node 22\n- Uses Python 3.12"}, None, id="a-version-said-now-replaces-the-others"),
    # (mem21) a typo in the adverb before a key verb; a guess on the way to a look that names its tool
    pytest.param(["I realy hate trailing whitespace", "I allways use ruff for linting", ("refused", "hmm, maybe the race is in the scheduler, let me look with perf"),
                  ("refused", "Maybe the leak comes from the image cache")],
                 {"preferences/default/ruff.md": "- Always use ruff for linting", "preferences/default/trailing_whitespace.md": "- Hates trailing whitespace"}, None,
                 id="a-typod-adverb-and-a-look-naming-its-tool"),
    # (mem21) a standing fact of the team's own things ("our X uses Y") is the team's, which a switch corrects; what happened is a note
    pytest.param(["Our releases go out on Tuesdays", "Our docs live in Notion", "We moved from Notion to Confluence", "Our deploy failed"],
                 {"profile.md": "- Team's releases go out on Tuesdays\n- Team's docs live in Confluence", f"events/{TODAY:%Y/%m/%d}/deploy.md": "- Our deploy failed"}, None,
                 id="a-fact-of-the-teams-things-is-the-teams"),
    # (mem21) a habit or a liking in a language no table reads is kept in its words as a preference; with a day, a note
    pytest.param(["Wir mergen immer mit Squash", "Me encanta el modo oscuro", "Hier, nous avons toujours déployé"],
                 {"preferences/default/wir_mergen_immer.md": "- Wir mergen immer mit Squash (team convention)",
                  "preferences/default/me_encanta_el.md": "- Me encanta el modo oscuro",
                  f"events/{TODAY:%Y/%m/%d}/hier_nous_avons.md": "- Hier, nous avons toujours déployé"}, None,
                 id="a-habit-or-a-liking-in-another-language-is-a-preference"),
    # (mem22) what no rule reads is a dated note only when it tells of a happening; else a standing note of its kind
    pytest.param(["Log all errors to Sentry", "Put the tests next to the code", ("refused", "Never mind")],
                 {"preferences/default/log_all_errors.md": "- Log all errors to Sentry",
                  "preferences/default/put_tests_next.md": "- Put the tests next to the code"}, None,
                 id="a-standing-imperative-no-rule-reads-is-a-convention"),
    pytest.param(["The Grafana dashboards are generated from jsonnet", "Kafka topics get compacted after seven days"],
                 {"entities/systems/grafana_dashboards.md": "# Grafana dashboards\n\n- The Grafana dashboards are generated from jsonnet",
                  "entities/systems/kafka_topics.md": "# Kafka topics\n\n- Kafka topics get compacted after seven days"}, None,
                 id="a-things-fact-no-rule-reads-is-its-card"),
    pytest.param(["Je suis développeuse mobile chez Doctolib"], {"profile.md": "- Je suis développeuse mobile chez Doctolib"}, None,
                 id="the-users-fact-in-another-language-is-a-profile-line"),
    pytest.param(["Na nossa equipe, todo endpoint novo precisa de testes de integração antes do merge."],
                 {"preferences/default/na_nossa_equipe.md":
                  "- Na nossa equipe, todo endpoint novo precisa de testes de integração antes do merge (team convention)"}, None,
                 id="a-teams-rule-in-another-language-is-a-convention"),
    pytest.param(["The nightly backup failed twice last week", "Nightly builds get promoted to beta when the smoke tests pass"],
                 {f"events/{TODAY:%Y/%m/%d}/nightly_backup.md": "- The nightly backup failed twice last week",
                  "entities/systems/nightly_builds.md": "# Nightly builds\n\n- Nightly builds get promoted to beta when the smoke tests pass"}, None,
                 id="a-happening-is-dated-a-standing-fact-is-not"),
    pytest.param(["My shell is bash", "swapped bash for nushell"], {"profile.md": "- Shell: nushell"}, None,
                 id="a-switch-no-rule-reads-corrects-the-stored-value"),
    pytest.param([("refused", "hmm not sure the cache is the culprit..."), ("refused", "ok so I guess maybe the websocket reconnect loop is the issue"),
                  ("refused", "show me the diff for that and commit it"), ("refused", "haha nice, good call"),
                  ("refused", "run the e2e suite and paste me what fails")], {}, None,
                 id="thinking-aloud-a-command-for-now-and-chatter-keep-nothing"),
    pytest.param(["Could you always squash fixup commits before review? I find them noisy", "The docs site is built with Docusaurus. Deploys go through Netlify"],
                 {"preferences/default/squash_fixup_commits.md": "- Always squash fixup commits before review",
                  "entities/systems/docs_site.md": "# Docs site\n\n- Is built with Docusaurus\n- The docs site is built with Docusaurus. Deploys go through Netlify"}, None,
                 id="an-aside-on-what-was-read-keeps-no-note-a-second-fact-is-the-cards"),
    # (mem23) chatter, thinking aloud and a task for now each have one reading (moment.py): a sigh about the thing at
    # hand, a guess about the work said with "I think", a task of a verb no list holds, chained with another
    pytest.param([("refused", "Argh, that migration is slow again"), ("refused", "I think the flake is in the retry logic"),
                  ("refused", "I think it's the DNS cache"), ("refused", "reindex the search shards and then rebuild them"),
                  ("refused", "ok give me a sec"), "I think in Go"],
                 {"profile.md": "- Thinks in Go"}, None, id="one-reading-of-chatter-thinking-aloud-and-a-task-for-now"),
    pytest.param(["Thanks, the wiki moved to wiki.internal:8443", "Reindex the search shards on Sunday"],
                 {f"events/{TODAY:%Y/%m/%d}/thanks.md": "- Thanks, the wiki moved to wiki.internal:8443",
                  f"events/{TODAY:%Y/%m/%d}/reindex_search_shards.md": "- Reindex the search shards on Sunday"}, None,
                 id="a-thanks-with-a-fact-and-a-task-for-a-day-are-kept"),
    # (mem23) a card for a fact no rule reads takes the entity schema's category by broad cues
    pytest.param(["Ingrid is based in Oslo", "Tomasz is our new QA lead", "Borealis is a Rails project", "Globex is our biggest customer",
                  "Borealis runs on Ruby 3.3"],
                 {"entities/people/ingrid.md": "# Ingrid\n\n- Ingrid is based in Oslo",
                  "entities/people/tomasz.md": "# Tomasz\n\n- Tomasz is our new QA lead",
                  "entities/projects/borealis.md": "# Borealis\n\n- Borealis is a Rails project",
                  "entities/organizations/globex.md": "# Globex\n\n- Globex is our biggest customer",
                  "entities/systems/borealis.md": "# Borealis\n\n- Runs on Ruby 3.3"}, None,
                 id="a-card-no-rule-reads-takes-the-schemas-category"),
    # (review rev20) working at home, at night or for oneself is no employer in any language, a script without capitals
    # too: only a name (a capital, or in Japanese and Korean Latin letters or a company's word) is one
    pytest.param(["I work at Acme", "家で働いています", "집에서 일해요", "Jag jobbar på natten", "Jag jobbar för mig själv", "Я работаю на себя",
                  "Lavoro al computer tutto il giorno"],
                 {f"events/{TODAY:%Y/%m/%d}/家で働いています.md": "- 家で働いています", f"events/{TODAY:%Y/%m/%d}/집에서_일해요.md": "- 집에서 일해요",
                  "profile.md": "- Works at Acme\n- Jag jobbar på natten\n- Jag jobbar för mig själv\n- Я работаю на себя\n- Lavoro al computer tutto il giorno"},
                 None,  # (mem24: "Lavoro ..." says the user by its verb, a line of theirs as "Jag jobbar ..." is)
                 id="working-at-home-at-night-or-for-oneself-is-no-employer-in-any-script"),
    # (review rev20) the word that says where one is opens "I work in" (a line of its own): a city or a language is no
    # employer; a word said of an employer still replaces the stored one
    pytest.param(["I work at Acme", "Lavoro a Milano come sviluppatore", "Pracuję w Krakowie", "Lavoro in Python da dieci anni",
                  "Trabajo en Madrid", "Je travaille à Lyon"],
                 {"profile.md": "- Works at Acme\n- Works in Milano as sviluppatore\n- Works in Krakowie\n- Works in Python da dieci anni\n"
                                "- Works in Madrid\n- Works in Lyon"}, None, id="working-in-a-city-or-a-language-is-no-employer"),
    pytest.param(["I work at Acme", "Lavoro presso Olivetti", "Pracuję dla Allegro", "Jag jobbar på Spotify", "Trabajo para Telefónica",
                  "Googleで働いています"],
                 {"profile.md": "- Works at Google"}, None, id="an-employers-word-in-any-language-replaces-the-stored-employer"),
    # (review rev20) one Korean or Japanese word in a text leaves its lines as they are: the rules under it are read
    pytest.param(["Team notes (팀 노트).\n- Never push to main\n- Always run the linter before committing",
                  "このリポジトリのルール!\n- Never force-push"],
                 {"preferences/default/team_notes_팀.md": "- Team notes (팀 노트).; Never push to main; Always run the linter before committing (team convention)",
                  f"events/{TODAY:%Y/%m/%d}/このリポジトリのルール.md": "- このリポジトリのルール!; Never force-push",
                  "preferences/default/force-push.md": "- Never force-push", "preferences/default/push_to_main.md": "- Never push to main",
                  "preferences/default/run_linter.md": "- Always run the linter before committing"}, None, id="a-cjk-word-keeps-the-texts-lines"),
    # (review rev20) "our K is V" is the team's value only where V is one of the work's: a family's ages and names, and a
    # day, stay notes; a measure's figure, a figure with its unit and a named convention are still the team's
    pytest.param(["Our son is 3", "Our dog is Max", "Our wedding is in September", "Our kids are 5 and 7", "Our deadline is Friday",
                  "Our max line length is 100", "Our naming convention is Title Case", "Our timeout is 30 seconds"],
                 {f"events/{TODAY:%Y/%m/%d}/deadline.md": "- Our deadline is Friday", f"events/{TODAY:%Y/%m/%d}/dog.md": "- Our dog is Max",
                  f"events/{TODAY:%Y/%m/%d}/kids.md": "- Our kids are 5 and 7", f"events/{TODAY:%Y/%m/%d}/son.md": "- Our son is 3",
                  f"events/{TODAY:%Y/%m/%d}/wedding.md": "- Our wedding is in September",
                  "profile.md": "- Team's max line length: 100\n- Team's naming convention: Title Case\n- Team's timeout: 30 seconds"}, None,
                 id="a-familys-values-and-a-day-are-no-teams-value"),
    # (review rev20) "No," alone opens a correction of the team's value, as "no wait," does
    pytest.param(["Our target frame rate is 30 fps", "No, the target frame rate is 60 fps", "Our max PR size is 400 lines",
                  "No, our max PR size is 600 lines"],
                 {"profile.md": "- Team's target frame rate: 60 fps\n- Team's max PR size: 600 lines"}, None, id="no-alone-corrects-a-teams-value"),
    # (review rev20) a plural is a kind of the work only when it names a thing of the work, with its sort
    pytest.param(["Cats need Vitamin D", "Headphones need USB-C", "Most tests use Mocks", "Integration tests need Docker 24"],
                 {"entities/systems/integration_tests.md": "# Integration tests\n\n- Need Docker 24",
                  f"events/{TODAY:%Y/%m/%d}/cats.md": "- Cats need Vitamin D", f"events/{TODAY:%Y/%m/%d}/headphones.md": "- Headphones need USB-C",
                  f"events/{TODAY:%Y/%m/%d}/most_tests_use.md": "- Most tests use Mocks"}, None, id="a-plural-of-no-work-is-no-system"),
    # (review rev20) an amount or a place in a course is no role: a state said "right now" stays a note; a role still holds
    pytest.param(["I'm a couple of commits behind right now", "I'm an hour into debugging right now", "I'm a few minutes late right now",
                  "I'm a freelancer at the moment"],
                 {f"events/{TODAY:%Y/%m/%d}/couple_of_commits.md": "- I'm a couple of commits behind right now",
                  f"events/{TODAY:%Y/%m/%d}/few_minutes_late.md": "- I'm a few minutes late right now",
                  f"events/{TODAY:%Y/%m/%d}/hour.md": "- I'm an hour into debugging right now", "profile.md": "- Is a freelancer"}, None,
                 id="a-state-right-now-is-no-role"),
    # (review rev20) a report, a courtesy or one's plans said "No ..., thanks" is nothing avoided; a thing of the work still is
    pytest.param(["No errors in the logs, thanks", "No tests failed, thanks", "No hard feelings, thanks", "No harm done, thanks",
                  "No plans for the weekend, thanks", "No nested ternaries, thanks"],
                 {f"events/{TODAY:%Y/%m/%d}/errors.md": "- No errors in the logs", f"events/{TODAY:%Y/%m/%d}/hard_feelings.md": "- No hard feelings",
                  f"events/{TODAY:%Y/%m/%d}/harm_done.md": "- No harm done", f"events/{TODAY:%Y/%m/%d}/plans.md": "- No plans for the weekend",
                  f"events/{TODAY:%Y/%m/%d}/tests.md": "- No tests failed", "preferences/default/nested_ternaries.md": "- Avoid nested ternaries"}, None,
                 id="a-report-or-a-courtesy-is-nothing-avoided"),
    # (review rev20) something sent is nothing left, and what holds after a switch's first half is read on its own
    pytest.param(["I use Slack", "I dropped Alice a message, I'll wait for her answer", "I ditched Slack, now I'm on Discord"],
                 {f"events/{TODAY:%Y/%m/%d}/alice_message.md": "- I dropped Alice a message, I'll wait for her answer",
                  "profile.md": "- No longer uses Slack\n- Will wait for her answer\n- Is on Discord"}, None,
                 id="a-message-dropped-is-nothing-left-and-now-is-read"),
    # (review rev20) an imperative on a kind of thing that says where or how is a convention, kept; a task is still refused
    pytest.param(["Log all errors to Sentry", "Put the tests next to the code", "Convert all dates to ISO 8601", "Build the images with buildx",
                  "Run the whole suite in CI", ("refused", "Upgrade all packages"), ("refused", "bump the version in pyproject.toml and tag the release"),
                  ("refused", "please tidy up the imports in that module")],
                 {"preferences/default/build_images.md": "- Build the images with buildx", "preferences/default/convert_all_dates.md": "- Convert all dates to ISO 8601",
                  "preferences/default/log_all_errors.md": "- Log all errors to Sentry", "preferences/default/put_tests_next.md": "- Put the tests next to the code",
                  "preferences/default/run_whole_suite.md": "- Run the whole suite in CI"}, None, id="a-convention-said-as-an-imperative-is-kept"),
    # (review rev20) a saying ranks no things; a ranking no rule reads is a note in the words typed
    pytest.param(["Done is better than perfect", "Something is better than nothing", "Late is better than never", "Postgres beats MySQL for this",
                  "pytest is better than unittest"],
                 {f"events/{TODAY:%Y/%m/%d}/done.md": "- Done is better than perfect", f"events/{TODAY:%Y/%m/%d}/late.md": "- Late is better than never",
                  f"events/{TODAY:%Y/%m/%d}/postgres_beats_mysql.md": "- Postgres beats MySQL for this",
                  f"events/{TODAY:%Y/%m/%d}/something.md": "- Something is better than nothing", "preferences/default/pytest.md": "- Prefers pytest over unittest"},
                 None, id="a-saying-is-no-choice-and-a-note-keeps-the-words-typed"),
    # (review rev20) "no longer" of what points back ("there") ends the line its verb names
    pytest.param(["I work at Acme", "I no longer work there"], {"profile.md": "- No longer works there"}, None, id="no-longer-there-ends-the-employer"),
    # (review rev20) "I'm no longer using X", "I'm not using X anymore" end the line using X, as "I no longer use X" does
    pytest.param(["I use Emacs", "I use bash", "I'm no longer using Emacs", "I use Vim", "I'm not using Vim anymore"],
                 {"profile.md": "- No longer uses Emacs\n- Uses bash\n- No longer uses Vim"}, None, id="no-longer-using-ends-the-tool"),
    # (review rev20) an upgrade naming the thing before its version replaces the version stored in any shape, whoever said
    # it; a system's goes on its card
    pytest.param(["My Python version is 3.10", "I upgraded Python to 3.12", "We use Node 20", "I updated Node from 20 to 22",
                  "Our API version is 2", "We upgraded the API to 3"],
                 {"entities/systems/api.md": "# API\n\n- Version is 3", "profile.md": "- Is on Python 3.12\n- Is on Node 22"}, None,
                 id="an-upgrade-replaces-the-version-in-any-shape"),
    # (review rev21 #1) a thing's second fact stands beside its first; only a new value of the same attribute replaces one
    pytest.param(["Orion is our search backend", "Orion is written in Rust", "The release branch is develop", "The release branch is trunk"],
                 {"entities/systems/orion.md": "# Orion\n\n- Orion is our search backend\n- Orion is written in Rust",
                  "entities/systems/release_branch.md": "# Release branch\n\n- The release branch is trunk"}, None,
                 id="a-things-second-fact-is-kept-beside-its-first"),
    # (review rev21 #8) a team's recurring day, place or person is its value; a family's and a one-off day stay notes
    pytest.param(["Our standup day is Monday", "Our planning is every second Tuesday", "Our HQ is in Lisbon", "Our CFO is Maria Lopez",
                  "Our cat is Luna", "Our launch is Friday"],
                 {"profile.md": "- Team's standup day: Monday\n- Team's planning: every second Tuesday\n- Team's HQ: in Lisbon\n- Team's CFO: Maria Lopez",
                  f"events/{TODAY:%Y/%m/%d}/cat.md": "- Our cat is Luna", f"events/{TODAY:%Y/%m/%d}/launch.md": "- Our launch is Friday"}, None,
                 id="a-teams-schedule-place-or-person-is-its-value"),
    # (review rev21 #9) a bare "No," corrects the value it gives again, a thing's as a team's
    pytest.param(["The staging branch is release", "No, the staging branch is preprod", "Our sprint length is two weeks",
                  "No, our sprint length is three weeks"],
                 {"entities/systems/staging_branch.md": "# Staging branch\n\n- The staging branch is preprod", "profile.md": "- Team's sprint length: three weeks"},
                 None, id="a-bare-no-corrects-the-value"),
    # (review rev21 #10) in a session, a state ended or a move said with its time is no profile line; asked, the ending is kept
    pytest.param([["I'm not on parental leave anymore"], ["We moved from Lyon to Nantes two years ago"], "I'm no longer on the beta list"],
                 {"profile.md": "- Is no longer on the beta list"}, None, id="a-session-keeps-no-ended-state-nor-dated-move"),
    # (review rev21 #7) a switch leaves the lines that say something else of the old thing
    pytest.param(["We use Datadog", "Our Datadog API key lives in 1Password", "I'm studying Datadog", "We no longer use Datadog; metrics go to Grafana now"],
                 {"entities/systems/datadog_api.md": "# Datadog API\n\n- Key lives in 1Password", "profile.md": "- Team uses Grafana\n- Is studying Datadog"},
                 None, id="a-switch-leaves-what-else-is-said-of-the-old-thing"),
    # (review rev21 #3, #4) a guess, a suggestion, a complaint or a report, in English or not, is no convention
    pytest.param(["The cache must be stale somewhere", "It never compiles on the first try", "All builds are red", "You should try the new linter",
                  "Nie rozumiem", "Todo listo", "Jeder Build ist grün"],
                 {f"events/{TODAY:%Y/%m/%d}/{name}.md": f"- {said}" for name, said in (
                     ("cache", "The cache must be stale somewhere"), ("it_never_compiles", "It never compiles on the first try"),
                     ("all_builds", "All builds are red"), ("try_new_linter", "You should try the new linter"), ("nie_rozumiem", "Nie rozumiem"),
                     ("todo_listo", "Todo listo"), ("jeder_build_ist", "Jeder Build ist grün"))}, None,
                 id="a-guess-a-complaint-or-a-report-is-no-convention"),
    # (review rev21 #5) someone else's habit or liking is not the user's; the team's in another language still is
    pytest.param(["Mi colega siempre usa Emacs", "Sie bevorzugt Tabs", "Il capo vuole sempre la documentazione", "Nosotros siempre usamos tabs"],
                 {f"events/{TODAY:%Y/%m/%d}/mi_colega_siempre.md": "- Mi colega siempre usa Emacs", f"events/{TODAY:%Y/%m/%d}/sie_bevorzugt_tabs.md": "- Sie bevorzugt Tabs",
                  f"events/{TODAY:%Y/%m/%d}/il_capo_vuole.md": "- Il capo vuole sempre la documentazione",
                  "preferences/default/nosotros_siempre_usamos.md": "- Nosotros siempre usamos tabs (team convention)"}, None,
                 id="someone-elses-habit-is-not-the-users"),
    # (review rev21 #11) a hedge, a stress or a hesitation that only leads into a statement keeps the statement
    pytest.param(["No idea if it's relevant, but I'm left-handed", "Perhaps more importantly, I prefer squash merges", "Um, I prefer dark mode",
                  ("refused", "Hmm, maybe the config is cached")],
                 {"preferences/default/dark_mode.md": "- Prefers dark mode", "preferences/default/squash_merges.md": "- Prefers squash merges",
                  "profile.md": "- Is left-handed"}, None, id="a-hedge-that-leads-into-a-statement-keeps-it"),
    # (review rev21 #12) something asked of the agent for the user, on a condition or a recurrence, is a standing instruction
    pytest.param(["Ask me before you delete any files", "Warn me if a migration is irreversible", "Show me the plan first",
                  "Alert me on Slack when the nightly job fails", ("refused", "show me the diff")],
                 {"preferences/default/alert_me.md": "- Alert me on Slack when the nightly job fails", "preferences/default/ask_me.md": "- Ask me before you delete any files",
                  "preferences/default/show_me_plan.md": "- Show me the plan first", "preferences/default/warn_me.md": "- Warn me if a migration is irreversible"},
                 None, id="a-standing-instruction-with-me-is-kept"),
    # (review rev21 #2) a question or a request without its "?", a compliment, a "no" and thinking aloud keep nothing; no card is named after them
    pytest.param([("refused", "Where do the fixtures live"), ("refused", "Can you rerun the pipeline"), ("refused", "Great job on the refactor"),
                  ("refused", "Nah, not quite"), ("refused", "Question about the release notes"), ("refused", "Wondering whether we need a CDN"),
                  "WIP on the billing export"],
                 {f"events/{TODAY:%Y/%m/%d}/wip.md": "- WIP on the billing export"}, None, id="a-question-or-a-request-without-its-mark-is-no-card"),
    # (review rev21 #6, after mem23) one on a team, or named by a role, is a person; everyone is no card
    pytest.param(["Dana is on the data platform team", "Our CFO prefers quarterly reports", "Everybody on the team runs Linux"],
                 {"entities/people/cfo.md": "# CFO\n\n- Our CFO prefers quarterly reports", "entities/people/dana.md": "# Dana\n\n- Dana is on the data platform team",
                  f"events/{TODAY:%Y/%m/%d}/everybody.md": "- Everybody on the team runs Linux"}, None, id="one-on-a-team-or-named-by-a-role-is-a-person"),
    # (mem24) a switch said with its time, a clause after its new value, in the passive, without its subject, or after a
    # thing left whose name has a dot, replaces the old value in the stored line; it is no dated note
    pytest.param(["We host the docs on Netlify", "we dropped netlify in the spring, the docs are on pages.dev now"],
                 {"profile.md": "- Team hosts the docs on pages.dev"}, None, id="a-thing-left-with-its-time-then-its-successor-switches"),
    pytest.param(["Our search runs on Solr", "Solr got replaced by Typesense over the winter, so queries are faster now"],
                 {"profile.md": "- Team's search runs on Typesense"}, None, id="a-switch-in-the-passive-switches"),
    pytest.param(["I use Sublime Text for everything", "switched from sublime text to helix after I joined the infra team"],
                 {"profile.md": "- Uses helix for everything"}, None, id="a-switch-with-when-it-happened-after-its-value-switches"),
    pytest.param(["We use Travis for CI", "ditched travis, the builds run on Buildkite now"],
                 {"profile.md": "- Team uses Buildkite for CI"}, None, id="a-thing-left-without-its-subject-then-its-successor-switches"),
    pytest.param(["I use Vim for everything", "no longer on Vim either, I moved to Kakoune"],
                 {"profile.md": "- Uses Kakoune for everything"}, None, id="no-longer-on-x-either-then-a-move-switches"),
    # (mem24) since when a value holds ("Since March ...", "... since the spring", "since we migrated") says a change as "as
    # of" does, never a reason ("since it is fast"); what was moved may be named before "from"; a thing said gone, then its successor
    pytest.param(["My shell is bash", "Since October my shell is fish", "I use Vim", "I have been on Helix since the spring", "I use Zed since it is fast"],
                 {"profile.md": "- Shell: fish\n- Editor: Helix\n- Uses Zed since it is fast"}, None, id="since-when-a-value-holds-is-a-change"),
    pytest.param(["We track bugs in Jira", "we moved all the tickets from Jira to Linear last quarter, much happier"],
                 {"profile.md": "- Team tracks bugs in Linear"}, None, id="what-was-moved-named-before-from-switches"),
    pytest.param(["We build with Travis", "Travis is history, it is all Buildkite now"],
                 {"profile.md": "- Team builds with Buildkite"}, None, id="a-thing-said-gone-then-its-successor-switches"),
    # (mem24) a slip of one's own earlier words ("I misspoke earlier", "I got that wrong before") keeps nothing beside the correction
    pytest.param(["My shell is bash", "actually my shell is fish. I misspoke earlier", "My editor is Vim", "I got that wrong before, my editor is Helix",
                  ("refused", "I mistyped that")],
                 {"profile.md": "- Shell: fish\n- Editor: Helix"}, None, id="a-slip-of-ones-own-words-keeps-nothing"),
    # (mem24) a frame before "I" ("By day", "Outside of work", "For embedded work") is read after what the clause says
    pytest.param(["By day I'm a radiologist, but at night I write Rust", "Outside of work I'm a hobby astronomer",
                  "For embedded work I use Zephyr rather than FreeRTOS"],
                 {"profile.md": "- Is a radiologist by day, but at night I write Rust\n- Is a hobby astronomer outside of work\n"
                                "- Uses Zephyr rather than FreeRTOS for embedded work"}, None, id="a-frame-before-the-subject-is-read-after-it"),
    # (mem24) a condition said to the agent ended by a colon or by nothing, and a wish ("I'd like X") with or without
    # one, is a preference; a goal ("I'd like to learn ...") stays the user's
    pytest.param(["When you write Go for me: no naked returns, wrap errors with %w", "If you write SQL for me I'd like CTEs instead of nested subqueries",
                  "I'd like diagrams drawn in Mermaid, not ASCII art", "I'd like to learn Haskell"],
                 {"preferences/default/naked_returns_wrap.md": "- When you write Go for me, no naked returns, wrap errors with %w",
                  "preferences/default/ctes.md": "- If you write SQL for me, I'd like CTEs instead of nested subqueries",
                  "preferences/default/diagrams_drawn.md": "- Would like diagrams drawn in Mermaid, not ASCII art",
                  "profile.md": "- Would like to learn Haskell"}, None, id="a-condition-ended-by-a-colon-or-nothing-and-a-wish-are-preferences"),
    # (mem24) the manner of every answer makes an imperative standing ("like you're talking to ...", "briefly" about no
    # thing at hand), and after "so" it is a preference of its own beside the fact that calls for it
    pytest.param(["I'm dyslexic so keep sentences short and avoid walls of text", "answer like you're talking to a senior engineer",
                  ("refused", "explain this briefly")],
                 {"profile.md": "- Is dyslexic", "preferences/default/keep_sentences_short.md": "- Keep sentences short and avoid walls of text",
                  "preferences/default/answer_like_you_re.md": "- Answer like you're talking to a senior engineer"}, None,
                 id="a-manner-of-every-answer-and-an-imperative-after-so-are-preferences"),
    # (mem24) another language's first person said by its verb alone (cs, pl, tr), or in the progressive of working or
    # living (ko), is the user's line; a progressive of the moment is still a dated note
    pytest.param(["Jsem datový analytik a píšu hlavně v R", "Jestem testerką, piszę testy w Playwright", "Backend geliştiriciyim, Go kullanıyorum",
                  "저는 베를린에서 디자이너로 일하고 있어요", "저는 지금 로그를 보고 있어요"],
                 {"profile.md": "- Jsem datový analytik a píšu hlavně v R\n- Jestem testerką, piszę testy w Playwright\n- Backend geliştiriciyim, Go kullanıyorum\n"
                                "- 저는 베를린에서 디자이너로 일하고 있어요",
                  f"events/{TODAY:%Y/%m/%d}/저는_지금_로그를.md": "- 저는 지금 로그를 보고 있어요"}, None, id="another-languages-first-person-by-its-verb-is-the-users"),
    # (memfix22 #1) a switch said with its time, in a session, that ends a stored preference or instruction keeps the
    # team's new value, undated; with nothing stored it keeps nothing (a session's news)
    pytest.param(["I prefer yarn for installs", ["Heads up, we moved from yarn to bun two weeks ago"], "Always use poetry",
                  ["FYI we switched from poetry to uv last week"], [["We migrated from Travis to Drone last year"]][0]],
                 {"preferences/default/yarn.md": "- No longer prefers yarn for installs", "profile.md": "- Team moved from yarn to bun\n- Team switched from poetry to uv"},
                 None, id="memfix22-a-dated-switch-that-ends-a-preference-keeps-the-new-value"),
    # (memfix22 #2, #7) another language's words name no card; its "I" is read only in a text of that language
    pytest.param(["Mon collègue utilise toujours Emacs", "Meine Kollegin benutzt immer Vim", "Ben uses Emacs", "Min manages the infra team",
                  "Ben kullanıyorum Neovim"],
                 {f"events/{TODAY:%Y/%m/%d}/mon_collègue_utilise.md": "- Mon collègue utilise toujours Emacs",
                  f"events/{TODAY:%Y/%m/%d}/meine_kollegin_benutzt.md": "- Meine Kollegin benutzt immer Vim",
                  "entities/people/ben.md": "# Ben\n\n- Ben uses Emacs", "entities/people/min.md": "# Min\n\n- Manages the infra team",
                  "profile.md": "- Ben kullanıyorum Neovim"}, None, id="memfix22-another-languages-words-name-no-card"),
    # (memfix22 #3) "always"/"never" and one verb of the third person, in any language, is what a thing does: a note
    pytest.param(["Nunca compila", "Kompiliert nie", "Never compiles", "Plante toujours", "Never squash"],
                 {f"events/{TODAY:%Y/%m/%d}/{name}.md": f"- {said}" for name, said in (
                     ("nunca_compila", "Nunca compila"), ("kompiliert_nie", "Kompiliert nie"), ("compiles", "Never compiles"),
                     ("plante_toujours", "Plante toujours"))} | {"preferences/default/squash.md": "- Never squash"}, None,
                 id="memfix22-what-a-thing-always-does-is-no-preference"),
    # (memfix22 #4) "always"/"usually" after an opening the tables read, and a closing "actually", are no part of the value
    pytest.param(["Usamos siempre tabs", "Ich benutze meistens Neovim", "I prefer tabs", "I prefer spaces actually", "Nous utilisons toujours Black"],
                 {"preferences/default/spaces.md": "- Prefers spaces", "preferences/default/tabs.md": "- No longer prefers tabs",
                  "profile.md": "- Team uses tabs\n- Uses Neovim\n- Team uses Black"}, None, id="memfix22-an-adverb-at-a-values-edge-is-dropped"),
    # (memfix22 #5) a switch replaces a value only as a whole name: C is not in C++ nor C#, Node not in Node.js
    pytest.param(["I use C++ at work", "I write C# for Unity", "I use C for firmware", "I switched from C to Zig", "We use Node.js for scripts",
                  "We use Node for the API", "We switched from Node to Deno"],
                 {"entities/systems/api.md": "# API\n\n- Uses Deno",
                  "profile.md": "- Uses C++ at work\n- Writes C# for Unity\n- Uses Zig for firmware\n- Team uses Node.js for scripts"},
                 None, id="memfix22-a-switch-replaces-only-a-whole-name"),
    # (memfix22 #6) a name alone that uses a thing is a person, not a system, unless the text says it is a thing
    pytest.param(["Bob uses Vim", "Priya uses Emacs daily", "Atlas uses Postgres for its queue"],
                 {"entities/people/bob.md": "# Bob\n\n- Bob uses Vim", "entities/people/priya.md": "# Priya\n\n- Priya uses Emacs daily",
                  "entities/systems/atlas.md": "# Atlas\n\n- Atlas uses Postgres for its queue"}, None, id="memfix22-a-name-using-a-thing-is-a-person"),
    # (memfix22 #8) a question without its mark keeps nothing in a session, as in ov remember; one of how to say it leads in
    pytest.param([["Where is the staging config loaded from", "How do we deploy the docs site", "I prefer tabs", "What can I say, I love hiking"]],
                 {"preferences/default/hiking.md": "- Loves hiking", "preferences/default/tabs.md": "- Prefers tabs"}, None,
                 id="memfix22-a-question-without-its-mark-keeps-nothing-in-a-session"),
]


def test_the_table_is_large_enough():
    assert len(CASES) >= 40


@pytest.mark.parametrize("steps, expected, updates", CASES)
def test_memories(store_day, ov, ov_home, steps, expected, updates):
    diff = None
    for n, step in enumerate(steps):
        diff = _run(ov, ov_home, step, f"s{n}")
    assert _memories(ov_home) == expected
    if updates is not None:
        got = {op["uri"].split("/memories/", 1)[1]: (op["before"], op["after"]) for op in diff["updates"]}
        assert got == updates


def test_a_sigh_is_a_note_when_asked_for_one(store_day, ov, ov_home):
    made = ov("remember", "--type", "events", "Ugh, this build is so slow today", "--json").json["result"]["uris"]
    assert len(made) == 1 and "/events/" in made[0], made


def test_a_note_made_on_purpose_is_named_without_its_day(store_day, ov, ov_home):
    made = ov("remember", "--type", "events", "flu shot tomorrow morning", "--json").json["result"]["uris"][0]
    assert made.endswith(f"/events/{TODAY:%Y/%m/%d}/flu_shot.md"), made


@pytest.mark.parametrize("text", [
    "my ssh passphrase is swordfish", "My PIN is 4821", "my github token: ghp_x1", "Remember that our wifi password is bluebird",
    "my password is set to bluebird", "my pin number is 4821", "the alarm code is 4821", "wifi password is bluebird", "my passcode's 1234",
    "my wifi pw is bluebird42", "my pass is Summer2024", "my credit card number is 4111 1111 1111 1111", "the routing number is 021000021",
    "my seed phrase is apple banana cherry", "the staging admin login is admin / swordfish", "the db login is root:swordfish",
    "my github pat is ghp_abcdefghijklmnopqrstuvwxyz0123456789", "my npm auth is npm_abcdefghijklmnopqrstuvwxyz0123456789",
    "The Jenkins admin account is admin/hunter22", "the office wifi key is Zx9pQ2rT7v", "the staging login uses password Zx9pQ2rT7v",
    "the bastion accepts ssh root with password Zx9pQ2rT7v", "the wifi password = swordfish", "my password set to swordfish",
    "the root password was changed to swordfish", "log in as root with password 'swordfish'", "the admin login uses admin / swordfish",
    "the db user is root:Zx9pQ2rT7v", "the deploy token ab12cd34ef56gh78",
    "The PIN for the door is 4921", "my PIN is: 4921", "the PIN of my card is 4921", "PIN = 49213", "the garage pin is now 123456",
    # A format's name as the password of a pair is a value all the same.
    "the credentials are admin/pkcs12", "my password is kerberos5",
])
def test_remember_refuses_what_a_secret_is_and_stores_nothing(ov, ov_home, text):
    refused = ov("remember", text, "--json")
    message = refused.error["message"]
    assert refused.exit_code == 2 and "looks like a secret" in message and "ov does not keep secrets in memories" in message
    assert "swordfish" not in refused.stdout + refused.stderr and _memories(ov_home) == {}


@pytest.mark.parametrize("text", [
    "my SSH key is ed25519, not RSA", "the secret is to batch writes", "my secret ingredient is paprika",
    "Our winning combination is Go and Postgres", "my favourite key is C minor", "the zip code is 94110",
    "my ski pass is Epic", "my phone number is 555-0100", "our auth is Keycloak", "my favourite phrase is carpe diem",
    "the login is via SSO / Okta", "the login host is db.internal:5432", "my cousin Pat is a doctor", "the seed phrase is in the safe",
    "we have a password policy", "the password reset flow is broken", "the staging login uses password auth", "my account is free/paid",
    "the user is admin/owner", "Remember to pin numpy==1.26", "the token gpt-4o counts", "passwords are hashed with argon2id",
    "the wifi password uses WPA2", "the wifi network is HomeNet5G", "the password field must be 12 characters",
    "PIN 3 on the GPIO header is ground", "pin 4921 of the chip is reserved", "the pin for the LED is 13",
    "The secret rotation job lives in app/Http/Middleware/VerifyApiSecretToken.php",
    # What credentials are kept as, checked by or kept in (found by an audit: "credentials are x509/pkcs12").
    "the client credentials are x509/pkcs12", "the login is ldap / kerberos5", "our creds are PEM files", "the sign-in is oauth2:saml2",
])
def test_remember_keeps_what_only_sounds_like_a_secret(ov, text):
    assert ov("remember", text).exit_code == 0


_PY_TRACEBACK = (
    "Traceback (most recent call last):\n"
    '  File "app/main.py", line 12, in <module>\n'
    "    run()\n"
    '  File "app/cart.py", line 40, in run\n'
    '    total = items["uri"]\n'
    "KeyError: 'uri'"
)


@pytest.mark.parametrize("text", [
    _PY_TRACEBACK,
    "TypeError: cart.total is not a function\n    at render (src/cart.js:10:5)\n    at main (src/index.js:3:1)",
    "tests/test_cart.py:12: in test_total\n    assert total(cart) == 3\nshop/cart.py:40: KeyError\nE   KeyError: 'uri'",
    'Exception in thread "main" java.lang.NullPointerException: user\n\tat shop.Cart.total(Cart.java:42)\n\tat shop.Main.main(Main.java:7)',
    "From: Dana <dana@acme.com>\nTo: me@acme.com\nSubject: style\n\nI always use single quotes.",
])
def test_remember_refuses_a_bare_paste_and_stores_nothing(ov, ov_home, text):
    """A pasted traceback was kept as a dated note, as if the user had said it."""
    refused = ov("remember", text, "--json")
    assert refused.exit_code == 2 and "the text is all pasted" in refused.error["message"]
    assert "own words" in refused.error["hint"] and _memories(ov_home) == {}


def test_remember_keeps_the_users_words_around_a_traceback_and_a_commit_keeps_nothing_from_one(ov, ov_home):
    kept = ov("remember", "The checkout fails on an empty cart:\n\n" + _PY_TRACEBACK, "--json")
    assert kept.exit_code == 0, kept.stderr
    assert ov("session", "add", "s", "--text", _PY_TRACEBACK).exit_code == 0
    assert ov("session", "add", "s", "--text", "Remember this:\n\n" + _PY_TRACEBACK).exit_code == 0
    committed = ov("commit", "s", "--json").json["result"]
    assert committed["memory_uris"] == [] and committed["memories"] == {"adds": 0, "updates": 0, "deletes": 0}


def test_remember_reports_an_update_with_before_and_after(ov):
    assert ov("remember", "My editor is Neovim").exit_code == 0
    result = ov("remember", "My editor is Emacs", "--json").json["result"]
    assert result["changed"] is True
    assert result["operations"] == {
        "adds": [],
        "updates": [
            {
                "uri": "viking://user/default/memories/profile.md",
                "memory_type": "profile",
                "before": "- Editor: Neovim",
                "after": "- Editor: Emacs",
            }
        ],
        "deletes": [],
    }


def test_commit_writes_an_update_with_before_and_after(ov, ov_home):
    _run(ov, ov_home, ["My editor is Neovim. I prefer tabs."], "a")
    diff = _run(ov, ov_home, ["My editor is Emacs now.", "Actually, I prefer spaces."], "b")
    assert diff["adds"] == [
        {"uri": "viking://user/default/memories/preferences/default/spaces.md", "memory_type": "preferences", "after": "- Prefers spaces"}
    ]
    assert diff["updates"] == [
        {"uri": "viking://user/default/memories/profile.md", "memory_type": "profile", "before": "- Editor: Neovim", "after": "- Editor: Emacs"},
        {
            "uri": "viking://user/default/memories/preferences/default/tabs.md",
            "memory_type": "preferences",
            "before": "- Prefers tabs",
            "after": "- No longer prefers tabs",
        },
    ]


def test_a_general_md_left_empty_is_removed_in_the_same_commit(ov, ov_home):
    from dulwich.diff_tree import tree_changes
    from dulwich.repo import Repo

    _run(ov, ov_home, ("stored", "preferences/default/general.md", "- Prefers Make"), "s")
    result = ov("remember", "I prefer Make", "--json").json["result"]
    general = "viking://user/default/memories/preferences/default/general.md"
    assert result["operations"]["deletes"] == [{"uri": general, "memory_type": "preferences", "deleted_content": "- Prefers Make"}]
    assert general in result["uris"] and _memories(ov_home) == {"preferences/default/make.md": "- Prefers Make"}
    repo = Repo(str(ov_home / "accounts/default"))
    head = repo[repo.head()]
    changes = {(c.new or c.old).path for c in tree_changes(repo.object_store, repo[head.parents[0]].tree, head.tree)}
    assert changes == {b"user/default/memories/preferences/default/general.md", b"user/default/memories/preferences/default/make.md"}


def test_each_correction_is_one_commit_so_git_keeps_the_old_value(ov, ov_home):
    from dulwich.repo import Repo

    for text in ("My editor is Neovim", "My editor is Emacs"):
        assert ov("remember", text).exit_code == 0
    repo = Repo(str(ov_home / "accounts/default"))
    versions = []
    for entry in repo.get_walker(paths=[b"user/default/memories/profile.md"]):
        tree = repo[entry.commit.tree]
        mode, sha = tree.lookup_path(repo.__getitem__, b"user/default/memories/profile.md")
        versions.append(parse_memory(repo[sha].data.decode())[0])
    assert versions == ["- Editor: Emacs", "- Editor: Neovim"]


def _run(ov, home: Path, step, session: str) -> dict:
    """Run one step; the diff operations it produced."""
    if isinstance(step, list):
        lines = []
        for n, message in enumerate(step):
            role, body = ("user", message) if isinstance(message, str) else message
            content = {"text": body} if isinstance(body, str) else {"parts": body}
            lines.append(json.dumps({"role": role, **content, "id": f"{session}-{n}", "created_at": AT}))
        assert ov("session", "add-messages", session, stdin="\n".join(lines)).exit_code == 0
        report = ov("commit", session, "--json").json["result"]
        assert report["status"] == "committed" and report["failed"] is None
        archive = home / ACCOUNT / "default/sessions" / session / "history/archive_001/memory_diff.json"
        return json.loads(archive.read_text())["operations"]
    if isinstance(step, tuple) and step[0] == "stored":
        _, path, content = step
        topic = {"topic": Path(path).stem, "subject": "default"} if path.startswith("preferences/") else {}
        meta = {"created_at": AT, "memory_type": path.split("/")[0].removesuffix(".md"), "sources": ["ov remember"],
                "updated_at": AT, "version": 1, **topic}
        uri = f"viking://user/default/memories/{path}"
        assert ov("write", uri, "--content", render_memory(content, meta)).exit_code == 0
        return {"adds": [], "updates": [], "deletes": []}
    if isinstance(step, tuple) and step[0] == "refused":
        result = ov("remember", step[1], "--json")
        assert result.exit_code == 2 and "could not turn" in result.error["message"]
        assert "{" not in result.error.get("hint", ""), result.error  # an option it names is spelled as the CLI's
        return {"adds": [], "updates": [], "deletes": []}
    args = ("remember", step[2], "--user", step[1]) if isinstance(step, tuple) else ("remember", step)
    result = ov(*args, "--json")
    assert result.exit_code == 0, result.stderr
    return result.json["result"]["operations"]


def _memories(home: Path) -> dict[str, str]:
    out = {}
    for user_dir in sorted((home / ACCOUNT).glob("*")):
        root = user_dir / "memories"
        for path in sorted(root.rglob("*.md")) if root.is_dir() else ():
            rel = path.relative_to(root).as_posix()
            out[rel if user_dir.name == "default" else f"{user_dir.name}:{rel}"] = parse_memory(path.read_text())[0]
    return out


# --- the supersede op of merge.patch_text, which the rules above rely on ---------------------------


@pytest.mark.parametrize(
    "old, probes, line, new",
    [
        ("- Editor: Neovim\n- Shell: fish", ["editor:"], "- Editor: Emacs", "- Editor: Emacs\n- Shell: fish"),
        # a key stated twice (as older versions of ov wrote it) heals to one line
        ("- Editor: Neovim\n- Shell: fish\n- Editor: Emacs", ["Editor:"], "- Editor: Helix", "- Editor: Helix\n- Shell: fish"),
        ("- Favourite editor: Neovim", ["*: neovim"], "- No longer uses Neovim", "- No longer uses Neovim"),
        ("- Works at Acme\n- Works atop a desk", ["works at"], "- Works at Globex", "- Works at Globex\n- Works atop a desk"),
        # a bare line takes the bullet style of the line it replaces, and loses its "Actually,"
        ("* Works at Acme", ["works at"], "Actually, works at Globex", "* Works at Globex"),
        ("- Prefers tabs", ["dislikes tabs"], "- Likes tabs", "- Prefers tabs\n- Likes tabs"),
        # no probe matches: the line is merged as text, where "Actually," still replaces the closest line
        ("- Is read-only\n- Runs on port 5433", ["nothing"], "- Actually, runs on port 5434", "- Is read-only\n- Runs on port 5434"),
        ("# Notes\n\n- Editor: vim", ["editor:"], "- Editor: vim", "# Notes\n\n- Editor: vim"),
        # a thing at a version: only the lines that go on with a version
        ("- Uses Postgres read replicas\n- Runs Postgres 15", ["uses postgres #", "runs postgres #"], "- Is on Postgres 16",
         "- Uses Postgres read replicas\n- Is on Postgres 16"),
    ],
)
def test_supersede(old, probes, line, new):
    from ov.sessions.memory.merge import patch_text

    assert patch_text(old, {"supersede": probes, "with": line}) == new


@pytest.mark.parametrize(
    "old, lead, obj, line, new",
    [
        # a line in the wording of older versions ("Always uses") is replaced by the instruction
        ("- Always uses type hints", "Never ", "use type hints", "- Never use type hints", "- Never use type hints"),
        ("- Always uses type hints", "Always ", "use type hints", "- Always use type hints", "- Always use type hints"),
        ("- Always use type hints in new code", "Always ", "use type hints", "- Always use type hints",
         "- Always use type hints in new code\n- Always use type hints"),
        # a habit's "my" stored as "your" ("I always review my own PRs") is the same instruction
        ("- Always review your own PRs", "Never ", "review my own PRs", "- Never review my own PRs", "- Never review my own PRs"),
        ("- Always review your own PRs", "Always ", "review my own PRs", "- Always review my own PRs", "- Always review my own PRs"),
        ("- Always review your own code", "Never ", "review my own PRs", "- Never review my own PRs",
         "- Always review your own code\n- Never review my own PRs"),
    ],
)
def test_supersedes_an_always_line_in_either_wording(old, lead, obj, line, new):
    from ov.sessions.memory.merge import patch_text
    from ov.sessions.memory.supersede import supersedes

    assert patch_text(old, {"supersede": list(supersedes("preferences", lead, obj)), "with": line}) == new


def test_a_whole_line_probe_matches_only_the_whole_line():
    from ov.sessions.memory.merge import patch_text

    op = {"supersede": ["Prefers tabs$"], "with": "- No longer prefers tabs", "append": False}
    assert patch_text("- Prefers tabs.", op) == "- No longer prefers tabs"
    assert patch_text("- Prefers tabs in Go code", op) == "- Prefers tabs in Go code"


def test_a_merged_statement_the_caller_moves_leaves_the_corrected_file():
    from ov.sessions.memory.merge import patch_text

    told: list[str] = []

    def moves(statement: str) -> bool:
        told.append(statement)
        return statement == "my name is Ada"

    old = "- Prefers tabs and my name is Ada; my shell is fish"
    for op in ({"supersede": ["Prefers tabs$"], "with": "- No longer prefers tabs"}, "- No longer prefers tabs"):  # a probe, or a correction
        told.clear()
        assert patch_text(old, op, moves=moves) == "- No longer prefers tabs\n- My shell is fish"
        assert told == ["my name is Ada", "my shell is fish"]  # in the words an older ov merged
    assert patch_text(old, "- No longer prefers tabs") == "- No longer prefers tabs\n- My name is Ada\n- My shell is fish"


def test_supersede_that_only_amends_never_appends():
    from ov.sessions.memory.merge import patch_text

    op = {"supersede": ["Prefers tabs"], "with": "- No longer prefers tabs", "append": False}
    assert patch_text("- Hates tabs", op) == "- Hates tabs"
    assert patch_text("- Prefers tabs over spaces", op) == "- No longer prefers tabs"


@pytest.mark.parametrize(
    "op",
    [
        {"supersede": "editor:", "with": "- Editor: vim"},
        {"supersede": ["editor:"], "with": "- a\n- b"},
        {"supersede": ["editor:"], "with": "- a", "append": "no"},
        {"supersede": ["editor:"], "with": "- a", "colour": "blue"},
    ],
)
def test_bad_supersede_ops_are_refused(op):
    from ov.errors import InvalidInput
    from ov.sessions.memory.merge import patch_text

    with pytest.raises(InvalidInput):
        patch_text("- Editor: Neovim", op)


def test_supersede_merges_its_otherwise_line_when_no_probe_matches():
    from ov.sessions.memory.merge import patch_text

    op = {"supersede": ["Lives in", "Is based in"], "with": "- Lives in Lisbon", "otherwise": "- Moved to Lisbon"}
    assert patch_text("- Is based in Berlin\n- Shell: fish", op) == "- Lives in Lisbon\n- Shell: fish"
    assert patch_text("- Shell: fish", op) == "- Shell: fish\n- Moved to Lisbon"


# --- the swap op: a changed value put in place in the lines that name it ---------------------------


@pytest.mark.parametrize(
    "old, swap, new",
    [
        ("- Editor: Neovim\n- Shell: fish", ("neovim", "Zed"), "- Editor: Zed\n- Shell: fish"),
        # whole words only, and every line naming the value
        ("- Uses Vim daily\n- Editor: vim\n- Likes Vimscript", ("Vim", "Helix"), "- Uses Helix daily\n- Editor: Helix\n- Likes Vimscript"),
        # a line saying the old value no longer holds is left alone
        ("- No longer uses Neovim\n- Editor: Neovim", ("Neovim", "Zed"), "- No longer uses Neovim\n- Editor: Zed"),
        # a swap that would repeat another line removes it instead
        ("- Uses Zed\n- Uses Neovim", ("Neovim", "Zed"), "- Uses Zed"),
        # a value with regex characters is matched as text; the new one is put in as text
        ("- Language: C++", ("C++", r"Rust \1"), r"- Language: Rust \1"),
        # nothing names it: the otherwise line is merged
        ("- Shell: fish", ("Neovim", "Zed"), "- Shell: fish\n- Switched from Neovim to Zed"),
        # an accent typed decomposed names the same value
        ("- Drinks cafe\u0301 daily", ("caf\u00e9", "tea"), "- Drinks tea daily"),
        ("- Drinks caf\u00e9 daily", ("cafe\u0301", "tea"), "- Drinks tea daily"),
    ],
)
def test_swap(old, swap, new):
    from ov.sessions.memory.merge import patch_text

    assert patch_text(old, {"swap": swap[0], "to": swap[1], "otherwise": "- Switched from Neovim to Zed"}) == new


def test_a_line_typed_with_a_decomposed_accent_is_the_same_line():
    # (found by a review: lines were compared without NFC, and the same line was stored twice)
    from ov.sessions.memory.merge import patch_text

    assert patch_text("- Likes cafe\u0301 au lait", "- Likes caf\u00e9 au lait") == "- Likes cafe\u0301 au lait"
    assert patch_text("- Drink: cafe\u0301", {"supersede": ["drink:"], "with": "- Drink: caf\u00e9"}) == "- Drink: cafe\u0301"
    assert patch_text("- Drink: tea", {"supersede": ["drink:"], "with": "- Drink: caf\u00e9"}) == "- Drink: caf\u00e9"
    assert patch_text("- Likes caf\u00e9", "- Not likes cafe\u0301") == "- Not likes cafe\u0301"  # a correction finds its line


@pytest.mark.parametrize(
    "op",
    [
        {"swap": "", "to": "Zed"},
        {"swap": "Neovim", "to": "a\nb"},
        {"swap": ["Neovim"], "to": "Zed"},
        {"swap": "Neovim", "to": "Zed", "otherwise": 3},
        {"swap": "Neovim", "to": "Zed", "colour": "blue"},
        {"supersede": ["editor:"], "with": "- a", "otherwise": "- b\n- c"},
    ],
)
def test_bad_swap_ops_are_refused(op):
    from ov.errors import InvalidInput
    from ov.sessions.memory.merge import patch_text

    with pytest.raises(InvalidInput):
        patch_text("- Editor: Neovim", op)


def test_a_role_leaves_broken_cards_and_sidecars_of_its_folder_alone(ov, ov_home):
    assert ov("remember", "My manager is Dana").exit_code == 0
    people = ov_home / ACCOUNT / "default/memories/entities/people"
    (people / "lee.md").write_text("# Lee\n\n- The user's manager\n\n<!-- MEMORY_FIELDS\n{broken\n")  # no closing: unreadable
    (people / ".overview.md").write_text("The user's manager is Dana.\n")
    assert ov("snapshot", "commit", "-m", "hand edits").exit_code == 0
    result = ov("remember", "My manager is Sam now", "--json")
    assert result.exit_code == 0, result.stderr
    assert "No longer the user's manager" in (people / "dana.md").read_text()
    assert (people / "lee.md").read_text().startswith("# Lee\n\n- The user's manager\n")
    assert (people / ".overview.md").read_text() == "The user's manager is Dana.\n"


@pytest.mark.parametrize("key, tool, other", [("Editor", "Helix", "Zed"), ("Shell", "nushell", "fish"), ("OS", "Fedora", "macOS"),
                                              ("Terminal", "WezTerm", "Ghostty"), ("Browser", "Vivaldi", "Safari")])
@pytest.mark.parametrize("said", ["I use {tool}", "I use {tool} as my {kind}", "I mostly use {tool}", "I'm on {tool} for everything",
                                  "I run {tool} on my laptop", "I'm using {tool} with a custom config", "I use {tool} at work",
                                  "I've been using {tool} since March", "I use {tool} (nightly)", "I use {tool}, with few plugins"])
def test_every_line_extraction_writes_of_a_tool_is_found_by_its_kinds_probes(key, tool, other, said):
    """A later tool of the same kind ends the line ov itself wrote of the earlier one, whatever its wording."""
    from ov.sessions.memory.extract import extract_text
    from ov.sessions.memory.kinds import kind_probes
    from ov.sessions.memory.merge import apply_supersede

    written = [line for candidate in extract_text(said.format(tool=tool, kind=key.lower()), when=datetime.now(UTC))
               for line in candidate.fields.get("content", "").splitlines() if tool.lower() in line.lower()]
    assert written, said
    lines = list(written)
    assert apply_supersede(lines, kind_probes(key, other), f"- {key}: {other}"), written
    assert lines == [f"- {key}: {other}"]


@pytest.mark.parametrize("line", ["Uses fish tacos on Fridays", "Uses cursor pagination for the API", "Is on edge about the release",
                                  "Uses Emacs Lisp for config", "Used Emacs at their previous job"])
def test_a_kinds_probes_leave_a_longer_name_or_the_past_alone(line):
    from ov.sessions.memory.kinds import kind_probes
    from ov.sessions.memory.merge import apply_supersede

    assert not apply_supersede([f"- {line}"], kind_probes("Editor", "Zed")
                               + kind_probes("Shell", "zsh") + kind_probes("Browser", "Safari"), "- New")


@pytest.mark.parametrize("line, now", [
    ("Team deploys with Nomad", True), ("Mostly writes Kotlin", True), ("Always run migrations with Flyway", True),
    ("Package manager: pnpm", True), ("Is on Postgres 16 for analytics", True),
    ("Deployed with Nomad at Initech", False), ("Has written Kotlin for years", False), ("Wrote Perl at their first job", False),
    ("Ran Postgres until the spring", False), ("Priya deploys with Nomad", False), ("Their old team used pnpm", False),
    ("Old package manager: npm", False), ("Moved to Kotlin in 2021", False), ("Never run migrations with Flyway", False),
    # (written after the rule) a name that ends like a verb's "-s" is a subject; "since" a time says since when it holds now
    ("Marcus deploys with Nomad", False), ("Thomas runs CI on Jenkins", False), ("Agnes still uses pnpm", False),
    ("Carlos Mendes writes Kotlin", False), ("Lena's team uses pnpm", False), ("James maintains the Nomad cluster", False),
    ("Runs CI on Jenkins since 2021", True), ("Team deploys with Nomad since March", True), ("Uses pnpm (since 2023-02)", True),
    ("Hosts docs on Confluence", True), ("Uses pnpm since 2019 until 2021", False),
])
def test_only_a_line_of_what_holds_now_is_one_a_switch_changes(line, now):
    from ov.sessions.memory.now import holds_now

    assert holds_now(line) is now
