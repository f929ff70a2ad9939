"""The guided course: lessons as data, their checks against the engine, and their pages."""
