// Slow calls: the slowest recent calls, their bodies masked as the call
// log masks them.
import { h, table, text, ms, time, windowSelect, safeLink } from '../dom.js';
import { get } from '../api.js';

export default {
  title: 'Slow calls',
  controls(state, refresh) {
    state.window = '15m';
    return h('div', { class: 'controls' }, windowSelect('slow-window', state.window, v => { state.window = v; refresh(); }));
  },
  load: state => get('slow-calls', { window: state.window, limit: 100 }),
  render(data) {
    const rows = data.calls.map(c => [time(c.time), c.method, h('span', { class: 'mono' }, text(c.path)), text(c.user),
      ms(c.totalMs), ms(c.upstreamMs), String(c.status), text(c.code),
      c.traceURL ? safeLink(c.traceURL, c.traceId) : h('span', { class: 'mono' }, text(c.traceId)),
      c.body ? h('details', null, h('summary', null, 'body'), h('pre', null, c.body)) : '–']);
    return h('div', null,
      data.recording ? null : h('p', { class: 'notice' }, 'Recording is off (console.record): no calls are kept.'),
      h('p', { class: 'muted' }, `The slowest calls of each minute, slowest first; calls of ${ms(data.slowThresholdMs)} or more are also logged as slow.`),
      h('section', { class: 'card wide', 'aria-label': 'Slow calls' },
        table(`Slowest calls, ${data.window} window`, [['Time'], ['Method'], ['Path'], ['User'], ['Total', 'num'], ['Upstream', 'num'],
          ['Status', 'num'], ['Code'], ['Trace'], ['Body']], rows, 'No calls in this window.')));
  },
};
