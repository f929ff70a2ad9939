"""Run.feature_gates: the runs stored before it ran with TRACE_FEATURES' gates (preemption within
the preemptor's cycle, no batching); new runs get v1.35's defaults."""

from django.db import migrations, models

import playground.runs.gates


class Migration(migrations.Migration):
    dependencies = [
        ("playground", "0020_owned_or_demo_shape"),
    ]

    operations = [
        # Existing rows take this default once, as the field is added...
        migrations.AddField(
            model_name="run",
            name="feature_gates",
            field=models.JSONField(blank=True, default=playground.runs.gates.trace_gates),
        ),
        # ... and new runs take v1.35's defaults.
        migrations.AlterField(
            model_name="run",
            name="feature_gates",
            field=models.JSONField(blank=True, default=playground.runs.gates.v1_35_gates),
        ),
    ]
