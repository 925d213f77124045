"""``gcp-storage-emulator`` in memory, without its metadata journal.

After every change (an upload, a delete), the emulator serialises the metadata of every bucket and
object it holds as indented JSON (``Storage._write_config_to_file``), which only a restart from
disk reads back. In memory that file is never read, yet each upload costs time in proportion to
the bucket: 3.7 ms of CPU at 270 objects, 15 ms at 1,170, 66 ms at 5,130
(``bench.bucket_events_bench``), so a mainnet-sized stream slowed down period after period. Run as
``python -m hedera_history.localstack.gcs_in_memory start ... --in-memory``: the same command line
as the emulator's own; the journal is skipped only while the storage is in memory, and an emulator
without that method runs unchanged.
"""

from __future__ import annotations

import runpy
import sys
from typing import Any

JOURNAL = "_write_config_to_file"


def skip_journal_in_memory(storage_class: Any) -> bool:
    """Make ``storage_class``'s journal write a no-op for in-memory storage; False where the class
    has no such method (another emulator version: nothing is changed)."""
    original = getattr(storage_class, JOURNAL, None)
    if original is None:
        return False

    def write_unless_in_memory(self: Any) -> None:
        if not getattr(self, "_use_memory_fs", False):
            original(self)

    setattr(storage_class, JOURNAL, write_unless_in_memory)
    return True


def main() -> None:
    from gcp_storage_emulator.storage import Storage  # noqa: PLC0415 (only in the emulator's process)

    skip_journal_in_memory(Storage)
    sys.argv = ["gcp_storage_emulator", *sys.argv[1:]]
    runpy.run_module("gcp_storage_emulator", run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
