"""The store: one git repository per account, whose work tree is the ``viking://`` tree.

Everything that reads or writes the canonical content lives here: the
:class:`~ov.store.store.Store` and its transactions (reads straight from the
work tree, one commit per mutating operation), the dulwich layer that writes
objects, refs and the crash journal (``gitstore``), the per-account write lock
and the group commit that lets one holder land the writes queued behind it,
the git index kept in step for plain ``git status``, hand edits found in the
work tree, and the L0/L1 sidecar file format. It depends only on the basics.
"""
