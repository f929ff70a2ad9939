"""The course as data: each lesson is a folder under ``course/`` read into plain values.

A lesson folder ``NN-slug/`` holds ``lesson.yaml`` (title, summary, glossary terms, an optional
script of cluster events), ``narrative.md`` (steps, each opening with a ``## `` heading),
``cluster.yaml`` (Kubernetes manifests), one or more ``profile*.yaml`` (KubeSchedulerConfiguration;
``profile.yaml`` is the default, ``profile-NAME.yaml`` adds the profile NAME) and
``questions.yaml``. Errors name the file and the field. ``lesson.yaml`` may also set feature
gates (``feature_gates: {GangScheduling: true}``): the lesson's runs, shared or a learner's own,
and ``lessons --check`` run under v1.35's defaults with those gates set.

A lesson's text is also in each language of ``LANGUAGES`` after the first (the source): the
narrative in ``narrative.LANG.md`` (the same steps in the same order, each ``show`` comment
copied), ``title``, ``summary`` and ``note`` under ``LANG:`` in ``lesson.yaml``, and each question's
``prompt``, ``explanation`` and optional ``choices`` labels (choice value -> label) under ``LANG:``
in ``questions.yaml``. ``in_language`` gives the lesson as a reader of a language sees it (the
source's text for a missing piece); ``translation_problems`` lists the missing pieces.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import yaml
from django.utils.translation import gettext

from scheduler_core.errors import SchedulerCoreError
from scheduler_core.features import V1_35_DEFAULTS, Features

from ..runs.execution.script import ScriptError, ScriptStep, parse_script

COURSE_DIR: Final = Path(__file__).resolve().parent / "course"
DEFAULT_PROFILE: Final = "default"
SOURCE_LANGUAGE: Final = "en"
LANGUAGES: Final = (SOURCE_LANGUAGE, "zh-hans")  # the languages every lesson is written in

# What each question kind asks of a run, and the fields it needs. ``answer_type`` says how an
# answer is read and compared: a name, a count, or a set of names.
QUESTION_KINDS: Final[dict[str, tuple[tuple[str, ...], str]]] = {
    "winner": (("cycle",), "name"),  # the node chosen in cycle k ("none" when unschedulable)
    "rejector": (("cycle", "node"), "name"),  # the plugin that rejected node X in cycle k
    "victims": (("cycle",), "names"),  # the pods preemption evicts in cycle k
    "nominated": (("cycle",), "name"),  # the node preemption nominates in cycle k
    "pending": ((), "count"),  # pods without a node when the run ends
    "score": (("cycle", "plugin", "node"), "count"),  # value: raw, normalized (default), weighted
    "total": (("cycle", "node"), "count"),  # the weighted sum of node X in cycle k
    "evaluated": (("cycle",), "count"),  # nodes Filter examined in cycle k
    "first_evaluated": (("cycle",), "name"),  # the node where Filter started in cycle k
    "feasible": (("cycle",), "count"),  # nodes that passed Filter in cycle k
    "pod": (("cycle",), "name"),  # the pod scheduled in cycle k
    "placement": (("pod",), "name"),  # the node a pod ends on ("none" when pending)
    "code": (("cycle", "point"), "name"),  # the code at an extension point (plugin optional)
    "profile": (("cycle",), "name"),  # the profile (schedulerName) that ran cycle k
    "requeue": (("cycle",), "name"),  # where a cluster event moved cycle k's parked pod
    "device": (("cycle", "claim"), "names"),  # the devices (pool/device) a claim got in cycle k
}
SCORE_VALUES: Final = ("raw", "normalized", "weighted")
_SLUG: Final = re.compile(r"^(\d\d)-([a-z0-9-]+)$")
# A narrative step names its run-page step in a comment: <!-- show: cycle 1, Filter -->
# (optionally with a plugin: <!-- show: cycle 1, Score, NodeAffinity -->).
_SHOW: Final = re.compile(r"<!--\s*show:\s*cycle\s+(\d+),\s*(\w+)(?:,\s*(\w+))?\s*-->")


class LessonError(ValueError):
    """A lesson folder that cannot be read; the message names the file and field."""

    def __init__(self, where: str, message: str) -> None:
        super().__init__(f"{where}: {message}")
        self.where = where
        self.message = message


@dataclass(frozen=True, slots=True)
class RunPointer:
    """A step of the run page: a cycle and an extension point (and optionally a plugin, and the
    node the question is about)."""

    cycle: int
    point: str
    plugin: str | None = None
    node: str | None = None

    @property
    def label(self) -> str:
        """How a link names the step, in the reader's language: "cycle 1, Filter ·
        NodeResourcesFit" (the engine's Combine step is upstream's weighted sum of scores and
        select host)."""
        point = gettext("select host") if self.point == "Combine" else self.point
        text = gettext("cycle %(cycle)s, %(point)s") % {"cycle": self.cycle, "point": point}
        return text + (f" · {self.plugin}" if self.plugin else "")


@dataclass(frozen=True, slots=True)
class Question:
    id: str
    step: int  # 1-based narrative step the question belongs to
    prompt: str
    kind: str
    params: dict[str, Any]
    answer: Any
    explanation: str
    choices: tuple[str, ...] = ()
    profile: str = DEFAULT_PROFILE
    show: RunPointer | None = None  # the run-page step that shows the answer (required in files)
    # Why the narrative may state this answer before the question asks (rare: the check that
    # lessons ask before they tell skips the question when this is set).
    told: str = ""
    labels: dict[str, str] = field(default_factory=dict)  # choice value -> what is displayed

    @property
    def answer_type(self) -> str:
        return QUESTION_KINDS[self.kind][1]

    @property
    def choice_items(self) -> list[tuple[str, str]]:
        """(value, label) of each choice: the value is what is answered and compared."""
        return [(c, self.labels.get(c, c)) for c in self.choices]

    def label(self, value: str) -> str:
        """How a choice value (or an engine answer equal to one) reads in this language."""
        return self.labels.get(value, value)


@dataclass(frozen=True, slots=True)
class Step:
    title: str
    body: str  # Markdown
    show: RunPointer | None = None  # the run-page step this narrative step is about


@dataclass(frozen=True, slots=True)
class QuestionText:
    """A question's text in one language."""

    prompt: str = ""
    explanation: str = ""
    labels: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class LessonText:
    """A lesson's text in one language other than the source; empty strings are missing."""

    title: str = ""
    summary: str = ""
    note: str = ""
    steps: tuple[Step, ...] = ()
    narrative_file: bool = False  # whether narrative.LANG.md exists
    questions: dict[str, QuestionText] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Lesson:
    number: int
    slug: str
    title: str
    summary: str
    steps: tuple[Step, ...]
    cluster_text: str
    profiles: dict[str, dict[str, Any]]  # name -> KubeSchedulerConfiguration
    questions: tuple[Question, ...]
    terms: tuple[str, ...] = ()
    script: tuple[ScriptStep, ...] = ()
    note: str = ""  # what the lesson cannot show in the browser yet
    path: Path = field(default=COURSE_DIR)
    language: str = SOURCE_LANGUAGE  # the language of the text fields above
    translations: dict[str, LessonText] = field(default_factory=dict)
    source_title: str = ""  # the title in the source language, when this is a translation
    # The feature gates the lesson sets otherwise than v1.35 ships them (name -> enabled).
    feature_gates: dict[str, bool] = field(default_factory=dict)

    @property
    def features(self) -> Features:
        """The gates every run of the lesson runs with: v1.35's, with the lesson's set."""
        return Features.from_gates(self.feature_gates, V1_35_DEFAULTS)

    @property
    def cluster_name(self) -> str:
        """The demo cluster's name, the same in every language."""
        return f"Lesson {self.number:02d}: {self.source_title or self.title}"

    def profile_name(self, profile: str = DEFAULT_PROFILE) -> str:
        suffix = "" if profile == DEFAULT_PROFILE else f" ({profile})"
        return f"Lesson {self.number:02d}{suffix}"

    def question(self, qid: str) -> Question | None:
        return next((q for q in self.questions if q.id == qid), None)

    def step_questions(self, step: int) -> list[Question]:
        return [q for q in self.questions if q.step == step]

    def progress(self, answers: dict[str, Any]) -> dict[str, Any]:
        """A learner's progress from their answer records (question id -> record): questions
        answered (right or wrong), answered right, and in all, with the header's sentence."""
        mine = [answers.get(q.id) or {} for q in self.questions]
        answered = sum(1 for a in mine if a.get("tries") or a.get("solved"))
        right = sum(1 for a in mine if a.get("solved"))
        total = len(self.questions)
        return {
            "answered": answered,
            "right": right,
            "total": total,
            "text": gettext("%(answered)s of %(total)s answered, %(right)s right")
            % {"answered": answered, "total": total, "right": right},
        }


def _read_yaml(path: Path) -> Any:
    try:
        return yaml.safe_load(path.read_text(encoding="utf-8"))
    except FileNotFoundError as err:
        raise LessonError(path.name, "file is missing") from err
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        line = f" at line {mark.line + 1}" if mark is not None else ""
        raise LessonError(path.name, f"invalid YAML{line}") from err


def _text(data: dict[str, Any], key: str, where: str, *, required: bool = True) -> str:
    value = data.get(key)
    if value is None and not required:
        return ""
    if not isinstance(value, str) or not value.strip():
        raise LessonError(f"{where}.{key}", "must be a non-empty string")
    return value.strip()


def _steps(path: Path) -> tuple[Step, ...]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError as err:
        raise LessonError(path.name, "file is missing") from err
    return _parse_steps(text, path.name)


def _parse_steps(text: str, name: str) -> tuple[Step, ...]:
    chunks = re.split(r"(?m)^## ", text)
    if chunks[0].strip():
        raise LessonError(name, "text before the first '## ' step heading")
    steps = []
    for chunk in chunks[1:]:
        title, _, body = chunk.partition("\n")
        match = _SHOW.search(body)
        show = None
        if match is not None:
            show = RunPointer(cycle=int(match[1]), point=match[2], plugin=match[3])
            body = _SHOW.sub("", body)
        steps.append(Step(title=title.strip(), body=body.strip(), show=show))
    if not steps:
        raise LessonError(name, "no '## ' step headings")
    return tuple(steps)


def _pointer(raw: Any, where: str) -> RunPointer | None:
    if raw is None:
        return None
    if not isinstance(raw, dict) or not isinstance(raw.get("cycle"), int):
        raise LessonError(where, "must be a mapping with an integer cycle and a point")
    point = _text(raw, "point", where)
    plugin, node = raw.get("plugin"), raw.get("node")
    return RunPointer(
        cycle=raw["cycle"],
        point=point,
        plugin=str(plugin) if plugin else None,
        node=str(node) if node else None,
    )


def _question(raw: Any, i: int, steps: int, profiles: dict[str, Any]) -> Question:
    where = f"questions.yaml[{i}]"
    if not isinstance(raw, dict):
        raise LessonError(where, "must be a mapping")
    qid = _text(raw, "id", where)
    ask = raw.get("engine")
    if not isinstance(ask, dict) or ask.get("kind") not in QUESTION_KINDS:
        raise LessonError(f"{where}.engine.kind", f"must be one of {', '.join(QUESTION_KINDS)}")
    kind = ask["kind"]
    params = {k: v for k, v in ask.items() if k != "kind"}
    for name in QUESTION_KINDS[kind][0]:
        if name not in params:
            raise LessonError(f"{where}.engine.{name}", f"is required for {kind}")
    if kind == "score" and params.get("value", "normalized") not in SCORE_VALUES:
        raise LessonError(f"{where}.engine.value", f"must be one of {', '.join(SCORE_VALUES)}")
    step = raw.get("step")
    if not isinstance(step, int) or not 1 <= step <= steps:
        raise LessonError(f"{where}.step", f"must be a narrative step between 1 and {steps}")
    if "answer" not in raw:
        raise LessonError(f"{where}.answer", "is required")
    choices = raw.get("choices") or []
    if not isinstance(choices, list):
        raise LessonError(f"{where}.choices", "must be a list")
    profile = str(raw.get("profile") or DEFAULT_PROFILE)
    if profile not in profiles:
        raise LessonError(f"{where}.profile", f"no profile file for {profile!r}")
    if raw.get("show") is None:
        raise LessonError(f"{where}.show", "is required: the run-page step that shows the answer")
    return Question(
        id=qid,
        step=step,
        prompt=_text(raw, "prompt", where),
        kind=kind,
        params=params,
        answer=raw["answer"],
        explanation=_text(raw, "explanation", where),
        choices=tuple(str(c) for c in choices),
        profile=profile,
        show=_pointer(raw.get("show"), f"{where}.show"),
        told=_text(raw, "told", where, required=False),
    )


def _labels(raw: Any, where: str) -> dict[str, str]:
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise LessonError(where, "must be a mapping from a choice value to its label")
    return {str(k): str(v).strip() for k, v in raw.items()}


def _translation(
    path: Path, language: str, meta: dict[str, Any], raw_questions: list[Any]
) -> LessonText:
    """The lesson's text in ``language`` as written (missing pieces stay empty: --check names
    them, a page shows the source's text in their place)."""
    own = meta.get(language) or {}
    if not isinstance(own, dict):
        raise LessonError(f"lesson.yaml.{language}", "must be a mapping")
    narrative = path / f"narrative.{language}.md"
    steps = _steps(narrative) if narrative.exists() else ()
    questions = {}
    for i, raw in enumerate(raw_questions):
        where = f"questions.yaml[{i}].{language}"
        text = raw.get(language) or {}
        if not isinstance(text, dict):
            raise LessonError(where, "must be a mapping with prompt and explanation")
        questions[str(raw["id"])] = QuestionText(
            prompt=str(text.get("prompt") or "").strip(),
            explanation=str(text.get("explanation") or "").strip(),
            labels=_labels(text.get("choices"), f"{where}.choices"),
        )
    return LessonText(
        title=str(own.get("title") or "").strip(),
        summary=str(own.get("summary") or "").strip(),
        note=str(own.get("note") or "").strip(),
        steps=steps,
        narrative_file=narrative.exists(),
        questions=questions,
    )


def _script(raw: Any) -> tuple[ScriptStep, ...]:
    try:
        return parse_script(raw, "lesson.yaml.script")
    except ScriptError as err:
        where, message = err.errors[0]
        raise LessonError(where, message) from err


def _feature_gates(raw: Any) -> dict[str, bool]:
    """``feature_gates`` of lesson.yaml: gate names of v1.35 mapped to true or false."""
    if raw is None:
        return {}
    try:
        Features.from_gates(raw)
    except SchedulerCoreError as err:  # "featureGates.NAME: unknown feature gate"
        field_name, _, message = str(err).partition(": ")
        where = field_name.replace("featureGates", "lesson.yaml.feature_gates", 1)
        raise LessonError(where, message) from err
    return {str(name): bool(on) for name, on in raw.items()}


def load_lesson(path: Path) -> Lesson:
    """Read one lesson folder; raises LessonError naming the file and field."""
    match = _SLUG.match(path.name)
    if match is None:
        raise LessonError(path.name, "a lesson folder is named NN-slug")
    try:
        meta = _read_yaml(path / "lesson.yaml")
        if not isinstance(meta, dict):
            raise LessonError("lesson.yaml", "must be a mapping")
        steps = _steps(path / "narrative.md")
        profiles: dict[str, dict[str, Any]] = {}
        for file in sorted(path.glob("profile*.yaml")):
            name = file.stem.removeprefix("profile").removeprefix("-") or DEFAULT_PROFILE
            config = _read_yaml(file)
            if not isinstance(config, dict) or config.get("kind") != "KubeSchedulerConfiguration":
                raise LessonError(f"{file.name}.kind", "must be KubeSchedulerConfiguration")
            profiles[name] = config
        if DEFAULT_PROFILE not in profiles:
            raise LessonError("profile.yaml", "file is missing")
        cluster_text = (path / "cluster.yaml").read_text(encoding="utf-8")
        raw_questions = _read_yaml(path / "questions.yaml")
        if not isinstance(raw_questions, list) or not raw_questions:
            raise LessonError("questions.yaml", "must be a non-empty list")
        questions = tuple(
            _question(q, i, len(steps), profiles) for i, q in enumerate(raw_questions)
        )
        ids = [q.id for q in questions]
        if len(set(ids)) != len(ids):
            raise LessonError("questions.yaml", "question ids must be unique")
        terms = meta.get("terms") or []
        translations = {
            language: _translation(path, language, meta, raw_questions)
            for language in LANGUAGES[1:]
        }
        return Lesson(
            number=int(match.group(1)),
            slug=match.group(2),
            title=_text(meta, "title", "lesson.yaml"),
            summary=_text(meta, "summary", "lesson.yaml"),
            steps=steps,
            cluster_text=cluster_text,
            profiles=profiles,
            questions=questions,
            terms=tuple(str(t) for t in terms),
            script=_script(meta.get("script")),
            note=_text(meta, "note", "lesson.yaml", required=False),
            path=path,
            translations=translations,
            feature_gates=_feature_gates(meta.get("feature_gates")),
        )
    except LessonError as err:
        raise LessonError(f"{path.name}/{err.where}", err.message) from err
    except FileNotFoundError as err:
        raise LessonError(f"{path.name}/{Path(str(err.filename)).name}", "file is missing") from err


def load_course(directory: Path = COURSE_DIR) -> list[Lesson]:
    """Every lesson of the course, in order."""
    folders = [p for p in sorted(directory.iterdir()) if p.is_dir() and _SLUG.match(p.name)]
    return [load_lesson(p) for p in folders]


@functools.cache
def course() -> tuple[Lesson, ...]:
    """The shipped course, read once per process."""
    return tuple(load_course())


def lesson_by_slug(slug: str) -> Lesson | None:
    return next((lesson for lesson in course() if lesson.slug == slug), None)
