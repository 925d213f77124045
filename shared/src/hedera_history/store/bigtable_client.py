"""The only module that imports the Bigtable client.

Data calls go through the data client (``google.cloud.bigtable.data``), which takes an
operation and an attempt timeout on every call; table administration through the classic admin
``Instance``. Client errors become StoreUnavailableError (try again) or StoreError here, with
``raise ... from e``. ``BIGTABLE_EMULATOR_HOST`` is honoured by both clients.
"""

from __future__ import annotations

import contextlib
import operator
import os
import re
import warnings
from collections.abc import Iterator, Sequence
from datetime import timedelta
from functools import partial
from typing import Any
from urllib.parse import quote

import grpc
from google.api_core import exceptions as core_exceptions
from google.cloud import bigtable
from google.cloud.bigtable import column_family
from google.cloud.bigtable.data import (
    BigtableDataClient,
    DeleteAllFromRow,
    ReadRowsQuery,
    RowMutationEntry,
    RowRange,
    SetCell,
    row_filters,
)
from google.cloud.bigtable.data._sync_autogen._swappable_channel import SwappableChannel
from google.cloud.bigtable.data.exceptions import (
    FailedMutationEntryError,
    MutationsExceptionGroup,
    RetryExceptionGroup,
)
from google.cloud.bigtable_v2.types import bigtable as bigtable_types
from google.protobuf.message import DecodeError

from hedera_history.config import Settings
from hedera_history.errors import StoreError, StoreUnavailableError
from hedera_history.grpc_options import UNLIMITED_MESSAGES
from hedera_history.speedups import mutate_rows_answer as compiled_answer
from hedera_history.store.gateway import (
    DEADLINE_EXCEEDED,
    UNAVAILABLE,
    CellSwap,
    MutationFailure,
    RowQuery,
    StoredCell,
    StoredRow,
)
from hedera_history.store.model import Row
from hedera_history.store.mutation_wire import EncodedRows, MutationEncoder
from hedera_history.store.schema import GcRule, TableSpec, table_id

_TRANSIENT = (
    core_exceptions.DeadlineExceeded,
    core_exceptions.ServiceUnavailable,
    core_exceptions.Aborted,
    core_exceptions.TooManyRequests,  # RESOURCE_EXHAUSTED
    core_exceptions.RetryError,
    RetryExceptionGroup,
)
_RAW_MUTATE_ROWS_REQUEST: Any = bigtable_types.MutateRowsRequest.pb()
_RAW_MUTATE_ROWS_RESPONSE: Any = bigtable_types.MutateRowsResponse.pb()
_MUTATE_ROWS_METHOD = "/google.bigtable.v2.Bigtable/MutateRows"
_INSTANCE_NAME = re.compile(r"projects/(?P<project>[^/]+)/instances/(?P<instance>[^/]+)")
_UNKNOWN = 2
_INTERNAL = 13
"""The code gRPC gives a call whose answer it cannot read."""
_index_of = operator.attrgetter("index")
_code_of_result = operator.attrgetter("status.code")


def translate(error: Exception, what: str) -> StoreError:
    """The project error for a client error raised while doing ``what``."""
    if isinstance(error, _TRANSIENT):
        return StoreUnavailableError(f"{what}: Bigtable did not answer in time or is unavailable: {error}")
    if isinstance(error, core_exceptions.NotFound):
        return StoreError(f"{what}: not found (is the table created? run ensure_tables): {error}")
    return StoreError(f"{what}: {error}")


class _DataClient(BigtableDataClient):  # type: ignore[misc]
    """The data client, whose emulator channel takes messages of any size (as its channels to the
    real service do; it opens a bare one to the emulator)."""

    def _build_grpc_channel(self, *args: Any, **kwargs: Any) -> Any:
        if self._emulator_host is None:
            return super()._build_grpc_channel(*args, **kwargs)
        return SwappableChannel(partial(grpc.insecure_channel, self._emulator_host, options=UNLIMITED_MESSAGES))


class BigtableDataGateway:
    """``BigtableGateway`` over the Bigtable data client."""

    def __init__(self, project: str, instance_id: str, settings: Settings) -> None:
        with _emulator_warning_silenced():
            self._client = _DataClient(project=project)
        self._instance_id = instance_id
        self._project = project
        self._settings = settings
        self._timeout = settings.bigtable_timeout_seconds
        # None: the instance's default profile.
        self._app_profile = settings.bigtable_app_profile or None
        self._tables: dict[str, Any] = {}
        self._encoder = MutationEncoder()
        self._mutate_targets: dict[str, tuple[str, tuple[tuple[str, str], ...]]] = {}
        self._mutate_rpc: Any = None

    def _table(self, name: str) -> Any:
        table = self._tables.get(name)
        if table is None:
            table = self._client.get_table(
                self._instance_id, table_id(name, self._settings), app_profile_id=self._app_profile
            )
            self._tables[name] = table
        return table

    def mutate_rows(self, table: str, rows: Sequence[Row]) -> list[MutationFailure]:
        """One MutateRows call carrying ``rows``, encoded by ``mutation_wire``, on the client's channel.

        The client's ``bulk_mutate_rows`` builds every cell as a proto-plus object and spends most
        of a large write in that conversion (bench/store_bench.py measures both paths); the
        request is identical on the wire. ``EncodedRows`` (from the writer) arrive encoded. The
        answers arrive as bytes and are read by ``read_answer`` (no message per entry). No
        retries here: the writer retries exactly the entries that failed.
        """
        if not rows:
            return []
        chunks = rows.chunks if isinstance(rows, EncodedRows) else self._encoder.entries(rows)
        table_name, metadata = self._mutate_target(table)
        request = self._encoder.request(table_name, chunks, self._app_profile)
        rpc = self._mutate_rpc
        if rpc is None:
            # Both ways the wire bytes: the request is serialised already, the answers are read here.
            rpc = self._client.transport.grpc_channel.unary_stream(_MUTATE_ROWS_METHOD)
            self._mutate_rpc = rpc
        answers: list[bytes] = []
        count = 0
        failures: list[MutationFailure] = []
        call = rpc(request, timeout=self._timeout, metadata=metadata)
        try:
            for answer in call:
                answers.append(answer)
                answered, failed = read_answer(answer)
                count += answered
                failures.extend(MutationFailure(index, code, message) for index, code, message in failed)
        except grpc.RpcError as e:
            error = core_exceptions.from_grpc_error(e)  # type: ignore[no-untyped-call]
            if isinstance(error, core_exceptions.NotFound | core_exceptions.PermissionDenied):
                raise translate(error, f"MutateRows on {table}") from e
            return _with_unanswered(failures, len(rows), answers, _code_of(error), str(error))
        except DecodeError as e:
            call.cancel()
            return _with_unanswered(failures, len(rows), answers, _INTERNAL, f"unreadable MutateRows answer: {e}")
        if count < len(rows):
            return _with_unanswered(failures, len(rows), answers, UNAVAILABLE, "no result for this entry")
        return failures

    def mutate_rows_request(self, table: str) -> Any:
        """An empty raw MutateRowsRequest for ``table`` through this gateway's app profile."""
        request = _RAW_MUTATE_ROWS_REQUEST(table_name=self._table_path(table))
        if self._app_profile is not None:
            request.app_profile_id = self._app_profile
        return request

    def _mutate_target(self, table: str) -> tuple[str, tuple[tuple[str, str], ...]]:
        """The table's resource name and the routing header of its MutateRows calls."""
        target = self._mutate_targets.get(table)
        if target is None:
            request = self.mutate_rows_request(table)
            target = (request.table_name, (("x-goog-request-params", _routing_params(request)),))
            self._mutate_targets[table] = target
        return target

    def _table_path(self, table: str) -> str:
        return f"projects/{self._project}/instances/{self._instance_id}/tables/{table_id(table, self._settings)}"

    def delete_rows(self, table: str, keys: Sequence[bytes]) -> None:
        """Delete whole rows (state tables only: history is never deleted by the pipeline)."""
        if not keys:
            return
        entries = [RowMutationEntry(key, [DeleteAllFromRow()]) for key in keys]
        try:
            self._table(table).bulk_mutate_rows(entries, operation_timeout=self._timeout)
        except MutationsExceptionGroup as group:
            raise StoreUnavailableError(f"DeleteRows on {table}: {len(group.exceptions)} rows failed") from group
        except core_exceptions.GoogleAPICallError as e:
            raise translate(e, f"DeleteRows on {table}") from e

    def read_rows(self, table: str, query: RowQuery) -> Iterator[StoredRow]:
        if not query.keys and not query.ranges:
            return
        request = _to_read_query(query)
        what = f"ReadRows on {table}"
        try:
            stream = self._table(table).read_rows_stream(
                request, operation_timeout=self._timeout, attempt_timeout=self._timeout
            )
            for row in stream:
                yield StoredRow(
                    bytes(row.row_key),
                    tuple(
                        StoredCell(c.family, bytes(c.qualifier), bytes(c.value), int(c.timestamp_micros))
                        for c in row.cells
                    ),
                )
        except core_exceptions.GoogleAPICallError as e:
            raise translate(e, what) from e
        except RetryExceptionGroup as e:
            raise translate(e, what) from e

    def check_and_set(self, table: str, key: bytes, swap: CellSwap) -> bool:
        """Atomically set one cell if its latest value is ``swap.expected`` (None: if it is absent).

        For state tables (e.g. Cardinal tracking, watermarks). True when the cell was set.
        ``swap.timestamp_micros`` None stamps the cell with the client's clock.
        """
        column = row_filters.ColumnRangeFilter(swap.family, swap.qualifier, swap.qualifier)
        mutation = SetCell(swap.family, swap.qualifier, swap.value, timestamp_micros=swap.timestamp_micros)
        what = f"CheckAndMutateRow on {table}"
        expected = swap.expected
        try:
            if expected is None:
                matched = self._table(table).check_and_mutate_row(
                    key, column, false_case_mutations=[mutation], operation_timeout=self._timeout
                )
                return not matched
            predicate = row_filters.RowFilterChain(
                [column, row_filters.CellsColumnLimitFilter(1), row_filters.ValueRangeFilter(expected, expected)]
            )
            return bool(
                self._table(table).check_and_mutate_row(
                    key, predicate, true_case_mutations=[mutation], operation_timeout=self._timeout
                )
            )
        except core_exceptions.GoogleAPICallError as e:
            raise translate(e, what) from e
        except RetryExceptionGroup as e:
            raise translate(e, what) from e

    def close(self) -> None:
        self._client.close()


def open_gateway(settings: Settings) -> BigtableDataGateway:
    """A gateway to ``settings.project`` / ``settings.bigtable_instance``."""
    _export_emulator_host(settings)
    return BigtableDataGateway(settings.project, settings.bigtable_instance, settings)


def gateway_for_instance(instance: Any, settings: Settings) -> BigtableDataGateway:
    """A gateway to the instance a classic ``Instance`` handle names."""
    project, instance_id = _split_instance_name(instance.name)
    return BigtableDataGateway(project, instance_id, settings)


def open_admin_instance(settings: Settings) -> Any:
    """A classic admin ``Instance`` handle, for ``schema.ensure_tables``."""
    _export_emulator_host(settings)
    with _emulator_warning_silenced():
        return bigtable.Client(project=settings.project, admin=True).instance(settings.bigtable_instance)


def ensure_declared_tables(instance: Any, specs: Sequence[TableSpec]) -> None:
    """Create missing tables and families; bring GC rules in line with ``specs``."""
    for spec in specs:
        what = f"creating table {spec.table_id}"
        rules = {family: _gc_rule(rule) for family, rule in spec.families}
        table = instance.table(spec.table_id)
        try:
            if not table.exists():
                try:
                    table.create(column_families=rules)
                    continue
                except core_exceptions.AlreadyExists:
                    pass  # another process created it meanwhile; check its families below
            existing = table.list_column_families()
            for family, rule in rules.items():
                if family not in existing:
                    table.column_family(family, rule).create()
                elif existing[family].gc_rule is None or existing[family].gc_rule.to_pb() != rule.to_pb():
                    table.column_family(family, rule).update()
        except core_exceptions.GoogleAPICallError as e:
            raise translate(e, what) from e


def read_gc_policies(instance: Any, table_ids: Sequence[str]) -> dict[str, dict[str, dict[str, Any]]]:
    """The GC rules in force, in the plain-data shape of ``schema.gc_policy_data``."""
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for name in table_ids:
        try:
            families = instance.table(name).list_column_families()
        except core_exceptions.GoogleAPICallError as e:
            raise translate(e, f"reading column families of {name}") from e
        out[name] = {family: _rule_data(cf.gc_rule.to_pb() if cf.gc_rule else None) for family, cf in families.items()}
    return out


def _gc_rule(rule: GcRule) -> Any:
    versions = column_family.MaxVersionsGCRule(rule.max_versions)
    if rule.max_age_days is None:
        return versions
    return column_family.GCRuleUnion([versions, column_family.MaxAgeGCRule(timedelta(days=rule.max_age_days))])


def _rule_data(pb: Any) -> dict[str, Any]:
    data: dict[str, Any] = {"max_versions": None, "max_age_days": None}
    if pb is None:
        return data
    raw = type(pb).pb(pb)  # the admin client returns proto-plus wrappers
    parts = list(raw.union.rules) if raw.WhichOneof("rule") == "union" else [raw]
    for part in parts:
        kind = part.WhichOneof("rule")
        if kind == "max_num_versions":
            data["max_versions"] = part.max_num_versions
        elif kind == "max_age":
            data["max_age_days"] = part.max_age.seconds // 86_400
    return data


def _failures(group: MutationsExceptionGroup, count: int) -> list[MutationFailure]:
    failures: list[MutationFailure] = []
    for error in group.exceptions:
        if not isinstance(error, FailedMutationEntryError) or error.index is None:
            # The whole request failed in a way not tied to an entry: fail every entry alike.
            cause = error.__cause__ or error
            return [MutationFailure(i, _code_of(cause), str(cause)) for i in range(count)]
        cause = error.__cause__ or error
        failures.append(MutationFailure(int(error.index), _code_of(cause), str(cause)))
    return failures


def _code_of(error: BaseException) -> int:
    if isinstance(error, RetryExceptionGroup) and error.exceptions:
        return _code_of(error.exceptions[-1])
    if isinstance(error, core_exceptions.GoogleAPICallError):
        status = error.grpc_status_code
        if status is not None:
            return int(status.value[0])
        if isinstance(error, core_exceptions.DeadlineExceeded):
            return DEADLINE_EXCEEDED
    return _UNKNOWN


def read_answer(answer: bytes) -> tuple[int, list[tuple[int, int, str]]]:
    """A serialised MutateRowsResponse: how many entries it answers, and the (index, code, message)
    of those that failed. Read by the compiled core where it is built (without a message per
    entry, which took longer than the call itself on a large batch); by protobuf where it is not,
    or where the answer is not of the regular shape."""
    read = None if compiled_answer is None else compiled_answer(answer)
    return python_read_answer(answer) if read is None else read


def python_read_answer(answer: bytes) -> tuple[int, list[tuple[int, int, str]]]:
    """``read_answer`` without the compiled core; DecodeError for what protobuf refuses."""
    results = _RAW_MUTATE_ROWS_RESPONSE.FromString(answer).entries
    if not any(map(_code_of_result, results)):
        return len(results), []
    return len(results), [(r.index, r.status.code, r.status.message) for r in results if r.status.code]


def _with_unanswered(
    failures: list[MutationFailure], count: int, answers: list[bytes], code: int, message: str
) -> list[MutationFailure]:
    """``failures`` and a failure for each of the ``count`` entries that ``answers`` left unanswered
    (rare: only then are the indexes read)."""
    answered: set[int] = set()
    for answer in answers:
        with contextlib.suppress(DecodeError):  # an unreadable answer answers nothing
            answered.update(map(_index_of, _RAW_MUTATE_ROWS_RESPONSE.FromString(answer).entries))
    return [*failures, *(MutationFailure(i, code, message) for i in range(count) if i not in answered)]


def _routing_params(request: Any) -> str:
    """The routing header the client's own calls send: the table, and the app profile when set."""
    params = f"table_name={quote(request.table_name, safe='')}"
    if request.app_profile_id:
        params += f"&app_profile_id={quote(request.app_profile_id, safe='')}"
    return params


def _to_read_query(query: RowQuery) -> Any:
    # Only the latest version of each column: older ones linger until garbage collection.
    filters: list[Any] = [row_filters.CellsColumnLimitFilter(1)]
    if query.families:
        alternatives = "|".join(re.escape(f) for f in query.families)
        filters.append(row_filters.FamilyNameRegexFilter(f"^(?:{alternatives})$"))
    if query.qualifier_regex is not None:
        filters.append(row_filters.ColumnQualifierRegexFilter(query.qualifier_regex))
    if query.cells_per_row is not None:
        filters.append(row_filters.CellsRowLimitFilter(query.cells_per_row))
    if query.key_only:
        filters.append(row_filters.StripValueTransformerFilter(True))
    row_filter = filters[0] if len(filters) == 1 else row_filters.RowFilterChain(filters)
    ranges = [RowRange(start_key=r.start or None, end_key=r.end or None) for r in query.ranges]
    return ReadRowsQuery(
        row_keys=list(query.keys) or None, row_ranges=ranges or None, limit=query.limit, row_filter=row_filter
    )


def _split_instance_name(name: str) -> tuple[str, str]:
    match = _INSTANCE_NAME.fullmatch(name)
    if match is None:
        raise StoreError(f"not a Bigtable instance name: {name!r}")
    return match["project"], match["instance"]


@contextlib.contextmanager
def _emulator_warning_silenced() -> Iterator[None]:
    # The clients warn on every emulator connection; using the emulator is deliberate here.
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "Connecting to Bigtable emulator", RuntimeWarning)
        yield


def _export_emulator_host(settings: Settings) -> None:
    # Both clients read the emulator address from the environment only.
    if settings.bigtable_emulator_host:
        os.environ["BIGTABLE_EMULATOR_HOST"] = settings.bigtable_emulator_host
