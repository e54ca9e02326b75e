"""The store's git history, read and shared: snapshots and remotes.

``snapshots`` is ``ov snapshot log|show|diff|restore|tag``: every command is a
commit whose trailers name the command and the URIs it touched, and a restore
is a new commit on top, so an agent's learning can be audited and undone;
``revert`` takes back one commit's changes alone, keeping the later ones.
``remotes`` pushes the account's commits to a git remote and pulls them back,
merging with conflict copies. Both work on the store alone.
"""
