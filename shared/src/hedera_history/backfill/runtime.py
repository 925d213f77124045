"""The Dataproc Serverless runtime the backfill runs on, pinned in this one place.

Runtime 2.3 (LTS) is supported until 2027-11-26 and available until 2029-11-26
(https://cloud.google.com/dataproc-serverless/docs/concepts/versions/spark-runtime-versions).
It brings Spark 3.5 on Java 17 (Scala 2.13). 2.2 left support on 2026-09-30; 3.0 (Spark 4.0,
Java 21) is supported only until 2027-01-31 and uses no staging bucket, which the batch identity's
grants are built around (docs/backfill.md).

Everything that must agree with the runtime reads it from here: ``backfill submit --version``,
the pyspark pin of ``pyproject.toml``'s extras (so local tests run the Spark that production runs),
the container image's Python (its requirements are resolved for it) and the Terraform variable's
default (checked by tests/unit/backfill/test_runtime_image.py).
"""

from __future__ import annotations

from pathlib import Path

RUNTIME_VERSION = "2.3"
"""``gcloud dataproc batches submit --version`` / the API's ``RuntimeConfig.version``."""
SPARK_VERSION = "3.5.3"
"""The Spark the runtime mounts into the container; ``pyspark`` is pinned to it for the tests."""
JAVA_VERSION = "17"
PYTHON_VERSION = "3.11"
"""The Python of the custom image (``PYSPARK_PYTHON``): the runtime mounts Spark and Java, the image
brings its own interpreter and the project's requirements, resolved for this version."""
SUPPORTED_UNTIL = "2027-11-26"

IMAGE_DIR = Path("backfill")
"""The backfill's deployable beside ``functions/``, relative to the checkout: the custom container's
recipe (Dockerfile, pinned requirements) and the job file Dataproc runs (:data:`JOB_FILE`)."""
JOB_FILE = IMAGE_DIR / "dataproc_job.py"
"""The main Python file of every batch and cluster job, relative to the checkout."""
IMAGE_NAME = "backfill"
"""The image's name in the deployment's Artifact Registry repository."""
DEFAULT_IMAGE_TAG = "main"
"""Cloud Build tags each image with its commit and, for a branch build, with the branch's name:
``main`` is the newest image of the code the deployment runs."""
