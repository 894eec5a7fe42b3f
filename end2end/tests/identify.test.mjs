// Identification in the browser: a program plan describing a resource that exists, without an
// import ID, opened on its Identify tab, identified as a job whose progress the page shows. The random integer's recipe (`<result>,<min>,<max>`)
// needs a part no program sets, so its row asks for it in a form with the recipe's parts; Try
// reads it with Ferry's random plugin; the pet, whose package documents no ID, is skipped. The
// choices download as a mapping, are saved as the plan's next revision, which previews as an
// import and commits.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { launch, open, api, ARTIFACTS } from '../lib/browser.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

const PROGRAM = `name: adopt
runtime: yaml
resources:
  port:
    type: random:RandomInteger
    properties:
      min: 1
      max: 65535
  pet:
    type: random:RandomPet
`;

test('a program is identified in a table, its choices saved as a revision and committed', async () => {
  const stack = await api('POST', `/api/v1/stacks?name=e2e/identify/run-${Date.now()}`, { version: 3, deployment: {} });
  const plan = await api('POST', `/api/v1/stacks/${stack.id}/plans`, { title: 'Adopt the port', program: PROGRAM });
  const { page, context, errors } = await open(browser, `/plans/${plan.id}#identify`);
  await page.waitForSelector('body[data-hydrated="true"]');
  // Identification runs as a job: what the progress line said while it ran, kept.
  await page.evaluate(() => {
    window.identifyProgress = [];
    new MutationObserver(() => {
      const busy = document.querySelector('#identify-busy');
      if (busy) window.identifyProgress.push(busy.textContent);
    }).observe(document.body, { subtree: true, childList: true, characterData: true });
  });
  await page.click('#identify-run');
  const port = page.locator('#identify-table tr[data-name="port"]');
  await port.waitFor({ timeout: 60000 });
  const said = await page.evaluate(() => window.identifyProgress);
  assert.ok(said.some((t) => /Read \d of 2 resources/.test(t)), `the progress counted the program's two resources: ${JSON.stringify(said)}`);
  assert.equal(await page.locator('#identify-busy').count(), 0);
  assert.equal(await port.getAttribute('data-status'), 'unidentified');
  assert.match(await port.locator('.identify-reason').textContent(), /does not set `result`/);
  // The form asks for each part of the recipe, the program's values filled in.
  const parts = await port.locator('.identify-part').evaluateAll((inputs) => inputs.map((i) => [i.dataset.property, i.value]));
  assert.deepEqual(parts, [['result', ''], ['min', '1'], ['max', '65535']]);
  const pet = page.locator('#identify-table tr[data-name="pet"]');
  assert.match(await pet.locator('.identify-reason').textContent(), /documents no import ID format/);
  await page.screenshot({ path: path.join(ARTIFACTS, 'identify-table.png'), fullPage: true });

  await port.locator('.identify-part[data-property="result"]').fill('8080');
  await port.locator('.identify-try').click();
  await page.waitForFunction(() => document.querySelector('#identify-table tr[data-name="port"]')?.dataset.status === 'identified', null, { timeout: 60000 });
  assert.equal(await port.locator('.identify-id').textContent(), '8080,1,65535');
  assert.equal(await port.locator('.identify-choice').inputValue(), 'import');
  await pet.locator('.identify-choice').selectOption('skip');
  await page.screenshot({ path: path.join(ARTIFACTS, 'identify-tried.png'), fullPage: true });

  // The mapping `--mapping` reads: the import's ID, a blank for the rest.
  const href = await page.getAttribute('#identify-mapping', 'href');
  const mapping = JSON.parse(decodeURIComponent(href.slice(href.indexOf(',') + 1)));
  assert.deepEqual(mapping, { pet: '', port: '8080,1,65535' });

  await page.click('#identify-save');
  await page.waitForFunction(() => !document.querySelector('#identify-save'), null, { timeout: 30000 });
  const saved = await api('GET', `/api/v1/plans/${plan.id}`);
  assert.equal(saved.current.revision, 2);
  assert.match(saved.current.program, /import: "8080,1,65535"/);
  assert.doesNotMatch(saved.current.program, /RandomPet/);

  // The new revision's preview (started with the save) imports the port; then the commit.
  const again = await open(browser, `/plans/${plan.id}`);
  await again.page.waitForSelector('body[data-hydrated="true"]');
  await again.page.waitForFunction(() => document.querySelector('#plan-status')?.textContent === 'done', null, { timeout: 60000 });
  const row = again.page.locator('#plan-results .row[data-urn$="::port"]');
  await row.waitFor({ timeout: 30000 });
  assert.equal(await row.locator('.status').textContent(), 'import');
  await again.page.click('#plan-commit');
  await again.page.click('#plan-confirm-commit');
  await again.page.waitForSelector('#plan-committed', { timeout: 30000 });
  await again.page.screenshot({ path: path.join(ARTIFACTS, 'identify-committed.png'), fullPage: true });
  const exported = await api('GET', `/api/v1/stacks/${stack.id}/export`);
  assert.equal(exported.deployment.resources.find((r) => r.urn.endsWith('::port')).id, '8080');
  assert.deepEqual(errors, []);
  assert.deepEqual(again.errors, []);
  await context.close();
  await again.context.close();
});
