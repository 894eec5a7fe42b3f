// Launching Debian's Chromium for tests and benchmarks (never a downloaded browser).
import { chromium } from 'playwright-core';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));

export const BASE = process.env.FERRY_URL ?? 'http://127.0.0.1:3000';
export const FIXTURES = process.env.FERRY_FIXTURES ?? path.resolve(HERE, '../../../shared/fixtures');
export const ARTIFACTS = path.resolve(HERE, '../artifacts');

export async function launch() {
  mkdirSync(ARTIFACTS, { recursive: true });
  return chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    args: [
      '--no-sandbox', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync',
      // No GPU here: WebGL runs on SwiftShader, which Chromium only allows when asked.
      '--use-angle=swiftshader', '--enable-unsafe-swiftshader',
    ],
  });
}

/** A JSON API call that must succeed; its answer. */
export async function api(method, url, body) {
  const res = await fetch(BASE + url, { method, headers: { 'content-type': 'application/json' }, body: body && (typeof body === 'string' ? body : JSON.stringify(body)) });
  const json = await res.json();
  if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

export function fixture(rel) {
  return path.join(FIXTURES, 'pulumi/state', rel);
}

/** A page of a fresh context, navigated and hydrated. Console errors fail the caller's test. */
export async function open(browser, urlPath, { width = 1400, height = 900 } = {}) {
  const context = await browser.newContext({ viewport: { width, height }, acceptDownloads: true });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  await page.goto(BASE + urlPath);
  await page.waitForSelector('body[data-hydrated="true"]', { timeout: 30000 });
  return { page, context, errors };
}
