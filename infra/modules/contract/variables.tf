variable "generated_dir" {
  description = "Folder of the contract files written by `hedera-history deploy generate`."
  type        = string
}

variable "table_prefix" {
  description = "Prefix of every Bigtable table id (HEDERA_HISTORY_TABLE_PREFIX)."
  type        = string
}

variable "pubsub_topic_prefix" {
  description = "Prefix of every topic and subscription id (HEDERA_HISTORY_PUBSUB_TOPIC_PREFIX)."
  type        = string
}

variable "retention_days" {
  description = "Chain-time window of the history tables in days; 0 keeps everything."
  type        = number
}

variable "sidecar_retention_days" {
  description = "Own window of the sidecars table in days; 0 follows retention_days."
  type        = number
}

variable "setting_values" {
  description = "Settings field name to value, for every field that is not left at its default."
  type        = map(string)
}
