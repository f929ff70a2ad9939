"""What a run's end says: errored cycles counted as they come, a run that keeps erroring stopped.

An execution feeds every scheduling cycle's record (replayed ones too, so a take-over counts
the same) to ``ErrorTally``. When the last ``REPEATED_ERROR_CYCLES`` cycles all ended in the
same Error, the run is stopped as failed with a reason naming the plugin and the message,
instead of looping to its cycle cap; a run whose every cycle errored is failed, not succeeded,
and says so ("finished: 0 of 3 pods bound, every cycle ended in an Error from MyFilter: ...").
"""

from __future__ import annotations

import re
from typing import Final

from django.utils.translation import gettext_noop

from scheduler_core.loop.cycle import CycleRecord

from ..said import Said

REPEATED_ERROR_CYCLES: Final = 20
# The runtime's wrappers around a plugin's Error ('running "F" filter plugin: ...',
# 'running PreFilter plugin "P": ...', 'running Score plugins: plugin "S" failed with: ...').
_WRAPPED: Final = re.compile(
    r'running .*?"(?P<name>[^"]+)"(?: \w+ plugin| failed with)?: (?P<rest>.*)', re.S
)


def error_source(message: str) -> Said:
    """ "an Error from MyFilter: <message>" (the plugin named when the runtime's text has it).

    The sentences here are stored in English with their msgids (``said.Said``): a page shows
    them in its reader's language; the engine's message stays English, as kubectl shows it."""
    match = _WRAPPED.match(message)
    if match:
        return Said(
            gettext_noop("an Error from %(plugin)s: %(message)s"),
            plugin=match["name"],
            message=match["rest"],
        )
    return Said(gettext_noop("an Error: %(message)s"), message=message)


class ErrorTally:
    """Counts a run's cycles, those that ended in an Error, and the latest same-Error streak."""

    def __init__(self) -> None:
        self.cycles = 0
        self.errored = 0
        self.streak = 0
        self.message = ""  # of the streak (the latest Error)

    def see(self, rec: CycleRecord) -> None:
        self.cycles += 1
        if not rec.error:
            self.streak = 0
            return
        self.errored += 1
        message = rec.message or ""
        self.streak = self.streak + 1 if message == self.message else 1
        self.message = message

    @property
    def repeated(self) -> bool:
        """True when the last REPEATED_ERROR_CYCLES cycles all ended in the same Error."""
        return self.streak >= REPEATED_ERROR_CYCLES

    @property
    def every_cycle(self) -> bool:
        return self.cycles > 0 and self.errored == self.cycles

    def stop_reason(self, *, scheduled: int, total: int) -> Said:
        """Why a run that keeps erroring was stopped."""
        counts = {"cycles": self.cycles, "scheduled": scheduled, "total": total}
        if self.every_cycle:
            return Said(
                gettext_noop(
                    "stopped after %(cycles)s cycles: %(scheduled)s of %(total)s pods bound, "
                    "every cycle ended in %(source)s"
                ),
                **counts,
                source=error_source(self.message),
            )
        return Said(
            gettext_noop(
                "stopped after %(cycles)s cycles (%(scheduled)s of %(total)s pods bound): "
                "the last %(streak)s cycles all ended in %(source)s"
            ),
            **counts,
            streak=self.streak,
            source=error_source(self.message),
        )

    def finished_reason(self, *, scheduled: int, total: int) -> str:
        """A finished run's failure when every cycle errored (else "")."""
        if not self.every_cycle:
            return ""
        return Said(
            gettext_noop(
                "finished: %(scheduled)s of %(total)s pods bound, every cycle ended in %(source)s"
            ),
            scheduled=scheduled,
            total=total,
            source=error_source(self.message),
        )

    def note(self) -> str:
        """A finished run's note when some cycles errored (else "")."""
        if not self.errored or self.every_cycle:
            return ""
        return Said(
            gettext_noop(
                "%(errored)s of %(cycles)s cycles ended in an Error; the last was %(source)s"
            ),
            errored=self.errored,
            cycles=self.cycles,
            source=error_source(self.message),
        )
