"""EasyML from Python: compile cardiac ionic models and run populations.

    import easyml
    model = easyml.compile("tt06.model", variants="cpu-simd")
    sim = easyml.Simulation(model, cells=10000, devices="auto")
    sim.sample("GKr*lognormal(1,0.2),GCaL*uniform(0.5,1.5)", seed=7)
    out = sim.run(until=2000, stimulus=easyml.Stimulus(start=10, bcl=1000,
                  count=2), record=["Vm"], cells=range(0, 4), every=1.0,
                  biomarkers=True, ca_variable="Cai")
    apd90 = sim.biomarkers()["apd90"]

Errors from the compiler and the runtime are raised as easyml.Error; a
model that does not compile raises easyml.CompileError whose message holds
the compiler's `file:line:col: error: ...` lines.
"""

import os
import warnings
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from typing import (Any, Callable, Dict, Iterable, List, Optional, Sequence,
                    Tuple, Union)

import numpy as np

from . import _easyml
from ._paths import COMPILER_CANDIDATES as _COMPILER_CANDIDATES

__all__ = ["Error", "CompileError", "ParamWarning", "Model", "Simulation",
           "Stimulus", "compile", "load", "Tissue", "TissueResult",
           "DrugStudyResult", "drug_study", "classify_risk",
           "NO_EXCITATION", "NO_REPOLARISATION", "EAD", "ALTERNANS"]


class Error(RuntimeError):
    """An error reported by the EasyML runtime or compiler."""


class CompileError(Error):
    """The model did not compile; the message is the compiler's."""


def _compiler() -> str:
    env = os.environ.get("EASYML_COMPILE")
    if env:
        return env
    for c in _COMPILER_CANDIDATES:
        if os.path.isfile(c) and os.access(c, os.X_OK):
            return c
    found = shutil.which("easyml-compile")
    if found:
        return found
    raise Error("easyml-compile not found: set EASYML_COMPILE or put it on "
                "PATH")



class Model:
    """A compiled model (a shared library made by easyml-compile)."""

    def __init__(self, path: str) -> None:
        try:
            self._handle = _easyml.Model(path)
        except RuntimeError as e:
            raise Error(str(e)) from None
        self.path = path  # as loaded (a compiled model's file is removed)

    @property
    def name(self) -> str:
        """The model's name (its file name without .model)."""
        return self._handle.name

    @property
    def states(self) -> List[str]:
        """The state variables' names, Vm first when it is one."""
        return list(self._handle.states)

    @property
    def hidden(self) -> List[str]:
        """Per-cell values the integrators keep between steps (e.g.
        'cvode.h.0'): read and set with Simulation.state/set_state,
        recordable like states."""
        return list(self._handle.hidden)

    @property
    def parameters(self) -> List[str]:
        """The parameters' names."""
        return list(self._handle.parameters)

    @property
    def flags(self) -> List[str]:
        """The flags' names (openCARP's model flags)."""
        return list(self._handle.flags)

    @property
    def variants(self) -> List[str]:
        """The compiled variants (baseline, cpu-simd, cuda, rocm)."""
        return list(self._handle.variants)

    @property
    def defaults(self) -> Dict[str, float]:
        """Parameter values as compiled."""
        return dict(self._handle.defaults)

    def __repr__(self) -> str:
        return "easyml.Model(%r, variants=%r)" % (self.name, self.variants)


def load(path: str) -> Model:
    """Loads a library made by `easyml-compile --emit=shared`."""
    return Model(path)


def compile(path: str, variants: Union[str, Sequence[str]] = "cpu-simd",
            options: Sequence[str] = (), cache: bool = True) -> Model:
    """Compiles an EasyML model file and loads it.

    `variants`: "baseline", "cpu-simd", "cuda", "rocm" (a list or a
    comma-separated string). `options`: more easyml-compile options, e.g.
    ["--no-tables"]. easyml-compile's artifact cache ($EASYML_CACHE_DIR,
    $XDG_CACHE_HOME/easyml or ~/.cache/easyml, keyed on the model, the
    options and the compiler) makes a repeated build a copy; cache=False
    compiles anew."""
    if not os.path.isfile(path):
        raise CompileError("%s: no such model file" % path)
    if not isinstance(variants, str):
        variants = ",".join(variants)
    fd, lib = tempfile.mkstemp(prefix="easyml-", suffix=".so")
    os.close(fd)
    try:
        cmd = [_compiler(), path, "--emit=shared", "--variant=" + variants,
               "-o", lib] + list(options) + ([] if cache else ["--no-cache"])
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode:
            raise CompileError(p.stderr.strip() or
                               "easyml-compile failed (exit %d)" % p.returncode)
        # Loaded, the library needs no file: the cache keeps the artifact.
        return Model(lib)
    finally:
        os.remove(lib)


class ParamWarning(UserWarning):
    """A parameter was set but changes nothing."""


@dataclass
class Stimulus:
    """A stimulus train: `strength` (uA/cm^2, positive depolarises) from
    `start` ms for `duration` ms, every `bcl` ms, `count` times."""
    start: float = 10.0
    duration: float = 1.0
    strength: float = 60.0
    bcl: float = 1000.0
    count: int = 1


class Simulation:
    """`cells` copies of `model` on a set of devices ("cpu", "gpu:all",
    "cpu+gpu:all", "auto", ...). Parameters may be per cell; the time loop
    runs in the runtime."""

    def __init__(self, model: Model, cells: int, devices: str = "cpu",
                 dt: float = 0.01, cpu_variant: str = "", threads: int = 0,
                 comm: Any = None, recover: bool = True) -> None:
        """`comm`: an mpi4py communicator to run the cells across its ranks
        (every rank makes the same calls; each runs its block of cells on
        `devices` of its node). Results are the same on every rank, and
        the same bits as one process. `recover`: when a GPU fails mid-run,
        its cells are recomputed on the other devices and the run goes on
        (with more than one device)."""
        if not isinstance(model, Model):
            raise TypeError("model must be an easyml.Model (easyml.compile "
                            "or easyml.load)")
        self.model = model
        self._comm = comm
        handle = 0
        if comm is not None:
            if not getattr(_easyml, "HAVE_MPI", False):
                raise Error("this easyml was built without MPI "
                            "(libopenmpi-dev)")
            from mpi4py import MPI
            handle = MPI._handleof(comm)
        try:
            self._sim = _easyml.Simulation(model._handle, int(cells), devices,
                                           cpu_variant, int(threads), handle,
                                           bool(recover))
        except RuntimeError as e:
            raise Error(str(e)) from None
        self._dt = dt
        self._initialized = False
        self._stimuli: List[Stimulus] = []
        self._biomarkers = False
        self.per_cell: Dict[str, np.ndarray] = {}

    @property
    def cells(self) -> int:
        """The number of cells."""
        return self._sim.cells

    @property
    def devices(self) -> str:
        """The devices the cells run on, as the runtime names them."""
        return self._sim.devices

    @property
    def time(self) -> float:
        """The simulated time reached (ms)."""
        return self._sim.step * self._dt

    def _call(self, fn: Callable[..., Any], *args: Any) -> Any:
        try:
            return fn(*args)
        except RuntimeError as e:
            raise Error(str(e)) from None

    # Parameters -------------------------------------------------------
    def param(self, name: str) -> float:
        """The shared value of parameter `name`."""
        return self._call(self._sim.get_param, name)

    def modify(self, mods: str) -> None:
        """openCARP's --imp-par syntax: "GNa*0.5,GKr=0.1,flags=EPI".

        A derived parameter (computed from others, see params()) follows
        what it reads unless it is set itself; "GKr*2" on a derived one
        doubles the value its definition gives."""
        self._before_start("parameters")
        self._call(self._sim.modify_params, mods)

    def set_shared(self, name: str, value: float) -> None:
        """Sets parameter or flag `name` to `value` for every cell that has
        no value of its own."""
        self._before_start("parameters")
        self._call(self._sim.set_param, name, float(value))

    def params(self) -> List[Dict[str, Any]]:
        """Every parameter and flag: name, value (shared; derived ones
        recomputed), flag, derived, formula (as written), reads (the names
        a derived one is computed from), read_by_kernels, set (by the
        user)."""
        return self._call(self._sim.param_info)

    def set_param(self, name: str,
                  values: Union[Sequence[float], np.ndarray]) -> None:
        """Makes `name` per cell: one value per cell (an array)."""
        self._before_start("parameters")
        values = np.ascontiguousarray(values, dtype=np.float64)
        self._call(self._sim.set_param_per_cell, name, values)
        self.per_cell[name] = values.copy()

    def sample(self, spec: str, seed: int = 1,
               order: str = "grouped") -> Dict[str, np.ndarray]:
        """Samples per-cell parameters as easyml-bench --population does
        ("GNa*lognormal(1,0.2),GKr*uniform(0.5,1.5)"); returns them.

        order="grouped" hands similar samples to neighbouring cells (they
        share a SIMD vector or GPU warp, and adaptive integrators then take
        similar sub-steps); order="drawn" gives cell c the c-th draw."""
        self._before_start("parameters")
        if order not in ("grouped", "drawn"):
            raise Error("order: expected 'grouped' or 'drawn', got %r" %
                        (order,))
        out = self._call(self._sim.sample_params, spec, int(seed),
                         order == "grouped")
        self.per_cell.update(out)
        return dict(out)

    def _before_start(self, what: str) -> None:
        if self._initialized:
            raise Error("%s must be set before the first run" % what)

    # States -------------------------------------------------------------
    def state(self, name: str) -> np.ndarray:
        """State or hidden value `name` of every cell (a copy)."""
        self._not_across_ranks("state()")
        self._start()
        return self._call(self._sim.get_state, name)

    def set_state(self, name: str,
                  values: Union[float, Sequence[float], np.ndarray]) -> None:
        """Sets a state (or hidden value) of every cell: one value for all,
        or one per cell."""
        self._not_across_ranks("set_state()")
        self._start()
        self._call(self._sim.set_state, name,
                   np.ascontiguousarray(values, dtype=np.float64))

    @property
    def vm(self) -> np.ndarray:
        """Vm of every cell: a view of the runtime's host array."""
        self._not_across_ranks("vm")
        self._start()
        return self._sim.vm

    # The time loop ------------------------------------------------------
    def _start(self) -> None:
        if not self._initialized:
            # A parameter set to no effect (every parameter computed from
            # it is set too) is worth a warning, not an error.
            for w in self._sim.param_warnings():
                warnings.warn(w, ParamWarning, stacklevel=3)
            self._call(self._sim.initialize, self._dt)
            self._initialized = True

    def run(self, until: float,
            stimulus: Union[None, Stimulus, Iterable[Stimulus]] = None,
            record: Sequence[str] = (), cells: Optional[range] = None,
            every: float = 1.0, biomarkers: bool = False,
            ca_variable: str = "") -> Dict[str, np.ndarray]:
        """Runs to time `until` (ms). `stimulus`: a Stimulus or several
        (added to those of earlier runs). `record`: variables sampled every
        `every` ms for `cells` (a range, default all), returned as arrays
        [sample, cell] with "t". `biomarkers`: compute them during the run
        (see biomarkers())."""
        self._start()
        if stimulus is not None:
            for s in ([stimulus] if isinstance(stimulus, Stimulus)
                      else stimulus):
                self._sim.add_stimulus(s.start, s.duration, s.strength,
                                       s.bcl, s.count)
                self._stimuli.append(s)
        if biomarkers and not self._biomarkers:
            self._call(self._sim.enable_biomarkers, ca_variable, 40.0, 5.0)
            self._biomarkers = True
        record = list(record)
        if record:
            cells = cells if cells is not None else range(self.cells)
            if cells.step != 1 or not (0 <= cells.start < cells.stop
                                       <= self.cells):
                raise Error("cells must be a contiguous range inside [0, %d)"
                            % self.cells)
            every_steps = max(1, round(every / self._dt))
            first = self._sim.step
            self._call(self._sim.record, record, cells.start, cells.stop,
                       first, every_steps)
        try:
            self._call(self._sim.run_until, float(until))
        finally:
            if record:
                self._sim.stop_recording()
        out: Dict[str, np.ndarray] = {}
        if record:
            steps, values = self._take_samples()
            out["t"] = steps * self._dt
            for i, name in enumerate(record):
                out[name] = values[:, i, :]
        return out

    def _take_samples(self) -> Tuple[np.ndarray, np.ndarray]:
        # Every rank gets every cell's samples (the runtime gathers them).
        return self._sim.take_samples()

    def _not_across_ranks(self, what: str) -> None:
        if self._comm is not None:
            raise Error("%s is not available for a simulation across MPI "
                        "ranks: record it with run(record=...)" % what)

    # Biomarkers -----------------------------------------------------------
    def biomarkers(self, close: bool = True) -> np.ndarray:
        """Per cell and beat biomarkers as a structured array (fields:
        cell, beat, start, v_rest, v_peak, dvdt_max, apd30, apd50, apd90,
        triangulation, ca_amplitude, ca_time_to_peak, apd90_change, flags,
        then the per-cell parameters). `close` ends the current beat first.
        Definitions: docs/biomarkers.md."""
        if not self._biomarkers:
            raise Error("biomarkers were not enabled: run(..., "
                        "biomarkers=True)")
        if close:
            self._call(self._sim.close_beat)
        # Every rank's rows, ordered as one process orders them (the runtime
        # gathers them).
        rows = self._sim.biomarker_rows()
        names = list(_easyml.Simulation.biomarker_columns())
        extra = list(self.per_cell)
        dtype = [(n, "f8") for n in names + extra]
        out = np.empty(rows.shape[0], dtype=dtype)
        for i, n in enumerate(names):
            out[n] = rows[:, i]
        cell = rows[:, 0].astype(np.int64) if rows.shape[0] else \
            np.zeros(0, np.int64)
        for n in extra:
            out[n] = self.per_cell[n][cell]
        return out

    def report(self) -> str:
        """The runtime's report (JSON): throughput per device, waves, ..."""
        return self._sim.report_json()

    # Checkpoints --------------------------------------------------------
    def save_checkpoint(self, path: str) -> None:
        """Writes the whole run to `path` (every cell, the clock, the
        closed beats' biomarkers), whole or not at all. Samples already
        returned by run() are the caller's to keep."""
        self._start()
        self._call(self._sim.save_checkpoint, path)

    def load_checkpoint(self, path: str, biomarkers: bool = False,
                        ca_variable: str = "") -> None:
        """Continues the run saved at `path`: a simulation made and
        parameterised as the one that saved it (`biomarkers` as it ran);
        give run() the same stimuli again. Raises easyml.Error naming what
        differs."""
        self._start()
        if biomarkers and not self._biomarkers:
            self._call(self._sim.enable_biomarkers, ca_variable, 40.0, 5.0)
            self._biomarkers = True
        self._call(self._sim.load_checkpoint, path)

    def __repr__(self) -> str:
        return "easyml.Simulation(%r, cells=%d, devices=%r)" % (
            self.model.name, self.cells, self.devices)


NO_EXCITATION: int = 1
"""Bit of the biomarkers' `flags` field: the beat did not excite
(docs/biomarkers.md)."""
NO_REPOLARISATION: int = 2
"""Bit of the biomarkers' `flags` field: the beat did not repolarise."""
EAD: int = 4
"""Bit of the biomarkers' `flags` field: an early afterdepolarisation."""
ALTERNANS: int = 8
"""Bit of the biomarkers' `flags` field: alternans (APD90 changed by more
than 5 ms in this beat and the one before, with opposite signs)."""

from .tissue import Tissue, TissueResult  # noqa: E402
from .drugs import DrugStudyResult, classify_risk, drug_study  # noqa: E402
