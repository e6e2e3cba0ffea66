"""What the screens show, gathered from the core: plain data, no Textual here."""
