"""Content builders: what a widget shows, as inert Textual `Content` (no Widget here)."""
