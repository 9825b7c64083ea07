"""Recording scores and delivering them (AGS): no Flask."""
