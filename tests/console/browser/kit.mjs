// What the console's browser scripts share: Debian's chromium through
// puppeteer-core (never a downloaded browser), a page of the scripts' size,
// screenshots into $SCREENSHOTS, waiting for a text, failing an expectation.
import puppeteer from 'puppeteer-core';
import { mkdirSync } from 'node:fs';

export const env = process.env;

export async function launch() {
  mkdirSync(env.SCREENSHOTS, { recursive: true });
  return puppeteer.launch({
    executablePath: env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
  });
}

// A page of `browser` (or of a browser context) whose script errors land in `errors`.
export async function openPage(owner, errors) {
  const page = await owner.newPage();
  await page.setViewport({ width: 1400, height: 900 });
  page.on('pageerror', e => errors.push(String(e)));
  return page;
}

export const shot = (page, name) => page.screenshot({ path: `${env.SCREENSHOTS}/${name}.png`, fullPage: true });

// Resolves once the element `sel` shows `text`.
export const waitText = (page, sel, text, timeout = 15000, polling = 50) =>
  page.waitForFunction((s, t) => { const el = document.querySelector(s); return el && el.innerText.includes(t); },
                       { timeout, polling }, sel, text);

export function expect(cond, what) { if (!cond) throw new Error(what); }
