"""Embedders: text to vectors, chosen by the ``embedding`` config."""
