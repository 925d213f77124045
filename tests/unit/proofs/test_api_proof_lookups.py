"""The query API's transaction proof finds its subject once: a record-stream proof (the native
path tried first, then the record file's) looks the transaction id up and reads its entry once."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from hedera_history import hapi
from hedera_history.api.proofs import ProofSettings, transaction_proof
from hedera_history.proofs.from_files import DirectoryProver
from hedera_history.proofs.from_store import build_transaction_proof
from hedera_history.proofs.verify import transaction_id_text
from hedera_history.store.decode import StoredTransaction, TransactionIdResult
from hedera_history.store.reader import HistoryReader, IndexEntry

from tests.unit.store.fakes import ConditionalMemoryGateway


class CountingReader(HistoryReader):
    """A reader that counts the id lookups and the entries read, by consensus time (the trust
    chain reads other entries: those before each book)."""

    def __init__(self, gateway: ConditionalMemoryGateway) -> None:
        super().__init__(gateway)
        self.id_lookups = 0
        self.entries_read: Counter[int | IndexEntry] = Counter()

    def transactions_by_id(self, payer: str, valid_start_ns: int) -> list[TransactionIdResult]:
        self.id_lookups += 1
        return super().transactions_by_id(payer, valid_start_ns)

    def transaction(self, at: int | IndexEntry) -> StoredTransaction | None:
        self.entries_read[at] += 1
        return super().transaction(at)


def test_a_record_stream_proof_looks_its_subject_up_once(
    rotating_dir: Path, rotating_store: ConditionalMemoryGateway
) -> None:
    book = (rotating_dir / "address-book.bin").read_bytes()
    item = DirectoryProver(rotating_dir, book).blocks[-1].record.items[-1]
    transaction_id = transaction_id_text(hapi.TransactionRecord.FromString(item.record_bytes).transactionID)
    reader = CountingReader(rotating_store)

    proof = transaction_proof(lambda: reader, lambda: ProofSettings(book), transaction_id)

    assert reader.id_lookups == 1
    assert reader.entries_read[item.consensus_ns] == 1
    assert proof == build_transaction_proof(HistoryReader(rotating_store), transaction_id, bootstrap_book=book)
