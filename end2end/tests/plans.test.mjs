// A plan is previewed in the background: each resource's status arrives as it finishes, with a
// count; coming back to the page shows where the preview is.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { launch, open, ARTIFACTS, BASE } from '../lib/browser.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

const shot = (page, name) => page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });

async function api(method, url, body) {
  const res = await fetch(BASE + url, { method, headers: { 'content-type': 'application/json' }, body: body && JSON.stringify(body) });
  const json = await res.json();
  assert.ok(res.ok, JSON.stringify(json));
  return json;
}

test('a plan previews with live progress, and a reload shows the finished preview', async () => {
  const stacks = await api('GET', '/api/v1/stacks');
  const demo = stacks.find((s) => s.name === 'ferry/demo/dev');
  const spec = {
    resources: [
      { type: 'random:index/randomInteger:RandomInteger', name: 'port-a', id: '7,1,10' },
      { type: 'random:index/randomInteger:RandomInteger', name: 'port-b', id: '8,1,10' },
      { type: 'random:index/randomPet:RandomPet', name: 'pet', id: 'x' },
    ],
  };
  const plan = await api('POST', `/api/v1/stacks/${demo.id}/plans`, { title: 'Ports for the web tier', spec: JSON.stringify(spec, null, 2) });

  const { page, context, errors } = await open(browser, `/plans/${plan.id}`);
  assert.equal(await page.textContent('#plan-title'), 'Ports for the web tier');
  assert.match(await page.textContent('#plan-source'), /port-a/);
  assert.equal(await page.textContent('#plan-status'), 'not previewed yet');
  await page.click('#plan-preview');
  await page.waitForFunction(() => document.querySelector('#plan-status')?.textContent === 'done', null, { timeout: 30000 });
  assert.equal(await page.textContent('#plan-progress'), '3 of 3');
  const statuses = await page.locator('#plan-results tbody td.status').allTextContents();
  assert.deepEqual(statuses.sort(), ['failed', 'ready', 'ready']);
  assert.match(await page.textContent('#plan-results'), /cannot be imported/);
  await shot(page, '20-plan-previewed');

  // Leaving and coming back: the preview is still there, as it ended.
  const back = await open(browser, `/plans/${plan.id}`);
  assert.equal(await back.page.textContent('#plan-status'), 'done');
  assert.equal(await back.page.textContent('#plan-progress'), '3 of 3');
  assert.equal(await back.page.locator('#plan-results tbody tr').count(), 3);
  await back.context.close();

  // An unknown plan says so.
  const missing = await open(browser, '/plans/00000000000000000000000000000000');
  assert.match(await missing.page.textContent('#plan-error'), /no plan/);
  await missing.context.close();
  assert.deepEqual(errors, []);
  await context.close();
});
