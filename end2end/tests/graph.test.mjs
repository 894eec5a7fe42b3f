// The graph's pan and zoom: during a gesture the picture moves (a transformed snapshot); when
// it ends, sigma's camera must show the graph exactly where the gesture left it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { launch, open, BASE, ARTIFACTS, authFetch } from '../lib/browser.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

async function demoGraph() {
  const stacks = await (await authFetch(`${BASE}/api/v1/stacks`)).json();
  const demo = stacks.find((s) => s.name === 'ferry/demo/dev');
  const { page, context, errors } = await open(browser, `/stacks/${demo.id}/graph`);
  await page.waitForSelector('#stack-graph[data-ready="true"]', { timeout: 30000 });
  return { page, context, errors };
}

/** Viewport position of every node, by URN. */
const positions = (page) => page.evaluate(() => {
  const { renderer } = window.__ferryGraph;
  const g = renderer.getGraph();
  return Object.fromEntries(g.mapNodes((n, a) => [a.urn, renderer.graphToViewport(a)]));
});

const close = (a, b, tol = 1.5) => Math.abs(a - b) <= tol;

test('dragging moves the graph by exactly the drag', async () => {
  const { page, context, errors } = await demoGraph();
  const before = await positions(page);
  const box = await page.locator('#stack-graph').boundingBox();
  // Start on empty space (a corner), drag by (120, 60).
  const x0 = box.x + 40, y0 = box.y + box.height - 40;
  await page.mouse.move(x0, y0);
  await page.mouse.down();
  await page.mouse.move(x0 + 60, y0 + 30, { steps: 5 });
  await page.mouse.move(x0 + 120, y0 + 60, { steps: 5 });
  await page.mouse.up();
  await page.waitForFunction(() => document.querySelector('.graph-snapshot')?.style.display === 'none');
  const afterDrag = await positions(page);
  for (const [urn, p] of Object.entries(before)) {
    assert.ok(close(afterDrag[urn].x, p.x + 120) && close(afterDrag[urn].y, p.y + 60),
      `${urn}: ${JSON.stringify(p)} -> ${JSON.stringify(afterDrag[urn])}`);
  }
  assert.equal(new URL(page.url()).searchParams.get('r'), null, 'a drag is not a click');
  assert.deepEqual(errors, []);
  await context.close();
});

test('wheel zoom keeps the point under the cursor in place', async () => {
  const { page, context, errors } = await demoGraph();
  const before = await positions(page);
  const box = await page.locator('#stack-graph').boundingBox();
  const [urn, p] = Object.entries(before)[5];
  await page.mouse.move(box.x + p.x, box.y + p.y);
  for (let i = 0; i < 4; i++) await page.mouse.wheel(0, -120);
  await page.waitForFunction(() => !document.querySelector('.graph-snapshot') || document.querySelector('.graph-snapshot').style.display === 'none');
  await page.waitForTimeout(300);
  const afterZoom = await positions(page);
  assert.ok(close(afterZoom[urn].x, p.x, 2) && close(afterZoom[urn].y, p.y, 2), `${JSON.stringify(p)} -> ${JSON.stringify(afterZoom[urn])}`);
  // Everything else moved away from that point: the view zoomed in.
  const spread = (ps) => Object.values(ps).reduce((d, q) => d + Math.hypot(q.x - p.x, q.y - p.y), 0);
  assert.ok(spread(afterZoom) > spread(before) * 1.3, 'zoomed in');
  await page.screenshot({ path: path.join(ARTIFACTS, '07-graph-zoomed.png') });
  assert.deepEqual(errors, []);
  await context.close();
});
