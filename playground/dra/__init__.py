"""Dynamic Resource Allocation in the playground: device pools and claims, and what runs did.

Writes go through ``clusters.services``.

- ``urls``: its URL routes, included by ``playground/urls.py``;
- ``forms``: a device pool on a node, and a claim for a pod;
- ``views``: the pages adding a device pool or a claim to a cluster;
- ``selectors``: a cluster's ResourceSlices, DeviceClasses and claims for its page, and the
  devices a run allocated;
- ``panels``: the run page's DRA steps built from DeviceMatches and DeviceAllocation events;
- ``demo``: the "GPU pool with DRA" demo cluster.
"""
