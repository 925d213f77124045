"""Real mirror-node clients against our REST API: ``python -m bench.clients`` (see ``__main__``)."""
