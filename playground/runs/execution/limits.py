"""Fair shares of the runners, and how many runs one owner may have at once.

An owner is a signed-in user, or an anonymous visitor's address (``owner_key``). The runners are
the server's runner threads (embedded, ``PLAYGROUND_EMBEDDED_RUNNERS``) or the Celery workers'
slots (full stack, ``PLAYGROUND_WORKER_SLOTS``). Each rule below is checked when a run starts; a
run that may not start yet stays pending and its page says why (``waiting_reason``):

- one owner runs at most ``owner_share()`` runs at once: half the runners (at least one), and
  no more than ``PLAYGROUND_RUNS_PER_USER``;
- a run that can stay idle for long (a Permit plugin waiting for a user, an HTTP extender that
  may time out: ``can_wait``) counts twice over: an owner has at most
  ``PLAYGROUND_PERMIT_RUNS_PER_USER`` of them running, and all owners together hold at most
  ``wait_slots()`` runners with them, so some runners are always left for the other runs;
- embedded, a run waits while every runner thread is busy (a Celery task that starts has a slot).

Embedded, a run whose pods left all wait at Permit for a user is idle (``IdleMark``): it keeps
its thread, polling for the answer, but does not count as a busy runner, nor against the
runners kept for runs that cannot wait, so a class of students each holding an approval gate
do not take the runners from each other; ``PLAYGROUND_IDLE_RUNS`` bounds how many may wait so
(a Celery worker's slot stays taken while its run waits: there they count as busy).

Starting a run counts every run of the owner that is pending or running, whatever its kind
(plain runs, compares, lessons, runs with changes, tried changes): more than
``PLAYGROUND_QUEUED_RUNS_PER_USER`` is refused at once (``start_refusal``).

Visitors without an account are bounded twice more (``anonymous_refusal``): one browser session
starts at most ``PLAYGROUND_ANONYMOUS_RUNS_PER_SESSION`` runs an hour, and all such visitors
together have at most ``PLAYGROUND_ANONYMOUS_ACTIVE_RUNS`` runs pending or running (a lecture hall
shares one address, so the per-owner rule alone would not bound the server, nor be fair to it).
Lesson runs have budgets of their own, so that a learner taking the course in one sitting is
never locked out: a run every visitor shares (one per lesson and profile: bounded by the course
itself) counts against no session, and a lesson's own run (lesson 11's, which waits for the
visitor's Permit answers) counts in ``PLAYGROUND_ANONYMOUS_LESSON_RUNS_PER_SESSION`` an hour.

How long a pod may wait at Permit is capped by ``PLAYGROUND_PERMIT_MAX_WAIT_SECONDS`` (below the
engine's own 15 minutes, as upstream).
"""

from __future__ import annotations

import ipaddress
import logging
import time
from collections.abc import Callable, Mapping, MutableMapping
from typing import Any, Final

from django.conf import settings
from django.db.models import Q
from django.utils.translation import gettext, gettext_noop, ngettext

from scheduler_core import config as engine_config
from scheduler_core.framework.runtime import Framework

from ...custom_plugins.services import registry_for
from ...models import Run
from ...throttle import client_address
from ..said import Said

log = logging.getLogger(__name__)

ANONYMOUS: Final = "anonymous"
_ACTIVE: Final = (Run.Status.PENDING, Run.Status.RUNNING)


def embedded_runners() -> int:
    return max(1, int(getattr(settings, "PLAYGROUND_EMBEDDED_RUNNERS", 4)))


def worker_slots() -> int:
    return max(1, int(getattr(settings, "PLAYGROUND_WORKER_SLOTS", 4)))


def embedded() -> bool:
    from config.celery import app

    return bool(app.conf.task_always_eager)


def runner_slots() -> int:
    """How many runs can execute at once: runner threads embedded, worker slots otherwise."""
    return embedded_runners() if embedded() else worker_slots()


def runs_per_user() -> int:
    return max(1, int(getattr(settings, "PLAYGROUND_RUNS_PER_USER", 2)))


def permit_runs_per_user() -> int:
    return max(1, int(getattr(settings, "PLAYGROUND_PERMIT_RUNS_PER_USER", 1)))


def queued_runs_per_user() -> int:
    return max(2, int(getattr(settings, "PLAYGROUND_QUEUED_RUNS_PER_USER", 6)))


def idle_runs() -> int:
    return max(1, int(getattr(settings, "PLAYGROUND_IDLE_RUNS", 32)))


def anonymous_runs_per_session() -> int:
    return max(1, int(getattr(settings, "PLAYGROUND_ANONYMOUS_RUNS_PER_SESSION", 10)))


def anonymous_lesson_runs_per_session() -> int:
    return max(1, int(getattr(settings, "PLAYGROUND_ANONYMOUS_LESSON_RUNS_PER_SESSION", 30)))


def anonymous_active_runs() -> int:
    return max(1, int(getattr(settings, "PLAYGROUND_ANONYMOUS_ACTIVE_RUNS", 8)))


def permit_max_wait_seconds() -> float:
    return float(getattr(settings, "PLAYGROUND_PERMIT_MAX_WAIT_SECONDS", 300))


def owner_share(slots: int | None = None) -> int:
    """How many runs one owner may run at once: half the runners, at least one."""
    slots = runner_slots() if slots is None else slots
    return min(max(1, slots // 2), runs_per_user())


def wait_slots(slots: int | None = None) -> int:
    """How many runners all runs that can wait may hold together: a quarter (at least one) of
    the runners stays for runs that cannot."""
    slots = runner_slots() if slots is None else slots
    return max(1, slots - max(1, slots // 4))


# --- owners ---------------------------------------------------------------------------------


def owner_key(*, user: Any = None, address: str = "") -> str:
    """The owner a run's share is counted against: the user, else the visitor's address.

    An IPv6 address counts as its /64 (one host can use a whole /64); an anonymous visitor
    without an address shares one owner with every other such visitor.
    """
    if user is not None and getattr(user, "is_authenticated", False):
        return f"user:{user.pk}"
    try:
        ip = ipaddress.ip_address(address.strip())
    except ValueError:
        return ANONYMOUS
    if ip.version == 6:
        mapped = ip.ipv4_mapped
        if mapped is None:
            return f"addr:{ipaddress.ip_network(f'{ip}/64', strict=False)}"
        ip = mapped
    return f"addr:{ip}"


def request_owner(request: Any) -> str:
    """The owner of the runs a request starts (an anonymous visitor's address as the login
    throttle sees it: behind ``PLAYGROUND_TRUSTED_PROXIES``, the one the proxies were given)."""

    return owner_key(user=request.user, address=client_address(request))


def run_owner(run: Run) -> str:
    """The run's owner; runs stored before owners were kept count as their user's."""
    return _row_owner(run.owner_key, run.started_by_id)


def _owned_by(owner: str) -> Q:
    if owner.startswith("user:"):
        user_id = owner.removeprefix("user:")
        return Q(owner_key=owner) | Q(owner_key="", started_by_id=user_id)
    if owner == ANONYMOUS:
        return Q(owner_key=owner) | Q(owner_key="", started_by__isnull=True)
    return Q(owner_key=owner)


def can_wait(config: dict[str, Any], owner: Any) -> bool:
    """Whether a run of ``config`` can sit idle for long: a profile with a Permit plugin (it may
    wait for a user), or HTTP extenders (each call may run to its timeout)."""
    return _waits(config, owner, extenders=True)


def waits_for_user(config: dict[str, Any], owner: Any) -> bool:
    """Whether a run of ``config`` has a Permit plugin, so it may wait for a user's answer (its
    course depends on who answers: such a run is never shared between visitors)."""
    return _waits(config, owner, extenders=False)


def _waits(config: dict[str, Any], owner: Any, *, extenders: bool) -> bool:

    try:
        cfg = engine_config.load_config(config or {})
        if extenders and cfg.extenders:
            return True
        registry = registry_for(owner)
        return any(Framework(profile, registry).permit_plugins for profile in cfg.profiles)
    except Exception as err:  # a configuration that does not build fails the run when it runs
        log.info("cannot tell whether a run can wait: %r", err)
        return False


# --- starting and waiting -------------------------------------------------------------------


def start_refusal(owner: str, *, adding: int, excluding: tuple[int, ...] = ()) -> str:
    """Why the owner may not start ``adding`` more runs ("" when they may).

    Counts the owner's pending and running runs of every kind (``excluding`` the new ones, when
    they are stored already).
    """
    limit = queued_runs_per_user()
    rows = Run.objects.filter(_owned_by(owner), status__in=_ACTIVE).exclude(pk__in=excluding)
    counts = dict.fromkeys(_ACTIVE, 0)
    for status in rows.values_list("status", flat=True):
        counts[status] += 1
    have = sum(counts.values())
    if have + adding <= limit:
        return ""
    return ngettext(
        "cannot start a run: you have %(running)s running and %(pending)s waiting to start, and "
        "at most %(limit)s may be running or waiting at once (runs, compares, lesson runs, runs "
        "with changes and tried changes all count). Wait for one to finish, or cancel one from "
        "its page.",
        "cannot start %(count)s runs: you have %(running)s running and %(pending)s waiting to "
        "start, and at most %(limit)s may be running or waiting at once (runs, compares, lesson "
        "runs, runs with changes and tried changes all count). Wait for one to finish, or cancel "
        "one from its page.",
        adding,
    ) % {
        "count": adding,
        "running": counts[Run.Status.RUNNING],
        "pending": counts[Run.Status.PENDING],
        "limit": limit,
    }


# Times (seconds since the epoch) at which this browser session started runs without an account,
# per budget: runs (RUNS), a lesson's own runs (LESSON); a shared lesson run (SHARED) counts in
# none.
SESSION_STARTS: Final = "anonymous_run_starts"
SESSION_LESSON_STARTS: Final = "anonymous_lesson_run_starts"
RUNS: Final = "runs"
LESSON: Final = "lesson"
SHARED: Final = "shared"
_BUDGET_KEYS: Final = {RUNS: SESSION_STARTS, LESSON: SESSION_LESSON_STARTS}
_HOUR: Final = 3600.0


def _recent_starts(
    session: Mapping[str, Any], now: float, key: str = SESSION_STARTS
) -> list[float]:
    return [
        float(t)
        for t in session.get(key) or []
        if isinstance(t, int | float) and 0 <= now - t < _HOUR
    ]


def anonymous_refusal(
    session: Mapping[str, Any], *, now: float | None = None, budget: str = RUNS
) -> str:
    """Why a visitor without an account may not start a run now ("" when they may): this
    session's starts in the last hour in ``budget`` (none for a SHARED lesson run), then every
    anonymous visitor's runs pending or running."""
    now = time.time() if now is None else now
    key = _BUDGET_KEYS.get(budget)
    recent = _recent_starts(session, now, key) if key is not None else []
    per_session = (
        anonymous_lesson_runs_per_session() if budget == LESSON else anonymous_runs_per_session()
    )
    if key is not None and len(recent) >= per_session:
        wait = max(1, round((min(recent) + _HOUR - now) / 60))
        values = {"count": len(recent), "limit": per_session, "wait": wait}
        if budget == LESSON:
            message = gettext(
                "cannot start a lesson run: this browser started %(count)s lesson runs of its "
                "own in the last hour, the most a visitor without an account may (at most "
                "%(limit)s an hour). Sign in to start more, or try again in %(wait)s min."
            )
        else:
            message = gettext(
                "cannot start a run: this browser started %(count)s runs in the last hour, the "
                "most a visitor without an account may (at most %(limit)s an hour). Sign in to "
                "start more, or try again in %(wait)s min."
            )
        return message % values
    active = Run.objects.filter(started_by__isnull=True, status__in=_ACTIVE).count()
    cap = anonymous_active_runs()
    if active >= cap:
        return gettext(
            "cannot start a run: %(count)s runs of visitors without an account are running or "
            "waiting to start, the most the server takes at once (at most %(limit)s). Sign in, "
            "or try again when one has finished."
        ) % {"count": active, "limit": cap}
    return ""


def anonymous_started(
    session: MutableMapping[str, Any], *, now: float | None = None, budget: str = RUNS
) -> None:
    """Count one run started by this session without an account in ``budget``
    (``anonymous_refusal``); a SHARED lesson run counts in none."""
    key = _BUDGET_KEYS.get(budget)
    if key is None:
        return
    now = time.time() if now is None else now
    session[key] = [*_recent_starts(session, now, key), now]


def waiting_reason(run: Run) -> str:
    """Why the pending run must wait before it starts ("" when it may start now)."""
    owner = run_owner(run)
    rows = list(
        Run.objects.filter(status=Run.Status.RUNNING)
        .exclude(pk=run.pk)
        .values_list("owner_key", "started_by_id", "can_wait", "idle")
    )
    slots = runner_slots()
    mine = [w for key, by, w, _ in rows if _row_owner(key, by) == owner]  # idle ones too
    # Embedded, a run waiting at Permit for a user keeps a thread, not a runner.
    threads = embedded()
    others = [(key, by, w) for key, by, w, i in rows if not (i and threads)]
    idle = len(rows) - len(others)
    share = owner_share(slots)
    if len(mine) >= share:
        # One owner's runs (a Permit wait or a silent extender holds a runner for minutes)
        # must not take every runner: this one waits, and says so on its page. The reasons are
        # stored in English with their msgids (said.py): the page shows its reader's language.
        return Said(
            gettext_noop(
                "waiting for a free runner: %(count)s of your runs is running, and one owner "
                "runs at most %(share)s at once (of %(slots)s runners)"
            )
            if len(mine) == 1
            else gettext_noop(
                "waiting for a free runner: %(count)s of your runs are running, and one owner "
                "runs at most %(share)s at once (of %(slots)s runners)"
            ),
            count=len(mine),
            share=share,
            slots=slots,
        )
    if run.can_wait:
        waiting_mine = sum(mine)
        limit = permit_runs_per_user()
        if waiting_mine >= limit:
            return Said(
                gettext_noop(
                    "waiting: you already have %(count)s run that can wait at Permit or on an "
                    "extender (at most %(limit)s); allow, reject or cancel to go on"
                )
                if waiting_mine == 1
                else gettext_noop(
                    "waiting: you already have %(count)s runs that can wait at Permit or on an "
                    "extender (at most %(limit)s); allow, reject or cancel to go on"
                ),
                count=waiting_mine,
                limit=limit,
            )
        if idle >= idle_runs():
            return Said(
                gettext_noop(
                    "waiting for a free runner: %(count)s runs wait at Permit for their users, "
                    "the most the server keeps waiting at once"
                ),
                count=idle,
            )
        waiting_all = sum(w for _, _, w in others)
        cap = wait_slots(slots)
        if waiting_all >= cap:
            return Said(
                gettext_noop(
                    "waiting for a free runner: %(count)s runners hold runs that can wait at "
                    "Permit or on an extender, the most they may (the other 1 is kept for runs "
                    "that cannot)"
                )
                if slots - cap == 1
                else gettext_noop(
                    "waiting for a free runner: %(count)s runners hold runs that can wait at "
                    "Permit or on an extender, the most they may (the other %(kept)s are kept "
                    "for runs that cannot)"
                ),
                count=waiting_all,
                kept=slots - cap,
            )
    if threads and len(others) >= slots:
        return Said(
            gettext_noop("waiting for a free runner: all %(count)s runners are busy"),
            count=len(others),
        )
    return ""


class IdleMark:
    """Keeps ``Run.idle`` as the execution says (written on each change only), and tells
    ``notify`` (the embedded pool: a runner is free while the run waits)."""

    def __init__(
        self, run_id: int, token: str, notify: Callable[[bool], None] | None = None
    ) -> None:
        self.run_id, self.token, self.notify = run_id, token, notify
        self.idle = False

    def __call__(self, idle: bool) -> None:
        if idle == self.idle:
            return
        self.idle = idle
        Run.objects.filter(pk=self.run_id, lease_token=self.token).update(idle=idle)
        if self.notify is not None:
            self.notify(idle)


def _row_owner(key: str, started_by_id: int | None) -> str:
    if key:
        return key
    return f"user:{started_by_id}" if started_by_id is not None else ANONYMOUS
