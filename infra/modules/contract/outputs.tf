output "setting_values" {
  description = "Every setting's value in this deployment (field name to the string its variable holds)."
  value       = local.setting_values
}

output "setting_variables" {
  description = "Settings field name to its environment variable."
  value       = { for name, setting in local.settings_contract.settings : name => setting.env }
}

output "bigtable_tables" {
  description = "Table id to its column families."
  value       = { for table_id, table in local.tables : table_id => table.families }
}

output "gc_policies" {
  description = "\"table/family\" to the table, the family and the google_bigtable_gc_policy gc_rules JSON."
  value       = local.gc_policies
}

output "functions" {
  description = "Function name to the arguments of its google_cloudfunctions2_function."
  value       = local.functions
}

output "topics" {
  description = "Logical topic name to topic id."
  value       = local.topics
}

output "subscriptions" {
  description = "Logical subscription name to the arguments of its google_pubsub_subscription."
  value       = local.subscriptions
}

output "table_grants" {
  description = "Per identity and table, the Bigtable role it holds on that table (google_bigtable_table_iam_member)."
  value       = local.table_grants
}

output "app_profiles" {
  description = "Bigtable app profile id to whether its users need transactional writes (CheckAndMutateRow) and its description."
  value       = local.profiles_contract.profiles
}

output "identity_app_profiles" {
  description = "Identity (each function, the backfill) to the Bigtable app profile its data calls go through."
  value       = local.profiles_contract.identities
}
