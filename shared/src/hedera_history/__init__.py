"""hedera-history: verified Hedera record-stream history in Cloud Bigtable."""

__version__ = "0.1.0"
