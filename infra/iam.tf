# One service account per function and per caller, each granted only what the table below lists,
# on the single resource that needs it. tests/unit/deploy/test_iam.py holds the same table.

locals {
  identities = {
    ingest    = "ingest function: reads uploads, verifies, publishes rows, quarantines"
    sweep     = "sweep function: retries pending periods like ingest"
    store     = "store function: writes pushed rows into Bigtable"
    query     = "query function: reads Bigtable"
    backfill  = "backfill batches on Dataproc Serverless"
    builder   = "Cloud Build of the function sources"
    events    = "Eventarc trigger: delivers stream uploads to ingest"
    push      = "Pub/Sub push: delivers rows to store"
    scheduler = "Cloud Scheduler: calls sweep"
  }

  # identity, kind of resource, which one (topic, subscription or function name), role
  grants = [
    { identity = "ingest", on = "bigtable_instance", target = "", role = "roles/bigtable.user" },
    { identity = "ingest", on = "stream_bucket", target = "", role = "roles/storage.objectViewer" },
    { identity = "ingest", on = "config_bucket", target = "", role = "roles/storage.objectViewer" },
    { identity = "ingest", on = "quarantine_bucket", target = "", role = "roles/storage.objectUser" },
    { identity = "ingest", on = "topic", target = "history", role = "roles/pubsub.publisher" },
    { identity = "ingest", on = "topic", target = "sidecars", role = "roles/pubsub.publisher" },

    { identity = "sweep", on = "bigtable_instance", target = "", role = "roles/bigtable.user" },
    { identity = "sweep", on = "stream_bucket", target = "", role = "roles/storage.objectViewer" },
    { identity = "sweep", on = "config_bucket", target = "", role = "roles/storage.objectViewer" },
    { identity = "sweep", on = "quarantine_bucket", target = "", role = "roles/storage.objectUser" },
    { identity = "sweep", on = "topic", target = "history", role = "roles/pubsub.publisher" },
    { identity = "sweep", on = "topic", target = "sidecars", role = "roles/pubsub.publisher" },

    { identity = "store", on = "bigtable_instance", target = "", role = "roles/bigtable.user" },
    { identity = "store", on = "config_bucket", target = "", role = "roles/storage.objectViewer" },

    { identity = "query", on = "bigtable_instance", target = "", role = "roles/bigtable.reader" },

    # dataproc.worker is what Dataproc requires of a batch's identity; it includes object access
    # to this project's buckets (staging, job files, config).
    { identity = "backfill", on = "project", target = "", role = "roles/dataproc.worker" },
    { identity = "backfill", on = "bigtable_instance", target = "", role = "roles/bigtable.user" },
    { identity = "backfill", on = "stream_bucket", target = "", role = "roles/storage.objectViewer" },

    { identity = "builder", on = "project", target = "", role = "roles/logging.logWriter" },
    { identity = "builder", on = "project", target = "", role = "roles/artifactregistry.writer" },
    { identity = "builder", on = "artifacts_bucket", target = "", role = "roles/storage.objectViewer" },

    { identity = "events", on = "project", target = "", role = "roles/eventarc.eventReceiver" },
    { identity = "events", on = "function", target = "ingest", role = "roles/run.invoker" },
    { identity = "push", on = "function", target = "store", role = "roles/run.invoker" },
    { identity = "scheduler", on = "function", target = "sweep", role = "roles/run.invoker" },

    # Google's service agents: Cloud Storage publishes the events Eventarc delivers; Pub/Sub
    # forwards undeliverable messages to the dead-letter topics.
    { identity = "storage_agent", on = "project", target = "", role = "roles/pubsub.publisher" },
    { identity = "pubsub_agent", on = "topic", target = "history-dead-letter", role = "roles/pubsub.publisher" },
    { identity = "pubsub_agent", on = "topic", target = "sidecars-dead-letter", role = "roles/pubsub.publisher" },
    { identity = "pubsub_agent", on = "subscription", target = "store-history", role = "roles/pubsub.subscriber" },
    { identity = "pubsub_agent", on = "subscription", target = "store-sidecars", role = "roles/pubsub.subscriber" },
  ]

  # Reading a requester-pays bucket bills this project, which needs serviceusage.services.use.
  requester_pays_readers = ["ingest", "sweep", "backfill"]

  members = merge(
    { for name, account in google_service_account.identity : name => "serviceAccount:${account.email}" },
    {
      storage_agent = "serviceAccount:${data.google_storage_project_service_account.gcs.email_address}"
      pubsub_agent  = "serviceAccount:service-${data.google_project.this.number}@gcp-sa-pubsub.iam.gserviceaccount.com"
    },
  )

  buckets = {
    stream_bucket     = local.stream_bucket
    quarantine_bucket = google_storage_bucket.quarantine.name
    config_bucket     = google_storage_bucket.config.name
    artifacts_bucket  = google_storage_bucket.artifacts.name
  }

  grants_by_key = {
    for grant in local.grants : "${grant.identity} ${grant.on} ${grant.target} ${grant.role}" => grant
    if grant.on != "stream_bucket" || var.stream_bucket_iam
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
}

resource "google_project_iam_member" "requester_pays" {
  for_each = var.requester_pays_project == "" ? toset([]) : toset(local.requester_pays_readers)

  project = var.requester_pays_project
  role    = "roles/serviceusage.serviceUsageConsumer"
  member  = local.members[each.key]
}

resource "google_bigtable_instance_iam_member" "grant" {
  for_each = { for key, grant in local.grants_by_key : key => grant if grant.on == "bigtable_instance" }

  instance = google_bigtable_instance.history.name
  role     = each.value.role
  member   = local.members[each.value.identity]
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
