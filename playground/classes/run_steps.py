"""The steps of a class's run that a question points at: a cycle's run-page steps, the index of
an extension point among them, and the nodes a "which node wins?" question offers."""

from __future__ import annotations

from typing import Any, Final

from ..models import Run
from ..runs import selectors as run_selectors
from ..runs.panels import charts

WINNER_CHOICES_MAX: Final = 12  # a bigger cluster offers the best-scored nodes of the cycle


def steps_of(run_id: int, cycle: int) -> list[dict[str, Any]]:
    run = Run.objects.filter(pk=run_id).defer("config", "placements").first()
    if run is None:
        return []
    return charts.steps(run_selectors.run_cycle_events(run=run, cycle=cycle))


def run_step_index(run_id: int, cycle: int, point: str, plugin: str | None) -> int | None:
    for s in steps_of(run_id, cycle):
        if s["point"] == point and (plugin is None or s["plugin"] == plugin):
            return int(s["index"])
    return None


def winner_choices(run_id: int, cycle: int, winner: str | None) -> list[str]:
    """The nodes to choose from (``choices_among``) in cycle ``cycle`` of a stored run."""
    nodes = list(Run.objects.filter(pk=run_id).values_list("node_names", flat=True).first() or [])
    combine: dict[str, Any] = {}
    if len(nodes) > WINNER_CHOICES_MAX:
        run = Run.objects.filter(pk=run_id).first()
        events = run_selectors.run_cycle_events(run=run, cycle=cycle) if run else []
        combine = next((e for e in events if e["type"] == "Combine"), {})
    return choices_among(nodes, combine, winner)


def choices_among(nodes: list[str], combine: dict[str, Any], winner: str | None) -> list[str]:
    """The nodes to choose from: all of them, or in a big cluster the best totals of the
    cycle's Combine step (the winner among them), sorted; "none" last when no node took the pod."""
    nodes = list(nodes)
    if len(nodes) > WINNER_CHOICES_MAX:
        ranked = sorted(
            zip(combine.get("nodes") or [], combine.get("totals") or [], strict=False),
            key=lambda nt: -nt[1],
        )
        nodes = [n for n, _t in ranked[: WINNER_CHOICES_MAX - 1]]
        if winner and winner not in nodes:
            nodes.append(winner)
        nodes.sort()
    if not winner:
        nodes.append("none")
    return nodes
