"""The local stack fixtures (tests/fixtures/stack.py) for the stack's own tests."""

from tests.fixtures.stack import local_stack, local_stack_factory, module_local_stack

__all__ = ["local_stack", "local_stack_factory", "module_local_stack"]
