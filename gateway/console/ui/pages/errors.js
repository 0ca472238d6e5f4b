// Errors by type: counts per response code over the windows, the last
// masked system message of each, and how they split by route and upstream.
import { h, table, text, count, time, badge } from '../dom.js';
import { get } from '../api.js';

const counts = list => Object.fromEntries((list || []).map(c => [c.window, c.count]));

export default {
  title: 'Errors by type',
  load: () => get('errors'),
  render(data) {
    const summary = data.codes.map(c => {
      const n = counts(c.counts);
      const go = () => { const el = document.getElementById('err-' + c.code); if (el) { el.scrollIntoView(); el.focus(); } };
      return [h('button', { type: 'button', class: 'link mono', onclick: go }, c.code), count(n['1m']), count(n['5m']), count(n['15m'])];
    });
    return h('div', null,
      data.recording ? null : h('p', { class: 'notice' }, 'Recording is off (console.record): no errors are kept.'),
      h('section', { class: 'card wide', 'aria-label': 'Errors by response code' },
        table('Errors by response code, most over 15 minutes first', [['Code'], ['1 min', 'num'], ['5 min', 'num'], ['15 min', 'num']],
          summary, 'No error in the last 15 minutes.')),
      h('div', { class: 'grid broad' }, data.codes.map(code)));
  },
};

function code(c) {
  const l = c.last;
  const split = (rows, label) => rows.map(s => {
    const n = counts(s.counts);
    return [label(s), count(n['1m']), count(n['5m']), count(n['15m'])];
  });
  return h('section', { class: 'card', id: 'err-' + c.code, tabindex: -1, 'aria-label': 'Errors ' + c.code },
    h('h2', { class: 'mono' }, c.code),
    l ? h('div', null,
      h('p', null, badge(String(l.status), l.status >= 500 ? 'bad' : 'warn'), ` last at ${time(l.time)} on ${l.method} `,
        h('span', { class: 'mono' }, text(l.path)), l.upstream ? ` from ${l.upstream}` : '', `, user ${text(l.user)}, trace `, h('span', { class: 'mono' }, text(l.traceId))),
      h('pre', { 'aria-label': 'last system message' }, l.systemMessage)) : null,
    table(`${c.code} by route`, [['Route'], ['1 min', 'num'], ['5 min', 'num'], ['15 min', 'num']],
      split(c.byRoute, s => `${s.method} ${s.route}`)),
    c.byUpstream.length ? table(`${c.code} by upstream`, [['Upstream'], ['1 min', 'num'], ['5 min', 'num'], ['15 min', 'num']],
      split(c.byUpstream, s => s.upstream)) : null);
}
