"""Instructor pages: the class view (and its CSV), the picker, regrade and resend."""
