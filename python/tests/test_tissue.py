"""easyml.Tissue: a cable of Luo-Rudy cells and a masked sheet."""

import os

import numpy as np
import pytest

import easyml

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(
    __file__))))
LR = os.path.join(ROOT, "examples", "models", "luo_rudy_1991.model")
AP = os.path.join(ROOT, "examples", "models", "aliev_panfilov_1996.model")


def test_cable_conducts_at_a_steady_speed(tmp_path):
    t = easyml.Tissue(LR, points=[101], spacing_mm=0.1, dt=0.01)
    t.stimulate(box=((0, 0, 0), (0.2, 0, 0)), current_per_area=80,
                duration=1)
    r = t.run(duration=40, until_activated=True, outputs=str(tmp_path),
              probes={"end": (10, 0, 0)})
    lat = r.activation
    assert lat.shape == (101,)
    assert np.isfinite(lat).all()
    assert (np.diff(lat[10:]) > 0).all()
    # Away from the ends, the wave covers equal distances in equal times.
    cv = 0.1 / np.diff(lat[20:80])  # mm/ms
    assert cv.std() / cv.mean() < 0.05
    assert 0.2 < cv.mean() < 1.0
    assert r.report["activation_ms"]["end"] == pytest.approx(lat[-1])
    assert (tmp_path / "activation.npy").exists()
    np.testing.assert_array_equal(np.load(tmp_path / "activation.npy"), lat)


def test_mask_and_point_parameters(tmp_path):
    mask = np.ones((20, 30), dtype=np.uint8)
    mask[0:15, 15:17] = 0  # a wall with a gap at the top: the wave goes round
    t = easyml.Tissue(AP, points=[30, 20], spacing_mm=0.2, mask=mask,
                      point_parameters={"k": np.full((20, 30), 8.0)})
    t.stimulate(box=((0, 0, 0), (0.6, 3.8, 0)), current_per_area=100,
                duration=2)
    r = t.run(duration=200, until_activated=True)
    assert r.activation.shape == (20, 30)
    assert np.isnan(r.activation[~mask.astype(bool)]).all()
    assert np.isfinite(r.activation[mask.astype(bool)]).all()
    assert np.isnan(r.vm[~mask.astype(bool)]).all()
    # Behind the wall, the point at the gap activates before the one at the
    # foot of the wall.
    assert r.activation[0, 17] > r.activation[19, 17] + 2


def test_bad_configuration_is_an_error():
    t = easyml.Tissue(LR, points=[10], spacing_mm=0.1)
    t.stimulate(box=((5, 5, 5), (6, 6, 6)), current_per_area=80)
    with pytest.raises(easyml.Error, match="holds no point of tissue"):
        t.run(duration=1)
    with pytest.raises(ValueError):
        easyml.Tissue(LR)


def test_apd_maps_per_beat():
    # A masked sheet paced twice: APD90 at every point of tissue, none
    # outside it, and the second beat (short cycle) shorter.
    mask = np.ones((6, 20), dtype=np.uint8)
    mask[:, 10] = 0
    mask[5, 10] = 1
    t = easyml.Tissue(LR, points=[20, 6], spacing_mm=0.1, mask=mask,
                      dt=0.02)
    t.stimulate(box=((0, 0, 0), (0.1, 0.5, 0)), current_per_area=80,
                duration=1, start=2, period=400, count=2)
    r = t.run(duration=800, biomarkers=["apd90", "dvdt_max"])
    assert r.report["beats"] == 2
    apd = r.biomarkers["apd90"]
    assert len(apd) == 2 and apd[0].shape == (6, 20)
    tissue = mask.astype(bool)
    assert np.isnan(apd[0][~tissue]).all()
    assert np.isfinite(apd[0][tissue]).all()
    assert (apd[1][tissue] < apd[0][tissue]).all()
    assert (r.biomarkers["dvdt_max"][0][tissue] > 100).all()


def test_checkpoint_continues_a_masked_sheet(tmp_path):
    # The wave is still travelling at the last checkpoint (24 ms): the run
    # continued from it gives the uninterrupted activation map and Vm.
    mask = np.ones((20, 30), dtype=np.uint8)
    mask[0:15, 15:17] = 0
    t = easyml.Tissue(AP, points=[30, 20], spacing_mm=0.2, mask=mask)
    t.stimulate(box=((0, 0, 0), (0.6, 3.8, 0)), current_per_area=100,
                duration=2)
    ck = tmp_path / "ck.bin"
    whole = t.run(duration=30, outputs=str(tmp_path), checkpoint=str(ck),
                  checkpoint_every=12)
    assert whole.report["checkpoints"]["count"] == 2
    lat = whole.activation[mask.astype(bool)]
    assert (lat > 24).any() and (lat < 24).any()
    again = t.run(duration=30, outputs=str(tmp_path), restart=str(ck))
    assert again.report["checkpoints"]["restart_step"] == 2400
    np.testing.assert_array_equal(again.activation, whole.activation)
    np.testing.assert_array_equal(again.vm, whole.vm)
    with pytest.raises(easyml.Error, match="another run's checkpoint"):
        t.run(duration=31, outputs=str(tmp_path), restart=str(ck))
