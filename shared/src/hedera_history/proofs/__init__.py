"""Proof bundles: one transaction or block with what a client needs to check it offline.

``verify`` (with ``codec``, ``trust`` and ``chain``) is the client side and imports nothing of the
cloud: hashlib, cryptography, protobuf and the project's format readers. ``build`` lays evidence
out from parsed files; ``from_files`` and ``from_store`` gather it from a directory or the store.
Block streams: ``block_paths`` (Merkle paths in a native block, pure) and ``native`` build a
transaction's proof, ``verify_native`` checks it against a ledger id, ``block_contents`` reads and
writes the block node's proof shape; ``verify_any`` is what ``proof verify`` calls. See docs/proofs.md.
"""
