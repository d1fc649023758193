// Drives Debian's chromium (puppeteer-core; no downloaded browser) through
// the ketch console, as tests/clients/test_console_browser.py orders it.
// Environment: CONSOLE_URL, CONSOLE_USER, CONSOLE_PASSWORD, TOPIC (records
// already produced by a client), NEW_TOPIC, GROUP, GROUP_LAG, GROUP_END,
// CLIENT_ID, SCREENSHOTS (a directory), CHROMIUM (default /usr/bin/chromium).
// Talks to the test over stdio: prints "READY <step>" and waits for a line
// "GO" once the test's client did its part. Any failed expectation throws
// (exit code 1) after a screenshot named "failed-<step>".
import { createInterface } from 'node:readline';
import * as kit from './kit.mjs';
import { env } from './kit.mjs';

const base = env.CONSOLE_URL;
const lines = createInterface({ input: process.stdin });
const pending = [];
lines.on('line', l => { const w = pending.shift(); if (w) w(l); });
const nextLine = () => new Promise(res => pending.push(res));
let step = 'start';

function expect(cond, what) { if (!cond) throw new Error(step + ': ' + what); }

async function ready(name) {
  console.log('READY ' + name);
  const l = await nextLine();
  expect(l.trim() === 'GO', 'expected GO from the test, got ' + l);
}

const browser = await kit.launch();
const consoleErrors = [];
const page = await kit.openPage(browser, consoleErrors);
await page.authenticate({ username: env.CONSOLE_USER, password: env.CONSOLE_PASSWORD });

const shot = name => kit.shot(page, name);
async function open(path, name) {
  step = name;
  await page.goto(base + path, { waitUntil: 'networkidle2' });
}
async function textOf(sel) { return page.$eval(sel, el => el.innerText); }
async function noPassword() {
  const html = await page.evaluate(() => document.documentElement.outerHTML);
  expect(!html.includes(env.CONSOLE_PASSWORD), 'the SASL password appears in the DOM');
}
const waitText = (sel, text, timeout = 10000) => kit.waitText(page, sel, text, timeout, 20);

try {
  // Overview: the nav bar and the broker's facts.
  await open('/', 'overview');
  await page.waitForSelector('.cards');
  const nav = await page.$$eval('nav a', as => as.map(a => a.textContent));
  expect(JSON.stringify(nav) === JSON.stringify(['Overview', 'Topics', 'Messages', 'Groups', 'Producers', 'Security', 'Traffic', 'Clients']),
         'nav bar: ' + nav);
  expect((await textOf('main')).toLowerCase().includes('node id'), 'overview shows the node id');
  await shot('overview');

  // Keyboard: Tab reaches the nav links, Enter follows one.
  await page.keyboard.press('Tab');
  await page.keyboard.press('Tab');
  const focused = await page.evaluate(() => document.activeElement && document.activeElement.textContent);
  expect(focused === 'Topics', 'second Tab focuses the Topics link, got ' + focused);
  await Promise.all([page.waitForNavigation({ waitUntil: 'networkidle2' }), page.keyboard.press('Enter')]);
  step = 'topics';
  expect(new URL(page.url()).pathname === '/ui/topics', 'Enter on the Topics link opens it');

  // Create a topic from the page.
  await page.type('#new-topic-name', env.NEW_TOPIC);
  await page.$eval('#new-topic-partitions', el => { el.value = '3'; });
  await page.type('#new-topic-configs', 'retention.ms=3600000');
  await page.click('#create-topic button[type=submit]');
  await waitText('main', 'Created ' + env.NEW_TOPIC);
  await waitText('main table', env.NEW_TOPIC);
  await shot('topics');
  await open('/ui/topics/' + encodeURIComponent(env.NEW_TOPIC), 'topic');
  await waitText('main', 'Partitions');
  const partRows = await page.$eval('main table', t => t.tBodies[0].rows.length);  // the first: partitions
  expect(partRows === 3, 'the new topic has 3 partitions, saw ' + partRows);
  await shot('topic');

  // The client's topic: its partition's segment file holds the 10 records.
  await open('/ui/topics/' + encodeURIComponent(env.TOPIC), 'topic-segments');
  await page.waitForSelector('#segments tbody tr');
  const seg = (await page.$$eval('#segments tbody tr', rs => rs.map(r => [...r.cells].map(c => c.innerText.trim()))))[0];
  expect(seg[0] === '0' && seg[1] === '0' && seg[2] === '10' && seg[6] === 'active', 'segment row ' + JSON.stringify(seg));
  await shot('topic-segments');

  // Messages produced by a client: key, headers, JSON value.
  await open('/ui/messages?topic=' + encodeURIComponent(env.TOPIC), 'messages');
  await waitText('#m-rows', 'order-1');
  const rowsText = await textOf('#m-rows');
  expect(rowsText.includes('"amount": 42'), 'the JSON value is shown pretty: ' + rowsText.slice(0, 400));
  expect(rowsText.includes('trace-id'), 'the header is shown');
  await shot('messages');

  // Live tail: a record produced by a client appears within 1 s.
  step = 'tail';
  await page.click('#m-tail');
  await waitText('#m-status', 'Tailing');
  await ready('tail');
  const t0 = Date.now();
  await waitText('#m-rows', 'tailed-record', 5000);
  const tailMs = Date.now() - t0;
  expect(tailMs <= 1000, 'the tailed record took ' + tailMs + ' ms to appear');
  await shot('messages-tail');
  await page.click('#m-tail');

  // The group: lag as the client left it, then a reset to earliest.
  await open('/ui/groups', 'groups');
  await waitText('main table', env.GROUP);
  await shot('groups');
  // A live member (confluent-kafka, started by the test): its client id, host and
  // assignment; the lag is still what the group committed; no reset while it is there.
  await ready('member');
  await open('/ui/groups/' + encodeURIComponent(env.GROUP), 'group-live');
  await waitText('main', env.MEMBER_CLIENT_ID);
  const member = await page.evaluate(id => [...document.querySelectorAll('main table tbody tr')]
    .map(tr => tr.innerText).find(t => t.includes(id)), env.MEMBER_CLIENT_ID);
  expect(member.includes(env.TOPIC + ' [0]'), 'the member row shows no assignment: ' + member);
  expect(member.includes('127.0.0.1'), 'the member row shows no host: ' + member);
  expect((await textOf('#g-members')).trim() === '1', 'members shown ' + (await textOf('#g-members')));
  expect((await textOf('#g-lag')).trim() === env.GROUP_LAG, 'lag shown with a member ' + (await textOf('#g-lag')));
  expect(await page.$eval('#reset-offsets button[type=submit]', b => b.disabled), 'reset offered while the group has a member');
  await shot('group-live');
  await ready('leave');  // the member has left: the page, reloaded, shows the group Empty
  const left = Date.now() + 15000;
  for (;;) {
    await open('/ui/groups/' + encodeURIComponent(env.GROUP), 'group');
    await page.waitForSelector('#g-state');
    if ((await textOf('#g-state')).trim() === 'Empty') break;
    expect(Date.now() < left, 'the group is still ' + (await textOf('#g-state')) + ' after its member closed');
  }
  expect((await textOf('#g-lag')).trim() === env.GROUP_LAG, 'lag shown ' + (await textOf('#g-lag')) + ', expected ' + env.GROUP_LAG);
  await page.select('#r-to', 'earliest');
  await page.click('#reset-offsets button[type=submit]');
  await page.waitForFunction(want => { const el = document.querySelector('#g-lag'); return el && el.innerText.trim() === want; },
                             { timeout: 10000 }, env.GROUP_END);
  await shot('group');

  await open('/ui/producers', 'producers');
  await page.waitForSelector('main table');
  await shot('producers');
  await open('/ui/security', 'security');
  await waitText('main', 'alice');
  await noPassword();
  await shot('security');

  // Traffic: the Produce of a given client id, decoded.
  await open('/ui/traffic', 'traffic');
  await waitText('#t-status', 'Recording');
  await ready('traffic');
  await page.type('#t-client_id', env.CLIENT_ID);
  await page.click('#t-filter button[type=submit]');
  await waitText('#t-rows', 'Produce', 10000);
  const row = await page.evaluateHandle(() => [...document.querySelectorAll('#t-rows tbody tr')].find(tr => tr.innerText.includes('Produce')));
  await row.asElement().click();
  await waitText('#t-request', 'partition_data');
  const req = await textOf('#t-request');
  expect(req.includes('"records"') && req.includes('"bytes"'), 'records shown as sizes: ' + req.slice(0, 300));
  expect(!/"records": "[A-Za-z0-9+/=]{8,}/.test(req), 'record payloads are not shown');
  await page.click('#t-show-records');
  await waitText('#t-detail', 'traffic-value');
  await noPassword();
  await shot('traffic');
  expect(consoleErrors.length === 0, 'page errors: ' + consoleErrors.join('; '));
  console.log('DONE ' + JSON.stringify({ tail_ms: tailMs }));
} catch (e) {
  try { await shot('failed-' + step); } catch (_) { /* the page may be gone */ }
  console.error(e.stack || String(e));
  process.exitCode = 1;
} finally {
  await browser.close();
  lines.close();
}
