"""Health checks: is the store sound and is this installation ready?

``fsck`` checks that the git history, the work tree and the derived indices
agree and names the command that repairs each finding; ``doctor`` checks the
configuration, the store, the indices and the LLM settings. Both are read-only.
"""
