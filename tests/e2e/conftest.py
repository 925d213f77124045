"""The local stack fixtures for the end-to-end tests."""

from tests.fixtures.stack import local_stack, local_stack_factory, module_local_stack

__all__ = ["local_stack", "local_stack_factory", "module_local_stack"]
