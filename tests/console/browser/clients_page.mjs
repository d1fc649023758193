// The console's Clients page in Debian's chromium (puppeteer-core), as
// tests/clients/test_console_clients_page.py orders it: a client (CLIENT_ID)
// has pushed its metrics; the list shows it, its page shows its software and
// key metrics with charts. Environment: CONSOLE_URL, CLIENT_ID, SCREENSHOTS,
// CHROMIUM. Exit code 1 (after a "failed-clients" screenshot) when an
// expectation fails.
import * as kit from './kit.mjs';
import { env, expect } from './kit.mjs';

const browser = await kit.launch();
const errors = [];
const page = await kit.openPage(browser, errors);
const shot = name => kit.shot(page, name);
const waitText = (sel, text) => kit.waitText(page, sel, text);

try {
  await page.goto(env.CONSOLE_URL + '/', { waitUntil: 'networkidle2' });
  await page.click('nav a[href="/ui/clients"]');
  await page.waitForSelector('#c-list');
  await waitText('#c-list', env.CLIENT_ID);
  const row = await page.evaluateHandle(id => [...document.querySelectorAll('#c-list tr')]
    .find(tr => tr.innerText.includes(id)), env.CLIENT_ID);
  const rowText = await row.evaluate(tr => tr.innerText);
  expect(rowText.includes('confluent-kafka-python'), 'the row names the client software: ' + rowText);
  await shot('clients');
  await row.evaluate(tr => tr.querySelector('a').click());
  await page.waitForSelector('#c-highlights .card');
  await waitText('#c-head', env.CLIENT_ID);
  const cards = await page.$$eval('#c-highlights .card .label', els => els.map(e => e.textContent));
  expect(cards.some(c => c.startsWith('consumer.')), 'key consumer metrics shown: ' + cards.join(', '));
  expect(await page.$('#c-highlights svg.spark polyline'), 'a key metric has a chart');
  await page.type('#c-filter', 'fetch.latency');
  await waitText('#c-series', 'fetch.latency');
  const rows = await page.$$eval('#c-series tbody tr', els => els.map(e => e.innerText));
  expect(rows.length > 0 && rows.every(r => r.includes('fetch.latency')), 'the filter keeps matching series: ' + rows);
  await shot('client');
  expect(errors.length === 0, 'page errors: ' + errors.join('; '));
  console.log('OK');
} catch (e) {
  await shot('failed-clients').catch(() => {});
  console.error(e.stack || String(e));
  process.exitCode = 1;
} finally {
  await browser.close();
}
