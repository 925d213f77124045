"""The provider schema snapshot: how it reads the generated bindings, and the integrity pin.

The source below has the shape ``cdktf get`` writes for every resource (cut down to one argument
of each kind); the real package is read by ``hedera-history deploy schema-snapshot``, which needs
the network and is not run here.
"""

from __future__ import annotations

import base64
import hashlib

import pytest
from hedera_history.deploy import schema_snapshot
from hedera_history.errors import ProviderSchemaError

GENERATED = """
import * as cdktf from 'cdktf';
export interface ThingConfig extends cdktf.TerraformMetaArguments {
  readonly name: string;
  readonly size?: number;
  readonly rule?: ThingRule[] | cdktf.IResolvable;
}
export interface ThingRuleCondition {
  readonly age: number;
}
export function thingRuleConditionToHclTerraform(struct?: ThingRuleConditionOutputReference | ThingRuleCondition): any {
  const attrs = {
    age: {
      value: cdktf.numberToHclTerraform(struct!.age),
      isBlock: false,
      type: "simple",
      storageClassType: "number",
    },
  };
}
export class ThingRuleConditionOutputReference extends cdktf.ComplexObject {
  // age - computed: false, optional: false, required: true
}
export interface ThingRule {
  readonly tags?: string[];
  readonly condition: ThingRuleCondition;
}
export function thingRuleToHclTerraform(struct?: ThingRule | cdktf.IResolvable): any {
  const attrs = {
    tags: {
      value: cdktf.listMapperHcl(cdktf.stringToHclTerraform, false)(struct!.tags),
      isBlock: false,
      type: "set",
      storageClassType: "stringList",
    },
    condition: {
      value: thingRuleConditionToHclTerraform(struct!.condition),
      isBlock: true,
      type: "list",
      storageClassType: "ThingRuleConditionList",
    },
  };
}
export class ThingRuleOutputReference extends cdktf.ComplexObject {
  // tags - computed: false, optional: true, required: false
  // condition - computed: false, optional: false, required: true
}
export class Thing extends cdktf.TerraformResource {
  public static readonly tfResourceType = "google_thing";
  // name - computed: false, optional: false, required: true
  // size - computed: true, optional: true, required: false
  // self_link - computed: true, optional: false, required: false
  // rule - computed: false, optional: true, required: false
  protected synthesizeHclAttributes(): { [name: string]: any } {
    const attrs = {
      name: {
        value: cdktf.stringToHclTerraform(this._name),
        isBlock: false,
        type: "simple",
        storageClassType: "string",
      },
      size: {
        value: cdktf.numberToHclTerraform(this._size),
        isBlock: false,
        type: "simple",
        storageClassType: "number",
      },
      rule: {
        value: cdktf.listMapperHcl(thingRuleToHclTerraform, true)(this._rule.internalValue),
        isBlock: true,
        type: "list",
        storageClassType: "ThingRuleList",
      },
    };
  }
}
"""


def test_the_generated_bindings_give_names_nesting_requirement_and_types():
    schema = schema_snapshot.schema_from_sources([[GENERATED]])
    thing = schema["resources"]["google_thing"]
    assert thing["attributes"] == {"name": {"type": "string", "required": True}, "size": {"type": "number"}}
    assert thing["computed_only"] == ["self_link"]
    rule = thing["blocks"]["rule"]
    assert rule["nesting"] == "list" and "max_one" not in rule and "required" not in rule
    assert rule["block"]["attributes"] == {"tags": {"type": "set(string)"}}
    condition = rule["block"]["blocks"]["condition"]
    assert condition["max_one"] is True and condition["required"] is True
    assert condition["block"]["attributes"] == {"age": {"type": "number", "required": True}}


def test_a_package_with_no_resource_is_refused():
    with pytest.raises(ProviderSchemaError, match="no resource"):
        schema_snapshot.schema_from_sources([["export interface Nothing {}\n"]])


def test_the_tarball_must_match_its_pinned_integrity():
    data = b"a package"
    good = "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode()
    schema_snapshot.check_integrity(data, good)
    with pytest.raises(ProviderSchemaError, match="integrity mismatch"):
        schema_snapshot.check_integrity(data + b"!", good)
    with pytest.raises(ProviderSchemaError, match="unsupported integrity"):
        schema_snapshot.check_integrity(data, "sha1-abc")


def test_the_snapshot_bytes_do_not_depend_on_when_they_were_made():
    snapshot = {"resources": {"google_thing": {}}, "source": {"version": "1"}}
    assert schema_snapshot.snapshot_bytes(snapshot) == schema_snapshot.snapshot_bytes(dict(reversed(snapshot.items())))


def test_the_check_passes_only_on_the_committed_bytes(tmp_path):
    snapshot: dict[str, dict[str, dict[str, str]]] = {"resources": {"google_storage_bucket": {}}, "data_sources": {}}
    with pytest.raises(ProviderSchemaError):
        schema_snapshot.require_committed(snapshot, tmp_path)  # nothing committed
    schema_snapshot.write_snapshot(snapshot, tmp_path)
    assert schema_snapshot.require_committed(snapshot, tmp_path) == tmp_path / schema_snapshot.SNAPSHOT_NAME
    with pytest.raises(ProviderSchemaError):
        schema_snapshot.require_committed({**snapshot, "data_sources": {"x": {}}}, tmp_path)
