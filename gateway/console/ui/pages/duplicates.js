// Duplicates: the users sending the same request again, with their routes.
import { h, table, text, count, time, windowSelect } from '../dom.js';
import { get } from '../api.js';

export default {
  title: 'Duplicates',
  controls(state, refresh) {
    state.window = '15m';
    return h('div', { class: 'controls' }, windowSelect('dup-window', state.window, v => { state.window = v; refresh(); }));
  },
  load: state => get('duplicates', { window: state.window, limit: 100 }),
  render(data) {
    const rows = data.users.map(u => [text(u.user), count(u.count) + (u.overcount ? ` (at most ${count(u.overcount)} too many)` : ''),
      h('ul', null, u.routes.map(r => h('li', null, `${r.method} ${r.route} × ${count(r.count)}`))),
      h('span', { class: 'mono' }, text(u.lastPath)), time(u.lastTime)]);
    return h('div', null,
      data.recording ? null : h('p', { class: 'notice' }, 'Recording is off (console.record): no duplicates are kept.'),
      h('p', { class: 'muted' }, 'Requests repeating one by the same user with the same method, path, query and body within log.duplicateWindow.'),
      h('section', { class: 'card wide', 'aria-label': 'Duplicate requests' },
        table(`Users sending duplicates, ${data.window} window, most first`, [['User'], ['Duplicates', 'num'], ['Routes'], ['Last path'], ['Last']],
          rows, 'No duplicate requests in this window.')));
  },
};
