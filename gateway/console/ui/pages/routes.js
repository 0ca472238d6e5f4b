// Routes: the route table as gateway check prints it, with each route's
// rate, error ratio and latency, filterable, and a plot of one route.
import { h, table, text, ms, rate, pct, count, windowSelect, byWindow } from '../dom.js';
import { get } from '../api.js';
import { plot, spark } from '../plot.js';

export default {
  title: 'Routes',
  controls(state, refresh) {
    state.window = '5m';
    state.filter = '';
    state.selected = '';
    return h('div', { class: 'controls' },
      h('label', { for: 'route-filter' }, 'Filter',
        h('input', { id: 'route-filter', type: 'search', placeholder: 'method, path, kind or upstream', oninput: e => { state.filter = e.target.value; refresh(); } })),
      windowSelect('route-window', state.window, v => { state.window = v; refresh(); }));
  },
  load: () => get('routes'),
  render(data, state, refresh) {
    const f = state.filter.trim().toLowerCase();
    const match = r => !f || [r.method, r.route, r.kind, r.upstream, (r.versions || []).join(',')].join(' ').toLowerCase().includes(f);
    const hasCache = data.routes.some(r => r.cache);
    const key = r => r.method + ' ' + r.route;
    const rows = data.routes.filter(match).map(r => {
      const w = byWindow(r.windows, state.window) || {};
      const pick = h('button', { type: 'button', class: 'link', 'aria-pressed': String(state.selected === key(r)),
        onclick: () => { state.selected = state.selected === key(r) ? '' : key(r); refresh(); } }, r.route);
      const cells = [r.method, pick, r.kind, text(r.upstream), (r.versions || []).join(','), rate(w.rate), pct(w.errorRatio),
        count(w.clientErrors), ms(w.p50), ms(w.p95), ms(w.p99), spark(r.series, key(r))];
      if (hasCache) cells.push(Object.entries(r.cache || {}).map(([k, n]) => `${k} ${count(n)}`).join(', ') || '–');
      return { cells, attrs: state.selected === key(r) ? { class: 'selected' } : null };
    });
    const cols = [['Method'], ['Route'], ['Kind'], ['Upstream'], ['Versions'], ['Rate', 'num'], ['5xx', 'num'], ['4xx', 'num'],
      ['p50', 'num'], ['p95', 'num'], ['p99', 'num'], ['p95, 15 min']];
    if (hasCache) cols.push(['Cache lookups']);
    const chosen = data.routes.find(r => key(r) === state.selected);
    const other = (data.other || []).map(r => {
      const w = byWindow(r.windows, state.window) || {};
      return [r.method, r.route, rate(w.rate), count(w.count), pct(w.errorRatio), ms(w.p50), ms(w.p95), ms(w.p99)];
    });
    return h('div', null,
      data.recording ? null : h('p', { class: 'notice' }, 'Recording is off (console.record): the table has no figures.'),
      h('section', { class: 'card wide', 'aria-label': 'Route table' },
        table(`Routes, ${state.window} window (5xx is the error ratio; select a route to plot it)`, cols, rows, f ? 'No route matches the filter.' : 'No routes.')),
      h('section', { class: 'card wide', 'aria-label': 'Latency plot' },
        h('h2', null, chosen ? `Latency of ${key(chosen)}` : 'Latency of every route'),
        plot(chosen ? chosen.series : data.total.series, chosen ? key(chosen) : 'Every route')),
      h('section', { class: 'card wide', 'aria-label': 'Requests on no route' }, h('h2', null, 'Requests on no route'),
        table('Unmatched requests and series past the bound', [['Method'], ['Route'], ['Rate', 'num'], ['Requests', 'num'], ['5xx', 'num'], ['p50', 'num'], ['p95', 'num'], ['p99', 'num']],
          other, 'None.')));
  },
};
