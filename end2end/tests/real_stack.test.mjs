// A real stack in the browser: a 93-resource `pulumi stack export` written by a real tool, and a
// program plan that declares only the two resources it imports (one placed after a VPC of the
// stack by URN). The preview shows 2 imports and the rest untouched, the commit writes the next
// version with everything, and previewing again shows only `same`.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { readFile } from 'node:fs/promises';
import { launch, open, api, fixture, ARTIFACTS, BASE, authFetch } from '../lib/browser.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });


/** Previews, and waits until the results show exactly `expected` (`status name`, any order). */
async function previewShows(page, expected) {
  await page.click('#plan-preview');
  const want = [...expected].sort();
  try {
    await page.waitForFunction((want) => {
      const rows = [...document.querySelectorAll('#plan-results .row[data-urn]')]
        .map((r) => `${r.querySelector('.status').textContent} ${r.querySelector('.name').textContent}`).sort();
      return document.querySelector('#plan-status')?.textContent === 'done' && JSON.stringify(rows) === JSON.stringify(want);
    }, want, { timeout: 60000 });
  } catch (e) {
    throw new Error(`the results never showed ${JSON.stringify(want)}: now ${JSON.stringify((await statuses(page)).sort())}, status ${await page.textContent('#plan-status')}`);
  }
}

const statuses = (page) => page.$$eval('#plan-results .row[data-urn]', (rows) => rows.map((r) => `${r.querySelector('.status').textContent} ${r.querySelector('.name').textContent}`));

test('a two-resource import program leaves a 93-resource stack untouched', async () => {
  const exportText = await readFile(fixture('tool-generated-export/dns-to-db-flat.export.json'), 'utf8');
  // The stack's URNs say `dev::dns-to-db`: its name must agree (a fresh organisation per run).
  const stack = await api('POST', `/api/v1/stacks?name=e2e-${Date.now()}/dns-to-db/dev`, exportText);
  assert.equal(stack.resources, 93);
  const vpc = JSON.parse(exportText).deployment.resources.find((r) => r.type === 'aws:ec2/vpc:Vpc').urn;
  const program = `name: dns-to-db
runtime: yaml
resources:
  port:
    type: random:RandomInteger
    properties:
      min: 1024
      max: 65535
    options:
      import: "8080,1024,65535"
  suffix:
    type: random:RandomId
    properties:
      byteLength: 4
    options:
      import: kT3ZqA
      dependsOn:
        - ${vpc}
`;
  const plan = await api('POST', `/api/v1/stacks/${stack.id}/plans`, { title: 'Two imports into a real stack', program });
  const { page, context, errors } = await open(browser, `/plans/${plan.id}`);
  assert.equal(await page.$eval('#option-scope', (s) => s.value), 'imports', 'the default scope of a plan');

  await previewShows(page, ['create default', 'import port', 'import suffix']);
  assert.match(await page.textContent('#plan-untouched'), /^92 resources in the stack, untouched/);
  await page.screenshot({ path: path.join(ARTIFACTS, '30-real-stack-imports-scope.png'), fullPage: true });

  await page.click('#plan-commit');
  assert.equal(await page.textContent('#plan-confirm-untouched'), "The stack's other 92 resource(s) stay exactly as they are.");
  await page.click('#plan-confirm-commit');
  await page.waitForSelector('#plan-committed', { timeout: 30000 });
  assert.match(await page.textContent('#plan-committed'), /version 2/);
  const after = await (await authFetch(`${BASE}/api/v1/stacks/${stack.id}/export`)).json();
  assert.equal(after.deployment.resources.length, 96, 'the stack, a default random provider and the two imports');

  await previewShows(page, ['same port', 'same suffix']);
  assert.match(await page.textContent('#plan-untouched'), /^92 resources/);
  assert.match(await page.textContent('#plan-commit-why'), /Nothing to commit: 2 same/);
  assert.ok(await page.$eval('#plan-commit', (b) => b.disabled), 'commit is disabled when nothing can be committed');
  assert.deepEqual(errors, []);
  await context.close();
});
