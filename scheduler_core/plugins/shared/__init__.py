"""What several in-tree plugins share (upstream's plugins/helper and the volume utilities).

- ``helpers``: default score normalisation and taint matching;
- ``shape``: piecewise-linear score functions defined by (utilization, score) points;
- ``volumes``: a pod's claims, storage classes and binding modes, a PV's capacity and node
  affinity, for the volume plugins and DynamicResources.
"""
