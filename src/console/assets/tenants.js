// ketch console: the tenant selector (--tenancy; docs/console.md "Tenants").
// An operator (a super user) picks a tenant in the navigation bar: the page's
// URL gets ?tenant=T and the overview and the lists (topics, groups, traffic, clients) are
// asked for that tenant's only. A tenant's user sees its tenant's name
// instead: the broker shows it nothing else.
'use strict';

window.tenantUi = (function () {
  const LISTS = ['/cluster', '/topics', '/groups', '/traffic', '/clients'];

  function selected() { return new URLSearchParams(location.search).get('tenant') || ''; }

  function withTenant(path) {
    const t = selected();
    return t ? path + (path.includes('?') ? '&' : '?') + 'tenant=' + encodeURIComponent(t) : path;
  }

  // An API path with the page's tenant, for the lists that take one.
  function scoped(path) {
    const base = path.split('?')[0];
    return LISTS.some(p => base === p || base.startsWith(p + '/')) ? withTenant(path) : path;
  }

  // The navigation bar's control: a selector for an operator, the tenant's
  // name for a tenant's user, nothing without tenancy.
  async function control(h, api) {
    let v;
    try { v = await api('GET', '/tenant_view'); } catch (e) { return null; }
    if (!v.tenancy) return null;
    if (v.scoped) return h('span', { class: 'tenant', id: 'tenant-label' }, 'Tenant: ' + v.tenant);
    const sel = h('select', { id: 'tenant-select', 'aria-label': 'Tenant' },
      h('option', { value: '' }, 'All tenants'),
      v.tenants.map(t => h('option', { value: t, selected: t === selected() }, t)));
    sel.addEventListener('change', () => {
      const q = new URLSearchParams(location.search);
      if (sel.value) q.set('tenant', sel.value); else q.delete('tenant');
      location.search = q.toString();
    });
    return h('label', { class: 'tenant' }, 'Tenant ', sel);
  }

  return { selected, scoped, link: withTenant, control };
})();
