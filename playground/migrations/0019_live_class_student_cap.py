# A live class's lecturer-set cap on students (issue 39, MEDIUM 6).

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("playground", "0018_live_class_language"),
    ]

    operations = [
        migrations.AddField(
            model_name="liveclass",
            name="student_cap",
            field=models.PositiveIntegerField(blank=True, null=True),
        ),
    ]
