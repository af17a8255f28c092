"""The trec_eval drop-in's numpy-only fast path (no pandas, pyarrow or scipy)."""
