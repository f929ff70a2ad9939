"""Names and uids of the objects controllers create, as Kubernetes makes them, deterministically.

A ReplicaSet is named after its Deployment and the pod-template-hash (fnv32a of the template,
safe-encoded; on a clash the Deployment controller adds its collisionCount to the hash). Pods of
a ReplicaSet, DaemonSet or Job and claims made from a ResourceClaimTemplate use generateName:
the prefix (cut to 58 characters) and 5 random characters of a vowel-free alphabet, the API
server refusing a name already taken and the controller trying again. The engine has no
randomness: the 5 characters come from a hash of the owner's uid and the child's index, and a
clash moves on to the next attempt, so a name is never given twice and an import gives the same
names every time.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from collections.abc import Iterable, Mapping
from typing import Any, Final

SAFE_ALPHABET: Final = "bcdfghjklmnpqrstvwxz2456789"  # apimachinery's util/rand alphanums
GENERATED_SUFFIX: Final = 5
MAX_GENERATE_PREFIX: Final = 63 - GENERATED_SUFFIX  # names.SimpleNameGenerator's cut
_UID_NAMESPACE: Final = uuid.UUID("6f1d3c1e-6a4c-4c57-9d1c-4b0f9c7a2e11")

Key = tuple[str, str, str]  # (kind, namespace, name); "" namespace for cluster-scoped kinds


def fnv32a(data: bytes) -> int:
    h = 0x811C9DC5
    for byte in data:
        h = ((h ^ byte) * 0x01000193) & 0xFFFFFFFF
    return h


def safe_encode(text: str) -> str:
    """apimachinery's rand.SafeEncodeString: no vowels, no look-alike characters."""
    return "".join(SAFE_ALPHABET[ord(c) % len(SAFE_ALPHABET)] for c in text)


def template_hash(template: Mapping[str, Any], collision_count: int | None = None) -> str:
    """A pod-template-hash: fnv32a of the template (and the collision count), safe-encoded."""
    data = json.dumps(template, sort_keys=True, separators=(",", ":")).encode()
    if collision_count is not None:
        data += collision_count.to_bytes(8, "little")
    return safe_encode(str(fnv32a(data)))


def random_suffix(*parts: str) -> str:
    """The 5 characters generateName appends, drawn from a hash of ``parts``."""
    digest = hashlib.sha256("/".join(parts).encode()).digest()
    return "".join(SAFE_ALPHABET[b % len(SAFE_ALPHABET)] for b in digest[:GENERATED_SUFFIX])


def ensure_uid(manifest: dict[str, Any], cluster_key: str = "") -> str:
    """The object's uid; one derived from its kind, namespace and name when it has none."""
    metadata = manifest.setdefault("metadata", {})
    if not metadata.get("uid"):
        key = "/".join(
            [
                cluster_key,
                str(manifest.get("kind") or ""),
                str(metadata.get("namespace") or ""),
                str(metadata.get("name") or ""),
            ]
        )
        metadata["uid"] = str(uuid.uuid5(_UID_NAMESPACE, key))
    return str(metadata["uid"])


class GeneratedNames:
    """The names taken in a cluster, and new ones that never clash with them or each other."""

    def __init__(self, taken: Iterable[Key] = ()) -> None:
        self.taken: set[Key] = set(taken)

    def generate(self, kind: str, namespace: str, prefix: str, *seed: str) -> str:
        """``prefix`` (cut as generateName cuts it) plus a suffix no object of ``kind`` has."""
        base = prefix[:MAX_GENERATE_PREFIX]
        attempt = 0
        while True:
            parts = seed if attempt == 0 else (*seed, f"attempt-{attempt}")
            name = base + random_suffix(*parts)
            if (kind, namespace, name) not in self.taken:
                self.taken.add((kind, namespace, name))
                return name
            attempt += 1

    def first_choice(self, prefix: str, *seed: str) -> str:
        """The name ``generate`` tries first (a claim made on an earlier import has it)."""
        return prefix[:MAX_GENERATE_PREFIX] + random_suffix(*seed)

    def pod_template_hash(self, namespace: str, name: str, template: Mapping[str, Any]) -> str:
        """The hash naming ReplicaSet ``name-<hash>``, rehashed with a collision count while
        that ReplicaSet name is taken (as the Deployment controller does)."""
        count: int | None = None
        while True:
            digest = template_hash(template, count)
            key = ("ReplicaSet", namespace, f"{name}-{digest}")
            if key not in self.taken:
                self.taken.add(key)
                return digest
            count = 1 if count is None else count + 1
