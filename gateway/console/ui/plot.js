// Latency plots drawn as SVG: p50, p95 and p99 a point a minute.
import { h, ms, time } from './dom.js';

const W = 600, H = 180, L = 52, R = 10, T = 10, B = 26;

// plot is the latency of series (the API's points) over 15 minutes.
export function plot(series, label) {
  const pts = series || [];
  const values = pts.flatMap(p => [p.p50, p.p95, p.p99]).filter(v => v !== null && v !== undefined);
  const max = values.length ? Math.max(...values) * 1.1 : 1;
  const x = i => L + (pts.length > 1 ? i * (W - L - R) / (pts.length - 1) : 0);
  const y = v => T + (H - T - B) * (1 - v / max);
  const line = key => {
    const segs = [];
    let cur = [];
    pts.forEach((p, i) => {
      if (p[key] === null || p[key] === undefined) { if (cur.length) segs.push(cur); cur = []; return; }
      cur.push(`${x(i).toFixed(1)},${y(p[key]).toFixed(1)}`);
    });
    if (cur.length) segs.push(cur);
    return segs.map(s => s.length === 1
      ? h('svg:circle', { class: key, cx: s[0].split(',')[0], cy: s[0].split(',')[1], r: 2 })
      : h('svg:polyline', { class: key, points: s.join(' ') }));
  };
  const peak = values.length ? ms(Math.max(...values)) : 'no requests';
  const summary = `${label}: latency over the last 15 minutes, highest p99 ${peak}`;
  const svg = h('svg:svg', { class: 'plot', viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': summary },
    h('svg:title', null, summary),
    h('svg:line', { class: 'axis', x1: L, y1: H - B, x2: W - R, y2: H - B }),
    h('svg:line', { class: 'axis', x1: L, y1: T, x2: L, y2: H - B }),
    h('svg:text', { class: 'label', x: L - 6, y: T + 8, 'text-anchor': 'end' }, values.length ? ms(max) : ''),
    h('svg:text', { class: 'label', x: L - 6, y: H - B, 'text-anchor': 'end' }, '0'),
    pts.length ? h('svg:text', { class: 'label', x: L, y: H - 8 }, time(pts[0].time)) : null,
    pts.length ? h('svg:text', { class: 'label', x: W - R, y: H - 8, 'text-anchor': 'end' }, time(pts[pts.length - 1].time)) : null,
    line('p99'), line('p95'), line('p50'));
  const legend = h('ul', { class: 'legend', 'aria-hidden': 'true' },
    h('li', null, h('span', { class: 'key k50' }), 'p50'),
    h('li', null, h('span', { class: 'key k95' }), 'p95'),
    h('li', null, h('span', { class: 'key k99' }), 'p99'));
  return h('figure', { class: 'figure' }, svg, legend);
}

// spark is a small p95 line of series for a table cell.
export function spark(series, label) {
  const pts = series || [];
  const vals = pts.map(p => p.p95);
  const known = vals.filter(v => v !== null && v !== undefined);
  const max = known.length ? Math.max(...known) : 1;
  const coords = [];
  vals.forEach((v, i) => {
    if (v === null || v === undefined) return;
    coords.push(`${(2 + i * 116 / Math.max(vals.length - 1, 1)).toFixed(1)},${(26 - 24 * v / max).toFixed(1)}`);
  });
  const summary = known.length ? `${label}: p95 per minute, highest ${ms(max)}` : `${label}: no requests in 15 minutes`;
  return h('svg:svg', { class: 'spark', viewBox: '0 0 120 28', role: 'img', 'aria-label': summary },
    h('svg:title', null, summary),
    coords.length > 1 ? h('svg:polyline', { class: 'p95', points: coords.join(' ') }) : null,
    coords.length === 1 ? h('svg:circle', { class: 'p95', cx: coords[0].split(',')[0], cy: coords[0].split(',')[1], r: 2 }) : null);
}
