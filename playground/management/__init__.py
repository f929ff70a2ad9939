"""Management commands of the playground (``manage.py <command>``).

- ``commands/``: one module per command.
"""
