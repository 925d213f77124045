"""Address books and node stakes: the one home the stream, the backfill, the proofs and the API share.

- :mod:`~hedera_history.books.address_book`: the book in memory (``AddressBook``, ``NodeEntry``).
- :mod:`~hedera_history.books.parse`: ``NodeAddressBook`` bytes <-> model (``AddressBookError`` on bad bytes).
- :mod:`~hedera_history.books.stakes`: ``NodeStakeUpdate`` tables and the consensus weight of each node.
- :mod:`~hedera_history.books.updates`: 0.0.101 / 0.0.102 updates and appends from the stream, and
  the one tracker every keeper of books applies them with.
- :mod:`~hedera_history.books.codec`: what is stored (book, stakes, a tracker's state, a block's
  recorded changes); :mod:`~hedera_history.books.packed`: the proofs' compact book.
- :mod:`~hedera_history.books.bootstrap`: the public networks' shipped bootstrap books.

No I/O here (no store, no cloud client): the stream's keeper (``pipeline.address_books``), the
backfill's progress rows (``backfill.resume_rows``) and the book file reader
(``sources.address_book_file``) do it, through these modules.
"""
