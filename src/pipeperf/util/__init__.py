"""Small shared helpers (YAML loading with line numbers, range parsing)."""
