# Where alerts go, and the alerts on the platform's own metrics: each function's 5xx share and
# latency (Cloud Run request metrics: a gen2 function is served by the Cloud Run service of its
# name) and the age of the oldest message each subscription has not acknowledged. The pipeline's
# own alerts are in monitoring.tf, the follower's in follow.tf.

resource "google_monitoring_notification_channel" "email" {
  count = var.alert_email != "" ? 1 : 0

  display_name = "${var.name_prefix}alerts (${var.alert_email})"
  type         = "email"
  labels = {
    email_address = var.alert_email
  }

  depends_on = [google_project_service.api]
}

locals {
  # Every alert policy of the deployment sends to these.
  alert_channels = concat(var.notification_channels, google_monitoring_notification_channel.email[*].id)

  # A function's own alert threshold, or 80% of its timeout: a request that close to it is about to fail.
  function_latency_alert_seconds = {
    for name, function in local.deployed_functions : name => lookup(var.function_latency_alert_seconds, name, function.timeout_seconds * 0.8)
  }

  # The push subscriptions feed the store; the holds keep dead letters, which the sweep sends back.
  subscription_oldest_unacked_alert_seconds = {
    for name, subscription in module.contract.subscriptions : name => (
      contains(local.dead_letter_holds, subscription.name) ? var.dead_letter_hold_oldest_unacked_alert_seconds : var.subscription_oldest_unacked_alert_seconds
    )
  }
}

resource "google_monitoring_alert_policy" "function_errors" {
  for_each = google_cloudfunctions2_function.function

  display_name          = "${each.value.name} 5xx"
  combiner              = "OR"
  notification_channels = local.alert_channels

  conditions {
    display_name = "a share of ${each.value.name}'s requests above ${var.function_5xx_alert_ratio} answer 5xx"
    condition_threshold {
      filter             = "metric.type=\"run.googleapis.com/request_count\" AND resource.type=\"cloud_run_revision\" AND resource.label.service_name=\"${each.value.name}\" AND metric.label.response_code_class=\"5xx\""
      denominator_filter = "metric.type=\"run.googleapis.com/request_count\" AND resource.type=\"cloud_run_revision\" AND resource.label.service_name=\"${each.value.name}\""
      comparison         = "COMPARISON_GT"
      threshold_value    = var.function_5xx_alert_ratio
      duration           = "300s"
      aggregations {
        alignment_period     = "300s"
        per_series_aligner   = "ALIGN_SUM"
        cross_series_reducer = "REDUCE_SUM"
      }
      denominator_aggregations {
        alignment_period     = "300s"
        per_series_aligner   = "ALIGN_SUM"
        cross_series_reducer = "REDUCE_SUM"
      }
    }
  }

  documentation {
    mime_type = "text/markdown"
    content   = "The ${each.key} function answers 5xx: its errors are in Error Reporting and its logs. See docs/deploy.md, \"Alerts\"."
  }
}

resource "google_monitoring_alert_policy" "function_latency" {
  for_each = google_cloudfunctions2_function.function

  display_name          = "${each.value.name} latency"
  combiner              = "OR"
  notification_channels = local.alert_channels

  conditions {
    display_name = "99th percentile of ${each.value.name}'s request latency above ${local.function_latency_alert_seconds[each.key]}s"
    condition_threshold {
      # request_latencies is a distribution in milliseconds.
      filter          = "metric.type=\"run.googleapis.com/request_latencies\" AND resource.type=\"cloud_run_revision\" AND resource.label.service_name=\"${each.value.name}\""
      comparison      = "COMPARISON_GT"
      threshold_value = local.function_latency_alert_seconds[each.key] * 1000
      duration        = "600s"
      aggregations {
        alignment_period     = "300s"
        per_series_aligner   = "ALIGN_PERCENTILE_99"
        cross_series_reducer = "REDUCE_MAX"
      }
    }
  }

  documentation {
    mime_type = "text/markdown"
    content   = "The ${each.key} function is slow: look at Bigtable's latency and CPU, its instance count against max_instances. See docs/deploy.md, \"Alerts\"."
  }
}

resource "google_monitoring_alert_policy" "subscription_backlog" {
  for_each = google_pubsub_subscription.pipeline

  display_name          = "${each.value.name} oldest unacked message"
  combiner              = "OR"
  notification_channels = local.alert_channels

  conditions {
    display_name = "a message of ${each.value.name} unacknowledged for more than ${local.subscription_oldest_unacked_alert_seconds[each.key]}s"
    condition_threshold {
      filter          = "metric.type=\"pubsub.googleapis.com/subscription/oldest_unacked_message_age\" AND resource.type=\"pubsub_subscription\" AND resource.label.subscription_id=\"${each.value.name}\""
      comparison      = "COMPARISON_GT"
      threshold_value = local.subscription_oldest_unacked_alert_seconds[each.key]
      duration        = "300s"
      aggregations {
        alignment_period   = "60s"
        per_series_aligner = "ALIGN_MAX"
      }
    }
  }

  documentation {
    mime_type = "text/markdown"
    content   = "Messages of ${each.value.name} wait: the store fails or falls behind (push), or dead letters stay held. See docs/deploy.md, \"Alerts\"."
  }
}
