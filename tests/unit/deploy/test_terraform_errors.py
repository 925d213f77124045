"""A failing Terraform command becomes the typed error that says why, with its exit code."""

from __future__ import annotations

from hedera_history.deploy.terraform import classify_failure
from hedera_history.errors import (
    BackendUnavailableError,
    ProviderDownloadError,
    TerraformError,
    TerraformNotFoundError,
)

OFFLINE_INIT = """
Error: Failed to query available provider packages

Could not retrieve the list of available versions for provider
hashicorp/google: could not connect to registry.terraform.io: Failed to
request discovery document
"""
NO_CREDENTIALS = "Error: storage.NewClient() failed: dialing: google: could not find default credentials."
NOT_INITIALISED = 'Error: Could not load plugin\n\nPlugin reinitialization required. Please run "terraform init".'


def test_provider_download_failures_are_offline_errors():
    error = classify_failure("init", OFFLINE_INIT)
    assert isinstance(error, ProviderDownloadError)
    assert error.exit_code == 3
    assert "providers cannot be downloaded" in str(error)
    assert "registry.terraform.io" in str(error)


def test_backend_failures_say_the_state_cannot_be_reached():
    error = classify_failure("init", NO_CREDENTIALS)
    assert isinstance(error, BackendUnavailableError)
    assert error.exit_code == 3


def test_an_uninitialised_module_says_to_run_init():
    error = classify_failure("plan", NOT_INITIALISED)
    assert type(error) is TerraformError
    assert "deploy init" in str(error)


def test_other_failures_keep_the_tail_of_the_output():
    error = classify_failure("plan", "\n".join(f"line {n}" for n in range(40)) + "\nError: Invalid index")
    assert type(error) is TerraformError
    assert error.exit_code == 1
    assert str(error).endswith("Error: Invalid index")
    assert "line 0 " not in str(error)


def test_a_missing_binary_is_its_own_error():
    error = classify_failure("version", "Terraform executable not found: [Errno 2]")
    assert isinstance(error, TerraformNotFoundError)
    assert error.exit_code == 4
