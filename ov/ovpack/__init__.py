"""OVPack v3 files: a subtree or a whole account as one ZIP, in OpenViking's format.

Export/import move a subtree between stores; backup/restore carry a whole
account. A pack may carry the derived index records and vectors, so an import
need not embed again. Built on the store and the indices.
"""
