"""gRPC channel options for the channels the project opens itself (to the emulators).

The Google client libraries set these on the channels they make to the real services; a bare
``grpc.insecure_channel`` keeps gRPC's defaults. This module imports nothing, so that the store
does not load the Pub/Sub client to read them, nor the transport the Bigtable one
(``bench.cold_start_bench`` counts import time).
"""

from __future__ import annotations

UNLIMITED_MESSAGES = (("grpc.max_send_message_length", -1), ("grpc.max_receive_message_length", -1))
"""No size limit on a message either way. gRPC's default refuses any answer over 4 MiB: a
mainnet-sized block's items (20,000 transactions) come back from Bigtable larger, and one Pub/Sub
streaming pull answer carries several messages of up to 10 MB (a block's sub-batch messages are
about 1 MB each); over the limit the query answered "store unavailable, retry" forever and the
stream was pulled again forever."""
