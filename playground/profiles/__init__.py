"""Profiles: importing older configurations (and exported profiles with their custom plugins)."""
