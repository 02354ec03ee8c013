// artidyn viewer page: builds a three.js scene from the JSON block "artidyn-scene" and moves
// each body's group by the stored placements (position, quaternion x y z w) of each sample.
// World frame z up. No network access: everything the page needs is inlined.
(function () {
  "use strict";
  const data = JSON.parse(document.getElementById("artidyn-scene").textContent);

  function decode(text, Type) {
    const bin = atob(text);
    const bytes = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    return new Type(bytes.buffer);
  }

  const nb1 = data.n_bodies, nFrames = data.n_frames;
  const times = decode(data.t, Float64Array);
  const poses = decode(data.poses, Float32Array);
  const comTotal = data.com_total ? decode(data.com_total, Float32Array) : null;

  // --- renderer, camera, lights ------------------------------------------------------------
  const container = document.getElementById("artidyn-view");
  const renderer = new THREE.WebGLRenderer({ antialias: true, preserveDrawingBuffer: true });
  renderer.setPixelRatio(window.devicePixelRatio || 1);
  renderer.setClearColor(new THREE.Color(getComputedStyle(document.body).backgroundColor));
  container.appendChild(renderer.domElement);
  const scene = new THREE.Scene();
  const camera = new THREE.PerspectiveCamera(35, 1, 0.001, 1000);
  camera.up.set(0, 0, 1);
  scene.add(camera);
  scene.add(new THREE.HemisphereLight(0xffffff, 0x666677, 0.55));
  const sun = new THREE.DirectionalLight(0xffffff, 0.6);
  sun.position.set(0.5, 1.0, 1.5);  // in the camera frame: light comes from above the viewer
  camera.add(sun);

  // --- layers and bodies -------------------------------------------------------------------
  const layers = {};
  for (const name of ["visual", "collision", "skeleton", "frames", "com", "contacts"]) {
    layers[name] = new THREE.Group();
    layers[name].visible = !!data.show[name];
    scene.add(layers[name]);
  }
  // one group per body and layer, moved together each sample
  const bodyGroups = [];
  for (let i = 0; i < nb1; i++) {
    const g = {};
    for (const name of ["visual", "collision", "frames", "com"]) {
      g[name] = new THREE.Group();
      g[name].matrixAutoUpdate = true;
      layers[name].add(g[name]);
    }
    bodyGroups.push(g);
  }

  function placementMatrix(p) {
    const m = new THREE.Matrix4();
    m.set(p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], p[9], p[10], p[11], p[12], p[13], p[14], p[15]);
    return m;
  }
  function place(obj, p) {
    placementMatrix(p).decompose(obj.position, obj.quaternion, obj.scale);
    return obj;
  }

  const meshGeometries = data.meshes.map(function (m) {
    const g = new THREE.BufferGeometry();
    g.setAttribute("position", new THREE.BufferAttribute(decode(m.vertices, Float32Array), 3));
    g.setIndex(new THREE.BufferAttribute(decode(m.triangles, Uint32Array), 1));
    if (m.parts) m.parts.forEach(function (p, k) { g.addGroup(3 * p[0], 3 * p[1], k); });
    g.computeVertexNormals();
    g.computeBoundingSphere();
    return g;
  });

  const DEFAULT_VISUAL = [0.72, 0.74, 0.78, 1.0], COLLISION = [0.95, 0.55, 0.2, 0.45];
  function material(rgba) {
    const c = new THREE.Color(rgba[0], rgba[1], rgba[2]);
    return new THREE.MeshPhongMaterial({
      color: c, flatShading: true, shininess: 20, side: THREE.DoubleSide,
      transparent: rgba[3] < 1, opacity: rgba[3], depthWrite: rgba[3] >= 1,
    });
  }
  function zCylinder(r, length, mat) {
    const geo = new THREE.CylinderGeometry(r, r, length, 32);
    geo.rotateX(Math.PI / 2);  // three.js cylinders run along y; URDF's along z
    return new THREE.Mesh(geo, mat);
  }
  function shape(it) {
    const rgba = it.rgba || (it.layer === "collision" ? COLLISION : DEFAULT_VISUAL);
    const mat = material(rgba);
    if (it.kind === "mesh") {
      const parts = it.layer === "visual" ? data.meshes[it.mesh].parts : null;
      if (!parts) return new THREE.Mesh(meshGeometries[it.mesh], mat);
      // a COLLADA mesh: one material per coloured part (the item's colour for the others)
      return new THREE.Mesh(meshGeometries[it.mesh], parts.map(function (p) { return p[2] ? material(p[2]) : mat; }));
    }
    if (it.kind === "box") return new THREE.Mesh(new THREE.BoxGeometry(it.size[0], it.size[1], it.size[2]), mat);
    if (it.kind === "sphere") return new THREE.Mesh(new THREE.SphereGeometry(it.radius, 32, 16), mat);
    if (it.kind === "cylinder") return zCylinder(it.radius, it.length, mat);
    if (it.kind === "capsule") {
      const g = new THREE.Group();
      g.add(zCylinder(it.radius, it.length, mat));
      for (const s of [-1, 1]) {
        const ball = new THREE.Mesh(new THREE.SphereGeometry(it.radius, 32, 16), mat);
        ball.position.set(0, 0, s * it.length / 2);
        g.add(ball);
      }
      return g;
    }
    return null;
  }
  for (const it of data.items) {
    const obj = shape(it);
    if (obj) bodyGroups[it.body][it.layer].add(place(obj, it.placement));
  }

  // size of the robot (for axes, balls, rods): from the body origins over the samples
  const box = new THREE.Box3();
  const tmp = new THREE.Vector3();
  const step = Math.max(1, Math.floor(nFrames / 20));
  for (let k = 0; k < nFrames; k += step) {
    for (let i = 0; i < nb1; i++) {
      const o = (k * nb1 + i) * 7;
      box.expandByPoint(tmp.set(poses[o], poses[o + 1], poses[o + 2]));
    }
  }
  const reach = Math.max(box.getSize(tmp).length(), 0.1);

  // frames (axes), centres of mass
  const axisLength = 0.08 * reach;
  for (const f of data.frames) {
    const axes = new THREE.AxesHelper(f.body === 0 && f.name === data.bodies[0] ? 2 * axisLength : axisLength);
    axes.material.depthTest = false;  // seen through the meshes
    axes.renderOrder = 12;
    bodyGroups[f.body].frames.add(place(axes, f.placement));
  }
  const comMat = new THREE.MeshPhongMaterial({ color: 0x111111, depthTest: false, transparent: true, opacity: 0.85 });
  const comGeo = new THREE.SphereGeometry(0.012 * reach, 16, 8);
  for (const c of data.coms) {
    const ball = new THREE.Mesh(comGeo, comMat);
    ball.position.set(c.com[0], c.com[1], c.com[2]);
    ball.renderOrder = 10;
    bodyGroups[c.body].com.add(ball);
  }
  let totalCom = null;
  if (comTotal) {
    totalCom = new THREE.Mesh(new THREE.SphereGeometry(0.025 * reach, 20, 10),
      new THREE.MeshPhongMaterial({ color: 0xd02020, depthTest: false, transparent: true, opacity: 0.9 }));
    totalCom.renderOrder = 11;
    layers.com.add(totalCom);
  }

  // skeleton: a rod from each body origin to its parent's, a ball at each body origin
  const rodMat = material([0.35, 0.45, 0.6, 1.0]), jointMat = material([0.85, 0.45, 0.15, 1.0]);
  const rods = [], balls = [];
  const rodGeo = new THREE.CylinderGeometry(0.015 * reach, 0.015 * reach, 1, 16);
  const ballGeo = new THREE.SphereGeometry(0.03 * reach, 20, 10);
  for (let i = 1; i < nb1; i++) {
    const rod = new THREE.Mesh(rodGeo, rodMat);
    layers.skeleton.add(rod);
    rods.push([i, data.parent[i], rod]);
    const ball = new THREE.Mesh(ballGeo, jointMat);
    layers.skeleton.add(ball);
    balls.push([i, ball]);
  }

  // contacts: pools of balls and arrows, filled per sample
  const contact = data.contacts ? {
    offsets: decode(data.contacts.offsets, Uint32Array),
    points: decode(data.contacts.points, Float32Array),
    forces: decode(data.contacts.forces, Float32Array),
    balls: [], arrows: [],
  } : null;
  let forceScale = 0;
  if (contact) {
    let fmax = 0;
    for (let k = 0; k < contact.forces.length; k += 3) {
      fmax = Math.max(fmax, Math.hypot(contact.forces[k], contact.forces[k + 1], contact.forces[k + 2]));
    }
    forceScale = fmax > 0 ? 0.3 * reach / fmax : 0;
  }
  const contactMat = new THREE.MeshBasicMaterial({ color: 0xd01010, depthTest: false });
  const contactGeo = new THREE.SphereGeometry(0.012 * reach, 12, 6);
  const Y = new THREE.Vector3(0, 1, 0);

  function setRod(rod, a, b) {
    const d = tmp.subVectors(b, a);
    const len = d.length();
    rod.visible = len > 1e-9;
    if (!rod.visible) return;
    rod.position.addVectors(a, b).multiplyScalar(0.5);
    rod.quaternion.setFromUnitVectors(Y, d.normalize());
    rod.scale.set(1, len, 1);
  }

  const pa = new THREE.Vector3(), pb = new THREE.Vector3();
  function setFrame(k) {
    for (let i = 0; i < nb1; i++) {
      const o = (k * nb1 + i) * 7;
      for (const name in bodyGroups[i]) {
        const g = bodyGroups[i][name];
        g.position.set(poses[o], poses[o + 1], poses[o + 2]);
        g.quaternion.set(poses[o + 3], poses[o + 4], poses[o + 5], poses[o + 6]);
      }
    }
    for (const [i, p, rod] of rods) {
      const oi = (k * nb1 + i) * 7, op = (k * nb1 + p) * 7;
      pa.set(poses[op], poses[op + 1], poses[op + 2]);
      pb.set(poses[oi], poses[oi + 1], poses[oi + 2]);
      setRod(rod, pa, pb);
    }
    for (const [i, ball] of balls) {
      const o = (k * nb1 + i) * 7;
      ball.position.set(poses[o], poses[o + 1], poses[o + 2]);
    }
    if (totalCom) totalCom.position.set(comTotal[3 * k], comTotal[3 * k + 1], comTotal[3 * k + 2]);
    if (contact) {
      const a = contact.offsets[k], b = contact.offsets[k + 1];
      for (let j = 0; j < Math.max(b - a, contact.balls.length); j++) {
        if (j >= b - a) {
          contact.balls[j].visible = contact.arrows[j].visible = false;
          continue;
        }
        if (j >= contact.balls.length) {
          const ball = new THREE.Mesh(contactGeo, contactMat);
          const arrow = new THREE.ArrowHelper(Y, new THREE.Vector3(), 1, 0xd01010);
          arrow.line.material.depthTest = arrow.cone.material.depthTest = false;  // seen through the robot
          ball.renderOrder = arrow.renderOrder = 13;
          layers.contacts.add(ball);
          layers.contacts.add(arrow);
          contact.balls.push(ball);
          contact.arrows.push(arrow);
        }
        const c = 3 * (a + j);
        const ball = contact.balls[j], arrow = contact.arrows[j];
        ball.visible = true;
        ball.position.set(contact.points[c], contact.points[c + 1], contact.points[c + 2]);
        const f = new THREE.Vector3(contact.forces[c], contact.forces[c + 1], contact.forces[c + 2]);
        const len = f.length() * forceScale;
        arrow.visible = len > 1e-6;
        if (arrow.visible) {
          arrow.position.copy(ball.position);
          arrow.setDirection(f.normalize());
          arrow.setLength(len, 0.2 * len, 0.1 * len);
        }
      }
    }
  }

  // --- ground grid ---------------------------------------------------------------------------
  const gridSize = Math.pow(10, Math.ceil(Math.log10(2 * reach)));
  const grid = new THREE.GridHelper(gridSize, 20, 0xb8bcc4, 0xdadde2);
  grid.rotateX(Math.PI / 2);  // GridHelper lies in x-z; the ground is the x-y plane
  grid.position.set(data.anchor[0], data.anchor[1], 0);
  if (data.camera.grid !== false) scene.add(grid);

  // --- camera: aim at the anchor (body 1 at sample 0), fit the robot over the samples --------
  const aim = new THREE.Vector3(data.anchor[0], data.anchor[1], 0);
  const full = new THREE.Box3();
  scene.updateMatrixWorld(true);
  for (let k = 0; k < nFrames; k += step) {
    setFrame(k);
    scene.updateMatrixWorld(true);
    for (const name of ["visual", "collision", "skeleton"]) {
      if (layers[name].visible) full.expandByObject(layers[name]);
    }
  }
  if (full.isEmpty()) full.copy(box);
  aim.z = 0.5 * (full.min.z + full.max.z);
  if (data.camera.target) aim.fromArray(data.camera.target);
  let radius = 0;
  for (const x of [full.min.x, full.max.x]) for (const y of [full.min.y, full.max.y]) for (const z of [full.min.z, full.max.z]) {
    radius = Math.max(radius, tmp.set(x, y, z).distanceTo(aim));
  }
  radius = Math.max(radius, 0.05);
  const az = THREE.MathUtils.degToRad(data.camera.azimuth !== undefined ? data.camera.azimuth : 35);
  const el = THREE.MathUtils.degToRad(data.camera.elevation !== undefined ? data.camera.elevation : 20);
  const direction = new THREE.Vector3(Math.sin(az) * Math.cos(el), -Math.cos(az) * Math.cos(el), Math.sin(el));

  const controls = new THREE.OrbitControls(camera, renderer.domElement);
  controls.target.copy(aim);
  controls.enableDamping = false;

  function resize() {
    const w = Math.max(container.clientWidth, 1), h = Math.max(container.clientHeight, 1);
    renderer.setSize(w, h);
    camera.aspect = w / h;
    camera.updateProjectionMatrix();
  }
  resize();
  const vfov = THREE.MathUtils.degToRad(camera.fov);
  const hfov = 2 * Math.atan(Math.tan(vfov / 2) * camera.aspect);
  const distance = data.camera.distance || 1.05 * radius / Math.sin(Math.min(vfov, hfov) / 2);
  camera.position.copy(aim).addScaledVector(direction, distance);
  camera.near = distance / 100;
  camera.far = distance * 100;
  camera.updateProjectionMatrix();
  camera.lookAt(aim);
  controls.update();
  window.addEventListener("resize", resize);

  // --- time: slider, play / pause, speed --------------------------------------------------------
  const slider = document.getElementById("artidyn-time");
  const playButton = document.getElementById("artidyn-play");
  const speedBox = document.getElementById("artidyn-speed");
  const clock = document.getElementById("artidyn-clock");
  let frame = 0, playing = false, clockStart = 0, timeStart = 0;
  function show(k) {
    frame = k;
    setFrame(k);
    slider.value = String(k);
    clock.textContent = "t = " + times[k].toFixed(3) + " s (" + (k + 1) + "/" + nFrames + ")";
  }
  function play(on) {
    playing = on && nFrames > 1;
    playButton.textContent = playing ? "pause" : "play";
    if (playing) {
      if (frame >= nFrames - 1) show(0);
      clockStart = performance.now();
      timeStart = times[frame];
    }
  }
  playButton.addEventListener("click", function () { play(!playing); });
  slider.addEventListener("input", function () { play(false); show(parseInt(slider.value, 10)); });
  speedBox.addEventListener("change", function () { if (playing) play(true); });
  for (const box of document.querySelectorAll("input[data-layer]")) {
    box.addEventListener("change", function () { layers[box.dataset.layer].visible = box.checked; });
  }
  function advance(now) {
    const t = timeStart + (now - clockStart) / 1000 * parseFloat(speedBox.value);
    if (t >= times[nFrames - 1]) {
      show(nFrames - 1);
      play(false);
      return;
    }
    let k = frame;
    while (k + 1 < nFrames && times[k + 1] <= t) k++;
    if (k !== frame) show(k);
  }
  function loop(now) {
    if (playing) advance(now);
    controls.update();
    renderer.render(scene, camera);
    requestAnimationFrame(loop);
  }
  show(0);
  play(data.autoplay);
  requestAnimationFrame(loop);
  window.artidynViewer = { scene: scene, camera: camera, show: show, play: play, nFrames: nFrames };
})();
