"""The local stack: emulators for Bigtable, Pub/Sub, GCS and S3 on loopback, and their prerequisites.

- ``prerequisites``: what this machine needs (Python, Java, the Cloud CLI and its emulator
  components) and the exact command that installs what is missing (``hedera-history doctor``).
- ``emulators``: ``BigtableEmulator``, ``PubSubEmulator``, ``GcsEmulator``, ``S3Emulator``.
- ``processes``: a service in its own process group, readiness waits, stopping a whole group.
- ``ports``, ``probes``, ``cloud_sdk``, ``watchdog``: their helpers.
- ``stack``: ``LocalStack``, the whole pipeline on loopback (docs/local-stack.md): ``provision``
  (tables, topics, buckets), ``function_process`` (each function under functions-framework),
  ``gcs_events`` (bucket uploads as Eventarc CloudEvents), ``scheduler`` (the sweep's clock),
  ``bridges`` (those two and the Pub/Sub push bridges), ``stack_state`` (the state file),
  ``upload`` / ``progress`` (``stack upload`` / ``wait`` / ``status``), ``scoped_env``.

Nothing is imported here, so ``python -m hedera_history.localstack.watchdog`` stays cheap.
"""
