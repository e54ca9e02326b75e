"""OVPack v3 files: a subtree or a whole account as one ZIP, in OpenViking's format.

Export/import move a subtree between stores; backup/restore carry a whole
account. A pack may carry the derived index records and vectors, so an import
need not embed again. Built on the store and the indices.

- :mod:`ov.ovpack.format` -- what a pack is: the ZIP layout, the format version,
  the size limits, :class:`~ov.ovpack.format.Pack`, and
  :func:`~ov.ovpack.format.read_pack`, which checks an untrusted file completely
  before anything uses it (the module to audit for hostile packs; it writes nothing).
- :mod:`ov.ovpack.writer` -- writing a pack a file at a time: blobs read from git
  when each is needed, index records and vectors kept on disk until they are copied
  in, so memory stays near the largest file.
- :mod:`ov.ovpack.transfer` -- moving content between a store and a pack:
  ``export``/``backup`` and ``import_pack``/``restore`` (one commit or nothing),
  their options and results, and what happens to the vectors. It imports the
  format and the writer, never the reverse.
"""
