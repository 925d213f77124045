"""Errata records (HIP-639): files beside the record streams that correct history.

- ``codec`` / ``model``: the ``ErrataFile`` and ``RecordStreamErrataTransactionBody`` (``proto/``).
- ``authority``: council super-majority (Ed25519) and node ratification (> 2/3 of stake).
- ``layout``: where errata files and their node signatures live in the bucket.
- ``signing``: council and node signatures.
- ``plan`` / ``apply``: the cells an errata changes in the history tables, the errata log and the
  compensations for derived state; ``read``: what readers call and must honour.
- ``ingest``: ``process_errata_object`` for the ingest function.

See docs/errata.md.
"""

from hedera_history.errata.apply import apply_errata, apply_plan
from hedera_history.errata.authority import CouncilPolicy, Verdict, judge_errata, require_accepted
from hedera_history.errata.codec import encode_errata_body, encode_errata_file, parse_errata_file
from hedera_history.errata.ingest import ErrataOutcome, ErrataStatus, process_errata_object
from hedera_history.errata.layout import is_errata_path, parse_errata_path
from hedera_history.errata.model import EntryKind, ErrataBody, ErrataFile
from hedera_history.errata.plan import ErrataPlan, plan_errata

__all__ = [
    "CouncilPolicy",
    "EntryKind",
    "ErrataBody",
    "ErrataFile",
    "ErrataOutcome",
    "ErrataPlan",
    "ErrataStatus",
    "Verdict",
    "apply_errata",
    "apply_plan",
    "encode_errata_body",
    "encode_errata_file",
    "is_errata_path",
    "judge_errata",
    "parse_errata_file",
    "parse_errata_path",
    "plan_errata",
    "process_errata_object",
    "require_accepted",
]
