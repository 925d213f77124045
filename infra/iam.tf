# One service account per function and per caller, each granted only what the table below lists,
# on the single resource that needs it. tests/unit/deploy/test_iam.py holds the same table.
# Bigtable is granted table by table from the code's declarations (module.contract.table_grants,
# from infra/generated/tables.json): bigtable.user where an identity writes, bigtable.reader where
# it only reads, nothing on the instance.

locals {
  identities = {
    ingest    = "ingest function: reads uploads, verifies, publishes rows, quarantines"
    sweep     = "sweep function: retries pending periods like ingest"
    follow    = "follow function: follows a public bucket, verifies, publishes rows"
    store     = "store function: writes pushed rows into Bigtable"
    query     = "query function: reads Bigtable"
    backfill  = "backfill batches on Dataproc Serverless"
    builder   = "Cloud Build of the function sources"
    events    = "Eventarc trigger: delivers stream uploads to ingest"
    push      = "Pub/Sub push: delivers rows to store"
    scheduler = "Cloud Scheduler: calls sweep and follow"
  }

  # identity, kind of resource, which one (topic, subscription or function name), role
  grants = [
    { identity = "ingest", on = "stream_bucket", target = "", role = "roles/storage.objectViewer" },
    { identity = "ingest", on = "config_bucket", target = "", role = "roles/storage.objectViewer" },
    # Create only: a quarantined copy is never replaced or deleted (sources.base.ObjectSink.create).
    { identity = "ingest", on = "quarantine_bucket", target = "", role = "roles/storage.objectCreator" },
    { identity = "ingest", on = "topic", target = "history", role = "roles/pubsub.publisher" },
    { identity = "ingest", on = "topic", target = "sidecars", role = "roles/pubsub.publisher" },

    { identity = "sweep", on = "stream_bucket", target = "", role = "roles/storage.objectViewer" },
    { identity = "sweep", on = "config_bucket", target = "", role = "roles/storage.objectViewer" },
    { identity = "sweep", on = "quarantine_bucket", target = "", role = "roles/storage.objectCreator" },
    { identity = "sweep", on = "topic", target = "history", role = "roles/pubsub.publisher" },
    { identity = "sweep", on = "topic", target = "sidecars", role = "roles/pubsub.publisher" },
    # The sweep sends dead letters back to history / sidecars (pull, acknowledge, keep on the holds).
    { identity = "sweep", on = "subscription", target = "history-dead-letter-hold", role = "roles/pubsub.subscriber" },
    { identity = "sweep", on = "subscription", target = "sidecars-dead-letter-hold", role = "roles/pubsub.subscriber" },

    # The follower verifies and publishes as ingest does; the bucket it follows is not ours (nothing
    # granted there: it is read as a public requester-pays bucket, billed through requester_pays).
    { identity = "follow", on = "config_bucket", target = "", role = "roles/storage.objectViewer" },
    { identity = "follow", on = "quarantine_bucket", target = "", role = "roles/storage.objectCreator" },
    { identity = "follow", on = "topic", target = "history", role = "roles/pubsub.publisher" },
    { identity = "follow", on = "topic", target = "sidecars", role = "roles/pubsub.publisher" },

    { identity = "store", on = "config_bucket", target = "", role = "roles/storage.objectViewer" },
    # Proofs start from the bootstrap book (GET /api/v1/blocks/{n}/proof, .../stateproof).
    { identity = "query", on = "config_bucket", target = "", role = "roles/storage.objectViewer" },

    # What Dataproc requires of a batch's identity is roles/dataproc.worker, whose storage.objects.*
    # would reach every bucket of the project (function sources, the bootstrap book): the custom
    # role below is that role without them, and the backfill writes only its staging bucket.
    { identity = "backfill", on = "project", target = "", role = local.backfill_worker_role },
    { identity = "backfill", on = "backfill_staging_bucket", target = "", role = "roles/storage.objectUser" },
    { identity = "backfill", on = "stream_bucket", target = "", role = "roles/storage.objectViewer" },
    { identity = "backfill", on = "config_bucket", target = "", role = "roles/storage.objectViewer" },

    { identity = "builder", on = "project", target = "", role = "roles/logging.logWriter" },
    { identity = "builder", on = "project", target = "", role = "roles/artifactregistry.writer" },
    { identity = "builder", on = "artifacts_bucket", target = "", role = "roles/storage.objectViewer" },

    { identity = "events", on = "project", target = "", role = "roles/eventarc.eventReceiver" },
    { identity = "events", on = "function", target = "ingest", role = "roles/run.invoker" },
    { identity = "push", on = "function", target = "store", role = "roles/run.invoker" },
    { identity = "scheduler", on = "function", target = "sweep", role = "roles/run.invoker" },
    { identity = "scheduler", on = "function", target = "follow", role = "roles/run.invoker" },

    # Google's service agents: Cloud Storage publishes the events Eventarc delivers; Pub/Sub
    # forwards undeliverable messages to the dead-letter topics.
    { identity = "storage_agent", on = "project", target = "", role = "roles/pubsub.publisher" },
    { identity = "pubsub_agent", on = "topic", target = "history-dead-letter", role = "roles/pubsub.publisher" },
    { identity = "pubsub_agent", on = "topic", target = "sidecars-dead-letter", role = "roles/pubsub.publisher" },
    { identity = "pubsub_agent", on = "subscription", target = "store-history", role = "roles/pubsub.subscriber" },
    { identity = "pubsub_agent", on = "subscription", target = "store-sidecars", role = "roles/pubsub.subscriber" },
  ]

  # Reading a requester-pays bucket bills this project, which needs serviceusage.services.use.
  requester_pays_readers = ["ingest", "sweep", "backfill", "follow"]

  members = merge(
    { for name, account in google_service_account.identity : name => "serviceAccount:${account.email}" },
    {
      storage_agent = "serviceAccount:${data.google_storage_project_service_account.gcs.email_address}"
      pubsub_agent  = "serviceAccount:service-${data.google_project.this.number}@gcp-sa-pubsub.iam.gserviceaccount.com"
    },
  )

  buckets = {
    stream_bucket           = local.stream_bucket
    quarantine_bucket       = google_storage_bucket.bucket["quarantine"].name
    config_bucket           = google_storage_bucket.bucket["config"].name
    artifacts_bucket        = google_storage_bucket.bucket["artifacts"].name
    backfill_staging_bucket = google_storage_bucket.bucket["backfill_staging"].name
  }

  # Known at plan time (a grant's key contains it); the role exists before any grant of it.
  backfill_worker_role = "projects/${var.project}/roles/${google_project_iam_custom_role.backfill_worker.role_id}"

  grants_by_key = {
    for grant in local.grants : "${grant.identity} ${grant.on} ${grant.target} ${grant.role}" => grant
    # nothing for an idle identity or on an idle function, nothing on a followed bucket (not ours)
    if !contains(local.idle_identities, grant.identity)
    && !(grant.on == "function" && contains(local.idle_identities, grant.target))
    && (grant.on != "stream_bucket" || (var.stream_bucket_iam && !local.following))
  }
}

data "google_storage_project_service_account" "gcs" {
  project = var.project
}

resource "google_service_account" "identity" {
  for_each = local.identities

  account_id   = "${var.name_prefix}${each.key}"
  display_name = "hedera-history ${each.value}"
}

resource "google_project_iam_member" "grant" {
  for_each = { for key, grant in local.grants_by_key : key => grant if grant.on == "project" }

  project = var.project
  role    = each.value.role
  member  = local.members[each.value.identity]

  depends_on = [google_project_iam_custom_role.backfill_worker]
}

# roles/dataproc.worker without its storage.objects.* (create, delete, get, list, update on every
# bucket of the project). Dataproc checks a batch identity for the worker role's dataproc.agents.*
# and dataproc.tasks.* ("the Dataproc Worker role or all permissions granted by the role"); the
# rest is what the role grants for logs, metrics and the Serverless node, as published in
# https://cloud.google.com/iam/docs/roles-permissions/dataproc#dataproc.worker.
resource "google_project_iam_custom_role" "backfill_worker" {
  project     = var.project
  role_id     = "${replace(var.name_prefix, "-", "_")}backfill_worker"
  title       = "hedera-history backfill worker"
  description = "Dataproc Worker without project-wide Cloud Storage object access."
  permissions = [
    "dataproc.agents.create",
    "dataproc.agents.delete",
    "dataproc.agents.get",
    "dataproc.agents.list",
    "dataproc.agents.update",
    "dataproc.batches.sparkApplicationWrite",
    "dataproc.tasks.lease",
    "dataproc.tasks.listInvalidatedLeases",
    "dataproc.tasks.reportStatus",
    "dataprocrm.nodePools.create",
    "dataprocrm.nodePools.delete",
    "dataprocrm.nodePools.deleteNodes",
    "dataprocrm.nodePools.get",
    "dataprocrm.nodePools.list",
    "dataprocrm.nodePools.resize",
    "dataprocrm.nodes.get",
    "dataprocrm.nodes.heartbeat",
    "dataprocrm.nodes.list",
    "dataprocrm.nodes.mintOAuthToken",
    "dataprocrm.operations.get",
    "logging.logEntries.create",
    "monitoring.metricDescriptors.create",
    "monitoring.metricDescriptors.get",
    "monitoring.metricDescriptors.list",
    "monitoring.monitoredResourceDescriptors.get",
    "monitoring.monitoredResourceDescriptors.list",
    "monitoring.timeSeries.create",
    "storage.buckets.get",
  ]
}

resource "google_project_iam_member" "requester_pays" {
  for_each = local.requester_pays_project == "" ? toset([]) : toset([
    for identity in local.requester_pays_readers : identity if !contains(local.idle_identities, identity)
  ])

  project = local.requester_pays_project
  role    = "roles/serviceusage.serviceUsageConsumer"
  member  = local.members[each.key]
}

resource "google_bigtable_table_iam_member" "grant" {
  for_each = { for key, grant in module.contract.table_grants : key => grant if !contains(local.idle_identities, grant.identity) }

  instance_name = google_bigtable_instance.history.name
  table         = google_bigtable_table.table[each.value.table].name
  role          = each.value.role
  member        = local.members[each.value.identity]
}

resource "google_storage_bucket_iam_member" "grant" {
  for_each = { for key, grant in local.grants_by_key : key => grant if contains(keys(local.buckets), grant.on) }

  bucket = local.buckets[each.value.on]
  role   = each.value.role
  member = local.members[each.value.identity]
}

resource "google_pubsub_topic_iam_member" "grant" {
  for_each = { for key, grant in local.grants_by_key : key => grant if grant.on == "topic" }

  topic  = google_pubsub_topic.pipeline[each.value.target].name
  role   = each.value.role
  member = local.members[each.value.identity]
}

resource "google_pubsub_subscription_iam_member" "grant" {
  for_each = { for key, grant in local.grants_by_key : key => grant if grant.on == "subscription" }

  subscription = google_pubsub_subscription.pipeline[each.value.target].name
  role         = each.value.role
  member       = local.members[each.value.identity]
}

# A gen2 function is invoked through its Cloud Run service, which carries its name.
resource "google_cloud_run_service_iam_member" "grant" {
  for_each = { for key, grant in local.grants_by_key : key => grant if grant.on == "function" }

  location = var.region
  service  = google_cloudfunctions2_function.function[each.value.target].name
  role     = each.value.role
  member   = local.members[each.value.identity]
}

resource "google_cloud_run_service_iam_member" "query_invoker" {
  for_each = toset(concat(var.query_invokers, var.query_public ? ["allUsers"] : []))

  location = var.region
  service  = google_cloudfunctions2_function.function["query"].name
  role     = "roles/run.invoker"
  member   = each.value
}
