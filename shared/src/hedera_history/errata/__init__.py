"""Errata records (HIP-639): files beside the record streams that correct history.

- ``codec`` / ``model``: the ``ErrataFile`` and ``RecordStreamErrataTransactionBody`` (``proto/``).
- ``authority``: council super-majority (Ed25519) and node ratification (> 2/3 of stake).
- ``layout``: where errata files and their node signatures live in the bucket.
- ``signing``: council and node signatures.
- ``plan`` / ``apply``: the cells an errata changes in the history tables, the errata log and the
  compensations for derived state; ``read``: what readers call and must honour.
- ``ingest``: ``process_errata_object`` for the ingest function.

See docs/errata.md.

Import from the modules: this file imports none of them, so a function that needs one module
does not load the others at its cold start.
"""
