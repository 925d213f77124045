output "function_urls" {
  description = "Function name to its HTTPS endpoint."
  value       = { for name, function in google_cloudfunctions2_function.function : name => function.url }
}

output "stream_bucket" {
  description = "The bucket the ingest trigger watches, or the followed bucket (follow_source)."
  value       = local.stream_bucket
}

output "quarantine_url" {
  description = "Where copies of files that can never verify go."
  value       = "gs://${google_storage_bucket.bucket["quarantine"].name}"
}

output "bigtable_instance" {
  description = "The Bigtable instance id."
  value       = google_bigtable_instance.history.name
}

output "topics" {
  description = "Logical topic name to topic id."
  value       = { for name, topic in google_pubsub_topic.pipeline : name => topic.id }
}

output "service_accounts" {
  description = "Identity to service account email."
  value       = { for name, account in google_service_account.identity : name => account.email }
}

output "backfill_batch_template" {
  description = "gs:// URL of the Dataproc Serverless batch template of the backfill."
  value       = "gs://${google_storage_bucket.bucket["artifacts"].name}/${google_storage_bucket_object.backfill_batch_template.name}"
}

output "settings" {
  description = "Every setting's value in this deployment, by field name."
  value       = module.contract.setting_values
}

output "backfill_environment" {
  description = "Environment for `hedera-history backfill submit`: the settings the backfill reads and where Dataproc runs it."
  value = merge(local.backfill_environment, {
    for name in local.backfill_submit_settings : module.contract.setting_variables[name] => module.contract.setting_values[name]
  })
}

output "backfill_service_account" {
  description = "The identity backfill batches must run as (gcloud dataproc batches submit --service-account)."
  value       = google_service_account.identity["backfill"].email
}
