// Launching Debian's Chromium for tests and benchmarks (never a downloaded browser).
import { chromium } from 'playwright-core';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));

export const BASE = process.env.FERRY_URL ?? 'http://127.0.0.1:3000';
export const FIXTURES = process.env.FERRY_FIXTURES ?? path.resolve(HERE, '../../../shared/fixtures');
export const ARTIFACTS = path.resolve(HERE, '../artifacts');

/** Debian's Chromium, headless. `softwareCompositing`: the page is composited in software, as
 *  Chromium does where it has no GPU to composite with, instead of through SwiftShader as the
 *  flags WebGL needs here otherwise make it do. Through SwiftShader a page reached the screen
 *  late on this 2-core machine: a two-letter page was presented 180-460 ms after navigation,
 *  84-108 ms composited in software (measured 2026-11-27). A benchmark timing when something is
 *  on screen asks for it, so that the figure is the page's, not the emulated GPU's. */
export async function launch({ softwareCompositing = false } = {}) {
  mkdirSync(ARTIFACTS, { recursive: true });
  return chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    args: [
      '--no-sandbox', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync',
      // No GPU here: WebGL runs on SwiftShader, which Chromium only allows when asked.
      '--use-angle=swiftshader', '--enable-unsafe-swiftshader',
      ...(softwareCompositing ? ['--disable-gpu-compositing'] : []),
    ],
  });
}

// The test command makes an administrator's API token (`ferry token create`) for setting up.
export const TOKEN = process.env.FERRY_E2E_TOKEN;

/** `fetch` as the test command's administrator (its API token). */
export function authFetch(url, init = {}) {
  const headers = { ...(init.headers ?? {}) };
  if (TOKEN) headers.authorization = `Bearer ${TOKEN}`;
  return fetch(url, { ...init, headers });
}

/** A JSON API call that must succeed, as the administrator (or `token`); its answer. */
export async function api(method, url, body, token = TOKEN) {
  const headers = { 'content-type': 'application/json' };
  if (token) headers.authorization = `Bearer ${token}`;
  const res = await fetch(BASE + url, { method, headers, body: body && (typeof body === 'string' ? body : JSON.stringify(body)) });
  const json = await res.json();
  if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

export function fixture(rel) {
  return path.join(FIXTURES, 'pulumi/state', rel);
}

const PASSWORD = 'end-to-end password';
const sessions = new Map();

const ADMIN = 'e2e-admin';
const FROM_FERRY = { 'content-type': 'application/json', 'sec-fetch-site': 'same-origin' };

/**
 * The server administrator's session: passwords are set from a browser session only, never with
 * an API token. The first test process opens the one-time sign-in link the test command made
 * (FERRY_E2E_ADMIN_LINK) and chooses the administrator's password; later ones sign in with it.
 */
async function adminSession() {
  try {
    return await sessionOf(ADMIN);
  } catch {
    const link = process.env.FERRY_E2E_ADMIN_LINK;
    if (!link) throw new Error('FERRY_E2E_ADMIN_LINK is not set: scripts/test.sh makes it');
    const res = await fetch(link, { redirect: 'manual' });
    const cookie = res.headers.get('set-cookie')?.split(';')[0];
    if (!cookie) throw new Error(`the administrator's sign-in link answered ${res.status}`);
    const set = await fetch(`${BASE}/api/v1/me/password`, { method: 'POST', headers: { cookie, ...FROM_FERRY }, body: JSON.stringify({ password: PASSWORD }) });
    if (!set.ok) throw new Error(`choosing the administrator's password: ${set.status} ${await set.text()}`);
    return await sessionOf(ADMIN);
  }
}

/** A local user `name` with `roles` in `org` (made or updated by the server administrator). */
export async function member(org, name, roles) {
  const session = await adminSession();
  const url = `${BASE}/api/v1/orgs/${encodeURIComponent(org)}/members/${encodeURIComponent(name)}`;
  const res = await fetch(url, { method: 'PUT', headers: { cookie: `ferry_session=${session}`, ...FROM_FERRY }, body: JSON.stringify({ roles, password: PASSWORD }) });
  if (!res.ok) throw new Error(`making ${name} in ${org}: ${res.status} ${await res.text()}`);
}

/** A session for `name` (signed in once per test process, through the sign-in API). */
async function sessionOf(name) {
  if (!sessions.has(name)) {
    const res = await fetch(`${BASE}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name, password: PASSWORD }) });
    if (!res.ok) throw new Error(`signing in as ${name}: ${res.status} ${await res.text()}`);
    const cookie = res.headers.get('set-cookie').split(';')[0];
    sessions.set(name, cookie.slice(cookie.indexOf('=') + 1));
  }
  return sessions.get(name);
}

/** Signs the browser context in as `name`. */
export async function signIn(context, name) {
  await context.addCookies([{ name: 'ferry_session', value: await sessionOf(name), url: BASE }]);
}

let browserAdmin;

/** A fresh browser context signed in as an administrator of every organisation. */
export async function adminContext(browser, options = {}) {
  const context = await browser.newContext(options);
  browserAdmin ??= member('*', 'e2e-admin-browser', ['admin']).then(() => 'e2e-admin-browser');
  await signIn(context, await browserAdmin);
  return context;
}

/**
 * A page of a fresh context, navigated and hydrated. Console errors fail the caller's test.
 * Signed in as `as` (a user made with `member`), by default as an administrator of every
 * organisation; `as: null` stays anonymous.
 */
export async function open(browser, urlPath, { width = 1400, height = 900, as } = {}) {
  const options = { viewport: { width, height }, acceptDownloads: true };
  const context = as === undefined ? await adminContext(browser, options) : await browser.newContext(options);
  if (as) {
    await signIn(context, as);
  }
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  await page.goto(BASE + urlPath);
  await page.waitForSelector('body[data-hydrated="true"]', { timeout: 30000 });
  return { page, context, errors };
}

/** Opens one of a plan page's tabs (review, source, code, graph, activity), once its panel shows. */
export async function planTab(page, name) {
  await page.click(`#tab-${name}`);
  await page.waitForSelector(`#panel-${name}:not([hidden])`);
}
