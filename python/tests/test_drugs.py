"""easyml.drug_study: a small study on the bundled ten Tusscher-Panfilov
2006 model, with a drug written here in CiPA's formats."""

import os

import numpy as np
import pytest

import easyml

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(
    __file__))))
MODEL = os.path.join(ROOT, "examples", "models",
                     "ten_tusscher_panfilov_2006.model")
MAPPING = os.path.join(ROOT, "data", "drugs",
                       "ten_tusscher_panfilov_2006.json")
HEADER = ("ICaL_IC50,ICaL_h,IK1_IC50,IK1_h,IKs_IC50,IKs_h,INa_IC50,INa_h,"
          "INaL_IC50,INaL_h,Ito_IC50,Ito_h,hERG_IC50,hERG_h\n")


def write_cipa(root):
    """One drug, 'calblock': ICaL with IC50 100 nM, Cmax 100 nM."""
    os.makedirs(root / "AP_simulation" / "data")
    (root / "AP_simulation" / "data" / "CiPA_training_drugs.csv").write_text(
        "drug,therapeutic,CiPA\ncalblock,100,0\n")
    for sub in ("hERG_fitting", "Hill_fitting"):
        os.makedirs(root / sub / "results" / "calblock")
    (root / "hERG_fitting/results/calblock/pars.txt").write_text(
        "Kmax 0\nKu 0\nn 1\nhalfmax 1\nVhalf 1\n")
    (root / "Hill_fitting/results/calblock/IC50_optimal.csv").write_text(
        HEADER + "100,1" + ",NA" * 12 + "\n")


def test_calcium_block_raises_qnet_and_saves_states(tmp_path):
    write_cipa(tmp_path / "cipa")
    beats = []
    r = easyml.drug_study(MODEL, MAPPING, cipa=str(tmp_path / "cipa"),
                          drugs=["calblock"], doses=[1, 4], beats=2, bcl=800,
                          save_states=str(tmp_path / "s.state"),
                          progress=beats.append)
    t = r.table
    assert list(t["drug"]) == ["control", "calblock", "calblock"]
    assert list(t["dose"]) == [0, 1, 4]
    # ICaL blocked: qNet up, APD90 down, more with the dose.
    assert t["qnet"][0] < t["qnet"][1] < t["qnet"][2]
    assert t["apd90"][0] > t["apd90"][1] > t["apd90"][2]
    assert np.isfinite(t["catd90"]).all()
    assert beats[-1] == 2 and r.seconds > 0
    assert (tmp_path / "s.state").exists()
    with pytest.raises(easyml.Error, match="3 cells, the simulation 1"):
        easyml.drug_study(MODEL, MAPPING, beats=1,
                          load_states=str(tmp_path / "s.state"))


def test_adaptive_study_matches_fixed_steps(tmp_path):
    # adaptive=True: each simulation its own steps, dt the stimulus's; the
    # APDs of dt 0.01 ms within 1%, the same ordering of qNet.
    write_cipa(tmp_path / "cipa")
    kw = dict(cipa=str(tmp_path / "cipa"), drugs=["calblock"], doses=[1, 4],
              beats=2, bcl=800, stim_duration=1)
    fixed = easyml.drug_study(MODEL, MAPPING, **kw).table
    adaptive = easyml.drug_study(MODEL, MAPPING, adaptive=True, **kw).table
    for k in ("apd50", "apd90"):
        assert np.allclose(adaptive[k], fixed[k], rtol=0.01), k
    q = adaptive["qnet"]
    assert q[0] < q[1] < q[2]
    # The first of three beats crossed freely outside the stimulus: fewer
    # sub-steps than with every beat on the grid (grid_beats=3), and the
    # same APDs within 1%; fewer than two beats on the grid is refused.
    kw["beats"] = 3
    free = easyml.drug_study(MODEL, MAPPING, adaptive=True, **kw).table
    grid = easyml.drug_study(MODEL, MAPPING, adaptive=True, grid_beats=3,
                             **kw).table
    assert np.all(free["steps"] < grid["steps"])
    assert np.allclose(free["apd90"], grid["apd90"], rtol=0.01)
    with pytest.raises(easyml.Error, match="at least 2, got 1"):
        easyml.drug_study(MODEL, MAPPING, adaptive=True, grid_beats=1, **kw)


def test_classify_risk_and_steady_state(tmp_path):
    # The classifier on a made-up table (the unit tests hold it to R's
    # rms::lrm): four drugs whose qNet overlaps between classes.
    table = {"drug": np.array(["a", "b", "c", "d", "control"]),
             "dose": np.array([1.0, 1, 1, 1, 0]),
             "qnet": np.array([50.0, 60, 65, 70, 62]),
             "max_dv": np.array([-0.3, -0.3, -0.3, -0.3, -0.3])}
    known = tmp_path / "known.csv"
    known.write_text("drug,therapeutic,CiPA\na,1,2\nb,1,1\nc,1,2\nd,1,0\n")
    out = easyml.classify_risk(table, str(known))
    assert len(out) == 1 and out[0]["dose"] == 1
    assert out[0]["slope"] < 0
    assert out[0]["predicted"]["a"] == 2 and out[0]["predicted"]["d"] == 0
    with pytest.raises(easyml.Error, match="no drug of class 1"):
        easyml.classify_risk(table, {"a": 2, "d": 0})
    # Paced until no state changes by more than 2% over a beat.
    r = easyml.drug_study(MODEL, MAPPING, beats=30, bcl=800, converge=0.02)
    assert 1 < r.table["beats"][0] < 30
    assert r.table["converged_beat"][0] == r.table["beats"][0]
    # Each simulation stopped at its own steady state: one alone, the same.
    s = easyml.drug_study(MODEL, MAPPING, beats=30, bcl=800, converge=0.02,
                          stop_converged=True)
    assert s.table["beats"][0] == r.table["beats"][0]
    assert s.table["qnet"][0] == r.table["qnet"][0]
    with pytest.raises(easyml.Error, match="needs a tolerance"):
        easyml.drug_study(MODEL, MAPPING, beats=3, stop_converged=True)
