locals {
  # A followed bucket (follow.tf), an existing one, or the one created below.
  creates_stream_bucket = var.existing_stream_bucket == "" && !local.following
  stream_bucket = local.following ? var.follow_source : (
    var.existing_stream_bucket != "" ? var.existing_stream_bucket : google_storage_bucket.bucket["stream"].name
  )
  # Eventarc Cloud Storage triggers live in the bucket's location.
  stream_bucket_region = lower(var.stream_bucket_location)
  address_book_url     = var.address_book_file != "" ? "gs://${google_storage_bucket.bucket["config"].name}/${google_storage_bucket_object.address_book[0].name}" : lookup(var.settings, "address_book", "")

  # A lifecycle rule: what it does and the condition, every condition named (null where unused).
  deleted_after_days_noncurrent = {
    action = "Delete", age = null, days_since_noncurrent_time = var.artifact_noncurrent_days, num_newer_versions = null, with_state = "ARCHIVED"
  }
  deleted_under_newer_versions = {
    action = "Delete", age = null, days_since_noncurrent_time = null, num_newer_versions = var.artifact_noncurrent_versions, with_state = "ARCHIVED"
  }
  deleted_after_staging_days = {
    action = "Delete", age = var.backfill_staging_days, days_since_noncurrent_time = null, num_newer_versions = null, with_state = null
  }
  # Parts of an upload never finished are billed until aborted: every bucket aborts them.
  unfinished_uploads_aborted = {
    action = "AbortIncompleteMultipartUpload", age = var.incomplete_upload_days, days_since_noncurrent_time = null, num_newer_versions = null, with_state = null
  }

  # Every bucket the deployment creates, by role: its name after "<project>-<name_prefix>", where it
  # is, whether it keeps replaced objects, and its lifecycle rules. The history's own buckets
  # (stream, quarantine, config) never delete an object.
  created_buckets = {
    # What the nodes upload into (unless an existing bucket is read or a public one followed).
    stream = {
      name  = "streams", location = var.stream_bucket_location, versioned = false
      rules = [local.unfinished_uploads_aborted]
    }
    # Copies of files that can never verify, with the reason recorded in the quarantine table.
    quarantine = {
      name  = "quarantine", location = var.stream_bucket_location, versioned = false
      rules = [local.unfinished_uploads_aborted]
    }
    # Configuration the functions read: the bootstrap address book.
    config = {
      name  = "config", location = var.region, versioned = false
      rules = [local.unfinished_uploads_aborted]
    }
    # Built function sources (and the backfill job's files), written by deploys only. A new source
    # has a new name (its MD5), so a deploy deletes the one it replaces: versioning keeps that one,
    # noncurrent, for a rollback, and the rules drop it after artifact_noncurrent_days or once
    # artifact_noncurrent_versions newer ones exist.
    artifacts = {
      name  = "artifacts", location = var.region, versioned = true
      rules = [local.deleted_after_days_noncurrent, local.deleted_under_newer_versions, local.unfinished_uploads_aborted]
    }
    # What backfill batches stage and write while they run (the wheel, the job file, Spark's own
    # files): the one bucket the backfill's identity may write, so it can touch no function source,
    # template or bootstrap book. Everything here is temporary: a batch's files, then Spark's, deleted
    # after backfill_staging_days (a batch runs for hours, not weeks).
    backfill_staging = {
      name  = "backfill-staging", location = var.region, versioned = false
      rules = [local.deleted_after_staging_days, local.unfinished_uploads_aborted]
    }
  }
}

resource "google_storage_bucket" "bucket" {
  for_each = { for role, bucket in local.created_buckets : role => bucket if role != "stream" || local.creates_stream_bucket }

  name                        = "${var.project}-${var.name_prefix}${each.value.name}"
  location                    = each.value.location
  uniform_bucket_level_access = true
  public_access_prevention    = "enforced"

  dynamic "versioning" {
    for_each = each.value.versioned ? [true] : []
    content {
      enabled = versioning.value
    }
  }

  dynamic "lifecycle_rule" {
    for_each = each.value.rules
    content {
      condition {
        age                        = lifecycle_rule.value.age
        days_since_noncurrent_time = lifecycle_rule.value.days_since_noncurrent_time
        num_newer_versions         = lifecycle_rule.value.num_newer_versions
        with_state                 = lifecycle_rule.value.with_state
      }
      action {
        type = lifecycle_rule.value.action
      }
    }
  }
}

# Each bucket was a resource of its own before they shared one.
moved {
  from = google_storage_bucket.stream[0]
  to   = google_storage_bucket.bucket["stream"]
}
moved {
  from = google_storage_bucket.quarantine
  to   = google_storage_bucket.bucket["quarantine"]
}
moved {
  from = google_storage_bucket.config
  to   = google_storage_bucket.bucket["config"]
}
moved {
  from = google_storage_bucket.artifacts
  to   = google_storage_bucket.bucket["artifacts"]
}
moved {
  from = google_storage_bucket.backfill_staging
  to   = google_storage_bucket.bucket["backfill_staging"]
}

resource "google_storage_bucket_object" "address_book" {
  count        = var.address_book_file != "" ? 1 : 0
  bucket       = google_storage_bucket.bucket["config"].name
  name         = "address-book/${filemd5(var.address_book_file)}.bin"
  source       = var.address_book_file
  content_type = "application/octet-stream"
}
