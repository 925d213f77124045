# Production: the whole history kept, deletion protected, daily Bigtable backups, alerts required.
project     = "hedera-history-prod"
region      = "us-central1"
name_prefix = "hh-"

stream_bucket_location = "US"
bigtable_zone          = "us-central1-b"
bigtable_min_nodes     = 3
bigtable_max_nodes     = 12
bigtable_storage_type  = "SSD"
deletion_protection    = true

bigtable_backup_retention_days = 14
# A second cluster (replication); writers and the backfill stay on the first:
# bigtable_replica_zone = "us-east1-b"

retention_days         = 0
sidecar_retention_days = 0

# The bootstrap address book (file 0.0.102) is uploaded to the config bucket from a local file:
# address_book_file = "/path/to/0.0.102.bin"
#
# To read an existing bucket instead of creating one (Eventarc receives its uploads only when the
# bucket is in this project), e.g. a requester-pays copy of the nodes' stream:
# existing_stream_bucket = "my-stream-bucket"
# stream_bucket_iam      = false
# requester_pays_project = "hedera-history-prod"
# stream_prefix          = "recordstreams"
#
# Or follow mainnet's public bucket instead of receiving uploads (docs/follow.md: backfill first,
# then follow from the end of the backfill; reads billed to this project):
# follow_source = "gs://hedera-mainnet-streams"
# and settings.network = "mainnet"

settings = {
  log_level                = "INFO"
  consensus_ratio          = "0.3333333333333333"
  sidecars_enabled         = "true"
  max_decompressed_bytes   = "268435456"
  bigtable_timeout_seconds = "30.0"
  sweep_min_age_seconds    = "120"
}

query_public   = true
sweep_schedule = "*/5 * * * *"
max_instances = {
  ingest = 100
  sweep  = 1
  store  = 200
  query  = 50
}

# Alerts go to alert_email (an email channel is created) and to the existing channels listed in
# notification_channels (projects/hedera-history-prod/notificationChannels/<number>, from
# `gcloud beta monitoring channels list`); production refuses to plan until one of them is set.
require_alert_channel = true
# alert_email = "<the on-call address>"
