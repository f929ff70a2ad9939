"""The explainers of plugins whose details need more than a few lines, registered with the
Filter and Score drivers (``explain.filters``, ``explain.scores``) when imported.

- ``topology``: PodTopologySpread and InterPodAffinity (counts per domain, skew, terms);
- ``volumes``: VolumeBinding, VolumeZone, NodeVolumeLimits and VolumeRestrictions;
- ``dra``: DynamicResources (devices per request, selectors, allocation; Reserve and PreBind);
- ``custom``: custom CEL plugins (the expression, what it read, its value);
- ``extenders``: HTTP extenders' answers (filter, prioritize, bind).
"""
