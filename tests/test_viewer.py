"""The 3D viewer page (artidyn.view, `artidyn view`): content, data, and what headless Chromium draws.

Screenshots need the Debian package ``chromium`` (CI installs it); without it those tests fail
with a message saying so.
"""
import argparse
import base64
import json
import re
import shutil
import subprocess
import warnings

import numpy as np
import pytest

import artidyn as ad
from artidyn.errors import ShapeError
from artidyn.sim.result import SimulationResult
from artidyn.viewer import ViewerPage, view
from artidyn.viewer import commands as view_commands
from artidyn.viewer.meshes import simplify
from artidyn.viewer.scene import build_scene
from artidyn.viewer.visuals import read_visuals

BACKGROUND = np.array([0xF4, 0xF5, 0xF7]) / 255.0   # the page's default background
CHROMIUM = next((shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome") if shutil.which(n)), None)


def scene_data(path):
    text = path.read_text(encoding="utf-8")
    block = re.search(r'<script id="artidyn-scene" type="application/json">(.*?)</script>', text, re.S)
    assert block, "no scene block in the page"
    return text, json.loads(block.group(1))


def decoded(text, dtype):
    return np.frombuffer(base64.b64decode(text), dtype=np.dtype(dtype).newbyteorder("<"))


def screenshot(page, tmp_path, size=(800, 600)):
    """RGB image (H, W, 3) of ``page`` in headless Chromium (software WebGL, no network)."""
    if CHROMIUM is None:
        pytest.fail("headless Chromium is needed for the viewer screenshots: apt-get install -y chromium")
    png = tmp_path / f"{page.stem}.png"
    cmd = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--use-gl=swiftshader", "--enable-webgl",
           "--enable-unsafe-swiftshader", "--disable-background-networking", "--no-first-run",
           f"--user-data-dir={tmp_path / 'chromium-profile'}", "--virtual-time-budget=8000",
           f"--window-size={size[0]},{size[1]}", f"--screenshot={png}", page.resolve().as_uri()]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert png.is_file(), f"chromium wrote no screenshot (exit {proc.returncode}): {proc.stderr[-2000:]}"
    from matplotlib.image import imread
    img = imread(png)[..., :3]
    assert img.shape[:2] == (size[1], size[0])
    return img


def drawn(img):
    """Mask of the pixels that differ from the background."""
    return np.abs(img - BACKGROUND).max(axis=-1) > 0.08


@pytest.fixture(scope="module")
def ur5():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ad.load("ur5_robot")


# --- the page itself ---------------------------------------------------------------------------
def test_page_is_self_contained(ur5, tmp_path):
    page = view(ur5, np.zeros(6), tmp_path / "ur5.html")
    assert isinstance(page, ViewerPage) and page.is_file()
    text, data = scene_data(page)
    assert not re.search(r"<script[^>]*\bsrc\s*=", text, re.I), "a script is loaded from elsewhere"
    assert not re.search(r"<link[^>]*\bhref\s*=", text, re.I)
    urls = set(re.findall(r"https?://[^\s\"'<>)]*", text))
    assert urls <= {"http://www.w3.org/1999/xhtml"}, f"URLs in the page: {sorted(urls)[:5]}"
    assert "import(" not in text
    assert "THREE" in text and "MIT License" in text and "three.js authors" in text  # license notice kept
    assert data["n_frames"] == 1 and data["n_bodies"] == ur5.nb + 1
    assert page.stat().st_size < 20e6
    html = page._repr_html_()  # Jupyter: an iframe holding the whole page
    assert html.startswith("<iframe srcdoc=") and "&lt;script" in html and "<script" not in html


def test_visual_meshes_sit_on_the_collision_meshes(ur5):
    """The visual meshes (DAE, read for the viewer) and the collision meshes (STL, read by the URDF
    reader) are two files of each link: placed by the viewer's data, their boxes must agree."""
    q = np.array([0.3, -1.0, 1.2, -0.4, 0.8, 0.2])
    scene = build_scene(ur5, q)
    T = ad.body_placements(ur5, q)

    def world_boxes(layer):
        boxes = {}
        for it in scene.items:
            if it["layer"] == layer and "mesh" in it:
                V = scene.meshes[it["mesh"]][0].astype(float)
                P = T[it["body"]] @ np.array(it["placement"]).reshape(4, 4)
                W = V @ P[:3, :3].T + P[:3, 3]
                lo, hi = boxes.get(it["body"], (W.min(0), W.max(0)))
                boxes[it["body"]] = (np.minimum(lo, W.min(0)), np.maximum(hi, W.max(0)))
        return boxes

    vis, col = world_boxes("visual"), world_boxes("collision")
    assert set(vis) == set(col) == set(range(ur5.nb + 1))
    for b in vis:
        assert np.abs(vis[b][0] - col[b][0]).max() < 0.01 and np.abs(vis[b][1] - col[b][1]).max() < 0.01, b


def test_trajectory_page_has_slider_and_the_placements(ur5, tmp_path):
    rng = np.random.default_rng(1)
    S = 37
    Q = np.cumsum(rng.normal(scale=0.05, size=(S, ur5.nq)), axis=0)
    t = np.linspace(0.0, 1.8, S)
    result = SimulationResult(t, Q, np.zeros((S, ur5.nv)), None, None, None, model_name=ur5.name)
    page = view(ur5, result, tmp_path / "run.html", autoplay=False)
    text, data = scene_data(page)
    slider = re.search(r'<input id="artidyn-time" type="range" min="0" max="(\d+)"', text)
    assert slider and int(slider.group(1)) == S - 1
    assert 'id="artidyn-play"' in text and data["n_frames"] == S
    assert np.allclose(decoded(data["t"], "f8"), t)
    P = decoded(data["poses"], "f4").reshape(S, ur5.nb + 1, 7)
    T = ad.body_placements(ur5, Q)
    assert np.allclose(P[..., :3], T[..., :3, 3], atol=1e-6)
    from artidyn.spatial.rotations import quat_to_matrix
    assert np.allclose(quat_to_matrix(P[..., 3:].astype(float)), T[..., :3, :3], atol=1e-6)
    # a list of postures: every dt seconds
    page = view(ur5, list(Q[:5]), tmp_path / "list.html", dt=0.5)
    assert np.allclose(decoded(scene_data(page)[1]["t"], "f8"), 0.5 * np.arange(5))


def test_contacts_are_encoded_as_world_forces(ur5):
    from types import SimpleNamespace

    from artidyn.contact.moreau_jean import ActiveContacts
    rng = np.random.default_rng(2)
    R = np.linalg.qr(rng.normal(size=(3, 3)))[0]
    P = np.array([[2.0, 0.3, -0.1]])
    C = ActiveContacts(np.array([1]), np.array([0]), np.array([[0.1, 0.2, 0.0]]), np.array([[0.1, 0.2, 0.02]]),
                       R[None], np.zeros(1), P, np.zeros((1, 3)), np.zeros((1, 3)))
    empty = C._replace(**{k: getattr(C, k)[:0] for k in C._fields if getattr(C, k) is not None})
    Q = np.zeros((3, ur5.nq))
    res = SimpleNamespace(t=np.array([0.0, 0.01, 0.02]), q=Q, contacts=[empty, C, empty], dt=0.01, batch=None)
    scene = build_scene(ur5, res)
    assert scene.contacts["offsets"].tolist() == [0, 0, 1, 1]
    assert np.allclose(scene.contacts["points"], [[0.1, 0.2, 0.01]])
    assert np.allclose(scene.contacts["forces"][0], R @ P[0] / 0.01, rtol=1e-6)


def test_wrong_configuration_is_refused(ur5, tmp_path):
    with pytest.raises(ShapeError, match="nq = 6"):
        view(ur5, np.zeros(5), tmp_path / "bad.html")


@pytest.mark.parametrize("path", ["ur_description/meshes/ur5/visual/base.dae",         # two materials
                                  "icub_description/meshes/upmc/visual/icub_r_forearm.dae",  # Y_UP, polylist
                                  "romeo_description/meshes/V1/visual/Torso.dae"])      # rotate, scale nodes
def test_collada_reader_agrees_with_assimp(path):
    """Our COLLADA reader against coal's loader (assimp): same extent, same number of triangles
    (assimp drops the few degenerate ones)."""
    from artidyn.models.erd import robots_dir
    from artidyn.viewer.dae import read_dae
    from artidyn.viewer.meshes import _read_assimp
    f = robots_dir() / path
    V, F, parts = read_dae(f.read_bytes())
    W, G = _read_assimp(str(f))
    assert np.allclose(V.min(0), W.min(0), atol=1e-6) and np.allclose(V.max(0), W.max(0), atol=1e-6)
    assert len(G) <= len(F) <= 1.01 * len(G)
    assert sum(n for _, n, _ in parts) == len(F) and F.max() == len(V) - 1


def test_stl_and_obj_readers(tmp_path):
    """A unit cube written as binary STL, ASCII STL and OBJ reads back as 8 vertices, 12 triangles."""
    from artidyn.viewer.meshes import read_obj, read_stl
    C = np.array([[x, y, z] for x in (0, 1) for y in (0, 1) for z in (0, 1)], float)
    quads = [(0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3)]
    T = np.array([t for a, b, c, d in quads for t in ((a, b, c), (a, c, d))])
    rec = np.zeros(len(T), np.dtype([("n", "<f4", 3), ("v", "<f4", (3, 3)), ("a", "<u2")]))
    rec["v"] = C[T]
    (tmp_path / "b.stl").write_bytes(b"\0" * 80 + np.uint32(len(T)).tobytes() + rec.tobytes())
    facets = "".join("facet normal 0 0 0\nouter loop\n" + "".join(f"vertex {x} {y} {z}\n" for x, y, z in C[t])
                     + "endloop\nendfacet\n" for t in T)
    (tmp_path / "a.stl").write_text(f"solid cube\n{facets}endsolid cube\n")
    (tmp_path / "c.obj").write_text("".join(f"v {x} {y} {z}\n" for x, y, z in C)
                                    + "".join("f " + " ".join(f"{k + 1}/1/1" for k in q) + "\n" for q in quads))
    for V, F in (read_stl(tmp_path / "b.stl"), read_stl(tmp_path / "a.stl"), read_obj(tmp_path / "c.obj")):
        assert V.shape == (8, 3) and F.shape == (12, 3)
        corners = V[F]   # every triangle is half a face of the cube: its corners share one coordinate
        assert np.all(np.any(np.ptp(corners, axis=1) == 0, axis=1))
        assert np.allclose(np.sort(V, axis=0), np.sort(C, axis=0))


def test_simplify_keeps_the_shape():
    # a finely triangulated sphere (UV grid), simplified to a tenth of its triangles
    u, v = np.meshgrid(np.linspace(0, np.pi, 120), np.linspace(0, 2 * np.pi, 240, endpoint=False), indexing="ij")
    V = np.stack([np.sin(u) * np.cos(v), np.sin(u) * np.sin(v), np.cos(u)], -1).reshape(-1, 3)
    idx = np.arange(120 * 240).reshape(120, 240)
    a, b, c, d = idx[:-1], np.roll(idx, -1, 1)[:-1], idx[1:], np.roll(idx, -1, 1)[1:]
    F = np.concatenate([np.stack([a, b, d], -1).reshape(-1, 3), np.stack([a, d, c], -1).reshape(-1, 3)])
    W, G, kept = simplify(V, F, len(F) // 10)
    assert 0 < len(G) <= len(F) // 10
    assert np.allclose(np.linalg.norm(W, axis=1), 1.0, atol=0.05)      # still on the sphere
    assert np.allclose(W.min(0), -1, atol=0.1) and np.allclose(W.max(0), 1, atol=0.1)
    assert G.max() < len(W)


# --- the command line: every example-robot-data robot ------------------------------------------
def run_view(argv):
    parser = argparse.ArgumentParser(prog="artidyn")
    view_commands.register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["view", *argv])
    return args.func(args)


def test_cli_view_writes_a_page_for_every_example_robot(tmp_path, capsys):
    from artidyn.models import erd
    written, sizes = 0, {}
    for name in erd.example_robot_names():
        try:   # robots artidyn cannot load are not the viewer's business (quick check: no meshes read)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                model = erd.example_robot(name, collisions=False)
        except Exception:
            continue
        out = tmp_path / f"{name.replace('/', '_')}.html"
        argv = [str(erd.example_robot_path(name)), "--out", str(out)]
        if model.has_floating_base:
            argv.append("--floating-base")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert run_view(argv) == 0
        _, data = scene_data(out)
        assert data["n_bodies"] == model.nb + 1, name
        # drawn: the visual meshes, else the collision shapes, else the skeleton; a skipped mesh is noted
        visual = any(it["layer"] == "visual" for it in data["items"])
        assert visual or data["show"]["collision"] or data["show"]["skeleton"], name
        has_meshes = any(r["kind"] == "mesh" for r in read_visuals(erd.example_robot_path(name))[0])
        assert visual or not has_meshes or data["notes"], name
        sizes[name] = out.stat().st_size
        written += 1
    assert written >= 60
    assert max(sizes.values()) < 20e6, max(sizes, key=sizes.get)
    assert "wrote" in capsys.readouterr().out


def test_cli_view_posture_and_result(ur5, tmp_path, capsys):
    out = tmp_path / "p.html"
    assert run_view(["ur5_robot", "--q", "0", "-90", "0", "0", "0", "0", "--deg", "--out", str(out)]) == 0
    P = decoded(scene_data(out)[1]["poses"], "f4").reshape(1, ur5.nb + 1, 7)
    T = ad.body_placements(ur5, np.radians([0, -90, 0, 0, 0, 0]))
    assert np.allclose(P[0, :, :3], T[:, :3, 3], atol=1e-6)
    S = 11
    Q = np.linspace(np.zeros(6), np.ones(6), S)
    run = SimulationResult(np.linspace(0, 1, S), Q, np.zeros((S, 6)), None, None, None, model_name="ur5")
    run.to_npz(tmp_path / "run.npz")
    out = tmp_path / "r.html"
    assert run_view(["ur5_robot", "--result", str(tmp_path / "run.npz"), "--out", str(out)]) == 0
    assert scene_data(out)[1]["n_frames"] == S
    with pytest.raises(ShapeError, match="nq = 6"):
        run_view(["ur5_robot", "--q", "0", "0", "--out", str(out)])


# --- what the browser draws --------------------------------------------------------------------
def test_screenshot_arm_to_the_right_and_to_the_left(ur5, tmp_path):
    """Front view (camera on -y, x to the right): the UR5 stretched along +x is drawn right of
    the centre, stretched along -x left of it (the side follows from forward kinematics)."""
    shares = {}
    for pan in (0.0, np.pi):
        q = np.array([pan, 0, 0, 0, 0, 0])
        tip_x = ad.body_placements(ur5, q)[-1, 0, 3]
        page = view(ur5, q, tmp_path / f"ur5_{int(pan * 100)}.html", grid=False,
                    camera={"azimuth": 0, "elevation": 0})
        img = screenshot(page, tmp_path)
        H, W = img.shape[:2]
        mask = drawn(img)[int(0.3 * H):int(0.9 * H)]           # below the layer panel
        left, right = mask[:, :W // 2 - 20].sum(), mask[:, W // 2 + 20:].sum()
        assert left + right > 2000, "the robot is not drawn (blank canvas)"
        shares[np.sign(tip_x)] = right / (left + right)
    assert shares[1.0] > 0.75 and shares[-1.0] < 0.25, shares


def test_screenshot_skeleton_and_floating_base(tmp_path):
    """A DH robot without shapes is drawn as a skeleton; a humanoid with its meshes."""
    puma = ad.load("puma560")
    img = screenshot(view(puma, None, tmp_path / "puma.html", grid=False), tmp_path)
    assert drawn(img)[int(0.3 * img.shape[0]):].sum() > 1000
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        talos = ad.load("talos_full_v2")
    page = view(talos, None, tmp_path / "talos.html", grid=False, camera={"azimuth": 0, "elevation": 0})
    img = screenshot(page, tmp_path)
    H, W = img.shape[:2]
    mask = drawn(img)[int(0.3 * H):]
    cols = np.nonzero(mask.any(axis=0))[0]
    assert mask.sum() > 5000
    assert abs(0.5 * (cols.min() + cols.max()) - W / 2) < 0.1 * W   # standing symmetric about the centre


@pytest.mark.parametrize("kw, match", [
    (dict(times=[0.0, 1.0, 1.0]), r"times must increase: t\[2\] = 1 after t\[1\] = 1"),
    (dict(times=[0.0, 2.0, 1.0]), r"times must increase: t\[2\] = 1 after t\[1\] = 2"),
    (dict(times=[0.0, np.nan, 1.0]), "time 1 is NaN or infinite"),
    (dict(times="abc"), "times must be numbers"),
    (dict(dt=0.0), r"view: dt must be > 0, got 0"),
    (dict(max_triangles=-5), "view: max_triangles must be >= 1, got -5"),
    (dict(max_frames=2.5), "view: max_frames must be a whole number >= 1, got float 2.5"),
    (dict(speed=float("inf")), "view: speed must be a finite real number, got float inf"),
    (dict(run="0"), "run must be the index of a run"),
])
def test_view_checks_its_arguments(kw, match, tmp_path):
    model = ad.load("planar2r")
    with pytest.raises(ad.InputError, match=match):
        view(model, np.zeros((3, 2)), tmp_path / "x.html", **kw)
    assert not (tmp_path / "x.html").exists()


def test_missing_visual_mesh_is_warned_not_only_noted_in_the_page(tmp_path):
    from artidyn.viewer import ViewerWarning
    urdf = tmp_path / "arm.urdf"
    urdf.write_text("""<robot name="arm">
  <link name="base"><visual><geometry><mesh filename="missing_base.stl"/></geometry></visual></link>
  <link name="arm"><inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/>
    </inertial><visual><geometry><box size="0.1 0.1 0.5"/></geometry></visual></link>
  <joint name="j" type="revolute"><parent link="base"/><child link="arm"/><axis xyz="0 0 1"/>
    <limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
</robot>""")
    model = ad.load_urdf(urdf)
    with pytest.warns(ViewerWarning, match=r"1 visual\(s\) not drawn: visual of link 'base': .*missing_base.stl"):
        page = view(model, None, tmp_path / "arm.html")
    _, data = scene_data(page)
    assert any("missing_base.stl" in n for n in data["notes"])
