"""Peers of the test suite (pinocchio, the Robotics Toolbox, example-robot-data ...): skip when
missing on a developer's machine, fail when CI says they must be there.

``.ci/run`` sets ``ARTIDYN_REQUIRE_PEERS=1`` (the test extra installs every peer), so a peer that
fails to import makes the suite fail instead of skipping silently. Use::

    from peers import require
    pin = require("pinocchio")            # module level or inside a test

instead of ``pytest.importorskip("pinocchio")``, and :func:`nonempty` for a parametrisation
over "all robots", which must not pass vacuously when it finds none.

Without editing every test file, ``conftest.py`` can import the two hooks below
(``from peers import pytest_make_collect_report, pytest_runtest_makereport  # noqa: F401``):
with ``ARTIDYN_REQUIRE_PEERS=1`` they turn every skip whose reason names a peer (a failed
``importorskip("pinocchio")``, "example-robot-data not installed", an empty parameter set of
"all robots" ...) into a failure, at collection (module-level importorskip) and in tests.
"""
import importlib
import os

import pytest

ENV = "ARTIDYN_REQUIRE_PEERS"


def peers_required():
    """True when missing peers are errors (``ARTIDYN_REQUIRE_PEERS`` set to anything but '', '0')."""
    return os.environ.get(ENV, "") not in ("", "0")


def require(module, reason=None):
    """The imported ``module``; if it cannot be imported: a skip, or, when peers are required, a
    test failure naming the module and the import error."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        why = reason or f"{module} not importable ({type(exc).__name__}: {exc})"
        if peers_required():
            pytest.fail(f"{why}; {ENV} is set, so the peers of the test suite must be installed", pytrace=False)
        pytest.skip(why, allow_module_level=True)


def nonempty(items, what):
    """``items`` as a list; a list that is empty fails (a test over "all robots" that finds none
    would pass vacuously)."""
    items = list(items)
    if not items:
        raise RuntimeError(f"no {what} found: a test over all of them would pass vacuously")
    return items


# reasons of skips that mean "a peer is missing" (lower case); with ARTIDYN_REQUIRE_PEERS they fail
PEER_SKIPS = ("pinocchio", "roboticstoolbox", "example-robot-data", "example_robot_data", "artidyn.models.erd",
              "empty parameter set", "not available")


def peer_skip_reason(report):
    """The skip reason of ``report`` when it names a missing peer, else None."""
    if not report.skipped:
        return None
    longrepr = report.longrepr
    text = longrepr[2] if isinstance(longrepr, tuple) and len(longrepr) == 3 else str(longrepr)
    return text if any(w in text.lower() for w in PEER_SKIPS) else None


def _fail(report, reason):
    report.outcome = "failed"
    report.longrepr = f"{reason} ({ENV} is set: the peers of the test suite must be installed, not skipped)"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    reason = peer_skip_reason(report) if peers_required() else None
    if reason:
        _fail(report, reason)


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector):
    outcome = yield
    report = outcome.get_result()
    reason = peer_skip_reason(report) if peers_required() else None
    if reason:
        _fail(report, reason)
