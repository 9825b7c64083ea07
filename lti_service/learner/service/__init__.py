"""My learning's portfolio and the lesson page's rendering: no Flask."""
