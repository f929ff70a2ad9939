"""A run's records as database rows: written while it executes, read back for its pages.

- ``bulk``: storing a run's records: cycle rows and small events, inserted in bulk;
- ``records``: a scheduling cycle stored straight from the engine's record;
- ``columns``: one cycle's events as compact columns (one ``RunCycle`` row each);
- ``packs``: small events stored several to a row;
- ``rebuilt``: cycles whose per-node detail is computed when first read.
"""
