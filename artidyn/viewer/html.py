"""Scene -> one self-contained HTML page (three.js and the viewer script inlined, data embedded).

The page needs no server and no network: three.js is read from the installed package
``jupyter-threejs-sage`` (a standalone ``three.min.js`` build that includes ``OrbitControls``),
its MIT license notice kept in the page; the viewer script is ours (``js/viewer.js``). The scene
is a JSON block; arrays (meshes, body placements per sample) are base64 little-endian float32 /
uint32, so a page costs about 28 bytes per body and sample, plus its meshes.
"""
import base64
import html
import json
import re
from importlib import resources

import numpy as np

THREE_PACKAGE = "jupyter_threejs_sage"
THREE_VERSION = "r130"
LAYERS = ("visual", "collision", "skeleton", "frames", "com", "contacts")


def _three_file(root):
    """``static/r130/three.min.js`` of the package (the build tested here), else its newest build."""
    static = root / "static"
    preferred = static / THREE_VERSION / "three.min.js"
    if preferred.is_file():
        return preferred, THREE_VERSION
    builds = sorted((int(d.name[1:]), d.name) for d in static.iterdir()
                    if d.name[:1] == "r" and d.name[1:].isdigit() and (d / "three.min.js").is_file())
    if not builds:
        raise ImportError(f"jupyter-threejs-sage ships no three.min.js in {static}")
    return static / builds[-1][1] / "three.min.js", builds[-1][1]


def three_js():
    """``(source, license text, version)`` of the standalone three.js of ``jupyter-threejs-sage``."""
    try:
        root = resources.files(THREE_PACKAGE)
    except ModuleNotFoundError:
        raise ImportError("artidyn.view needs three.js from the package jupyter-threejs-sage "
                          "(pip install jupyter-threejs-sage)") from None
    path, version = _three_file(root)
    src = path.read_text(encoding="utf-8")
    notice = ""
    from importlib.metadata import PackageNotFoundError, distribution
    try:
        dist = distribution("jupyter-threejs-sage")
        for f in dist.files or []:
            if f.name.upper().startswith("LICENSE"):
                notice = f.read_text(encoding="utf-8")
                break
    except PackageNotFoundError:
        pass
    return src, notice or "three.js, Copyright 2010-2021 three.js authors, MIT License", version


def viewer_js():
    return (resources.files("artidyn.viewer") / "js" / "viewer.js").read_text(encoding="utf-8")


def _b64(a, dtype):
    a = np.ascontiguousarray(a, dtype=np.dtype(dtype).newbyteorder("<"))
    return base64.b64encode(a.tobytes()).decode("ascii")


def _parts(parts):
    """[[first triangle, count, rgba or None]] of a mesh's coloured parts; None when it has none."""
    if all(p[2] is None for p in parts):
        return None
    return [[int(a), int(n), None if c is None else [round(float(x), 4) for x in c]] for a, n, c in parts]


def scene_json(scene, show, camera, autoplay, speed):
    """The scene as the JSON object the page reads."""
    data = {
        "name": scene.name, "bodies": scene.body_names, "parent": scene.parent,
        "items": scene.items, "frames": scene.frames, "coms": scene.coms,
        "meshes": [{"vertices": _b64(V, "f4"), "triangles": _b64(F, "u4"), "parts": _parts(parts)}
                   for V, F, parts in scene.meshes],
        "n_frames": scene.n_frames, "n_bodies": len(scene.body_names),
        "t": _b64(scene.t, "f8"), "poses": _b64(scene.poses, "f4"),
        "com_total": None if scene.com_total is None else _b64(scene.com_total, "f4"),
        "contacts": None if scene.contacts is None else {k: _b64(v, "f4" if k != "offsets" else "u4")
                                                         for k, v in scene.contacts.items()},
        "anchor": list(scene.anchor), "show": show, "camera": camera, "autoplay": bool(autoplay),
        "speed": float(speed), "notes": scene.notes,
    }
    return _json_for_html(json.dumps(data, separators=(",", ":"), allow_nan=False))


def _json_for_html(text):
    """JSON with ``< > &`` written as ``\\u003c``...: the same value for JSON.parse, and no name
    (``</Script>``, ``<!--`` in a link name) can end or reshape the <script> element holding it."""
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def default_show(scene, **given):
    """Which layers are on at first: the visuals; the collision shapes when there are no visuals;
    the skeleton when neither; contacts when present. ``given`` (layer: bool or None) overrides."""
    has = {layer: any(it["layer"] == layer for it in scene.items) for layer in ("visual", "collision")}
    show = {"visual": True, "collision": not has["visual"], "skeleton": not (has["visual"] or has["collision"]),
            "frames": False, "com": False, "contacts": scene.contacts is not None}
    for k, v in given.items():
        if v is not None:
            show[k] = bool(v)
    return show


_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="artidyn {version}">
<title>{title}</title>
<style>
html, body {{ margin: 0; height: 100%; overflow: hidden; background: {background};
  font: 13px system-ui, sans-serif; color: #222; }}
#artidyn-view {{ position: absolute; inset: 0; }}
#artidyn-panel {{ position: absolute; top: 8px; left: 8px; background: rgba(255,255,255,0.85);
  padding: 6px 9px; border-radius: 6px; line-height: 1.6; }}
#artidyn-panel b {{ display: block; }}
#artidyn-bar {{ position: absolute; left: 8px; right: 8px; bottom: 8px; display: flex; gap: 8px;
  align-items: center; background: rgba(255,255,255,0.85); padding: 5px 9px; border-radius: 6px; }}
#artidyn-time {{ flex: 1; }}
#artidyn-clock {{ min-width: 9em; text-align: right; font-variant-numeric: tabular-nums; }}
</style>
</head>
<body>
<div id="artidyn-view"></div>
<div id="artidyn-panel"><b>{title}</b>{checkboxes}</div>
<div id="artidyn-bar"{bar_hidden}>
<button id="artidyn-play" type="button">play</button>
<input id="artidyn-time" type="range" min="0" max="{last}" step="1" value="0" aria-label="time sample">
<select id="artidyn-speed" aria-label="speed">{speeds}</select>
<span id="artidyn-clock">t = 0 s</span>
</div>
<script id="artidyn-scene" type="application/json">{data}</script>
<!-- three.js {three_version}, bundled by the PyPI package jupyter-threejs-sage.
{license}-->
<script>{three}</script>
<script>{viewer}</script>
</body>
</html>
"""


def _safe_script(text):
    """Text that cannot close the <script> element it is inlined in (HTML ends it at ``</script``
    in any letter case)."""
    return re.sub(r"</(script)", r"<\\/\1", text, flags=re.IGNORECASE).replace("<!--", "<\\!--")


def page(scene, show=None, camera=None, autoplay=True, speed=1.0, background="#f4f5f7"):
    """The HTML text of the viewer page of ``scene``."""
    from .. import __version__ as version
    show = show or default_show(scene)
    three, notice, three_version = three_js()
    labels = {"visual": "meshes", "collision": "collision shapes", "skeleton": "skeleton",
              "frames": "link frames", "com": "centres of mass", "contacts": "contacts"}
    present = {"visual": any(it["layer"] == "visual" for it in scene.items),
               "collision": any(it["layer"] == "collision" for it in scene.items),
               "contacts": scene.contacts is not None}
    boxes = "".join(
        f'<label><input type="checkbox" data-layer="{k}"{" checked" if show.get(k) else ""}> {labels[k]}</label><br>'
        for k in LAYERS if present.get(k, True))
    speeds = "".join(f'<option value="{s}"{" selected" if s == speed else ""}>{s:g}x</option>'
                     for s in sorted({0.1, 0.25, 0.5, 1.0, 2.0, 4.0, float(speed)}))
    data = _safe_script(scene_json(scene, show, camera or {}, autoplay and scene.n_frames > 1, speed))
    return _PAGE.format(
        version=version, title=html.escape(f"artidyn: {scene.name}"), background=background, checkboxes=boxes,
        bar_hidden="" if scene.n_frames > 1 else ' style="display:none"', last=scene.n_frames - 1,
        speeds=speeds, data=data, three_version=three_version, license=notice.replace("--", "- -"),
        three=_safe_script(three), viewer=_safe_script(viewer_js()))


def write(text, path):
    """Write the page (UTF-8); returns the path."""
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text)
    return path

