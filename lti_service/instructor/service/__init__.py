"""The class view's numbers and the NRPS roster: no Flask."""
