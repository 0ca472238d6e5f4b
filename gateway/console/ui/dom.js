// DOM helpers. Every value reaches the page as a text node or an
// attribute value set through the DOM, never as markup: no script of the
// console hands a string to the HTML parser.

const SVG = 'http://www.w3.org/2000/svg';

// h makes an element: props are attributes (on* are listeners), children
// are nodes or values shown as text. A tag "svg:x" is an SVG element.
export function h(tag, props, ...children) {
  const svg = tag.startsWith('svg:');
  const el = svg ? document.createElementNS(SVG, tag.slice(4)) : document.createElement(tag);
  for (const [k, v] of Object.entries(props || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

// text is a value as text; empty values show a dash.
export function text(v) {
  return v === null || v === undefined || v === '' ? '–' : String(v);
}

// ms formats milliseconds.
export function ms(v) {
  if (v === null || v === undefined) return '–';
  if (v >= 1000) return (v / 1000).toFixed(2) + ' s';
  if (v >= 100) return v.toFixed(0) + ' ms';
  if (v >= 10) return v.toFixed(1) + ' ms';
  return v.toFixed(2) + ' ms';
}

export function rate(v) {
  if (!v) return '0/s';
  return (v >= 100 ? v.toFixed(0) : v >= 1 ? v.toFixed(1) : v.toFixed(2)) + '/s';
}

export function pct(v) {
  if (!v) return '0%';
  return (v * 100).toFixed(v < 0.01 ? 2 : 1) + '%';
}

export function count(v) {
  return v === null || v === undefined ? '–' : Math.round(v).toLocaleString('en');
}

export function bytes(v) {
  if (v === null || v === undefined) return '–';
  const units = ['B', 'KiB', 'MiB', 'GiB'];
  let i = 0;
  while (v >= 1024 && i < units.length - 1) { v /= 1024; i++; }
  return (i ? v.toFixed(1) : v) + ' ' + units[i];
}

export function time(v) {
  if (!v) return '–';
  const d = new Date(v);
  return isNaN(d) ? String(v) : d.toLocaleTimeString();
}

export function dateTime(v) {
  if (!v) return '–';
  const d = new Date(v);
  return isNaN(d) ? String(v) : d.toLocaleString();
}

export function duration(seconds) {
  const s = Math.floor(seconds);
  const d = Math.floor(s / 86400), hh = Math.floor(s % 86400 / 3600), mm = Math.floor(s % 3600 / 60);
  if (d) return `${d} d ${hh} h`;
  if (hh) return `${hh} h ${mm} min`;
  if (mm) return `${mm} min ${s % 60} s`;
  return `${s} s`;
}

// facts is a definition list of [term, value] pairs; a value may be a node.
export function facts(pairs) {
  return h('dl', { class: 'facts' }, pairs.filter(Boolean).map(([k, v]) => [h('dt', null, k), h('dd', null, v instanceof Node ? v : text(v))]));
}

// table makes a scrollable table: columns are [heading, class]; rows are
// arrays of cells (values or nodes).
export function table(caption, columns, rows, empty) {
  if (!rows.length) return h('p', { class: 'muted' }, empty || 'Nothing yet.');
  const t = h('table', null,
    h('caption', null, caption),
    h('thead', null, h('tr', null, columns.map(([name, cls]) => h('th', { scope: 'col', class: cls }, name)))),
    h('tbody', null, rows.map(r => h('tr', r.attrs || null, (r.cells || r).map((c, i) =>
      h('td', { class: columns[i] && columns[i][1] }, c instanceof Node ? c : text(c)))))));
  return h('div', { class: 'scroll', tabindex: 0, role: 'region', 'aria-label': caption }, t);
}

export function card(title, ...body) {
  return h('section', { class: 'card', 'aria-label': title }, h('h2', null, title), body);
}

export function badge(label, kind) {
  return h('span', { class: 'badge ' + kind }, label);
}

// safeLink is an http(s) link to href showing label, or the label alone
// when href is anything else.
export function safeLink(href, label) {
  try {
    const u = new URL(href, location.href);
    if (u.protocol === 'http:' || u.protocol === 'https:') {
      return h('a', { href: u.href, rel: 'noopener noreferrer', target: '_blank' }, label);
    }
  } catch (e) { /* not a URL: no link */ }
  return document.createTextNode(text(label));
}

// windowSelect is a labelled select of the windows 1m, 5m, 15m.
export function windowSelect(id, value, onchange) {
  return h('label', { for: id }, 'Window',
    h('select', { id, onchange: e => onchange(e.target.value) },
      ['1m', '5m', '15m'].map(w => h('option', { value: w, selected: w === value }, w === '1m' ? 'last minute' : `last ${parseInt(w)} minutes`))));
}

export function byWindow(list, w) {
  return (list || []).find(s => s.window === w) || null;
}
