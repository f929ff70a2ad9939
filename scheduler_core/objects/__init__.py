"""Views of Kubernetes objects and the apimachinery pieces the scheduler reads them with.

- ``api``: typed views (Pod, Node, KubeObject, ...) built from plain manifests;
- ``shapes``: the JSON types of the manifest fields read, checked as the API server decodes;
- ``labels``: label, node and field selectors (apimachinery labels);
- ``quantity``: resource quantities, parsed exactly as apimachinery does.
"""
