"""Dynamic Resource Allocation in the playground: device pools and claims, and what runs did.

``forms`` and ``views``: the pages adding a device pool or a claim to a cluster; ``selectors``:
the cluster page's ResourceSlices, DeviceClasses and claims, and the devices a run allocated;
``panels``: the run page's DRA steps built from DeviceMatches and DeviceAllocation events;
``demo``: the "GPU pool with DRA" demo cluster. Writes go through ``clusters.services``.
"""
