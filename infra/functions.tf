# Functions come from hedera_history.deploy.catalogue (infra/generated/functions.json): entry
# point, trigger, memory, timeout, concurrency and exactly the environment variables each reads.

locals {
  # Functions sharing a source folder share one archive.
  function_archives = toset([for function in local.deployed_functions : function.archive])
}

resource "google_storage_bucket_object" "function_source" {
  for_each = local.function_archives

  bucket = google_storage_bucket.bucket["artifacts"].name
  # The content hash in the name makes a changed source redeploy its functions.
  name         = "functions/${trimsuffix(each.value, ".zip")}-${filemd5("${path.module}/${var.function_archive_dir}/${each.value}")}.zip"
  source       = "${path.module}/${var.function_archive_dir}/${each.value}"
  content_type = "application/zip"
}

# Every function of the contract but those with nothing to do here (follow.tf: the follower or the
# Eventarc ingest, whichever does not feed this deployment).
resource "google_cloudfunctions2_function" "function" {
  for_each = local.deployed_functions

  name     = "${var.name_prefix}${each.key}"
  location = var.region

  build_config {
    runtime         = var.python_runtime
    entry_point     = each.value.entry_point
    service_account = google_service_account.identity["builder"].id

    source {
      storage_source {
        bucket = google_storage_bucket.bucket["artifacts"].name
        object = google_storage_bucket_object.function_source[each.value.archive].name
      }
    }
  }

  service_config {
    available_memory                 = each.value.available_memory
    available_cpu                    = each.value.available_cpu
    timeout_seconds                  = each.value.timeout_seconds
    max_instance_request_concurrency = each.value.max_instance_request_concurrency
    max_instance_count               = lookup(local.function_max_instances, each.key, 100)
    ingress_settings                 = each.value.ingress_settings
    all_traffic_on_latest_revision   = true
    service_account_email            = google_service_account.identity[each.key].email
    environment_variables            = each.value.environment_variables

    dynamic "secret_environment_variables" {
      for_each = each.key == local.follow_function ? local.follow_aws_secrets : {}
      content {
        key        = secret_environment_variables.key
        project_id = var.project
        secret     = secret_environment_variables.value
        version    = "latest"
      }
    }
  }

  dynamic "event_trigger" {
    for_each = each.value.event_type == null ? [] : [each.value.event_type]
    content {
      event_type            = event_trigger.value
      trigger_region        = local.stream_bucket_region
      service_account_email = google_service_account.identity["events"].email
      # Ingest is idempotent and answers 2xx for what can never succeed, so a failure is worth a retry.
      retry_policy = "RETRY_POLICY_RETRY"

      event_filters {
        attribute = "bucket"
        value     = local.stream_bucket
      }
    }
  }

  # The app profile each one names (HEDERA_HISTORY_BIGTABLE_APP_PROFILE) exists before it runs.
  depends_on = [google_project_service.api, google_project_iam_member.grant, google_secret_manager_secret_iam_member.follow_aws, google_bigtable_app_profile.profile]
}

resource "google_cloud_scheduler_job" "function" {
  for_each = { for name, function in local.deployed_functions : name => function if function.trigger == "scheduled-http" }

  name             = "${var.name_prefix}${each.key}"
  region           = var.region
  schedule         = local.schedules[each.key]
  time_zone        = "Etc/UTC"
  attempt_deadline = "${min(each.value.timeout_seconds + 30, 1800)}s"

  http_target {
    http_method = "POST"
    uri         = google_cloudfunctions2_function.function[each.key].url

    oidc_token {
      service_account_email = google_service_account.identity["scheduler"].email
      audience              = google_cloudfunctions2_function.function[each.key].url
    }
  }

  # The next scheduled run is the retry.
  retry_config {
    retry_count = 0
  }
}
