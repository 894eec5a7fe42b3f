// Benchmark (not a test): a plan whose preview holds 10,000 resources — the results table's
// first rows on screen (ms after navigation), frames Chromium presented per second while it is
// wheel-scrolled through CDP (right after the rows arrive, and once the page is idle), whether
// the rows on screen matched the scroll position, and how long the preview took on the server.
// Run it with scripts/bench.sh (it builds and starts a server) or against FERRY_URL.
import { scrollFps } from '../lib/measure.mjs';
import { adminContext, launch, BASE } from '../lib/browser.mjs';

const RESOURCES = Number(process.env.PLAN_RESOURCES ?? 10000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function api(method, url, body) {
  const headers = { 'content-type': 'application/json' };
  if (process.env.FERRY_E2E_TOKEN) headers.authorization = `Bearer ${process.env.FERRY_E2E_TOKEN}`;
  const res = await fetch(BASE + url, { method, headers, body: body && JSON.stringify(body) });
  const json = await res.json();
  if (!res.ok) throw new Error(`${method} ${url}: ${JSON.stringify(json)}`);
  return json;
}

const stack = await api('POST', `/api/v1/stacks?name=bench/plan/n${RESOURCES}-${Date.now()}`, { version: 3, deployment: {} });
// RandomIntegers import by `<result>,<min>,<max>`: every one of them reads as ready.
const spec = { resources: Array.from({ length: RESOURCES }, (_, i) => ({ type: 'random:index/randomInteger:RandomInteger', name: `port-${i}`, id: `${i % 1000},0,1000` })) };
const plan = await api('POST', `/api/v1/stacks/${stack.id}/plans`, { title: `${RESOURCES} ports`, spec: JSON.stringify(spec) });
const started = performance.now();
let job = await api('POST', `/api/v1/plans/${plan.id}/previews`);
while (job.status === 'queued' || job.status === 'running') {
  await new Promise((r) => setTimeout(r, 100));
  job = await api('GET', `/api/v1/plans/${plan.id}/jobs/${job.id}`);
}
const previewMs = performance.now() - started;
if (job.status !== 'done') throw new Error(`the preview ended ${job.status}: ${job.error}`);

const browser = await launch();
const runs = [];
for (let i = 0; i < RUNS; i++) {
  const context = await adminContext(browser, { viewport: { width: 1400, height: 900 } });
  const page = await context.newPage();
  await page.goto(`${BASE}/plans/${plan.id}`, { waitUntil: 'commit' });
  await page.waitForSelector('#results-scroller .row[data-urn]', { timeout: 60000 });
  const firstRowMs = await page.evaluate(() => performance.now());
  await page.waitForFunction((n) => document.querySelector('#results-count')?.textContent === `${n} of ${n} resources`, RESOURCES, { timeout: 60000 });
  // Right after the rows arrive (the editor and the rest of the page are still settling), then
  // again once the page is idle.
  const early = await scrollFps(page, 'results-scroller', SECONDS);
  await page.waitForTimeout(3000);
  const settled = await scrollFps(page, 'results-scroller', SECONDS);
  const rowsInDom = await page.locator('#results-scroller .row').count();
  const checks = early.checks + settled.checks, mismatches = early.mismatches.length + settled.mismatches.length;
  runs.push({ firstRowMs, fps: early.fps, settledFps: settled.fps, rowsInDom, checks, mismatches });
  await context.close();
}
await browser.close();
const m = (k) => median(runs.map((r) => r[k]));
console.log(`plan: ${RESOURCES}-resource import preview on the server: ${(previewMs / 1000).toFixed(2)} s`);
console.log(`plan: results table, first row on screen ${m('firstRowMs').toFixed(0)} ms after navigation (median of ${RUNS})`);
console.log(`plan: results table, wheel-scrolling through CDP: ${m('fps').toFixed(1)} frames presented per second right after the rows arrive, ${m('settledFps').toFixed(1)} once the page is idle, with ${m('rowsInDom')} rows in the DOM`);
console.log(`plan: rows on screen matched the scroll position in ${runs.reduce((a, r) => a + r.checks - r.mismatches, 0)} of ${runs.reduce((a, r) => a + r.checks, 0)} checks`);
