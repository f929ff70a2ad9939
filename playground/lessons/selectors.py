"""Reads of the course: progress per lesson (from the database or the session), the glossary,
and the run-page links of a lesson's questions."""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

import markdown
import yaml
from django.urls import reverse
from django.utils.translation import get_language, gettext

from ..inputs import manifests
from ..models import Cluster, Run
from .checks import run_step
from .languages import in_language
from .loader import (
    COURSE_DIR,
    DEFAULT_PROFILE,
    SOURCE_LANGUAGE,
    Lesson,
    Question,
    RunPointer,
    course,
)
from .models import LessonProgress
from .services import (
    REUSABLE,
    SESSION_PROGRESS,
    SESSION_RUNS,
    User,
    lesson_run_shared,
    lesson_runs,
)


def progress_answers(*, user: User, session: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Lesson slug -> question id -> answer record, for this visitor."""
    if user.is_authenticated:
        rows = LessonProgress.objects.filter(user=user).values_list("lesson", "answers")
        return {slug: dict(answers) for slug, answers in rows}
    return {slug: dict(a) for slug, a in (session.get(SESSION_PROGRESS) or {}).items()}


def shared_run_profiles(*, lesson: Lesson, user: User, runs: Mapping[str, int | None]) -> set[str]:
    """The profiles whose run, of those the visitor holds (``runs``: profile -> run id), is the
    lesson's shared run, still pending, running or finished: a visitor without an account watches
    it read-only. (A failed or cancelled one is not: pressing start replaces it.)"""
    if user.is_authenticated:
        return set()
    ids = {run_id for run_id in runs.values() if run_id}
    live = set(Run.objects.filter(pk__in=ids, status__in=REUSABLE).values_list("pk", flat=True))
    return {
        name
        for name, run_id in runs.items()
        if run_id in live and lesson_run_shared(lesson=lesson, profile=name)
    }


def course_overview(
    *, user: User, session: Mapping[str, Any], language: str = SOURCE_LANGUAGE
) -> list[dict[str, Any]]:
    """Each lesson (its text in ``language``) with the visitor's progress: answered (right or
    wrong), solved, first-try counts and done."""
    answers = progress_answers(user=user, session=session)
    rows = []
    for lesson in (in_language(lesson, language) for lesson in course()):
        mine = answers.get(lesson.slug) or {}
        solved = sum(1 for q in lesson.questions if (mine.get(q.id) or {}).get("solved"))
        rows.append(
            {
                "lesson": lesson,
                "questions": len(lesson.questions),
                "answered": lesson.progress(mine)["answered"],
                "solved": solved,
                "first_try": sum(1 for a in mine.values() if a.get("first_try")),
                "done": solved == len(lesson.questions),
                "started": bool(mine),
            }
        )
    return rows


@functools.cache
def lesson_content_names() -> tuple[frozenset[str], frozenset[str]]:
    """The names of the demo clusters and demo profiles that the course's lessons load."""
    lessons = list(course())
    clusters = frozenset(lesson.cluster_name for lesson in lessons)
    profiles = frozenset(lesson.profile_name(p) for lesson in lessons for p in lesson.profiles)
    return clusters, profiles


def lesson_profiles_by_cluster() -> dict[str, str]:
    """Each lesson cluster's name -> the name of the profile its lesson runs it with first."""
    return {lesson.cluster_name: lesson.profile_name() for lesson in course()}


def lesson_demo_words(name: str) -> tuple[str, str] | None:
    """A lesson's demo cluster or profile (by its stored name) as the reader reads it: its name
    and description in the reader's language ("Lesson 01: The scheduling cycle at a glance" ->
    "第 1 课：调度周期一览"); None for any other name, or for a reader of the source language."""
    language = get_language() or SOURCE_LANGUAGE
    if language.startswith(SOURCE_LANGUAGE):
        return None  # the stored words are the source language's
    for lesson in course():
        shown = in_language(lesson, language)
        said = {"n": lesson.number, "title": shown.title}
        if name == lesson.cluster_name:
            return gettext("Lesson %(n)s: %(title)s") % said, shown.summary
        for profile in lesson.profiles:
            if name == lesson.profile_name(profile):
                lesson_name = gettext("Lesson %(n)s") % said
                if profile != DEFAULT_PROFILE:
                    lesson_name = gettext("%(lesson)s (%(profile)s)") % {
                        "lesson": lesson_name,
                        "profile": profile,
                    }
                return lesson_name, gettext("The profile of lesson %(n)s: %(title)s") % said
    return None


def split_lesson_content(items: Any, names: frozenset[str]) -> tuple[list[Any], list[Any]]:
    """(other items, the course's own demo items): the home page lists the latter apart."""
    mine: list[Any] = []
    lessons: list[Any] = []
    for item in items:
        ours = item.is_demo and item.owner_id is None and item.name in names
        (lessons if ours else mine).append(item)
    return mine, lessons


def next_lesson(lesson: Lesson) -> Lesson | None:
    """The lesson after ``lesson``, in ``lesson``'s language."""
    slugs = [other.slug for other in course()]
    i = slugs.index(lesson.slug)
    return in_language(course()[i + 1], lesson.language) if i + 1 < len(slugs) else None


def glossary_entries() -> list[dict[str, Any]]:
    """glossary.yaml as written: term, text, lesson, optional section, a translation per
    language (``zh-hans: {term, text}``)."""
    raw = yaml.safe_load((COURSE_DIR / "glossary.yaml").read_text(encoding="utf-8")) or []
    return list(raw)


@functools.cache
def glossary(language: str = SOURCE_LANGUAGE) -> list[dict[str, Any]]:
    """Glossary entries in ``language`` (the English text where an entry is not translated),
    in the order of the language (English: by term; Chinese: by the pinyin of a Chinese term,
    letters and pinyin interleaved), each with ``key`` (the English term, the entry's anchor)
    and the lesson that teaches it."""
    by_number = {lesson.number: in_language(lesson, language) for lesson in course()}
    entries = []
    for e in glossary_entries():
        own = e.get(language) if language != SOURCE_LANGUAGE else None
        own = own if isinstance(own, dict) else {}
        entries.append(
            {
                "key": e["term"],
                "term": str(own.get("term") or e["term"]),
                "text": str(own.get("text") or e["text"]),
                "lesson": by_number.get(int(e["lesson"])),
                "section": str(e.get("section") or ""),
                "order": str(own.get("pinyin") or own.get("term") or e["term"]).lower(),
            }
        )
    return sorted(entries, key=lambda e: (e["order"], e["key"].lower()))


def glossary_with_runs(
    *, session: Mapping[str, Any], language: str = SOURCE_LANGUAGE
) -> list[dict[str, Any]]:
    """The glossary, each term with ``run_url``: the run page section that shows it, in the
    visitor's run of its lesson, else in the latest finished run of the lesson's demo cluster
    ("" when neither exists). The run page scrolls to ``?section=``."""
    entries = glossary(language)
    lessons = {e["lesson"].slug: e["lesson"] for e in entries if e["lesson"] and e["section"]}
    runs: dict[str, int] = {}
    demo_runs = (
        Run.objects.filter(
            cluster__is_demo=True,
            cluster__owner=None,
            cluster__name__in=[lesson.cluster_name for lesson in lessons.values()],
            profile__is_demo=True,  # never a user's private profile
            status=Run.Status.SUCCEEDED,
        )
        .order_by("-created", "-id")
        .values_list("cluster__name", "pk")
    )
    by_cluster: dict[str, int] = {}
    for name, pk in demo_runs:
        by_cluster.setdefault(name, pk)
    for slug, lesson in lessons.items():
        mine = lesson_run_id(lesson=lesson, profile=DEFAULT_PROFILE, session=session)
        found = mine or by_cluster.get(lesson.cluster_name)
        if found:
            runs[slug] = found
    out = []
    for e in entries:
        run_id = runs.get(e["lesson"].slug) if e["lesson"] and e["section"] else None
        url = f"{reverse('playground:run', args=[run_id])}?section={e['section']}" if run_id else ""
        out.append({**e, "run_url": url})
    return out


@functools.cache
def _html(text: str) -> str:
    return markdown.markdown(text, extensions=["tables", "fenced_code"])


def step_html(lesson: Lesson, step: int) -> str:
    """One narrative step rendered from the lesson's Markdown (the lesson files are trusted)."""
    return _html(lesson.steps[step - 1].body)


def lesson_run_id(*, lesson: Lesson, profile: str, session: Mapping[str, Any]) -> int | None:
    """The visitor's run of this lesson's profile, if it still exists."""
    run_id = ((session.get(SESSION_RUNS) or {}).get(lesson.slug) or {}).get(profile)
    if run_id is None or not Run.objects.filter(pk=run_id).exists():
        return None
    return int(run_id)


def pointer_hash(lesson: Lesson, pointer: RunPointer | None, profile: str = DEFAULT_PROFILE) -> str:
    """The run page's permalink fragment for a run-page step (``#cycle=K&step=N``)."""
    if pointer is None:
        return ""
    step = run_step(lesson_runs(lesson=lesson)[profile], pointer)
    return f"#cycle={pointer.cycle}&step={step or 0}"


def question_hash(lesson: Lesson, question: Question) -> str:
    """The permalink fragment of the step a question points at."""
    return pointer_hash(lesson, question.show, question.profile)


def lesson_cluster_id(lesson: Lesson) -> int | None:
    """The lesson's demo cluster (loaded by load_demo), if it is there."""

    return (
        Cluster.objects.filter(is_demo=True, owner=None, name=lesson.cluster_name)
        .values_list("pk", flat=True)
        .first()
    )


MAX_NODES_SHOWN = 12


def cluster_summary(text: str) -> dict[str, Any]:
    """The lesson's cluster at a glance: nodes and pods with what a prediction needs."""
    return _cluster_summary(text, get_language())


@functools.cache
def _cluster_summary(text: str, language: str | None) -> dict[str, Any]:
    """``cluster_summary`` once per text and language (its words are translated)."""

    nodes, pods = [], []
    for obj in manifests.parse_documents(text).objects:
        m = obj.manifest
        meta, spec = m.get("metadata") or {}, m.get("spec") or {}
        if obj.kind == "Node":
            labels = {
                k: v for k, v in (meta.get("labels") or {}).items() if k != "kubernetes.io/hostname"
            }
            alloc = (m.get("status") or {}).get("allocatable") or {}
            nodes.append(
                {
                    "name": meta.get("name"),
                    "allocatable": ", ".join(f"{k} {v}" for k, v in alloc.items()),
                    "labels": ", ".join(f"{k}={v}" for k, v in labels.items()),
                    "taints": ", ".join(
                        f"{t.get('key')}{'=' + str(t['value']) if t.get('value') else ''}:"
                        f"{t.get('effect')}"
                        for t in spec.get("taints") or []
                    )
                    + (" (cordoned)" if spec.get("unschedulable") else ""),
                }
            )
        elif obj.kind == "Pod":
            requests: dict[str, str] = {}
            for c in spec.get("containers") or []:
                for k, v in ((c.get("resources") or {}).get("requests") or {}).items():
                    requests[k] = str(v)
            pods.append(
                {
                    "name": meta.get("name"),
                    "rules": ", ".join(_pod_rules(spec)),
                    "node": spec.get("nodeName") or "",
                    "requests": ", ".join(f"{k} {v}" for k, v in requests.items())
                    or gettext("none"),
                    "priority": spec.get("priority", 0),
                }
            )
    return {
        "nodes": nodes[:MAX_NODES_SHOWN],
        "more_nodes": max(len(nodes) - MAX_NODES_SHOWN, 0),
        "node_count": len(nodes),
        "pods": pods,
    }


def _pod_rules(spec: dict[str, Any]) -> list[str]:
    """The scheduling rules a pod sets, named the way the lessons name them."""
    affinity = spec.get("affinity") or {}
    rules = [
        label
        for present, label in (
            (spec.get("nodeSelector"), "nodeSelector"),
            (affinity.get("nodeAffinity"), gettext("node affinity")),
            (affinity.get("podAffinity"), gettext("pod affinity")),
            (affinity.get("podAntiAffinity"), gettext("pod anti-affinity")),
            (spec.get("topologySpreadConstraints"), gettext("topology spread")),
            (spec.get("tolerations"), gettext("tolerations")),
        )
        if present
    ]
    if spec.get("schedulerName"):
        rules.append(f"schedulerName {spec['schedulerName']}")
    return rules
