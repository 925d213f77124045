# ---- where ---------------------------------------------------------------------------------------

variable "project" {
  description = "Google Cloud project id (GOOGLE_CLOUD_PROJECT of every function)."
  type        = string
}

variable "region" {
  description = "Region of the functions, the scheduler job and the Dataproc batches."
  type        = string
  default     = "us-central1"
}

variable "name_prefix" {
  description = "Prefix of every function, service account, metric and bucket name (e.g. \"hh-dev-\")."
  type        = string
  default     = "hh-"

  validation {
    condition     = can(regex("^[a-z][a-z0-9-]{0,12}$", var.name_prefix))
    error_message = "The name_prefix must be lowercase letters, digits and dashes, at most 13 characters (service account ids are at most 30)."
  }
}

variable "function_archive_dir" {
  description = "Folder of the built function sources (`hedera-history deploy build`), relative to this module."
  type        = string
  default     = "../build/functions"
}

# ---- stream bucket ---------------------------------------------------------------------------------

variable "existing_stream_bucket" {
  description = "Name of an existing stream bucket to read; empty creates one (<project>-<name_prefix>streams)."
  type        = string
  default     = ""
}

variable "stream_bucket_location" {
  description = "Location of the stream bucket (the Eventarc trigger must be in the same one), e.g. US or us-central1."
  type        = string
  default     = "US"
}

variable "stream_bucket_iam" {
  description = "Grant the readers on the stream bucket; false for a bucket that is already readable (public) or not ours to change."
  type        = bool
  default     = true
}

variable "stream_prefix" {
  description = "Folder inside the stream bucket above the node folders (HEDERA_HISTORY_STREAM_PREFIX)."
  type        = string
  default     = ""
}

variable "requester_pays_project" {
  description = "Project billed for reads of a requester-pays stream bucket; empty when the bucket owner pays."
  type        = string
  default     = ""
}

variable "address_book_file" {
  description = "Local file of the bootstrap address book (NodeAddressBook bytes), uploaded to the config bucket; empty to use settings.address_book as given."
  type        = string
  default     = ""
}

# ---- Bigtable ----------------------------------------------------------------------------------------

variable "bigtable_instance" {
  description = "Bigtable instance id (HEDERA_HISTORY_BIGTABLE_INSTANCE)."
  type        = string
  default     = "hedera-history"
}

variable "bigtable_zone" {
  description = "Zone of the instance's cluster."
  type        = string
  default     = "us-central1-b"
}

variable "bigtable_min_nodes" {
  description = "Autoscaling floor of the cluster."
  type        = number
  default     = 1
}

variable "bigtable_max_nodes" {
  description = "Autoscaling ceiling of the cluster."
  type        = number
  default     = 3
}

variable "bigtable_storage_type" {
  description = "SSD or HDD."
  type        = string
  default     = "SSD"
}

variable "bigtable_replica_zone" {
  description = "Zone of an optional second cluster (replication, e.g. us-east1-b); empty: one cluster. Writers and the backfill stay on the first."
  type        = string
  default     = ""

  validation {
    condition     = var.bigtable_replica_zone != var.bigtable_zone
    error_message = "The bigtable_replica_zone must differ from bigtable_zone (or be empty)."
  }
}

variable "bigtable_backup_retention_days" {
  description = "Days each table's daily automated backup is kept (3 to 90); 0: no automated backups."
  type        = number
  default     = 7

  validation {
    condition     = var.bigtable_backup_retention_days == 0 || (var.bigtable_backup_retention_days >= 3 && var.bigtable_backup_retention_days <= 90)
    error_message = "The bigtable_backup_retention_days must be 0 (off) or from 3 to 90 (Bigtable's bounds for automated backups)."
  }
}

variable "deletion_protection" {
  description = "Refuse to destroy the instance and its tables (keep true wherever the history matters)."
  type        = bool
  default     = true
}

variable "table_prefix" {
  description = "Prefix of every table id (HEDERA_HISTORY_TABLE_PREFIX)."
  type        = string
  default     = ""
}

variable "retention_days" {
  description = "Keep the last N days of history in chain time; 0 keeps everything (HEDERA_HISTORY_RETENTION_DAYS)."
  type        = number
  default     = 0
}

variable "sidecar_retention_days" {
  description = "Own window of the sidecars table; 0 follows retention_days (HEDERA_HISTORY_SIDECAR_RETENTION_DAYS)."
  type        = number
  default     = 0
}

# ---- Pub/Sub and functions ----------------------------------------------------------------------------

variable "pubsub_topic_prefix" {
  description = "Prefix of every topic and subscription id (HEDERA_HISTORY_PUBSUB_TOPIC_PREFIX)."
  type        = string
  default     = ""
}

variable "settings" {
  description = "Other settings of the functions and the backfill, by Settings field name (see docs/configuration.md); unset ones keep their defaults."
  type        = map(string)
  default     = {}
}

variable "python_runtime" {
  description = "Cloud Functions runtime of every function."
  type        = string
  default     = "python311"
}

variable "max_instances" {
  description = "Most instances of each function, by function name; unlisted functions get 100."
  type        = map(number)
  default     = {}
}

variable "sweep_schedule" {
  description = "Cron schedule (UTC) of the sweep of pending periods."
  type        = string
  default     = "*/5 * * * *"
}

variable "query_public" {
  description = "Let anyone call the query API (allUsers may invoke it); false keeps it to granted principals."
  type        = bool
  default     = false
}

variable "query_invokers" {
  description = "Principals (e.g. \"group:history-readers@example.com\") allowed to call the query API."
  type        = list(string)
  default     = []
}

# ---- backfill (Dataproc Serverless) --------------------------------------------------------------------

variable "dataproc_runtime_version" {
  description = "Dataproc Serverless runtime version of backfill batches (the one backfill/runtime.py pins)."
  type        = string
  default     = "2.3"
}

variable "dataproc_container_image" {
  description = "Container image of backfill batches in full; empty: the image Cloud Build pushes (artifact_registry.tf) at backfill_image_tag."
  type        = string
  default     = ""
}

variable "backfill_staging_days" {
  description = "Days a backfill batch's staged files are kept in the backfill staging bucket."
  type        = number
  default     = 30
}

variable "artifact_noncurrent_days" {
  description = "Days a replaced function source or batch template is kept in the versioned artifacts bucket (to roll back to)."
  type        = number
  default     = 30
}

variable "artifact_noncurrent_versions" {
  description = "Replaced versions of one artifact kept at most, however young."
  type        = number
  default     = 3
}

variable "incomplete_upload_days" {
  description = "Days after which an unfinished multipart upload to any bucket of the deployment is aborted (its parts are billed)."
  type        = number
  default     = 7
}

variable "dataproc_subnetwork" {
  description = "Subnetwork URI of backfill batches (needs Private Google Access); empty uses the default network."
  type        = string
  default     = ""
}

# ---- monitoring -------------------------------------------------------------------------------------------

variable "notification_channels" {
  description = "Existing Monitoring notification channel ids (projects/<project>/notificationChannels/<id>) that receive every alert."
  type        = list(string)
  default     = []

  validation {
    condition     = alltrue([for channel in var.notification_channels : can(regex("^projects/[^/]+/notificationChannels/[0-9]+$", channel))])
    error_message = "Each notification channel must be an existing channel's id, projects/<project>/notificationChannels/<number> (gcloud beta monitoring channels list); use alert_email for a new email channel."
  }
}

variable "alert_email" {
  description = "Email address that receives every alert (a notification channel created here); empty: only notification_channels."
  type        = string
  default     = ""

  validation {
    condition     = var.alert_email == "" || can(regex("^[^@\\s]+@[^@\\s]+\\.[^@\\s]+$", var.alert_email))
    error_message = "The alert_email must be an email address or empty."
  }
}

variable "require_alert_channel" {
  description = "Refuse to plan without somewhere to send alerts (alert_email or notification_channels); true in production."
  type        = bool
  default     = false

  validation {
    condition     = !var.require_alert_channel || var.alert_email != "" || length(var.notification_channels) > 0
    error_message = "This environment requires an alert channel: set alert_email (a channel is created) or notification_channels (existing channel ids) in its tfvars."
  }
}

variable "function_5xx_alert_ratio" {
  description = "Alert when more than this share of a function's requests answer 5xx over 5 minutes."
  type        = number
  default     = 0.05
}

variable "function_latency_alert_seconds" {
  description = "Alert when a function's 99th percentile request latency stays above this many seconds for 10 minutes, by function name; unlisted functions: 80% of their timeout."
  type        = map(number)
  default = {
    query = 5
  }
}

variable "subscription_oldest_unacked_alert_seconds" {
  description = "Alert when the oldest unacknowledged message of a push subscription (the store's) is older than this."
  type        = number
  default     = 1800
}

variable "dead_letter_hold_oldest_unacked_alert_seconds" {
  description = "Alert when a dead letter has waited this long on its hold (the sweep sends held ones back every run)."
  type        = number
  default     = 86400
}

variable "ingest_lag_alert_seconds" {
  description = "Alert when the 99th percentile of ingest lag (consensus time to verified) stays above this."
  type        = number
  default     = 600
}

variable "ingest_stall_alert_seconds" {
  description = "Alert when no period has been verified for this long."
  type        = number
  default     = 1800
}

# ---- following a network's public bucket (docs/follow.md) ----------------------------------------------

variable "follow_source" {
  description = "Bucket to follow, gs://<bucket>[/prefix] or s3://<bucket>[/prefix] (e.g. gs://hedera-mainnet-streams with settings.network = \"mainnet\"); empty: no follower, the stream bucket's uploads feed ingest."
  type        = string
  default     = ""

  validation {
    condition     = var.follow_source == "" || can(regex("^(gs|s3)://[a-z0-9][a-z0-9._-]*[a-z0-9](/.*)?$", var.follow_source))
    error_message = "The follow_source must be empty or gs://<bucket>[/prefix] or s3://<bucket>[/prefix]."
  }
}

variable "follow_block_source" {
  description = "Bucket root the follower reads block files from after the cutover, gs://<bucket>[/prefix] or s3://<bucket>[/prefix] (<network>/block/ below it; requester pays); empty: the network preset's hedera-<network>-recent-block-streams on GCS."
  type        = string
  default     = ""

  validation {
    condition     = var.follow_block_source == "" || can(regex("^(gs|s3)://[a-z0-9][a-z0-9._-]*[a-z0-9](/.*)?$", var.follow_block_source))
    error_message = "The follow_block_source must be empty or gs://<bucket>[/prefix] or s3://<bucket>[/prefix]."
  }
}

variable "block_nodes" {
  description = "Block nodes (HIP-1081) the follower and the backfill read blocks from over gRPC, each [tls://]host[:port][@priority] (HEDERA_HISTORY_BLOCK_NODES); empty: the network preset's."
  type        = list(string)
  default     = []

  validation {
    condition     = alltrue([for node in var.block_nodes : can(regex("^(tls://)?([A-Za-z0-9.-]+|\\[[0-9A-Fa-f:]+\\])(:[0-9]+)?(@[0-9]+)?$", node))])
    error_message = "Each block node must be [tls://]host[:port][@priority]."
  }
}

variable "follow_cutover_seconds" {
  description = "How long no record period arrives (after the last one was published) before the follower looks for the next block and switches to blocks (for good once a block is stored after the last record file)."
  type        = number
  default     = 6
}

variable "follow_block_alert_seconds" {
  description = "After the cutover, alert when no new block arrived for this long (the follower logs \"follower no block\")."
  type        = number
  default     = 30
}

variable "follow_block_fallback_seconds" {
  description = "After the switch to blocks, how long no block may advance before the follower goes back to record files, when a record file linked to the last one stored shows and no block is stored after it (0: never)."
  type        = number
  default     = 8

  validation {
    condition     = var.follow_block_fallback_seconds >= 0
    error_message = "follow_block_fallback_seconds must not be negative."
  }
}

variable "follow_schedule" {
  description = "Cron schedule (UTC) of the follow function's calls; each call follows the bucket for one window (HEDERA_HISTORY_FOLLOW_WINDOW_SECONDS)."
  type        = string
  default     = "* * * * *"
}

variable "follow_aws_access_key_secret" {
  description = "Secret Manager secret id holding the AWS access key id an s3:// follow_source is read with (requester pays); empty: unsigned reads."
  type        = string
  default     = ""
}

variable "follow_aws_secret_access_key_secret" {
  description = "Secret Manager secret id holding the secret access key of follow_aws_access_key_secret."
  type        = string
  default     = ""
}

variable "follow_lag_alert_seconds" {
  description = "Alert when the follower's lag (now minus the consensus time of the last period it handed off) stays above this over 2 minutes."
  type        = number
  default     = 60
}

variable "follow_stopped_alert_seconds" {
  description = "Alert when the follower has logged no position for this long."
  type        = number
  default     = 180
}
