"""How a graded run's JAX compiles: set up by harness.py before the program runs.

STANDALONE, like harness_calls.py: harness.py loads it by path from beside itself (in the
sandbox, /grader/); the standard library only (JAX's modules are handed to it once imported).
Two settings, each applied at once when JAX is already imported (a warm run, a function
exercise's tools), else when the program's own import reaches the module concerned:

- ``CPU_COMPILE_FLAGS`` added to ``XLA_FLAGS`` when the run's CPU backend starts;
- one MLIR context a thread for the run's lowerings (``reuse_ir_context``).

Both only save time: the grader and `course check` compile alike with them, and a program that
undoes either only compiles more slowly. A JAX whose internals moved leaves the run as it was
(the step fails quietly); tests/course/test_harness_jax.py fails first.
"""

from __future__ import annotations

import importlib.abc
import importlib.util
import os
import sys
import threading
import types

CPU_COMPILE_FLAGS = "--xla_cpu_use_fusion_emitters=false"
"""Added to ``XLA_FLAGS`` when the program's JAX starts its CPU backend: XLA's classic CPU
emitters compile the many small programs of a graded run (each eager op, each hidden call
under ``jit``) in 30-40% less CPU time than its default fusion emitters, and every lesson's
outputs came out the same to the last digit (2026-12-07, bench/README.md). Added then rather
than set in the run's environment, so that a program's own ``os.environ.setdefault("XLA_FLAGS",
...)``, as the course teaches it, still decides its devices. A jaxlib that no longer knows the
flag stops every run (XLA refuses unknown flags): tests/course/test_harness_jax.py fails
first."""
XLA_BRIDGE = "jax._src.xla_bridge"
MLIR = "jax._src.interpreters.mlir"
ONE_CONTEXT = "_pathways_one_context_a_thread"
"""Marks the patched ``ModuleContext.__init__``, so a second ``reuse_ir_context`` is a no-op."""


def _add_cpu_flags(xla_bridge: types.ModuleType) -> None:
    """Wrap JAX's CPU backend factory: XLA reads ``XLA_FLAGS`` once, when the client starts."""
    registration = xla_bridge._backend_factories["cpu"]  # noqa: SLF001 - no public hook
    start = registration.factory

    def factory(*args: object, **kwargs: object) -> object:
        os.environ["XLA_FLAGS"] = f"{os.environ.get('XLA_FLAGS', '')} {CPU_COMPILE_FLAGS}".strip()
        return start(*args, **kwargs)

    xla_bridge.register_backend_factory(
        "cpu", factory, priority=registration.priority, fail_quietly=registration.fail_quietly,
        experimental=registration.experimental, c_api=registration.c_api)


def reuse_ir_context(mlir: types.ModuleType) -> None:
    """Lower every jaxpr of this thread in one MLIR context, made on its first lowering.

    JAX makes a fresh context for each lowering (``mlir.make_ir_context``: every dialect
    loaded again, ~2-3 ms); a graded run lowers each eager op and each hidden call under
    ``jit`` at the hidden inputs' shapes, 80 lowerings and more (9-13% of `course check`'s CPU
    over the exercises' runs, bench/README.md). The module a lowering builds is the same text in
    any context. One a thread, as JAX's own lowerings never share one between threads; made
    anew in a forked child (the pid), which never uses its parent's. A context lives as long as
    its thread, holding the types and small attributes its modules interned; what a lowering
    closes over does not stay (a new 4 MB array each step leaves the peak flat: JAX passes
    it to the executable, docs/SANDBOX.md). Only ``ModuleContext``'s default changes: a
    caller that passes its own context (export, Pallas) and JAX's other uses of
    ``make_ir_context`` are untouched."""
    init = mlir.ModuleContext.__init__
    if getattr(init, ONE_CONTEXT, False):  # already (a fork server's, inherited): once is enough
        return
    make = mlir.make_ir_context
    local = threading.local()

    def __init__(self: object, *args: object, context: object = None, **kwargs: object) -> None:
        if context is None:
            if getattr(local, "pid", None) != os.getpid():
                local.pid, local.context = os.getpid(), make()
            context = local.context
        init(self, *args, context=context, **kwargs)

    setattr(__init__, ONE_CONTEXT, True)
    mlir.ModuleContext.__init__ = __init__


class _AfterImport(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Runs ``then(module)`` once ``name`` is imported (by the program, for a cold run)."""

    def __init__(self, name: str, then: object) -> None:
        self.name, self.then, self.loader = name, then, None

    def find_spec(self, name: str, path: object = None, target: object = None) -> object:
        if name != self.name:
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.loader is not None:
            self.loader, spec.loader = spec.loader, self
        return spec

    def create_module(self, spec: object) -> object:
        return self.loader.create_module(spec)  # type: ignore[union-attr]

    def exec_module(self, module: types.ModuleType) -> None:
        self.loader.exec_module(module)  # type: ignore[union-attr]
        _quietly(self.then, module)


def _quietly(step: object, module: types.ModuleType) -> None:
    try:
        step(module)  # type: ignore[operator]
    except Exception:  # noqa: BLE001, S110 - the settings only save time; the run goes on without
        pass


def _when_imported(name: str, step: object) -> None:
    module = sys.modules.get(name)
    if module is not None:
        _quietly(step, module)
    else:
        sys.meta_path.insert(0, _AfterImport(name, step))


def set_up() -> None:
    """Both settings for this run: now if JAX is imported, else when the program imports it."""
    _when_imported(XLA_BRIDGE, _add_cpu_flags)
    _when_imported(MLIR, reuse_ir_context)
