"""The playground Django app: what users build (clusters, objects, profiles, custom plugins),
the runs of the engine on them, the course and live classes. One package per feature; the root
keeps what sits above or below every feature.

- ``clusters/``: clusters, nodes, pods and other objects; forms, import and export, sharing;
- ``profiles/``: scheduler profiles (``KubeSchedulerConfiguration``): editor, import, export;
- ``custom_plugins/``: users' own Filter and Score plugins written in CEL;
- ``dra/``: Dynamic Resource Allocation objects and the run page's device panels;
- ``runs/``: running the engine, storing and streaming its decisions, the run page;
- ``lessons/``: the course: lessons as data folders, their checks and pages;
- ``classes/``: live classes: a lecturer steps, students follow and answer;
- ``inputs/``: what users hand in (manifests, YAML and JSON, uploads, parameters), within bounds;
- ``management/``: the ``manage.py`` commands (serve, lessons, explain_runs, benches, ...);
- ``migrations/``: the database schema's history;
- ``models``: every feature's stored rows, re-exported from each feature's ``models``;
- ``owned``: the shape users' objects share: owned by a user or demo, shareable, copied from;
- ``engine``: the engine's checks every feature uses: configurations and manifests;
- ``demo/``: the demo content a fresh database gets, and loading it (a write across features);
- ``selectors``: reads every feature shares: what a user may see;
- ``forms``: sign-up, and helpers of line-per-item text fields shared by features;
- ``plugins``: the playground's own plugins added to the registry (ApprovalGate at Permit);
- ``throttle``: request and websocket-frame budgets per user and address;
- ``responses``: HTTP responses shared by several features' views (downloads);
- ``tasks``: the Celery tasks' registration;
- ``views``: the pages above every feature (home, sign-up, the cluster page);
- ``urls``: the root's routes, then each feature's;
- ``routing``: the websocket routes: each feature's, then a polite refusal of any other path;
- ``admin``: the Django admin's registrations;
- ``apps``: the app's configuration.
"""
