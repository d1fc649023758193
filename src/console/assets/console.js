// ketch console: the pages, as plain DOM code over the JSON API (/api/v1).
// No framework and no build step (docs/design/console.md). Every value from
// the broker goes into the page as text (textContent), never as HTML.
'use strict';

const API = '/api/v1';

// ---------------------------------------------------------------- helpers

function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else if (k === 'class') el.className = v;
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

async function api(method, path, body) {
  const opts = { method, headers: {} };
  if (body !== undefined) {
    opts.headers['Content-Type'] = 'application/json';
    opts.body = JSON.stringify(body);
  }
  const tenants = window.tenantUi;  // tenants.js: the page's ?tenant= for the lists
  const r = await fetch(API + (tenants && method === 'GET' ? tenants.scoped(path) : path), opts);
  let data = null;
  try { data = await r.json(); } catch (e) { data = { message: r.statusText }; }
  if (!r.ok) {
    const err = new Error((data && data.message) || ('HTTP ' + r.status));
    err.status = r.status;
    throw err;
  }
  return data;
}

function fmtBytes(n) {
  if (n === null || n === undefined) return '';
  const u = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let i = 0;
  while (n >= 1024 && i < u.length - 1) { n /= 1024; i++; }
  return (i ? n.toFixed(1) : n) + ' ' + u[i];
}

function fmtMs(ms) {
  if (ms === null || ms === undefined || ms === '') return '';
  ms = Number(ms);
  if (ms < 0) return 'forever';
  const s = ms / 1000;
  if (s < 120) return s.toFixed(s < 10 ? 1 : 0) + ' s';
  if (s < 7200) return (s / 60).toFixed(0) + ' min';
  if (s < 172800) return (s / 3600).toFixed(1) + ' h';
  return (s / 86400).toFixed(1) + ' d';
}

function fmtTime(ms) { return ms > 0 ? new Date(ms).toISOString().replace('T', ' ').replace('Z', '') : ''; }

function errorBox(e) { return h('p', { class: 'error', role: 'alert' }, e.message || String(e)); }
// Cluster mode: the brokers a list could not ask (their part is missing).
function unreachedBox(list) {
  if (!list || !list.length) return '';
  return h('p', { class: 'error', role: 'alert', id: 'unreached' },
    'Not reached: ' + list.map(u => 'broker ' + u.node_id + ' (' + u.error + ')').join('; ') + '. Its part is missing.');
}

function table(columns, rows, onOpen) {
  const head = h('tr', {}, columns.map(c => h('th', { class: c.num ? 'num' : null, scope: 'col' }, c.title)));
  const body = rows.map(r => {
    const tr = h('tr', {}, columns.map(c => h('td', { class: c.num ? 'num' : null }, c.cell ? c.cell(r) : r[c.key])));
    if (onOpen) {
      tr.className = 'clickable';
      tr.tabIndex = 0;
      tr.addEventListener('click', () => onOpen(r));
      tr.addEventListener('keydown', ev => { if (ev.key === 'Enter' || ev.key === ' ') { ev.preventDefault(); onOpen(r); } });
    }
    return tr;
  });
  return h('table', {}, h('thead', {}, head), h('tbody', {}, body));
}

function link(href) { return window.tenantUi ? window.tenantUi.link(href) : href; }

function go(path) { location.href = link(path); }

// A Tenant column when the rows carry one (--tenancy).
function tenantColumn(rows) { return rows.some(r => r.tenant) ? [{ title: 'Tenant', key: 'tenant' }] : []; }

// The topic page's segment files, by partition (the newest 100 of each).
function segmentsSection(partitions) {
  const rows = partitions.flatMap(p => (p.segments || []).map(s => ({ partition: p.partition, ...s })));
  if (!rows.length) return [];
  return [h('h2', {}, 'Segments'), h('div', { id: 'segments' },
    table([{ title: 'Partition', key: 'partition', num: true }, { title: 'Base offset', key: 'base_offset', num: true },
           { title: 'Next offset', key: 'next_offset', num: true }, { title: 'Size', num: true, cell: r => fmtBytes(r.size_bytes) },
           { title: 'Created', cell: r => fmtTime(r.created_ms) }, { title: 'Newest record', cell: r => fmtTime(r.max_timestamp) },
           { title: '', cell: r => r.active ? 'active' : '' }], rows))];
}

const main = () => document.getElementById('main');

function page(title, ...content) {
  document.title = title + ' · ketch console';
  main().replaceChildren(h('h1', {}, title), ...content);
}

// ---------------------------------------------------------------- nav

const NAV = [
  ['/', 'Overview'], ['/ui/topics', 'Topics'], ['/ui/messages', 'Messages'], ['/ui/groups', 'Groups'],
  ['/ui/producers', 'Producers'], ['/ui/security', 'Security'], ['/ui/traffic', 'Traffic'],
  ['/ui/clients', 'Clients'],
];

function renderNav() {
  const here = location.pathname;
  const section = here === '/' ? '/' : '/ui/' + here.split('/')[2];
  const nav = document.getElementById('nav');
  nav.replaceChildren(
    h('span', { class: 'brand' }, 'ketch'),
    ...NAV.map(([href, label]) => h('a', { href: link(href), class: href === section ? 'active' : null,
                                        'aria-current': href === section ? 'page' : null }, label)));
  if (window.tenantUi) window.tenantUi.control(h, api).then(c => { if (c) nav.append(c); });
}

// ---------------------------------------------------------------- overview

function spark(values) {
  const ns = 'http://www.w3.org/2000/svg';
  const svg = document.createElementNS(ns, 'svg');
  svg.setAttribute('class', 'spark');
  svg.setAttribute('viewBox', '0 0 120 24');
  svg.setAttribute('role', 'img');
  const max = Math.max(1, ...values);
  const pts = values.map((v, i) => (i * 120 / Math.max(1, values.length - 1)).toFixed(1) + ',' +
                                   (23 - v * 22 / max).toFixed(1)).join(' ');
  const pl = document.createElementNS(ns, 'polyline');
  pl.setAttribute('points', pts);
  svg.append(pl);
  svg.setAttribute('aria-label', 'rate, last ' + values.length + ' samples, max ' + max.toFixed(1) + '/s');
  return svg;
}

async function overview() {
  const history = {};  // api -> [rate]
  let last = null;
  const body = h('div');
  page('Overview', body);
  async function refresh() {
    let c;
    try { c = await api('GET', '/cluster'); } catch (e) { body.replaceChildren(errorBox(e)); return; }
    const now = Date.now();
    for (const r of c.requests) {
      const prev = last ? last.counts[r.api] : undefined;
      const rate = prev !== undefined ? (r.count - prev) * 1000 / Math.max(1, now - last.at) : 0;
      (history[r.api] = history[r.api] || []).push(rate);
      if (history[r.api].length > 30) history[r.api].shift();
    }
    const t = c.tenant;  // --tenancy: a tenant's user, or an operator's ?tenant=
    const byteRate = key => last && last.tenant && t ? Math.max(0, t[key] - last.tenant[key]) * 1000 / Math.max(1, now - last.at) : 0;
    const rates = t ? { in: Math.round(byteRate('bytes_in')), out: Math.round(byteRate('bytes_out')) } : null;
    last = { at: now, counts: Object.fromEntries(c.requests.map(r => [r.api, r.count])), tenant: t };
    const card = (label, value, id) => h('div', { class: 'card', id }, h('div', { class: 'label' }, label), h('div', { class: 'value' }, value));
    body.replaceChildren(
      h('div', { class: 'cards' },
        card('Version', 'ketch ' + c.version + ' (Kafka ' + c.kafka_version + ')'),
        card('Node id', c.node_id), card('Cluster id', c.cluster_id),
        card('Uptime', fmtMs(c.uptime_ms)), c.data_dir ? card('Data dir', c.data_dir) : null,
        card(t ? 'Storage' : 'Disk use', fmtBytes(c.data_dir_bytes)),
        card('Connections', c.connections ? c.connections.active : ''),
        card('Schema registry', c.schema_registry || 'off')),
      ...(t ? [h('h2', {}, 'Tenant ' + t.name),
           h('div', { class: 'cards', id: 'tenant-overview' },
             card('Topics', t.topics, 'ov-topics'), card('Partitions', t.partitions, 'ov-partitions'),
             card('Groups', t.groups, 'ov-groups'), card('Requests', t.requests, 'ov-requests'),
             card('Errors', t.errors, 'ov-errors'),
             card('Produced', fmtBytes(t.bytes_in) + ' (' + fmtBytes(rates.in) + '/s)', 'ov-bytes-in'),
             card('Fetched', fmtBytes(t.bytes_out) + ' (' + fmtBytes(rates.out) + '/s)', 'ov-bytes-out'))] : []),
      h('h2', {}, 'Brokers'),
      table([{ title: 'Node id', key: 'node_id', num: true }, { title: 'Address', key: 'address' },
             { title: 'Rack', cell: b => b.rack || '' }], c.brokers || []),
      h('h2', {}, 'Listeners'),
      table([{ title: 'Name', key: 'name' }, { title: 'Security', key: 'protocol' },
             { title: 'Bound', key: 'address' }, { title: 'Advertised', key: 'advertised' }], c.listeners),
      h('h2', {}, 'Connected clients'),
      c.clients.length ? table([{ title: 'Client software (KIP-511)', key: 'software' },
                                { title: 'Connections', key: 'connections', num: true }], c.clients)
                       : h('p', { class: 'muted' }, 'No client connection has told its software (ApiVersions v3+).'),
      h('h2', {}, t ? 'Requests of tenant ' + t.name : 'Requests'),
      table([{ title: 'API', key: 'api' }, { title: 'Count', key: 'count', num: true },
             { title: 'Mean latency', num: true, cell: r => (r.mean_us / 1000).toFixed(2) + ' ms' },
             { title: 'Rate (last minute)', cell: r => spark(history[r.api] || [0]) },
             { title: 'Now', num: true, cell: r => ((history[r.api] || [0]).slice(-1)[0]).toFixed(1) + '/s' }],
            c.requests));
  }
  await refresh();
  setInterval(refresh, 2000);
}

// ---------------------------------------------------------------- topics

async function topics() {
  const list = h('div');
  const msg = h('div', { role: 'status' });
  const name = h('input', { id: 'new-topic-name', required: true, pattern: '[a-zA-Z0-9._-]+', 'aria-label': 'Topic name' });
  const parts = h('input', { id: 'new-topic-partitions', type: 'number', min: 1, value: 1, 'aria-label': 'Partitions' });
  const cfg = h('input', { id: 'new-topic-configs', placeholder: 'retention.ms=86400000, cleanup.policy=compact', size: 40 });
  const form = h('form', { class: 'inline', id: 'create-topic',
    onsubmit: async ev => {
      ev.preventDefault();
      const configs = {};
      for (const kv of cfg.value.split(',').map(s => s.trim()).filter(Boolean)) {
        const i = kv.indexOf('=');
        if (i > 0) configs[kv.slice(0, i).trim()] = kv.slice(i + 1).trim();
      }
      try {
        await api('POST', '/topics', { name: name.value, partitions: Number(parts.value), configs });
        msg.replaceChildren(h('p', { class: 'notice' }, 'Created ' + name.value));
        name.value = '';
        await load();
      } catch (e) { msg.replaceChildren(errorBox(e)); }
    } },
    h('label', {}, 'Name', name), h('label', {}, 'Partitions', parts), h('label', {}, 'Configs', cfg),
    h('button', { type: 'submit' }, 'Create topic'));
  async function load() {
    try {
      const t = await api('GET', '/topics');
      list.replaceChildren(table([
        { title: 'Topic', cell: r => h('a', { href: link('/ui/topics/' + encodeURIComponent(r.name)) }, r.name) },
        ...tenantColumn(t.topics), { title: 'Partitions', key: 'partitions', num: true }, { title: 'Messages', key: 'messages', num: true },
        { title: 'Size', num: true, cell: r => fmtBytes(r.size_bytes) },
        { title: 'Retention', cell: r => fmtMs(r.retention_ms) }, { title: 'Cleanup', key: 'cleanup_policy' }],
        t.topics));
    } catch (e) { list.replaceChildren(errorBox(e)); }
  }
  page('Topics', h('h2', {}, 'Create'), form, msg, h('h2', {}, 'All topics'), list);
  await load();
}

async function topicPage(name) {
  const box = h('div');
  page('Topic ' + name, box);
  async function load() {
    let t, c;
    try {
      [t, c] = await Promise.all([api('GET', '/topics/' + encodeURIComponent(name)),
                                  api('GET', '/topics/' + encodeURIComponent(name) + '/configs')]);
    } catch (e) { box.replaceChildren(errorBox(e)); return; }
    const msg = h('div', { role: 'status' });
    const configRows = c.configs.map(x => {
      const input = h('input', { value: x.value === null ? '' : x.value, 'aria-label': x.name, size: 24,
                                 disabled: x.read_only || x.sensitive });
      const save = h('button', { class: 'secondary', type: 'button', disabled: x.read_only,
        onclick: async () => {
          try {
            await api('PATCH', '/topics/' + encodeURIComponent(name) + '/configs', { set: { [x.name]: input.value } });
            await load();
          } catch (e) { msg.replaceChildren(errorBox(e)); }
        } }, 'Set');
      const reset = h('button', { class: 'secondary', type: 'button', disabled: x.source !== 'TOPIC_CONFIG',
        onclick: async () => {
          try {
            await api('PATCH', '/topics/' + encodeURIComponent(name) + '/configs', { delete: [x.name] });
            await load();
          } catch (e) { msg.replaceChildren(errorBox(e)); }
        } }, 'Reset');
      return { ...x, editor: h('span', {}, input, ' ', save, ' ', reset) };
    });
    box.replaceChildren(
      h('p', {}, h('a', { href: '/ui/messages?topic=' + encodeURIComponent(name) }, 'Browse messages'), ' · ',
        'id ', h('code', {}, t.topic_id), ' · ', t.messages + ' messages · ' + fmtBytes(t.size_bytes)),
      h('h2', {}, 'Partitions'),
      table([{ title: 'Partition', key: 'partition', num: true }, { title: 'Log start', key: 'log_start_offset', num: true },
             { title: 'High watermark', key: 'high_watermark', num: true },
             { title: 'Last stable', key: 'last_stable_offset', num: true },
             { title: 'Messages', key: 'messages', num: true }, { title: 'Size', num: true, cell: r => fmtBytes(r.size_bytes) },
             { title: 'Segments', key: 'segment_count', num: true }],
            t.partitions),
      ...segmentsSection(t.partitions),
      h('h2', {}, 'Configs'), msg,
      table([{ title: 'Name', cell: r => h('span', { title: r.documentation || '' }, r.name) },
             { title: 'Value', cell: r => r.editor }, { title: 'Source', key: 'source' },
             { title: 'In ketch', cell: r => r.acts_in_ketch ? 'acts' : h('span', { class: 'muted' }, 'kept only') }],
            configRows),
      h('h2', {}, 'Delete'),
      h('button', { class: 'danger', type: 'button', id: 'delete-topic', onclick: async () => {
        if (!confirm('Delete topic ' + name + ' and all its data?')) return;
        try { await api('DELETE', '/topics/' + encodeURIComponent(name)); go('/ui/topics'); }
        catch (e) { msg.replaceChildren(errorBox(e)); }
      } }, 'Delete topic ' + name));
  }
  await load();
}

// ---------------------------------------------------------------- messages

function showBytes(v, mode) {
  if (v === null || v === undefined) return h('span', { class: 'muted' }, 'null');
  let text;
  if (mode === 'hex') text = v.hex + (v.size > v.hex.length / 2 ? ' …' : '');
  else if (mode === 'json' && v.json !== undefined) text = JSON.stringify(v.json, null, 2);
  else if (v.text !== undefined) text = v.text;
  else text = v.hex;
  if (mode === 'json' && v.schema_id !== undefined)  // decoded through the schema registry
    return h('div', {}, h('span', { class: 'muted' }, `schema ${v.schema_id} (${v.schema_type})`), h('pre', { class: 'bytes' }, text));
  return h('pre', { class: 'bytes' }, text);
}

async function messages() {
  const params = new URLSearchParams(location.search);
  let topicList = [];
  try { topicList = (await api('GET', '/topics')).topics; } catch (e) { page('Messages', errorBox(e)); return; }
  const sel = (id, label, options, value) => {
    const s = h('select', { id }, options.map(o => h('option', { value: o[0], selected: o[0] === value }, o[1])));
    return [s, h('label', { for: id }, label, s)];
  };
  const [topic, topicL] = sel('m-topic', 'Topic', topicList.map(t => [t.name, t.name]), params.get('topic') || (topicList[0] || {}).name);
  const partition = h('input', { id: 'm-partition', type: 'number', min: 0, placeholder: 'all', size: 4 });
  const [from, fromL] = sel('m-from', 'From', [['earliest', 'earliest'], ['newest', 'newest first'], ['offset', 'offset'], ['timestamp', 'timestamp']], 'earliest');
  const offset = h('input', { id: 'm-offset', type: 'number', min: 0, value: 0, size: 8 });
  const ts = h('input', { id: 'm-timestamp', type: 'datetime-local' });
  const limit = h('input', { id: 'm-limit', type: 'number', min: 1, max: 500, value: 50, size: 4 });
  const [iso, isoL] = sel('m-isolation', 'Isolation', [['read_uncommitted', 'read_uncommitted'], ['read_committed', 'read_committed']], 'read_uncommitted');
  const keyF = h('input', { id: 'm-key', size: 10 });
  const contains = h('input', { id: 'm-contains', size: 12 });
  const [mode, modeL] = sel('m-mode', 'Show as', [['text', 'text'], ['json', 'JSON'], ['hex', 'hex']], 'json');
  const status = h('div', { role: 'status', id: 'm-status' });
  const rowsBox = h('div', { id: 'm-rows' });
  let shown = [];
  let tailing = null;

  function render() {
    const m = mode.value;
    rowsBox.replaceChildren(table([
      { title: 'Partition', key: 'partition', num: true }, { title: 'Offset', key: 'offset', num: true },
      { title: 'Timestamp', cell: r => fmtTime(r.timestamp) },
      { title: 'Type', cell: r => r.type === 'control' ? h('span', { class: 'tag control' }, 'marker ' + r.marker)
                                                      : h('span', { class: 'tag' }, r.transactional ? 'txn record' : 'record') },
      { title: 'Key', cell: r => r.type === 'control' ? '' : showBytes(r.key, m) },
      { title: 'Headers', cell: r => (r.headers || []).map(x => h('div', {}, h('code', {}, x.key), ': ',
                                                                 x.value === null ? 'null' : (x.value.text !== undefined ? x.value.text : x.value.hex))) },
      { title: 'Value', cell: r => r.type === 'control' ? '' : showBytes(r.value, m) }], shown));
  }
  function query(extra) {
    const q = new URLSearchParams({ limit: limit.value, isolation: iso.value });
    if (partition.value !== '') q.set('partition', partition.value);
    if (keyF.value) q.set('key', keyF.value);
    if (contains.value) q.set('contains', contains.value);
    for (const [k, v] of Object.entries(extra)) q.set(k, v);
    return '/topics/' + encodeURIComponent(topic.value) + '/messages?' + q;
  }
  async function browse() {
    stopTail();
    const extra = {};
    if (from.value === 'offset') extra.offset = offset.value || 0;
    else if (from.value === 'timestamp') extra.timestamp = ts.value ? new Date(ts.value).getTime() : 0;
    else extra.from = from.value;
    try {
      const r = await api('GET', query(extra));
      shown = r.messages;
      status.replaceChildren(r.messages.length + ' records' + (r.truncated ? ' (more available)' : ''));
      render();
    } catch (e) { status.replaceChildren(errorBox(e)); }
  }
  async function startTail() {
    stopTail();
    const me = {};
    tailing = me;
    tailBtn.textContent = 'Stop tail';
    shown = [];
    render();
    let positions;
    try { positions = (await api('GET', query({ from: 'end' }))).next_offsets; }
    catch (e) { status.replaceChildren(errorBox(e)); stopTail(); return; }
    status.replaceChildren('Tailing ' + topic.value + '…');
    while (tailing === me) {
      const pos = Object.entries(positions).map(([p, o]) => p + ':' + o).join(',');
      try {
        const r = await api('GET', query({ positions: pos, wait_ms: 1000 }));
        if (tailing !== me) break;
        positions = { ...positions, ...r.next_offsets };
        if (r.messages.length) {
          shown = r.messages.slice().reverse().concat(shown).slice(0, 500);
          render();
        }
      } catch (e) { status.replaceChildren(errorBox(e)); await new Promise(res => setTimeout(res, 1000)); }
    }
  }
  function stopTail() { tailing = null; tailBtn.textContent = 'Live tail'; }
  const tailBtn = h('button', { type: 'button', id: 'm-tail', class: 'secondary',
                               onclick: () => tailing ? stopTail() : startTail() }, 'Live tail');
  mode.addEventListener('change', render);

  // Produce
  const pKey = h('input', { id: 'p-key', size: 14 });
  const pValue = h('textarea', { id: 'p-value', cols: 40 });
  const pHeaders = h('input', { id: 'p-headers', size: 24, placeholder: '{"source": "console"}' });
  const pPart = h('input', { id: 'p-partition', type: 'number', min: 0, value: 0, size: 4 });
  const pMsg = h('div', { role: 'status' });
  const produceForm = h('form', { class: 'inline', id: 'produce', onsubmit: async ev => {
    ev.preventDefault();
    try {
      const body = { value: pValue.value, partition: Number(pPart.value) };
      if (pKey.value) body.key = pKey.value;
      if (pHeaders.value) body.headers = JSON.parse(pHeaders.value);
      const r = await api('POST', '/topics/' + encodeURIComponent(topic.value) + '/messages', body);
      pMsg.replaceChildren(h('p', { class: 'notice' }, 'Produced at partition ' + r.partition + ', offset ' + r.offset));
    } catch (e) { pMsg.replaceChildren(errorBox(e)); }
  } }, h('label', {}, 'Key', pKey), h('label', {}, 'Value', pValue), h('label', {}, 'Headers (JSON object)', pHeaders),
       h('label', {}, 'Partition', pPart), h('button', { type: 'submit' }, 'Produce'));

  page('Messages',
    h('form', { class: 'inline', id: 'browse', onsubmit: ev => { ev.preventDefault(); browse(); } },
      topicL, h('label', {}, 'Partition', partition), fromL, h('label', {}, 'Offset', offset),
      h('label', {}, 'Timestamp', ts), h('label', {}, 'Limit', limit), isoL, h('label', {}, 'Key contains', keyF),
      h('label', {}, 'Key/value contains', contains), modeL,
      h('button', { type: 'submit' }, 'Browse'), tailBtn),
    status, rowsBox, h('h2', {}, 'Produce a record'), produceForm, pMsg);
  if (topic.value) await browse();
}

// ---------------------------------------------------------------- groups

async function groups() {
  const box = h('div');
  page('Consumer groups', box);
  try {
    const g = await api('GET', '/groups');
    box.replaceChildren(unreachedBox(g.unreached_brokers), table([
      { title: 'Group', cell: r => h('a', { href: link('/ui/groups/' + encodeURIComponent(r.group_id)) }, r.group_id) },
      ...tenantColumn(g.groups), ...(g.groups.some(r => r.node_id !== undefined) ? [{ title: 'Broker', key: 'node_id', num: true }] : []),
      { title: 'State', key: 'state' }, { title: 'Protocol', cell: r => r.type + (r.protocol ? ' (' + r.protocol + ')' : '') },
      { title: 'Members', key: 'members', num: true }, { title: 'Lag', key: 'lag', num: true }], g.groups));
  } catch (e) { box.replaceChildren(errorBox(e)); }
}

async function groupPage(id) {
  const box = h('div');
  page('Group ' + id, box);
  async function load() {
    let g;
    try { g = await api('GET', '/groups/' + encodeURIComponent(id)); } catch (e) { box.replaceChildren(errorBox(e)); return; }
    const topicsOf = [...new Set(g.offsets.map(o => o.topic))];
    const rtopic = h('select', { id: 'r-topic' }, topicsOf.map(t => h('option', { value: t }, t)));
    const to = h('select', { id: 'r-to' }, ['earliest', 'latest', 'timestamp', 'offset'].map(t => h('option', { value: t }, t)));
    const val = h('input', { id: 'r-value', placeholder: 'offset or ms', size: 14 });
    const msg = h('div', { role: 'status' });
    const reset = h('form', { class: 'inline', id: 'reset-offsets', onsubmit: async ev => {
      ev.preventDefault();
      const body = { topic: rtopic.value, to: to.value };
      if (to.value === 'offset') body.offset = Number(val.value);
      if (to.value === 'timestamp') body.timestamp = Number(val.value);
      try {
        await api('POST', '/groups/' + encodeURIComponent(id) + '/offsets', body);
        await load();
      } catch (e) { msg.replaceChildren(errorBox(e)); }
    } }, h('label', {}, 'Topic', rtopic), h('label', {}, 'To', to), h('label', {}, 'Value', val),
         h('button', { type: 'submit', disabled: g.state !== 'Empty' }, 'Reset offsets'));
    box.replaceChildren(
      h('div', { class: 'cards' },
        ...[['State', g.state], ['Protocol', g.type + (g.protocol ? ' (' + g.protocol + ')' : '')],
            ['Members', g.members.length], ['Lag', g.lag]].map(([l, v]) =>
          h('div', { class: 'card' }, h('div', { class: 'label' }, l), h('div', { class: 'value', id: 'g-' + l.toLowerCase() }, v)))),
      h('h2', {}, 'Members'),
      table([{ title: 'Client id', key: 'client_id' }, { title: 'Host', key: 'host' },
             { title: 'Member id', key: 'member_id' },
             { title: 'Assignment', cell: r => r.assignment.map(a => a.topic + ' [' + a.partitions.join(', ') + ']').join('; ') }],
            g.members),
      h('h2', {}, 'Committed offsets and lag'),
      table([{ title: 'Topic', key: 'topic' }, { title: 'Partition', key: 'partition', num: true },
             { title: 'Committed', key: 'committed_offset', num: true }, { title: 'End', key: 'end_offset', num: true },
             { title: 'Lag', key: 'lag', num: true }], g.offsets),
      h('h2', {}, 'Reset offsets'),
      h('p', { class: 'muted' }, 'Only while the group has no members (state Empty), as kafka-consumer-groups --reset-offsets.'),
      reset, msg);
  }
  await load();
}

// ---------------------------------------------------------------- producers, security

async function producers() {
  const box = h('div');
  page('Producers and transactions', box);
  try {
    const [p, t] = await Promise.all([api('GET', '/producers'), api('GET', '/transactions')]);
    const byBroker = t.unreached_brokers ? [{ title: 'Broker', key: 'node_id', num: true }] : [];
    box.replaceChildren(
      h('h2', {}, 'Transactional ids'), unreachedBox(t.unreached_brokers),
      table([{ title: 'Transactional id', key: 'transactional_id' }, ...byBroker, { title: 'State', key: 'state' },
             { title: 'Producer', cell: r => r.producer_id + ' / epoch ' + r.producer_epoch },
             { title: 'Open for', cell: r => r.state === 'Ongoing' ? fmtMs(r.age_ms) : '' },
             { title: 'Timeout', cell: r => fmtMs(r.timeout_ms) },
             { title: 'Partitions', cell: r => r.partitions.map(x => x.topic + ' [' + x.partitions.join(', ') + ']').join('; ') }],
            t.transactions),
      h('h2', {}, 'Active producers per partition'),
      table([{ title: 'Topic', key: 'topic' }, { title: 'Partition', key: 'partition', num: true },
             { title: 'Producer id', key: 'producer_id', num: true }, { title: 'Epoch', key: 'producer_epoch', num: true },
             { title: 'Last sequence', key: 'last_sequence', num: true }, { title: 'Last write', cell: r => fmtTime(r.last_timestamp) },
             { title: 'Open txn from', cell: r => r.current_txn_start_offset >= 0 ? r.current_txn_start_offset : '' }],
            p.producers));
  } catch (e) { box.replaceChildren(errorBox(e)); }
}

async function security() {
  const acls = h('div'), users = h('div'), quotas = h('div'), listeners = h('div');
  page('Security', h('h2', {}, 'Listeners'), listeners, h('h2', {}, 'SCRAM users'), users,
       h('h2', {}, 'ACLs'), acls, h('h2', {}, 'Client quotas'), quotas);
  api('GET', '/cluster').then(c => listeners.replaceChildren(table(
    [{ title: 'Name', key: 'name' }, { title: 'Security protocol', key: 'protocol' }, { title: 'Address', key: 'address' }],
    c.listeners))).catch(e => listeners.replaceChildren(errorBox(e)));
  api('GET', '/users').then(u => users.replaceChildren(table(
    [{ title: 'User', key: 'user' },
     { title: 'Mechanisms', cell: r => r.credentials.map(c => c.mechanism + ' (' + c.iterations + ' iterations)').join(', ') }],
    u.users))).catch(e => users.replaceChildren(errorBox(e)));
  api('GET', '/acls').then(a => acls.replaceChildren(table(
    ['principal', 'permission', 'operation', 'resource_type', 'resource_name', 'pattern_type', 'host'].map(k => ({ title: k.replace('_', ' '), key: k })),
    a.acls))).catch(e => acls.replaceChildren(e.status === 501 ? h('p', { class: 'muted' }, 'The authorizer is off (--authorizer): every request is allowed.') : errorBox(e)));
  api('GET', '/quotas').then(q => quotas.replaceChildren(table(
    [{ title: 'Entity', cell: r => Object.entries(r.entity).map(([k, v]) => k + '=' + (v === null ? '<default>' : v)).join(', ') },
     { title: 'Quotas', cell: r => Object.entries(r.quotas).map(([k, v]) => k + '=' + v).join(', ') }],
    q.quotas))).catch(e => quotas.replaceChildren(errorBox(e)));
}

// ---------------------------------------------------------------- traffic

async function traffic() {
  if (typeof window.trafficPage === 'function') return window.trafficPage({ h, api, table, page, errorBox, fmtBytes, fmtTime });
  page('Traffic', h('p', { class: 'muted' }, 'The traffic inspector is not in this build.'));
}

// ---------------------------------------------------------------- clients (clients.js)

async function clients(item) {
  if (typeof window.clientsPage === 'function') return window.clientsPage({ h, api, table, page, errorBox, fmtTime, spark }, item);
  page('Clients', h('p', { class: 'muted' }, 'The Clients page is not in this build.'));
}

// ---------------------------------------------------------------- router

async function route() {
  renderNav();
  const parts = location.pathname.split('/').filter(Boolean).map(decodeURIComponent);
  try {
    if (parts.length === 0) return await overview();
    const [, section, item] = parts;
    if (section === 'topics') return item ? await topicPage(item) : await topics();
    if (section === 'messages') return await messages();
    if (section === 'groups') return item ? await groupPage(item) : await groups();
    if (section === 'producers') return await producers();
    if (section === 'security') return await security();
    if (section === 'traffic') return await traffic();
    if (section === 'clients') return await clients(item);
    page('Not found', h('p', {}, 'No page ' + location.pathname));
  } catch (e) { main().replaceChildren(errorBox(e)); }
}

route();
