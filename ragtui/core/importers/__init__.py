"""importers."""
