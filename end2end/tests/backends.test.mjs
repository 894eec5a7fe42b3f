// A team connects a stack kept in a Pulumi DIY backend folder (the server allows it; see
// scripts/test.sh: FERRY_E2E_BACKEND) from the home page, and a commit lands in that folder.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { launch, open, api, fixture, ARTIFACTS } from '../lib/browser.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

test('connect a DIY backend stack from the home page and commit into the folder', async () => {
  const root = process.env.FERRY_E2E_BACKEND;
  assert.ok(root, 'FERRY_E2E_BACKEND names the backend folder the server allows (scripts/test.sh sets it)');
  const project = `e2e${Date.now()}`;
  // Named as the checkpoint's URNs name its stack (`test-upsert`), as Pulumi lays a backend out.
  const file = path.join(root, '.pulumi/stacks', project, 'test-upsert.json');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(path.join(root, '.pulumi/meta.yaml'), 'version: 1\n');
  // A real checkpoint of the Pulumi CLI, under this run's project name.
  const checkpoint = JSON.parse(fs.readFileSync(fixture('real-diy-checkpoint/test-upsert.checkpoint.json'), 'utf8'));
  const text = JSON.stringify(checkpoint).replaceAll('s3bucket-test', project);
  fs.writeFileSync(file, text);

  const { page, context, errors } = await open(browser, '/');
  // The backend is allowed to organisation `diy` (scripts/test.sh); the stack becomes theirs.
  await page.fill('#connect-org', 'diy');
  await page.fill('#connect-url', `file://${root}`);
  await page.click('#connect-list');
  const row = page.locator('#connect-stacks tr', { hasText: `diy/${project}/test-upsert` });
  await row.waitFor();
  await page.screenshot({ path: path.join(ARTIFACTS, 'connect-backend.png'), fullPage: true });
  await row.locator('button.connect-stack').click();
  await page.waitForURL(/\/stacks\/[0-9a-f]+$/);
  await page.locator('#stack-name', { hasText: `diy/${project}/test-upsert` }).waitFor();
  const id = page.url().split('/stacks/')[1];

  const spec = { resources: [{ type: 'random:index/randomInteger:RandomInteger', name: 'port', id: '8080,1024,65535' }] };
  const preview = await api('POST', `/api/v1/stacks/${id}/previews`, spec);
  await api('POST', `/api/v1/previews/${preview.id}/commit`);
  const written = JSON.parse(fs.readFileSync(file, 'utf8'));
  assert.ok(written.checkpoint.latest.resources.some((r) => r.urn.endsWith('RandomInteger::port')), 'the commit is in the backend');
  assert.equal(fs.readFileSync(`${file}.bak`, 'utf8'), text, 'the old checkpoint kept as .bak');
  assert.deepEqual(errors, []);
  await context.close();
});
