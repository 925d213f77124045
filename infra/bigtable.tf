# Tables, families and GC rules come from hedera_history.store.schema (infra/generated/schema.json);
# app profiles and who uses which from hedera_history.store.app_profiles (app_profiles.json).

locals {
  bigtable_primary_cluster = "${var.bigtable_instance}-c1"
  bigtable_replica_cluster = "${var.bigtable_instance}-c2"
  bigtable_replicated      = var.bigtable_replica_zone != ""

  # How each profile's requests are routed and ranked. Writers (CheckAndMutateRow) and the backfill
  # stay on the first cluster even with a replica: transactional writes need one cluster, and a
  # backfill's writes then compete with nothing the replica serves. Queries may fail over to any
  # cluster of a replicated instance (a replica's reads may trail the writes by seconds). The
  # backfill's requests rank below everyone else's, so a backfill cannot starve queries or ingest.
  bigtable_profile_routing = {
    writers  = { any_cluster = false, priority = "PRIORITY_HIGH" }
    queries  = { any_cluster = local.bigtable_replicated, priority = "PRIORITY_HIGH" }
    backfill = { any_cluster = false, priority = "PRIORITY_LOW" }
  }
}

resource "google_bigtable_instance" "history" {
  name                = var.bigtable_instance
  deletion_protection = var.deletion_protection

  cluster {
    cluster_id   = local.bigtable_primary_cluster
    zone         = var.bigtable_zone
    storage_type = var.bigtable_storage_type

    autoscaling_config {
      min_nodes  = var.bigtable_min_nodes
      max_nodes  = var.bigtable_max_nodes
      cpu_target = 60
    }
  }

  # The optional replica (replication is Bigtable's own): same storage and autoscaling bounds.
  dynamic "cluster" {
    for_each = local.bigtable_replicated ? [var.bigtable_replica_zone] : []
    content {
      cluster_id   = local.bigtable_replica_cluster
      zone         = cluster.value
      storage_type = var.bigtable_storage_type

      autoscaling_config {
        min_nodes  = var.bigtable_min_nodes
        max_nodes  = var.bigtable_max_nodes
        cpu_target = 60
      }
    }
  }

  depends_on = [google_project_service.api]
}

# One profile per kind of caller; each function and the backfill get theirs through
# HEDERA_HISTORY_BIGTABLE_APP_PROFILE (the contract's fixed settings, dataproc.tf).
resource "google_bigtable_app_profile" "profile" {
  for_each = module.contract.app_profiles

  instance       = google_bigtable_instance.history.name
  app_profile_id = each.key
  description    = each.value.description
  # Bigtable warns when a single-cluster profile is made on a replicated instance: that is the point.
  ignore_warnings = true

  multi_cluster_routing_use_any = local.bigtable_profile_routing[each.key].any_cluster ? true : null

  dynamic "single_cluster_routing" {
    for_each = local.bigtable_profile_routing[each.key].any_cluster ? [] : [local.bigtable_primary_cluster]
    content {
      cluster_id                 = single_cluster_routing.value
      allow_transactional_writes = each.value.transactional_writes
    }
  }

  standard_isolation {
    priority = local.bigtable_profile_routing[each.key].priority
  }
}

resource "google_bigtable_table" "table" {
  for_each = module.contract.bigtable_tables

  name                = each.key
  instance_name       = google_bigtable_instance.history.name
  deletion_protection = var.deletion_protection ? "PROTECTED" : "UNPROTECTED"

  dynamic "column_family" {
    for_each = each.value
    content {
      family = column_family.value
    }
  }

  # A daily backup of every table, kept bigtable_backup_retention_days; "0" and "0" turn off the
  # policy of a table that had one (leaving the block out would keep it).
  automated_backup_policy {
    frequency        = var.bigtable_backup_retention_days > 0 ? "24h0m0s" : "0"
    retention_period = var.bigtable_backup_retention_days > 0 ? "${var.bigtable_backup_retention_days * 24}h0m0s" : "0"
  }
}

resource "google_bigtable_gc_policy" "family" {
  for_each = module.contract.gc_policies

  instance_name = google_bigtable_instance.history.name
  table         = google_bigtable_table.table[each.value.table].name
  column_family = each.value.family
  gc_rules      = each.value.gc_rules
  # Dropping the policy resource must never relax a rule on live data.
  deletion_policy = "ABANDON"
}
