# Following a network's public bucket (docs/follow.md). With follow_source set, the history is fed
# by the follow function, which Cloud Scheduler calls every minute and which follows the bucket for
# one window under a lease, instead of by bucket events: Hedera's buckets are not ours, so they raise
# no events here. The stream bucket setting of every function is then the followed bucket (the sweep
# retries what the follower left pending from there, the backfill reads its history from there).

locals {
  following       = var.follow_source != ""
  follow_function = "follow"

  # Identities with nothing to do in this deployment: the follower's when nothing is followed; the
  # Eventarc ingest and its trigger's when the stream comes from a bucket that raises no events here.
  idle_identities = local.following ? ["ingest", "events"] : [local.follow_function]

  deployed_functions = {
    for name, function in module.contract.functions : name => function if !contains(local.idle_identities, name)
  }

  # Cloud Scheduler jobs of the scheduled-http functions.
  schedules = {
    sweep                   = var.sweep_schedule
    (local.follow_function) = var.follow_schedule
  }

  # The call that follows and the next minute's, waiting for the lease: more could only wait too.
  function_max_instances = merge(var.max_instances, { (local.follow_function) = 2 })

  # After the cutover the follower reads blocks from follow_block_source, or (empty) from the network
  # preset's hedera-<network>-recent-block-streams bucket on GCS (HEDERA_HISTORY_BLOCK_SOURCE); the
  # backfill reads the same buckets. Both are public requester-pays buckets, not ours: nothing is
  # granted on them, the reads are billed to requester_pays_project (iam.tf, requester_pays).
  reads_gcs_blocks = local.following && (var.follow_block_source == "" || substr(var.follow_block_source, 0, 5) == "gs://")

  # Reads of a requester-pays GCS bucket are billed to this project unless another one is named.
  requester_pays_project = var.requester_pays_project != "" ? var.requester_pays_project : (
    substr(var.follow_source, 0, 5) == "gs://" || local.reads_gcs_blocks ? var.project : ""
  )

  # An s3:// source is read with an AWS key of the account billed for the requests, kept in Secret
  # Manager (created outside Terraform, so the key never lands in the state) and handed to the
  # follower as the variables boto3 reads.
  follow_aws_secrets = local.following && var.follow_aws_access_key_secret != "" ? {
    AWS_ACCESS_KEY_ID     = var.follow_aws_access_key_secret
    AWS_SECRET_ACCESS_KEY = var.follow_aws_secret_access_key_secret
  } : {}

  # A period that never reached consensus: the follower reports it and leaves it pending for the
  # sweep. Counted and alerted on like the pipeline's events (monitoring.tf), when following.
  # After the cutover, no new block for follow_block_alert_seconds: the follower logs "follower no
  # block" (error, with block, waited_seconds and sources) every such interval until one arrives.
  follower_counted_events = {
    periods_without_consensus = "period without consensus"
    blocks_not_arriving       = "follower no block"
  }
  follower_event_alerts = {
    periods_without_consensus = "a period never reached consensus (left pending for the sweep)"
    blocks_not_arriving       = "the network has cut over to blocks and no block arrived from the block nodes or the block bucket"
  }
}

# The follower may read the two secrets of its AWS key, and nothing else in Secret Manager.
resource "google_secret_manager_secret_iam_member" "follow_aws" {
  for_each = local.follow_aws_secrets

  project   = var.project
  secret_id = each.value
  role      = "roles/secretmanager.secretAccessor"
  member    = local.members[local.follow_function]

  depends_on = [google_project_service.api]
}

# ---- monitoring -----------------------------------------------------------------------------------

# How far behind the network the follower is: every tick logs "follower position" with lag_seconds
# (now minus the consensus time of the last period it handed off and saw end). Linear 5 s buckets
# put a bucket boundary on the alert threshold, so a percentile above it is a lag above it.
resource "google_logging_metric" "follow_lag" {
  count = local.following ? 1 : 0

  name            = "${var.name_prefix}follower_lag_seconds"
  filter          = "${local.function_logs} AND ${local.event_field}=\"follower position\" AND jsonPayload.lag_seconds>=0"
  value_extractor = "EXTRACT(jsonPayload.lag_seconds)"

  metric_descriptor {
    metric_kind  = "DELTA"
    value_type   = "DISTRIBUTION"
    unit         = "s"
    display_name = "hedera-history: follower lag"
  }

  bucket_options {
    linear_buckets {
      num_finite_buckets = 120
      width              = 5
      offset             = 0
    }
  }
}

# The counter was a resource of its own before it joined the counted events.
moved {
  from = google_logging_metric.follow_without_consensus[0]
  to   = google_logging_metric.event["periods_without_consensus"]
}

resource "google_monitoring_alert_policy" "follower" {
  count = local.following ? 1 : 0

  display_name          = "${var.name_prefix}follower"
  combiner              = "OR"
  notification_channels = local.alert_channels

  # The highest lag of a 2-minute window: the 99th percentile of about 240 ticks (one every 0.5 s)
  # leaves out the top two, so a blip of a second does not page.
  conditions {
    display_name = "follower lag above ${var.follow_lag_alert_seconds}s"
    condition_threshold {
      filter          = "metric.type=\"logging.googleapis.com/user/${google_logging_metric.follow_lag[0].name}\" AND resource.type=\"cloud_run_revision\""
      comparison      = "COMPARISON_GT"
      threshold_value = var.follow_lag_alert_seconds
      duration        = "0s"
      aggregations {
        alignment_period     = "120s"
        per_series_aligner   = "ALIGN_PERCENTILE_99"
        cross_series_reducer = "REDUCE_MAX"
      }
    }
  }

  conditions {
    display_name = "follower logged no position for ${var.follow_stopped_alert_seconds}s"
    condition_absent {
      filter   = "metric.type=\"logging.googleapis.com/user/${google_logging_metric.follow_lag[0].name}\" AND resource.type=\"cloud_run_revision\""
      duration = "${var.follow_stopped_alert_seconds}s"
      aggregations {
        alignment_period     = "60s"
        per_series_aligner   = "ALIGN_PERCENTILE_99"
        cross_series_reducer = "REDUCE_MAX"
      }
    }
  }

  documentation {
    mime_type = "text/markdown"
    content   = "The follower of ${var.follow_source} is behind or stopped. See docs/follow.md, \"What to watch\"."
  }
}
