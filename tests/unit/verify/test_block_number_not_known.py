"""A file before V6 with no block number given: a retryable leaf, still a configuration error."""

from __future__ import annotations

from hedera_history.errors import BlockNumberNotKnownError, ConfigError, is_transient
from hedera_history.formats.hashing import EMPTY_HASH
from hedera_history.verify.period import FetchedFile, check_period

from .streamkit import MemoryPeriod, account, v2_record, v2_signature

NS = 1657701971304284003


def test_a_v2_period_without_its_number_waits_for_it(node_keys, book):
    name, data, file_hash = v2_record(NS, previous_file_hash=EMPTY_HASH)
    period = MemoryPeriod(name.removesuffix(".rcd"))
    for num, key in node_keys.items():
        period.signatures[account(num)] = FetchedFile(f"{period.period_key}.rcd_sig", v2_signature(key, file_hash))
        period.records[account(num)] = FetchedFile(name, data)
    report = check_period(period, book)
    assert isinstance(report.error, BlockNumberNotKnownError)
    assert is_transient(report.error)  # the pipeline tries again once the block before is stored
    assert isinstance(report.error, ConfigError)  # a command run without --start-block fails as before
    assert report.record is not None and report.record.block_number is None
    assert check_period(period, book, block_number=9).block is not None
