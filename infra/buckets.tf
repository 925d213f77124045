locals {
  # A followed bucket (follow.tf), an existing one, or the one created below.
  stream_bucket = local.following ? var.follow_source : (
    var.existing_stream_bucket != "" ? var.existing_stream_bucket : google_storage_bucket.stream[0].name
  )
  # Eventarc Cloud Storage triggers live in the bucket's location.
  stream_bucket_region = lower(var.stream_bucket_location)
  address_book_url     = var.address_book_file != "" ? "gs://${google_storage_bucket.config.name}/${google_storage_bucket_object.address_book[0].name}" : lookup(var.settings, "address_book", "")
}

# What the nodes upload into (unless an existing bucket is read or a public one followed).
resource "google_storage_bucket" "stream" {
  count                       = var.existing_stream_bucket == "" && !local.following ? 1 : 0
  name                        = "${var.project}-${var.name_prefix}streams"
  location                    = var.stream_bucket_location
  uniform_bucket_level_access = true
  public_access_prevention    = "enforced"

  # Parts of an upload never finished are billed until aborted.
  lifecycle_rule {
    condition {
      age = var.incomplete_upload_days
    }
    action {
      type = "AbortIncompleteMultipartUpload"
    }
  }
}

# Copies of files that can never verify, with the reason recorded in the quarantine table.
resource "google_storage_bucket" "quarantine" {
  name                        = "${var.project}-${var.name_prefix}quarantine"
  location                    = var.stream_bucket_location
  uniform_bucket_level_access = true
  public_access_prevention    = "enforced"

  # Parts of an upload never finished are billed until aborted.
  lifecycle_rule {
    condition {
      age = var.incomplete_upload_days
    }
    action {
      type = "AbortIncompleteMultipartUpload"
    }
  }
}

# Configuration the functions read: the bootstrap address book.
resource "google_storage_bucket" "config" {
  name                        = "${var.project}-${var.name_prefix}config"
  location                    = var.region
  uniform_bucket_level_access = true
  public_access_prevention    = "enforced"

  # Parts of an upload never finished are billed until aborted.
  lifecycle_rule {
    condition {
      age = var.incomplete_upload_days
    }
    action {
      type = "AbortIncompleteMultipartUpload"
    }
  }
}

resource "google_storage_bucket_object" "address_book" {
  count        = var.address_book_file != "" ? 1 : 0
  bucket       = google_storage_bucket.config.name
  name         = "address-book/${filemd5(var.address_book_file)}.bin"
  source       = var.address_book_file
  content_type = "application/octet-stream"
}

# Built function sources (and the backfill job's files), written by deploys only. A new source has
# a new name (its MD5), so a deploy deletes the one it replaces: versioning keeps that one,
# noncurrent, for a rollback, and the rules below drop it after artifact_noncurrent_days or once
# artifact_noncurrent_versions newer ones exist.
resource "google_storage_bucket" "artifacts" {
  name                        = "${var.project}-${var.name_prefix}artifacts"
  location                    = var.region
  uniform_bucket_level_access = true
  public_access_prevention    = "enforced"

  versioning {
    enabled = true
  }

  lifecycle_rule {
    condition {
      days_since_noncurrent_time = var.artifact_noncurrent_days
      with_state                 = "ARCHIVED"
    }
    action {
      type = "Delete"
    }
  }

  lifecycle_rule {
    condition {
      num_newer_versions = var.artifact_noncurrent_versions
      with_state         = "ARCHIVED"
    }
    action {
      type = "Delete"
    }
  }

  # Parts of an upload never finished are billed until aborted.
  lifecycle_rule {
    condition {
      age = var.incomplete_upload_days
    }
    action {
      type = "AbortIncompleteMultipartUpload"
    }
  }
}

# What backfill batches stage and write while they run (the wheel, the job file, Spark's own files):
# the one bucket the backfill's identity may write, so it can touch no function source, template or
# bootstrap book.
resource "google_storage_bucket" "backfill_staging" {
  name                        = "${var.project}-${var.name_prefix}backfill-staging"
  location                    = var.region
  uniform_bucket_level_access = true
  public_access_prevention    = "enforced"

  # Everything here is temporary: a batch's files, then Spark's, deleted after backfill_staging_days
  # (a batch runs for hours, not weeks).
  lifecycle_rule {
    condition {
      age = var.backfill_staging_days
    }
    action {
      type = "Delete"
    }
  }

  # Parts of an upload never finished are billed until aborted.
  lifecycle_rule {
    condition {
      age = var.incomplete_upload_days
    }
    action {
      type = "AbortIncompleteMultipartUpload"
    }
  }
}
