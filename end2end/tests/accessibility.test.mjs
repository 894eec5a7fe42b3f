// Accessibility: every page passes axe-core (the npm package, run inside each page) with no
// serious or critical violation, and a reviewer who uses only the keyboard reviews and approves
// a plan: the review's keys (j, k, v), the tab order, Enter.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { launch, open, api, member, BASE, planTab } from '../lib/browser.mjs';

const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

/** axe-core's serious and critical violations in the page as it is now, one line each. */
async function violations(page) {
  if (!(await page.evaluate(() => typeof window.axe === 'object'))) {
    await page.addScriptTag({ path: AXE });
  }
  const results = await page.evaluate(() => window.axe.run(document, { resultTypes: ['violations'] }));
  return results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .flatMap((v) => v.nodes.map((n) => `${v.id} (${v.impact}): ${n.target.join(' ')} — ${n.failureSummary.replace(/\s+/g, ' ')}`));
}

/** Every page's violations, gathered so that one run names them all. */
const found = [];

async function assertAccessible(page, what) {
  assert.ok(await page.evaluate(() => document.body.dataset.hydrated === 'true'), `${what} is hydrated`);
  found.push(...(await violations(page)).map((v) => `${what}: ${v}`));
}

/** A stack with a previewed plan of two imports, written by the end-to-end administrator. */
async function previewedPlan(name) {
  const stack = await api('POST', `/api/v1/stacks?name=a11y/pages/${name}-${Date.now()}`, { version: 3, deployment: {} });
  const spec = JSON.stringify({
    resources: [
      { type: 'random:index/randomInteger:RandomInteger', name: 'port-a', id: '5,1,10' },
      { type: 'random:index/randomInteger:RandomInteger', name: 'port-b', id: '6,1,10' },
    ],
  });
  const plan = await api('POST', `/api/v1/stacks/${stack.id}/plans`, { title: `Ports (${name})`, spec });
  const job = await api('POST', `/api/v1/plans/${plan.id}/previews`);
  for (let i = 0; i < 600; i++) {
    const now = await api('GET', `/api/v1/plans/${plan.id}/jobs/${job.id}`);
    if (now.status === 'done') return { stack, plan };
    assert.ok(now.status === 'queued' || now.status === 'running', `the preview ended ${now.status}: ${now.error}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('the preview did not end');
}

test('every page passes axe-core with no serious or critical violation', async () => {
  const { stack, plan } = await previewedPlan('pages');
  const share = await api('POST', `/api/v1/plans/${plan.id}/shares`, {});

  const { page, context, errors } = await open(browser, '/');
  await assertAccessible(page, 'the home page');
  // An invitation is made from an administrator's session (never with a token).
  const invitation = await page.evaluate(async () => {
    const res = await fetch('/api/v1/orgs/a11y/invitations', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ roles: ['viewer'], days: 1 }) });
    return res.json();
  });
  assert.ok(invitation.token, JSON.stringify(invitation));

  const anonymous = await open(browser, '/signin', { as: null });
  await assertAccessible(anonymous.page, 'the sign-in page');
  await anonymous.page.goto(`${BASE}/invitations/${invitation.token}`);
  await anonymous.page.waitForSelector('body[data-hydrated="true"]');
  await assertAccessible(anonymous.page, 'an invitation');
  await anonymous.page.goto(`${BASE}/shared/${share.token}`);
  await anonymous.page.waitForSelector('body[data-hydrated="true"]');
  await assertAccessible(anonymous.page, 'a plan through a read-only link');
  assert.deepEqual(anonymous.errors, []);
  await anonymous.context.close();

  for (const [path, what] of [
    ['/account', 'the account page'],
    [`/stacks/${stack.id}`, "a stack's resources"],
    [`/stacks/${stack.id}/graph`, "a stack's graph"],
    [`/stacks/${stack.id}/discover`, "a stack's discovery"],
    [`/stacks/${stack.id}/plans`, "a stack's plans"],
  ]) {
    await page.goto(BASE + path);
    // A page that does not hydrate is named, with what its console said (this step has timed
    // out now and then on a loaded machine; the name says where to look).
    const said = [];
    const listen = (m) => said.push(`${m.type()}: ${m.text().slice(0, 300)}`);
    page.on('console', listen);
    await page.waitForSelector('body[data-hydrated="true"]').catch((e) => {
      throw new Error(`${what} (${path}) did not hydrate: ${e.message}\nits console: ${JSON.stringify(said)}`);
    });
    page.off('console', listen);
    await assertAccessible(page, what);
  }
  // The Terraform migration form, opened.
  await page.goto(`${BASE}/stacks/${stack.id}`);
  await page.waitForSelector('body[data-hydrated="true"]');
  if (await page.locator('details.migrate summary').count()) {
    await page.click('details.migrate summary');
    await assertAccessible(page, "a stack's page with the migration form open");
  }

  // The plan page: each tab, and the review of a resource.
  await page.goto(`${BASE}/plans/${plan.id}`);
  await page.waitForSelector('body[data-hydrated="true"]');
  await page.click('#plan-results .row[data-urn$="::port-a"]');
  await page.waitForSelector('#review-diff .monaco-diff-editor', { timeout: 30000 });
  await assertAccessible(page, "a plan's review");
  for (const tab of ['source', 'code', 'graph', 'activity']) {
    await planTab(page, tab);
    if (tab === 'source') await page.waitForSelector('#spec-editor .monaco-editor', { timeout: 30000 });
    if (tab === 'code') await page.waitForSelector('#code-view', { timeout: 30000 });
    if (tab === 'graph') await page.waitForFunction(() => document.querySelector('#plan-graph')?.dataset.ready === 'true', null, { timeout: 30000 });
    await assertAccessible(page, `a plan's ${tab} tab`);
  }
  assert.deepEqual(found, [], "axe-core's serious and critical violations");
  assert.deepEqual(errors, []);
  await context.close();
});

test('a reviewer using only the keyboard moves through the resources, marks them viewed, and approves the plan', async () => {
  const { stack, plan } = await previewedPlan('keyboard');
  await api('PUT', `/api/v1/stacks/${stack.id}/settings`, { required_approvals: 1, author_may_approve: false });
  await member('a11y', 'kim', ['approver']);
  const { page, context, errors } = await open(browser, `/plans/${plan.id}`, { as: 'kim' });
  await page.waitForFunction(() => document.querySelector('#viewed-progress')?.textContent === '0 of 2 viewed');

  // j: the first resource, opened; v: viewed. j again, v again: both viewed; k goes back; v
  // takes the mark off and puts it back.
  const press = async (key, reviewing, viewed) => {
    await page.keyboard.press(key);
    await page.waitForFunction(([name, text]) => document.querySelector('#review-name')?.textContent === name
      && document.querySelector('#viewed-progress')?.textContent === text, [reviewing, `${viewed} of 2 viewed`]);
  };
  await press('j', 'port-a', 0);
  await press('v', 'port-a', 1);
  await press('j', 'port-b', 1);
  await press('v', 'port-b', 2);
  await press('k', 'port-a', 2);
  await press('v', 'port-a', 1);
  await press('v', 'port-a', 2);
  assert.deepEqual((await api('GET', `/api/v1/previews/${(await api('GET', `/api/v1/plans/${plan.id}`)).current.previews[0]}/viewed`)).viewed, [], "marks are each reviewer's own");

  // Escape closes the review; Tab walks the page to the approve button, Enter approves.
  await page.keyboard.press('Escape');
  await page.waitForSelector('#review-empty');
  let reached = false;
  for (let i = 0; i < 200 && !reached; i++) {
    await page.keyboard.press('Tab');
    reached = await page.evaluate(() => document.activeElement?.id === 'plan-approve');
  }
  assert.ok(reached, 'the approve button is in the tab order');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => /^1 of 1 approvals/.test(document.querySelector('#approval-summary')?.textContent ?? ''), null, { timeout: 30000 });
  // The plan's state in its head follows without a reload.
  await page.waitForFunction(() => document.querySelector('#plan-state .badge')?.textContent === 'Approved');
  const approvals = await api('GET', `/api/v1/plans/${plan.id}/approvals`);
  assert.deepEqual(approvals.approvals.map((a) => a.approver), ['kim']);
  assert.deepEqual(errors, []);
  await context.close();
});
