"""Helpers shared by integration and end-to-end tests."""
