"""Cardinal messages over Pub/Sub: the message mapping, publishing, push decoding, the push bridge.

``message`` and ``push_format`` are pure (no client import); ``pubsub``, ``admin`` and
``push_bridge`` load the Pub/Sub client. See docs/transport.md.
"""
