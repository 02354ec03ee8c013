"""Plots: one panel row per limb, units, own y-scales, labelled limits, angles for quaternions,
nothing dropped on large robots, the callers of the plot functions still working."""
import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402

import artidyn as ad  # noqa: E402
from artidyn.models import random_chain, random_tree  # noqa: E402
from artidyn.sim import SimulationResult, coordinate_names  # noqa: E402
from artidyn.sim.plot_groups import (joint_groups, quaternion_angles, rows_from_model,  # noqa: E402
                                     rows_from_names)
from artidyn.sim.plots import plot_energy, plot_result, plot_torques  # noqa: E402
from artidyn.spatial.rotations import matrix_to_quat, rotx, roty, rotz  # noqa: E402

LEGS = ("FL", "FR", "HL", "HR")


@pytest.fixture(scope="module")
def solo():
    return ad.load("solo12")


@pytest.fixture(scope="module")
def solo_run(solo):
    q = np.array(ad.neutral(solo))
    q[2], q[7:] = 0.4, np.tile([0.1, 0.8, -1.6], 4)
    v = np.zeros(solo.nv)
    v[:3] = [0.3, 0.2, 1.0]
    return ad.simulate(solo, q, v, t_final=0.02, dt=1e-3)


def handmade(model, t, q, v=None, tau=None):
    """A SimulationResult from arrays (a = 0, energies 0) with the model's coordinate names."""
    S = t.size
    v = np.zeros((S, model.nv)) if v is None else v
    tau = np.zeros((S, model.nv)) if tau is None else tau
    z = np.zeros(S)
    return SimulationResult(t, q, v, np.zeros((S, model.nv)), tau, (z, z, z), model_name=model.name,
                            q_names=coordinate_names(model, "q"), v_names=coordinate_names(model, "v"),
                            method="rk4", dt=t[1] - t[0])


def texts(fig):
    """Every string a reader sees or a line carries: legends, labels, titles, line labels."""
    out = [t.get_text() for t in fig.texts]
    for ax in fig.axes:
        out += [ax.get_title(loc=k) for k in ("left", "center", "right")]
        out += [ax.get_ylabel(), ax.get_xlabel()] + [ln.get_label() for ln in ax.get_lines()]
        out += [t.get_text() for t in ax.texts]
        leg = ax.get_legend()
        if leg is not None:
            out += [t.get_text() for t in leg.get_texts()]
    return out


def axes_named(fig, prefix):
    return {ax.get_label().split(":", 1)[1]: ax for ax in fig.axes if ax.get_label().startswith(prefix + ":")}


def data_lines(ax):
    return [ln for ln in ax.get_lines() if not (ln.get_gid() or "").startswith("limit:")]


# --- solo12: every joint, four legs, angles not quaternion entries ----------------------------------
@pytest.mark.parametrize("with_model", [True, False])
def test_solo12_every_joint_four_legs_and_rpy(solo, solo_run, with_model):
    fig = plot_result(solo_run, model=solo if with_model else None)     # PNGs: see the html and caller tests
    words = texts(fig)
    for name in solo.joint_names[1:]:
        assert any(name in w for w in words), name
    q_axes = axes_named(fig, "q")
    assert sorted(k for k in q_axes if k in LEGS) == sorted(LEGS)
    for leg in LEGS:                                     # the hind legs too: each leg's 3 joints drawn
        assert [ln.get_label() for ln in data_lines(q_axes[leg])] == [f"{leg}_{j}" for j in ("HAA", "HFE", "KFE")]
    base = q_axes["root_joint: orientation"]
    assert [ln.get_label() for ln in data_lines(base)] == ["roll", "pitch", "yaw"]
    assert "rad" in base.get_ylabel()
    assert not any(w.endswith((".qx", ".qy", ".qz", ".qw")) or w in ("qx", "qw") for w in words)
    # the base position is drawn as it is, in m
    pos = q_axes["root_joint: position"]
    np.testing.assert_array_equal(data_lines(pos)[2].get_ydata(), solo_run.q[:, 2])
    assert pos.get_ylabel().endswith("[m]")
    # units on every panel, one row per group and quantity
    for w in ("q", "v", "tau"):
        for ax in axes_named(fig, w).values():
            assert "[" in ax.get_ylabel() and ax.get_ylabel().endswith("]")
    if with_model:
        assert q_axes["FL"].get_ylabel() == "q [rad]" and axes_named(fig, "tau")["FL"].get_ylabel() == "τ [N m]"
    title = fig._suptitle.get_text()
    assert "solo" in title and "rk4" in title and "0.001" in title and "0.02" in title
    assert "SimulationResult" not in title


def test_rpy_of_a_base_turning_about_z_is_unwrapped(solo):
    rate, t = 2.0, np.linspace(0.0, 2.5, 251)                    # yaw goes to 5 rad, past pi
    q = np.tile(np.array(ad.neutral(solo)), (t.size, 1))
    q[:, 3:7] = np.column_stack([0 * t, 0 * t, np.sin(rate * t / 2), np.cos(rate * t / 2)])
    r = handmade(solo, t, q)
    fig = plot_result(r, model=solo, what=("q",))
    roll, pitch, yaw = data_lines(axes_named(fig, "q")["root_joint: orientation"])
    np.testing.assert_allclose(yaw.get_ydata(), rate * t, atol=1e-12)
    np.testing.assert_allclose(roll.get_ydata(), 0.0, atol=1e-12)
    np.testing.assert_allclose(pitch.get_ydata(), 0.0, atol=1e-12)
    fig = plot_result(r, model=solo, what=("q",), angles="rotvec")   # the rotation vector, unwrapped too
    rx, ry, rz = data_lines(axes_named(fig, "q")["root_joint: orientation"])
    np.testing.assert_allclose(rz.get_ydata(), rate * t, atol=1e-9)
    assert [ln.get_label() for ln in (rx, ry, rz)] == ["rx", "ry", "rz"]


def test_rpy_matches_rotation_matrices(rng=np.random.default_rng(3)):
    """quaternion_angles (scipy) against R = rotz(yaw) roty(pitch) rotx(roll) built with artidyn."""
    rpy = np.column_stack([rng.uniform(-3, 3, 50), rng.uniform(-1.5, 1.5, 50), rng.uniform(-3, 3, 50)])
    quats = np.array([matrix_to_quat(rotz(c) @ roty(b) @ rotx(a)) for a, b, c in rpy])
    np.testing.assert_allclose(quaternion_angles(quats, unwrap=False), rpy, atol=1e-10)
    np.testing.assert_allclose(quaternion_angles(-quats, unwrap=False), rpy, atol=1e-10)   # q and -q alike


# --- own y-scales, limit lines ----------------------------------------------------------------------
def test_small_torques_get_their_own_scale(solo):
    t = np.linspace(0.0, 1.0, 101)
    q = np.tile(np.array(ad.neutral(solo)), (t.size, 1))
    tau = np.zeros((t.size, solo.nv))
    tau[:, solo.v_slice("FL_HFE")] = 40.0 * np.sin(2 * np.pi * t)[:, None]
    tau[:, solo.v_slice("HR_KFE")] = 0.1 * np.sin(2 * np.pi * t)[:, None]
    fig = plot_result(handmade(solo, t, q, tau=tau), model=solo, what=("tau",))
    big, small = (axes_named(fig, "tau")[k].get_ylim() for k in ("FL", "HR"))
    assert big[1] - big[0] >= 80.0 and small[1] - small[0] < 0.3
    assert small[0] <= -0.1 and small[1] >= 0.1
    # the same with plot_torques, with and without the model
    for model in (solo, None):
        fig = plot_torques(t, tau, coordinate_names(solo, "v"), model=model, limits=solo.effort_limit)
        panels = {ax.get_title(loc="left"): ax for ax in fig.axes}
        assert np.ptp(panels["HR"].get_ylim()) < 0.3 < 80 < np.ptp(panels["FL"].get_ylim())
        assert len(fig.axes) == 6                      # base moment, base force, 4 legs


def test_wrist_torques_get_a_panel_of_their_own():
    """Puma 560 along a quintic: shoulder ~40 N m, wrist ~0.1 N m in one group of 6 joints."""
    from artidyn.sim import quintic_motion

    model = ad.load("puma560")
    t = np.linspace(0.0, 2.0, 41)
    q, v, a = quintic_motion(model, np.zeros(model.nv), np.full(model.nv, 0.5), 2.0, t)
    tau = ad.rnea(model, q, v, a)
    peak = np.max(np.abs(tau), axis=0)
    assert peak.max() > 100 * peak[3:].max()                     # the case of the issue
    fig = plot_torques(t, tau, coordinate_names(model, "v"), model=model)
    drawn = {ln.get_label(): ax for ax in fig.axes for ln in data_lines(ax)}
    assert sorted(drawn) == [f"joint{k}" for k in range(1, 7)]   # each joint once
    for ax in set(drawn.values()):                # no line 10 times smaller than its panel's scale
        peaks = [peak[int(ln.get_label()[-1]) - 1] for ln in data_lines(ax)]
        assert 10 * min(peaks) >= max(peaks) and np.ptp(ax.get_ylim()) < 2.2 * max(peaks)
    assert drawn["joint4"] is not drawn["joint2"] and drawn["joint4"].get_ylabel() == "τ [N m]"
    fig = plot_result(handmade(model, t, q, v=v, tau=tau), model=model, what=("q", "tau"))
    assert sorted(ln.get_label() for ax in axes_named(fig, "q").values() for ln in data_lines(ax)) == \
        [f"joint{k}" for k in range(1, 7)]
    assert len(axes_named(fig, "tau")) >= 2


def test_limit_lines_are_drawn_and_labelled(solo):
    lower, upper = np.array(solo.lower), np.array(solo.upper)
    k = solo.q_slice("HL_HFE").start
    lower[k], upper[k] = -0.2, 0.3                   # near the motion: in view
    model = solo.replace(lower=lower, upper=upper)
    t = np.linspace(0.0, 1.0, 51)
    q = np.tile(np.array(ad.neutral(model)), (t.size, 1))
    q[:, k] = 0.25 * np.sin(2 * np.pi * t)
    fig = plot_result(handmade(model, t, q), model=model, what=("q", "v"))
    ax = axes_named(fig, "q")["HL"]
    limits = {ln.get_gid(): ln.get_ydata()[0] for ln in ax.get_lines() if (ln.get_gid() or "").startswith("limit:")}
    assert limits["limit:HL_HFE:lower"] == -0.2 and limits["limit:HL_HFE:upper"] == 0.3
    assert limits["limit:HL_HAA:lower"] == lower[model.q_slice("HL_HAA").start]     # the model's own +-10 rad
    lo, hi = ax.get_ylim()
    assert lo < -0.2 and hi > 0.3 and hi < 1.0      # the near limits in view, the far ones not
    assert "out of view" in ax.get_title(loc="right") and "10" in ax.get_title(loc="right")
    legend = [tx.get_text() for tx in fig.axes[[a.get_label() for a in fig.axes].index("v:HL")].get_legend().get_texts()]
    assert "lower limit" in legend and "upper limit" in legend
    styles = {ln.get_gid().rsplit(":", 1)[1]: ln.get_linestyle() for ln in ax.get_lines() if ln.get_gid()}
    assert styles == {"lower": "--", "upper": "-."}


# --- large robots, other joints, grouping -------------------------------------------------------------
def test_talos_nothing_dropped(tmp_path):
    model = ad.load("talos_full_v2")
    t = np.linspace(0.0, 0.5, 26)
    q = np.tile(np.array(ad.neutral(model)), (t.size, 1))
    v = 0.1 * np.sin(np.outer(t, np.arange(1, model.nv + 1)))
    fig = plot_result(handmade(model, t, q, v=v), model=model)
    drawn = [ln for ax in axes_named(fig, "v").values() for ln in data_lines(ax)]
    assert len(drawn) == model.nv
    stacked = {}
    for ax in axes_named(fig, "v").values():
        row = next(r for r in rows_from_model(model) if r.name == ax.get_label().split(":", 1)[1])
        for ln, j in zip(data_lines(ax), row.v_index):
            stacked[j] = ln.get_ydata()
    np.testing.assert_array_equal(np.column_stack([stacked[j] for j in range(model.nv)]), v)
    words = texts(fig)
    assert all(any(n in w for w in words) for n in model.joint_names[1:])
    names = [r.name for r in rows_from_model(model)]
    assert {"arm_left", "arm_right", "leg_left", "leg_right", "torso", "head"} <= set(names)
    assert max(len(r.v_index) for r in rows_from_model(model)) <= 7


def test_groups_follow_the_tree():
    panda = ad.load("panda")
    groups = [[panda.joint_names[i] for i in g] for g in joint_groups(panda)]
    assert groups == [[f"panda_joint{k}" for k in range(1, 8)], ["panda_finger_joint1", "panda_finger_joint2"]]
    chain = random_chain(0, nb=12, joint_types=("revolute",))
    assert [len(g) for g in joint_groups(chain)] == [6, 6]
    assert [len(g) for g in joint_groups(chain, max_size=12)] == [12]
    solo = ad.load("solo12")
    assert [r.name for r in rows_from_model(solo)][2:] == list(LEGS)
    # from the names alone (a result read from a file)
    rows = rows_from_names(coordinate_names(solo, "q"), coordinate_names(solo, "v"))
    assert [r.name for r in rows] == [r.name for r in rows_from_model(solo)]


def test_spherical_and_mixed_units_rows(tmp_path):
    model = random_tree(2, nb=6, floating=True, joint_types=("revolute", "prismatic", "spherical"))
    kinds = model.joint_kind[1:]
    assert "spherical" in kinds and "prismatic" in kinds and "revolute" in kinds
    rows = rows_from_model(model)
    assert sorted(j for r in rows for j in r.v_index) == list(range(model.nv))      # each v entry once
    for r in rows:
        units = {model.joint_kind[model.joint_id(j)] for j in r.joints}
        assert not ({"prismatic"} <= units and "revolute" in units)                # one unit per panel
    r = ad.simulate(model, ad.random_configuration(model, rng=1), t_final=0.01, dt=1e-3)
    fig = plot_result(r, model=model, what=("q", "v", "a", "tau", "energy"))
    words = texts(fig)
    assert not any(w.endswith(".qw") for w in words)
    for name in (n for n, k in zip(model.joint_names, model.joint_kind) if k == "spherical"):
        ax = axes_named(fig, "q")[f"{name} (spherical): orientation"]
        np.testing.assert_allclose(np.column_stack([ln.get_ydata() for ln in data_lines(ax)]),
                                   quaternion_angles(r.q[:, model.q_slice(name)]), atol=1e-12)
    assert any(ax.get_ylabel() == "q [m]" for ax in fig.axes)


# --- energy, html, batches, the callers ----------------------------------------------------------------
def test_energy_and_drift_panels(solo_run, tmp_path):
    fig = plot_energy(solo_run, tmp_path / "e.png")
    ax_e, ax_d = fig.axes
    E = solo_run.energy
    total = next(ln for ln in ax_e.get_lines() if ln.get_label() == "total")
    np.testing.assert_array_equal(total.get_ydata(), E.total)
    drift = ax_d.get_lines()[0].get_ydata()
    np.testing.assert_allclose(drift, (E.total - E.total[0]) / np.max(np.abs(E.kinetic)), rtol=1e-12)
    assert np.max(np.abs(drift)) == pytest.approx(solo_run.energy_drift(), rel=1e-12)


def test_html_page_gathers_the_png(solo, solo_run, tmp_path):
    page = tmp_path / "run.html"
    plot_result(solo_run, model=solo, html=page)
    text = page.read_text()
    assert (tmp_path / "run.png").read_bytes()[:4] == b"\x89PNG"
    assert text.count("data:image/png;base64,") == 1 and "<title>solo" in text and "http" not in text


def test_batch_run_is_selected(solo):
    t = np.linspace(0.0, 0.1, 11)
    q = np.tile(np.array(ad.neutral(solo)), (2, t.size, 1))
    q[1, :, 2] = 0.5
    r = handmade(solo, t, q, v=np.zeros((2, t.size, solo.nv)), tau=np.zeros((2, t.size, solo.nv)))
    r.energy = type(r.energy)(*(np.zeros((2, t.size)),) * 3)
    fig = plot_result(r, run=1, model=solo, what=("q",))
    z = data_lines(axes_named(fig, "q")["root_joint: position"])[2]
    np.testing.assert_array_equal(z.get_ydata(), 0.5)
    assert "run 2 of 2" in fig._suptitle.get_text()
    with pytest.raises(ValueError, match="run 5"):
        plot_result(r, run=5, model=solo)


def test_callers_still_work(tmp_path, solo_run):
    from artidyn.cli import main

    assert main(["report", "puma560", "--out", str(tmp_path / "rep")]) in (0, None)
    for png in ("torques_quintic.png", "free_fall_energy.png"):
        assert (tmp_path / "rep" / png).read_bytes()[:4] == b"\x89PNG"
    fig = solo_run.plot(tmp_path / "r.png", what=("q", "v", "energy"))      # SimulationResult.plot
    assert (tmp_path / "r.png").stat().st_size > 5000 and len(axes_named(fig, "q")) == 6
    with pytest.raises(ValueError, match="unknown panel"):
        solo_run.plot(what=("q", "jerk"))
    # a contact run's "contact" panel alone: one axes, as examples/grasp_release.py expects
    S, nb = solo_run.t.size, 13
    solo_run.contact_forces = np.zeros((S, nb + 1, 3))
    solo_run.contact_forces[:, 4, 2] = np.linspace(0, 10, S)
    solo_run.contact_body_names = ad.load("solo12").body_names
    fig = solo_run.plot(None, what=("contact",))
    assert len(fig.axes) == 1 and [ln.get_label() for ln in fig.axes[0].get_lines()] == ["FL_LOWER_LEG"]
