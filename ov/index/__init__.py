"""The derived indices: tantivy full text and hnswlib vectors, rebuilt from the commits.

``records`` turns committed files (resources, memories, session messages) into
index records; ``lexical`` and ``vectors`` hold the two indices; ``sync`` brings
them up to the store's HEAD, incrementally and under their own lock; ``embedders``
turns text into vectors. Nothing here is canonical: deleting the state directory
loses nothing that the next catch-up does not rebuild. Built on the store, ingest
(how documents split) and sessions (how messages and memories read).
"""
