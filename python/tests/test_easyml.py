"""Tests of the easyml Python package (run by lit: test/Python/pytest.test,
or `PYTHONPATH=build/python python3 -m pytest python/tests`)."""

import os

import numpy as np
import pytest

import easyml

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(
    __file__))))
TT = os.path.join(ROOT, "examples", "models", "ten_tusscher_panfilov_2006.model")
LR = os.path.join(ROOT, "examples", "models", "luo_rudy_1991.model")


@pytest.fixture(scope="module")
def tt():
    return easyml.compile(TT, variants=["baseline", "cpu-simd"])


@pytest.fixture(scope="module")
def lr():
    return easyml.compile(LR, variants="cpu-simd")


def test_model_metadata(tt):
    assert tt.name == "ten_tusscher_panfilov_2006"
    assert "Ca_i" in tt.states
    assert "G_Kr" in tt.parameters
    assert tt.variants == ["baseline", "cpu-simd"]
    assert tt.defaults["G_Kr"] == pytest.approx(0.153)


def test_compile_error_carries_location(tmp_path):
    bad = tmp_path / "bad.model"
    bad.write_text("V; .external(Vm);\nIion; .external();\nx = 1 +;\n")
    with pytest.raises(easyml.CompileError) as e:
        easyml.compile(str(bad))
    assert "bad.model:3:" in str(e.value)


def test_missing_model_file():
    with pytest.raises(easyml.CompileError, match="no such model file"):
        easyml.compile("/nonexistent/x.model")


def test_run_records_numpy_arrays(lr):
    sim = easyml.Simulation(lr, cells=8)
    out = sim.run(until=50, stimulus=easyml.Stimulus(start=1, count=1),
                  record=["Vm", "Cai"], cells=range(2, 5), every=0.5)
    assert out["t"].shape == (100,)
    assert out["Vm"].shape == (100, 3)
    assert out["t"][1] == pytest.approx(0.5)
    assert out["Vm"].max() > 0  # the stimulus excited the cells
    assert sim.time == pytest.approx(50)
    # Vm is a view of the runtime's array: as long as the cells.
    assert sim.vm.shape == (8,)
    assert np.allclose(sim.vm, sim.vm[0])


def test_cvode_step_size_is_per_cell_memory(tt):
    # The model's cvode group keeps its step size per cell between steps:
    # dt while nothing happens, shorter through the upstroke, then back;
    # and how many sub-steps of the last step passed above the tolerance.
    assert tt.hidden == ["cvode.h.0", "cvode.forced.0"]
    sim = easyml.Simulation(tt, cells=2)
    sim.set_param("G_Na", np.array([14.838, 0.0]))
    out = sim.run(until=40, stimulus=easyml.Stimulus(start=10),
                  record=["cvode.h.0", "Vm"])
    h = out["cvode.h.0"]
    assert np.all((h >= 0) & (h <= 0.01 + 1e-15))
    assert h[0, 0] == 0.0  # as initialised: the first step starts at dt
    assert np.all(h[1:10] == 0.01)  # at rest, before the stimulus
    assert h[11:16, 0].min() < 0.002  # the upstroke
    assert np.any(h[16:, 0] == 0.01)  # dt again on the plateau
    assert not np.array_equal(h[:, 0], h[:, 1])
    now = sim.state("cvode.h.0")
    assert now.shape == (2,) and np.all((now > 0) & (now <= 0.01))
    sim.set_state("cvode.h.0", np.zeros(2))
    assert list(sim.state("cvode.h.0")) == [0.0, 0.0]


def test_adaptive_cells_take_their_own_steps(tt):
    # Built with --adaptive, the model integrates Vm with every state: at
    # dt 0.5 ms each cell sub-steps through the upstroke and takes whole
    # steps at rest (cvode.steps.0 counts them), Vm follows openCARP's
    # scheme at dt 0.01 within its first-order error, and the stimulus
    # acts over its steps.
    adaptive = easyml.compile(TT, variants=["baseline", "cpu-simd"],
                              options=["--adaptive"])
    assert adaptive.states[-1] == "Vm.cell"
    assert "cvode.steps.0" in adaptive.hidden
    stim = easyml.Stimulus(start=10)
    sim = easyml.Simulation(adaptive, cells=2, dt=0.5)
    out = sim.run(until=400, stimulus=stim, record=["Vm", "cvode.steps.0"],
                  every=0.5)
    steps = np.diff(out["cvode.steps.0"][:, 0])
    assert np.all(steps[1:15] == 1)  # whole steps at rest (after the first)
    assert steps[20:26].max() > 5  # the upstroke (10-11 ms)
    total = sim.state("cvode.steps.0")
    assert np.all(total == total[0]) and total[0] * 10 < 400 / 0.01
    ref = easyml.Simulation(tt, cells=2).run(until=400, stimulus=stim,
                                             record=["Vm"], every=0.5)
    assert np.max(np.abs(ref["Vm"] - out["Vm"])[40:]) < 2.0
    assert out["Vm"][:, 0].max() > 20


def test_cvode_reuses_its_factorised_matrix(tt):
    # Built with --cvode-jacobian-age=20, each cell keeps the factors of its
    # cvode group's iteration matrix (in-place hidden values), the gamma*h
    # they were made for and their age in steps: new ones at most every 20
    # steps at rest, more often through the upstroke. Vm stays within the
    # group's tolerance of the default build; baseline and cpu-simd agree.
    reuse = easyml.compile(TT, variants=["baseline", "cpu-simd"],
                           options=["--cvode-jacobian-age=20"])
    assert reuse.hidden[0] == "cvode.h.0"
    assert "cvode.gh.0" in reuse.hidden and "cvode.age.0" in reuse.hidden
    assert any(n.startswith("cvode.lu.0.") for n in reuse.hidden)
    stim = easyml.Stimulus(start=10)
    runs = {}
    for variant in ["baseline", "cpu-simd"]:
        sim = easyml.Simulation(reuse, cells=3, cpu_variant=variant)
        runs[variant] = sim.run(until=60, stimulus=stim,
                                record=["Vm", "cvode.age.0"], every=0.01)
    age = runs["baseline"]["cvode.age.0"][:, 0]
    assert age.max() == 20  # reused for 20 steps, then made anew
    fresh = np.mean(age == 0)
    assert 0.04 < fresh < 0.5, fresh
    assert np.allclose(runs["baseline"]["Vm"], runs["cpu-simd"]["Vm"],
                       rtol=0, atol=1e-9)
    ref = easyml.Simulation(tt, cells=3).run(until=60, stimulus=stim,
                                             record=["Vm"], every=0.01)
    assert np.max(np.abs(ref["Vm"] - runs["baseline"]["Vm"])) < 1e-4


def test_per_cell_equals_uniform_bit_for_bit(tt):
    values = np.array([0.1, 0.153, 0.2, 0.3])
    pop = easyml.Simulation(tt, cells=4)
    pop.set_param("G_Kr", values)
    pop.run(until=400, stimulus=easyml.Stimulus(start=10), biomarkers=True)
    b = pop.biomarkers()
    for c, g in enumerate(values):
        one = easyml.Simulation(tt, cells=1)
        one.modify("G_Kr=%r" % g)
        one.run(until=400, stimulus=easyml.Stimulus(start=10),
                biomarkers=True)
        assert one.state("Ca_i")[0] == pop.state("Ca_i")[c]
        assert one.biomarkers()["apd90"][0] == b["apd90"][c]
    # Faster repolarisation with more IKr.
    assert np.all(np.diff(b["apd90"]) < 0)
    assert list(b["G_Kr"]) == list(values)


def test_population_is_reproducible(tt):
    def sampled(seed):
        sim = easyml.Simulation(tt, cells=100)
        return sim.sample("G_Kr*lognormal(1,0.2),G_Ks*uniform(0.5,1.5)",
                          seed=seed)
    a, b, c = sampled(7), sampled(7), sampled(8)
    assert np.array_equal(a["G_Kr"], b["G_Kr"])
    assert not np.array_equal(a["G_Kr"], c["G_Kr"])
    assert a["G_Ks"].min() >= 0.5 * 0.392 and a["G_Ks"].max() <= 1.5 * 0.392
    assert abs(np.median(a["G_Kr"]) / 0.153 - 1) < 0.1


def test_biomarkers_structured_array(tt):
    sim = easyml.Simulation(tt, cells=16)
    sim.sample("G_CaL*uniform(0.8,1.2)", seed=1)
    sim.run(until=1000, stimulus=easyml.Stimulus(start=10, bcl=500, count=2),
            biomarkers=True, ca_variable="Ca_i")
    b = sim.biomarkers()
    assert b.shape == (32,)
    assert set(["apd90", "ca_amplitude", "flags", "G_CaL"]) <= set(
        b.dtype.names)
    assert np.all(b["flags"] == 0)
    assert np.all((b["apd90"] > 200) & (b["apd90"] < 400))
    assert np.all(b["ca_amplitude"] > 0)
    assert list(b["beat"][:16]) == [0] * 16 and list(b["beat"][16:]) == [1] * 16


def test_errors_are_python_exceptions(tt):
    with pytest.raises(easyml.Error, match="has no parameter 'GX'"):
        easyml.Simulation(tt, cells=2).set_param("GX", [1, 2])
    with pytest.raises(easyml.Error, match="expected 2 values"):
        easyml.Simulation(tt, cells=2).set_param("G_Kr", [1, 2, 3])
    with pytest.raises(easyml.Error, match="not finite"):
        easyml.Simulation(tt, cells=2).set_param("G_Kr", [1, np.nan])
    with pytest.raises(easyml.Error, match="read by lookup table V"):
        easyml.Simulation(tt, cells=2).set_param("Ca_o", [1, 2])
    with pytest.raises(easyml.Error, match="unknown distribution 'beta'"):
        easyml.Simulation(tt, cells=2).sample("G_Kr*beta(1,2)")
    with pytest.raises(easyml.Error, match="has no cuda variant"):
        easyml.Simulation(tt, cells=2, devices="cuda:0")
    with pytest.raises(easyml.Error, match="has no such state"):
        easyml.Simulation(tt, cells=2).run(until=1, biomarkers=True,
                                           ca_variable="nope")
    sim = easyml.Simulation(tt, cells=2)
    sim.run(until=1)
    with pytest.raises(easyml.Error, match="before the first run"):
        sim.set_param("G_Kr", [1, 2])


def test_blow_up_names_cell_and_step(tt):
    sim = easyml.Simulation(tt, cells=4)
    sim.set_param("G_Kr", [0.153, 0.153, 1e300, 0.153])
    with pytest.raises(easyml.Error, match=r"non-finite value: cell 2"):
        sim.run(until=50, stimulus=easyml.Stimulus(start=1))


DERIVED = """
V; .external(Vm); .nodal();
Iion; .external(); .nodal();
ENDO = 0; EPI = 1;
celltype = ENDO; .flag(ENDO, EPI);
group { g_b; ko; }.param();
g_b = 0.5;
ko = 5.4;
g = (celltype == EPI) ? g_b * 1.3 : g_b; .param();
g_tot = g * sqrt(ko / 5.4); .param();
V_init = -80.0;
w_init = 0.0;
w_inf = 1.0 / (1.0 + exp(-(V + 40.0) / 5.0));
tau_w = 10.0 / (1.0 + exp(V / 20.0));
Iion = g_tot * w * (V - 20.0) + 0.05 * (V + 80.0);
"""


@pytest.fixture(scope="module")
def derived(tmp_path_factory):
    path = tmp_path_factory.mktemp("derived") / "derived.model"
    path.write_text(DERIVED)
    return easyml.compile(str(path), variants=["baseline", "cpu-simd"])


def _vm(model, cells, setup):
    sim = easyml.Simulation(model, cells)
    setup(sim)
    return sim.run(until=60, stimulus=easyml.Stimulus(start=5, strength=40,
                                                      count=1),
                   record=["Vm"], every=0.5)["Vm"]


def test_derived_params_are_listed(derived):
    sim = easyml.Simulation(derived, 1)
    info = {p["name"]: p for p in sim.params()}
    assert not info["g_b"]["derived"]
    assert info["g"]["derived"] and info["g"]["reads"] == ["g_b", "celltype"]
    assert info["g"]["formula"] == "celltype == EPI ? g_b * 1.3 : g_b"
    assert info["g_tot"]["read_by_kernels"]
    assert not info["g_b"]["read_by_kernels"]
    sim.modify("flags=EPI,g_b*2")
    assert sim.param("g") == pytest.approx(1.3)
    assert sim.param("g_tot") == pytest.approx(1.3)


def test_derived_params_follow_shared_and_per_cell(derived):
    base = _vm(derived, 1, lambda s: None)
    doubled = _vm(derived, 1, lambda s: s.modify("g_b*2"))
    direct = _vm(derived, 1, lambda s: s.set_shared("g", 1.0))
    assert np.array_equal(doubled, direct)
    assert not np.array_equal(doubled, base)
    # Per cell: cell 1 is the uniform run with its value, cell 0 unchanged.
    cells = _vm(derived, 2, lambda s: s.set_param("g_b", [0.5, 1.0]))
    assert np.array_equal(cells[:, 1], doubled[:, 0])
    assert np.array_equal(cells[:, 0], base[:, 0])


def test_a_setting_that_changes_nothing_warns(derived):
    sim = easyml.Simulation(derived, 1)
    sim.modify("g_b*2,g=0.5")
    with pytest.warns(easyml.ParamWarning, match="'g_b' is set but changes "
                      "nothing"):
        sim.run(until=1)


def test_compile_uses_the_compilers_cache(tmp_path, monkeypatch):
    # One cache for the tool, Python and CMake: easyml-compile's, which
    # honours XDG_CACHE_HOME when EASYML_CACHE_DIR is not set.
    monkeypatch.delenv("EASYML_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    easyml.compile(LR, variants="baseline")
    entries = list((tmp_path / "easyml" / "compile").rglob("*.so"))
    assert len(entries) == 1
    model = easyml.compile(LR, variants="baseline")
    assert model.name == "luo_rudy_1991"
    assert list((tmp_path / "easyml" / "compile").rglob("*.so")) == entries


def test_checkpoint_continues_the_run(lr, tmp_path):
    """A run saved half way and continued by a new simulation gives the
    same bits as the run that went on, biomarkers included."""
    stim = easyml.Stimulus(start=1, duration=1, strength=60, bcl=250, count=4)

    def made():
        sim = easyml.Simulation(lr, cells=40)
        sim.set_param("g_si", np.linspace(0.07, 0.11, 40))
        return sim

    whole = made()
    whole.run(400, stimulus=stim, biomarkers=True)
    ck = str(tmp_path / "half.ck")
    whole.save_checkpoint(ck)
    out = whole.run(900, record=["Vm"])
    again = made()
    again.load_checkpoint(ck, biomarkers=True)
    assert again.time == pytest.approx(400)
    out2 = again.run(900, stimulus=stim, record=["Vm"])
    assert np.array_equal(out["Vm"], out2["Vm"])
    assert whole.biomarkers().tobytes() == again.biomarkers().tobytes()
    # Another cell count is refused, naming the difference.
    with pytest.raises(easyml.Error, match="40 cells, the simulation 41"):
        other = easyml.Simulation(lr, cells=41)
        other.set_param("g_si", np.linspace(0.07, 0.11, 41))
        other.load_checkpoint(ck, biomarkers=True)
