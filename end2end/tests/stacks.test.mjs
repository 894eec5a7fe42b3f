// A user brings a real Pulumi stack into Ferry and looks at it: upload, table, details, graph.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { launch, open, fixture, ARTIFACTS, BASE, authFetch } from '../lib/browser.mjs';
import { generateStack, uploadStack } from '../lib/generate.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

const shot = (page, name) => page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: false });
// The fixture's resources are stack `dev` of project `dns-to-db`: the name carries both.
const stackName = `e2e-${Date.now()}/dns-to-db/dev`;

test('the demo stack is listed on first start', async () => {
  const { page, context, errors } = await open(browser, '/');
  await page.waitForSelector('#stack-list');
  assert.match(await page.textContent('#stack-list'), /ferry\/demo\/dev/);
  await shot(page, '01-home');
  assert.deepEqual(errors, []);
  await context.close();
});

test('upload a state file, see its resources, open one, see the graph', async () => {
  const { page, context, errors } = await open(browser, '/');
  await page.fill('#upload-name', stackName);
  await page.setInputFiles('#upload-file', fixture('tool-generated-export/dns-to-db-components.export.json'));
  await page.click('#upload-submit');
  await page.waitForURL(/\/stacks\/[0-9a-f]{32}$/);
  assert.equal(await page.textContent('#stack-name'), stackName);
  // The file has 11 duplicated URNs: loadable, but the user is told.
  assert.match(await page.textContent('#stack-warnings summary'), /^11 warnings/);

  // The table: every resource counted, rows rendered, filter narrows them.
  await page.waitForSelector('#resource-count');
  assert.equal(await page.textContent('#resource-count'), '111 of 111 resources');
  const rows = await page.locator('#resource-scroller a.row').count();
  assert.ok(rows > 20 && rows < 111, `only rows near the viewport are in the DOM (got ${rows})`);
  await page.fill('#resource-filter', 'ec2/instance:Instance');
  await page.waitForFunction(() => !document.querySelector('#resource-count').textContent.startsWith('111 of'));
  const filtered = await page.textContent('#resource-count');
  assert.match(filtered, /^\d+ of 111 resources$/);
  await shot(page, '02-table-filtered');

  // Details: click a row; its URL names the resource; inputs are formatted JSON.
  const first = page.locator('#resource-scroller a.row').first();
  const urn = await first.getAttribute('data-urn');
  await first.click();
  await page.waitForURL(/\?r=/);
  assert.equal(new URL(page.url()).searchParams.get('r'), urn);
  await page.waitForSelector('#detail-inputs');
  const inputs = JSON.parse(await page.textContent('#detail-inputs'));
  assert.equal(typeof inputs, 'object');
  assert.equal(await page.textContent('#detail-name'), urn.split('::').slice(3).join('::'));
  await shot(page, '03-resource-detail');

  // The detail URL works on its own (shared link, reload).
  const deep = await open(browser, new URL(page.url()).pathname + new URL(page.url()).search);
  await deep.page.waitForSelector('#detail-inputs');
  await deep.context.close();

  // The graph: drawn (WebGL canvases), every resource a node; clicking a node opens it.
  await page.click('a.tab:has-text("Graph")');
  await page.waitForSelector('#stack-graph[data-ready="true"]', { timeout: 30000 });
  const metrics = await page.evaluate(() => window.__ferryGraph.metrics);
  assert.equal(metrics.nodes, 111);
  assert.ok(metrics.edges > 100);
  assert.ok((await page.locator('#stack-graph canvas').count()) > 0);
  await shot(page, '04-graph');
  const target = await page.evaluate(() => {
    const { renderer } = window.__ferryGraph;
    const graph = renderer.getGraph();
    const node = graph.findNode((_, a) => a.kind === 'provider');
    const p = renderer.graphToViewport(graph.getNodeAttributes(node));
    return { x: p.x, y: p.y, urn: graph.getNodeAttribute(node, 'urn') };
  });
  const box = await page.locator('#stack-graph').boundingBox();
  await page.mouse.click(box.x + target.x, box.y + target.y);
  await page.waitForURL((u) => new URL(u).searchParams.get('r') === target.urn);
  await page.waitForFunction((urn) => document.querySelector('#resource-detail')?.textContent.includes(urn), target.urn);
  assert.match(await page.textContent("#resource-detail"), /pulumi:providers:/);
  // The selected resource's neighbourhood stays lit and labelled; provider edges start hidden
  // when each package has one provider.
  await page.waitForFunction((urn) => document.querySelector('#stack-graph')?.dataset.focus === urn, target.urn);
  assert.ok(Number(await page.getAttribute('#stack-graph', 'data-neighbourhood')) > 1, 'the provider and the resources using it');
  const oneProviderEach = await page.evaluate(() => {
    const per = {};
    window.__ferryGraph.renderer.getGraph().forEachNode((_, a) => {
      if (a.kind === 'provider') per[a.resourceType.split(':')[2]] = (per[a.resourceType.split(':')[2]] || 0) + 1;
    });
    return Object.values(per).every((n) => n <= 1);
  });
  assert.equal(await page.isChecked('#stack-graph input[data-kind="provider"]'), !oneProviderEach);
  await shot(page, '05-graph-detail');
  assert.deepEqual(errors, []);
  await context.close();
});

test('a state under another stack\'s name is refused, the form offers its own, and moving it is a choice', async () => {
  const { page, context, errors } = await open(browser, '/');
  const org = `moved-${Date.now()}`;
  await page.fill('#upload-name', `${org}/web/prod`);
  await page.setInputFiles('#upload-file', fixture('tool-generated-export/dns-to-db-flat.export.json'));
  await page.click('#upload-submit');
  await page.waitForSelector('#upload-error');
  assert.match(await page.textContent('#upload-error'), /stack_mismatch/);
  assert.equal(await page.inputValue('#upload-name'), `${org}/dns-to-db/dev`, 'the name the file carries, offered');
  await shot(page, '06-upload-mismatch');
  // Or moved under the name asked for: every URN renamed.
  await page.fill('#upload-name', `${org}/web/prod`);
  await page.check('#upload-force');
  await page.click('#upload-submit');
  await page.waitForURL(/\/stacks\/[0-9a-f]{32}$/);
  assert.equal(await page.textContent('#stack-name'), `${org}/web/prod`);
  // The page's own failed upload is a 400 the browser reports; nothing else failed.
  assert.deepEqual(errors.filter((e) => !e.includes('status of 400')), []);
  await context.close();
});

test('a bad state file is refused in the page, naming the problem and where', async () => {
  const { page, context } = await open(browser, '/');
  await page.fill('#upload-name', 'e2e/bad/feature');
  await page.setInputFiles('#upload-file', fixture('pulumi-checkpoints/checkpoint-v4-unsupported-feature.json'));
  await page.click('#upload-submit');
  await page.waitForSelector('#upload-error');
  const text = await page.textContent('#upload-error');
  assert.match(text, /unknown_feature/);
  assert.match(text, /unsupported-feature/);
  assert.match(text, /at features/);
  await shot(page, '06-upload-error');
  const stacks = await (await authFetch(`${BASE}/api/v1/stacks`)).json();
  assert.ok(!stacks.some((s) => s.name === 'e2e/bad/feature'), 'nothing was stored');
  await context.close();
});

test('a big stack: the table pages, sorts and filters on the server; the graph is summarised and opens on demand', async () => {
  const run = `run-${Date.now()}`;
  const stack = await uploadStack(BASE, `e2e/big/${run}`, generateStack(3000, { seed: 3, project: 'big', stack: run }));
  const { page, context, errors } = await open(browser, `/stacks/${stack.id}`);
  await page.waitForSelector('body[data-hydrated="true"]');
  assert.equal(await page.textContent('#resource-count'), '3000 of 3000 resources');
  // Far down the table: those rows are fetched when scrolled to.
  await page.locator('#resource-scroller').evaluate((el) => { el.scrollTop = 2500 * 30; });
  await page.waitForSelector('#resource-scroller a.row[data-index="2500"]');
  // Sorted by name, descending (the second click), over all 3,000 rows: `svc-9` comes first.
  await page.click('button[data-sort="name"]');
  await page.click('button[data-sort="name"]');
  await page.waitForFunction(() => document.querySelector('#resource-scroller a.row[data-index="0"] .name')?.textContent === 'svc-9');
  await page.fill('#resource-filter', 'res-123');
  await page.waitForFunction(() => document.querySelector('#resource-count').textContent === '11 of 3000 resources');
  await shot(page, '05-big-table');

  await page.goto(`${BASE}/stacks/${stack.id}/graph`);
  await page.waitForSelector('#stack-graph[data-ready="true"]', { timeout: 30000 });
  const before = await page.evaluate(() => window.__ferryGraph.metrics);
  assert.ok(before.summarised && before.resources === 3000 && before.nodes < 1500, JSON.stringify(before));
  const group = await page.evaluate(() => {
    const { renderer } = window.__ferryGraph;
    const graph = renderer.getGraph();
    const node = graph.findNode((_, a) => a.kind === 'group');
    const p = renderer.graphToViewport(graph.getNodeAttributes(node));
    return { x: p.x, y: p.y, count: Number(graph.getNodeAttribute(node, 'label').split(' ')[0]) };
  });
  const box = await page.locator('#stack-graph').boundingBox();
  await page.mouse.click(box.x + group.x, box.y + group.y);
  // Redrawn with the group opened: its members are nodes of their own.
  await page.waitForFunction((n) => document.querySelector('#stack-graph')?.dataset.ready === 'true' && window.__ferryGraph.metrics.nodes === n, before.nodes - 1 + group.count, { timeout: 30000 });
  await shot(page, '06-big-graph-opened');
  assert.deepEqual(errors, []);
  await context.close();
});
