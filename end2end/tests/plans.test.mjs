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
  const res = await fetch(BASE + url, { method, headers: { 'content-type': 'application/json' }, body: body && (typeof body === 'string' ? body : JSON.stringify(body)) });
  const json = await res.json();
  assert.ok(res.ok, JSON.stringify(json));
  return json;
}

test('a plan previews with live progress, a reload shows it, its code downloads, and it commits', async () => {
  // A stack of its own (an empty one), so the commit changes no other test's stack.
  const stack = await api('POST', `/api/v1/stacks?name=e2e/plans/run-${Date.now()}`, '{"version": 3, "deployment": {}}');
  const spec = {
    resources: [
      { type: 'random:index/randomInteger:RandomInteger', name: 'port-a', id: '7,1,10' },
      { type: 'random:index/randomInteger:RandomInteger', name: 'port-b', id: '8,1,10' },
      { type: 'random:index/randomPet:RandomPet', name: 'pet', id: 'x' },
    ],
  };
  const plan = await api('POST', `/api/v1/stacks/${stack.id}/plans`, { title: 'Ports for the web tier', spec: JSON.stringify(spec, null, 2) });

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

  // Code for what the preview can import, in each language, as a file or a project.
  const ts = await page.getAttribute('#plan-code a[data-lang="ts"]', 'href');
  const code = await (await fetch(BASE + ts)).text();
  assert.match(code, /new random\.RandomInteger\("port-a"/);
  assert.equal(await page.locator('#plan-code a.zip').count(), 5);

  // Commit: a confirmation says exactly what will be written, then the new version.
  await page.click('#plan-commit');
  await page.waitForSelector('#plan-confirm');
  assert.match(await page.textContent('#plan-confirm'), /adds 2 imported resource\(s\)/);
  assert.match(await page.textContent('#plan-confirm'), /port-a \(random:index\/randomInteger:RandomInteger\)/);
  await shot(page, '21-plan-confirm-commit');
  await page.click('#plan-confirm-commit');
  await page.waitForSelector('#plan-committed');
  assert.match(await page.textContent('#plan-committed'), /is now at version 2/);
  const after = await api('GET', `/api/v1/stacks/${stack.id}`);
  assert.equal(after.version, 2);

  // An unknown plan says so.
  const missing = await open(browser, '/plans/00000000000000000000000000000000');
  assert.match(await missing.page.textContent('#plan-error'), /no plan/);
  await missing.context.close();
  assert.deepEqual(errors, []);
  await context.close();
});
