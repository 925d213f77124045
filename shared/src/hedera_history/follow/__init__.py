"""Following a network's public bucket: discover new stream files per node folder and hand each
period to the same verification and publication path as an upload (``pipeline.ingest``)."""
