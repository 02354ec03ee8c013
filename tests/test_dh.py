"""Denavit-Hartenberg tables: classic and modified against the Robotics Toolbox (a peer) and the
textbook link matrices, Puma 560 parameters and dynamics against the toolbox, files, errors."""
import math

import numpy as np
import pytest

import artidyn as ad
from artidyn.io.dh import NOMINAL_MASS, from_dh, to_toml
from artidyn.models import builtin

DATA = __import__("pathlib").Path(builtin.__file__).parent / "data"


@pytest.fixture(scope="module")
def rtb():
    """The Robotics Toolbox, for the tests that compare with it (the others run without it)."""
    from peers import require
    return require("roboticstoolbox")


@pytest.fixture(scope="module")
def rtb_puma(rtb):
    return rtb.models.DH.Puma560()


@pytest.fixture(scope="module")
def rtb_panda(rtb):
    return rtb.models.DH.Panda()


def link_classic(theta, d, a, alpha):
    """Textbook classic DH matrix Rz(theta) Tz(d) Tx(a) Rx(alpha), written out."""
    ct, st, ca, sa = math.cos(theta), math.sin(theta), math.cos(alpha), math.sin(alpha)
    return np.array([[ct, -st * ca, st * sa, a * ct], [st, ct * ca, -ct * sa, a * st],
                     [0, sa, ca, d], [0, 0, 0, 1.0]])


def link_modified(alpha, a, theta, d):
    """Textbook modified DH matrix Rx(alpha) Tx(a) Rz(theta) Tz(d) (Craig 3.6), written out."""
    ct, st, ca, sa = math.cos(theta), math.sin(theta), math.cos(alpha), math.sin(alpha)
    return np.array([[ct, -st, 0, a], [st * ca, ct * ca, -sa, -sa * d],
                     [st * sa, ct * sa, ca, ca * d], [0, 0, 0, 1.0]])


def all_placements(model, Q, names):
    return {n: ad.frame_placement(model, Q, n) for n in names}


# --- kinematics against the toolbox ----------------------------------------------------------
def test_puma560_classic_matches_toolbox(rtb_puma, rng):
    model = ad.models.puma560()
    Q = rng.uniform(-np.pi, np.pi, (5, 6))
    names = [f"dh{i}" for i in range(1, 7)] + ["tool", "base"] + [f"link{i}" for i in range(1, 7)]
    ours = all_placements(model, Q, names)  # one batched call per frame
    for k, q in enumerate(Q):
        Ts = rtb_puma.fkine_all(q)  # F_0 .. F_6
        assert np.allclose(ours["base"][k], Ts[0].A, atol=1e-12)
        for i in range(1, 7):
            assert np.abs(ours[f"dh{i}"][k] - Ts[i].A).max() < 1e-10, i
            # body i is the joint frame J_i = F_{i-1} Rz(q_i) Tz(d_i) (theta offsets are 0)
            J = Ts[i - 1].A @ link_classic(q[i - 1], rtb_puma.links[i - 1].d, 0.0, 0.0)
            assert np.abs(ours[f"link{i}"][k] - J).max() < 1e-10, i
        assert np.abs(ours["tool"][k] - rtb_puma.fkine(q).A).max() < 1e-10
    # the last link has a6 = alpha6 = 0: the last body frame is F_6 itself
    assert np.abs(ad.frame_placement(model, Q, model.body_names[-1]) - ours["dh6"]).max() < 1e-14


def panda_rows(robot):
    rows = []
    for L in robot.links:
        rows.append(dict(joint="revolute", alpha=L.alpha, a=L.a, theta=L.offset, d=L.d, mass=L.m,
                         com=np.asarray(L.r).tolist(), inertia=np.asarray(L.I).tolist(),
                         lower=L.qlim[0], upper=L.qlim[1]))
    return rows


def test_panda_modified_matches_toolbox(rtb_panda, rng):
    assert rtb_panda.mdh
    model = from_dh(panda_rows(rtb_panda), "modified", name="panda", tool=rtb_panda.tool.A)
    Q = rng.uniform(-2.5, 2.5, (5, 7))
    names = [f"dh{i}" for i in range(1, 8)] + ["tool"]
    ours = all_placements(model, Q, names)
    for k, q in enumerate(Q):
        Ts = rtb_panda.fkine_all(q)
        for i in range(1, 8):
            assert np.abs(ours[f"dh{i}"][k] - Ts[i].A).max() < 1e-10, i
            # modified DH: body i's frame IS F_i
            assert np.abs(ad.frame_placement(model, q, f"link{i}") - Ts[i].A).max() < 1e-10
        assert np.abs(ours["tool"][k] - rtb_panda.fkine(q).A).max() < 1e-10
    assert np.allclose(model.lower, [L.qlim[0] for L in rtb_panda.links])


@pytest.mark.parametrize("convention", ["classic", "modified"])
def test_prismatic_and_offsets_against_textbook_matrices(convention, rng):
    """Random table with prismatic rows, theta offsets, base and tool: product of link matrices."""
    n = 5
    kinds = ["revolute", "prismatic", "revolute", "prismatic", "revolute"]
    P = rng.uniform(-1, 1, (n, 4))  # a, alpha, d, theta
    rows = [dict(joint=kinds[i], a=P[i, 0], alpha=P[i, 1] * 3, d=P[i, 2], theta=P[i, 3] * 3) for i in range(n)]
    base = ad.spatial.homogeneous(ad.spatial.rotz(0.3) @ ad.spatial.rotx(-0.7), [0.1, -0.2, 0.3])
    tool = ad.spatial.homogeneous(ad.spatial.roty(0.5), [0.0, 0.05, 0.12])
    model = from_dh(rows, convention, base=base, tool=tool)
    Q = rng.uniform(-1, 1, (4, n))
    got = ad.frame_placement(model, Q, "tool")
    for k, q in enumerate(Q):
        T = base.copy()
        for i, r in enumerate(rows):
            th = r["theta"] + (q[i] if kinds[i] == "revolute" else 0)
            d = r["d"] + (q[i] if kinds[i] == "prismatic" else 0)
            T = T @ (link_classic(th, d, r["a"], r["alpha"]) if convention == "classic"
                     else link_modified(r["alpha"], r["a"], th, d))
            assert np.abs(ad.frame_placement(model, q, f"dh{i + 1}") - T).max() < 1e-12
        assert np.abs(got[k] - T @ tool).max() < 1e-12


def test_classic_equals_its_modified_rewrite(rng):
    """Classic row i = modified row i with (alpha, a) of row i-1, plus Tx(a_n) Rx(alpha_n) as tool;
    the inertia given in classic F_i is moved into the joint frame J_i = modified F_i."""
    n = 4
    P = rng.uniform(-1, 1, (n, 4))
    masses = rng.uniform(0.5, 2, n)
    coms = rng.uniform(-0.2, 0.2, (n, 3))
    Is = [np.diag(rng.uniform(0.02, 0.03, 3)) for _ in range(n)]
    classic = [dict(joint="revolute", a=p[0], alpha=p[1] * 3, d=p[2], theta=p[3], mass=m, com=c, inertia=I)
               for p, m, c, I in zip(P, masses, coms, Is)]
    modified = []
    for i, r in enumerate(classic):
        K = link_classic(0, 0, r["a"], r["alpha"])  # classic F_i in J_i
        prev = classic[i - 1] if i else dict(a=0.0, alpha=0.0)
        modified.append(dict(joint="revolute", a=prev["a"], alpha=prev["alpha"], d=r["d"], theta=r["theta"],
                             mass=r["mass"], com=K[:3, :3] @ r["com"] + K[:3, 3],
                             inertia=K[:3, :3] @ r["inertia"] @ K[:3, :3].T))
    last = classic[-1]
    m1 = from_dh(classic, "classic")
    m2 = from_dh(modified, "modified", tool=link_classic(0, 0, last["a"], last["alpha"]))
    Q = rng.uniform(-2, 2, (3, n))
    assert np.abs(ad.body_placements(m1, Q) - ad.body_placements(m2, Q)).max() < 1e-12
    assert np.abs(ad.frame_placement(m1, Q, "tool") - ad.frame_placement(m2, Q, "tool")).max() < 1e-12
    assert np.abs(m1.I - m2.I).max() < 1e-12


# --- Puma 560 parameters and dynamics ---------------------------------------------------------
def test_puma560_parameters_match_toolbox(rtb_puma):
    model = ad.models.puma560()
    for i, (row, L) in enumerate(zip(model.dh, rtb_puma.links), start=1):
        dh = (row["theta"], row["d"], row["a"], row["alpha"])
        assert dh == pytest.approx((L.offset, L.d, L.a, L.alpha), abs=1e-15)
        assert np.allclose(row["com"], L.r, atol=0) and np.allclose([row["lower"], row["upper"]], L.qlim)
        I_ours, I_rtb = np.array(row["inertia"]), np.asarray(L.I)
        diff = np.argwhere(np.abs(I_ours - I_rtb) > 0).tolist()
        if i == 1:  # completion of the published (non-rigid) link 1: mass and Ixx = Izz
            assert L.m == 0 and row["mass"] == 10.0 and diff == [[0, 0], [2, 2]]
            assert I_ours[0, 0] + I_ours[2, 2] == pytest.approx(I_ours[1, 1])
        elif i == 3:  # link 3: only Izz raised to Iyy - Ixx (triangle inequality)
            assert row["mass"] == L.m and diff == [[2, 2]] and I_ours[2, 2] == pytest.approx(0.086 - 0.066)
        else:
            assert row["mass"] == L.m and diff == []
        assert model.armature[i - 1] == pytest.approx(L.Jm * L.G**2, rel=1e-14)


def test_puma560_dynamics_match_toolbox_rne(rtb, rng):
    """The completions change no joint torque: rnea equals the toolbox's rne (friction off,
    the toolbox's link 3 given the same completed Izz), rotor inertia Jm G^2 included."""
    if not hasattr(ad, "rnea"):
        pytest.skip("artidyn.rnea not available")
    puma = rtb.models.DH.Puma560().nofriction(coulomb=True, viscous=True)
    puma.links[2].I = np.diag([0.066, 0.086, 0.020])
    model = ad.models.puma560()
    for q, v, a in rng.uniform(-2, 2, (3, 3, 6)):
        assert np.abs(ad.rnea(model, q, v, a) - puma.rne(q, v, a)).max() < 1e-10


# --- planar 2R: analytic poses ----------------------------------------------------------------
def test_planar_2r_analytic_poses(rng):
    l1, l2 = 0.7, 0.4
    model = ad.models.planar_2r(l1=l1, l2=l2)
    Q = rng.uniform(-np.pi, np.pi, (6, 2))
    tip = ad.frame_placement(model, Q, "tool")
    elbow = ad.frame_placement(model, Q, "link2")
    q1, q12 = Q[:, 0], Q[:, 0] + Q[:, 1]
    assert np.allclose(tip[:, 0, 3], l1 * np.cos(q1) + l2 * np.cos(q12), atol=1e-14)
    assert np.allclose(tip[:, 1, 3], l1 * np.sin(q1) + l2 * np.sin(q12), atol=1e-14)
    assert np.allclose(tip[:, 2, 3], 0)
    assert np.allclose(elbow[:, :2, 3], l1 * np.stack([np.cos(q1), np.sin(q1)], 1), atol=1e-14)
    assert np.allclose(tip[:, :2, 0], np.stack([np.cos(q12), np.sin(q12)], 1), atol=1e-14)


# --- files ------------------------------------------------------------------------------------
def same_model(m1, m2, rng, tol=1e-12):
    Q = ad.random_configuration(m1, rng, size=3) if np.all(np.isfinite(m1.lower)) else rng.uniform(-2, 2, (3, m1.nq))
    names = [f.name for f in m1.frames]
    assert names == [f.name for f in m2.frames] and m1.body_names == m2.body_names
    for n in names:
        assert np.abs(ad.frame_placement(m1, Q, n) - ad.frame_placement(m2, Q, n)).max() < tol, n
    for key in ("I", "lower", "upper", "armature", "damping", "coulomb", "gravity"):
        a, b = np.asarray(getattr(m1, key)), np.asarray(getattr(m2, key))
        assert np.allclose(a, b, rtol=tol, atol=tol), key
    assert m1.dh_convention == m2.dh_convention


@pytest.mark.parametrize("name", ["puma560", "rx90", "planar2r"])
def test_toml_round_trip(name, tmp_path, rng):
    model = ad.models.get(name)
    path = tmp_path / f"{name}.toml"
    path.write_text(to_toml(model, header="round trip"))
    back = ad.load(path)
    same_model(model, back, rng)
    assert back.name == model.name and back.source == str(path)


@pytest.mark.parametrize("name", ["puma560", "rx90"])
def test_shipped_tables_equal_builtins(name, rng):
    same_model(ad.models.get(name), ad.load(DATA / f"{name}.toml"), rng)


def test_yaml_file_and_keyword_overrides(tmp_path, rng):
    yaml = pytest.importorskip("yaml")
    spec = {"name": "arm", "convention": "modified", "angle_unit": "deg", "gravity": [0, 0, -9.8],
            "tool": {"xyz": [0, 0, 0.1], "rpy": [0, 0, 0]},
            "joints": [{"type": "revolute", "a": 0, "alpha": 0, "d": 0.3, "theta": 0, "mass": 1.0,
                        "inertia": {"ixx": 0.01, "iyy": 0.01, "izz": 0.01}, "lower": -90, "upper": 90},
                       {"type": "prismatic", "a": 0.2, "alpha": 90, "d": 0.0, "theta": 0, "mass": 0.5,
                        "com": [0, 0, -0.1], "inertia": [0.01, 0.01, 0.001, 0, 0, 0], "lower": 0, "upper": 0.4}]}
    path = tmp_path / "arm.yaml"
    path.write_text(yaml.safe_dump(spec))
    model = ad.load(path)
    assert model.lower == pytest.approx([-np.pi / 2, 0.0]) and model.upper == pytest.approx([np.pi / 2, 0.4])
    q = np.array([0.4, 0.25])
    expect = link_modified(0, 0, 0.4, 0.3) @ link_modified(np.pi / 2, 0.2, 0, 0.25) @ link_classic(0, 0.1, 0, 0)
    assert np.abs(ad.frame_placement(model, q, "tool") - expect).max() < 1e-14
    assert np.allclose(model.gravity, [0, 0, -9.8])
    other = from_dh(path, name="renamed", gravity=(0, 0, 0))
    assert other.name == "renamed" and np.all(other.gravity == 0)


def test_missing_and_absent_inertial_data():
    rows = [dict(joint="revolute", a=0.3, alpha=0, d=0, theta=0),
            dict(joint="revolute", a=0.3, alpha=0, d=0, theta=0, mass=2.0, com=[0.1, 0, 0])]
    model = from_dh(rows, "classic")
    assert model.mass[1] == 0 and model.mass[2] == 2.0
    assert any("massless" in n.message for n in model.load_report.defaults)
    kin = from_dh([rows[0], dict(joint="prismatic", a=0, alpha=0, d=0, theta=0)], "classic")
    assert np.allclose(kin.mass[1:], NOMINAL_MASS)
    assert any("nominal" in n.message for n in kin.load_report.defaults)


# --- errors ------------------------------------------------------------------------------------
GOOD = 'name = "t"\nconvention = "classic"\n[[joint]]\ntype = "revolute"\na = 0.1\nalpha = 0.0\nd = 0.0\ntheta = 0.0\n'


@pytest.mark.parametrize("text, match", [
    (GOOD.replace('"classic"', '"clasic"'), r"t\.toml: unknown DH convention 'clasic'.*classic"),
    (GOOD.replace('convention = "classic"\n', ""), r"t\.toml: missing key 'convention'"),
    (GOOD.replace('"revolute"', '"spherical"'), r"t\.toml: joint row 1: unknown joint type 'spherical'"),
    (GOOD + '[[joint]]\ntype = "prismatic"\na = 0.1\nd = 0.0\ntheta = 0.0\n',
     r"t\.toml: joint row 2: missing key 'alpha'"),
    (GOOD.replace("a = 0.1", 'a = "0.1m"'), r"t\.toml: joint row 1: 'a' must be a number, got '0.1m'"),
    (GOOD.replace("alpha =", "alhpa ="), r"unknown key 'alhpa'; did you mean 'alpha'"),
    (GOOD + "mass = 1.0\ninertia = [1, 2, 3, 4, 5]\n", r"joint row 1: 'inertia' must be 3x3, 6 values"),
    (GOOD + "mass = 1.0\ninertia = [1.0, 1.0, 5.0]\n", r"t\.toml: .*triangle inequality"),
    (GOOD.replace('name = "t"', 'name = "t"\ngravty = [0, 0, -9.81]'), r"unknown key 'gravty'; did you mean 'gravity'"),
    (GOOD.replace('name = "t"', 'name = "t"\nangle_unit = "grad"'), r"angle_unit must be 'rad' or 'deg'"),
    (GOOD.replace('name = "t"', 'name = "t"\nbase = [[2, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]]'),
     r"base is not a rigid transform"),
    (GOOD.replace("theta = 0.0", "theta = [0.0"), r"t\.toml: invalid TOML"),
])
def test_file_errors_name_file_and_row(tmp_path, text, match):
    path = tmp_path / "t.toml"
    path.write_text(text)
    with pytest.raises(ad.ParseError, match=match):
        ad.load(path)


def test_row_errors_and_loader_errors(tmp_path):
    with pytest.raises(ad.ModelError, match="no convention given"):
        from_dh([dict(joint="revolute", a=0, alpha=0, d=0, theta=0)])
    with pytest.raises(ad.ModelError, match=r"joint row 1 \('arm'\): missing key 'joint'"):
        from_dh([dict(name="arm", a=0, alpha=0, d=0, theta=0)], "modified")
    with pytest.raises(ad.ModelError, match=r"joint row 1: 'd' must be finite"):
        from_dh([dict(joint="revolute", a=0, alpha=0, d=float("nan"), theta=0)], "modified")
    with pytest.raises(FileNotFoundError, match="nope.toml"):
        ad.load(tmp_path / "nope.toml")
    (tmp_path / "x.json").write_text("{}")
    with pytest.raises(ad.ParseError, match=r"unknown model file type '\.json'"):
        ad.load(tmp_path / "x.json")
    with pytest.raises(ad.NameNotFound, match="did you mean 'puma560'"):
        ad.load("puma56")


def test_load_dispatches_urdf():
    from conftest import ERD_URDFS
    path = next((p for p in ERD_URDFS if p.stem == "ur5_robot"), None)
    if path is None:
        pytest.skip("example-robot-data not installed")
    model = ad.load(path)
    assert model.nv == 6 and model.source.endswith("ur5_robot.urdf")
    by_name = ad.load("ur5_robot")
    assert by_name.body_names == model.body_names
