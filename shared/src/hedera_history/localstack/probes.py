"""Readiness probes: one real, cheap client call per service, answered within a short timeout.

A listening socket is not enough (the JVM of the Pub/Sub emulator accepts connections before its
services answer), so each probe makes the call a client would make, with retries disabled so the
caller's own polling loop decides how long to wait. Each probe returns False while the service
does not answer yet and never raises for that. Client libraries are imported inside each probe,
so a caller pays only for the services it starts.
"""

# ruff: noqa: PLC0415  (imports inside the probes on purpose, see above)

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hedera_history.localstack.ports import accepts_connections

PROBE_TIMEOUT_SECONDS = 2.0
PROBE_PROJECT = "readiness-probe"


def bigtable_answers(host: str, port: int) -> bool:
    """The emulator lists the tables of an (empty) instance."""
    from google.cloud.bigtable_admin_v2 import BigtableTableAdminClient
    from google.cloud.bigtable_admin_v2.services.bigtable_table_admin.transports import (
        BigtableTableAdminGrpcTransport,
    )

    def list_tables(channel: Any) -> object:
        client = BigtableTableAdminClient(transport=BigtableTableAdminGrpcTransport(channel=channel))
        parent = f"projects/{PROBE_PROJECT}/instances/{PROBE_PROJECT}"
        return list(client.list_tables(parent=parent, retry=None, timeout=PROBE_TIMEOUT_SECONDS))

    return _grpc_answers(host, port, list_tables)


def pubsub_answers(host: str, port: int) -> bool:
    """The emulator lists the topics of a project."""
    from google.pubsub_v1 import PublisherClient
    from google.pubsub_v1.services.publisher.transports import PublisherGrpcTransport

    def list_topics(channel: Any) -> object:
        client = PublisherClient(transport=PublisherGrpcTransport(channel=channel))
        return list(client.list_topics(project=f"projects/{PROBE_PROJECT}", retry=None, timeout=PROBE_TIMEOUT_SECONDS))

    return _grpc_answers(host, port, list_topics)


def _grpc_answers(host: str, port: int, call: Callable[[Any], object]) -> bool:
    """``call`` with a channel to the emulator at ``host:port``, once it accepts connections."""
    if not accepts_connections(host, port):
        return False
    import grpc
    from google.api_core.exceptions import GoogleAPIError

    channel = grpc.insecure_channel(f"{host}:{port}")
    return _answers(lambda: call(channel), (GoogleAPIError,), channel.close)


def gcs_answers(endpoint: str, host: str, port: int) -> bool:
    """The emulator lists buckets through the official storage client."""
    if not accepts_connections(host, port):
        return False
    from google.api_core.exceptions import GoogleAPIError
    from google.auth.credentials import AnonymousCredentials
    from google.cloud import storage
    from requests.exceptions import RequestException

    client = storage.Client(
        project=PROBE_PROJECT,
        credentials=AnonymousCredentials(),  # type: ignore[no-untyped-call]
        client_options={"api_endpoint": endpoint},
    )
    return _answers(
        lambda: list(client.list_buckets(retry=None, timeout=PROBE_TIMEOUT_SECONDS)),
        (GoogleAPIError, RequestException),
        client.close,
    )


def s3_answers(endpoint_url: str, host: str, port: int) -> bool:
    """The moto server lists buckets through boto3."""
    if not accepts_connections(host, port):
        return False
    import boto3
    from botocore.config import Config as BotoConfig
    from botocore.exceptions import BotoCoreError, ClientError

    client = boto3.client(
        "s3",
        endpoint_url=endpoint_url,
        region_name="us-east-1",
        aws_access_key_id="probe",
        aws_secret_access_key="probe",
        config=BotoConfig(
            retries={"max_attempts": 1, "mode": "standard"},
            connect_timeout=PROBE_TIMEOUT_SECONDS,
            read_timeout=PROBE_TIMEOUT_SECONDS,
        ),
    )
    return _answers(client.list_buckets, (BotoCoreError, ClientError), client.close)


def _answers(call: Callable[[], object], failures: tuple[type[Exception], ...], close: Callable[[], None]) -> bool:
    """True when ``call`` returns, False when it fails with one of ``failures`` (the service does
    not answer yet); ``close`` runs either way."""
    try:
        call()
    except failures:
        return False
    finally:
        close()
    return True
