// A team reviews an import in Chromium: local users and one user of a real OpenID Provider
// (panva's oidc-provider, started by the test command). A planner creates and previews a plan;
// the approver (signed in through OpenID Connect, an approver by the provider's groups) finds
// it on their home page, waiting for their review, comments on a property and requests
// changes; the planner sees that, revises and previews, which answers the request; the
// approver finds it waiting again and approves; a committer commits, and the stack's version
// links back to the plan; a viewer sees it all without controls and gets 403 from the API. The
// audit log shows that sequence.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import http from 'node:http';
import crypto from 'node:crypto';
import { launch, open, api, member, ARTIFACTS, BASE, planTab } from '../lib/browser.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

const shot = (page, name) => page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });
// Nothing runs past the page's width (at 1280 and 1920 pixels), and a screenshot of each.
const atWidths = async (page, name) => {
  for (const width of [1280, 1920]) {
    await page.setViewportSize({ width, height: 900 });
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `${name} runs ${overflow} px past a ${width}-pixel window`);
    // Nor does any control or cell run past the card it is in (scrolled lists and editors aside).
    const past = await page.evaluate(() => [...document.querySelectorAll('.card button, .card input, .card select, .card summary, .card td, .card th, .card a')]
      .filter((el) => el.offsetParent !== null && !el.closest('.monaco-editor, .scroller, .menu'))
      .filter((el) => el.getBoundingClientRect().right > el.closest('.card').getBoundingClientRect().right + 1)
      .map((el) => el.id || el.textContent.trim().slice(0, 40)));
    assert.deepEqual(past, [], `${name} at ${width} pixels: these run past their card`);
    await shot(page, `${name}-${width}`);
  }
  await page.setViewportSize({ width: 1400, height: 900 });
};
const waitDone = (page) => page.waitForFunction(() => document.querySelector('#plan-status')?.textContent === 'done', null, { timeout: 60000 });

test('a planner, an approver from the OpenID Provider, a committer and a viewer take an import through review', async (t) => {
  assert.ok(process.env.FERRY_E2E_OIDC, 'the test command starts the OpenID Provider (FERRY_E2E_OIDC)');
  const stack = await api('POST', `/api/v1/stacks?name=team/e2e/run-${Date.now()}`, { version: 3, deployment: {} });
  await member('team', 'paula', ['planner']);
  await member('team', 'carl', ['committer']);

  // An administrator invites the viewer on the account page; she opens the link, chooses her
  // own name and password, and is in. Then the administrator sets the stack's rule on its
  // page: one approval, not the author's.
  const admin = await open(browser, '/account');
  await admin.page.selectOption('#org-admin-org', '*');
  await admin.page.waitForSelector('#org-members tbody tr');
  await admin.page.click('#member-invite');
  await admin.page.waitForSelector('#invitation-link');
  const invitation = await admin.page.inputValue('#invitation-link');
  assert.match(invitation, /\/invitations\/ferry_invite_[0-9a-f]{32}$/);
  const newcomer = await open(browser, new URL(invitation).pathname, { as: null });
  assert.match(await newcomer.page.textContent('#invitation-text'), /invites you to every organisation.*viewer/s);
  await newcomer.page.fill('#invitation-name', 'vera');
  await newcomer.page.fill('#invitation-password', 'end-to-end password');
  await shot(newcomer.page, 'team-invitation');
  await newcomer.page.click('#invitation-accept');
  await newcomer.page.waitForURL(`${BASE}/`);
  await newcomer.page.waitForSelector('body[data-hydrated="true"]');
  assert.equal(await newcomer.page.textContent('#user-name'), 'vera');
  assert.deepEqual(newcomer.errors, []);
  await newcomer.context.close();
  await admin.page.reload();
  await admin.page.waitForSelector('body[data-hydrated="true"]');
  await admin.page.selectOption('#org-admin-org', '*');
  await admin.page.waitForFunction(() => /vera/.test(document.querySelector('#org-members')?.textContent ?? ''));
  await admin.page.waitForSelector('#audit-log .audit-record');
  // The administrator adds a webhook for the team (a receiver this test runs; the test server
  // allows webhooks to this machine) and keeps its secret, shown once.
  const received = [];
  const receiver = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d)).on('end', () => { received.push({ headers: req.headers, body }); res.end('ok'); });
  });
  await new Promise((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  // Closed however the test ends: a listening server left open keeps this file's process, and
  // with it the whole suite, waiting.
  t.after(() => receiver.close());
  // (A server administrator's webhook of every organisation: it hears the team's plans too.)
  await admin.page.selectOption('#org-admin-org', '*');
  await admin.page.fill('#webhook-url', `http://127.0.0.1:${receiver.address().port}/ferry`);
  await admin.page.click('#webhook-create');
  await admin.page.waitForSelector('#webhook-secret');
  const secret = await admin.page.inputValue('#webhook-secret');
  assert.match(secret, /^whsec_[0-9a-f]{32}$/);
  await shot(admin.page, 'team-account');
  await admin.page.goto(`${BASE}/stacks/${stack.id}`);
  await admin.page.waitForSelector('body[data-hydrated="true"]');
  await admin.page.fill('#stack-required-approvals', '1');
  await admin.page.dispatchEvent('#stack-required-approvals', 'change');
  await admin.page.click('#stack-rule-save');
  await admin.page.waitForSelector('#stack-approval-rule >> text=Saved.');
  assert.deepEqual(await api('GET', `/api/v1/stacks/${stack.id}/settings`), { required_approvals: 1, author_may_approve: false });

  // 1. The planner creates a plan from the stack's page and previews it.
  const planner = await open(browser, `/stacks/${stack.id}`, { as: 'paula' });
  assert.equal(await planner.page.textContent('#user-name'), 'paula');
  await planner.page.click('#new-plan-spec');
  await planner.page.waitForURL(/\/plans\/[0-9a-f]{32}$/);
  const planId = planner.page.url().split('/').pop();
  await planTab(planner.page, 'source');
  await planner.page.waitForSelector('#spec-editor .monaco-editor', { timeout: 30000 });
  await planTab(planner.page, 'review');
  await planner.page.click('#plan-preview');
  await waitDone(planner.page);

  // 2. The approver signs in through the OpenID Provider, finds the plan waiting for their
  // review on their home page, comments on a property and asks for changes.
  const approver = await open(browser, '/signin', { as: null });
  await approver.page.click('#signin-oidc');
  await approver.page.waitForURL((u) => u.href.startsWith(process.env.FERRY_E2E_OIDC));
  await approver.page.fill('input[name=login]', 'olga');
  await approver.page.fill('input[name=password]', 'anything');
  await approver.page.click('button[type=submit]');
  await approver.page.click('button[type=submit]'); // consent: Continue
  await approver.page.waitForURL(`${BASE}/`);
  await approver.page.waitForSelector('body[data-hydrated="true"]');
  // The provider's own pages fetch fonts from the internet, which this machine cannot reach;
  // only Ferry's pages are this test's business.
  approver.errors.length = 0;
  assert.equal(await approver.page.textContent('#user-name'), 'olga');
  const waiting = approver.page.locator(`#waiting-list tr[data-plan="${planId}"]`);
  assert.equal(await waiting.count(), 1, 'the plan waits for olga\'s review');
  assert.match(await approver.page.textContent('#waiting-for-review h2'), /Waiting for your review \(\d+\)/);
  await atWidths(approver.page, 'team-home');
  await waiting.locator('a').first().click();
  await approver.page.waitForURL(`${BASE}/plans/${planId}`);
  await approver.page.waitForSelector('body[data-hydrated="true"]');
  assert.equal(await approver.page.textContent('#plan-state .badge'), 'Previewed');
  assert.equal(await approver.page.isVisible('#plan-preview'), false, 'approvers do not preview');
  // Nothing viewed yet; `j` picks the first resource, `v` marks it viewed (the server keeps it).
  await approver.page.waitForFunction(() => document.querySelector('#viewed-progress')?.textContent === '0 of 1 viewed');
  await approver.page.keyboard.press('j');
  await approver.page.waitForSelector('#review-name');
  await approver.page.keyboard.press('v');
  await approver.page.waitForFunction(() => document.querySelector('#viewed-progress')?.textContent === '1 of 1 viewed');
  assert.equal(await approver.page.isChecked('#review-viewed'), true);
  assert.equal(await approver.page.isChecked('#plan-results .row[data-urn] input.viewed-mark'), true);
  await approver.page.click('#plan-results .row[data-urn]');
  await approver.page.waitForSelector('#comment-form');
  await approver.page.selectOption('#comment-property', 'max');
  await approver.page.fill('#comment-text', 'Is 10 the maximum we run with?');
  await approver.page.click('#comment-submit');
  await approver.page.waitForSelector('#review-comments .thread .comment-body');
  assert.match(await approver.page.textContent('#review-comments'), /on `max`.*olga.*Is 10 the maximum/s);
  await approver.page.click('#review-show-equal');
  await atWidths(approver.page, 'team-workspace');
  await approver.page.fill('#request-changes-body', 'Import it as code-first, please.');
  await approver.page.click('#plan-request-changes');
  await approver.page.waitForSelector('#change-request-list .change-request');
  assert.match(await approver.page.textContent('#change-request-list'), /olga requested changes to revision 1.*code-first/s);
  await approver.page.waitForSelector('#withdraw-change-request');

  // 3. The planner sees the request, revises, and previews: the request is answered.
  await planner.page.reload();
  await planner.page.waitForSelector('body[data-hydrated="true"]');
  assert.equal(await planner.page.textContent('#plan-state .badge'), 'Changes requested');
  await planner.page.waitForFunction(() => /`olga` requested changes/.test(document.querySelector('#approval-reason')?.textContent ?? ''));
  await planTab(planner.page, 'source');
  await planner.page.waitForSelector('#spec-editor .monaco-editor', { timeout: 30000 });
  // Options are part of a revision: the code style changes, the resource stays the same one.
  await planner.page.selectOption('#option-code-style', 'code-first');
  await planner.page.waitForFunction(() => document.querySelector('#plan-save-state')?.textContent === 'Unsaved changes');
  await planner.page.click('#plan-save');
  await planner.page.waitForFunction(() => /revision 2 of 2/.test(document.querySelector('.plan-head .meta')?.textContent ?? ''), null, { timeout: 30000 });
  await planner.page.waitForSelector('body[data-hydrated="true"]');
  await planTab(planner.page, 'review');
  await planner.page.click('#plan-preview');
  await waitDone(planner.page);
  await planner.page.waitForFunction(() => /0 of 1 approvals for revision 2/.test(document.querySelector('#approval-summary')?.textContent ?? ''));

  // A later revision's preview answers the request.
  await planner.page.waitForFunction(() => document.querySelectorAll('#change-request-list .change-request').length === 0);

  // 4. The approver finds it waiting again, compares revision 2 with revision 1, and approves.
  await approver.page.goto(`${BASE}/`);
  await approver.page.waitForSelector('body[data-hydrated="true"]');
  await approver.page.locator(`#waiting-list tr[data-plan="${planId}"] a`).first().click();
  await approver.page.waitForURL(`${BASE}/plans/${planId}`);
  await approver.page.waitForSelector('body[data-hydrated="true"]');
  // The code style changed and the resource did not: olga's mark still counts.
  await approver.page.waitForFunction(() => document.querySelector('#viewed-progress')?.textContent === '1 of 1 viewed');
  await planTab(approver.page, 'activity');
  await approver.page.click('#compare-run');
  await approver.page.waitForSelector('#compare-diff .monaco-editor', { timeout: 30000 });
  await planTab(approver.page, 'review');
  await approver.page.click('#plan-approve');
  await approver.page.waitForFunction(() => /1 of 1 approvals for revision 2/.test(document.querySelector('#approval-summary')?.textContent ?? ''));

  // 5. The committer commits.
  const committer = await open(browser, `/plans/${planId}`, { as: 'carl' });
  await committer.page.click('#plan-commit');
  await committer.page.click('#plan-confirm-commit');
  await committer.page.waitForSelector('#plan-committed', { timeout: 60000 });
  assert.match(await committer.page.textContent('#plan-committed'), /is now at version 2/);
  // The stack's Plans tab lists it as committed, and version 2 links back to it.
  await committer.page.goto(`${BASE}/stacks/${stack.id}/plans`);
  await committer.page.waitForSelector('body[data-hydrated="true"]');
  await committer.page.selectOption('#plan-state-filter', 'committed');
  await committer.page.waitForSelector(`#stack-plan-list tr[data-plan="${planId}"] .state-committed`);
  assert.equal(await committer.page.getAttribute('#version-list tr[data-version="2"] a.version-plan', 'href'), `/plans/${planId}`);
  await atWidths(committer.page, 'team-stack-plans');

  // 6. The viewer sees it all, without controls, and the API refuses them.
  const viewer = await open(browser, `/plans/${planId}`, { as: 'vera' });
  for (const control of ['#plan-preview', '#plan-save', '#plan-approve', '#plan-commit', '#plan-share']) {
    assert.equal(await viewer.page.locator(control).count(), 0, `a viewer has no ${control}`);
  }
  assert.match(await viewer.page.textContent('#plan-read-only'), /view only/);
  // The resources' list counts each one's open comments.
  assert.match(await viewer.page.textContent('#plan-results .row[data-urn] .comment-count'), /1/);
  await viewer.page.click('#plan-results .row[data-urn]');
  await viewer.page.waitForSelector('#review-comments .thread');
  assert.equal(await viewer.page.locator('#comment-form').count(), 0);
  await planTab(viewer.page, 'activity');
  await viewer.page.waitForFunction(() => document.querySelectorAll('#plan-timeline .timeline-entry').length >= 8);
  const status = await viewer.page.evaluate(async (id) => (await fetch(`/api/v1/plans/${id}/previews`, { method: 'POST' })).status, planId);
  assert.equal(status, 403);
  // The browser reports the refused request it was asked to make; nothing else failed.
  assert.deepEqual(viewer.errors.splice(0), ['Failed to load resource: the server responded with a status of 403 (Forbidden)']);
  await shot(viewer.page, 'team-review');

  // The team's webhook heard the plan's life, each body signed with its secret; its log on the
  // account page says so.
  const deadline = Date.now() + 15000;
  while (!received.some((r) => r.headers['x-ferry-event'] === 'plan-committed' && JSON.parse(r.body).plan.id === planId) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const heard = received.map((r) => JSON.parse(r.body)).filter((p) => p.plan.id === planId).map((p) => p.event);
  assert.deepEqual(heard, ['plan-created', 'plan-previewed', 'changes-requested', 'plan-previewed', 'plan-approved', 'plan-committed']);
  for (const r of received) {
    const expected = `sha256=${crypto.createHmac('sha256', secret).update(r.body).digest('hex')}`;
    assert.equal(r.headers['x-ferry-signature-256'], expected);
  }
  await admin.page.goto(`${BASE}/account`);
  await admin.page.waitForSelector('body[data-hydrated="true"]');
  await admin.page.selectOption('#org-admin-org', '*');
  await admin.page.click('#webhook-list .webhook-log');
  await admin.page.waitForSelector('#webhook-deliveries .delivery-delivered');

  // The audit log shows the sequence, with who did each step.
  const audit = await api('GET', '/api/v1/orgs/team/audit');
  const actions = ['plan.create', 'plan.preview', 'comment.add', 'plan.request-changes', 'plan.approve', 'plan.revise', 'preview.commit'];
  const steps = audit.filter((r) => r.outcome === 'ok' && actions.includes(r.action)).map((r) => `${r.actor} ${r.action}`);
  assert.deepEqual(steps, [
    'paula plan.create', 'paula plan.preview', 'olga comment.add', 'olga plan.request-changes',
    'paula plan.revise', 'paula plan.preview', 'olga plan.approve', 'carl preview.commit',
  ]);
  assert.ok(audit.some((r) => r.actor === 'olga' && r.action === 'sign-in' && r.object === 'OpenID Connect'));

  for (const [who, c] of Object.entries({ admin, planner, approver, committer, viewer })) {
    assert.deepEqual(c.errors, [], who);
    await c.context.close();
  }
});

test('a server-wide role from the OpenID Provider is ignored unless the server trusts it', async () => {
  const { page, context, errors } = await open(browser, '/signin', { as: null });
  await page.click('#signin-oidc');
  await page.waitForURL((u) => u.href.startsWith(process.env.FERRY_E2E_OIDC));
  await page.fill('input[name=login]', 'eve');
  await page.fill('input[name=password]', 'anything');
  await page.click('button[type=submit]');
  await page.click('button[type=submit]'); // consent: Continue
  await page.waitForURL(`${BASE}/`);
  await page.waitForSelector('body[data-hydrated="true"]');
  errors.length = 0; // the provider's own pages fetch fonts this machine cannot reach
  const me = await page.evaluate(async () => (await fetch('/api/v1/me')).json());
  assert.deepEqual(me.roles, [{ org: 'team', role: 'viewer' }], 'the `*:admin` group made no administrator');
  const audit = await page.evaluate(async () => (await fetch('/api/v1/orgs/team/audit')).status);
  assert.equal(audit, 403);
  assert.deepEqual(errors.splice(0), ['Failed to load resource: the server responded with a status of 403 (Forbidden)']);
  await context.close();
});

test('strangers are sent to sign in, and a wrong password says so', async () => {
  const { page, context, errors } = await open(browser, '/', { as: null });
  assert.equal(new URL(page.url()).pathname, '/signin');
  await page.fill('#signin-name', 'nobody');
  await page.fill('#signin-password', 'not a password');
  await page.click('#signin-submit');
  await page.waitForSelector('#signin-error');
  assert.match(await page.textContent('#signin-error'), /wrong name or password/);
  assert.deepEqual(errors, []);
  await context.close();
});
