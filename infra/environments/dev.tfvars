# A development deployment: its own stream bucket (upload generated streams into it), no retention
# window, everything deletable.
project     = "hedera-history-dev"
region      = "us-central1"
name_prefix = "hh-dev-"

stream_bucket_location         = "us-central1"
bigtable_zone                  = "us-central1-b"
bigtable_min_nodes             = 1
bigtable_max_nodes             = 1
bigtable_storage_type          = "HDD"
deletion_protection            = false
bigtable_backup_retention_days = 0

table_prefix        = "dev_"
pubsub_topic_prefix = "dev-"
retention_days      = 30

settings = {
  log_level        = "DEBUG"
  sidecars_enabled = "true"
}

query_public   = false
sweep_schedule = "*/10 * * * *"
max_instances = {
  ingest = 10
  store  = 10
  query  = 5
}
