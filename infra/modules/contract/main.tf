# Turns the code's contracts (generated JSON) into the exact argument values of the resources.
# No resources and no provider here, so tests evaluate this module with the real binary offline.

locals {
  settings_contract  = jsondecode(file("${var.generated_dir}/settings.json"))
  schema_contract    = jsondecode(file("${var.generated_dir}/schema.json"))
  functions_contract = jsondecode(file("${var.generated_dir}/functions.json"))
  pubsub_contract    = jsondecode(file("${var.generated_dir}/pubsub.json"))
  tables_contract    = jsondecode(file("${var.generated_dir}/tables.json"))
  profiles_contract  = jsondecode(file("${var.generated_dir}/app_profiles.json"))

  # The filter indexes the contract by name, so a misspelt setting stops the plan with an error.
  setting_values = merge(
    { for name, setting in local.settings_contract.settings : name => setting.default },
    { for name, value in var.setting_values : name => value if local.settings_contract.settings[name] != null },
  )

  # Which setting a table's window follows: see hedera_history.store.schema.retention_days_for.
  window_days = {
    retention_days         = var.retention_days
    sidecar_retention_days = var.sidecar_retention_days > 0 ? var.sidecar_retention_days : var.retention_days
  }

  tables = {
    for name, table in local.schema_contract.tables : "${var.table_prefix}${name}" => {
      families = keys(table.families)
      rules = {
        for family, rule in table.families : family => {
          max_versions = rule.max_versions
          max_age_days = table.max_age_from == null ? 0 : local.window_days[table.max_age_from]
        }
      }
    }
  }

  gc_policies = merge([
    for table_id, table in local.tables : {
      for family, rule in table.rules : "${table_id}/${family}" => {
        table  = table_id
        family = family
        gc_rules = rule.max_age_days > 0 ? jsonencode({
          mode  = "union"
          rules = [{ max_version = rule.max_versions }, { max_age = "${rule.max_age_days * 24}h" }]
        }) : jsonencode({ rules = [{ max_version = rule.max_versions }] })
      }
    }
  ]...)

  functions = {
    for name, spec in local.functions_contract.functions : name => {
      source           = spec.source
      archive          = spec.archive
      entry_point      = spec.entry_point
      trigger          = spec.trigger
      event_type       = spec.trigger == "storage-finalized" ? local.functions_contract.storage_finalized_event : null
      available_memory = "${spec.memory_mb}Mi"
      # Serving more than one request at a time needs at least one whole CPU.
      available_cpu                    = spec.concurrency > 1 ? "1" : null
      timeout_seconds                  = spec.timeout_seconds
      max_instance_request_concurrency = spec.concurrency
      # Eventarc, Pub/Sub push and Cloud Scheduler of the same project count as internal traffic.
      ingress_settings = spec.trigger == "http" ? "ALLOW_ALL" : "ALLOW_INTERNAL_ONLY"
      # A function's own values (its Bigtable app profile) win over the deployment's settings.
      environment_variables = {
        for variable, field in spec.settings : variable => merge(local.setting_values, spec.fixed_settings)[field]
      }
    }
  }

  # Each identity gets bigtable.user on the tables it writes and bigtable.reader on those it only
  # reads, table by table; nothing on the instance.
  table_roles = { writes = "roles/bigtable.user", reads = "roles/bigtable.reader" }
  table_grants = merge(flatten([
    for identity, access in local.tables_contract.identities : [
      for kind, role in local.table_roles : {
        for name in access[kind] : "${identity} ${var.table_prefix}${name} ${role}" => {
          identity = identity
          table    = "${var.table_prefix}${name}"
          role     = role
        }
      }
    ]
  ])...)

  topics = { for name in local.pubsub_contract.topics : name => "${var.pubsub_topic_prefix}${name}" }

  subscriptions = {
    for name, spec in local.pubsub_contract.subscriptions : name => {
      name                       = "${var.pubsub_topic_prefix}${name}"
      topic                      = spec.topic
      push                       = spec.push
      ack_deadline_seconds       = spec.ack_deadline_seconds
      dead_letter_topic          = spec.dead_letter_topic
      max_delivery_attempts      = spec.max_delivery_attempts
      minimum_backoff            = spec.min_backoff_seconds == null ? null : "${spec.min_backoff_seconds}s"
      maximum_backoff            = spec.max_backoff_seconds == null ? null : "${spec.max_backoff_seconds}s"
      message_retention_duration = spec.retention_seconds == null ? null : "${spec.retention_seconds}s"
    }
  }
}
