"""The guided course: lessons as data, their checks against the engine, and their pages.

The lessons themselves are folders under ``course/``.

- ``loader``: the course as data: each lesson folder read into plain values;
- ``languages``: the course in each of its languages;
- ``text``: Markdown rendered for the pages, flattened into sentences for the checks;
- ``spoilers``: whether the text read before a question gives its answer away;
- ``checks``: what the engine does with a lesson, and whether an answer agrees with it;
- ``models``: ``LessonProgress`` and ``SharedLessonRun``;
- ``forms``: an answer to one question, a run to start;
- ``services``: writes: lessons as demo content, their runs, progress;
- ``selectors``: reads: progress per lesson, the glossary;
- ``views``: the HTTP layer: the course page, a lesson page, answers and lesson runs;
- ``urls``: the course's URL routes.
"""
