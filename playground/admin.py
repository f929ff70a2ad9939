"""Django admin for every playground model."""

from django.contrib import admin

from . import models


@admin.register(models.Cluster)
class ClusterAdmin(admin.ModelAdmin):
    list_display = ("name", "owner", "is_demo", "updated")
    list_filter = ("is_demo",)
    search_fields = ("name", "description")


@admin.register(models.Node)
class NodeAdmin(admin.ModelAdmin):
    list_display = ("name", "cluster", "unschedulable")
    search_fields = ("name",)
    list_select_related = ("cluster",)


@admin.register(models.Pod)
class PodAdmin(admin.ModelAdmin):
    list_display = ("name", "namespace", "cluster", "node_name", "phase")
    search_fields = ("name", "namespace", "node_name")
    list_select_related = ("cluster",)


@admin.register(models.KubeObject)
class KubeObjectAdmin(admin.ModelAdmin):
    list_display = ("kind", "name", "namespace", "cluster")
    list_filter = ("kind",)
    search_fields = ("name",)
    list_select_related = ("cluster",)


@admin.register(models.Profile)
class ProfileAdmin(admin.ModelAdmin):
    list_display = ("name", "owner", "is_demo", "updated")
    list_filter = ("is_demo",)


class RunEventInline(admin.TabularInline):
    model = models.RunEvent
    extra = 0


@admin.register(models.Run)
class RunAdmin(admin.ModelAdmin):
    list_display = ("id", "cluster", "profile", "status", "created", "finished")
    list_filter = ("status",)
    inlines = [RunEventInline]


@admin.register(models.RunEvent)
class RunEventAdmin(admin.ModelAdmin):
    list_display = ("run", "seq", "type")
    list_filter = ("type",)


@admin.register(models.CustomPlugin)
class CustomPluginAdmin(admin.ModelAdmin):
    list_display = ("name", "owner", "is_demo", "is_placeholder", "updated")
    list_filter = ("is_demo", "is_placeholder")
    search_fields = ("name", "description")
