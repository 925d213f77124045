"""Least privilege: every role granted in infra/ is one the table below says its identity needs,
on the resource it needs it on, and nothing else is granted. Bigtable is granted per table from the
tables each identity declares (tests/unit/deploy/test_table_grants.py)."""

from __future__ import annotations

import pytest
from hedera_history.deploy.catalogue import FUNCTIONS, Trigger
from hedera_history.transport.topics import TOPICS, pipeline_subscriptions

from tests.unit.deploy.infra import expr, load_module

STREAM_READER = ("stream_bucket", "", "roles/storage.objectViewer")
ADDRESS_BOOK_READER = ("config_bucket", "", "roles/storage.objectViewer")
QUARANTINE_CREATOR = ("quarantine_bucket", "", "roles/storage.objectCreator")
BACKFILL_WORKER = ("project", "", "${local.backfill_worker_role}")

# identity -> (kind of resource, which one, role): why each is needed is in docs/deploy.md.
NEEDED: dict[str, set[tuple[str, str, str]]] = {
    "ingest": {
        STREAM_READER,
        ADDRESS_BOOK_READER,
        QUARANTINE_CREATOR,
        ("topic", "history", "roles/pubsub.publisher"),
        ("topic", "sidecars", "roles/pubsub.publisher"),
    },
    "store": {ADDRESS_BOOK_READER},
    # the bootstrap book every proof starts from
    "query": {ADDRESS_BOOK_READER},
    # The followed bucket is not ours: nothing is granted there (docs/follow.md).
    "follow": {
        ADDRESS_BOOK_READER,
        QUARANTINE_CREATOR,
        ("topic", "history", "roles/pubsub.publisher"),
        ("topic", "sidecars", "roles/pubsub.publisher"),
    },
    "backfill": {
        BACKFILL_WORKER,
        ("backfill_staging_bucket", "", "roles/storage.objectUser"),
        STREAM_READER,
        ADDRESS_BOOK_READER,
    },
    "builder": {
        ("project", "", "roles/logging.logWriter"),
        ("project", "", "roles/artifactregistry.writer"),
        ("artifacts_bucket", "", "roles/storage.objectViewer"),
    },
    "events": {("project", "", "roles/eventarc.eventReceiver"), ("function", "ingest", "roles/run.invoker")},
    "push": {("function", "store", "roles/run.invoker")},
    "scheduler": {("function", "sweep", "roles/run.invoker"), ("function", "follow", "roles/run.invoker")},
    "storage_agent": {("project", "", "roles/pubsub.publisher")},
    "pubsub_agent": {
        ("topic", "history-dead-letter", "roles/pubsub.publisher"),
        ("topic", "sidecars-dead-letter", "roles/pubsub.publisher"),
        ("subscription", "store-history", "roles/pubsub.subscriber"),
        ("subscription", "store-sidecars", "roles/pubsub.subscriber"),
    },
}
# The sweep retries periods exactly as ingest does, and sends held dead letters back to their topics.
NEEDED["sweep"] = NEEDED["ingest"] | {
    ("subscription", "history-dead-letter-hold", "roles/pubsub.subscriber"),
    ("subscription", "sidecars-dead-letter-hold", "roles/pubsub.subscriber"),
}

# The IAM resources of infra/ and the roles they may grant: the grants table, or one literal role.
IAM_RESOURCES = {
    ("google_project_iam_member", "grant"): "each.value.role",
    ("google_project_iam_member", "requester_pays"): "roles/serviceusage.serviceUsageConsumer",
    ("google_bigtable_table_iam_member", "grant"): "each.value.role",
    ("google_storage_bucket_iam_member", "grant"): "each.value.role",
    ("google_pubsub_topic_iam_member", "grant"): "each.value.role",
    ("google_pubsub_subscription_iam_member", "grant"): "each.value.role",
    ("google_cloud_run_service_iam_member", "grant"): "each.value.role",
    ("google_cloud_run_service_iam_member", "query_invoker"): "roles/run.invoker",
    ("google_secret_manager_secret_iam_member", "follow_aws"): "roles/secretmanager.secretAccessor",
    # Backfill batches pull their container image (artifact_registry.tf), from that one repository.
    ("google_artifact_registry_repository_iam_member", "backfill_pull"): "roles/artifactregistry.reader",
}


@pytest.fixture(scope="module")
def root():
    return load_module()


def granted(root) -> dict[str, set[tuple[str, str, str]]]:
    table: dict[str, set[tuple[str, str, str]]] = {}
    for grant in root.locals["grants"]:
        table.setdefault(grant["identity"], set()).add((grant["on"], grant["target"], grant["role"]))
    return table


def test_every_identity_gets_exactly_the_roles_it_needs(root):
    assert granted(root) == NEEDED


def test_no_identity_is_granted_a_basic_or_admin_role(root):
    roles = {role for grants in granted(root).values() for _, _, role in grants}
    assert not {role for role in roles if role in ("roles/owner", "roles/editor", "roles/viewer")}
    assert not {role for role in roles if role.endswith(".admin") or role.endswith("Admin")}


def test_the_only_iam_resources_are_the_known_ones(root):
    found = {
        (type_, name): expr(body["role"])
        for type_, name, body in root.all_resources()
        if type_.endswith(("_iam_member", "_iam_binding", "_iam_policy"))
    }
    assert found == IAM_RESOURCES
    custom_roles = [name for type_, name, _ in root.all_resources() if type_ == "google_project_iam_custom_role"]
    assert custom_roles == ["backfill_worker"]
    assert not [type_ for type_, _, _ in root.all_resources() if type_.endswith(("_iam_binding", "_iam_policy"))]


def test_grants_name_real_topics_subscriptions_and_functions(root):
    subscriptions = {spec.name for spec in pipeline_subscriptions("https://store.example")}
    functions = {spec.name: spec.trigger for spec in FUNCTIONS}
    for grant in root.locals["grants"]:
        if grant["on"] == "topic":
            assert grant["target"] in TOPICS
        elif grant["on"] == "subscription":
            assert grant["target"] in subscriptions
        elif grant["on"] == "function":
            assert grant["target"] in functions
        else:
            assert grant["target"] == ""


def test_each_caller_may_invoke_only_the_functions_of_its_trigger(root):
    callers = {"events": Trigger.STORAGE_FINALIZED, "push": Trigger.PUBSUB_PUSH, "scheduler": Trigger.SCHEDULED_HTTP}
    for caller, trigger in callers.items():
        invokes = {target for on, target, _ in granted(root)[caller] if on == "function"}
        assert invokes == {spec.name for spec in FUNCTIONS if spec.trigger is trigger}, caller


def test_dead_letters_are_forwarded_for_every_subscription_that_has_them(root):
    agent = granted(root)["pubsub_agent"]
    for spec in pipeline_subscriptions("https://store.example"):
        if spec.dead_letter_topic:
            assert ("topic", spec.dead_letter_topic, "roles/pubsub.publisher") in agent
            assert ("subscription", spec.name, "roles/pubsub.subscriber") in agent


def test_publishers_may_publish_to_every_topic_the_store_consumes(root):
    consumed = {spec.topic for spec in pipeline_subscriptions("https://store.example") if spec.push_endpoint}
    for identity in ("ingest", "sweep"):
        published = {target for on, target, _ in granted(root)[identity] if on == "topic"}
        assert published == consumed


def test_requester_pays_billing_goes_only_to_the_stream_readers(root):
    readers = {identity for identity, grants in NEEDED.items() if STREAM_READER in grants}
    # and to the follower, which reads a bucket that is not ours
    assert set(root.locals["requester_pays_readers"]) == readers | {"follow"}


def test_no_identity_holds_anything_on_the_bigtable_instance(root):
    assert not [grant for grant in root.locals["grants"] if "bigtable" in grant["on"] or "bigtable" in grant["role"]]
    assert not [type_ for type_, _, _ in root.all_resources() if type_.startswith("google_bigtable_instance_iam")]


def test_quarantine_copies_can_be_created_but_never_replaced_or_deleted(root):
    on_quarantine = {
        (grant["identity"], grant["role"]) for grant in root.locals["grants"] if "quarantine" in grant["on"]
    }
    assert on_quarantine == {
        ("ingest", "roles/storage.objectCreator"),
        ("sweep", "roles/storage.objectCreator"),
        ("follow", "roles/storage.objectCreator"),
    }


def test_the_backfill_writes_no_bucket_but_its_staging_bucket(root):
    backfill = granted(root)["backfill"]
    written = {on for on, _, role in backfill if role not in ("roles/storage.objectViewer",) and on.endswith("bucket")}
    assert written == {"backfill_staging_bucket"}
    assert not [
        grant
        for grant in root.locals["grants"]
        if grant["on"] == "backfill_staging_bucket" and grant["identity"] != "backfill"
    ]
    # Its one project-wide role is the worker role without Cloud Storage object access.
    project_roles = {role for on, _, role in backfill if on == "project"}
    assert project_roles == {BACKFILL_WORKER[2]}
    assert root.locals["backfill_worker_role"].endswith(
        "/roles/${google_project_iam_custom_role.backfill_worker.role_id}"
    )


def test_the_backfill_worker_role_is_the_dataproc_worker_without_object_access(root):
    role = root.resource("google_project_iam_custom_role", "backfill_worker")
    permissions = set(role["permissions"])
    # What Dataproc checks a batch identity for (its error names exactly these when one is missing).
    assert {
        "dataproc.agents.create",
        "dataproc.agents.delete",
        "dataproc.agents.get",
        "dataproc.agents.update",
        "dataproc.tasks.lease",
        "dataproc.tasks.listInvalidatedLeases",
        "dataproc.tasks.reportStatus",
    } <= permissions
    assert not [
        p for p in permissions if p.startswith(("storage.objects.", "storage.folders.", "storage.managedFolders."))
    ]
    assert not [p for p in permissions if p.endswith(("setIamPolicy", ".actAs"))]
    # The grant of a custom role waits for the role.
    grant = root.resource("google_project_iam_member", "grant")
    assert "${google_project_iam_custom_role.backfill_worker}" in grant["depends_on"]


def test_the_batch_stages_into_the_backfill_staging_bucket(root):
    batch = root.locals["backfill_batch"]
    execution = str(batch)
    assert 'google_storage_bucket.bucket["backfill_staging"].name' in execution
    assert 'google_storage_bucket.bucket["artifacts"]' not in execution
    staging_url = root.modules["contract"]["setting_values"]
    assert 'google_storage_bucket.bucket["backfill_staging"].name' in str(staging_url)
    assert 'google_storage_bucket.bucket["artifacts"].name}/backfill' not in str(staging_url)


def test_the_query_api_is_private_unless_an_environment_opens_it(root):
    assert root.variables["query_public"]["default"] is False
    assert root.variables["query_invokers"]["default"] == []
