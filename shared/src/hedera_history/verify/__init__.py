"""Verification: address books, node signatures, stake consensus, hash chain. Pure functions."""
