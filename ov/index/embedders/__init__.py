"""Embedders: text to vectors, chosen by the ``embedding`` config.

One module per concept, importing downward only: ``base`` holds the interface every
embedder meets (``Embedder``, ``Fingerprint``, ``EmbeddingError`` and the batching
``BaseEmbedder``); ``hashing`` the built-in deterministic ``hash`` embedder; ``local``
the ``model2vec`` and ``sentence-transformers`` embedders, loaded from a local
directory and never from a model hub; ``api`` the ``litellm`` embedder for
embeddings APIs; ``registry`` turns the config into a ``Resolution`` with
``resolve``. To get an embedder, import ``registry``; to read a stored fingerprint
or catch an embedding failure, import ``base``. Nothing is imported here, so each
module costs only what it needs.
"""
