"""Backfill and reprocessing on Spark: list a range, verify and write it in tasks, report.

The driver (``driver.run_backfill``) plans and checks; the tasks (``task.run_partition``) run the
shared verification, row builder and writer; ``spark`` is the only module that imports PySpark.
See docs/backfill.md.
"""
