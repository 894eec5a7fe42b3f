// A team discovers what its PostgreSQL server holds and imports it: the Discover view lists
// the provider's listable types, streams what List finds with each result's status, checks
// importability with a quick Read, and adds the selection to a plan. Needs the machine's
// PostgreSQL server (127.0.0.1:5432, role postgres); the server under test reads PGHOST.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { launch, open, api, ARTIFACTS } from '../lib/browser.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

const psql = (sql) => execFileSync('psql', ['-h', '127.0.0.1', '-U', 'postgres', '-v', 'ON_ERROR_STOP=1', '-c', sql]);

test('discover roles of a real server, check them, and add them to a plan', async () => {
  const prefix = `ferryui${process.pid}_`;
  psql(`DROP ROLE IF EXISTS ${prefix}api; DROP ROLE IF EXISTS ${prefix}batch`);
  psql(`CREATE ROLE ${prefix}api NOLOGIN; CREATE ROLE ${prefix}batch NOLOGIN CREATEDB`);
  try {
    const stack = await api('POST', `/api/v1/stacks?name=e2e/discovery/run-${Date.now()}`, { version: 3, deployment: {} });
    const { page, context, errors } = await open(browser, `/stacks/${stack.id}/discover`);
    const role = page.locator('#discover-types tr[data-type="postgresql:index/role:Role"]');
    await role.waitFor({ timeout: 30000 });
    // A package without List is named, not an error page.
    await page.locator('#discover-unlistable', { hasText: 'random: no List' }).waitFor();
    await role.locator('input.pick-type').check();
    await role.locator('input[data-filter="namePrefix"]').fill(prefix);
    await page.click('#discover-start');
    const rows = page.locator('#discover-results tr.found');
    await page.waitForFunction(() => document.querySelectorAll('#discover-results tr.found').length === 2);
    await page.locator('#discover-progress', { hasText: '2 found' }).waitFor();
    assert.deepEqual(await rows.evaluateAll((rs) => rs.map((r) => [r.dataset.id, r.dataset.status])),
      [[`${prefix}api`, 'unmanaged'], [`${prefix}batch`, 'unmanaged']]);

    await page.click('#discover-probe');
    await page.waitForFunction(() => [...document.querySelectorAll('#discover-results td.importable')].every((c) => c.textContent === 'found'));
    await page.screenshot({ path: path.join(ARTIFACTS, 'discovery.png'), fullPage: true });

    // Only the ticked result goes to the new plan.
    await rows.nth(1).locator('input.pick-result').check();
    await page.click('#discover-to-plan');
    await page.waitForURL(/\/plans\//, { timeout: 30000 });
    const plan = await api('GET', `/api/v1/plans/${page.url().split('/plans/')[1]}`);
    const spec = JSON.parse(plan.current.spec);
    assert.deepEqual(spec.resources, [{ type: 'postgresql:index/role:Role', name: `${prefix}batch`, id: `${prefix}batch` }]);
    assert.deepEqual(errors, []);
    await context.close();
  } finally {
    psql(`DROP ROLE IF EXISTS ${prefix}api; DROP ROLE IF EXISTS ${prefix}batch`);
  }
});
