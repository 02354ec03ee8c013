"""The robots of the PyPI package ``example-robot-data`` (URDF files; nothing is downloaded).

>>> names = example_robot_names()                 # 'panda', 'solo12', 'talos_full_v2', ...
>>> model = example_robot("solo12")              # floating base (a legged robot)

Names are the URDF file stems; a stem shipped twice (``anymal``, in the ANYmal B and C
packages) is named ``<package folder>/<stem>`` instead (``anymal_c_simple_description/anymal``,
or the short aliases ``anymal_b`` / ``anymal_c``). ``talos`` is ``talos_reduced``, as in the
package's own Python loader. A path to one of the package's URDF files loads the same model as
its name (:func:`name_of_path`).

Reference postures: the robot's SRDF ``<group_state>`` poses are in ``model.postures``
(``model.postures["half_sitting"]`` for Talos, ``"standing"`` for Solo); an SRDF that cannot be
read leaves them empty with a load-report note.

Floating base by default (``floating_base=None``): robots that walk or fly, i.e. whose
description package is one of ``FLOATING_PACKAGES`` (quadrupeds, bipeds, humanoids, drones),
except single limbs of them (``FIXED_EXCEPTIONS``, e.g. ``talos_left_arm``). Arms, hands, pendulums and wheeled robots (TIAGo,
PR2: their wheels are not modelled) are fixed.

The package ships robots with physically invalid inertias (triangle inequality broken, not
positive definite, zero mass with inertia: 18 of the 68 non-empty files in version 6.0.0) and,
for Romeo, massless moving fingers: :func:`example_robot` loads with ``repair=True`` by default, so each repair is
a "repaired" note in ``model.load_report`` (see :func:`artidyn.io.urdf.repaired_inertia`).
"""
import functools
import pathlib

from ..errors import NameNotFound, unknown_name

FLOATING_PACKAGES = frozenset({
    "a1_description", "alexander_description", "anymal_b_simple_description",
    "anymal_c_simple_description", "b1_description", "bolt_description", "borinot_description",
    "centauro_description", "g1_description", "go1_description", "go2_description",
    "hector_description", "hextilt_description", "human_description", "hyq_description",
    "icub_description", "iris_description", "laikago_description", "quadruped_description",
    "romeo_description", "simple_humanoid_description", "solo_description", "talos_data",
})
FIXED_EXCEPTIONS = frozenset({"talos_left_arm"})
ALIASES = {"talos": "talos_reduced", "anymal_b": "anymal_b_simple_description/anymal",
           "anymal_c": "anymal_c_simple_description/anymal"}


@functools.lru_cache(maxsize=1)
def robots_dir():
    """The ``robots`` folder of the installed example-robot-data; ImportError if not installed."""
    from importlib.metadata import PackageNotFoundError, distribution
    try:
        dist = distribution("example-robot-data")
    except PackageNotFoundError:
        raise ImportError("the example robots need the package example-robot-data "
                          "(pip install example-robot-data); artidyn never downloads it") from None
    for f in dist.files or []:
        s = str(f).replace("\\", "/")
        if s.endswith("example-robot-data/package.xml"):
            root = pathlib.Path(dist.locate_file(f)).parent / "robots"
            if root.is_dir():
                return root
    guess = pathlib.Path(dist.locate_file("cmeel.prefix/share/example-robot-data/robots"))
    if guess.is_dir():
        return guess
    raise ImportError(f"example-robot-data {dist.version} is installed but its 'robots' folder was not found")


@functools.lru_cache(maxsize=1)
def _index():
    """{name: path} of every URDF of the package."""
    root = robots_dir()
    paths = sorted(root.rglob("*.urdf"))
    stems = [p.stem for p in paths]
    out = {}
    for p in paths:
        name = p.stem if stems.count(p.stem) == 1 else f"{p.relative_to(root).parts[0]}/{p.stem}"
        out[name] = p
    return out


# the names of example-robot-data 6.0.0, to tell a user without the package that a name is one of its
# robots (and which command installs it) rather than an unknown name
KNOWN_NAMES = frozenset((
    "TwoDofs", "a1", "alex_nub_hands", "alex_psyonic_hands", "alex_sake_hands", "alexander_v1.lowerBodyOnly",
    "allegro_left_hand", "allegro_right_hand", "anymal-kinova", "anymal_b_simple_description/anymal",
    "anymal_c_simple_description/anymal", "b1", "b1-z1", "baxter", "bolt", "borinot_flying_arm_2", "centauro",
    "double_pendulum", "double_pendulum_continuous", "double_pendulum_simple", "finger_edu", "g1_29dof_rev_1_0",
    "g1_29dof_with_hand_rev_1_0", "go1", "go2", "hextilt_flying_arm_5", "human", "hyq_no_sensors", "icub",
    "icub_reduced", "iris", "iris_simple", "kinova", "laikago", "panda", "panda_collision", "pr2", "quadrotor_base",
    "quadruped", "romeo", "romeo_laas_small", "romeo_small", "simple_humanoid", "simple_humanoid_classical", "so100",
    "so101", "solo", "solo12", "talos_full_v2", "talos_full_v2_box", "talos_left_arm", "talos_reduced",
    "talos_reduced_box", "talos_reduced_corrected", "tiago", "tiago_dual", "tiago_no_hand", "tiago_pro",
    "ur10_joint_limited_robot", "ur10_robot", "ur3", "ur3_gripper", "ur3_joint_limited_robot", "ur3_robot",
    "ur5_gripper", "ur5_joint_limited_robot", "ur5_robot", "xarm7", "z1"))
INSTALL_HINT = "pip install example-robot-data"


def example_robot_names():
    """Sorted names of the example-robot-data URDFs (69 in version 6.0.0)."""
    return sorted(_index())


def example_robot_path(name):
    """Path of the URDF file ``name`` (a file stem, or ``<package>/<stem>`` for ambiguous stems)."""
    index = _index()
    name = ALIASES.get(name, name)
    if name in index:
        return index[name]
    twins = [k for k in index if k.endswith(f"/{name}")]
    if twins:
        short = [a for a, full in ALIASES.items() if full in twins]
        raise NameNotFound(f"example robot '{name}' is ambiguous: use one of {', '.join(repr(t) for t in twins)}"
                           + (f" (or {', '.join(repr(a) for a in short)})" if short else ""))
    raise unknown_name("example-robot-data robot", name, list(index))


def name_of_path(path):
    """The name of an example-robot-data URDF file ``path`` (the file itself, wherever it was
    reached from), or None when ``path`` is not one of the package's URDF files (or the package is
    not installed)."""
    try:
        index = _index()
        target = pathlib.Path(path).resolve()
    except (ImportError, OSError):
        return None
    for name, p in index.items():
        if pathlib.Path(p).resolve() == target:
            return name
    return None


def default_floating(name):
    """True when the example robot ``name`` walks or flies (see the module docstring)."""
    path = example_robot_path(name)
    package = path.relative_to(robots_dir()).parts[0]
    return package in FLOATING_PACKAGES and path.stem not in FIXED_EXCEPTIONS


def example_robot_srdf(name):
    """The SRDF of an example-robot-data URDF (its package's ``srdf`` folder: the file named like
    the URDF, else the one whose name starts the URDF's, e.g. solo.srdf for solo12), or None."""
    urdf = pathlib.Path(example_robot_path(name))
    folder = urdf.parent.parent / "srdf"
    if not folder.is_dir():
        return None
    files = sorted(folder.glob("*.srdf"))
    for f in files:
        if f.stem == urdf.stem:
            return f
    prefixed = [f for f in files if urdf.stem.startswith(f.stem)]
    return max(prefixed, key=lambda f: len(f.stem)) if prefixed else None


def example_robot(name, floating_base=None, repair=True, srdf=True, **kwargs):
    """Load an example-robot-data URDF with :func:`artidyn.load_urdf`.

    ``srdf=True`` also reads the robot's SRDF (:func:`example_robot_srdf`) and adds its disabled
    collision pairs to ``model.collision_exclusions`` (the links that touch at rest); an SRDF that
    names links the model lacks (a variant of the robot) is skipped with a load-report note.

    ``floating_base=None`` picks the default of :func:`default_floating`. ``repair=True``
    replaces the package's physically invalid inertias (reported in ``model.load_report``).
    Other keyword arguments (``strict``, ``gravity``, ``collisions``) go to ``load_urdf``; the
    ``<collision>`` shapes (1606 in version 6.0.0, meshes read as convex hulls) are in
    ``model.collisions``.
    """
    from ..io.urdf import load_urdf
    if floating_base is None:
        floating_base = default_floating(name)
    model = load_urdf(example_robot_path(name), floating_base=floating_base, repair=repair, **kwargs)
    path = example_robot_srdf(name) if srdf else None
    if path is not None and model.collisions:
        from ..errors import ParseError
        from ..io.srdf import apply_srdf
        try:
            model = apply_srdf(model, path)
        except ParseError:
            pass    # an SRDF of another variant of the robot (links this URDF lacks): collisions left as read
    if path is not None:
        model = with_postures(model, path)
    shown = display_name(name)
    return model.replace(name=shown) if shown and shown != model.name else model


def display_name(name):
    """The model name of example robot ``name``: the name it was asked by (``solo12``, not its URDF's
    ``solo``, which is also the 8-dof robot's), its alias for the ambiguous stems, or None."""
    name = ALIASES.get(name, name)
    if "/" not in name:
        return name
    short = [alias for alias, full in ALIASES.items() if full == name]
    return short[0] if short else None


def with_postures(model, path):
    """``model`` with the SRDF ``path``'s ``<group_state>`` poses in ``model.postures``; an SRDF
    that cannot be read is a load-report note (postures left as they were), never an error."""
    from ..errors import ArtidynError
    from ..io.srdf import srdf_configurations
    try:
        postures = srdf_configurations(model, path)
    except (ArtidynError, ValueError, OSError) as exc:
        model.load_report.add("ignored", f"SRDF {pathlib.Path(path).name}",
                              f"reference postures not read: {exc}")
        return model
    return model.replace(postures={**model.postures, **postures}) if postures else model


__all__ = ["example_robot", "example_robot_names", "example_robot_path", "default_floating", "name_of_path",
           "robots_dir", "FLOATING_PACKAGES", "FIXED_EXCEPTIONS"]
