"""``hedera-history proof``: get a proof bundle (from files on disk, the local stack, the
deployment's store or its query API) and verify one offline against a trusted book or a pinned book hash."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import click

from hedera_history.config import Settings
from hedera_history.errors import (
    HistoryError,
    ProofBookError,
    ProofCouncilError,
    ProofErrataMissingError,
    ProofErrataSubjectError,
    ProofError,
    ProofFormatError,
    ProofHashMismatchError,
    ProofLedgerError,
    ProofRatificationError,
    ProofSignatureError,
    ProofStakeError,
    ProofSubjectError,
    ProofTssError,
)
from hedera_history.verify.consensus import parse_consensus_ratio

if TYPE_CHECKING:
    from hedera_history.proofs.transaction_ids import TransactionQuery

EXIT_CODES: dict[type[ProofError], int] = {
    ProofFormatError: 2,
    ProofHashMismatchError: 3,
    ProofSignatureError: 4,
    ProofStakeError: 5,
    ProofBookError: 6,
    ProofSubjectError: 7,
    ProofErrataMissingError: 8,
    ProofErrataSubjectError: 9,
    ProofCouncilError: 10,
    ProofRatificationError: 11,
    ProofTssError: 4,
    ProofLedgerError: 12,
}
"""What ``proof verify`` exits with for each reason (1: any other failure)."""


@click.group("proof")
def proof() -> None:
    """Proof bundles: one transaction or block, checkable offline (docs/proofs.md)."""


@proof.command("get")
@click.option("--transaction", "transaction_id", default=None, help="Transaction id, e.g. 0.0.8-1568411631-396440000.")
@click.option("--nonce", type=int, default=0, show_default=True, help="Nonce of the transaction id (child records).")
@click.option("--scheduled", is_flag=True, help="The scheduled execution of the transaction id.")
@click.option("--at", "consensus_ns", type=int, default=None, help="The transaction at this consensus time (ns).")
@click.option("--block", "block_number", type=int, default=None, help="Prove every item of this block instead.")
@click.option("--sidecars", is_flag=True, help="Also prove the transaction's sidecar records (ships the whole file).")
@click.option(
    "--from-dir",
    "directory",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    default=None,
    help="Build from the stream files under DIR (no store); needs --address-book.",
)
@click.option("--stack", is_flag=True, help="Build from the running local stack's store.")
@click.option(
    "--url",
    default=None,
    help="Ask a deployment's query API at URL (GET /api/v1/transactions/{id}/stateproof or /blocks/{n}/proof).",
)
@click.option(
    "--token",
    envvar="HEDERA_HISTORY_QUERY_TOKEN",
    default=None,
    help="With --url: a bearer token for a private query function, e.g. `gcloud auth print-identity-token` "
    "[HEDERA_HISTORY_QUERY_TOKEN].",
)
@click.option("--state-dir", type=click.Path(path_type=Path), default=None, help="The local stack's state folder.")
@click.option(
    "--address-book",
    default=None,
    help="The bootstrap NodeAddressBook file the proof starts from [HEDERA_HISTORY_ADDRESS_BOOK].",
)
@click.option("--start-block", type=int, default=None, help="With --from-dir: the number of the first file before V6.")
@click.option("--without-book", is_flag=True, help="Leave the checkpoint book out (the client has it).")
@click.option(
    "-o", "--out", type=click.Path(dir_okay=False, path_type=Path), default=None, help="Write the bundle here."
)
@click.option("--json", "as_json", is_flag=True, help="Write the JSON rendering instead of the canonical bytes.")
@click.option(
    "--block-node",
    "block_node_shape",
    is_flag=True,
    help="A transaction in a native block: write the block node's proof shape (BlockContentsProofResponse of its "
    "signed_transaction item) instead of a bundle.",
)
def get(
    *,
    transaction_id: str | None,
    nonce: int,
    scheduled: bool,
    consensus_ns: int | None,
    block_number: int | None,
    sidecars: bool,
    directory: Path | None,
    stack: bool,
    url: str | None,
    token: str | None,
    state_dir: Path | None,
    address_book: str | None,
    start_block: int | None,
    without_book: bool,
    out: Path | None,
    as_json: bool,
    block_node_shape: bool,
) -> None:
    """Build the proof of one transaction (--transaction or --at) or one block (--block).

    A transaction in a native block under --from-dir is proven by its items' Merkle paths and the
    block's TSS signature (no address book needed). Without --out the JSON rendering goes to stdout.
    """
    from hedera_history.proofs.codec import bundle_to_json, decode_bundle  # noqa: PLC0415
    from hedera_history.proofs.transaction_ids import TransactionQuery  # noqa: PLC0415

    if sum(x is not None for x in (transaction_id, consensus_ns, block_number)) != 1:
        raise click.UsageError("give exactly one of --transaction, --at and --block")
    if sum((directory is not None, stack, url is not None)) > 1:
        raise click.UsageError("--from-dir, --stack and --url exclude each other")
    if url is not None and without_book:
        raise click.UsageError("--without-book: a deployment's proofs carry its bootstrap book")
    query = None
    try:
        if transaction_id is not None:
            query = TransactionQuery.parse(transaction_id, nonce=nonce, scheduled=scheduled)
        elif consensus_ns is not None:
            query = TransactionQuery.at(consensus_ns)
        data = _native_proof(directory, query) if directory is not None and query is not None else None
        if block_node_shape:
            _write_block_node_shape(data, out, as_json=as_json)
            return
        if data is None:
            prover = _prover(
                url=url,
                token=token,
                directory=directory,
                stack=stack,
                state_dir=state_dir,
                address_book=address_book,
                start_block=start_block,
                ship_book=not without_book,
            )
            if query is not None:
                data = prover.transaction_proof(query, sidecars=sidecars)
            else:
                assert block_number is not None
                data = prover.block_proof(block_number)
        rendered = bundle_to_json(decode_bundle(data))  # a fetched answer must be a canonical bundle too
    except HistoryError as error:
        raise click.ClickException(str(error)) from error
    if out is None:
        click.echo(rendered)
        return
    out.write_bytes(rendered.encode() if as_json else data)
    click.echo(f"wrote {out} ({out.stat().st_size} bytes)", err=True)


def _native_proof(directory: Path, query: TransactionQuery) -> bytes | None:
    """The block-stream proof of the transaction when a native block under ``directory`` holds it."""
    from hedera_history.errors import ObjectNotFoundError  # noqa: PLC0415
    from hedera_history.proofs.native_files import NativeDirectoryProver  # noqa: PLC0415

    prover = NativeDirectoryProver(directory)
    if not prover.has_native_blocks():
        return None
    try:
        return prover.transaction_proof(query)
    except ObjectNotFoundError:
        return None


def _write_block_node_shape(data: bytes | None, out: Path | None, *, as_json: bool) -> None:
    from google.protobuf import json_format  # noqa: PLC0415

    from hedera_history.proofs.block_contents import encode_message, transaction_item_proof  # noqa: PLC0415
    from hedera_history.proofs.codec import decode_bundle  # noqa: PLC0415

    if data is None:
        raise click.UsageError("--block-node: give --from-dir and a transaction in one of its native blocks")
    response = transaction_item_proof(decode_bundle(data))
    rendered = json_format.MessageToJson(response, preserving_proto_field_name=True, indent=2)
    if out is None:
        click.echo(rendered)
        return
    out.write_bytes(rendered.encode() if as_json else encode_message(response))
    click.echo(f"wrote {out} ({out.stat().st_size} bytes)", err=True)


class _Prover(Protocol):
    """What ``get`` needs of a prover (``DirectoryProver`` or ``StoreProver``)."""

    def transaction_proof(self, query: TransactionQuery, *, sidecars: bool = False) -> bytes: ...

    def block_proof(self, block_number: int) -> bytes: ...


def _prover(
    *,
    url: str | None,
    token: str | None,
    directory: Path | None,
    stack: bool,
    state_dir: Path | None,
    address_book: str | None,
    start_block: int | None,
    ship_book: bool,
) -> _Prover:
    if url is not None:
        from hedera_history.proofs.from_api import ApiProver  # noqa: PLC0415

        return ApiProver(url, token=token)
    settings = Settings.from_env(address_book=address_book, start_block=start_block)
    if directory is not None:
        from hedera_history.proofs.open import directory_prover  # noqa: PLC0415

        return directory_prover(directory, settings, ship_checkpoint=ship_book)
    if stack:
        from hedera_history.localstack.stack_proofs import stack_prover  # noqa: PLC0415

        folder = (state_dir or Path(settings.stack_state_dir)).resolve()
        return stack_prover(folder, settings, address_book=address_book or "", ship_checkpoint=ship_book)
    from hedera_history.proofs.open import deployment_prover  # noqa: PLC0415

    return deployment_prover(settings, ship_checkpoint=ship_book)


@proof.command("verify")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "--trust",
    "trusted",
    default=None,
    metavar="BOOK|HASH",
    help="A NodeAddressBook file, or its SHA-384 in hex (record-stream proofs).",
)
@click.option(
    "--ledger-id",
    default=None,
    metavar="HEX",
    help="The TSS ledger id (64 hex digits) a block-stream proof must lead to.",
)
@click.option(
    "--ledger-publication",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    default=None,
    help="The ledger id publication (a SignedTransaction, as generate writes ledger-id-publication.bin): the "
    "ledger's roster, trusted instead of proven from block 0; needed for the block node's proof shape.",
)
@click.option(
    "--council",
    default=None,
    metavar="KEYS",
    help="The errata council a correction must be approved by: a file of hex Ed25519 keys (# comments) "
    "or the keys themselves, comma-separated.",
)
@click.option(
    "--council-threshold",
    type=int,
    default=0,
    help="Council signatures needed (default: the super-majority of the keys).",
)
@click.option("--consensus-ratio", default="1/3", show_default=True, help="Share of stake the signers must hold.")
@click.pass_context
def verify(
    ctx: click.Context,
    *,
    file: Path,
    trusted: str | None,
    ledger_id: str | None,
    ledger_publication: Path | None,
    council: str | None,
    council_threshold: int,
    consensus_ratio: str,
) -> None:
    """Check FILE (canonical bytes or JSON) offline: exit 0 and a one-line verdict, or the reason
    and a non-zero exit (2 format, 3 hash path, 4 signature, 5 stake, 6 book, 7 subject; for a
    corrected transaction 8 no errata for the served entry, 9 errata about another time, 10 council,
    11 node ratification; 12 ledger). A block-stream proof, ours or in the block node's shape, is
    checked against --ledger-id (and --ledger-publication when the proof does not prove it)."""
    from hedera_history.proofs.trust import Trust  # noqa: PLC0415
    from hedera_history.proofs.verify_any import verify_any_proof  # noqa: PLC0415

    try:
        if trusted is None and ledger_id is None:
            raise click.UsageError("give --trust (record streams) or --ledger-id (block streams)")
        trust = Trust.parse(trusted) if trusted is not None else Trust()
        if ledger_id is not None:
            publication = ledger_publication.read_bytes() if ledger_publication is not None else None
            trust = trust.with_ledger(ledger_id, publication)
        if council is not None:
            trust = trust.with_council(council, council_threshold)
        verdict = verify_any_proof(file.read_bytes(), trust, ratio=parse_consensus_ratio(consensus_ratio))
    except ProofError as error:
        click.echo(f"refused ({error.kind}): {error}", err=True)
        ctx.exit(EXIT_CODES.get(type(error), 1))
        return
    except HistoryError as error:
        raise click.ClickException(str(error)) from error
    click.echo(verdict.line())
