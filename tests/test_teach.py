"""The live teach pendant (viser): the scene nodes sit at the body placements, the sliders drive the
configuration, and the command line serves it until Ctrl-C."""
import math
import signal
import socket
import subprocess
import sys
import time

import numpy as np
import pytest

import artidyn as ad
from artidyn.errors import InputError
from artidyn.models.erd import example_robot

viser = pytest.importorskip("viser")  # a test dependency: ARTIDYN_REQUIRE_PEERS turns a skip into a failure


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def assert_nodes_at(pendant, q):
    T = ad.body_placements(pendant.model, q)
    for i, node in enumerate(pendant.nodes):
        np.testing.assert_allclose(node.position, T[i, :3, 3], atol=1e-12)
        w, x, y, z = node.wxyz
        np.testing.assert_allclose(ad.spatial.rotations.quat_to_matrix([x, y, z, w]), T[i, :3, :3], atol=1e-12)


@pytest.fixture
def solo():
    from artidyn.viewer.teach import teach
    pendant = teach(example_robot("solo12"), port=free_port())
    yield pendant
    pendant.close()


def test_nodes_follow_set_q_and_the_sliders(solo):
    model = solo.model
    q = ad.random_configuration(model, 4)
    solo.set_q(q)
    np.testing.assert_allclose(solo.q, q, atol=0)
    assert_nodes_at(solo, q)
    # a knee slider (degrees) moves that joint only, and the bodies with it
    knee = next(s for s in solo.sliders if s.label == "FL_KFE")
    target = knee.handle.value - 20.0
    knee.handle.value = target
    moved = q.copy()
    moved[knee.index] = math.radians(target)
    np.testing.assert_allclose(solo.q, moved, atol=1e-12)
    assert_nodes_at(solo, moved)
    # the base's yaw slider turns the base about z
    yaw = next(s for s in solo.sliders if s.label.endswith(" yaw"))
    before = ad.frame_placement(model, solo.q, model.body_names[1])
    yaw.handle.value = yaw.handle.value + 30.0
    after = ad.frame_placement(model, solo.q, model.body_names[1])
    rel = before[:3, :3].T @ after[:3, :3]
    assert np.linalg.norm(rel - np.eye(3)) > 0.1
    assert_nodes_at(solo, solo.q)


def test_sliders_cover_the_joints_within_their_limits(solo):
    model = solo.model
    labels = [s.label for s in solo.sliders]
    assert len(labels) == 12 + 6 and labels[6:] == list(model.joint_names[2:])
    for s in solo.sliders[6:]:
        k = s.index
        assert s.handle.min == pytest.approx(math.degrees(model.lower[k]))
        assert s.handle.max == pytest.approx(math.degrees(model.upper[k]))


def test_a_model_with_meshes_and_one_without(tmp_path):
    from artidyn.viewer.teach import teach
    ur5 = example_robot("ur5_robot")
    pendant = teach(ur5, port=free_port())
    try:
        names = pendant.shapes
        assert sum("/visual" in n for n in names) >= 6, names   # the URDF's meshes, one per link at least
        assert_nodes_at(pendant, ad.neutral(ur5))
    finally:
        pendant.close()
    dh = ad.load("puma560")                                      # a DH table: no shapes, the skeleton
    pendant = teach(dh, port=free_port())
    try:
        assert pendant._rods and [s.label for s in pendant.sliders] == list(dh.joint_names[1:])
    finally:
        pendant.close()


def test_without_viser_the_error_says_what_to_install(monkeypatch):
    from artidyn.viewer.teach import teach
    monkeypatch.setitem(sys.modules, "viser", None)
    with pytest.raises(InputError, match="pip install viser"):
        teach(ad.load("puma560"))


@pytest.mark.parametrize("sig, inherited", [(signal.SIGINT, signal.SIG_DFL), (signal.SIGINT, signal.SIG_IGN),
                                             (signal.SIGTERM, signal.SIG_DFL)])
def test_cli_serves_until_interrupted(tmp_path, sig, inherited):
    # SIGINT ignored at start is what a process started in the background by a non-interactive shell
    # inherits (a CI script, `cmd &`): the server still stops on Ctrl-C. stderr to a file, not a pipe
    # nobody reads while the server runs.
    port = free_port()
    with open(tmp_path / "stderr.txt", "w+") as err:
        proc = subprocess.Popen([sys.executable, "-m", "artidyn", "view", "puma560", "--teach", "--port", str(port)],
                                stdout=subprocess.PIPE, stderr=err, text=True,
                                preexec_fn=lambda: signal.signal(signal.SIGINT, inherited))
        try:
            line = ""
            deadline = time.time() + 120
            while "teach pendant" not in line and time.time() < deadline:
                line = proc.stdout.readline()
                if not line and proc.poll() is not None:
                    break
            assert f"http://127.0.0.1:{port}" in line, (line, (tmp_path / "stderr.txt").read_text())
            with socket.create_connection(("127.0.0.1", port), timeout=10):
                pass                                                  # the server answers
            proc.send_signal(sig)
            try:
                status = proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                raise AssertionError(f"the server did not stop within 60 s of signal {sig}: "
                                     + (tmp_path / "stderr.txt").read_text()[-2000:]) from None
            assert status == 0, (tmp_path / "stderr.txt").read_text()[-2000:]
        finally:
            if proc.poll() is None:
                proc.kill()
            proc.stdout.close()
