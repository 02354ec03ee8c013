"""Fuzzing the model readers (issue 17): mutations of real example-robot-data URDFs and random
Denavit-Hartenberg tables, with fixed seeds and a bounded number of cases.

Every outcome must be a Model whose dynamics are finite at rest, or a clear artidyn error
(ParseError, ModelError, InputError); never another exception (ZeroDivisionError, LinAlgError,
RecursionError, TypeError ...), never a hang: each case runs under an alarm of CASE_SECONDS (a
bound that turns a hang into a failure, not a timing assertion).
"""
import copy
import math
import signal
import warnings
import xml.etree.ElementTree as ET

import numpy as np
import pytest

import artidyn as ad
from artidyn.errors import InputError, ModelError, ParseError

CLEAR = (ParseError, ModelError, InputError)
CASE_SECONDS = 20
URDF_ROBOTS = ("ur5_robot", "double_pendulum", "panda", "solo12", "TwoDofs")
URDF_CASES = 200
DH_CASES = 200
BAD_NUMBERS = ("1e308", "-1e308", "1e400", "nan", "NaN", "inf", "-inf", "1e-320", "0", "-1", "-0", "garbage", "",
               " ", "1 2", "1_5", "\u0661", "\uff11", "0x10", "1,5", "${x}", "1e", "+", "9" * 400, "1e-300")


class Hang(Exception):
    pass


def _alarm(signum, frame):
    raise Hang(f"a reader ran longer than {CASE_SECONDS} s")


def outcome(fn):
    """'model', or the name of the clear error; anything else fails the test with the case."""
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(CASE_SECONDS)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            m = fn()
            tau = ad.rnea(m, ad.neutral(m), np.zeros(m.nv), np.zeros(m.nv))   # finite in, finite out
            assert np.all(np.isfinite(tau)), f"non-finite gravity torques {tau}"
            return "model"
    except CLEAR as exc:
        assert str(exc), "an error without a message"
        return type(exc).__name__
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def _robots():
    try:
        from artidyn.models.erd import example_robot_path
        return {name: example_robot_path(name).read_bytes() for name in URDF_ROBOTS}
    except Exception as exc:  # noqa: BLE001
        from peers import require
        require("example_robot_data", f"example-robot-data URDFs not readable ({exc})")


def _elements(root):
    out = []
    stack = [(root, None)]
    while stack:
        el, parent = stack.pop()
        out.append((el, parent))
        stack.extend((c, el) for c in el)
    return out


def mutate(data, rng):
    """One random mutation of a URDF (bytes): delete / duplicate / rename an element, change or
    drop an attribute, change a joint type, cut the file, or insert bytes."""
    kind = rng.integers(9)
    if kind == 7:  # cut the file anywhere
        return data[:int(rng.integers(len(data)))], "cut"
    if kind == 8:  # insert a few random bytes
        k = int(rng.integers(len(data)))
        return data[:k] + bytes(rng.integers(0, 256, int(rng.integers(1, 4))).tolist()) + data[k:], "bytes"
    root = ET.fromstring(data)
    items = _elements(root)
    el, parent = items[int(rng.integers(len(items)))]
    if kind == 0 and parent is not None:
        parent.remove(el)
        what = f"delete <{el.tag}>"
    elif kind == 1 and parent is not None:
        parent.append(copy.deepcopy(el))
        what = f"duplicate <{el.tag}>"
    elif kind == 2:
        el.tag = str(rng.choice(["link", "joint", "inertial", "origin", "mass", "robot", "geometry", "limit", "x"]))
        what = f"rename to <{el.tag}>"
    elif kind in (3, 4) and el.attrib:
        key = str(rng.choice(sorted(el.attrib)))
        if kind == 3:
            vals = el.attrib[key].split()
            bad = str(rng.choice(BAD_NUMBERS))
            if vals:
                vals[int(rng.integers(len(vals)))] = bad
            el.attrib[key] = " ".join(vals) if vals else bad
            what = f"<{el.tag} {key}={el.attrib[key][:20]!r}>"
        else:
            del el.attrib[key]
            what = f"drop {key} of <{el.tag}>"
    elif kind == 5:
        joints = [e for e, _ in items if e.tag == "joint"]
        if joints:
            j = joints[int(rng.integers(len(joints)))]
            j.attrib["type"] = str(rng.choice(["revolute", "continuous", "prismatic", "fixed", "floating", "planar",
                                              "ball", ""]))
        what = "joint type"
    else:
        el.attrib["name"] = str(rng.choice(["", "a\nb", "world", "base_link", "x" * 300, "dup"]))
        what = f"name of <{el.tag}>"
    return ET.tostring(root), what


def test_mutated_example_robot_data_urdfs():
    robots = _robots()
    rng = np.random.default_rng(20261203)
    names = sorted(robots)
    seen = {}
    for case in range(URDF_CASES):
        name = names[case % len(names)]
        data = robots[name]
        for _ in range(int(rng.integers(1, 4))):   # one to three mutations on top of each other
            try:
                data, what = mutate(data, rng)
            except ET.ParseError:                     # a cut file cannot be mutated further
                break
        floating = bool(rng.integers(2))
        try:
            res = outcome(lambda: ad.load_urdf(data, floating_base=floating, collisions=False))
        except Exception as exc:  # noqa: BLE001  (report the case)
            pytest.fail(f"case {case} ({name}, last mutation: {what}): {type(exc).__name__}: {exc}")
        seen[res] = seen.get(res, 0) + 1
    assert len(seen) >= 2, seen        # the mutations do reach both outcomes


def _random_value(rng, kind):
    r = rng.integers(12)
    if r == 0:
        return float(rng.choice([1e308, -1e308, 1e200, 1e-320, 0.0, -1.0]))
    if r == 1:
        return float(rng.choice([math.nan, math.inf, -math.inf]))
    if r == 2:
        return str(rng.choice(["0.1", "false", "", "a\nb", "90"]))
    if r == 3:
        return [float(x) for x in rng.normal(size=int(rng.integers(0, 5)))]
    if r == 4:
        return bool(rng.integers(2))
    if r == 5:
        return None
    if r == 6:
        return int(rng.choice([0, 1, 90, 10 ** 400, -5]))
    if r == 7:
        return {"ixx": 1.0, "bad": 2.0}
    if r == 8:
        return [[1.0, 0, 0], [0, 1.0, 0]]
    return float(rng.normal() * (180 if kind == "angle" else 1))


ROW_KEYS = {"a": "length", "alpha": "angle", "d": "length", "theta": "angle", "mass": "mass", "com": "vec",
            "inertia": "inertia", "lower": "angle", "upper": "angle", "velocity": "x", "effort": "x",
            "damping": "x", "armature": "x", "coulomb": "x", "actuated": "bool", "name": "name",
            "joint_name": "name", "joint": "type"}


def random_row(rng):
    row = {"a": float(rng.normal()), "alpha": float(rng.uniform(-3, 3)), "d": float(rng.normal()),
           "theta": float(rng.uniform(-3, 3)), "joint": str(rng.choice(["revolute", "prismatic"])),
           "mass": float(rng.uniform(0.1, 5)), "com": rng.normal(size=3).tolist(),
           "inertia": rng.uniform(0.01, 0.1, 3).tolist()}
    for _ in range(int(rng.integers(0, 3))):
        key = str(rng.choice(list(ROW_KEYS) + ["bogus"]))
        if rng.integers(4) == 0:
            row.pop(key, None)
        else:
            row[key] = _random_value(rng, ROW_KEYS.get(key, "x"))
    return row


def test_random_dh_tables():
    rng = np.random.default_rng(17)
    seen = {}
    for case in range(DH_CASES):
        rows = [random_row(rng) for _ in range(int(rng.integers(1, 8)))]
        if rng.integers(10) == 0:
            rows.append(_random_value(rng, "x"))           # a row that is not a mapping
        conv = str(rng.choice(["classic", "modified", "mdh", "sideways"]))
        unit = str(rng.choice(["rad", "deg", "grad"])) if rng.integers(4) == 0 else None
        try:
            res = outcome(lambda: ad.from_dh(rows, convention=conv, angle_unit=unit))
        except Exception as exc:  # noqa: BLE001
            pytest.fail(f"case {case} (rows {rows!r:.300}, convention {conv}): {type(exc).__name__}: {exc}")
        seen[res] = seen.get(res, 0) + 1
    assert len(seen) >= 2, seen


def test_cut_and_corrupted_dh_files(tmp_path):
    """A real table file (the Puma 560), cut anywhere or with random bytes, in TOML and YAML."""
    from artidyn.io.dh import to_toml
    text = to_toml(ad.models.puma560()).encode()
    rng = np.random.default_rng(5)
    yaml = None
    try:
        import yaml
    except ImportError:
        pass
    for case in range(40):
        k = int(rng.integers(len(text)))
        data = text[:k] if case % 2 else text[:k] + bytes(rng.integers(0, 256, 3).tolist()) + text[k:]
        path = tmp_path / f"c{case}.toml"
        path.write_bytes(data)
        try:
            outcome(lambda: ad.load(str(path)))
        except Exception as exc:  # noqa: BLE001
            pytest.fail(f"TOML case {case}: {type(exc).__name__}: {exc}")
        if yaml is not None:
            ypath = tmp_path / f"c{case}.yaml"
            spec = {"convention": "classic", "joints": [dict(r) for r in ad.models.puma560().dh]}
            ytext = yaml.safe_dump(spec).encode()
            ypath.write_bytes(ytext[:int(rng.integers(len(ytext)))])
            try:
                outcome(lambda: ad.load(str(ypath)))
            except Exception as exc:  # noqa: BLE001
                pytest.fail(f"YAML case {case}: {type(exc).__name__}: {exc}")
