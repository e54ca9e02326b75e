"""Ingest: turning files, directories and URLs into resources with L0/L1 summaries."""
