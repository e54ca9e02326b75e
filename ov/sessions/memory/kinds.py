"""Which key of the user's setup a named tool is a value of: Emacs is an editor, fish a shell.

"My editor is Sublime Text", then "I switched to Emacs" or "I'm on Emacs now": the new statement
names no key, but its value is of a known kind, and a user has one editor, one shell, one OS at a
time: the later value replaces the stored line of that key whatever its wording ("Editor:",
"Default editor:", "Main editor:"; not "Favourite editor:") and the lines saying the user uses or
is on another of its kind ("Uses Neovim", "Is on macOS"). So does "my default shell is fish" after
"my shell is zsh" or "I use bash". Only for values said as a change ("switched to", "moved to", "now",
"actually", "these days"): "I use Vim" beside "I use Emacs" may be two editors for two jobs.
"""

from __future__ import annotations

import re

from ov.sessions.memory.probes import NAME_END, anycase
from ov.sessions.memory.statement import Statement

# The known tools of each kind, lower case; names of more than one word are matched whole.
KINDS: dict[str, tuple[str, ...]] = {
    "Editor": (
        "vim", "neovim", "nvim", "emacs", "doom emacs", "spacemacs", "helix", "vs code", "vscode", "visual studio code",
        "sublime text", "sublime", "nano", "zed", "cursor", "intellij", "intellij idea", "pycharm", "webstorm", "goland",
        "rider", "clion", "xcode", "android studio", "kakoune", "atom", "textmate", "notepad++", "visual studio",
    ),
    "Shell": ("bash", "zsh", "fish", "nushell", "nu", "powershell", "pwsh", "tcsh", "ksh", "xonsh", "elvish", "oil"),
    "Terminal": ("iterm", "iterm2", "alacritty", "kitty", "wezterm", "ghostty", "warp", "konsole", "gnome terminal", "foot", "hyper"),
    "OS": (
        "macos", "mac os", "os x", "linux", "windows", "wsl", "ubuntu", "fedora", "fedora linux", "arch", "arch linux", "debian",
        "nixos", "freebsd", "openbsd", "pop!_os", "pop os", "manjaro", "mint", "linux mint", "opensuse", "gentoo", "void linux",
    ),
    "Browser": ("firefox", "chrome", "google chrome", "chromium", "safari", "arc", "brave", "edge", "vivaldi", "opera"),
}
# The leads of a profile line that say which tool the user is on ("Uses Neovim", "Is on macOS").
_USING_LEADS = ("Uses", "Is on", "Is using", "Runs", "Is running", "Has been using", "Has been on", "Switched to", "Moved to")


def kind_of(value: str) -> tuple[str, str] | None:
    """(key, name as typed) when ``value`` opens with a known tool: "Emacs (doom) a while ago" ->
    ("Editor", "Emacs"); None for anything else ("Emacs Lisp" is no editor, "fish tacos" no shell)."""
    said = " ".join(value.split())
    best: tuple[str, str] | None = None
    for key, names in KINDS.items():
        for name in names:
            match = re.match(rf"(?i){re.escape(name)}{NAME_END}", said)
            if match and (best is None or len(match.group(0)) > len(best[1])):
                best = (key, match.group(0))
    return best


def kind_probes(key: str, name: str) -> tuple[str, ...]:
    """The stored lines a value ``name`` of ``key`` replaces: the line of any key ending in ``key``
    ("Editor: ...", "Default editor: ..."), and those saying the user uses or is on another tool
    of its kind ("Uses Neovim")."""
    others = [n for n in KINDS[key] if n.lower() != name.lower()]
    # The tool whole, alone or before when or what it is for ("Uses Neovim for everything", "Uses
    # Emacs as their editor": what extraction writes), never a longer name ("Uses fish tacos").
    keys = (f"{anycase(key)}: *", *(f"{anycase(f'{word} {key}')}: *" for word in _IN_USE))
    return (f"{key}:", *keys, *(f"{lead} {other} +" for lead in _USING_LEADS for other in others))


# Words before a key that still name the one in use ("my default shell"), unlike "favourite" or "old".
_IN_USE = ("default", "main", "primary", "daily", "usual", "current", "everyday")


# "I switched to Emacs", "I've moved over to nushell": a change of the tool, no key named.
_SWITCHED_TO_RE = re.compile(
    r"^I(?:'ve|\s+have)?\s+(?:just\s+|recently\s+|finally\s+)?(?:switched|moved|changed|gone|went|jumped|migrated)(?:\s+over)?\s+to\s+(?P<x>.+)$",
    re.IGNORECASE,
)


def switched(clause: str, restore) -> Statement | None:
    """"I switched to Emacs (doom) a while ago" -> "Editor: Emacs", in place of the stored editor."""
    match = _SWITCHED_TO_RE.match(clause)
    kind = kind_of(restore(match.group("x"))) if match else None
    return _statement(*kind) if kind else None


def as_kind(statement: Statement) -> Statement | None:
    """A changed fact naming a known tool ("I'm on nushell now": "Is on nushell") as the value of
    its key ("Shell: nushell"), in place of the stored one; None for any other statement."""
    said = " ".join(f"{statement.lead}{statement.obj}".split())
    lead = next((lead for lead in _USING_LEADS if said.lower().startswith(lead.lower() + " ")), None)
    if statement.memory_type != "profile" or lead is None:
        return None
    value = said[len(lead) + 1 :]
    kind = kind_of(value)
    if kind is None or len(value.split()) > len(kind[1].split()) + 3:
        return None  # "Is on Fedora for the build box and ...": more than the tool
    new = _statement(*kind)
    new.sources, new.turn = statement.sources, statement.turn
    return new


def _statement(key: str, name: str) -> Statement:
    return Statement("profile", f"{key}: ", name, ("profile", key.lower()), {}, probes=kind_probes(key, name))


def keyed(statement: Statement) -> Statement:
    """``statement``, and when it gives a key of a kind a value of that kind ("Default shell: fish"),
    replacing the stored line of the kind's key in other words too ("Shell: zsh", "Uses bash")."""
    said = statement.lead.rstrip(": ").lower() if statement.memory_type == "profile" and statement.lead.endswith(": ") else ""
    key = "os" if said.endswith("operating system") else said.split()[-1] if said else ""
    if set(said.replace("operating system", "os").split()[:-1]) - set(_IN_USE):
        return statement  # "my favourite editor" is not the one in use
    kind = kind_of(statement.obj) if key else None
    if kind and kind[0].lower() == key:
        statement.probes = (*statement.probes, *kind_probes(*kind))
    return statement
