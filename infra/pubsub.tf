# Topics and subscriptions come from hedera_history.transport.topics (infra/generated/pubsub.json).

resource "google_pubsub_topic" "pipeline" {
  for_each = module.contract.topics
  name     = each.value
}

locals {
  # The one function the push subscriptions deliver to.
  push_function = one([for name, function in module.contract.functions : name if function.trigger == "pubsub-push"])
}

resource "google_pubsub_subscription" "pipeline" {
  for_each = module.contract.subscriptions

  name                       = each.value.name
  topic                      = google_pubsub_topic.pipeline[each.value.topic].id
  ack_deadline_seconds       = each.value.ack_deadline_seconds
  message_retention_duration = each.value.message_retention_duration

  dynamic "push_config" {
    for_each = each.value.push ? [google_cloudfunctions2_function.function[local.push_function].url] : []
    content {
      push_endpoint = push_config.value
      oidc_token {
        service_account_email = google_service_account.identity["push"].email
      }
    }
  }

  dynamic "dead_letter_policy" {
    for_each = each.value.dead_letter_topic == null ? [] : [each.value.dead_letter_topic]
    content {
      dead_letter_topic     = google_pubsub_topic.pipeline[dead_letter_policy.value].id
      max_delivery_attempts = each.value.max_delivery_attempts
    }
  }

  dynamic "retry_policy" {
    for_each = each.value.minimum_backoff == null ? [] : [each.value]
    content {
      minimum_backoff = retry_policy.value.minimum_backoff
      maximum_backoff = retry_policy.value.maximum_backoff
    }
  }

  # A subscription left unused for 31 days would otherwise be deleted.
  expiration_policy {
    ttl = ""
  }
}
