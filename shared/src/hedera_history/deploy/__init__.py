"""Deployment: the contract data Terraform reads, reproducible function sources, and Terraform
driven from Python (``hedera-history deploy``). See ``docs/deploy.md``."""
