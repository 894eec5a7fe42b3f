// A team migrates from Terraform in the browser: on a stack's page, "Migrate from Terraform"
// takes a real state file (the shared fixtures' `tf-project.tfstate`) with the configuration it
// was applied from, lists each instance with what became of it (its block beside its program), opens the plan, previews it (read by Ferry's random plugin, no difference
// from what Terraform recorded) and commits it into the stack.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { launch, open, api, ARTIFACTS, FIXTURES } from '../lib/browser.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

test('a Terraform state file becomes a plan, previews clean and commits', async () => {
  const stack = await api('POST', `/api/v1/stacks?name=e2e/terraform/run-${Date.now()}`, { version: 3, deployment: {} });
  const { page, context, errors } = await open(browser, `/stacks/${stack.id}`);
  await page.waitForSelector('body[data-hydrated="true"]');
  await page.click('#migrate-terraform summary');
  await page.setInputFiles('#migrate-file', path.join(FIXTURES, 'terraform', 'tf-project.tfstate'));
  // With the real configuration the state was applied from: the row shows its block beside
  // the program it becomes.
  await page.setInputFiles('#migrate-configuration', path.join(FIXTURES, 'terraform', 'tf-project', 'main.tf'));
  await page.click('#migrate-submit');
  await page.waitForSelector('#migrate-rows tbody tr', { timeout: 60000 });
  const rows = await page.locator('#migrate-rows tbody tr:not(.configured)').evaluateAll((rs) => rs.map((r) => [...r.cells].slice(0, 5).map((c) => c.textContent)));
  assert.deepEqual(rows, [['random_string.example', 'mapped', 'hashicorp/random → random', 'random:index/randomString:RandomString', 'example']]);
  const configured = page.locator('#migrate-rows tr.configured');
  assert.equal(await configured.locator('figure.hcl figcaption').textContent(), 'main.tf, line 10');
  assert.match(await configured.locator('figure.hcl pre').textContent(), /^resource "random_string" "example" \{\n  length  = 16/);
  assert.match(await configured.locator('figure.program pre').textContent(), /# terraform: random_string\.example\n  example:\n    type: random:index\/randomString:RandomString/);
  assert.equal(await configured.locator('.configuration-notes').count(), 0, 'the state agrees with its configuration');
  await page.screenshot({ path: path.join(ARTIFACTS, 'terraform-migration.png'), fullPage: true });

  await page.click('#migrate-plan');
  await page.waitForURL(/\/plans\/[0-9a-f]{32}$/, { timeout: 30000 });
  await page.waitForSelector('body[data-hydrated="true"]');
  // The plan streams in after the page hydrates: wait for it rather than read the body at once
  // (a clean run once read "Loading the plan…").
  await page.waitForFunction(() => /terraform: random_string\.example/.test(document.body.textContent), null, { timeout: 30000 });
  await page.click('#plan-preview');
  await page.waitForFunction(() => document.querySelector('#plan-status')?.textContent === 'done', null, { timeout: 60000 });
  const example = page.locator('#plan-results .row[data-urn$="::example"]');
  await example.waitFor({ timeout: 30000 });
  await page.screenshot({ path: path.join(ARTIFACTS, 'terraform-previewed.png'), fullPage: true });
  // Read by the provider, diffed against what Terraform recorded: nothing differs.
  assert.equal(await example.locator('.status').textContent(), 'import');
  // The review table shows each resource's Terraform address beside its name.
  assert.equal(await example.locator('.origin').textContent(), 'random_string.example');
  const text = await example.textContent();
  assert.ok(!/differ|warning/i.test(text), text);
  await page.click('#plan-commit');
  await page.waitForFunction(() => /example \(random:index\/randomString:RandomString\)/.test(document.querySelector('#plan-confirm')?.textContent ?? ''), null, { timeout: 30000 });
  await page.click('#plan-confirm-commit');
  await page.waitForSelector('#plan-committed', { timeout: 30000 });
  await page.screenshot({ path: path.join(ARTIFACTS, 'terraform-committed.png'), fullPage: true });
  const exported = await api('GET', `/api/v1/stacks/${stack.id}/export`);
  const imported = exported.deployment.resources.find((r) => r.type === 'random:index/randomString:RandomString');
  assert.equal(imported.id, '@(eF?C%#qSz<Jl5[');
  assert.deepEqual(errors, []);
  await context.close();
});

// The state where its backend keeps it: a local Terraform backend's folder the server allows
// the `e2e` organisation (scripts/test.sh: FERRY_E2E_TERRAFORM), its workspaces found and one
// picked, made into a plan with the configuration it was applied from.
test('a state where its backend keeps it: a workspace picked becomes a plan', async () => {
  const root = process.env.FERRY_E2E_TERRAFORM;
  assert.ok(root, 'FERRY_E2E_TERRAFORM names the Terraform backend folder the server allows (scripts/test.sh sets it)');
  fs.mkdirSync(path.join(root, 'terraform.tfstate.d', 'staging'), { recursive: true });
  fs.copyFileSync(path.join(FIXTURES, 'terraform', 'tf-project.tfstate'), path.join(root, 'terraform.tfstate'));
  fs.copyFileSync(path.join(FIXTURES, 'terraform', 'random-state.tfstate'), path.join(root, 'terraform.tfstate.d', 'staging', 'terraform.tfstate'));
  const stack = await api('POST', `/api/v1/stacks?name=e2e/tfremote/run-${Date.now()}`, { version: 3, deployment: {} });
  const { page, context, errors } = await open(browser, `/stacks/${stack.id}`);
  await page.waitForSelector('body[data-hydrated="true"]');
  await page.click('#migrate-terraform summary');
  await page.fill('#migrate-url', `file://${root}/terraform.tfstate`);
  await page.click('#migrate-list');
  await page.waitForSelector('#migrate-workspace', { timeout: 30000 });
  const names = await page.locator('#migrate-workspace option').evaluateAll((os) => os.map((o) => o.value));
  assert.deepEqual(names, ['default', 'staging']);
  await page.selectOption('#migrate-workspace', 'staging');
  // With the folder of the configuration it was applied from: its variable becomes the
  // program's config; what `terraform init` downloaded and files that are no `.tf` stay behind.
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'ferry-e2e-tf-'));
  const infra = path.join(folder, 'infra');
  fs.mkdirSync(path.join(infra, '.terraform', 'modules', 'x'), { recursive: true });
  fs.writeFileSync(path.join(infra, 'main.tf'), 'variable "len" {\n  type = number\n}\n\nresource "random_string" "random" {\n  length = var.len\n}\n');
  fs.writeFileSync(path.join(infra, '.terraform', 'modules', 'x', 'broken.tf'), 'resource "x" {');
  fs.writeFileSync(path.join(infra, 'README.md'), 'not read');
  await page.setInputFiles('#migrate-configuration-folder', infra);
  await page.screenshot({ path: path.join(ARTIFACTS, 'terraform-workspaces.png'), fullPage: true });
  await page.click('#migrate-remote-submit');
  await page.waitForSelector('#migrate-rows tbody tr', { timeout: 60000 });
  const rows = await page.locator('#migrate-rows tbody tr:not(.configured)').evaluateAll((rs) => rs.map((r) => [...r.cells].slice(0, 2).map((c) => c.textContent)));
  assert.deepEqual(rows, [['random_string.random', 'mapped']], 'the staging workspace\'s own state');
  const configured = page.locator('#migrate-rows tr.configured');
  assert.equal(await configured.locator('figure.hcl figcaption').textContent(), 'infra/main.tf, line 5');
  assert.match(await configured.locator('figure.program pre').textContent(), /length: \$\{len\}/);
  assert.match(await page.getAttribute('#migrate-plan', 'href'), /^\/plans\/[0-9a-f]{32}$/);
  assert.deepEqual(errors, []);
  await context.close();
});
