"""The course tools behind `pathways course check` and `record`: run every code block."""
