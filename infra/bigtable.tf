# Tables, families and GC rules come from hedera_history.store.schema (infra/generated/schema.json).

resource "google_bigtable_instance" "history" {
  name                = var.bigtable_instance
  deletion_protection = var.deletion_protection

  cluster {
    cluster_id   = "${var.bigtable_instance}-c1"
    zone         = var.bigtable_zone
    storage_type = var.bigtable_storage_type

    autoscaling_config {
      min_nodes  = var.bigtable_min_nodes
      max_nodes  = var.bigtable_max_nodes
      cpu_target = 60
    }
  }

  depends_on = [google_project_service.api]
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
