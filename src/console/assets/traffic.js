// ketch console: the Traffic page (the inspector). Polls /api/v1/traffic
// every second while open (which keeps the broker recording), with filters;
// a click (or Enter) shows the exchange decoded field by field.
'use strict';

window.trafficPage = async function ({ h, api, table, page, errorBox, fmtBytes, fmtTime }) {
  const f = {};
  const input = (id, label, size) => { f[id] = h('input', { id: 't-' + id, size: size || 12 }); return h('label', { for: 't-' + id }, label, f[id]); };
  const status = h('div', { role: 'status', id: 't-status' });
  const rowsBox = h('div', { id: 't-rows' });
  const detail = h('div', { class: 'detail', id: 't-detail', 'aria-live': 'polite' });
  const eventsBox = h('div', { id: 't-events' });
  let rows = [];
  let last = 0;
  let cursor = '';  // cluster mode: every broker's position ("1:815,2:301")
  let paused = false;

  function params() {
    const q = new URLSearchParams(cursor ? { cursor, limit: 500 } : { after: last, limit: 500 });
    for (const k of ['client_id', 'api', 'topic', 'error', 'connection']) if (f[k].value) q.set(k, f[k].value);
    return q;
  }

  async function open(r) {
    detail.replaceChildren(h('p', {}, 'Loading #' + r.seq + '…'));
    try {
      const at = r.node_id === undefined ? '' : '?node=' + r.node_id;
      const x = await api('GET', '/traffic/' + r.seq + at);
      const parts = [
        h('h2', {}, x.api + ' v' + x.api_version + ' · #' + x.seq),
        h('p', {}, 'client ', h('code', {}, x.client_id || '(none)'), ' · connection ' + x.connection + ' (' + x.peer + ', ' + x.principal + ')',
          h('br'), 'request ' + fmtBytes(x.request_bytes) + ' · response ' + fmtBytes(x.response_bytes) +
          ' · ' + (x.duration_us / 1000).toFixed(2) + ' ms · correlation ' + x.correlation_id),
      ];
      if (x.fault) parts.push(h('p', { class: 'error' }, 'Injected fault: ' + x.fault));
      if (x.withheld) parts.push(h('p', { class: 'muted' }, x.withheld));
      if (x.problem) parts.push(h('p', { class: 'error' }, x.problem));
      parts.push(h('h2', {}, 'Request'), h('pre', { id: 't-request' }, x.request === null ? '(not kept)' : JSON.stringify(x.request, null, 2)));
      parts.push(h('h2', {}, 'Response'), h('pre', { id: 't-response' }, x.response === null ? '(not kept)' : JSON.stringify(x.response, null, 2)));
      if (x.api === 'Produce' && x.request !== null) {
        const recBox = h('div');
        parts.push(h('button', { type: 'button', class: 'secondary', id: 't-show-records', onclick: async () => {
          try {
            const rr = await api('GET', '/traffic/' + x.seq + '/records' + at);
            recBox.replaceChildren(h('pre', {}, JSON.stringify(rr.records.map(r => ({
              topic: r.topic, partition: r.partition, key: r.key && (r.key.text !== undefined ? r.key.text : r.key.hex),
              value: r.value && (r.value.json !== undefined ? r.value.json : (r.value.text !== undefined ? r.value.text : r.value.hex)),
              headers: r.headers.map(hd => [hd.key, hd.value && hd.value.text])
            })), null, 2)));
          } catch (e) { recBox.replaceChildren(errorBox(e)); }
        } }, 'Show records'), recBox);
      }
      detail.replaceChildren(...parts);
    } catch (e) { detail.replaceChildren(errorBox(e)); }
  }

  function render() {
    rowsBox.replaceChildren(table([
      ...(cursor ? [{ title: 'Broker', key: 'node_id', num: true }] : []), { title: '#', key: 'seq', num: true }, { title: 'Time', cell: r => fmtTime(r.time_ms).slice(11) },
      { title: 'Conn', key: 'connection', num: true }, { title: 'Client id', key: 'client_id' },
      { title: 'API', cell: r => r.api + ' v' + r.api_version },
      { title: 'Topics', cell: r => r.topics.join(', ') },
      { title: 'Errors', cell: r => [].concat(r.fault ? [h('span', { class: 'tag bad', title: r.fault }, 'fault')] : [],
          r.closed ? [h('span', { class: 'tag bad' }, 'closed')] : r.errors.map(e => h('span', { class: 'tag bad' }, e))) },
      { title: 'Size', num: true, cell: r => fmtBytes(r.request_bytes) + ' / ' + fmtBytes(r.response_bytes) },
      { title: 'Time taken', num: true, cell: r => (r.duration_us / 1000).toFixed(2) + ' ms' }],
      rows.slice().reverse(), open));
  }

  async function poll() {
    if (!paused) {
      try {
        const r = await api('GET', '/traffic?' + params());
        last = r.last_seq;
        cursor = r.cursor || '';
        if (r.exchanges.length) {
          rows = rows.concat(r.exchanges).slice(-2000);
          render();
        }
        const missing = (r.unreached_brokers || []).map(u => 'broker ' + u.node_id + ' not reached: ' + u.error);
        status.replaceChildren((r.recording ? 'Recording' : 'Not recording') + ' · ' + rows.length + ' exchanges shown' +
          (missing.length ? ' · ' + missing.join('; ') : ''));
        const ev = await api('GET', '/traffic/connections');
        eventsBox.replaceChildren(table([
          { title: 'Time', cell: e => fmtTime(e.time_ms).slice(11) }, ...(ev.unreached_brokers ? [{ title: 'Broker', key: 'node_id', num: true }] : []),
          { title: 'Conn', key: 'connection', num: true },
          { title: 'Event', key: 'kind' }, { title: 'Peer', key: 'peer' }, { title: 'Listener', key: 'listener' },
          { title: 'Principal', key: 'principal' }, { title: 'Detail', key: 'detail' }], ev.events.slice(-50).reverse()));
      } catch (e) { status.replaceChildren(errorBox(e)); }
    }
    setTimeout(poll, 1000);
  }

  const refilter = () => { rows = []; last = 0; cursor = ''; render(); };
  const form = h('form', { class: 'inline', id: 't-filter', onsubmit: ev => { ev.preventDefault(); refilter(); } },
    input('client_id', 'Client id'), input('api', 'API', 14), input('topic', 'Topic'), input('error', 'Error (name or any)'),
    input('connection', 'Connection', 6), h('button', { type: 'submit' }, 'Filter'),
    h('button', { type: 'button', class: 'secondary', id: 't-pause', onclick: ev => { paused = !paused; ev.target.textContent = paused ? 'Resume' : 'Pause'; } }, 'Pause'));
  page('Traffic', h('p', { class: 'muted' }, 'Every request and response on the Kafka listeners while this page is open (the last 2,000). ' +
                    'Secrets (SASL tokens, SCRAM messages, passwords) are never kept; record payloads are shown as sizes, the records a click away.'),
       form, status, h('div', { class: 'split' }, rowsBox, detail), h('h2', {}, 'Connections'), eventsBox);
  render();
  poll();
};
