"""``hedera-history deploy``: contracts, function sources and Terraform (see docs/deploy.md).

Exit codes: 0 done, 1 failed, 2 usage, 3 Terraform could not reach its providers or state
backend (offline), 4 no Terraform binary.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

import click
from rich.console import Console
from rich.table import Table

from hedera_history.deploy import contracts, repo_paths, schema_snapshot
from hedera_history.deploy.bootstrap import bootstrap_project, plan_bootstrap
from hedera_history.deploy.build import build_function_sources, build_wheel
from hedera_history.deploy.lock import TARGETS, all_lock_problems, generate_lock
from hedera_history.deploy.rollout import apply_environment, plan_environment
from hedera_history.deploy.terraform import Terraform
from hedera_history.deploy.terraform_plan import Action, PlanSummary, summarize_plan
from hedera_history.deploy.validate import format_report, validate_directory
from hedera_history.errors import BuildError, DeployError, InfraInvalidError, StaleContractError

F = TypeVar("F", bound=Callable[..., Any])

_ACTION_STYLE = {
    Action.CREATE: "green",
    Action.UPDATE: "yellow",
    Action.REPLACE: "magenta",
    Action.DELETE: "red",
}


def _exits_on_deploy_errors(command: F) -> F:
    """A failed deployment step prints one line and exits with its error's code, never a traceback."""

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return command(*args, **kwargs)
        except DeployError as error:
            click.echo(f"error: {error}", err=True)
            click.get_current_context().exit(error.exit_code)

    return wrapper  # type: ignore[return-value]


@click.group("deploy")
@click.option(
    "--root",
    type=click.Path(file_okay=False, exists=True, path_type=Path),
    default=None,
    help="Repository root (default: found from the working directory).",
)
@click.pass_context
def deploy(ctx: click.Context, root: Path | None) -> None:
    """Generate the Terraform contracts, build function sources, and plan or apply infra/."""
    ctx.obj = repo_paths.repository_root(root)


def _root() -> Path:
    root = click.get_current_context().find_object(Path)
    assert root is not None
    return root


def _console() -> Console:
    return Console(stderr=True)


@contextmanager
def _step(console: Console, text: str) -> Iterator[None]:
    with console.status(text):
        yield
    console.print(f"[green]done[/] {text}")


@deploy.command("generate")
@click.option("--check", is_flag=True, help="Write nothing; exit 1 when a contract file is stale.")
@_exits_on_deploy_errors
def generate(check: bool) -> None:
    """Write infra/generated/*.json (tables, functions, topics, settings) from the code."""
    root = _root()
    if check:
        stale = contracts.stale_contracts(root)
        if stale:
            names = ", ".join(str(path.relative_to(root)) for path in stale)
            raise StaleContractError(f"stale: {names}; run hedera-history deploy generate")
        click.echo("infra/generated is current")
        return
    changed = contracts.write_contracts(root)
    for path in changed:
        click.echo(f"wrote {path.relative_to(root)}")
    if not changed:
        click.echo("infra/generated is current")


@deploy.command("build")
@_exits_on_deploy_errors
def build() -> None:
    """Build the project wheel (the backfill's) and every function source (folder and zip) under build/."""
    root, console = _root(), _console()
    problems = all_lock_problems(root)
    if problems:
        raise BuildError("; ".join(problems))
    with _step(console, "build the project wheel"):
        wheel = build_wheel(root, root / repo_paths.WHEEL_DIR)
    with _step(console, "build the function sources"):
        built = build_function_sources(root, root / repo_paths.FUNCTIONS_BUILD_DIR, wheel=wheel)
    table = Table(title="function sources")
    for column in ("source", "functions", "archive", "sha256"):
        table.add_column(column)
    for source in built:
        table.add_row(
            source.source, ", ".join(source.functions), str(source.archive.relative_to(root)), source.sha256[:16]
        )
    console.print(table)
    click.echo(str(wheel.relative_to(root)))


@deploy.command("lock")
@click.option("--check", is_flag=True, help="Resolve nothing; exit 1 when the lock does not fit pyproject.toml.")
@_exits_on_deploy_errors
def lock(check: bool) -> None:
    """Resolve the pinned, hashed requirements with uv: the functions' (functions/requirements.lock) and
    the backfill image's (backfill/requirements.lock, for the Dataproc runtime's Python)."""
    root = _root()
    if not check:
        for target in TARGETS:
            path = generate_lock(root, target)
            click.echo(f"wrote {path.relative_to(root)}")
    problems = all_lock_problems(root)
    for problem in problems:
        click.echo(problem, err=True)
    if problems:
        raise SystemExit(1)
    for target in TARGETS:
        click.echo(f"{target.file} fits pyproject.toml (Python {target.python_version})")


@deploy.command("fmt")
@click.option("--check", is_flag=True, help="Write nothing; exit 1 when a file is not formatted.")
@_exits_on_deploy_errors
def fmt(check: bool) -> None:
    """terraform fmt over infra/."""
    result = _terraform().fmt(check=check)
    for name in result.unformatted:
        click.echo(f"{'not formatted' if check else 'formatted'}: infra/{name}")
    if check and result.unformatted:
        raise DeployError(f"{len(result.unformatted)} file(s) not formatted; run hedera-history deploy fmt")


@deploy.command("validate")
@_exits_on_deploy_errors
def validate() -> None:
    """Check infra/ against the pinned google provider schema (offline; no Terraform)."""
    root = _root()
    report = validate_directory(root / repo_paths.INFRA_DIR, root=root)
    for line in format_report(report):
        click.echo(line)
    if report.findings:
        raise InfraInvalidError(f"{len(report.findings)} error(s) in infra/ against google {report.provider_version}")


@deploy.command("schema-snapshot")
@click.option(
    "--tarball",
    type=click.Path(dir_okay=False, exists=True, path_type=Path),
    default=None,
    help=f"A local copy of {schema_snapshot.PACKAGE} {schema_snapshot.PACKAGE_VERSION} (default: download it).",
)
@click.option("--check", is_flag=True, help="Write nothing; exit 1 when the committed snapshot differs.")
@_exits_on_deploy_errors
def schema_snapshot_command(tarball: Path | None, check: bool) -> None:
    """Rebuild the google provider schema snapshot from the pinned, integrity-checked npm package."""
    if tarball is not None:
        data = tarball.read_bytes()
        schema_snapshot.check_integrity(data, schema_snapshot.INTEGRITY)
    else:
        with _step(_console(), f"download {schema_snapshot.TARBALL_URL}"):
            data = schema_snapshot.fetch_tarball()
    snapshot = schema_snapshot.snapshot_from_tarball(data)
    if check:
        click.echo(f"{schema_snapshot.require_committed(snapshot).name} is current")
        return
    path = schema_snapshot.write_snapshot(snapshot)
    click.echo(
        f"wrote {path.name}: {len(snapshot['resources'])} resources, {len(snapshot['data_sources'])} data sources"
    )


_ENV = click.option("--env", "env_name", required=True, help="Environment: infra/environments/<env>.tfvars.")


@deploy.command("bootstrap")
@_ENV
@click.option("--project", default=None, help="The project (default: the environment's tfvars).")
@click.option("--dry-run", is_flag=True, help="Say what would be enabled and created; call nothing.")
@_exits_on_deploy_errors
def bootstrap_command(env_name: str, project: str | None, dry_run: bool) -> None:
    """Prepare an empty project for Terraform: enable the APIs, create the versioned state bucket."""
    root = _root()
    planned = plan_bootstrap(root, repo_paths.environment(root, env_name), project)
    click.echo(f"project {planned.project}: state bucket gs://{planned.state_bucket} ({planned.location})")
    click.echo(f"APIs: {', '.join(planned.apis)}")
    if dry_run:
        return
    with _step(_console(), "enable the APIs and create the state bucket"):
        report = bootstrap_project(planned)
    state = "created" if report.bucket_created else "versioning turned on" if report.versioning_turned_on else "present"
    click.echo(
        f"{len(report.enabled)} APIs enabled; state bucket {state}. Next: hedera-history deploy plan --env {env_name}"
    )


@deploy.command("init")
@_ENV
@click.option("--no-backend", is_flag=True, help="Skip the state backend (providers and modules only).")
@_exits_on_deploy_errors
def init(env_name: str, no_backend: bool) -> None:
    """terraform init with the environment's state backend."""
    environment = repo_paths.environment(_root(), env_name)
    with _step(_console(), f"terraform init ({environment.name})"):
        _terraform().init(backend_config=environment.backend_config, backend=not no_backend)


@deploy.command("plan")
@_ENV
@click.option("--json", "as_json", is_flag=True, help="Print the changes as JSON on stdout.")
@_exits_on_deploy_errors
def plan(env_name: str, as_json: bool) -> None:
    """Plan the environment into build/plans/<env>.tfplan and report what would change."""
    summary = _plan(repo_paths.environment(_root(), env_name))
    _report(summary, as_json=as_json)


@deploy.command("apply")
@_ENV
@click.option(
    "--plan",
    "plan_file",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="A saved plan (default build/plans/<env>.tfplan; planned now when missing).",
)
@_exits_on_deploy_errors
def apply(env_name: str, plan_file: Path | None) -> None:
    """Apply the environment's saved plan (or plan now, then apply) and report what changed."""
    root, console = _root(), _console()
    environment = repo_paths.environment(root, env_name)
    summary = apply_environment(
        root, environment, _terraform(), lambda text: _step(console, text), saved_plan=plan_file
    )
    if summary.empty:
        console.print("Nothing to apply.")
        return
    _report(summary, as_json=False, done=True)


@deploy.command("show")
@click.argument("plan_path", type=click.Path(dir_okay=False, exists=True, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print the changes as JSON on stdout.")
@_exits_on_deploy_errors
def show(plan_path: Path, as_json: bool) -> None:
    """Report what a plan changes: a saved plan file, or the JSON of `terraform show -json`."""
    if plan_path.suffix == ".json":
        try:
            data = json.loads(plan_path.read_text())
        except (OSError, json.JSONDecodeError) as e:
            raise DeployError(f"cannot read the plan JSON: {e}", file=str(plan_path)) from e
    else:
        data = _terraform().show(plan_path.resolve())
    _report(summarize_plan(data), as_json=as_json)


def _terraform() -> Terraform:
    return Terraform(_root() / repo_paths.INFRA_DIR)


def _plan(environment: repo_paths.Environment) -> PlanSummary:
    console = _console()
    return plan_environment(_root(), environment, _terraform(), lambda text: _step(console, text))


def _report(summary: PlanSummary, *, as_json: bool, done: bool = False) -> None:
    if as_json:
        click.echo(json.dumps(summary.as_data(), indent=2))
        return
    console = _console()
    if summary.empty:
        console.print("No changes: the infrastructure matches the configuration.")
        return
    table = Table(title="applied changes" if done else "planned changes")
    table.add_column("action")
    table.add_column("resource")
    for change in summary.changes:
        table.add_row(f"[{_ACTION_STYLE.get(change.action, 'white')}]{change.action}[/]", change.address)
    console.print(table)
    line = summary.line()
    console.print(line.replace("Plan:", "Applied:") if done else line)
