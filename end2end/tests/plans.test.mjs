// Plans in the browser, one test per flow: create a plan from a stack, edit its spec in Monaco
// (a typo is underlined as it is typed), preview with live progress, review a resource's diff,
// resolve a property, download code, share read-only, and commit.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { readFile } from 'node:fs/promises';
import { launch, open, api, ARTIFACTS, BASE, authFetch, planTab } from '../lib/browser.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

const shot = (page, name) => page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });


/** A stack of the test's own (a copy of the demo stack), so commits change no other test's stack. */
async function demoCopy(name) {
  const stacks = await api('GET', '/api/v1/stacks');
  const demo = stacks.find((s) => s.name === 'ferry/demo/dev');
  const state = await (await authFetch(`${BASE}/api/v1/stacks/${demo.id}/export`)).text();
  // Moved to its own name: every URN renamed (`force`), as `pulumi stack rename` does.
  return api('POST', `/api/v1/stacks?name=e2e/${name}/run-${Date.now()}&force=true`, state);
}

const PORTS = {
  resources: [
    { type: 'random:index/randomInteger:RandomInteger', name: 'port-a', id: '7,1,10' },
    { type: 'random:index/randomInteger:RandomInteger', name: 'port-b', id: '8,1,10' },
    { type: 'random:index/randomString:RandomString', name: 'token', id: 'abcdef' },
    { type: 'random:index/randomPet:RandomPet', name: 'pet', id: 'x' },
  ],
};

const PROGRAM = `name: demo
runtime: yaml
resources:
  port:
    type: random:RandomInteger
    properties:
      min: 1
      max: 20
    options:
      import: "7,1,10"
`;

/** A plan on a copy of the demo stack, previewed, and its page open once the preview is done. */
async function previewedPlan(name, body) {
  const stack = await demoCopy(name);
  const plan = await api('POST', `/api/v1/stacks/${stack.id}/plans`, body);
  await api('POST', `/api/v1/plans/${plan.id}/previews`);
  const opened = await open(browser, `/plans/${plan.id}`);
  await waitDone(opened.page);
  return { stack, plan, ...opened };
}

async function waitDone(page) {
  await page.waitForFunction(() => document.querySelector('#plan-status')?.textContent === 'done', null, { timeout: 60000 });
}

/** Waits for `condition` in the page; on a timeout, says what the plan page showed. */
async function waitFor(page, what, condition, arg) {
  try {
    await page.waitForFunction(condition, arg, { timeout: 60000 });
  } catch (e) {
    const state = await page.evaluate(() => ({
      status: document.querySelector('#plan-status')?.textContent,
      graph: document.querySelector('#plan-graph')?.dataset,
      commit: document.querySelector('#plan-commit-card')?.textContent,
      problem: document.querySelector('#plan-problem')?.textContent,
    })).catch(() => 'the page is gone');
    throw new Error(`waiting for ${what}: ${e.message}\npage: ${JSON.stringify(state)}`);
  }
}

const editorLine = (page, editor, text) => page.locator(`#${editor} .view-line`, { hasText: text });

test('a plan is created from the demo stack, a typo in its spec is underlined as it is typed, and the fix saves a revision', async () => {
  const stacks = await api('GET', '/api/v1/stacks');
  const demo = stacks.find((s) => s.name === 'ferry/demo/dev');
  const { page, context, errors } = await open(browser, `/stacks/${demo.id}`);
  await page.click('#new-plan-spec');
  await page.waitForURL(/\/plans\/[0-9a-f]{32}$/);
  const planId = page.url().split('/').pop();
  // The review is the page's first tab; the source is the next.
  assert.equal(await page.getAttribute('#tab-review', 'aria-selected'), 'true');
  await planTab(page, 'source');
  await page.waitForSelector('#spec-editor .monaco-editor', { timeout: 30000 });
  assert.match(await page.textContent('.plan-head .meta'), /revision 1 of 1 · import spec/);
  assert.equal(await page.textContent('#plan-save-state'), 'Saved');
  await shot(page, '20-plan-created');

  // A typo: `name` becomes `nmae`. The server's problems come back underlined in the editor.
  await editorLine(page, 'spec-editor', '"name"').locator('span[class^="mtk"]', { hasText: /^"name"$/ }).dblclick();
  await page.keyboard.type('nmae');
  await page.waitForSelector('#plan-markers li.error', { timeout: 10000 });
  assert.match(await page.textContent('#plan-markers'), /a resource needs a name \(`name`, or `logicalName`\)/);
  assert.match(await page.textContent('#plan-markers'), /unknown field `nmae` is ignored \(did you mean `name`\?\)/);
  await page.waitForSelector('#spec-editor .squiggly-error');
  assert.equal(await page.isDisabled('#plan-save'), true, 'a spec with errors cannot be saved');
  assert.match(await page.textContent('#plan-save-state'), /problem\(s\) to fix before saving/);
  await shot(page, '21-plan-spec-typo');

  // Completion offers the providers' type tokens (from the plugin's schema).
  await editorLine(page, 'spec-editor', '"type"').locator('span[class^="mtk"]', { hasText: /"random:/ }).dblclick();
  await page.keyboard.press('Control+Space');
  await page.waitForSelector('.monaco-editor .suggest-widget.visible', { timeout: 10000 });
  assert.match(await page.textContent('.suggest-widget'), /random:index\/random/);
  await page.keyboard.press('Escape');

  // The fix clears the problems; saving writes revision 2.
  await editorLine(page, 'spec-editor', '"nmae"').locator('span[class^="mtk"]', { hasText: /^"nmae"$/ }).dblclick();
  await page.keyboard.type('name');
  await page.waitForFunction(() => document.querySelectorAll('#plan-markers li').length === 0, null, { timeout: 10000 });
  assert.equal(await page.textContent('#plan-save-state'), 'Saved', 'back to the saved text');
  // Options are part of a revision too.
  await page.selectOption('#option-code-style', 'code-first');
  assert.equal(await page.textContent('#plan-save-state'), 'Unsaved changes');
  await page.selectOption('#option-code-style', 'cli');
  assert.equal(await page.textContent('#plan-save-state'), 'Saved');
  // A real edit: the resource's name in the program.
  await editorLine(page, 'spec-editor', '"imported"').locator('span[class^="mtk"]', { hasText: /^"imported"$/ }).dblclick();
  await page.keyboard.type('front-door-id');
  await page.waitForFunction(() => document.querySelector('#plan-save-state')?.textContent === 'Unsaved changes');
  assert.equal(await page.isDisabled('#plan-save'), false);
  await page.click('#plan-save');
  await page.waitForFunction(() => /revision 2 of 2/.test(document.querySelector('.plan-head .meta')?.textContent ?? ''), null, { timeout: 30000 });
  await page.waitForSelector('body[data-hydrated="true"]');
  const plan = await api('GET', `/api/v1/plans/${planId}`);
  assert.equal(plan.revision, 2);
  const first = await api('GET', `/api/v1/plans/${planId}/revisions/1`);
  assert.match(first.current.spec, /"name": "imported"/);
  assert.match(plan.current.spec, /"name": "front-door-id"/);
  assert.equal(first.current.spec.replace('"imported"', '"front-door-id"'), plan.current.spec, 'the rest of the text is kept as typed');
  assert.deepEqual(plan.current.options, { strategy: 'read', code_style: 'cli', elide: true, scope: 'imports' });
  // Each revision has its own URL.
  const r1 = await open(browser, `/plans/${planId}/r/1`);
  assert.match(await r1.page.textContent('.plan-head .meta'), /revision 1 of 2/);
  await r1.context.close();
  assert.deepEqual(errors, []);
  await context.close();
});

test('a preview shows each resource as it arrives, with a count, filters, and its state when the page comes back', async () => {
  const stack = await demoCopy('progress');
  const plan = await api('POST', `/api/v1/stacks/${stack.id}/plans`, { title: 'Ports for the web tier', spec: JSON.stringify(PORTS, null, 2) });
  const { page, context, errors } = await open(browser, `/plans/${plan.id}`);
  assert.equal(await page.textContent('#plan-title'), 'Ports for the web tier');
  assert.match(await page.textContent('pre.source'), /port-a/);
  assert.equal(await page.textContent('#plan-status'), 'not previewed yet');
  await page.click('#plan-preview');
  await page.waitForSelector('#plan-results');
  await waitDone(page);
  assert.equal(await page.textContent('#plan-progress'), '4 of 4 steps');
  await page.waitForFunction(() => document.querySelectorAll('#plan-results .row[data-urn]').length === 4);
  const statuses = await page.locator('#plan-results .row[data-urn] .status').allTextContents();
  assert.deepEqual(statuses.sort(), ['failed', 'ready', 'ready', 'ready']);
  assert.match(await page.textContent('#plan-results'), /cannot be imported/);
  // Filters by status and by type (the stored preview's rows: the server filters them).
  const count = (text) => waitFor(page, `the count to say ${text}`, (t) => document.querySelector('#results-count')?.textContent === t, text);
  await page.selectOption('#results-status', 'failed');
  await count('1 of 4 resources');
  await page.waitForFunction(() => [...document.querySelectorAll('#plan-results .row[data-urn] .status')].map((s) => s.textContent).join() === 'failed');
  await page.selectOption('#results-status', '');
  await page.selectOption('#results-type', 'random:index/randomInteger:RandomInteger');
  await count('2 of 4 resources');
  await shot(page, '22-plan-previewed');

  // Leaving and coming back: the preview is there, as it ended.
  const back = await open(browser, `/plans/${plan.id}`);
  assert.equal(await back.page.textContent('#plan-status'), 'done');
  assert.equal(await back.page.textContent('#plan-progress'), '4 of 4 steps');
  await back.page.waitForSelector('#plan-results .row[data-urn]');
  assert.equal(await back.page.locator('#plan-results .row[data-urn]').count(), 4);
  await back.context.close();
  assert.deepEqual(errors, []);
  await context.close();
});

test('a big plan: its results come from the server a page at a time as they are scrolled and filtered; its graph is summarised', async () => {
  const resources = Array.from({ length: 1600 }, (_, i) => ({ type: 'random:index/randomInteger:RandomInteger', name: `port-${i}`, id: `${1 + (i % 9)},1,10` }));
  resources.push({ type: 'random:index/randomPet:RandomPet', name: 'pet', id: 'x' });
  const { page, context, errors } = await previewedPlan('big', { title: 'Many ports', spec: JSON.stringify({ resources }) });
  const count = (text) => waitFor(page, `the count to say ${text}`, (t) => document.querySelector('#results-count')?.textContent === t, text);
  await count('1601 of 1601 resources');
  // Far down the results: those rows are fetched when scrolled to.
  await page.locator('#results-scroller').evaluate((el) => { el.scrollTop = 1500 * 30; });
  // (While the stored preview's first page is on its way, the job's events may stand in, in
  // the order they finished; the stored rows are in the spec's.)
  await waitFor(page, 'row 1500', () => document.querySelector('#results-scroller .row[data-index="1500"] .name')?.textContent === 'port-1500');
  // Filtered on the server, by text and by status.
  await page.fill('#results-filter', 'PORT-159');
  await count('11 of 1601 resources');
  await page.fill('#results-filter', '');
  await page.selectOption('#results-status', 'failed');
  await count('1 of 1601 resources');
  await page.waitForFunction(() => document.querySelector('#results-scroller .row[data-index="0"] .name')?.textContent === 'pet');
  await shot(page, '22b-big-plan-results');
  // The graph is summarised: the ports are one group, marked ready; the pet failed.
  await planTab(page, 'graph');
  await waitFor(page, 'the graph', () => document.querySelector('#plan-graph')?.dataset.ready === 'true');
  const metrics = await page.evaluate(() => window.__ferryGraph.metrics);
  assert.ok(metrics.summarised && metrics.resources > 1600 && metrics.nodes < 100, JSON.stringify(metrics));
  const statuses = JSON.parse(await page.getAttribute('#plan-graph', 'data-statuses'));
  assert.deepEqual([statuses.ready, statuses.failed], [1, 1], JSON.stringify(statuses));
  // The confirmation counts every import and names the first hundred.
  await planTab(page, 'review');
  await page.click('#plan-commit');
  await waitFor(page, 'the confirmation', () => /and 1500 more/.test(document.querySelector('#plan-confirm')?.textContent || ''));
  assert.match(await page.textContent('#plan-confirm'), /adds 1600 imported resource\(s\)/);
  assert.match(await page.textContent('#plan-confirm'), /port-99 \(random:index\/randomInteger:RandomInteger\) — ready/);
  assert.deepEqual(errors, []);
  await context.close();
});

test("a resource's diff is reviewed and a property resolved: the next revision previews clean", async () => {
  const { plan, page, context, errors } = await previewedPlan('resolve', { title: 'Adopt a port', program: PROGRAM });
  await page.click('#plan-results .row[data-urn$="::port"]');
  await page.waitForSelector('#review-diff .monaco-diff-editor', { timeout: 30000 });
  assert.match(await page.textContent('#plan-results .row[data-urn$="::port"]'), /differs: max/);
  const max = page.locator('#review-properties tr[data-property="max"]');
  assert.deepEqual(await max.locator('td').allTextContents().then((t) => t.slice(0, 6)), ['max', '10', '20', 'replace', 'program', 'program']);
  assert.match(await page.textContent('#review-warnings'), /an import must leave no diff/);
  // Both sides of the diff editor: what Read returned, and the program.
  await page.waitForSelector('#review-diff .editor.original .view-line');
  const side = async (which) => (await page.locator(`#review-diff .editor.${which} .view-lines`).textContent()).replace(/\u00a0/g, ' ');
  assert.match(await side('original'), /"max": 10/);
  assert.match(await side('modified'), /"max": 20/);
  await shot(page, '23-plan-resource-diff');

  // A differing property's resolutions are in its one menu.
  await max.locator('details.row-menu summary').click();
  await max.locator('button[data-action="adopt"]').click();
  await page.waitForFunction(() => /revision 2 of 2/.test(document.querySelector('.plan-head .meta')?.textContent ?? ''), null, { timeout: 30000 });
  // The new revision's page, once interactive.
  await page.waitForSelector('body[data-hydrated="true"]');
  await waitDone(page);
  assert.match(await page.textContent('pre.source'), /max: 10/);
  await page.click('#plan-results .row[data-urn$="::port"]');
  await page.waitForSelector('#review-properties tr[data-property="max"]');
  const cells = await page.locator('#review-properties tr[data-property="max"] td').allTextContents();
  assert.deepEqual(cells.slice(0, 6), ['max', '10', '10', 'none', 'equal', 'user (adopt)']);
  assert.doesNotMatch(await page.textContent('#plan-results .row[data-urn$="::port"]'), /differs/);
  await shot(page, '24-plan-resolved');
  assert.deepEqual(errors, []);
  await context.close();
});

// Needs the server's plugin folder to hold the scripted test plugin in its `naive` mode as
// `pulumi-resource-test` (scripts/test.sh puts it there).
test('a nested leaf is reviewed and adopted alone, then every zero value and default in one click', async () => {
  const stack = await api('POST', `/api/v1/stacks?name=e2e/buckets/run-${Date.now()}`, { version: 3, deployment: {} });
  const program = 'name: buckets\nruntime: yaml\nresources:\n  logs:\n    type: test:index:Bucket\n    properties:\n      name: logs\n      versioning:\n        enabled: true\n    options:\n      import: logs\n';
  const plan = await api('POST', `/api/v1/stacks/${stack.id}/plans`, { title: 'Adopt a bucket', program });
  await api('POST', `/api/v1/plans/${plan.id}/previews`);
  const { page, context, errors } = await open(browser, `/plans/${plan.id}`);
  await waitDone(page);
  await page.waitForSelector('#plan-zero-values');
  const planCount = Number((await page.textContent('#plan-zero-values')).match(/^(\d+) of the differences/)[1]);
  assert.ok(planCount >= 3, `forceDestroy, tags and versioning.mfaDelete at least: ${planCount}`);

  // The leaf, with its own cause; adopted alone.
  await page.click('#plan-results .row[data-urn$="::logs"]');
  const leaf = page.locator('#review-properties tr[data-property="versioning.mfaDelete"]');
  await leaf.waitFor({ timeout: 30000 });
  const cells = await leaf.locator('td').allTextContents();
  assert.deepEqual([cells[0], cells[1], cells[2], cells[4]], ['versioning.mfaDelete', 'false', '—', 'zero-value']);
  assert.equal(await page.locator('#review-properties tr[data-property="versioning.enabled"] td.cause').textContent(), 'equal');
  assert.match(await page.textContent('#review-zero-values'), new RegExp(`^${planCount} of \\d+ differences are only zero values`));
  assert.equal(await page.isVisible('#review-properties tr[data-property="versioning.enabled"]'), false, 'equal properties are folded');
  await page.click('#review-show-equal');
  assert.equal(await page.isVisible('#review-properties tr[data-property="versioning.enabled"]'), true);
  assert.equal(await page.locator('#review-properties tr[data-property="versioning.enabled"] details.row-menu').count(), 0, 'no resolutions where nothing differs');
  await shot(page, '25-plan-leaf-review');
  await leaf.locator('details.row-menu summary').click();
  await leaf.locator('button[data-action="adopt"]').click();
  await page.waitForFunction(() => /revision 2 of 2/.test(document.querySelector('.plan-head .meta')?.textContent ?? ''), null, { timeout: 30000 });
  await page.waitForSelector('body[data-hydrated="true"]');
  await waitDone(page);
  assert.match(await page.textContent('pre.source'), /    versioning:\n        enabled: true\n        mfaDelete: false\n/);
  await page.click('#plan-results .row[data-urn$="::logs"]');
  // `versioning` now agrees as a whole (its leaves are shown only while they differ).
  await page.waitForSelector('#review-properties tr[data-property^="versioning"]', { state: 'attached' });
  const kinds = await page.locator('#review-properties tr[data-property^="versioning"] td.kind').allTextContents();
  assert.ok(kinds.every((k) => k === 'none'), `versioning no longer differs: ${kinds}`);

  // Everything else that is only a zero value or a default, in one click: one more revision.
  await page.click('#review-adopt-zero');
  await page.waitForFunction(() => /revision 3 of 3/.test(document.querySelector('.plan-head .meta')?.textContent ?? ''), null, { timeout: 30000 });
  await page.waitForSelector('body[data-hydrated="true"]');
  await waitDone(page);
  const source = await page.textContent('pre.source');
  assert.match(source, /forceDestroy: false/);
  assert.match(source, /name: logs\n/);
  assert.equal(await page.locator('#plan-zero-values').count(), 0, 'nothing left that is only a zero value or a default');
  await shot(page, '26-plan-zero-values-adopted');
  assert.deepEqual(errors, []);
  await context.close();
});

test('code is shown per language, copied, and downloaded as a runnable project zip', async () => {
  const { plan, page, context, errors } = await previewedPlan('code', { spec: JSON.stringify(PORTS) });
  // The code is generated when its tab opens.
  await planTab(page, 'code');
  await page.waitForFunction(() => /new random\.RandomInteger\("port-a"/.test(document.querySelector('#code-view')?.textContent ?? ''), null, { timeout: 30000 });
  await page.click('button[data-lang-tab="python"]');
  await page.waitForFunction(() => /random\.RandomInteger\("port-a"/.test(document.querySelector('#code-view')?.textContent ?? '') && /import pulumi_random/.test(document.querySelector('#code-view').textContent), null, { timeout: 30000 });
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  await page.click('#code-copy');
  assert.equal(await page.textContent('#code-copy'), 'Copied');
  assert.match(await page.evaluate(() => navigator.clipboard.readText()), /pulumi_random/);
  await shot(page, '25-plan-code');

  await page.click('button[data-lang-tab="ts"]');
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#code-download-zip')]);
  const zip = await readFile(await download.path());
  assert.equal(zip.readUInt32LE(0), 0x04034b50, 'a zip file');
  for (const name of ['Pulumi.yaml', 'index.ts', 'package.json', 'tsconfig.json']) {
    assert.ok(zip.includes(Buffer.from(name)), `the project zip holds ${name}`);
  }
  assert.deepEqual(errors, []);
  await context.close();
});

test("a big spec's page carries a screenful of it; the editor loads the whole, and a revision saved from it keeps every entry", async () => {
  const stack = await demoCopy('big-spec');
  const resources = Array.from({ length: 3000 }, (_, i) => ({ type: 'random:index/randomInteger:RandomInteger', name: `port-${i}`, id: `${1 + (i % 9)},1,10` }));
  const spec = JSON.stringify({ resources }, null, 2);
  const plan = await api('POST', `/api/v1/stacks/${stack.id}/plans`, { title: 'Big spec', spec });
  const { page, context, errors } = await open(browser, `/plans/${plan.id}`);
  // The page as it came from the server: the spec's first lines, not its 3,000 entries.
  const html = await (await context.request.get(`${BASE}/plans/${plan.id}`)).text();
  assert.ok(html.includes('port-0') && !html.includes('port-2999'), 'the page carries the start of the spec and not its end');
  assert.ok(html.length < 200 * 1024, `the page is ${html.length} bytes for a ${spec.length}-byte spec`);
  await planTab(page, 'source');
  await page.waitForSelector('#spec-editor[data-mounted="true"] .monaco-editor', { timeout: 30000 });
  assert.equal(await page.textContent('#plan-save-state'), 'Saved');
  // An option changed and saved: the new revision holds the whole spec the editor loaded.
  await page.click('#option-elide');
  assert.equal(await page.textContent('#plan-save-state'), 'Unsaved changes');
  await page.click('#plan-save');
  await waitFor(page, 'the saved revision', () => /revision 2 of 2/.test(document.querySelector('.plan-head .meta')?.textContent || ''));
  const saved = await api('GET', `/api/v1/plans/${plan.id}`);
  assert.equal(saved.current.revision, 2);
  assert.equal(saved.current.spec, spec, 'the saved revision keeps the whole spec');
  assert.equal(saved.current.options.elide, false);
  assert.deepEqual(errors, []);
  await context.close();
});

test('a read-only link shows the plan and its review but cannot edit, preview, resolve or commit; revoked, it shows nothing', async () => {
  const { plan, page, context, errors } = await previewedPlan('share', { title: 'Shared', program: PROGRAM });
  await page.click('#plan-share summary');
  await page.click('#plan-share-create');
  await page.waitForSelector('#plan-share input.share-url');
  const url = await page.inputValue('#plan-share input.share-url');
  assert.match(url, /\/shared\/[0-9a-f]{32}$/);
  assert.ok(!url.includes(plan.id), 'the link does not reveal the plan ID');

  const reviewer = await open(browser, new URL(url).pathname);
  const rp = reviewer.page;
  await planTab(rp, 'source');
  await rp.waitForSelector('#program-editor .monaco-editor', { timeout: 30000 });
  assert.match(await rp.textContent('#plan-read-only'), /read-only link/);
  for (const control of ['#plan-save', '#plan-preview', '#plan-commit', '#plan-share']) {
    assert.equal(await rp.locator(control).count(), 0, `${control} is not offered through the link`);
  }
  await planTab(rp, 'review');
  assert.equal(await rp.locator('#viewed-progress').count(), 0, 'a link has no reviewer to keep viewed marks for');
  await rp.waitForSelector('#plan-results .row[data-urn$="::port"]');
  await rp.click('#plan-results .row[data-urn$="::port"]');
  await rp.waitForSelector('#review-diff .monaco-diff-editor', { timeout: 30000 });
  assert.equal(await rp.locator('#review-properties button[data-action]').count(), 0, 'no resolutions through the link');
  // The editor is read-only: typing changes nothing.
  await planTab(rp, 'source');
  await editorLine(rp, 'program-editor', 'max: 20').click();
  await rp.keyboard.type('99');
  assert.equal(await rp.locator('#program-editor .view-line', { hasText: '99' }).count(), 0);
  assert.ok(!(await rp.content()).includes(plan.id), 'the page never carries the plan ID');
  await shot(rp, '26-plan-shared-read-only');

  await page.click('#plan-share .share-revoke');
  await page.waitForSelector('#plan-share li.revoked');
  const revoked = await open(browser, new URL(url).pathname);
  assert.match(await revoked.page.textContent('#plan-error'), /link/);
  await revoked.context.close();
  assert.deepEqual([...errors, ...reviewer.errors], []);
  await reviewer.context.close();
  await context.close();
});

test('a commit shows what it will write, then the graph shows the imported resources as managed', async () => {
  const { stack, plan, page, context, errors } = await previewedPlan('commit', { spec: JSON.stringify(PORTS) });
  // The graph is drawn when its tab opens.
  await planTab(page, 'graph');
  await waitFor(page, 'the graph', () => document.querySelector('#plan-graph')?.dataset.ready === 'true');
  assert.deepEqual(JSON.parse(await page.getAttribute('#plan-graph', 'data-statuses')), { ready: 3, failed: 1 });
  await planTab(page, 'review');
  await page.click('#plan-commit');
  // What it writes is named once the confirmation has fetched it.
  await waitFor(page, 'the confirmation', () => /port-a \(random:index\/randomInteger:RandomInteger\)/.test(document.querySelector('#plan-confirm')?.textContent ?? ''));
  assert.match(await page.textContent('#plan-confirm'), /adds 3 imported resource\(s\)/);
  await shot(page, '27-plan-confirm-commit');
  await page.click('#plan-confirm-commit');
  await waitFor(page, 'the commit', () => !!document.querySelector('#plan-committed'));
  assert.match(await page.textContent('#plan-committed'), /is now at version 2/);
  await planTab(page, 'graph');
  await waitFor(page, 'the managed resources in the graph', () => JSON.parse(document.querySelector('#plan-graph')?.dataset.statuses ?? '{}').managed === 3);
  await shot(page, '28-plan-committed-graph');
  const after = await api('GET', `/api/v1/stacks/${stack.id}`);
  assert.equal(after.version, 2);
  assert.equal(after.resources, 23);

  // Committing twice is refused, with the reason.
  await page.reload();
  await page.waitForSelector('body[data-hydrated="true"]');
  assert.match(await page.textContent('#plan-committed'), /at version 2/);
  const again = await authFetch(`${BASE}/api/v1/previews/${(await api('GET', `/api/v1/plans/${plan.id}`)).current.previews[0]}/commit`, { method: 'POST' });
  assert.equal(again.status, 409);

  // An unknown plan says so.
  const missing = await open(browser, '/plans/00000000000000000000000000000000');
  assert.match(await missing.page.textContent('#plan-error'), /no plan/);
  await missing.context.close();
  assert.deepEqual(errors, []);
  await context.close();
});

// A plan of two packages' resources (a migration's providers, say) previews in one job, and the
// page counts each package's resources as they are read. Needs the scripted test plugin as
// `pulumi-resource-test` (scripts/test.sh).
test('a preview of two packages counts each one\'s resources', async () => {
  const stack = await api('POST', `/api/v1/stacks?name=e2e/packages/run-${Date.now()}`, { version: 3, deployment: {} });
  const program = 'name: two\nruntime: yaml\nresources:\n  logs:\n    type: test:index:Bucket\n    properties:\n      name: logs\n    options:\n      import: logs\n'
    + '  port:\n    type: random:RandomInteger\n    properties:\n      min: 1\n      max: 10\n    options:\n      import: "7,1,10"\n';
  const plan = await api('POST', `/api/v1/stacks/${stack.id}/plans`, { title: 'Two packages', program });
  const { page, context, errors } = await open(browser, `/plans/${plan.id}`);
  await page.waitForSelector('body[data-hydrated="true"]');
  await page.click('#plan-preview');
  await waitDone(page);
  await waitFor(page, 'each package counted', (t) => document.querySelector('#plan-progress-packages')?.textContent === t, 'test 1 of 1 · random 1 of 1');
  assert.deepEqual(errors, []);
  await context.close();
});
