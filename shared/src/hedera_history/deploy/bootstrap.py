"""From an empty project to one Terraform can plan: APIs enabled, the state bucket created.

Terraform keeps its state in a GCS bucket (``infra/environments/<env>.backend.hcl``) that must exist
before ``terraform init``, and it enables the project's APIs through the Service Usage API, which
must itself be on. ``hedera-history deploy bootstrap --env ENV`` does both, once, idempotently:

1. enables every API ``infra/`` enables (``google_project_service.api``), plus Service Usage, Cloud
   Resource Manager (``data.google_project``) and Storage, with ``services:batchEnable`` and waits
   for the operation: a first ``apply`` then never races an API that is still turning on;
2. creates the state bucket (versioned, so a bad apply can be undone from an earlier state;
   uniform bucket-level access; public access prevented) in the environment's region, or turns
   versioning on for one that exists.

Credentials are the application default ones; when there are none, :func:`require_credentials`
says exactly what to run.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import hcl2
from lark.exceptions import LarkError

from hedera_history.deploy.repo_paths import INFRA_DIR, Environment
from hedera_history.errors import BootstrapError

SERVICE_USAGE = "https://serviceusage.googleapis.com/v1"
ALWAYS_ENABLED = ("serviceusage.googleapis.com", "cloudresourcemanager.googleapis.com", "storage.googleapis.com")
BATCH_LIMIT = 20
"""``services:batchEnable`` takes at most 20 services a call."""
OPERATION_TIMEOUT_SECONDS = 600.0
_SCOPES = ("https://www.googleapis.com/auth/cloud-platform",)
_OPTIONS = hcl2.SerializationOptions(strip_string_quotes=True, explicit_blocks=False, with_comments=False)


@dataclass(frozen=True, slots=True)
class BootstrapPlan:
    project: str
    location: str
    state_bucket: str
    apis: tuple[str, ...]


@dataclass
class BootstrapReport:
    enabled: list[str] = field(default_factory=list)
    bucket_created: bool = False
    versioning_turned_on: bool = False


def _parse(path: Path) -> dict[str, Any]:
    try:
        with path.open() as file:
            parsed: dict[str, Any] = hcl2.load(file, serialization_options=_OPTIONS)
    except (OSError, LarkError) as e:
        raise BootstrapError(f"cannot read {path.name}: {e}", file=str(path)) from e
    return parsed


def infra_apis(root: Path) -> list[str]:
    """The services ``google_project_service.api`` enables (its ``for_each`` list), in order."""
    versions = _parse(root / INFRA_DIR / "versions.tf")
    for block in versions.get("resource", []):
        api = block.get("google_project_service", {}).get("api")
        if api is not None:
            return re.findall(r"[a-z0-9-]+\.googleapis\.com", str(api.get("for_each", "")))
    raise BootstrapError("infra/versions.tf enables no APIs (google_project_service.api)")


def plan_bootstrap(root: Path, environment: Environment, project: str | None = None) -> BootstrapPlan:
    variables = _parse(environment.var_file)
    if environment.backend_config is None:
        raise BootstrapError(f"environment {environment.name} has no backend file ({environment.name}.backend.hcl)")
    backend = _parse(environment.backend_config)
    bucket = str(backend.get("bucket", ""))
    chosen = project or str(variables.get("project", ""))
    if not bucket or not chosen:
        raise BootstrapError(f"environment {environment.name} names no state bucket or no project")
    apis = tuple(dict.fromkeys([*ALWAYS_ENABLED, *infra_apis(root)]))
    return BootstrapPlan(chosen, str(variables.get("region", "US")), bucket, apis)


def require_credentials() -> tuple[Any, str | None]:
    """Application default credentials and their project, or a :class:`BootstrapError` naming the fix."""
    import google.auth  # noqa: PLC0415 (only the deploy commands need it)
    from google.auth.exceptions import DefaultCredentialsError  # noqa: PLC0415

    try:
        credentials, project = google.auth.default(scopes=_SCOPES)
    except DefaultCredentialsError as e:
        raise BootstrapError(
            "no application default credentials: run `gcloud auth application-default login` "
            "(or set GOOGLE_APPLICATION_CREDENTIALS to a service account key file)"
        ) from e
    return credentials, project


def enable_apis(
    session: Any,
    project: str,
    apis: Sequence[str],
    *,
    endpoint: str = SERVICE_USAGE,
    timeout: float = OPERATION_TIMEOUT_SECONDS,
    sleep: Callable[[float], None] = time.sleep,
) -> list[str]:
    """Enable ``apis`` on ``project`` and wait until each batch's operation is done. ``session`` is a
    ``requests`` session that authenticates (google-auth's ``AuthorizedSession``)."""
    for start in range(0, len(apis), BATCH_LIMIT):
        batch = list(apis[start : start + BATCH_LIMIT])
        response = session.post(
            f"{endpoint}/projects/{project}/services:batchEnable", json={"serviceIds": batch}, timeout=60
        )
        operation = _json(response, f"enabling {', '.join(batch)}")
        give_up = time.monotonic() + timeout
        delay = 1.0
        while not operation.get("done"):
            if time.monotonic() > give_up:
                raise BootstrapError(f"enabling {', '.join(batch)} did not finish within {timeout:.0f} s")
            sleep(delay)
            delay = min(delay * 2, 10.0)
            operation = _json(session.get(f"{endpoint}/{operation['name']}", timeout=60), "waiting for the APIs")
        if "error" in operation:
            raise BootstrapError(f"enabling {', '.join(batch)} failed: {operation['error'].get('message', '')}")
    return list(apis)


def _json(response: Any, doing: str) -> dict[str, Any]:
    if response.status_code >= 400:
        detail = response.text[:500]
        hint = " (does the account hold roles/serviceusage.serviceUsageAdmin?)" if response.status_code == 403 else ""
        raise BootstrapError(f"{doing}: HTTP {response.status_code}{hint}: {detail}")
    body: dict[str, Any] = response.json()
    return body


def ensure_state_bucket(client: Any, plan: BootstrapPlan, report: BootstrapReport) -> None:
    """Create the versioned state bucket, or turn versioning on for the one that exists."""
    from google.api_core import exceptions as api_exceptions  # noqa: PLC0415

    try:
        bucket = client.lookup_bucket(plan.state_bucket)
        if bucket is None:
            bucket = client.bucket(plan.state_bucket)
            bucket.versioning_enabled = True
            bucket.iam_configuration.uniform_bucket_level_access_enabled = True
            bucket.iam_configuration.public_access_prevention = "enforced"
            client.create_bucket(bucket, project=plan.project, location=plan.location)
            report.bucket_created = True
        elif not bucket.versioning_enabled:
            bucket.versioning_enabled = True
            bucket.patch()
            report.versioning_turned_on = True
    except api_exceptions.GoogleAPIError as e:
        raise BootstrapError(f"state bucket gs://{plan.state_bucket}: {e}") from e


def bootstrap(plan: BootstrapPlan, session: Any, storage_client: Any, **enable: Any) -> BootstrapReport:
    report = BootstrapReport()
    report.enabled = enable_apis(session, plan.project, plan.apis, **enable)
    ensure_state_bucket(storage_client, plan, report)
    return report


def bootstrap_project(plan: BootstrapPlan) -> BootstrapReport:
    """:func:`bootstrap` with the application default credentials: a Service Usage session and a
    Storage client billed to ``plan.project``."""
    credentials, _ = require_credentials()
    from google.auth.transport.requests import AuthorizedSession  # noqa: PLC0415 (only the deploy commands need it)
    from google.cloud import storage  # noqa: PLC0415

    return bootstrap(
        plan,
        AuthorizedSession(credentials),  # type: ignore[no-untyped-call]
        storage.Client(project=plan.project, credentials=credentials),
    )
