"""Live classes: a lecturer drives a lesson or a run, students join with a code and answer.

- ``models``: ``LiveClass``, ``ClassStudent``, ``ClassQuestion``, ``ClassAnswer``;
- ``forms``: opening a class, and joining one;
- ``services``: writes: open and end a class, join it, move the step, ask, answer and reveal;
- ``selectors``: reads: the class by its code, the ``state`` message, tallies, the results;
- ``run_steps``: the steps of a class's run a question points at, and a question's node choices;
- ``run_questions``: one-click questions about the run the class shows (winner, rejecting
  plugin, victims), answered from the run;
- ``events``: notifications of a class over the channel layer, each encoded once;
- ``consumers``: the class websocket ``ws/classes/<code>/``;
- ``routing``: the class websocket route;
- ``views``: the HTTP layer: open, present, join, the student page, results and the end;
- ``urls``: the class URL routes;
- ``bench``: the live-class benchmark behind ``manage.py bench_class``.
"""
