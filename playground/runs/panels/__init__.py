"""Page data built from a run's stored records (never from the engine), for the run page.

- ``charts``: one cycle's panels and page data (scores, filters, verdicts, DRA steps);
- ``paging``: a cycle's panels cut to one page, sorted, filtered, top N (``cycles/<n>.json``);
- ``overview``: run-wide panels: cycle list, queue, waiting pods, progress, usage;
- ``verdicts``: NormalizeScore per plugin, why the winner won, the preemption;
- ``queue_view``: the scheduling queue as one cycle found it, and its moves;
- ``step_text``: the step-through's sentences;
- ``point_help``: what each extension point does, what each plugin checks;
- ``sampling``: how many nodes Filter evaluated in a cycle, and why;
- ``changes``: a run's cluster changes and what each did to the pending pods;
- ``compare``: what differs between two runs of one cluster;
- ``gangs``: each gang of the run's Workloads, where its members are, when it completed.
"""
