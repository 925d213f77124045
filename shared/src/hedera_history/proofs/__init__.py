"""Proof bundles: one transaction or block with what a client needs to check it offline.

``verify`` (with ``codec``, ``trust`` and ``chain``) is the client side and imports nothing of the
cloud: hashlib, cryptography, protobuf and the project's format readers. ``build`` lays evidence
out from parsed files; ``from_files`` and ``from_store`` gather it from a directory or the store.
See docs/proofs.md.
"""
