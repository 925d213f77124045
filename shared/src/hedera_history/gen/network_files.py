"""Updates of the network's exchange-rate file (0.0.112: an ``ExchangeRateSet`` in one FileUpdate)
and fee schedule (0.0.111: a ``CurrentAndNextFeeSchedule`` in a FileUpdate and a FileAppend, as a
schedule too big for one transaction is sent), paid by the treasury 0.0.2 as the network's
administrative accounts pay them. Rates start near mainnet's and drift; the schedules price
ContractCall, ContractCreate and EthereumTransaction gas (what the reference's fees route reads)
and CryptoTransfer."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

from hedera_history import hapi
from hedera_history.gen.config_and_output import NS_PER_SECOND
from hedera_history.gen.facts import GeneratedItem
from hedera_history.gen.items import Draft, ItemWriter, RecordDetails
from hedera_history.gen.ledger import TREASURY

FEE_SCHEDULE_FILE = 111
EXCHANGE_RATE_FILE = 112
_HOUR = 3600
_PRICED = ("ContractCall", "ContractCreate", "EthereumTransaction", "CryptoTransfer")


class NetworkFilePlayer:
    """Writes the two files' updates; owns nothing but the drafts' randomness."""

    def __init__(
        self, rng: random.Random, writer: ItemWriter, new_draft: Callable[[int, int], Draft], fee: Callable[[], int]
    ) -> None:
        self.rng = rng
        self.writer = writer
        self._new_draft = new_draft
        self._fee = fee

    def exchange_rate_update(self, slots: Sequence[int]) -> list[GeneratedItem]:
        hour = slots[0] // NS_PER_SECOND // _HOUR
        rates: Any = type(hapi.TransactionReceipt().exchangeRate)()
        for rate, expiry in ((rates.currentRate, (hour + 1) * _HOUR), (rates.nextRate, (hour + 2) * _HOUR)):
            rate.hbarEquiv = 30_000
            rate.centEquiv = self.rng.randint(150_000, 250_000)
            rate.expirationTime.seconds = expiry
        return [self._file_item(slots[0], EXCHANGE_RATE_FILE, bytes(rates.SerializeToString()), append=False)]

    def fee_schedule_update(self, slots: Sequence[int]) -> list[GeneratedItem]:
        expiry = (slots[0] // NS_PER_SECOND // _HOUR + 1) * _HOUR
        schedules = hapi.basic_types.CurrentAndNextFeeSchedule()
        for schedule, ends in ((schedules.currentFeeSchedule, expiry), (schedules.nextFeeSchedule, expiry + _HOUR)):
            schedule.expiryTime.seconds = ends
            for name in _PRICED:
                entry = schedule.transactionFeeSchedule.add()
                entry.hederaFunctionality = hapi.basic_types.HederaFunctionality.Value(name)
                data = entry.fees.add()
                data.servicedata.gas = self.rng.randint(700_000, 900_000)
                data.servicedata.constant = self.rng.randint(10**9, 10**10)
        content = bytes(schedules.SerializeToString())
        cut = len(content) // len(slots) + 1
        return [
            self._file_item(consensus_ns, FEE_SCHEDULE_FILE, content[i * cut : (i + 1) * cut], append=i > 0)
            for i, consensus_ns in enumerate(slots)
        ]

    def _file_item(self, consensus_ns: int, file: int, contents: bytes, *, append: bool) -> GeneratedItem:
        draft = self._new_draft(consensus_ns, TREASURY)
        operation = draft.body.fileAppend if append else draft.body.fileUpdate
        operation.fileID.fileNum = file
        operation.contents = contents
        return self.writer.finish(draft, self._fee(), {}, RecordDetails(system_file=(file, contents)))
