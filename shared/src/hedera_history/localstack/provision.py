"""Create what the pipeline expects to exist on the emulators: buckets, tables, topics, subscriptions.

Each step is idempotent, so provisioning a stack attached to emulators that already hold other
stacks' resources only adds this stack's (unique names keep them apart).
"""

# ruff: noqa: PLC0415  (each client library is imported by the step that needs it)

from __future__ import annotations

from collections.abc import Iterable

from hedera_history.config import Settings
from hedera_history.errors import SourceError
from hedera_history.localstack.scoped_env import scoped_environ


def create_s3_bucket(endpoint_url: str, name: str) -> None:
    """Create bucket ``name`` on the S3 server at ``endpoint_url`` (the stack's moto) unless it exists."""
    import boto3
    from botocore.exceptions import BotoCoreError, ClientError

    from hedera_history.localstack.emulators import S3_TEST_CREDENTIALS

    client = boto3.client(
        "s3",
        endpoint_url=endpoint_url,
        region_name=S3_TEST_CREDENTIALS["AWS_DEFAULT_REGION"],
        aws_access_key_id=S3_TEST_CREDENTIALS["AWS_ACCESS_KEY_ID"],
        aws_secret_access_key=S3_TEST_CREDENTIALS["AWS_SECRET_ACCESS_KEY"],
    )
    try:
        client.create_bucket(Bucket=name)
    except ClientError as e:
        if e.response.get("Error", {}).get("Code") not in ("BucketAlreadyOwnedByYou", "BucketAlreadyExists"):
            raise SourceError(f"cannot create bucket {name} on {endpoint_url}: {e}") from e
    except BotoCoreError as e:
        raise SourceError(f"cannot create bucket {name} on {endpoint_url}: {e}") from e
    finally:
        client.close()


def create_buckets(storage_endpoint: str, project: str, names: Iterable[str]) -> None:
    """Create each bucket on the GCS emulator unless it exists."""
    from google.api_core.exceptions import Conflict, GoogleAPIError
    from google.auth.credentials import AnonymousCredentials
    from google.cloud import storage

    client = storage.Client(
        project=project,
        credentials=AnonymousCredentials(),  # type: ignore[no-untyped-call]
        client_options={"api_endpoint": storage_endpoint},
    )
    try:
        for name in names:
            try:
                client.create_bucket(name)
            except Conflict:
                continue
            except GoogleAPIError as e:
                raise SourceError(f"cannot create bucket {name} on {storage_endpoint}: {e}") from e
    finally:
        client.close()


def create_tables(settings: Settings, bigtable_host: str) -> None:
    """Every declared table with its families and GC rules, in ``settings``' instance.

    The admin client is created with the emulator's address set only for this call.
    """
    from hedera_history.store.bigtable_client import open_admin_instance
    from hedera_history.store.schema import ensure_tables

    with scoped_environ({"BIGTABLE_EMULATOR_HOST": bigtable_host}):
        instance = open_admin_instance(settings.with_(bigtable_emulator_host=""))
    ensure_tables(instance, settings)


def create_topics(project: str, pubsub_host: str, prefix: str) -> None:
    """The pipeline's topics, and its subscriptions as the push bridge reads them (pull, the
    redeliveries spaced by the bridge: ``topics.bridged_subscriptions``)."""
    from hedera_history.transport.admin import ensure_topics
    from hedera_history.transport.topics import TOPICS, bridged_subscriptions

    ensure_topics(project, TOPICS, bridged_subscriptions(), prefix=prefix, emulator_host=pubsub_host)
