"""Clusters: nodes, pods and other objects a user builds, imports, shares and runs against.

- ``urls``: its URL routes, included by ``playground/urls.py``;
- ``models``: ``Cluster`` and its objects (``Node``, ``Pod``, ``KubeObject``), stored as manifests;
- ``forms``: a cluster's name and description, and the import of manifests;
- ``form_fields``: what the node and pod forms share: well-known labels, quantities, the YAML pane;
- ``node_forms``: the node form: labels, taints, capacity and images without YAML;
- ``pod_forms``: the pod form: a Pod (or a workload of pods), containers, affinity and spread;
- ``pod_parsing``: the pod form's line-per-item fields: affinity terms, spread constraints;
- ``controllers``: what controllers would create on a real cluster, deterministically;
- ``services``: writes: nodes, pods, other objects, imports (one transaction each);
- ``selectors``: reads: what a user may see of clusters, and plain data for views;
- ``setup_text``: a cluster's setup in short readable form for its page;
- ``views``: the HTTP layer: clusters, nodes, pods, objects, import and export, sharing.
"""
