"""The reference mirror node's OpenAPI as a contract: which of its paths a request path is, and
whether an answer validates against the response schema it declares (openapi-schema-validator,
OpenAPI 3.1 dialect, ``$ref`` resolved within the document)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import yaml
from openapi_schema_validator import OAS31Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from tests.data_dir import mirror_openapi_path

DOCUMENT_URI = "urn:mirror-node:openapi"


def load_reference_document(path: Path | None = None) -> dict[str, Any]:
    """The reference OpenAPI; a missing file fails the caller's test (never skips)."""
    path = path or mirror_openapi_path()
    if not path.is_file():
        raise AssertionError(
            f"the reference mirror-node OpenAPI is missing at {path}; set HEDERA_HISTORY_MIRROR_OPENAPI to its path"
        )
    document: dict[str, Any] = _string_keys(yaml.safe_load(path.read_text()))
    return document


def _string_keys(node: Any) -> Any:
    """YAML reads an unquoted ``200:`` as an integer; JSON pointers (and JSON) name it "200"."""
    if isinstance(node, dict):
        return {str(k): _string_keys(v) for k, v in node.items()}
    if isinstance(node, list):
        return [_string_keys(v) for v in node]
    return node


@dataclass
class ReferenceContract:
    document: dict[str, Any]

    @cached_property
    def _registry(self) -> Registry[Any]:
        resource = Resource.from_contents(self.document, default_specification=DRAFT202012)
        registry: Registry[Any] = Registry().with_resource(DOCUMENT_URI, resource)
        return registry

    @cached_property
    def _templates(self) -> list[tuple[re.Pattern[str], str]]:
        """Path templates, those with more fixed segments first (``/contracts/results`` before
        ``/contracts/{contractIdOrAddress}``)."""
        templates = sorted(self.document["paths"], key=lambda t: (t.count("{"), -t.count("/")))
        return [(re.compile("^" + re.sub(r"\{[^/}]+\}", "[^/]+", t) + "$"), t) for t in templates]

    def template_of(self, path: str) -> str:
        for pattern, template in self._templates:
            if pattern.fullmatch(path):
                return template
        raise AssertionError(f"{path} is not a path of the reference")

    def response_pointer(self, template: str, status: int, method: str = "get") -> str:
        """A JSON pointer (within the document) to the schema of the answer ``status``."""
        responses = self.document["paths"][template][method]["responses"]
        key = str(status)
        if key not in responses:
            raise AssertionError(f"the reference declares no {status} answer on {method.upper()} {template}")
        response = responses[key]
        pointer = f"/paths/{_escape(template)}/{method}/responses/{key}"
        if "$ref" in response:
            pointer = response["$ref"].removeprefix("#")
        return pointer + "/content/application~1json/schema"

    def validate(self, path: str, status: int, body: Any, method: str = "get") -> str:
        """Validate one answer; returns the reference template it was checked against."""
        template = self.template_of(path)
        schema = {"$ref": f"{DOCUMENT_URI}#{self.response_pointer(template, status, method)}"}
        OAS31Validator(schema, registry=self._registry).validate(body)
        return template

    def validate_component(self, name: str, body: Any) -> None:
        """Validate against one of the document's ``components/schemas``."""
        schema = {"$ref": f"{DOCUMENT_URI}#/components/schemas/{name}"}
        OAS31Validator(schema, registry=self._registry).validate(body)


def _escape(segment: str) -> str:
    return segment.replace("~", "~0").replace("/", "~1")


def checked_get(client: Any, contract: ReferenceContract, url: str, status: int = 200) -> Any:
    """GET ``url`` through a test client: the status asked, the body valid against the reference."""
    response = client.get(url)
    assert response.status_code == status, (url, response.data[:300])
    body = response.get_json()
    contract.validate(urlsplit(url).path, status, body)
    return body
