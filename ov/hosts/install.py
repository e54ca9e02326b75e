"""``ov install hooks|mcp`` / ``ov uninstall hooks|mcp``: wiring ``ov`` into each host's config, and out again.

The installer's parts, one concept each; this module names what its callers (the command line,
``ov doctor``) use, so that they need not know which part holds what.

* :mod:`ov.hosts.hostconfig`: which file of which host, per scope (:func:`spec`, :func:`mcp_spec`).
* :mod:`ov.hosts.ovcommand`: the ``ov`` command the entries run, and how ov's own entries are
  recognised by it, whatever path of ``ov`` wrote them (:func:`is_ours`, :func:`is_our_server`).
* :mod:`ov.hosts.hookentries` and :mod:`ov.hosts.mcpentries`: ov's hook entries and its MCP
  server entry, planned in and out of each host's file as a :class:`Change`
  (:mod:`ov.hosts.filechange`).
* :mod:`ov.hosts.receipts`: writing a change (:func:`apply`), with its backup and the receipt the
  uninstall undoes; :mod:`ov.hosts.backups`: which backup is ov's own to remove.
* :mod:`ov.hosts.gates`: each host's own gate in front of new hooks, and ``--trust``.

The rules users of such installers ask for, and how they hold:

* **Only ov's entries change**, and the file keeps its formatting and comments. An entry named
  ``ov`` that runs something else is the user's, refused on install and left alone on uninstall.
* **A file that does not parse is refused** with its path, line and column, and nothing is written.
* **Writes are atomic**, the file before ov's first write is kept as a backup, and a **receipt**
  says what ov created, so a file ov only added to comes back byte for byte.
* **The command** is the absolute path of this ``ov`` in user scope, and a bare ``ov`` in a
  project's files when PATH finds this very ``ov`` (:func:`entry_command`). ``ov doctor`` flags
  entries whose ``ov`` moved, and bare ones that PATH does not find.
"""

from __future__ import annotations

from ov.hosts.filechange import Change
from ov.hosts.hookentries import (
    installed_entries,
    plan_install,
    plan_uninstall,
    plugin_outdated,
    runs_twice,
    user_scope_silent,
)
from ov.hosts.hostconfig import (
    HOSTS,
    SCOPES,
    HostConfigError,
    Spec,
    config_dir,
    detect,
    former_mcp_specs,
    mcp_spec,
    spec,
)
from ov.hosts.mcpentries import (
    MCP_NAME,
    mcp_entry,
    plan_mcp_install,
    plan_mcp_leftovers,
    plan_mcp_uninstall,
    registered_mcp,
    registered_mcp_env,
    registered_mcp_required,
    registered_mcp_untrusted,
)
from ov.hosts.ovcommand import (
    BARE_OV,
    GUARDED_HERE,
    SERVER_ENV,
    command_report,
    defers,
    entry_command,
    hook_command,
    hook_env,
    hook_program,
    is_guarded,
    needs_posix_shell,
    is_installed_server,
    is_our_server,
    is_ours,
    on_path,
    ov_command,
    pinned_command,
    pinned_env,
    same_file,
    says_scope_by_option,
    server_env,
    starts,
)
from ov.hosts.receipts import BACKUP_SUFFIX, apply, backup_path, never_written, notes_of_apply, read_receipt

__all__ = [
    "BACKUP_SUFFIX",
    "BARE_OV",
    "GUARDED_HERE",
    "HOSTS",
    "MCP_NAME",
    "SCOPES",
    "SERVER_ENV",
    "Change",
    "HostConfigError",
    "Spec",
    "apply",
    "backup_path",
    "command_report",
    "config_dir",
    "defers",
    "detect",
    "entry_command",
    "former_mcp_specs",
    "hook_command",
    "hook_env",
    "hook_program",
    "installed_entries",
    "is_guarded",
    "is_installed_server",
    "is_our_server",
    "is_ours",
    "mcp_entry",
    "mcp_spec",
    "needs_posix_shell",
    "never_written",
    "notes_of_apply",
    "on_path",
    "ov_command",
    "pinned_command",
    "pinned_env",
    "plan_install",
    "plan_mcp_install",
    "plan_mcp_leftovers",
    "plan_mcp_uninstall",
    "plan_uninstall",
    "plugin_outdated",
    "read_receipt",
    "registered_mcp",
    "registered_mcp_env",
    "registered_mcp_required",
    "registered_mcp_untrusted",
    "runs_twice",
    "same_file",
    "says_scope_by_option",
    "server_env",
    "spec",
    "starts",
    "user_scope_silent",
]
