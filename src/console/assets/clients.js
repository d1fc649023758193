// ketch console: the Clients page (KIP-714 client telemetry). The list polls
// /api/v1/clients; a client instance's page polls /api/v1/clients/{id} and
// shows its key metrics first, then every series with a small chart.
'use strict';

// Metrics shown first when the client pushes them (name suffixes; the Java
// client and librdkafka both use Kafka's org.apache.kafka.* names).
const CLIENT_HIGHLIGHTS = [
  'producer.record.send.rate', 'producer.request.latency.avg', 'producer.node.request.latency.avg',
  'producer.record.queue.time.avg', 'consumer.fetch.manager.records.consumed.rate',
  'consumer.fetch.manager.records.lag.max', 'consumer.fetch.manager.fetch.latency.avg',
  'consumer.coordinator.commit.latency.avg', 'consumer.node.request.latency.avg',
];

window.clientsPage = async function ({ h, api, table, page, errorBox, fmtTime, spark }, item) {
  if (item) return clientPage(item);
  const status = h('div', { role: 'status', id: 'c-status' });
  const list = h('div', { id: 'c-list' });
  page('Clients', h('p', { class: 'muted' }, 'Client instances that push their metrics (KIP-714). The Java client pushes by default; ' +
                    'librdkafka-based clients with enable.metrics.push=true.'), status, list);
  async function poll() {
    if (!document.body.contains(list)) return;
    try {
      const r = await api('GET', '/clients');
      const missing = (r.unreached_brokers || []).map(u => 'broker ' + u.node_id + ' not reached: ' + u.error);
      status.replaceChildren((r.enabled ? r.clients.length + ' client instances' : 'Telemetry is off') +
        (missing.length ? ' · ' + missing.join('; ') : ''));
      list.replaceChildren(table([
        { title: 'Instance', cell: c => h('a', { href: '/ui/clients/' + encodeURIComponent(c.client_instance_id) }, c.client_instance_id) },
        ...(r.unreached_brokers ? [{ title: 'Broker', key: 'node_id', num: true }] : []),
        { title: 'Client id', key: 'client_id' },
        { title: 'Software', cell: c => (c.client_software_name + ' ' + c.client_software_version).trim() },
        { title: 'Address', key: 'client_source_address' },
        ...(r.clients.some(c => c.tenant) ? [{ title: 'Tenant', key: 'tenant' }] : []),
        { title: 'Pushes', key: 'pushes', num: true },
        { title: 'Series', key: 'series_count', num: true },
        { title: 'Last push', cell: c => fmtTime(c.last_metrics_ms) },
        { title: 'State', cell: c => c.terminating ? 'terminated' : (c.last_error === 'NONE' ? 'ok' : c.last_error) }],
        r.clients, c => { location.href = '/ui/clients/' + encodeURIComponent(c.client_instance_id); }));
    } catch (e) { status.replaceChildren(errorBox(e)); }
    setTimeout(poll, 3000);
  }
  poll();

  async function clientPage(id) {
    const head = h('div', { id: 'c-head' });
    const highlights = h('div', { class: 'cards', id: 'c-highlights' });
    const filter = h('input', { id: 'c-filter', size: 30, placeholder: 'metric name contains…' });
    const all = h('div', { id: 'c-series' });
    page('Client ' + id, head, h('h2', {}, 'Key metrics'), highlights, h('h2', {}, 'All metrics'),
         h('label', { for: 'c-filter' }, 'Filter ', filter), all);
    filter.addEventListener('input', () => render(last));
    let last = null;
    const label = s => s.name.replace(/^org\.apache\.kafka\./, '') +
      (Object.keys(s.attributes).length ? ' {' + Object.entries(s.attributes).map(([k, v]) => k + '=' + v).join(', ') + '}' : '');
    const lastValue = s => s.points.length ? s.points[s.points.length - 1][1] : null;
    const fmt = v => v === null ? '' : (Math.abs(v) >= 100 || Number.isInteger(v) ? String(Math.round(v * 100) / 100) : v.toPrecision(4));
    function render(c) {
      if (!c) return;
      head.replaceChildren(h('p', {}, 'client id ', h('code', {}, c.client_id || '(none)'), ' · ',
        (c.client_software_name + ' ' + c.client_software_version).trim() || 'unknown software', ' · ', c.client_source_address,
        h('br'), 'subscription ', String(c.subscription.subscription_id), ': every ', String(c.subscription.push_interval_ms), ' ms, ',
        c.subscription.metrics.join(', ') || 'no metrics', ' · ', String(c.pushes), ' pushes, last ', fmtTime(c.last_metrics_ms),
        c.terminating ? ' · terminated' : '', c.last_error !== 'NONE' ? ' · last error ' + c.last_error : ''));
      const hl = c.metrics.filter(s => CLIENT_HIGHLIGHTS.some(n => s.name.endsWith(n)) && !Object.keys(s.attributes).length);
      highlights.replaceChildren(...(hl.length ? hl.map(s => h('div', { class: 'card' }, h('div', { class: 'label' }, label(s)),
        h('div', { class: 'value' }, fmt(lastValue(s))), spark(s.points.map(p => p[1])))) : [h('p', { class: 'muted' }, 'None pushed yet.')]));
      const q = filter.value.toLowerCase();
      const rows = c.metrics.filter(s => !q || label(s).toLowerCase().includes(q));
      all.replaceChildren(table([
        { title: 'Metric', cell: s => label(s) }, { title: 'Kind', cell: s => s.kind + (s.delta ? ' (delta)' : '') },
        { title: 'Last value', num: true, cell: s => fmt(lastValue(s)) }, { title: 'Over time', cell: s => spark(s.points.map(p => p[1])) }],
        rows));
    }
    async function refresh() {
      if (!document.body.contains(all)) return;
      try { last = await api('GET', '/clients/' + encodeURIComponent(id) + '?points=60'); render(last); }
      catch (e) { head.replaceChildren(errorBox(e)); }
      setTimeout(refresh, 3000);
    }
    refresh();
  }
};
