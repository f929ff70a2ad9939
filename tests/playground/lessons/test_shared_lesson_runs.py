"""One run per lesson, not per visitor: anonymous visitors share a lesson's stored run, read-only,
except where the run waits for their own answers at Permit; and they cannot start unbounded runs."""

from __future__ import annotations

import threading
from unittest import mock

import pytest
from asgiref.sync import sync_to_async
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.contrib.auth.models import AnonymousUser
from django.contrib.sessions.backends.db import SessionStore
from django.db import IntegrityError, connection, transaction
from django.test import Client
from django.urls import reverse
from django.utils.html import escape
from django.utils.text import capfirst

from playground.lessons import services
from playground.lessons.loader import course, lesson_by_slug
from playground.models import Run, SharedLessonRun
from playground.routing import websocket_urlpatterns
from playground.runs import selectors
from playground.runs.execution import limits
from playground.runs.refs import run_ref
from playground.runs.services import RunRefused

pytestmark = pytest.mark.django_db

SCORING = "scoring"  # lesson 7: a plain deterministic run
BINDING = "binding-cycle"  # lesson 11: ApprovalGate waits at Permit for the visitor's answer


@pytest.fixture
def no_tasks():
    """Runs stay pending: no task is queued after commit."""
    with mock.patch("playground.runs.services.transaction.on_commit", lambda fn: None):
        yield


def _start(client, slug, **extra):
    return client.post(
        reverse("playground:lesson_run", args=[slug]), {"profile": "default"}, **extra
    )


def _session_run(client, slug):
    return (client.session.get(services.SESSION_RUNS) or {}).get(slug, {}).get("default")


def test_anonymous_visitors_share_one_run_of_a_lesson(no_tasks):
    first, second = Client(), Client()
    assert _start(first, SCORING)["Location"].endswith("#run-frame-box")
    assert _start(second, SCORING)["Location"].endswith("#run-frame-box")
    run = Run.objects.get()
    assert run.started_by_id is None and run.label == "Lesson 7"
    assert _session_run(first, SCORING) == _session_run(second, SCORING) == run.pk
    row = SharedLessonRun.objects.get()
    lesson = lesson_by_slug(SCORING)
    assert (row.lesson, row.profile, row.run_id) == (SCORING, "default", run.pk)
    assert row.digest == services._digest(lesson, "default")
    # Neither visitor owns it: it is not among the runs their session may command.
    assert selectors.session_run_ids(first.session) == frozenset()
    page = second.get(reverse("playground:lesson", args=[SCORING])).content.decode()
    assert reverse("playground:run", args=[run.pk]) in page


def test_a_shared_run_refuses_commands_saying_it_is_shared(no_tasks):
    starter = Client()
    _start(starter, SCORING)
    run = Run.objects.get()
    for client in (starter, Client()):
        response = client.post(reverse("playground:run_cancel", args=[run.pk]))
        assert response.status_code == 403
        assert escape(capfirst(str(selectors.SHARED_RUN_READ_ONLY))) in response.content.decode()
    run.refresh_from_db()
    assert run.status == Run.Status.PENDING
    assert selectors.run_command_refusal(run.pk) == str(selectors.SHARED_RUN_READ_ONLY)
    assert selectors.run_command_refusal(run.pk + 1) == str(selectors.NOT_OWNER)


@pytest.mark.parametrize("status", [Run.Status.RUNNING, Run.Status.SUCCEEDED])
def test_a_running_or_finished_shared_run_is_reused(no_tasks, status):
    _start(Client(), SCORING)
    Run.objects.update(status=status)
    _start(Client(), SCORING)
    assert Run.objects.count() == 1


@pytest.mark.parametrize("status", [Run.Status.FAILED, Run.Status.CANCELLED])
def test_a_failed_or_cancelled_shared_run_is_replaced(no_tasks, status):
    _start(Client(), SCORING)
    old = Run.objects.get()
    Run.objects.update(status=status)
    visitor = Client()
    _start(visitor, SCORING)
    new = Run.objects.latest("id")
    assert new.pk != old.pk and new.status == Run.Status.PENDING
    assert SharedLessonRun.objects.get().run_id == new.pk
    assert _session_run(visitor, SCORING) == new.pk


def test_an_edited_lesson_gets_a_new_shared_run(no_tasks):
    lesson = lesson_by_slug(SCORING)
    first, started = services.shared_lesson_run(lesson=lesson, profile="default")
    again, started_again = services.shared_lesson_run(lesson=lesson, profile="default")
    assert started and not started_again and again.pk == first.pk
    with mock.patch.object(services, "_digest", return_value="f" * 64):
        edited, started = services.shared_lesson_run(lesson=lesson, profile="default")
    assert started and edited.pk != first.pk
    assert SharedLessonRun.objects.count() == 2


def test_one_row_per_lesson_profile_and_digest():
    SharedLessonRun.objects.create(lesson=SCORING, profile="default", digest="a" * 64)
    SharedLessonRun.objects.create(lesson=SCORING, profile="default", digest="b" * 64)
    with pytest.raises(IntegrityError), transaction.atomic():
        SharedLessonRun.objects.create(lesson=SCORING, profile="default", digest="a" * 64)


def test_a_lesson_waiting_for_the_visitors_permit_answers_keeps_a_run_per_session(no_tasks):
    assert not services.lesson_run_shared(lesson=lesson_by_slug(BINDING), profile="default")
    assert services.lesson_run_shared(lesson=lesson_by_slug(SCORING), profile="default")
    first, second = Client(), Client()
    _start(first, BINDING)
    _start(second, BINDING)
    a, b = Run.objects.order_by("id")
    assert _session_run(first, BINDING) == a.pk and _session_run(second, BINDING) == b.pk
    assert selectors.session_run_ids(first.session) == {a.pk}
    assert not SharedLessonRun.objects.exists()
    assert first.post(reverse("playground:run_cancel", args=[b.pk])).status_code == 404
    assert first.post(reverse("playground:run_cancel", args=[a.pk])).status_code == 200


def test_a_signed_in_user_gets_a_run_of_their_own(no_tasks, alice_client, user):
    _start(Client(), SCORING)
    _start(alice_client, SCORING)
    shared, own = Run.objects.order_by("id")
    assert own.started_by_id == user.pk and shared.started_by_id is None
    assert SharedLessonRun.objects.get().run_id == shared.pk
    assert alice_client.post(reverse("playground:run_cancel", args=[own.pk])).status_code == 200


# --- limits on visitors without an account ------------------------------------------------------


def test_one_browser_starts_at_most_so_many_lesson_runs_of_its_own_an_hour(no_tasks, settings):
    settings.PLAYGROUND_ANONYMOUS_LESSON_RUNS_PER_SESSION = 2
    visitor = Client()
    assert _start(visitor, BINDING)["Location"].endswith("#run-frame-box")
    assert _start(visitor, BINDING)["Location"].endswith("#run-frame-box")
    refused = _start(visitor, BINDING)
    assert "#run-frame-box" not in refused["Location"]
    page = visitor.get(refused["Location"]).content.decode()
    assert "this browser started 2 lesson runs of its own in the last hour" in page
    assert "at most 2 an hour" in page
    assert Run.objects.count() == 2
    # A shared run already stored is reused: that starts nothing, so it is not refused.
    _start(Client(), SCORING)
    assert _start(visitor, SCORING)["Location"].endswith("#run-frame-box")
    assert Run.objects.count() == 3


def test_a_learner_takes_every_lesson_in_one_sitting_and_is_never_refused(no_tasks, settings):
    """Issue 34 item 1: shared lesson runs count against no session (the general budget would
    have refused lesson 10 after nine), and lesson 11's own run has a budget of its own."""
    from playground.demo import demo_load
    from playground.lessons.loader import course

    demo_load()  # the shipped custom plugins lesson 20 uses
    settings.PLAYGROUND_ANONYMOUS_RUNS_PER_SESSION = 1  # even the tightest general budget
    # no task runs here, so every run stays pending: the server-wide caps are not what is tested
    settings.PLAYGROUND_ANONYMOUS_ACTIVE_RUNS = settings.PLAYGROUND_QUEUED_RUNS_PER_USER = 100
    learner = Client()
    slugs = [lesson.slug for lesson in course()]
    assert len(slugs) >= 20
    for slug in slugs:
        assert _start(learner, slug)["Location"].endswith("#run-frame-box"), slug
    assert learner.session.get(limits.SESSION_STARTS) is None  # no general budget spent
    own = [s for s in slugs if not services.lesson_run_shared(lesson=_lesson(s), profile="default")]
    assert BINDING in own
    assert len(learner.session[limits.SESSION_LESSON_STARTS]) == len(own)  # their own runs
    # arbitrary (not shared) runs stay bounded: the lesson budget runs out too
    settings.PLAYGROUND_ANONYMOUS_LESSON_RUNS_PER_SESSION = 1
    refused = _start(learner, BINDING)
    assert "#run-frame-box" not in refused["Location"]


def _lesson(slug):
    from playground.lessons.loader import lesson_by_slug

    return lesson_by_slug(slug)


def test_a_sessions_starts_older_than_an_hour_no_longer_count(settings):
    settings.PLAYGROUND_ANONYMOUS_RUNS_PER_SESSION = 1
    session: dict = {}
    limits.anonymous_started(session, now=1000.0)
    assert "this browser started 1 runs" in limits.anonymous_refusal(session, now=1100.0)
    assert limits.anonymous_refusal(session, now=1000.0 + 3600) == ""
    limits.anonymous_started(session, now=5000.0)
    assert session[limits.SESSION_STARTS] == [5000.0]


def test_visitors_without_an_account_have_a_global_cap(no_tasks, settings):
    settings.PLAYGROUND_ANONYMOUS_ACTIVE_RUNS = 1
    _start(Client(), BINDING, REMOTE_ADDR="10.0.0.1")
    other = Client()
    refused = _start(other, SCORING, REMOTE_ADDR="10.0.0.2")
    page = other.get(refused["Location"]).content.decode()
    assert "1 runs of visitors without an account are running or waiting to start" in page
    assert "(at most 1)" in page
    assert Run.objects.count() == 1
    Run.objects.update(status=Run.Status.SUCCEEDED)
    assert _start(other, SCORING)["Location"].endswith("#run-frame-box")


def test_a_refused_shared_start_leaves_no_run_behind(no_tasks, settings):
    settings.PLAYGROUND_ANONYMOUS_ACTIVE_RUNS = 1
    _start(Client(), BINDING)
    with pytest.raises(RunRefused):
        services.shared_lesson_run(lesson=lesson_by_slug(SCORING), profile="default", session={})
    assert not SharedLessonRun.objects.exists()
    assert Run.objects.count() == 1


@pytest.mark.django_db(transaction=True)
def test_simultaneous_starts_start_one_shared_run(no_tasks):
    """Twelve visitors pressing "start the run" at the same moment start one run between them,
    also when the key's row is there already (its run failed: each of them would replace it)."""
    lesson = course()[6]
    failed, _ = services.shared_lesson_run(lesson=lesson, profile="default")
    Run.objects.update(status=Run.Status.FAILED)
    barrier = threading.Barrier(12)
    got: list[int] = []
    errors: list[BaseException] = []

    def visitor() -> None:
        try:
            barrier.wait()
            run, _ = services.shared_lesson_run(lesson=lesson, profile="default", session={})
            got.append(run.pk)
        except BaseException as err:  # reported by the assertion below
            errors.append(err)
        finally:
            connection.close()

    threads = [threading.Thread(target=visitor) for _ in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert len(got) == 12 and len(set(got)) == 1 and failed.pk not in got
    assert Run.objects.count() == 2


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_a_shared_runs_websocket_refuses_commands_saying_it_is_shared(no_tasks):
    run, _ = await sync_to_async(services.shared_lesson_run)(
        lesson=lesson_by_slug(SCORING), profile="default"
    )
    watcher = WebsocketCommunicator(
        URLRouter(websocket_urlpatterns), f"/ws/runs/{run_ref(run.pk)}/"
    )
    watcher.scope["user"] = AnonymousUser()
    watcher.scope["session"] = await sync_to_async(SessionStore)()
    assert (await watcher.connect())[0]
    await watcher.send_json_to({"command": "cancel"})
    while (reply := await watcher.receive_json_from(timeout=5))["kind"] != "error":
        pass
    assert reply["message"] == str(selectors.SHARED_RUN_READ_ONLY)
    await watcher.disconnect()
    assert not await sync_to_async(run.commands.exists)()


def test_the_lesson_page_says_the_run_is_shared_and_read_only(no_tasks, alice_client):
    visitor = Client()
    page = reverse("playground:lesson", args=[SCORING])
    assert 'id="start-run-default"' in visitor.get(page).content.decode()
    _start(visitor, SCORING)
    shown = visitor.get(page).content.decode()
    assert "shared run</a>" in shown and 'class="help shared-run"' in shown
    assert 'id="start-run-default"' not in shown
    # A failed shared run is offered to be started again (which replaces it).
    Run.objects.update(status=Run.Status.FAILED)
    again = visitor.get(page).content.decode()
    assert 'id="start-run-default"' in again and "shared-run" not in again
    # The binding-cycle lesson's run is the visitor's own; a signed-in user's is theirs.
    _start(visitor, BINDING)
    own = visitor.get(reverse("playground:lesson", args=[BINDING])).content.decode()
    assert "Open your run" in own and "shared-run" not in own
    _start(alice_client, SCORING)
    assert "shared-run" not in alice_client.get(page).content.decode()
