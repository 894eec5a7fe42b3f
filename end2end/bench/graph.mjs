// Benchmark (not a test): prints how Ferry's stack views perform with large stacks, as
// Chromium itself reports it (its trace's presented frames), with input sent through its input
// pipeline (CDP), as a user's mouse would send it.
//   graph: 5,000 resources — first picture: from the graph data's response to the first frame
//          presented after the graph is drawn, so reading and parsing the JSON count (target
//          ≤ 500 ms); frames presented per second while dragging and wheel-zooming (≥ 55)
//   table: 10,000 resources — first rows on screen (ms after navigation), frames presented per
//          second while wheel-scrolling, and whether the rows on screen match the scroll
// Run it with scripts/bench.sh (it builds and starts a server) or against FERRY_URL.
import { mark, scrollFps, sendInput, traceFrames } from '../lib/measure.mjs';
import { adminContext, launch, BASE } from '../lib/browser.mjs';
import { generateStack, uploadStack } from '../lib/generate.mjs';

const GRAPH_RESOURCES = Number(process.env.GRAPH_RESOURCES ?? 5000);
const TABLE_RESOURCES = Number(process.env.TABLE_RESOURCES ?? 10000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const browser = await launch();
const run = Date.now();
const graphStack = await uploadStack(BASE, `bench/graph/n${GRAPH_RESOURCES}-${run}`, generateStack(GRAPH_RESOURCES, { project: 'graph', stack: `n${GRAPH_RESOURCES}-${run}` }));
const tableStack = await uploadStack(BASE, `bench/table/n${TABLE_RESOURCES}-${run}`, generateStack(TABLE_RESOURCES, { seed: 7, project: 'table', stack: `n${TABLE_RESOURCES}-${run}` }));

const graphRuns = [];
for (let i = 0; i < RUNS; i++) {
  const context = await adminContext(browser, { viewport: { width: 1400, height: 900 } });
  const page = await context.newPage();
  // Traced from before the navigation, so the first picture's frame is in the trace.
  const loading = await traceFrames(page);
  await page.goto(`${BASE}/stacks/${graphStack.id}/graph`);
  await page.waitForSelector('#stack-graph[data-ready="true"]', { timeout: 60000 });
  const metrics = await page.evaluate(() => window.__ferryGraph.metrics);
  // Chromium reports a frame once it is presented: give the frames after the drawing time to
  // be reported before the trace ends.
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  await page.waitForTimeout(300);
  const loaded = await loading.stop();
  const firstPictureMs = loaded.presentedAfter('ferry:graph-response', 'ferry:graph-drawn');

  // A user's gestures through CDP: drag the graph around a circle for half the time, then
  // wheel-zoom in and out over it. Sigma re-renders on each.
  const box = await page.locator('#stack-graph').boundingBox();
  const cx = box.x + box.width / 2, cy = box.y + box.height / 2;
  const gestures = await traceFrames(page);
  await mark(page, 'ferry:gestures-start');
  const at = (t) => ({ x: cx + 150 * Math.cos(t * 3), y: cy + 150 * Math.sin(t * 3) });
  await page.mouse.move(at(0).x, at(0).y);
  await page.mouse.down();
  await sendInput(page, SECONDS / 2, (t) => ({ type: 'mouseMoved', ...at(t), button: 'left', buttons: 1 }));
  const end = at(SECONDS / 2);
  await page.mouse.move(end.x, end.y);
  await page.mouse.up();
  await sendInput(page, SECONDS / 2, (t) => ({ type: 'mouseWheel', x: cx, y: cy, deltaX: 0, deltaY: 60 * Math.sin(t * 4) }));
  await mark(page, 'ferry:gestures-end');
  const gestureFps = (await gestures.stop()).fps('ferry:gestures-start', 'ferry:gestures-end');
  graphRuns.push({ ...metrics, firstPictureMs, gestureFps });
  await context.close();
}

const tableRuns = [];
for (let i = 0; i < RUNS; i++) {
  const context = await adminContext(browser, { viewport: { width: 1400, height: 900 } });
  const page = await context.newPage();
  await page.goto(`${BASE}/stacks/${tableStack.id}`, { waitUntil: 'commit' });
  await page.waitForSelector('#resource-scroller a.row');
  const firstRowsMs = await page.evaluate(() => performance.now());
  await page.waitForSelector('body[data-hydrated="true"]', { timeout: 60000 });
  const hydratedMs = await page.evaluate(() => performance.now());
  const scroll = await scrollFps(page, 'resource-scroller', SECONDS);
  const rowsInDom = await page.locator('#resource-scroller a.row').count();
  tableRuns.push({ firstRowsMs, hydratedMs, fps: scroll.fps, checks: scroll.checks, mismatches: scroll.mismatches.length, rowsInDom });
  await context.close();
}
await browser.close();

const g = (k) => median(graphRuns.map((r) => r[k]));
const t = (k) => median(tableRuns.map((r) => r[k]));
console.log(`graph: ${g('nodes')} nodes, ${g('edges')} edges (median of ${RUNS} runs)`);
console.log(`graph: first picture ${g('firstPictureMs').toFixed(0)} ms from the data's response to the presented frame (of which reading and parsing the JSON, building the graph and drawing it: ${g('drawnMs').toFixed(0)} ms; target <= 500); the request took ${g('fetchMs').toFixed(0)} ms before`);
console.log(`graph: drag and wheel-zoom through CDP: ${g('gestureFps').toFixed(1)} frames presented per second (Chromium's trace; target >= 55)`);
console.log(`table: ${TABLE_RESOURCES} rows; first rows on screen ${t('firstRowsMs').toFixed(0)} ms after navigation; interactive (hydrated) at ${t('hydratedMs').toFixed(0)} ms`);
console.log(`table: wheel-scrolling through CDP: ${t('fps').toFixed(1)} frames presented per second, ${t('rowsInDom')} rows in the DOM; rows on screen matched the scroll position in ${tableRuns.reduce((a, r) => a + r.checks - r.mismatches, 0)} of ${tableRuns.reduce((a, r) => a + r.checks, 0)} checks`);
console.log(`runs: ${JSON.stringify({ graphRuns, tableRuns })}`);
