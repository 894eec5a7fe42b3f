// Benchmark (not a test): how readable the stack graph's picture is, as a person first sees it
// (the initial camera, the edges and labels sigma actually draws), for the demo stack and the
// 111-resource `dns-to-db` export:
//   edge crossings: pairs of drawn edges whose segments cross (sharing an end does not count);
//   label overlaps: pairs of drawn labels whose boxes (measured with the canvas's own font
//                   metrics, where sigma places them) overlap.
// Each stack's picture is saved to end2end/artifacts/layout-<name>.png.
// Run it against a server (FERRY_URL) that has the demo stack.
import path from 'node:path';
import { readFile } from 'node:fs/promises';
import { adminContext, launch, api, fixture, ARTIFACTS, BASE } from '../lib/browser.mjs';

const browser = await launch();
const stacks = await api('GET', '/api/v1/stacks');
const demo = stacks.find((s) => s.name === 'ferry/demo/dev');
if (!demo) throw new Error('the server has no demo stack (start it without --no-demo)');
const exportText = await readFile(fixture('tool-generated-export/dns-to-db-components.export.json'), 'utf8');
// The fixture's resources are stack `dev` of project `dns-to-db`: the name carries both.
const dns = await api('POST', `/api/v1/stacks?name=bench-${Date.now()}/dns-to-db/dev`, exportText);

/** Crossings and overlaps in the page's graph, as drawn. */
function measure() {
  const { renderer } = window.__ferryGraph;
  const graph = renderer.getGraph();
  const at = (node) => {
    const d = renderer.getNodeDisplayData(node);
    const p = renderer.framedGraphToViewport(d);
    return { x: p.x, y: p.y, size: renderer.scaleSize(d.size), hidden: d.hidden, label: d.label };
  };
  const segments = [];
  graph.forEachEdge((edge, _attrs, source, target) => {
    const d = renderer.getEdgeDisplayData(edge);
    if (!d || d.hidden) return;
    segments.push([source, target, at(source), at(target)]);
  });
  const orient = (a, b, c) => Math.sign((b.x - a.x) * (c.y - a.y) - (b.y - a.y) * (c.x - a.x));
  let crossings = 0;
  for (let i = 0; i < segments.length; i++) {
    for (let j = i + 1; j < segments.length; j++) {
      const [s1, t1, a, b] = segments[i];
      const [s2, t2, c, d] = segments[j];
      if (s1 === s2 || s1 === t2 || t1 === s2 || t1 === t2) continue;
      if (orient(a, b, c) * orient(a, b, d) < 0 && orient(c, d, a) * orient(c, d, b) < 0) crossings++;
    }
  }
  // Sigma's default label: `normal 14px Arial`, drawn at (x + size + 3, y + 14 / 3).
  const ctx = document.createElement('canvas').getContext('2d');
  ctx.font = 'normal 14px Arial';
  const boxes = [];
  // The labels on the canvas: those Ferry's drawer drew (it skips any that would overlap), or
  // for a renderer without it, all sigma selected.
  for (const node of window.__ferryGraph.drawnLabels ?? renderer.displayedNodeLabels ?? []) {
    const n = at(node);
    if (!n.label) continue;
    const m = ctx.measureText(n.label);
    const left = n.x + n.size + 3, baseline = n.y + 14 / 3;
    boxes.push({ left, right: left + m.width, top: baseline - m.actualBoundingBoxAscent, bottom: baseline + m.actualBoundingBoxDescent });
  }
  let overlaps = 0;
  for (let i = 0; i < boxes.length; i++) {
    for (let j = i + 1; j < boxes.length; j++) {
      const a = boxes[i], b = boxes[j];
      if (a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom) overlaps++;
    }
  }
  return { nodes: graph.order, drawnEdges: segments.length, crossings, labels: boxes.length, overlaps };
}

for (const [name, stack] of [['demo', demo], ['dns-to-db', dns]]) {
  const context = await adminContext(browser, { viewport: { width: 1400, height: 900 } });
  const page = await context.newPage();
  await page.goto(`${BASE}/stacks/${stack.id}/graph`);
  await page.waitForSelector('#stack-graph[data-ready="true"]', { timeout: 60000 });
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  const figures = await page.evaluate(measure);
  await page.locator('#stack-graph').screenshot({ path: path.join(ARTIFACTS, `layout-${name}.png`) });
  console.log(`${name}: ${figures.nodes} nodes, ${figures.drawnEdges} edges drawn, ${figures.crossings} crossings; ${figures.labels} labels drawn, ${figures.overlaps} overlapping pairs`);
  await context.close();
}
await browser.close();
