"""Long-term history in Bigtable: schema, row building, writer and reader.

``schema`` declares the tables, ``keys`` the row keys, ``rows.block_to_rows`` turns a verified
block into rows, ``writer.BlockWriter`` writes them, ``reader.HistoryReader`` reads complete
blocks back. Only ``bigtable_client`` imports the Bigtable client. See docs/schema.md.
"""
