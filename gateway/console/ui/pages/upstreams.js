// Upstreams: each backend's breaker, concurrency limit, calls, token and,
// where their metrics exist, cache and allowance figures.
import { h, facts, card, table, badge, text, ms, rate, pct, count, dateTime, time } from '../dom.js';
import { get } from '../api.js';
import { plot } from '../plot.js';

const breakerKind = { closed: 'ok', 'half-open': 'warn', open: 'bad' };

export default {
  title: 'Upstreams',
  load: () => get('upstreams'),
  render(data) {
    if (!data.upstreams.length) return h('p', { class: 'muted' }, 'No upstream is configured.');
    return h('div', { class: 'grid broad' }, data.upstreams.map(u => upstream(u, data.recording)));
  },
};

function upstream(u, recording) {
  const c = u.concurrency;
  const rows = (u.windows || []).map(w => [w.window, rate(w.rate), count(w.count), pct(w.errorRatio), count(w.clientErrors), ms(w.p50), ms(w.p95), ms(w.p99)]);
  return h('section', { class: 'card', 'aria-label': 'Upstream ' + u.name },
    h('h2', null, u.name, ' ', badge('breaker ' + u.breaker.state, breakerKind[u.breaker.state] || 'warn')),
    facts([
      ['URL', h('span', { class: 'mono' }, text(u.url))],
      ['Concurrency', `${count(c.inFlight)} in flight of ${count(c.limit)} allowed (${c.adaptive ? 'adaptive' : 'static'}), ${count(c.waiting)} waiting`],
      ['Routes', u.routes.length ? h('details', null, h('summary', null, `${u.routes.length} route${u.routes.length > 1 ? 's' : ''}`),
        h('ul', null, u.routes.map(r => h('li', { class: 'mono' }, r)))) : 'none'],
      u.token ? ['OAuth token', token(u.token)] : null,
      u.allowance ? ['Allowance', allowance(u.allowance)] : null,
      u.cache ? ['Cache lookups', Object.entries(u.cache).map(([k, n]) => `${k} ${count(n)}`).join(', ') || 'none yet'] : null,
    ]),
    recording ? table(`Calls to ${u.name}`, [['Window'], ['Rate', 'num'], ['Calls', 'num'], ['Failed', 'num'], ['Rejected', 'num'], ['p50', 'num'], ['p95', 'num'], ['p99', 'num']], rows) : null,
    recording ? plot(u.series, 'Calls to ' + u.name) : null,
    h('h3', null, 'Breaker history'),
    u.breaker.history.length
      ? h('ol', null, u.breaker.history.map(t => h('li', null, `${time(t.time)}: ${t.from} → ${t.to}`)))
      : h('p', { class: 'muted' }, 'No transition since the start.'));
}

function token(t) {
  const parts = [t.flow + ': ' + (t.held ? 'held' : 'none held')];
  if (t.expiry) parts.push('expires ' + dateTime(t.expiry));
  if (t.refreshed) parts.push('obtained ' + dateTime(t.refreshed));
  const node = h('span', null, parts.join(', '));
  if (t.lastError) return h('span', null, node, h('br'), badge('last failure ' + time(t.lastErrorAt), 'bad'), ' ', t.lastError);
  return node;
}

function allowance(a) {
  if (a.used === null || a.limit === null || !a.limit) return `${count(a.used)} used of ${count(a.limit)}`;
  return h('span', null, `${count(a.used)} used of ${count(a.limit)} (${pct(a.used / a.limit)})`,
    h('meter', { min: 0, max: a.limit, value: a.used, low: a.limit * 0.7, high: a.limit * 0.9, optimum: 0, 'aria-label': 'allowance used' }));
}
