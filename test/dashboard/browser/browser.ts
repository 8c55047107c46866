// Test support for the dashboard's browser tests: Debian's chromium, driven headless by puppeteer-core (which
// downloads no browser), against a real aksemu server on 127.0.0.1. The server's certificate comes from its own CA,
// which the throwaway browser profile is told to accept (the server listens on loopback only).
import { existsSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'puppeteer-core';

export const CHROMIUM = '/usr/bin/chromium';

/** Why the browser tests cannot run here, or undefined when they can. */
export function skipReason(): string | undefined {
  return existsSync(CHROMIUM) ? undefined : `no ${CHROMIUM}: install Debian's chromium (apt-get install chromium), as .ci/run does`;
}

/** Where screenshots land: test-artifacts/dashboard/ at the repository's root (git-ignored). */
export const ARTIFACTS = fileURLToPath(new URL('../../../../test-artifacts/dashboard/', import.meta.url));

export async function launch(): Promise<Browser> {
  const { launch } = await import('puppeteer-core');
  return launch({
    executablePath: CHROMIUM,
    headless: true,
    acceptInsecureCerts: true,
    defaultViewport: { width: 1280, height: 800 },
    args: ['--no-sandbox', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-gpu'],
  });
}

/** A screenshot of the viewport (1280×800), kept under test-artifacts/dashboard/<name>.png. */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(ARTIFACTS, { recursive: true });
  const path = `${ARTIFACTS}${name}.png`;
  await page.screenshot({ path: path as `${string}.png` });
  return path;
}

/** Collects what the browser reports as violations of the page's Content-Security-Policy and as script errors. */
export function watchConsole(page: Page): string[] {
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(m.text());
  });
  page.on('pageerror', (e) => problems.push(String(e)));
  return problems;
}
