"""Hostile inputs that still got through after round 2 (issue #35 items 2-6), found by an audit of
the public entry points: each was silent (accepted and ignored or misread), crashed in numpy's
or Python's words, or hung. Every case now raises an artidyn error (or ConnectionError) whose
message names the function and the argument. One section per package."""
import socket
import threading
import time
import tomllib

import numpy as np
import pytest

import artidyn as ad
from artidyn import servo
from artidyn.constraints import Coupling, FramePath, Holonomic, JointPath, KnifeEdge, Point, constrained_dynamics
from artidyn.errors import InputError, ParseError, ShapeError
from artidyn.sim import PD, ComputedTorque

Q2 = np.array([0.3, -0.2])


@pytest.fixture(scope="module")
def arm():
    return ad.models.planar_2r()


# --- the smooth engine ------------------------------------------------------------------------------

@pytest.mark.parametrize("kw, error, match", [
    (dict(tau=lambda s, q: np.zeros(2)), InputError,                     # TypeError out of the loop
     r"tau must be a function tau\(t, q, v\) .*called with 3 or 4 positional argument\(s\); <lambda>\(s, q\)"),
    (dict(f_ext=lambda s: np.zeros((3, 6))), InputError, r"f_ext must be a function f_ext\(t, q, v\)"),
    (dict(dt=True), InputError, r"simulate: dt must be a positive finite number of seconds, got True"),   # was dt = 1
    (dict(controller=PD(-10.0, 1.0, Q2)), InputError,                   # ran, pushing away from q_ref
     r"PD: kp must be >= 0 \(a negative gain drives away from the reference\), got -10 for dof 0"),
    (dict(controller=ComputedTorque(10.0, [1.0, -1.0], Q2)), InputError, r"ComputedTorque: kd must be >= 0 .* dof 1"),
    (dict(controller=PD("a", 1.0, Q2)), InputError,                     # could not convert string to float
     r"PD: kp must be a number or 2 numbers \(gains\), got str 'a'"),
])
def test_simulate_refuses_bad_functions_steps_and_gains(arm, kw, error, match):
    with pytest.raises(error, match=match):
        ad.simulate(arm, Q2, np.zeros(2), t_final=0.01, **{"dt": 1e-3, **kw})


def test_a_python_torque_of_three_arguments_still_runs(arm):
    def tau(t, q, v, *rest):
        return -v
    r = ad.simulate(arm, Q2, np.zeros(2), tau=tau, t_final=0.01, dt=1e-3)
    assert r.t.size == 11


# --- constraints ------------------------------------------------------------------------------------

@pytest.mark.parametrize("make, match", [
    (lambda: Point(["tool"]), r"Point: frame_a must be the name \(str\) or the index \(int\) of a frame, got list"),
    (lambda: Point("tool", 2.5), r"Point: frame_b must be the name .* got float 2.5"),
    (lambda: Coupling(1.5, "joint2"), r"Coupling: joint_a must be the name .* of a joint, got float 1.5"),
    (lambda: Coupling("joint1", True), r"Coupling: joint_b must be .* got bool True"),
    (lambda: KnifeEdge({"frame": "tool"}), r"KnifeEdge: frame must be the name"),
    (lambda: JointPath(None, np.sin), r"JointPath: joint must be the name"),
    (lambda: FramePath(("tool",), np.sin), r"FramePath: frame must be the name"),
])
def test_constraints_refuse_what_cannot_name_a_frame_or_joint(make, match):
    """A list was accepted and failed at first use as 'unhashable type'; a float joint was taken as
    a number."""
    with pytest.raises(InputError, match=match):
        make()


def test_user_functions_returning_text_are_named(arm):
    z = np.zeros(2)
    with pytest.raises(InputError, match=r"Holonomic loop: phi\(q\) must be numbers .*got str 'x'"):
        constrained_dynamics(arm, Q2, z, z, [Holonomic(lambda q: "x", name="loop")])
    with pytest.raises(InputError, match=r"joint1 on its path: the target .* at t = 0.0 must be 1 numbers, got str"):
        constrained_dynamics(arm, Q2, z, z, [JointPath("joint1", lambda s: "up")])
    with pytest.raises(InputError, match=r"constraints must be a constraint or a list of them, got str 'model'; the "
                                         r"model's declared ones: artidyn.constraints.from_model"):
        constrained_dynamics(arm, Q2, z, z, "model")                   # its letters were taken as constraints


# --- servo problems ---------------------------------------------------------------------------------

def _problem():
    import sympy as sp
    from sympy.physics.mechanics import dynamicsymbols
    t = sp.Symbol("t")
    x, y = dynamicsymbols("x y")
    return servo.ServoProblem([x, y], (x.diff(t) ** 2 + y.diff(t) ** 2) / 2, 9.81 * y, servo=[x - sp.sin(t)],
                              directions=[[1, 0]], name="p")


def test_servo_problem_states_and_rates_are_named():
    prob = _problem()
    with pytest.raises(InputError, match=r"ServoProblem \(p\): q must be 2 real numbers \(the coordinates\), got str"):
        prob.simulate("ab", [1.0, 0.0], 1.0, 0.1)                      # could not convert string to float
    with pytest.raises(InputError, match=r"ServoProblem \(p\): stabilization must be a finite real number, got str"):
        prob.accelerations([0.0, 0.0], [1.0, 0.0], 0.0, stabilization="x")    # data type must provide an itemsize
    with pytest.raises(InputError, match=r"ServoProblem \(p\): t must be a finite real number, got float nan"):
        prob.accelerations([0.0, 0.0], [1.0, 0.0], np.nan)


def test_model_servo_torques_and_directions(arm):
    circle = FramePath("tool", lambda s: np.array([1.2 + 0.25 * np.cos(s), 0.3 + 0.25 * np.sin(s), 0.0]))
    start = ad.assemble(arm, np.array([0.3, 1.0]), [circle])
    prob = servo.ModelServo(arm, [circle])
    by_name = servo.ModelServo(arm, [JointPath("joint2", np.sin)], directions="joint1")      # was 'j', 'o', 'i' ...
    np.testing.assert_array_equal(by_name.D, [[1.0, 0.0]])
    with pytest.raises(ShapeError, match=r"ModelServo.accelerations: tau must be 2 numbers, got 5"):
        prob.accelerations(start.q, start.v, tau=np.zeros(5))          # operands could not be broadcast
    with pytest.raises(InputError, match=r"ModelServo.simulate: tau contains NaN"):         # blamed v
        prob.simulate(start.q, start.v, 0.01, 1e-3, tau=np.full(2, np.nan))
    kw = dict(t_final=0.01, dt=1e-3, servo=prob)
    with pytest.raises(InputError, match=r"simulate with servo-constraints: tau must be constant torques .* got a "
                                         r"function"):                  # float() argument must be ... 'function'
        ad.simulate(arm, start.q, start.v, tau=lambda t, q, v: q, **kw)
    with pytest.raises(InputError, match=r"simulate with servo=: f_ext not supported"):        # silently ignored
        ad.simulate(arm, start.q, start.v, f_ext=np.ones((3, 6)), **kw)
    with pytest.raises(InputError, match=r"simulate with servo=: record_every, method not supported"):
        ad.simulate(arm, start.q, start.v, record_every=2, method="semi-implicit", **kw)


# --- readers and writers ----------------------------------------------------------------------------

URDF = ('<robot name="r"><link name="base"/><link name="arm"><inertial><mass value="1"/><inertia ixx="0.1" '
        'ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/></inertial></link><joint name="j1" type="revolute">'
        '<parent link="base"/><child link="arm"/><axis xyz="0 0 1"/><limit lower="-1" upper="1" effort="1" '
        'velocity="1"/></joint></robot>')


@pytest.mark.parametrize("call, match", [
    (lambda: ad.load_urdf(URDF, floating_base="yes"), r"load_urdf: floating_base must be True or False, got str"),
    (lambda: ad.load_urdf(URDF, strict="no"), r"load_urdf: strict must be True or False, got str 'no'"),  # was strict
    (lambda: ad.load_urdf(URDF, collisions=None), r"load_urdf: collisions must be True or False"),
    (lambda: ad.load_mjcf("<mujoco/>", strict="false"), r"load_mjcf: strict must be True or False"),
    (lambda: ad.load("planar2r", floating_base="no"), r"load: floating_base \(or None\) must be True or False"),
])
def test_reader_flags_are_booleans(call, match):
    """A string flag was truthy: strict="no" ran strict, floating_base="no" added a free joint."""
    with pytest.raises(InputError, match=match):
        call()


def test_srdf_unknown_link_suggests_the_closest(tmp_path):
    from test_srdf import two_links

    from artidyn.io.srdf import apply_srdf
    f = tmp_path / "two.srdf"
    f.write_text('<robot name="two"><disable_collisions link1="l1" link2="l33" reason="x"/></robot>')
    with pytest.raises(ParseError, match=r"two.srdf:1: link 'l33' is not in model 'two'; did you mean 'l3'\?"):
        apply_srdf(two_links(), f)
    f.write_text('<robot name="two"><disable_collisions link1="l1" link2="gripper_finger" reason="x"/></robot>')
    with pytest.raises(ParseError, match=r"link 'gripper_finger' is not in model 'two' \(its links: .*'?l1"):
        apply_srdf(two_links(), f)


def test_dh_table_writer_escapes_control_characters(tmp_path):
    """A newline in a model name ended the TOML string: the file no longer parsed (or, with the
    right payload, grew keys of its own)."""
    from artidyn.io.dh import from_dh, to_toml
    rx = ad.models.rx90()
    hostile = rx.replace(name='rx90\nmass = 1e9\n[[joint]]\x00"\\\x7f')
    text = to_toml(hostile, header="line one\nline\x1btwo")
    data = tomllib.loads(text)                                 # parses, and holds the name as it was
    assert data["name"] == hostile.name and len(data["joint"]) == 6
    assert text.startswith("# line one\n# line\\x1btwo\n")
    (tmp_path / "rx.toml").write_text(text, encoding="utf-8")
    with pytest.raises(ParseError, match=r"rx.toml: name must be a non-empty string without control characters"):
        from_dh(tmp_path / "rx.toml")                          # the reader's own refusal, not a TOML syntax error
    quoted = rx.replace(name='rx "90" \\ é')
    (tmp_path / "rx.toml").write_text(to_toml(quoted), encoding="utf-8")
    back = from_dh(tmp_path / "rx.toml")
    assert back.name == quoted.name
    np.testing.assert_allclose(ad.crba(back, np.full(6, 0.3)), ad.crba(rx, np.full(6, 0.3)), atol=1e-12)


# --- viewer -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("kw, match", [
    (dict(camera="top"), r"view: camera must be a dict .* got str 'top'"),           # dictionary update sequence
    (dict(camera={"azimuth": np.nan}), r"view: camera\['azimuth'\] \(degrees\) must be a finite real number"),
    (dict(camera={"zoom": 2}), r"view: camera has no key 'zoom'"),                  # silently ignored
    (dict(camera={"target": [0, 0]}), r"view: camera\['target'\] \(a point in the world, m\) must be 3 numbers"),
    (dict(camera={"distance": -1}), r"view: camera\['distance'\] \(m\) must be > 0, got -1"),
    (dict(visuals="yes"), r"view: visuals must be True or False, got str 'yes'"),
    (dict(autoplay="no"), r"view: autoplay must be True or False"),                 # "no" played
    (dict(grid=[]), r"view: grid must be True or False"),
    (dict(speed=True), r"view: speed must be a finite real number, got bool True"),
])
def test_view_checks_camera_layers_and_flags(arm, tmp_path, kw, match):
    from artidyn.viewer import view
    with pytest.raises((InputError, ShapeError), match=match):
        view(arm, Q2, tmp_path / "v.html", **kw)
    assert not (tmp_path / "v.html").exists()


def test_view_checks_its_model_path_and_run(arm, tmp_path):
    from artidyn.viewer import view
    with pytest.raises(InputError, match=r"view: model must be an artidyn Model .* got str 'planar2r'"):
        view("planar2r", Q2, tmp_path / "v.html")                      # 'str' object has no attribute 'nq'
    with pytest.raises(InputError, match=r"view: path '.*' is a folder; give a file name such as"):
        view(arm, Q2, tmp_path)                                        # IsADirectoryError
    with pytest.raises(InputError, match=r"view: path '.*x.html': the folder '.*no' does not exist"):
        view(arm, Q2, tmp_path / "no" / "x.html")                      # FileNotFoundError after the work
    run = ad.simulate(arm, Q2, t_final=0.02, dt=1e-3)
    with pytest.raises(InputError, match=r"view: run=3 but the result holds one run"):
        view(arm, run, tmp_path / "v.html", run=3)                     # silently showed run 0
    with pytest.raises(InputError, match=r"view: q: configuration 1 holds NaN"):
        view(arm, np.array([Q2, [np.nan, 0.0]]), tmp_path / "v.html")
    assert view(arm, run, tmp_path / "v.html", camera={"azimuth": 10, "target": (0, 0, 0.5), "distance": 3.0})


# --- distributed ------------------------------------------------------------------------------------

def _server(reply):
    """A local TCP server that answers every connection with ``reply`` (b"": says nothing)."""
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(8)
    held = []

    def serve():
        while True:
            try:
                conn, _ = srv.accept()
            except OSError:
                return
            held.append(conn)
            if reply:
                conn.sendall(reply)
    threading.Thread(target=serve, daemon=True).start()
    return srv, held


@pytest.mark.parametrize("reply, match", [
    (b"", r"no Dask scheduler answered at 'tcp://127.0.0.1:\d+' within 0.5 s"),       # hung until the peer closed
    (b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n" * 3,
     r"what answers at 'tcp://127.0.0.1:\d+' is not a Dask scheduler \(its reply could not be read: MemoryError\)"),
    (b"\xff" * 64, r"is not a Dask scheduler \(its reply could not be read"),
])
def test_client_gives_up_on_a_port_that_is_no_scheduler(reply, match):
    """Dask bounds the TCP connection by its timeout, then waits for the handshake without limit: a
    silent port hung the client; a web server's reply made it try to allocate 3 EiB."""
    pytest.importorskip("distributed")
    import artidyn.distributed as dist
    srv, held = _server(reply)
    start = time.perf_counter()
    try:
        with pytest.raises(ConnectionError, match=match):
            dist.client(address=f"tcp://127.0.0.1:{srv.getsockname()[1]}", timeout=0.5)
    finally:
        srv.close()
        for conn in held:
            conn.close()
    assert time.perf_counter() - start < 5.0


@pytest.mark.parametrize("kw, match", [
    (dict(address=8786), r"client: address must be a scheduler address such as 'tcp://host:8786', got int 8786"),
    (dict(address="nonsense://x"), r"client: address 'nonsense://x' is not a Dask scheduler address \(unknown "
                                   r"address scheme"),
    (dict(address="tcp://127.0.0.1"), r"client: address 'tcp://127.0.0.1' is not .*missing port number"),
    (dict(address="tcp://127.0.0.1:1", timeout=True), r"client: timeout \(seconds\) must be a finite real number, "
                                                       r"got bool True"),
    (dict(threads_per_worker="x"), r"client: threads_per_worker must be a whole number >= 1, got str 'x'"),
    (dict(threads_per_worker=0), r"client: threads_per_worker must be >= 1, got 0"),      # a ValueError before
    (dict(n_workers=-1), r"client: n_workers must be >= 1, got -1"),                     # started a cluster
    (dict(processes="no"), r"client: processes must be True or False, got str 'no'"),   # started processes
])
def test_client_arguments_are_checked_before_anything_starts(kw, match):
    pytest.importorskip("distributed")
    import artidyn.distributed as dist
    with pytest.raises(InputError, match=match):
        dist.client(**kw)


def test_client_timeout_from_the_environment_is_named(monkeypatch):
    pytest.importorskip("distributed")
    import artidyn.distributed as dist
    monkeypatch.setenv("ARTIDYN_DASK_TIMEOUT", "abc")
    with pytest.raises(InputError, match=r"client: the environment variable ARTIDYN_DASK_TIMEOUT must be a number of "
                                         r"seconds, got 'abc'"):
        dist.client(address="tcp://127.0.0.1:1")


def test_batched_functions_check_model_client_and_chunk(arm):
    pytest.importorskip("distributed")
    import artidyn.distributed as dist
    Z = np.zeros((4, 2))
    with pytest.raises(InputError, match=r"distributed.rnea: model must be an artidyn Model .* got str 'planar2r'"):
        dist.rnea("planar2r", Z, Z, Z)                                 # 'str' object has no attribute 'nq'
    with pytest.raises(InputError, match=r"client must be a dask.distributed.Client .* got str 'tcp://x:1'"):
        dist.rnea(arm, Z, Z, Z, client="tcp://x:1")                    # 'str' object has no attribute 'id'
    with pytest.raises(InputError, match=r"distributed.rollout: chunk \(states per task\) must be >= 1, got 0"):
        dist.rollout(arm, Z, chunk=0, t_final=0.01, dt=1e-3)
    with pytest.raises(InputError, match=r"distributed.rollout: model must be an artidyn Model"):
        dist.rollout(None, Z, t_final=0.01, dt=1e-3)


# --- contact settings -------------------------------------------------------------------------------

def test_contact_settings_joint_limits_is_a_flag():
    from artidyn.contact import ContactSettings
    with pytest.raises(InputError, match=r"ContactSettings: joint_limits must be True or False, got 'yes'"):
        ContactSettings(joint_limits="yes")
    assert ContactSettings(joint_limits=False).joint_limits is False


# --- generated text: CSV columns and the report's prose ---------------------------------------------

def _arm_named(joint_name):
    b = ad.ModelBuilder("named")
    b.add_body("l1", "world", "revolute", joint_name=joint_name, axis=(0, 1, 0), mass=1.0, com=(0.5, 0, 0),
               inertia=np.eye(3) * 0.01)
    b.add_body("l2", "l1", "revolute", joint_name="j2", axis=(0, 1, 0), xyz=(1, 0, 0), mass=1.0, com=(0.5, 0, 0),
               inertia=np.eye(3) * 0.01)
    return b.build()


def test_csv_columns_quote_names_with_commas_and_quotes(tmp_path):
    """A joint named 'j1,"x"' split the header into one column too many: from_csv read every later
    column shifted, silently."""
    model = _arm_named('j1,"x"')
    run = ad.simulate(model, np.array([0.3, 0.1]), t_final=0.01, dt=1e-3)
    path = run.to_csv(tmp_path / "run.csv")
    assert open(path).readline().startswith('t,"q_j1,""x""",q_j2,')
    back = ad.sim.SimulationResult.from_csv(path)
    assert back.q_names == ['j1,"x"', "j2"]
    for name in ("q", "v", "a", "tau"):
        np.testing.assert_array_equal(getattr(back, name), getattr(run, name))
    np.testing.assert_array_equal(back.energy.total, run.energy.total)


def test_report_prose_escapes_joint_names():
    """The free-fall lines named the fastest joint raw: '<img src=x>' was HTML in the Markdown."""
    from artidyn.report import build_report
    b = ad.ModelBuilder("named")
    b.add_body("l1", "world", "revolute", joint_name="<img src=x>", axis=(0, 1, 0), mass=1.0, com=(0.5, 0, 0),
               inertia=np.eye(3) * 0.01)
    text = build_report(b.build(), out_dir=None)
    fenced, outside = False, []
    for line in text.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced:
            outside.append(line)
    assert not any("<img" in line for line in outside)
    assert any(line.startswith("- fastest motion: '&lt;img src=x&gt;' at") for line in outside)


def test_model_servo_not_determined_at_the_start_is_an_input_error(arm):
    """Two driven joints and one servo force: impossible from the start (the loop ran on, using
    least-squares forces, after the former check moved inside it)."""
    prob = servo.ModelServo(arm, [JointPath("joint1", np.sin), JointPath("joint2", np.cos)], directions="joint1")
    q0 = np.array([0.0, 1.0])
    with pytest.raises(InputError, match=r"ModelServo.simulate: the problem is not determined at t = 0 s: impossible"):
        prob.simulate(q0, np.array([1.0, 0.0]), 0.1, 1e-2)
