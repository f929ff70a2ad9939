"""HTTP scheduler extenders: the client, where it may connect, and how.

- ``extender``: HTTPExtender and the calls the loop and preemption make (extender.go);
- ``policy``: the host policy applied to every extender call (not part of kube-scheduler);
- ``transport``: the HTTP(S) opener, restclient.TLSConfigFor as far as ssl allows.
"""
