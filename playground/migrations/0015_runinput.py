# The inputs a run took from outside the engine (playground.runs.tape), for exact replays.

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("playground", "0014_run_idle"),
    ]

    operations = [
        migrations.CreateModel(
            name="RunInput",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("point", models.BigIntegerField()),
                ("kind", models.CharField(max_length=16)),
                ("data", models.JSONField(blank=True, null=True)),
                (
                    "run",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="inputs",
                        to="playground.run",
                    ),
                ),
            ],
            options={"ordering": ["id"]},
        ),
    ]
