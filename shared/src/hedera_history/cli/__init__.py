"""The ``hedera-history`` command line: one module per command, all thin."""
