"""Every CEL evaluation of untrusted text runs here: in a worker process with hard limits.

Not an upstream module. ``common-expression-language`` has no cost, step or memory limit: an
expression the cost analysis (``cel_cost``) underestimates runs for minutes and takes gigabytes
in the process that evaluates it, holding its thread (a web worker's slot, a Celery worker) and
a core (issue 39: 6-66 s, 506 MB per evaluation). Version 0.10 releases Python's lock while it
evaluates but holds it while it converts values (a list of 3 M items: 0.44 s). This module does
not trust the analysis: each evaluation is sent to a worker process (``python -m
scheduler_core.custom.sandbox``) that

- has at most ``MEMORY_BYTES`` of address space more than it needs at start (``RLIMIT_AS``);
- may spend between ``CPU_SECONDS`` and ``CPU_SECONDS + 1`` seconds of CPU time per call
  (``RLIMIT_CPU``, raised before each call: the kernel ends the worker when it is reached);
- is killed when a reply takes longer than ``WALL_SECONDS`` (a stopped or starved worker).

The caller waits on a pipe, without Python's lock, so other threads run meanwhile; a worker
that was stopped is replaced at the next call. An evaluation stopped by a limit raises
``LimitExceeded`` (the caller reports an Error status naming the expression). A worker is
started at the first evaluation (~0.3 s) and lives as long as its parent; each process (a web
worker, a Celery worker) has at most ``POOL_SIZE`` workers, and further callers wait for one.

Determinism: results are the evaluator's, as in-process; only an expression that reaches a
limit depends on the machine, and the analysis refuses those far below the limits (a call is at
most ``CALL_LIMIT`` units, ~25 ms).
"""

from __future__ import annotations

import atexit
import datetime
import io
import os
import pickle
import resource
import select
import signal
import struct
import subprocess
import sys
import threading
import time  # the workers' deadlines only: no result reads the clock
from collections import OrderedDict
from collections.abc import Mapping
from typing import Any, Final

CPU_SECONDS: Final = 1
MEMORY_BYTES: Final = 512 * 1024 * 1024
WALL_SECONDS: Final = 30.0
POOL_SIZE: Final = 2
ENVIRONMENTS: Final = ("plain", "dra")  # "dra": with the DRA library's functions (quantity, ...)
_HEADER: Final = struct.Struct("!I")
_PROGRAMS: Final = 256  # compiled programs a worker keeps
_CONTEXTS: Final = 4096  # contexts of converted variables a worker keeps, and their bytes:
_CONTEXT_BYTES: Final = 32 * 1024 * 1024  # (pickled) of their largest variables at most
# What a worker may send back: CEL values as Python values, and the errors the evaluator raises.
_RESULT_CLASSES: Final = {
    ("datetime", "datetime"): datetime.datetime,
    ("datetime", "timedelta"): datetime.timedelta,
    ("datetime", "timezone"): datetime.timezone,
}
_ERRORS: Final[Mapping[str, type[Exception]]] = {
    e.__name__: e
    for e in (KeyError, TypeError, ValueError, RuntimeError, ZeroDivisionError, OverflowError)
}


class LimitExceeded(RuntimeError):
    """An evaluation stopped by the sandbox's CPU, memory or wall-clock limit."""


class _Unpickler(pickle.Unpickler):
    """Plain values only: a worker's reply cannot name any other class."""

    def find_class(self, module: str, name: str) -> Any:
        found = _RESULT_CLASSES.get((module, name))
        if found is None:
            raise pickle.UnpicklingError(f"{module}.{name} is not a CEL value")
        return found


def _send(stream: Any, message: Any) -> None:
    data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(_HEADER.pack(len(data)) + data)
    stream.flush()


# -- the parent's side --------------------------------------------------------------------------


class _Worker:
    """One worker process and its pipes."""

    def __init__(self, memory_bytes: int) -> None:
        self.memory_bytes = memory_bytes
        root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        env = {
            **os.environ,
            "PYTHONPATH": os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")])),
            "RUST_BACKTRACE": "0",  # a stopped worker logs one line, not a stack
        }
        self.process = subprocess.Popen(
            [sys.executable, "-m", "scheduler_core.custom.sandbox", str(memory_bytes)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=env,
            close_fds=True,
        )

    def _read(self, size: int, deadline: float) -> bytes:
        out = bytearray()
        fd = self.process.stdout.fileno()  # type: ignore[union-attr]
        while len(out) < size:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                raise TimeoutError
            chunk = os.read(fd, size - len(out))
            if not chunk:
                raise EOFError
            out += chunk
        return bytes(out)

    def call(self, request: tuple[Any, ...]) -> Any:
        """The worker's reply to ``request``; raises LimitExceeded when it was stopped."""
        try:
            _send(self.process.stdin, request)
            deadline = time.monotonic() + WALL_SECONDS
            (size,) = _HEADER.unpack(self._read(_HEADER.size, deadline))
            return _Unpickler(io.BytesIO(self._read(size, deadline))).load()
        except TimeoutError:
            self.kill()
            raise LimitExceeded(f"evaluation stopped after {WALL_SECONDS:g} s") from None
        except (EOFError, BrokenPipeError, OSError):
            code = self.kill()
            raise LimitExceeded(_stopped(code, self.memory_bytes)) from None
        except BaseException:  # interrupted mid-call: a late reply would answer the next call
            self.kill()
            raise

    def kill(self) -> int | None:
        if self.process.poll() is None:
            self.process.kill()
        code = self.process.wait()
        for stream in (self.process.stdin, self.process.stdout):
            if stream is not None:
                stream.close()
        return code

    def alive(self) -> bool:
        return self.process.poll() is None


def _stopped(code: int | None, memory_bytes: int) -> str:
    if code == -signal.SIGXCPU:
        return f"evaluation stopped: over {CPU_SECONDS} s of CPU time"
    if code in (-signal.SIGABRT, -signal.SIGSEGV, 3):  # Rust aborts when an allocation fails
        return f"evaluation stopped: over {memory_bytes // 2**20} MiB of memory"
    return f"evaluation stopped (the worker exited with {code})"


class _Pool:
    """The workers of this process, started as needed, at most ``POOL_SIZE``."""

    def __init__(self, memory_bytes: int = MEMORY_BYTES) -> None:
        self.memory_bytes = memory_bytes
        self.pid = os.getpid()
        self.idle: list[_Worker] = []
        self.started = 0
        self.free = threading.Condition()

    def take(self) -> _Worker:
        with self.free:
            while True:
                while self.idle and not self.idle[-1].alive():  # ended while idle (OOM killer)
                    self.idle.pop().kill()
                    self.started -= 1
                if self.idle:
                    return self.idle.pop()
                if self.started < POOL_SIZE:
                    break
                self.free.wait()
            self.started += 1
        try:
            return _Worker(self.memory_bytes)
        except BaseException:
            self.give(None)
            raise

    def give(self, worker: _Worker | None) -> None:
        with self.free:
            if worker is not None and worker.alive():
                self.idle.append(worker)
            else:
                self.started -= 1
            self.free.notify()

    def close(self) -> None:
        with self.free:
            for worker in self.idle:
                worker.kill()
            self.idle.clear()


_POOL: _Pool | None = None
_POOL_LOCK: Final = threading.Lock()


def _pool() -> _Pool:
    global _POOL
    with _POOL_LOCK:
        if _POOL is None or _POOL.pid != os.getpid():  # a forked child starts its own workers
            _POOL = _Pool()
            atexit.register(_POOL.close)
        return _POOL


def evaluate(source: str, variables: Mapping[str, Any], environment: str = "plain") -> Any:
    """The value of ``source`` over ``variables``, evaluated in a worker under the limits.

    Raises what the evaluator raises (KeyError for a missing key, TypeError, ValueError,
    RuntimeError, ...), and LimitExceeded when a limit stopped it.
    """
    return evaluate_in(_pool(), source, variables, environment)


def evaluate_in(
    pool: _Pool, source: str, variables: Mapping[str, Any], environment: str = "plain"
) -> Any:
    """``evaluate`` in the workers of ``pool`` (a pool of other limits: the tests' own)."""
    worker = pool.take()
    try:
        # Each variable pickled on its own: the worker converts only those that changed.
        pickled = {
            n: pickle.dumps(v, protocol=pickle.HIGHEST_PROTOCOL) for n, v in variables.items()
        }
        ok, value = worker.call((environment, source, pickled))
    finally:
        pool.give(worker)
    if ok:
        return value
    name, args = value
    raise _ERRORS.get(name, RuntimeError)(*args)


# -- the worker's side --------------------------------------------------------------------------


def _limit_memory(memory_bytes: int) -> None:
    with open("/proc/self/statm") as statm:
        pages = int(statm.read().split()[0])
    size = pages * resource.getpagesize() + memory_bytes
    resource.setrlimit(resource.RLIMIT_AS, (size, size))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def _limit_cpu() -> None:
    used = resource.getrusage(resource.RUSAGE_SELF)
    seconds = int(used.ru_utime + used.ru_stime) + CPU_SECONDS + 1
    resource.setrlimit(resource.RLIMIT_CPU, (seconds, resource.RLIM_INFINITY))


class _Contexts:
    """Variables converted to CEL, kept between calls (conversion is most of a call's work).

    One context per value of a call's largest variable (a node, as a rule), in which the other
    variables are converted again only when their bytes changed (the pod, once per cycle).
    """

    def __init__(self, cel: Any, functions: Mapping[str, Any]) -> None:
        self.cel = cel
        self.functions = functions
        self.cache: OrderedDict[tuple[str, str, bytes], tuple[Any, dict[str, bytes]]] = (
            OrderedDict()
        )
        self.size = 0

    def get(self, environment: str, variables: Mapping[str, bytes]) -> Any:
        anchor = max(sorted(variables), key=lambda n: len(variables[n]), default="")
        key = (environment, anchor, variables.get(anchor, b""))
        hit = self.cache.get(key)
        if hit is None or not set(hit[1]) <= set(variables):  # a name too many: start afresh
            if hit is not None:
                self._drop(key)
            functions = self.functions[environment]
            hit = (self.cel.Context(None, functions) if functions else self.cel.Context(), {})
            self.cache[key] = hit
            self.size += len(key[2])
            while len(self.cache) > _CONTEXTS or self.size > _CONTEXT_BYTES:
                self._drop(next(iter(self.cache)))
        else:
            self.cache.move_to_end(key)
        context, have = hit
        for name, data in variables.items():
            if have.get(name) != data:
                context.add_variable(name, pickle.loads(data))
                have[name] = data
        return context

    def _drop(self, key: tuple[str, str, bytes]) -> None:
        del self.cache[key]
        self.size -= len(key[2])


def main() -> None:
    """The worker: reads (environment, source, variables), replies (ok, value or error)."""
    import cel

    from scheduler_core.dra.cel_functions import _FUNCTIONS

    contexts = _Contexts(cel, {"plain": None, "dra": _FUNCTIONS})
    programs: dict[str, Any] = {}
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr  # nothing else may write to the reply pipe
    _limit_memory(int(sys.argv[1]) if len(sys.argv) > 1 else MEMORY_BYTES)
    while True:
        header = stdin.read(_HEADER.size)
        if len(header) < _HEADER.size:
            return
        (size,) = _HEADER.unpack(header)
        environment, source, variables = pickle.loads(stdin.read(size))
        _limit_cpu()
        try:
            program = programs.get(source)
            if program is None:
                if len(programs) >= _PROGRAMS:
                    programs.clear()
                program = programs[source] = cel.compile(source)
            value = program.execute(contexts.get(environment, variables))
            reply: tuple[bool, Any] = (True, value)
            data = pickle.dumps(reply, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception as err:  # noqa: BLE001 - the caller re-raises it
            args = tuple(a if isinstance(a, (str, int)) else str(a) for a in err.args)
            name = type(err).__name__
            data = pickle.dumps(
                (False, (name if name in _ERRORS else "RuntimeError", args or (str(err),)))
            )
        stdout.write(_HEADER.pack(len(data)) + data)
        stdout.flush()


if __name__ == "__main__":
    main()
