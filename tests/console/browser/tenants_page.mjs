// The console filtered by tenant (--tenancy) in Debian's chromium
// (puppeteer-core), as tests/clients/test_console_tenants_page.py orders it:
// tenants alice and bob each have a topic "orders", a group "g" and traffic
// from client ids "alice-app" / "bob-app"; ROOT is a super user.
//   - the super user sees both tenants, picks alice in the navigation bar's
//     selector, and Topics, Groups, Traffic and Clients show alice's only;
//   - alice sees "Tenant: alice", her own names, nothing of bob's, and is
//     refused ?tenant=bob; her Overview counts her topics, partitions and
//     groups only (bob has more) and names nothing of bob's.
// Environment: CONSOLE_URL, ROOT, ROOT_PASSWORD, ALICE, ALICE_PASSWORD,
// CLIENT_ID (alice's telemetry client), SCREENSHOTS, CHROMIUM. Exit code 1
// (after a "failed-tenants" screenshot) when an expectation fails.
import * as kit from './kit.mjs';
import { env, expect } from './kit.mjs';

const browser = await kit.launch();
const errors = [];
let page;
const waitText = (sel, text) => kit.waitText(page, sel, text);
const text = sel => page.$eval(sel, el => el.innerText);
const shot = name => kit.shot(page, name);

async function login(user, password) {
  page = await kit.openPage(await browser.createBrowserContext(), errors);
  await page.authenticate({ username: user, password });
}

// The main table's rows once it shows `want`.
async function rowsOf(want) {
  await waitText('main table', want);
  return page.$$eval('main table tbody tr', els => els.map(e => e.innerText));
}

async function asSuperUser() {
  await login(env.ROOT, env.ROOT_PASSWORD);
  await page.goto(env.CONSOLE_URL + '/ui/topics', { waitUntil: 'networkidle2' });
  let rows = await rowsOf('bob~orders');
  expect(rows.some(r => r.includes('alice~orders')), 'the super user sees every tenant: ' + rows);
  await page.waitForSelector('#tenant-select');
  const options = await page.$$eval('#tenant-select option', els => els.map(e => e.value));
  expect(options.includes('alice') && options.includes('bob'), 'the selector offers the tenants: ' + options);
  await Promise.all([page.waitForNavigation({ waitUntil: 'networkidle2' }), page.select('#tenant-select', 'alice')]);
  expect(new URL(page.url()).searchParams.get('tenant') === 'alice', 'the page remembers the tenant: ' + page.url());
  rows = await rowsOf('alice~orders');
  expect(rows.every(r => !r.includes('bob~')), 'Topics: alice\'s only: ' + rows);
  expect(rows.every(r => r.includes('alice')), 'Topics: the Tenant column says alice: ' + rows);
  await shot('tenants-topics-alice');
  await Promise.all([page.waitForNavigation({ waitUntil: 'networkidle2' }), page.click('nav a[href="/ui/groups?tenant=alice"]')]);
  rows = await rowsOf('alice~g');
  expect(rows.every(r => !r.includes('bob~')), 'Groups: alice\'s only: ' + rows);
  await Promise.all([page.waitForNavigation({ waitUntil: 'networkidle2' }), page.click('nav a[href="/ui/traffic?tenant=alice"]')]);
  await waitText('#t-rows', 'alice-app');
  expect(!(await text('#t-rows')).includes('bob-app'), 'Traffic: alice\'s exchanges only');
  await shot('tenants-traffic-alice');
  await Promise.all([page.waitForNavigation({ waitUntil: 'networkidle2' }), page.click('nav a[href="/ui/clients?tenant=alice"]')]);
  await waitText('#c-list', env.CLIENT_ID);
  // bob's view of the same page: no client of alice's.
  await page.goto(env.CONSOLE_URL + '/ui/clients?tenant=bob', { waitUntil: 'networkidle2' });
  await waitText('#c-status', 'client instances');
  expect(!(await text('#c-list')).includes(env.CLIENT_ID), 'Clients for bob: none of alice\'s');
  // The Overview with the selector: bob's counts.
  await page.goto(env.CONSOLE_URL + '/?tenant=bob', { waitUntil: 'networkidle2' });
  await page.waitForSelector('#tenant-overview');
  expect((await page.$eval('#ov-topics .value', el => el.innerText)) === '2', 'Overview for bob: his two topics');
}

async function asTenantUser() {
  await login(env.ALICE, env.ALICE_PASSWORD);
  await page.goto(env.CONSOLE_URL + '/ui/topics', { waitUntil: 'networkidle2' });
  await page.waitForSelector('#tenant-label');
  expect((await text('#tenant-label')) === 'Tenant: alice', 'a tenant\'s user sees its tenant named');
  expect(!(await page.$('#tenant-select')), 'a tenant\'s user has no selector');
  let rows = await rowsOf('orders');
  expect(rows.every(r => !r.includes('~')), 'alice sees her own names: ' + rows);
  expect(rows.length === 1, 'alice sees her topic only: ' + rows);
  await shot('tenants-topics-as-alice');
  await page.goto(env.CONSOLE_URL + '/ui/groups', { waitUntil: 'networkidle2' });
  rows = await rowsOf('g');
  expect(rows.length === 1 && !rows[0].includes('~'), 'alice sees her group only: ' + rows);
  await page.goto(env.CONSOLE_URL + '/ui/traffic', { waitUntil: 'networkidle2' });
  await waitText('#t-rows', 'alice-app');
  expect(!(await text('#t-rows')).includes('bob-app'), 'alice sees her traffic only');
  await page.goto(env.CONSOLE_URL + '/ui/topics?tenant=bob', { waitUntil: 'networkidle2' });
  await waitText('main', 'sees tenant alice only');
  await aliceOverview();
}

// alice's Overview: her counts (bob has 2 topics and 4 partitions), her
// Produce and Fetch only, and no name of bob's anywhere on the page.
async function aliceOverview() {
  await page.goto(env.CONSOLE_URL + '/', { waitUntil: 'networkidle2' });
  await page.waitForSelector('#tenant-overview');
  const value = id => page.$eval(`#${id} .value`, el => el.innerText);
  expect((await value('ov-topics')) === '1', 'Overview: alice\'s one topic: ' + await value('ov-topics'));
  expect((await value('ov-partitions')) === '1', 'Overview: alice\'s one partition');
  expect((await value('ov-groups')) === '1', 'Overview: alice\'s one group');
  const apis = await page.$$eval('main table', ts => [...ts[ts.length - 1].querySelectorAll('tbody tr td:first-child')]
    .map(e => e.innerText));  // the last table: the requests
  expect(apis.join() === 'Produce,Fetch', 'Overview: alice\'s Produce and Fetch only: ' + apis);
  const all = await text('main');
  expect(!all.includes('bob') && !all.includes('~'), 'Overview: nothing of bob\'s: ' + all);
  await shot('tenants-overview-as-alice');
}

try {
  await asSuperUser();
  await asTenantUser();
  expect(errors.length === 0, 'page errors: ' + errors.join('; '));
  console.log('OK');
} catch (e) {
  if (page) await shot('failed-tenants').catch(() => {});
  console.error(e.stack || String(e));
  process.exitCode = 1;
} finally {
  await browser.close();
}
