"""Move the scheduling-cycle events of runs stored before cycle records into RunCycle rows."""

from django.db import migrations

BATCH = 500


def events_to_cycles(apps, schema_editor):
    """Re-record each old run's events as the run task now stores them; drop the cycle rows."""
    from playground.runs.execution.attempt import Recorder
    from scheduler_core.record.events import event_from_dict

    Run = apps.get_model("playground", "Run")
    RunEvent = apps.get_model("playground", "RunEvent")
    RunCycle = apps.get_model("playground", "RunCycle")
    run_ids = RunEvent.objects.filter(type="CycleStart").values_list("run_id", flat=True).distinct()
    for run_id in list(run_ids.order_by()):
        recorder = Recorder()
        payloads = RunEvent.objects.filter(run_id=run_id).order_by("seq")
        for payload in payloads.values_list("payload", flat=True).iterator():
            event = event_from_dict(payload)
            recorder.add(event, recorder.see(event))
        rows = [row for kind, row, _ in recorder.take() if kind == "cycle"]
        cycles = [RunCycle(run_id=run_id, **row) for row in rows]
        RunCycle.objects.bulk_create(cycles, batch_size=100, ignore_conflicts=True)
        nodes = recorder.encoder.run_nodes
        Run.objects.filter(pk=run_id).update(node_names=list(nodes) if nodes else None)
        # The rows the cycle records now hold: every seq of each record's range.
        seqs = [s for row in rows for s in range(row["seq_first"], row["seq_last"] + 1)]
        for i in range(0, len(seqs), BATCH):
            RunEvent.objects.filter(run_id=run_id, seq__in=seqs[i : i + BATCH]).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("playground", "0006_run_cycles_and_simulations"),
    ]

    operations = [
        migrations.RunPython(events_to_cycles, migrations.RunPython.noop),
    ]
