# Log-based metrics on the events the functions log (`logs.event(logger, "<event>", ...)` puts the
# event in the entry's message), and the alerts an operator needs.

locals {
  event_field = "jsonPayload.message"

  function_logs = join(" AND ", [
    "resource.type=\"cloud_run_revision\"",
    "resource.labels.service_name=(${join(" OR ", [for name, function in google_cloudfunctions2_function.function : "\"${function.name}\""])})",
  ])

  counted_events = {
    periods_verified       = "period verified"
    blocks_complete        = "block complete"
    periods_quarantined    = "period quarantined"
    chain_links_broken     = "chain link broken"
    periods_pending        = "period pending"
    consensus_lost         = "consensus lost"
    consensus_forks        = "consensus fork"
    first_block_mismatches = "first block mismatch"
    block_pin_mismatches   = "block pin mismatch"
    periods_republished    = "period republished"
    periods_not_completing = "period not completing"
    dead_letters_replayed  = "dead letter replayed"
    sweep_dead_letter_runs = "sweep replayed dead letters"
    block_conflicts        = "block conflict"
  }

  # Counted events that alert on any occurrence: what each means.
  event_alerts = {
    periods_quarantined    = "a record file was quarantined: it can never verify"
    chain_links_broken     = "a block's start running hash differs from its predecessor's end"
    consensus_lost         = "a block published before its predecessors were lacks consensus once weighed with the stakes in force"
    consensus_forks        = "two file hashes for one period each hold the consensus share of stake: the period is held"
    first_block_mismatches = "the first block is numbered above HEDERA_HISTORY_FIRST_BLOCK: the contiguous watermark could never start"
    block_pin_mismatches   = "a verified block contradicts the network's block pin: periods stay pending"
    periods_not_completing = "a published block stays incomplete after republishing, or its batch is in conflict"
    block_conflicts        = "a second, different block for a number already stored was refused and quarantined (an equivocation, or a forged block under a weak trust root)"
  }

  dead_letter_topics = [
    for subscription in module.contract.subscriptions : subscription.dead_letter_topic if subscription.dead_letter_topic != null
  ]
  # The subscriptions that keep what lands on a dead-letter topic.
  dead_letter_holds = [
    for subscription in module.contract.subscriptions : subscription.name if contains(local.dead_letter_topics, subscription.topic)
  ]
}

# The follower's counted events (follow.tf) are counted and alerted on the same way, when following.
resource "google_logging_metric" "event" {
  for_each = merge(local.counted_events, local.following ? local.follower_counted_events : {})

  name   = "${var.name_prefix}${each.key}"
  filter = "${local.function_logs} AND ${local.event_field}=\"${each.value}\""

  metric_descriptor {
    metric_kind  = "DELTA"
    value_type   = "INT64"
    unit         = "1"
    display_name = "hedera-history: ${each.value}"
  }
}

# Seconds from a period's consensus time to its verification (the `lag_seconds` every event carries).
resource "google_logging_metric" "ingest_lag" {
  name            = "${var.name_prefix}ingest_lag_seconds"
  filter          = "${local.function_logs} AND ${local.event_field}=\"period verified\" AND jsonPayload.lag_seconds>=0"
  value_extractor = "EXTRACT(jsonPayload.lag_seconds)"

  metric_descriptor {
    metric_kind  = "DELTA"
    value_type   = "DISTRIBUTION"
    unit         = "s"
    display_name = "hedera-history: ingest lag"
  }

  bucket_options {
    exponential_buckets {
      num_finite_buckets = 24
      growth_factor      = 2
      scale              = 1
    }
  }
}

resource "google_monitoring_alert_policy" "ingest_lag" {
  display_name          = "${var.name_prefix}ingest lag"
  combiner              = "OR"
  notification_channels = local.alert_channels

  conditions {
    display_name = "99th percentile of ingest lag above ${var.ingest_lag_alert_seconds}s"
    condition_threshold {
      filter          = "metric.type=\"logging.googleapis.com/user/${google_logging_metric.ingest_lag.name}\" AND resource.type=\"cloud_run_revision\""
      comparison      = "COMPARISON_GT"
      threshold_value = var.ingest_lag_alert_seconds
      duration        = "600s"
      aggregations {
        alignment_period     = "300s"
        per_series_aligner   = "ALIGN_PERCENTILE_99"
        cross_series_reducer = "REDUCE_MAX"
      }
    }
  }

  conditions {
    display_name = "no period verified for ${var.ingest_stall_alert_seconds}s"
    condition_absent {
      filter   = "metric.type=\"logging.googleapis.com/user/${google_logging_metric.event["periods_verified"].name}\" AND resource.type=\"cloud_run_revision\""
      duration = "${var.ingest_stall_alert_seconds}s"
      aggregations {
        alignment_period     = "300s"
        per_series_aligner   = "ALIGN_SUM"
        cross_series_reducer = "REDUCE_SUM"
      }
    }
  }

  documentation {
    mime_type = "text/markdown"
    content   = "Record files are verified late or not at all. See docs/deploy.md, \"Alerts\"."
  }
}

resource "google_monitoring_alert_policy" "dead_letters" {
  display_name          = "${var.name_prefix}dead-letter backlog"
  combiner              = "OR"
  notification_channels = local.alert_channels

  conditions {
    display_name = "messages parked on a dead-letter topic"
    condition_threshold {
      filter          = "metric.type=\"pubsub.googleapis.com/subscription/num_undelivered_messages\" AND resource.type=\"pubsub_subscription\" AND resource.label.subscription_id=(${join(" OR ", [for name in local.dead_letter_holds : "\"${name}\""])})"
      comparison      = "COMPARISON_GT"
      threshold_value = 0
      duration        = "0s"
      aggregations {
        alignment_period     = "300s"
        per_series_aligner   = "ALIGN_MAX"
        cross_series_reducer = "REDUCE_SUM"
      }
    }
  }

  documentation {
    mime_type = "text/markdown"
    content   = "The store function rejected messages after every retry. See docs/deploy.md, \"Alerts\"."
  }
}

resource "google_monitoring_alert_policy" "event" {
  for_each = merge(local.event_alerts, local.following ? local.follower_event_alerts : {})

  display_name          = "${var.name_prefix}${replace(each.key, "_", " ")}"
  combiner              = "OR"
  notification_channels = local.alert_channels

  conditions {
    display_name = each.value
    condition_threshold {
      filter          = "metric.type=\"logging.googleapis.com/user/${google_logging_metric.event[each.key].name}\" AND resource.type=\"cloud_run_revision\""
      comparison      = "COMPARISON_GT"
      threshold_value = 0
      duration        = "0s"
      aggregations {
        alignment_period     = "300s"
        per_series_aligner   = "ALIGN_SUM"
        cross_series_reducer = "REDUCE_SUM"
      }
    }
  }

  documentation {
    mime_type = "text/markdown"
    content   = "${each.value}. See docs/deploy.md, \"Alerts\"."
  }
}
