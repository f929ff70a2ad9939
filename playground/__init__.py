"""The playground Django app: clusters, objects, profiles and runs."""
