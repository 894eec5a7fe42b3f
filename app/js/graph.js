// Ferry's stack graph: sigma.js (WebGL) draws a graphology graph laid out by d3-hierarchy's
// circle packing: every resource sits beside its children inside one circle, so a component and
// what it holds are a visible group. Packing is one pass (nothing is simulated), so 5,000
// resources paint at once.
import { hierarchy, pack } from 'd3-hierarchy';
import Graph from 'graphology';
import Sigma from 'sigma';
import { EdgeArrowProgram, EdgeLineProgram, NodeCircleProgram, NodePointProgram } from 'sigma/rendering';

const NODE_COLORS = { stack: '#e4572e', component: '#8e6bd8', custom: '#2f80ed', provider: '#27ae60', group: '#5b6b82' };
const NODE_SIZES = { stack: 12, component: 7, custom: 4, provider: 7, group: 4 };
// A node standing for many resources (a big stack's summarised graph: a group of siblings of
// one type, or a folded subtree) grows gently with the log of how many (×1.7 for 1,000).
const countScale = (n) => (n.count > 1 ? 1 + 0.25 * Math.log10(n.count) : 1);
// A preview's resources, by status (the plan graph): to import, with a warning or a diff,
// failed, and imported by a commit.
const STATUS_COLORS = {
  ready: '#0fb5ae', import: '#0fb5ae', read: '#0fb5ae',
  'ready-with-warnings': '#d29922', create: '#d29922', update: '#d29922', replace: '#d29922', delete: '#8c959f',
  failed: '#cf222e', 'not-found': '#cf222e', conflict: '#cf222e', 'already-managed': '#6e7781',
  managed: '#8250df',
};
const EDGE_COLORS = { parent: '#c5cedb', dependency: '#f2994a', provider: '#6fcf97' };
const EDGE_LABELS = { parent: 'parent', dependency: 'depends on', provider: 'uses provider' };

// Above this many nodes, cheaper WebGL programs keep each full render short.
const LARGE_GRAPH = 2000;
// How long after the last wheel or drag event the user counts as paused: then the graph is
// rendered sharp. A gesture that follows sooner keeps moving the snapshot, with no render between.
const SETTLE_MS = 150;

const mounted = new Map();

// Each resource's slot in the packing, by kind (graph units; sigma fits the picture to the view).
const SLOT_RADIUS = { stack: 3, component: 2, custom: 1.2, provider: 2, group: 2 };

/**
 * Positions for the nodes, and the circles of the groups: a resource with children is packed
 * together with them (itself first) in one circle. The tree is the parent edges; a resource
 * without a parent belongs to the stack's root when there is one. Cycles (malformed state) are
 * broken where they are met, so every node is placed once.
 */
function packLayout(nodes, edges) {
  const parent = new Array(nodes.length).fill(-1);
  for (const e of edges) if (e.kind === 'parent' && e.source !== e.target) parent[e.source] = e.target;
  const stacks = nodes.map((n, i) => i).filter((i) => nodes[i].kind === 'stack' && parent[i] === -1);
  if (stacks.length === 1) {
    for (let i = 0; i < nodes.length; i++) if (parent[i] === -1 && i !== stacks[0]) parent[i] = stacks[0];
  }
  const children = nodes.map(() => []);
  for (let i = 0; i < nodes.length; i++) if (parent[i] !== -1) children[parent[i]].push(i);
  const placed = new Uint8Array(nodes.length);
  // Iterative, so a deep tree cannot overflow the stack.
  const build = (top) => {
    const rootDatum = { node: top };
    const work = [[top, rootDatum]];
    placed[top] = 1;
    while (work.length) {
      const [i, datum] = work.pop();
      const kids = children[i].filter((c) => !placed[c]);
      if (!kids.length) continue;
      datum.group = i;
      datum.children = [{ node: i }];
      delete datum.node;
      for (const c of kids) {
        placed[c] = 1;
        const child = { node: c };
        datum.children.push(child);
        work.push([c, child]);
      }
    }
    return rootDatum;
  };
  const tops = [];
  for (let i = 0; i < nodes.length; i++) if (parent[i] === -1) tops.push(build(i));
  for (let i = 0; i < nodes.length; i++) if (!placed[i]) tops.push(build(i));
  const root = hierarchy(tops.length === 1 ? tops[0] : { children: tops });
  pack()
    .radius((d) => {
      const n = nodes[d.data.node];
      return n ? (SLOT_RADIUS[n.kind] ?? 1) * countScale(n) : 1;
    })
    .padding((d) => (d.depth === 0 ? 2 : 0.6))(root);
  const positions = new Array(nodes.length);
  const groups = [];
  root.each((d) => {
    if (d.data.node !== undefined) positions[d.data.node] = { x: d.x, y: d.y };
    else if (d.data.group !== undefined && nodes[d.data.group].kind !== 'stack') groups.push({ x: d.x, y: d.y, r: d.r, kind: nodes[d.data.group].kind });
  });
  return { positions, groups };
}

/**
 * Pan and zoom that stay fluid without a GPU. Re-rendering thousands of nodes and edges every
 * frame is slow on software WebGL (SwiftShader, VDI, remote desktops), so during a gesture the
 * canvases sigma already drew are moved and scaled with a CSS transform (compositor work only);
 * when the gesture ends, the camera takes the equivalent state and sigma renders once, sharp.
 */
function fluidCamera(renderer, container, { onGestureEnd }) {
  // The transform applied since the last render: screen = s * drawn + (tx, ty).
  let s = 1, tx = 0, ty = 0, active = false, settleTimer = 0;
  let drag = null;
  // The listeners below go with the drawing (a big graph is redrawn when a group opens).
  const listeners = new AbortController();
  const signal = listeners.signal;
  // One canvas holding a flattened copy of sigma's layers: software compositing moves one
  // layer per frame instead of sigma's seven.
  const snapshot = document.createElement('canvas');
  snapshot.className = 'graph-snapshot';
  snapshot.style.cssText = 'position:absolute;left:0;top:0;pointer-events:none;transform-origin:0 0;display:none;will-change:transform';
  container.append(snapshot);
  const layers = () => [...container.querySelectorAll('canvas')].filter((c) => c !== snapshot);
  const apply = () => {
    snapshot.style.transform = `matrix(${s}, 0, 0, ${s}, ${tx}, ${ty})`;
  };
  // Copies sigma's freshly drawn layers into the snapshot. It runs right after each render,
  // because a WebGL canvas is readable only in the task that drew it; a gesture can then start
  // without drawing anything.
  const copyLayers = () => {
    if (active) return;
    const { width, height } = renderer.getDimensions();
    const ratio = window.devicePixelRatio || 1;
    if (snapshot.width !== Math.round(width * ratio) || snapshot.height !== Math.round(height * ratio)) {
      snapshot.width = Math.round(width * ratio);
      snapshot.height = Math.round(height * ratio);
      snapshot.style.width = `${width}px`;
      snapshot.style.height = `${height}px`;
    }
    const ctx = snapshot.getContext('2d');
    ctx.clearRect(0, 0, snapshot.width, snapshot.height);
    for (const layer of layers()) ctx.drawImage(layer, 0, 0, snapshot.width, snapshot.height);
  };
  renderer.on('afterRender', copyLayers);
  copyLayers();
  const capture = () => {
    snapshot.style.display = 'block';
    for (const layer of layers()) layer.style.opacity = '0';
  };
  const settle = () => {
    clearTimeout(settleTimer);
    if (!active) return;
    const camera = renderer.getCamera();
    const { width, height } = renderer.getDimensions();
    // The point now shown at the centre was drawn at ((c - t) / s); centre the camera on it.
    const drawn = { x: (width / 2 - tx) / s, y: (height / 2 - ty) / s };
    const s_ = s;
    const centre = renderer.viewportToFramedGraph(drawn);
    const state = camera.getState();
    active = false; s = 1; tx = 0; ty = 0;
    // Sigma's own drag and wheel handling is off (ours replaces it), and with it the camera
    // ignores x, y and ratio; allow them for this one update.
    camera.enabledPanning = camera.enabledZooming = true;
    camera.setState({ x: centre.x, y: centre.y, ratio: state.ratio / s_, angle: state.angle });
    camera.enabledPanning = camera.enabledZooming = false;
    renderer.refresh();
    for (const layer of layers()) layer.style.opacity = '';
    snapshot.style.display = 'none';
    apply();
    onGestureEnd?.();
  };
  const begin = () => { if (!active) { active = true; capture(); } };
  const panBy = (dx, dy) => { begin(); tx += dx; ty += dy; apply(); };
  const zoomAt = (k, px, py) => {
    begin();
    const ratio = renderer.getCamera().getState().ratio / (s * k);
    if (ratio < 0.005 || ratio > 50) return;
    s *= k; tx = k * tx + px * (1 - k); ty = k * ty + py * (1 - k);
    apply();
  };
  const local = (e) => {
    const r = container.getBoundingClientRect();
    return { x: e.clientX - r.left, y: e.clientY - r.top };
  };
  container.addEventListener('wheel', (e) => {
    e.preventDefault();
    const p = local(e);
    const dy = e.deltaMode === 1 ? e.deltaY * 16 : e.deltaY;
    zoomAt(Math.exp(-dy * 0.0015), p.x, p.y);
    clearTimeout(settleTimer);
    settleTimer = setTimeout(settle, SETTLE_MS);
  }, { passive: false, signal });
  container.addEventListener('pointerdown', (e) => {
    if (e.button !== 0 || e.target.closest('.graph-toggles')) return;
    clearTimeout(settleTimer);
    drag = { x: e.clientX, y: e.clientY, moved: 0 };
  }, { signal });
  window.addEventListener('pointermove', (e) => {
    if (!drag) return;
    const dx = e.clientX - drag.x, dy = e.clientY - drag.y;
    drag.x = e.clientX; drag.y = e.clientY; drag.moved += Math.abs(dx) + Math.abs(dy);
    if (drag.moved > 3) panBy(dx, dy);
  }, { signal });
  const release = () => {
    if (!drag) return;
    const moved = drag.moved > 3;
    drag = null;
    if (moved) {
      // A drag that ends on a node is not a click on it.
      container.dataset.dragEndedAt = String(performance.now());
      clearTimeout(settleTimer);
      settleTimer = setTimeout(settle, SETTLE_MS);
    }
  };
  window.addEventListener('pointerup', release, { signal });
  window.addEventListener('pointercancel', release, { signal });
  const dispose = () => {
    clearTimeout(settleTimer);
    listeners.abort();
  };
  return { settle, panBy, zoomAt, dispose };
}
let nextToken = 1;

/** Resolves with the element `id` once it is in the document (the app may call `mount` just
 *  before it attaches the view), or null after `ms`. */
function attached(id, ms = 10000) {
  const deadline = performance.now() + ms;
  return new Promise((resolve) => {
    const look = () => {
      const el = document.getElementById(id);
      if (el && el.isConnected) resolve(el);
      else if (performance.now() > deadline) resolve(null);
      else requestAnimationFrame(look);
    };
    look();
  });
}

/** Fetches `url` (the API's graph) and draws it in the element `containerId`. Returns a token
 *  for `unmount`. */
export function mount(containerId, url, onSelect) {
  const token = nextToken++;
  // `expand`: the folded nodes and groups the user opened (a big stack's summarised graph).
  const entry = { cancelled: false, renderer: null, expand: [] };
  mounted.set(token, entry);
  draw(containerId, url, onSelect, entry);
  return token;
}

/** Opens a folded node or a group: the graph is fetched again with it opened, and redrawn. */
function open(containerId, url, onSelect, entry, key) {
  if (entry.expand.includes(key)) return;
  entry.expand.push(key);
  releaseDrawing(entry);
  const container = document.getElementById(containerId);
  if (container) container.dataset.ready = 'false';
  draw(containerId, url, onSelect, entry);
}

function releaseDrawing(entry) {
  entry.resizeObserver?.disconnect();
  entry.camera?.dispose?.();
  if (entry.renderer) entry.renderer.kill();
  entry.renderer = null;
}

async function draw(containerId, url, onSelect, entry) {
  const started = performance.now();
  let data, responded;
  try {
    const target = entry.expand.length ? `${url}${url.includes('?') ? '&' : '?'}expand=${encodeURIComponent(entry.expand.join('\n'))}` : url;
    const response = await fetch(target);
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    // The data has arrived once its response starts; reading and parsing it is part of the
    // time to the first picture (benchmarks read these marks from Chromium's trace).
    responded = performance.now();
    performance.mark('ferry:graph-response');
    data = await response.json();
  } catch (err) {
    const el = await attached(containerId);
    if (el && !entry.cancelled) el.textContent = `Could not load the graph: ${err.message}`;
    return;
  }
  const container = await attached(containerId);
  if (entry.cancelled || !container) return;

  const graph = new Graph({ type: 'directed', multi: true });
  const many = data.nodes.length > 1000;
  const layout = packLayout(data.nodes, data.edges);
  data.nodes.forEach((n, i) => {
    graph.addNode(String(i), {
      x: layout.positions[i].x,
      y: -layout.positions[i].y,
      size: (NODE_SIZES[n.kind] || 4) * (many && n.kind === 'custom' ? 0.6 : 1) * (n.status ? 1.6 : 1) * countScale(n),
      color: n.pending_delete ? '#bdbdbd' : (n.status && STATUS_COLORS[n.status]) || NODE_COLORS[n.kind] || '#999',
      // A folded node says how much it holds; a group's name already does.
      label: n.count > 1 && n.kind !== 'group' ? `${n.name} (+${(n.count - 1).toLocaleString('en')})` : n.name,
      expand: n.expand,
      urn: n.urn,
      kind: n.kind,
      status: n.status,
      resourceType: n.type,
    });
  });
  for (const e of data.edges) {
    graph.addDirectedEdge(String(e.source), String(e.target), {
      color: EDGE_COLORS[e.kind],
      size: e.kind === 'parent' ? 0.5 : 1,
      kind: e.kind,
      // A dependency points from the resource to what it depends on.
      type: e.kind === 'dependency' ? 'arrow' : 'line',
    });
  }

  container.textContent = '';
  // Provider edges tell nothing when each package has one provider (every resource of the
  // package uses it): off by default then, one click away.
  const providers = {};
  for (const n of data.nodes) {
    if (n.kind === 'provider') {
      const pkg = String(n.type || '').split(':')[2] || '';
      providers[pkg] = (providers[pkg] || 0) + 1;
    }
  }
  const oneProviderEach = Object.values(providers).every((count) => count <= 1);
  const shown = { parent: true, dependency: true, provider: !oneProviderEach };
  // The selected resource and its neighbourhood (parent, children, dependencies, dependents and
  // provider): labelled and drawn; the rest fades.
  let focus = null;
  const near = new Set();
  const setFocus = (node) => {
    focus = node;
    near.clear();
    if (node !== null) {
      near.add(node);
      graph.forEachNeighbor(node, (n) => near.add(n));
    }
    container.dataset.focus = node === null ? '' : graph.getNodeAttribute(node, 'urn');
    container.dataset.neighbourhood = String(near.size);
    renderer.refresh();
  };
  const large = graph.order > LARGE_GRAPH;
  // The labels drawn in the current frame, and their boxes (see defaultDrawNodeLabel).
  const labelBoxes = [];
  const drawnLabels = new Set();
  const renderer = new Sigma(graph, container, {
    allowInvalidContainer: true,
    renderEdgeLabels: false,
    defaultNodeType: large ? 'point' : 'circle',
    defaultEdgeType: 'line',
    nodeProgramClasses: { circle: NodeCircleProgram, point: NodePointProgram },
    edgeProgramClasses: { line: EdgeLineProgram, arrow: EdgeArrowProgram },
    // Small stacks offer every label; large ones what is big enough, and more as the user zooms
    // in. Of those sigma's label grid proposes, a label is drawn only where it overlaps none
    // drawn before it in the same frame.
    defaultDrawNodeLabel: (context, d, settings) => {
      if (!d.label) return;
      context.font = `${settings.labelWeight} ${settings.labelSize}px ${settings.labelFont}`;
      const m = context.measureText(d.label);
      const left = d.x + d.size + 3, baseline = d.y + settings.labelSize / 3;
      const box = { left: left - 2, right: left + m.width + 2, top: baseline - settings.labelSize, bottom: baseline + 4 };
      if (labelBoxes.some((b) => box.left < b.right && b.left < box.right && box.top < b.bottom && b.top < box.bottom)) return;
      labelBoxes.push(box);
      drawnLabels.add(d.key);
      context.fillStyle = '#000';
      context.fillText(d.label, left, baseline);
    },
    labelRenderedSizeThreshold: graph.order <= 500 ? 1 : 6,
    // Room for the group circles that reach past the outermost nodes.
    stagePadding: 50,
    labelGridCellSize: graph.order <= 500 ? 60 : 100,
    enableCameraPanning: false,
    enableCameraZooming: false,
    enableCameraRotation: false,
    nodeReducer: (node, attrs) => {
      if (focus === null) return attrs;
      if (near.has(node)) return { ...attrs, forceLabel: true, zIndex: 1, highlighted: node === focus };
      return { ...attrs, color: '#e3e7ee', label: null, zIndex: 0 };
    },
    edgeReducer: (edge, attrs) => {
      if (!shown[attrs.kind]) return { ...attrs, hidden: true };
      if (focus !== null && graph.source(edge) !== focus && graph.target(edge) !== focus) return { ...attrs, color: '#eef1f5' };
      return attrs;
    },
    zIndex: true,
  });
  entry.renderer = renderer;
  // The groups' circles, under the edges, drawn after each render where the camera puts them.
  renderer.createCanvasContext('groups', { beforeLayer: 'edges' });
  renderer.resize(true); // sizes the new canvas as sigma sizes its own
  const drawGroups = () => {
    const ctx = renderer.canvasContexts.groups;
    const { width, height } = renderer.getDimensions();
    ctx.clearRect(0, 0, width, height);
    for (const g of layout.groups) {
      const c = renderer.graphToViewport({ x: g.x, y: -g.y });
      const edge = renderer.graphToViewport({ x: g.x + g.r, y: -g.y });
      const r = Math.hypot(edge.x - c.x, edge.y - c.y);
      if (r < 3 || c.x + r < 0 || c.y + r < 0 || c.x - r > width || c.y - r > height) continue;
      ctx.beginPath();
      ctx.arc(c.x, c.y, r, 0, 2 * Math.PI);
      ctx.fillStyle = g.kind === 'component' ? 'rgba(142, 107, 216, 0.06)' : 'rgba(47, 128, 237, 0.04)';
      ctx.strokeStyle = g.kind === 'component' ? 'rgba(142, 107, 216, 0.35)' : 'rgba(47, 128, 237, 0.25)';
      ctx.fill();
      ctx.stroke();
    }
  };
  renderer.on('afterRender', drawGroups);
  renderer.on('beforeRender', () => {
    labelBoxes.length = 0;
    drawnLabels.clear();
  });
  drawGroups();
  entry.camera = fluidCamera(renderer, container, {});
  // The container narrows when the detail panel opens; sigma only watches the window.
  entry.resizeObserver = new ResizeObserver(() => renderer.resize() && renderer.refresh());
  entry.resizeObserver.observe(container);
  renderer.on('clickNode', ({ node }) => {
    const dragEnded = Number(container.dataset.dragEndedAt || 0);
    if (performance.now() - dragEnded < 300) return;
    const key = graph.getNodeAttribute(node, 'expand');
    const urn = graph.getNodeAttribute(node, 'urn');
    // A resource opens its details; a group or a folded node also opens in the graph.
    if (urn) {
      setFocus(node);
      onSelect && onSelect(urn);
    }
    if (key) open(containerId, url, onSelect, entry, key);
  });
  renderer.on('clickStage', () => {
    const dragEnded = Number(container.dataset.dragEndedAt || 0);
    if (performance.now() - dragEnded >= 300 && focus !== null) setFocus(null);
  });
  renderer.on('enterNode', () => (container.style.cursor = 'pointer'));
  renderer.on('leaveNode', () => (container.style.cursor = ''));

  const toggles = document.createElement('div');
  toggles.className = 'graph-toggles';
  for (const kind of Object.keys(shown)) {
    const label = document.createElement('label');
    const box = document.createElement('input');
    box.type = 'checkbox';
    box.checked = shown[kind];
    box.dataset.kind = kind;
    box.addEventListener('change', () => {
      shown[kind] = box.checked;
      renderer.refresh();
    });
    label.append(box, ` ${EDGE_LABELS[kind]}`);
    toggles.append(label);
  }
  container.append(toggles);

  // Sigma drew synchronously in its constructor; the picture is on screen when Chromium
  // presents the next frame (the benchmark finds that frame in the trace, after this mark).
  performance.mark('ferry:graph-drawn');
  const drawn = performance.now();
  requestAnimationFrame(() => {
    const metrics = {
      nodes: graph.order,
      edges: graph.size,
      // The resources the picture stands for (more than its nodes when summarised).
      resources: data.nodes.reduce((sum, n) => sum + (n.count || 1), 0),
      summarised: data.nodes.some((n) => n.expand),
      // Request sent until its response began.
      fetchMs: responded - started,
      // Response began until drawn: reading and parsing the JSON, building and drawing.
      drawnMs: drawn - responded,
    };
    container.dataset.ready = 'true';
    // How many nodes have each status (a preview's graph), for people and tests reading the page.
    const statuses = {};
    for (const n of data.nodes) if (n.status) statuses[n.status] = (statuses[n.status] || 0) + 1;
    container.dataset.statuses = JSON.stringify(statuses);
    window.__ferryGraph = { metrics, renderer, camera: entry.camera, drawnLabels };
    container.dispatchEvent(new CustomEvent('ferry-graph-ready', { detail: metrics }));
  });
}

export function unmount(token) {
  const entry = mounted.get(token);
  if (!entry) return;
  entry.cancelled = true;
  releaseDrawing(entry);
  mounted.delete(token);
}
