"""The local stack: emulators for Bigtable, Pub/Sub, GCS and S3 on loopback, and their prerequisites.

- ``prerequisites``: what this machine needs (Python, Java, the Cloud CLI and its emulator
  components) and the exact command that installs what is missing (``hedera-history doctor``).
- ``emulators``: ``BigtableEmulator``, ``PubSubEmulator``, ``GcsEmulator``, ``S3Emulator``.
- ``processes``: a service in its own process group, readiness waits, stopping a whole group.
- ``ports``, ``probes``, ``cloud_sdk``, ``watchdog``: their helpers.

Nothing is imported here, so ``python -m hedera_history.localstack.watchdog`` stays cheap.
"""
