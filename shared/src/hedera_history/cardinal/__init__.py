"""Cardinal Streams message layer: messages, producer, in-memory and stateless consumers.

Broker independent and application agnostic: a block is a hash, a number, a parent, a weight
and the keys it sets and deletes. See ``docs/cardinal.md``.

Import from the modules: this file imports none of them, so a function that needs one module
does not load the others at its cold start.
"""
