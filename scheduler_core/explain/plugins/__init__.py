"""The explanations of what is not an in-tree plugin's own Filter or Score.

An in-tree plugin explains its Filter verdict and its Score beside its rule (``explain_filter``
and ``explain_score``, against the Protocols of ``scheduler_core.framework.explaining``); the
drivers ``explain.filters`` and ``explain.scores`` call them. Here:

- ``dra``: DynamicResources' Reserve and PreBind (the devices kept on the chosen node);
- ``custom``: custom CEL plugins (the expression, what it read, its value);
- ``extenders``: HTTP extenders' answers (filter, prioritize, bind).
"""
