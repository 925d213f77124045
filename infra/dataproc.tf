# Backfill runs as Dataproc Serverless batches (`hedera-history backfill submit`). Dataproc keeps
# no stored template for Spark batches, so the template is a JSON object in the artifacts bucket in
# the shape of the Dataproc API's Batch (identity, its own staging bucket, runtime, image, environment); the
# `backfill_environment` output is the same configuration as the variables `backfill submit` reads.

locals {
  # The backfill verifies and stores like ingest does, so it reads the same settings, but through
  # its own Bigtable app profile (bigtable.tf: below the queries' priority).
  backfill_environment = merge(
    one([
      for function in module.contract.functions : function.environment_variables if function.trigger == "storage-finalized"
    ]),
    {
      (module.contract.setting_variables["bigtable_app_profile"]) = google_bigtable_app_profile.profile[module.contract.identity_app_profiles["backfill"]].app_profile_id
    },
  )

  backfill_batch = {
    runtimeConfig = {
      # The runtime pinned in shared/src/hedera_history/backfill/runtime.py (a test checks the
      # variable's default), on the image Cloud Build makes (artifact_registry.tf).
      version        = var.dataproc_runtime_version
      containerImage = local.backfill_container_image
      properties = merge(
        { for name, value in local.backfill_environment : "spark.dataproc.driverEnv.${name}" => value },
        { for name, value in local.backfill_environment : "spark.executorEnv.${name}" => value },
      )
    }
    environmentConfig = {
      executionConfig = merge(
        {
          serviceAccount = google_service_account.identity["backfill"].email
          stagingBucket  = google_storage_bucket.bucket["backfill_staging"].name
        },
        var.dataproc_subnetwork == "" ? {} : { subnetworkUri = var.dataproc_subnetwork },
      )
    }
    labels = { app = "hedera-history", component = "backfill" }
  }

  backfill_submit_settings = [
    "dataproc_region",
    "dataproc_staging_url",
    "dataproc_container_image",
    "dataproc_image_repository",
    "dataproc_image_tag",
    "dataproc_service_account",
  ]
}

resource "google_storage_bucket_object" "backfill_batch_template" {
  bucket       = google_storage_bucket.bucket["artifacts"].name
  name         = "backfill/batch-template.json"
  content_type = "application/json"
  content      = jsonencode(local.backfill_batch)
}
