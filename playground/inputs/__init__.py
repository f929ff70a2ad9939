"""What users hand the playground, read within bounds: Kubernetes manifests and quantities,
YAML and JSON text, uploads and query parameters. Every feature reads its input through here.

- ``manifests``: Kubernetes manifests (YAML or JSON, single objects or Lists) to stored rows
  and back, with clear errors naming the object and field;
- ``kube``: Kubernetes names, label keys, quantities and selectors, validated as upstream does;
- ``workload_api``: the Workload API's objects (scheduling.k8s.io/v1alpha1) and a pod's
  ``spec.workloadRef``, validated as the API server does;
- ``upstream``: Kubernetes' own validation messages, labelled and glossed for the reader;
- ``yaml_limits``: YAML read while counting values, per object and per upload, before anything
  is built;
- ``jsontext``: JSON text with the same bounds;
- ``uploads``: uploaded files: size caps, gzip, one big input at a time per process;
- ``params``: bounded integers and choices from query strings.
"""
