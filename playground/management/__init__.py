"""Management commands of the playground (``manage.py <command>``).

- ``commands/``: one module per command;
- ``explain_check``: what ``explain_runs --check`` runs: every demo and lesson run, each
  explained cell by cell (a tool above every feature, so it lives with the commands).
"""
