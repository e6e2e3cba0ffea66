"""Bundled themes (YAML), shipped inside the wheel as ragtui.themes."""
