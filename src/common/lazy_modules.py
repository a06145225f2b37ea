"""Third-party modules loaded at their first use rather than at their importer's import.

`langgraph.store.sqlite` imports `sqlite_vec` at its top, and `sqlite_vec` imports numpy (for a
helper, `register_numpy`, that nothing here calls): about 0.1-0.2 s of a cold start's CPU on
the way to the first model call (issue 45), for a store that has no vector index, where
`sqlite_vec` is never used. `defer` registers such a module unloaded: an import statement binds
it, and its code runs at the first read of an attribute it defines (a store with an index calls
`sqlite_vec.load` and gets the whole module). No third party's file is changed; a module already
imported is left as it is.

Hand-written rather than the standard library's `importlib.util.LazyLoader`: on Python 3.11 its
module loads on any attribute read, `__spec__` included, and the import statement reads
`__spec__` of a module already in `sys.modules`, so the importer's own `import sqlite_vec` would
load it at once. Here the module's import attributes (`__spec__`, `__name__`, `__path__`, ...)
are set from the start and only a missing attribute loads it.
"""

from __future__ import annotations

import importlib.util
import sys
import threading
from types import ModuleType
from typing import Any

_LOCK = threading.RLock()
"""Held while a deferred module's code runs: two threads reading one load it once."""


class _Deferred(ModuleType):
    """A module whose code has not run yet; the first missing attribute read runs it."""

    def __getattr__(self, attr: str) -> Any:
        """The attribute, once the module's own code has run (import probes stay missing)."""
        if attr in _IMPORT_PROBES:
            raise AttributeError(attr)
        with _LOCK:
            if type(self) is _Deferred:
                if self.__dict__.get(_LOADING):
                    # Read while its own code runs (an import inside it asking): not there yet.
                    raise AttributeError(attr)
                if "__builtins__" in self.__dict__:
                    # Its code ran already (`importlib.reload`): an ordinary module now.
                    self.__class__ = ModuleType  # type: ignore[assignment]
                else:
                    _load(self)
        return getattr(self, attr)


_IMPORT_PROBES = frozenset(
    {"__path__", "__file__", "__cached__", "__loader__", "__package__", "__spec__", "__name__"}
)
"""What the import system reads of a module without using it: set, or missing, not loaded.
Any other name (`__version__`, `__all__` included) loads the module."""


_LOADING = "_deferred_loading"
"""Set in a deferred module's namespace while its code runs."""


def _load(module: _Deferred) -> None:
    """Run a deferred module's code; an ordinary module after, or gone from `sys.modules`."""
    spec = module.__spec__
    if spec is None or spec.loader is None:  # defer() made it with both: not reached
        raise ImportError(f"deferred module {module.__name__!r} lost its loader")
    module.__dict__[_LOADING] = True
    try:
        spec.loader.exec_module(module)
    except BaseException:
        # As a failed import: the module is not left half-made in sys.modules.
        if sys.modules.get(spec.name) is module:
            del sys.modules[spec.name]
        raise
    finally:
        module.__dict__.pop(_LOADING, None)
    module.__class__ = ModuleType  # type: ignore[assignment]  # an ordinary module from here


def defer(name: str) -> bool:
    """Make `name`'s next import bind it unloaded (loaded at first use); whether it was deferred.

    Not deferred: a module already imported, one that cannot be found (its importer's own
    import then fails as it would have), or one whose loader has no `exec_module`.
    """
    if name in sys.modules:
        return False
    spec = importlib.util.find_spec(name)
    if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
        return False
    module = importlib.util.module_from_spec(spec)
    module.__class__ = _Deferred
    sys.modules[name] = module
    return True
