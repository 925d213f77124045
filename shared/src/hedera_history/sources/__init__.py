"""Read stream files from gs://, s3:// or a local directory through one interface (see ``base``)."""

from hedera_history.sources.base import (
    DEFAULT_MAX_OBJECT_BYTES,
    ObjectInfo,
    ObjectSink,
    ObjectSource,
    SourceUrl,
    open_sink,
    open_source,
    parse_url,
)

__all__ = [
    "DEFAULT_MAX_OBJECT_BYTES",
    "ObjectInfo",
    "ObjectSink",
    "ObjectSource",
    "SourceUrl",
    "open_sink",
    "open_source",
    "parse_url",
]
