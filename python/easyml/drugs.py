"""Drug studies (docs/drug-trials.md): control and every drug at every dose
as one population, paced to the last beat's qNet and biomarkers.

    r = easyml.drug_study("ohara-cipa-v1-2017.model",
                          mapping="data/drugs/ohara-cipa-v1-2017.json",
                          cipa="path/to/FDA-CiPA",
                          drugs=["dofetilide", "verapamil"],
                          doses=[1, 2, 3, 4], beats=1000,
                          parameters="mode=0")
    r.table["qnet"]          # one value per simulation
    r.table["drug"]          # "control", "dofetilide", ...
    risk = easyml.classify_risk(r.table, "path/to/FDA-CiPA/AP_simulation/"
                                "data/CiPA_training_drugs.csv")

The run is the runtime's: the same as `easyml-drug` with these options.
"""
import csv
import io
import os
from dataclasses import dataclass
from typing import (Any, Callable, Dict, List, Mapping, Optional, Sequence,
                    Union)

import numpy as np

from . import _easyml

__all__ = ["DrugStudyResult", "drug_study", "classify_risk"]


@dataclass
class DrugStudyResult:
    """The table, one entry per simulation (column name to array: `drug`
    as strings, the rest as numbers), and the study's wall time (s)."""
    table: Dict[str, np.ndarray]
    seconds: float


def drug_study(model: str, mapping: str, cipa: str = "",
               drugs: Sequence[str] = (), doses: Sequence[float] = (1,),
               samples: Sequence[int] = (0,), nM: bool = False,
               beats: int = 1000, bcl: float = 2000,
               dt: Optional[float] = None,
               stim: float = 80, stim_duration: float = 0.5,
               parameters: str = "", devices: str = "cpu",
               threads: int = 0, load_states: str = "",
               save_states: str = "",
               progress: Optional[Callable[[int], None]] = None,
               converge: float = 0.0,
               adaptive: bool = False,
               max_dv_window: int = 0,
               stop_converged: bool = False,
               grid_beats: int = 2) -> DrugStudyResult:
    """Runs a study: `drugs` from the CiPA checkout `cipa` at `doses`
    (multiples of Cmax, or nM with `nM`), their uncertainty `samples` (0:
    the optimal fit), `beats` beats at `bcl` ms (fewer once every
    simulation's state changes by less than `converge` over a beat);
    `progress` gets the beats done. `adaptive`: each simulation takes its
    own error-controlled steps (easyml-compile --adaptive), and `dt`
    (default 0.01 ms, with `adaptive` the stimulus duration) is only the
    grid of the stimulus and the metrics, in the last `grid_beats` beats
    (the others take the steps the error control chooses outside the
    stimulus). `max_dv_window`: the metrics of
    the beat with the largest max_dv among the last N beats, as FDA's
    AP_simulation.R takes them (250); 0, the last beat's.
    `stop_converged` (with `converge`): each simulation stops at the first
    beat its state changes by less than `converge`, the others going on
    without it."""
    if dt is None:
        dt = stim_duration if adaptive else 0.01
    from . import Error, _compiler
    compiler = "" if model.endswith(".so") else _compiler()
    try:
        out = _easyml.run_drug_study(
            os.path.abspath(model), os.path.abspath(mapping), cipa,
            list(drugs), [float(d) for d in doses], [int(s) for s in samples],
            bool(nM), int(beats), float(bcl), float(dt), float(stim),
            float(stim_duration), parameters, devices, int(threads),
            load_states, save_states, "", progress, float(converge),
            bool(adaptive), int(max_dv_window), bool(stop_converged),
            int(grid_beats), compiler)
    except RuntimeError as e:
        raise Error(str(e)) from None
    rows = list(csv.DictReader(io.StringIO(out["csv"])))
    table = {}
    for name in (rows[0].keys() if rows else []):
        values = [r[name] for r in rows]
        table[name] = np.array(values) if name == "drug" else \
            np.array([float(v) for v in values])
    return DrugStudyResult(table, out["seconds"])


def classify_risk(table: Dict[str, np.ndarray],
                  known: Union[Mapping[str, int], str, os.PathLike]
                  ) -> List[Dict[str, Any]]:
    """CiPA's torsade risk classification (docs/drug-trials.md) of a study's
    `table`: `known` maps drugs to classes (0 low, 1 intermediate, 2 high),
    or is the path of a CSV with columns `drug` and `CiPA`. One dict per
    dose: `intercepts`, `slope`, `training_error`, `loocv_error_mean`, and
    per drug `predicted`, `loocv_predicted` (-1: no fit without it) and
    `loocv_error`. Simulations without a `max_dv` (no depolarisation) are
    left out, as in FDA's script."""
    from . import Error
    if isinstance(known, (str, os.PathLike)):
        with open(known) as f:
            known = {r["drug"]: int(r["CiPA"]) for r in csv.DictReader(f)}
    keep = np.isfinite(table["max_dv"]) if "max_dv" in table else \
        np.ones(len(table["drug"]), bool)
    try:
        return _easyml.classify_risk(
            [str(d) for d in table["drug"][keep]],
            [float(x) for x in table["dose"][keep]],
            [float(x) for x in table["qnet"][keep]],
            {str(k): int(v) for k, v in known.items()})
    except RuntimeError as e:
        raise Error(str(e)) from None
