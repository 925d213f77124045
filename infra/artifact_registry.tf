# The backfill's container image (backfill/Dockerfile): Cloud Build pushes it here
# (infra/scripts/backfill-image.sh names it the same way), tagged with each commit and the branch it
# was built from; Dataproc Serverless batches run it (dataproc.tf, `hedera-history backfill submit`).

variable "backfill_image_tag" {
  description = "Tag of the backfill image batches run: a commit, or a branch name (the newest build of that branch)."
  type        = string
  default     = "main"
}

resource "google_artifact_registry_repository" "backfill" {
  project       = var.project
  location      = var.region
  repository_id = "${var.name_prefix}backfill"
  format        = "DOCKER"
  description   = "Container images of the hedera-history backfill (Dataproc Serverless)."

  # Every commit pushes an image: keep the newest ones (a branch tag always points at one of them),
  # drop the rest after 90 days.
  cleanup_policies {
    id     = "keep-newest"
    action = "KEEP"
    most_recent_versions {
      keep_count = 20
    }
  }
  cleanup_policies {
    id     = "drop-old"
    action = "DELETE"
    condition {
      tag_state  = "ANY"
      older_than = "7776000s"
    }
  }

  depends_on = [google_project_service.api]
}

# Batches pull the image as their own identity.
resource "google_artifact_registry_repository_iam_member" "backfill_pull" {
  project    = var.project
  location   = google_artifact_registry_repository.backfill.location
  repository = google_artifact_registry_repository.backfill.name
  role       = "roles/artifactregistry.reader"
  member     = "serviceAccount:${google_service_account.identity["backfill"].email}"
}

locals {
  backfill_image_repository = "${var.region}-docker.pkg.dev/${var.project}/${google_artifact_registry_repository.backfill.repository_id}/backfill"
  backfill_container_image  = var.dataproc_container_image != "" ? var.dataproc_container_image : "${local.backfill_image_repository}:${var.backfill_image_tag}"
}

output "backfill_image_repository" {
  description = "Where Cloud Build pushes the backfill image (HEDERA_HISTORY_DATAPROC_IMAGE_REPOSITORY of `backfill submit`)."
  value       = local.backfill_image_repository
}
