"""Record stream formats: sans-I/O readers (bytes and a name in, frozen values out)."""
