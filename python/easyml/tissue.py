"""Monodomain tissue simulations on structured grids (docs/tissue.md).

    t = easyml.Tissue("ten_tusscher_panfilov_2006.model",
                      size_mm=(20, 7, 3), spacing_mm=0.2)
    t.stimulate(box=((0, 0, 0), (1.5, 1.5, 1.5)), current_per_volume=5e4,
                duration=2)
    r = t.run(duration=60)
    r.activation            # (nz, ny, nx) activation times, ms (NaN: never)

Fields (masks, per-point parameters, results) are numpy arrays of shape
(nz, ny, nx), (ny, nx) for a 2D grid and (nx,) for a 1D one. The run is the
runtime's: the same as `easyml-tissue` on the configuration that
`Tissue.config()` returns.
"""
import json
import os
import tempfile
from dataclasses import dataclass, field
from typing import (Any, Callable, Dict, Iterable, List, Optional, Sequence,
                    Tuple, Union)

import numpy as np

from . import _easyml

__all__ = ["Tissue", "TissueResult"]

# A length in mm, or one per axis.
_Lengths = Union[float, Sequence[float]]


@dataclass
class TissueResult:
    """What a run produced: activation times and the final Vm on the grid
    (NaN outside the tissue), the report (times per phase,
    point-steps/s, probes), and the biomarker maps asked for, per name a
    list of one array per beat."""
    activation: np.ndarray
    vm: np.ndarray
    report: Dict[str, Any]
    biomarkers: Dict[str, List[np.ndarray]] = field(default_factory=dict)


class Tissue:
    """A monodomain simulation: a model, a grid, conductivities, stimuli."""

    def __init__(self, model: str, points: Optional[Sequence[int]] = None,
                 size_mm: Optional[Sequence[float]] = None,
                 spacing_mm: _Lengths = 0.1, mask: Optional[np.ndarray] = None,
                 intracellular: _Lengths = (0.17, 0.019, 0.019),
                 extracellular: _Lengths = (0.62, 0.24, 0.24),
                 surface_to_volume: float = 140, capacitance: float = 1,
                 dt: float = 0.01, scheme: str = "explicit",
                 substeps: Optional[int] = None, parameters: str = "",
                 point_parameters: Optional[Dict[str, np.ndarray]] = None,
                 devices: str = "cpu", variant: str = "", threads: int = 0,
                 activation_threshold: float = 0.0,
                 diffusion_on: str = "devices") -> None:
        if (points is None) == (size_mm is None):
            raise ValueError("give exactly one of points and size_mm")
        self.model = os.path.abspath(model)
        grid: Dict[str, Any] = {"spacing_mm": _floats(spacing_mm)}
        if points is not None:
            grid["points"] = [int(n) for n in points]
        elif size_mm is not None:
            grid["size_mm"] = _floats(size_mm)
        self._grid = grid
        self._arrays: Dict[str, np.ndarray] = {}
        if mask is not None:
            self._arrays["mask"] = np.asarray(mask, dtype=np.uint8)
        for name, values in (point_parameters or {}).items():
            self._arrays["param-" + name] = np.asarray(values, dtype=float)
        self._conductivity = {
            "intracellular": _floats(intracellular),
            "extracellular": _floats(extracellular),
            "surface_to_volume": float(surface_to_volume),
            "capacitance": float(capacitance)}
        self._time = {"dt": float(dt), "scheme": scheme,
                      "diffusion_on": diffusion_on}
        if substeps is not None:
            self._time["substeps"] = int(substeps)
        self._top = {"parameters": parameters, "devices": devices,
                     "variant": variant, "threads": int(threads)}
        self._threshold = float(activation_threshold)
        self.stimuli: List[Dict[str, Any]] = []

    def stimulate(self,
                  box: Optional[Tuple[Sequence[float],
                                      Sequence[float]]] = None,
                  sphere: Optional[Tuple[Sequence[float], float]] = None,
                  points: Optional[Iterable[Sequence[int]]] = None,
                  current_per_volume: Optional[float] = None,
                  current_per_area: Optional[float] = None,
                  start: float = 0, duration: float = 1,
                  period: Optional[float] = None,
                  count: int = 1) -> "Tissue":
        """Adds a stimulus: a box ((x0, y0, z0), (x1, y1, z1)) in mm, a
        sphere ((x, y, z), radius) in mm or a list of (ix, iy, iz) grid
        points; a current per volume (uA/cm^3) or per area (uA/cm^2); from
        `start` for `duration` ms, every `period` ms `count` times. Returns
        the tissue, so that calls can be chained."""
        s: Dict[str, Any] = {}
        if box is not None:
            s["box"] = [_floats(box[0]), _floats(box[1])]
        if sphere is not None:
            s["sphere"] = {"center": _floats(sphere[0]),
                           "radius": float(sphere[1])}
        if points is not None:
            s["points"] = [[int(i) for i in p] for p in points]
        if current_per_volume is not None:
            s["current_per_volume"] = float(current_per_volume)
        if current_per_area is not None:
            s["current_per_area"] = float(current_per_area)
        s.update(start=float(start), duration=float(duration),
                 count=int(count))
        if period is not None:
            s["period"] = float(period)
        self.stimuli.append(s)
        return self

    def config(self, duration: float, folder: str = ".",
               until_activated: bool = False,
               snapshots_every: Optional[float] = None,
               formats: Sequence[str] = ("npy",),
               probes: Optional[Dict[str, Sequence[float]]] = None,
               biomarkers: Sequence[str] = ()) -> Dict[str, Any]:
        """The easyml-tissue configuration of a run (arrays are saved as
        .npy files in `folder`)."""
        grid = dict(self._grid)
        params: Dict[str, str] = {}
        for key, array in self._arrays.items():
            path = os.path.join(folder, key + ".npy")
            np.save(path, array)
            if key == "mask":
                grid["mask"] = path
            else:
                params[key[len("param-"):]] = path
        outputs: Dict[str, Any] = {
            "directory": folder, "activation": "activation",
            "activation_threshold": self._threshold, "formats": list(formats)}
        if snapshots_every:
            outputs["snapshots_every"] = float(snapshots_every)
        if probes:
            outputs["probes"] = {k: _floats(v) for k, v in probes.items()}
        if biomarkers:
            outputs["biomarkers"] = list(biomarkers)
        cfg: Dict[str, Any] = {"model": self.model, "grid": grid,
               "conductivity": self._conductivity,
               "time": dict(self._time, duration=float(duration),
                            until_activated=bool(until_activated)),
               "stimuli": self.stimuli, "outputs": outputs}
        cfg.update({k: v for k, v in self._top.items() if v not in ("", 0)})
        if params:
            cfg["point_parameters"] = params
        return cfg

    def run(self, duration: float, until_activated: bool = False,
            outputs: Optional[str] = None,
            snapshots_every: Optional[float] = None,
            formats: Sequence[str] = ("npy",),
            probes: Optional[Dict[str, Sequence[float]]] = None,
            progress: Optional[Callable[[float], None]] = None,
            biomarkers: Sequence[str] = (),
            checkpoint: Optional[str] = None,
            checkpoint_every: float = 100.0,
            restart: Optional[str] = None,
            recover: bool = True) -> TissueResult:
        """Runs for `duration` ms (or until every point has activated) and
        returns the activation map, the final Vm and the maps per beat of
        `biomarkers` ("apd90", "dvdt_max", ...); files (activation map, Vm
        snapshots, biomarker maps) go to `outputs` when given.

        `checkpoint`: write the whole run to this file every
        `checkpoint_every` ms; `restart`: continue the run saved in this
        checkpoint (the same tissue, duration and `outputs`). A GPU that
        fails mid-run is left out and the step it failed runs again on the
        other devices from a host copy of its start (kept every step while
        a GPU and another device run), unless `recover` is False."""
        from . import Error, _compiler
        with tempfile.TemporaryDirectory(prefix="easyml-tissue-") as tmp:
            folder = os.path.abspath(outputs) if outputs else tmp
            os.makedirs(folder, exist_ok=True)
            cfg = self.config(duration, folder, until_activated,
                              snapshots_every, formats, probes, biomarkers)
            path = os.path.join(tmp, "tissue.json")
            with open(path, "w") as f:
                json.dump(cfg, f, indent=1)
            compiler = "" if self.model.endswith(".so") else _compiler()
            try:
                out = _easyml.run_tissue(
                    path, "", progress,
                    os.path.abspath(checkpoint) if checkpoint else "",
                    float(checkpoint_every),
                    os.path.abspath(restart) if restart else "",
                    bool(recover), compiler)
            except RuntimeError as e:
                raise Error(str(e)) from None
            report = json.loads(out["report"])
            beats = report.get("beats", 0) if "npy" in formats else 0
            maps = {name: [np.load(os.path.join(folder,
                                                f"{name}_beat{k}.npy"))
                           for k in range(beats)]
                    for name in biomarkers}
        return TissueResult(out["activation"], out["vm"], report, maps)


def _floats(v: _Lengths) -> Union[float, List[float]]:
    if isinstance(v, (int, float, np.number)):
        return float(v)
    return [float(x) for x in v]
