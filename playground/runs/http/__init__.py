"""The HTTP layer of runs: thin views over ``services`` and ``selectors``, and their forms.

- ``urls``: its URL routes, included by ``playground/urls.py``;
- ``views``: start a run, watch it, step through it, decide a waiting pod, compare two;
- ``change_views``: a run with a script of cluster changes, and "try a change";
- ``forms``: a script of cluster changes, step by step, and "try a change" on a profile.
"""
