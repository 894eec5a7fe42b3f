// Benchmark (not a test): prints how Ferry's stack views perform with large stacks.
//   graph: 5,000 resources — first paint (ms after the graph data arrives) and frames per
//          second while panning and zooming (targets: ≤ 500 ms, ≥ 55 FPS)
//   table: 10,000 resources — first rows on screen (ms after navigation) and frames per second
//          while scrolling
// Run it with scripts/bench.sh (it builds and starts a server) or against FERRY_URL.
import { scrollFps } from '../lib/measure.mjs';
import { launch, open, BASE } from '../lib/browser.mjs';
import { generateStack, uploadStack } from '../lib/generate.mjs';

const GRAPH_RESOURCES = Number(process.env.GRAPH_RESOURCES ?? 5000);
const TABLE_RESOURCES = Number(process.env.TABLE_RESOURCES ?? 10000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const browser = await launch();
const run = Date.now();
const graphStack = await uploadStack(BASE, `bench/graph/n${GRAPH_RESOURCES}-${run}`, generateStack(GRAPH_RESOURCES));
const tableStack = await uploadStack(BASE, `bench/table/n${TABLE_RESOURCES}-${run}`, generateStack(TABLE_RESOURCES, { seed: 7 }));

const graphRuns = [];
for (let i = 0; i < RUNS; i++) {
  const { page, context } = await open(browser, `/stacks/${graphStack.id}/graph`, { width: 1400, height: 900 });
  await page.waitForSelector('#stack-graph[data-ready="true"]', { timeout: 60000 });
  const metrics = await page.evaluate(() => window.__ferryGraph.metrics);
  // A user's gestures, as events through the page's own handlers: drag the graph around for
  // half the time, then wheel-zoom in and out. Counts the frames the browser produced and
  // times each full re-render sigma does when a gesture settles.
  const gesture = await page.evaluate((seconds) => new Promise((resolve) => {
    const { renderer } = window.__ferryGraph;
    const el = document.getElementById('stack-graph');
    const box = el.getBoundingClientRect();
    const cx = box.left + box.width / 2, cy = box.top + box.height / 2;
    const renders = [];
    let renderStart = 0;
    renderer.on('beforeRender', () => { renderStart = performance.now(); });
    renderer.on('afterRender', () => renders.push(performance.now() - renderStart));
    let frames = 0, dragging = false;
    const start = performance.now();
    const pointer = (type, x, y) => el.dispatchEvent(new PointerEvent(type, { clientX: x, clientY: y, button: 0, buttons: type === 'pointerup' ? 0 : 1, bubbles: true }));
    const step = (now) => {
      frames++;
      const t = (now - start) / 1000;
      if (t < seconds / 2) {
        const x = cx + 150 * Math.cos(t * 3), y = cy + 150 * Math.sin(t * 3);
        if (!dragging) { pointer('pointerdown', x, y); dragging = true; }
        pointer('pointermove', x, y);
      } else {
        if (dragging) { pointer('pointerup', cx, cy); dragging = false; }
        el.dispatchEvent(new WheelEvent('wheel', { deltaY: 40 * Math.sin(t * 4), clientX: cx, clientY: cy, bubbles: true, cancelable: true }));
      }
      if (t < seconds) requestAnimationFrame(step);
      else setTimeout(() => resolve({ fps: frames / t, settleRenders: renders.length, settleRenderMs: renders.reduce((a, b) => a + b, 0) / Math.max(1, renders.length) }), 400);
    };
    requestAnimationFrame(step);
  }), SECONDS);
  // For comparison: moving sigma's camera every frame, so it re-renders every frame.
  const fps = await page.evaluate((seconds) => new Promise((resolve) => {
    const { renderer } = window.__ferryGraph;
    const camera = renderer.getCamera();
    camera.enabledPanning = camera.enabledZooming = true;  // as plain sigma has it
    let frames = 0;
    renderer.on('afterRender', () => frames++);
    const start = performance.now();
    const step = (now) => {
      const t = (now - start) / 1000;
      camera.setState({ x: 0.5 + 0.2 * Math.cos(t * 2), y: 0.5 + 0.2 * Math.sin(t * 2), ratio: 0.6 + 0.4 * Math.sin(t * 3) });
      if (t < seconds) requestAnimationFrame(step);
      else resolve(frames / t);
    };
    requestAnimationFrame(step);
  }), SECONDS);
  graphRuns.push({ ...metrics, gestureFps: gesture.fps, settleRenderMs: gesture.settleRenderMs, rerenderEveryFrameFps: fps });
  await context.close();
}

const tableRuns = [];
for (let i = 0; i < RUNS; i++) {
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  const page = await context.newPage();
  await page.goto(`${BASE}/stacks/${tableStack.id}`, { waitUntil: 'commit' });
  await page.waitForSelector('#resource-scroller a.row');
  const firstRowsMs = await page.evaluate(() => performance.now());
  await page.waitForSelector('body[data-hydrated="true"]', { timeout: 60000 });
  const hydratedMs = await page.evaluate(() => performance.now());
  const fps = await scrollFps(page, 'resource-scroller', SECONDS);
  const rowsInDom = await page.locator('#resource-scroller a.row').count();
  tableRuns.push({ firstRowsMs, hydratedMs, fps, rowsInDom });
  await context.close();
}
await browser.close();

const g = (k) => median(graphRuns.map((r) => r[k]));
const t = (k) => median(tableRuns.map((r) => r[k]));
console.log(`graph: ${g('nodes')} nodes, ${g('edges')} edges (median of ${RUNS} runs)`);
console.log(`graph: data fetch ${g('fetchMs').toFixed(0)} ms; first paint ${g('firstPaintMs').toFixed(0)} ms after data arrived (target <= 500)`);
console.log(`graph: pan/zoom gestures ${g('gestureFps').toFixed(1)} FPS (target >= 55); full re-render when a gesture settles ${g('settleRenderMs').toFixed(0)} ms`);
console.log(`graph: for comparison, re-rendering every frame: ${g('rerenderEveryFrameFps').toFixed(1)} FPS`);
console.log(`table: ${TABLE_RESOURCES} rows; first rows on screen ${t('firstRowsMs').toFixed(0)} ms after navigation; interactive (hydrated) at ${t('hydratedMs').toFixed(0)} ms`);
console.log(`table: scrolling ${t('fps').toFixed(1)} FPS with ${t('rowsInDom')} rows in the DOM`);
console.log(`runs: ${JSON.stringify({ graphRuns, tableRuns })}`);
