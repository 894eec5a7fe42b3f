// Benchmark (not a test): what people reading a stack wait for while others preview imports
// into it, against a running server (FERRY_URL; scripts/bench.sh starts one). A generated stack
// of VIEWERS_STACK (10,000) resources is uploaded; then VIEWERS_PREVIEWS (5) previews of
// VIEWERS_IMPORTS (10,000) RandomInteger imports each run at once through the API, and for as
// long as they run VIEWERS (200) viewers each load the stack's page (its HTML, as a browser
// asks for it) and the first page of its resources (as the page's table asks for them), one
// after the other, then wait VIEWERS_PAUSE_MS (1,000) and load them again. Prints each
// request's latency percentiles (p50, p90, p99, max), how many requests were answered and how
// many failed (any status but 200, or no answer): the target is p99 ≤ 300 ms with none failed.
// `--smoke` (CI's run against the test server: 20 viewers, 2 previews of 500 imports into a
// 2,000-resource stack) fails only on a failed request.
import { api, authFetch, BASE } from '../lib/browser.mjs';
import { generateStack, importSpec } from '../lib/generate.mjs';

const SMOKE = process.argv.includes('--smoke');
const number = (name, fallback, smoke) => (SMOKE ? smoke : Number(process.env[name] ?? fallback));
const STACK = number('VIEWERS_STACK', 10000, 2000);
const PREVIEWS = number('VIEWERS_PREVIEWS', 5, 2);
const IMPORTS = number('VIEWERS_IMPORTS', 10000, 500);
const VIEWERS = number('VIEWERS', 200, 20);
const PAUSE_MS = number('VIEWERS_PAUSE_MS', 1000, 1000);

const run = Date.now();
const text = JSON.stringify(generateStack(STACK, { seed: STACK, project: 'viewers', stack: `n${STACK}-${run}` }));
const stack = await api('POST', `/api/v1/stacks?name=${encodeURIComponent(`bench/viewers/n${STACK}-${run}`)}`, text);

const latencies = { page: [], resources: [] };
const failures = [];

/** One request as a viewer's browser makes it: its latency (to the last byte), or a failure. */
async function load(kind, url) {
  const start = performance.now();
  try {
    // A redirect (to the sign-in page, say) is not the page: it counts as failed.
    const res = await authFetch(BASE + url, { redirect: 'manual', headers: kind === 'page' ? { accept: 'text/html' } : {} });
    await res.arrayBuffer();
    if (res.status !== 200) {
      failures.push(`${kind}: ${res.status}`);
      return;
    }
    latencies[kind].push(performance.now() - start);
  } catch (e) {
    failures.push(`${kind}: ${e.message}`);
  }
}

let previewing = true;
async function viewer(i) {
  // Viewers arrive spread over the first pause, as people do, not all in one instant.
  await new Promise((done) => setTimeout(done, (PAUSE_MS * i) / VIEWERS));
  while (previewing) {
    await load('page', `/stacks/${stack.id}`);
    await load('resources', `/api/v1/stacks/${stack.id}/resources?limit=100`);
    await new Promise((done) => setTimeout(done, PAUSE_MS));
  }
}

const viewers = Array.from({ length: VIEWERS }, (_, i) => viewer(i));
const start = performance.now();
const previews = await Promise.allSettled(
  Array.from({ length: PREVIEWS }, (_, i) =>
    api('POST', `/api/v1/stacks/${stack.id}/previews`, importSpec(IMPORTS, `viewers-${i}`))),
);
const previewsMs = performance.now() - start;
previewing = false;
await Promise.all(viewers);
for (const p of previews) if (p.status === 'rejected') failures.push(`preview: ${p.reason.message}`);

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
const figures = Object.fromEntries(Object.entries(latencies).map(([kind, all]) => {
  const sorted = [...all].sort((a, b) => a - b);
  const at = (p) => Math.round(percentile(sorted, p) ?? NaN);
  return [kind, { answered: sorted.length, p50: at(50), p90: at(90), p99: at(99), max: at(100) }];
}));
const every = [...latencies.page, ...latencies.resources].sort((a, b) => a - b);
const p99 = Math.round(percentile(every, 99) ?? NaN);
console.log(`${VIEWERS} viewers of a ${STACK}-resource stack during ${PREVIEWS} previews of ${IMPORTS} imports (${(previewsMs / 1000).toFixed(1)} s): `
  + `the page p50/p90/p99/max ${figures.page.p50}/${figures.page.p90}/${figures.page.p99}/${figures.page.max} ms (${figures.page.answered} answered), `
  + `a page of resources ${figures.resources.p50}/${figures.resources.p90}/${figures.resources.p99}/${figures.resources.max} ms (${figures.resources.answered} answered); `
  + `p99 of both ${p99} ms (target <= 300), ${failures.length} failed (target 0)`);
console.log(`viewers: ${JSON.stringify({ viewers: VIEWERS, previews: PREVIEWS, imports: IMPORTS, stack: STACK, previewsMs: Math.round(previewsMs), figures, p99, failed: failures.length })}`);
if (failures.length > 0) {
  console.error(`failed requests (first 10): ${failures.slice(0, 10).join('; ')}`);
  process.exit(1);
}
if (every.length === 0) {
  console.error('no request was answered while the previews ran');
  process.exit(1);
}
