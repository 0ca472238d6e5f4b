// The console: a panel per page, chosen by the URL's fragment, refreshed
// from the admin API every few seconds while the tab is visible.
import { h } from './dom.js';
import { APIError, credential, setCredential } from './api.js';
import overview from './pages/overview.js';
import routes from './pages/routes.js';
import upstreams from './pages/upstreams.js';
import slow from './pages/slow.js';
import duplicates from './pages/duplicates.js';
import errors from './pages/errors.js';

const pages = { overview, routes, upstreams, slow, duplicates, errors };
const REFRESH_MS = 5000;

const main = document.getElementById('main');
const updated = document.getElementById('updated');
const pauseButton = document.getElementById('pause');

let current = null; // { name, page, state, controls, content }
let timer = 0;
let paused = false;
let generation = 0;

function pageName() {
  const name = location.hash.slice(1);
  return Object.hasOwn(pages, name) ? name : 'overview';
}

function show(focus) {
  const name = pageName();
  const page = pages[name];
  const state = {};
  const content = h('div', { class: 'content' });
  const controls = page.controls ? page.controls(state, () => refresh()) : null;
  current = { name, page, state, content };
  main.replaceChildren(...[h('h1', null, page.title), controls, content].filter(Boolean));
  for (const a of document.querySelectorAll('#nav a')) {
    if (a.dataset.page === name) a.setAttribute('aria-current', 'page'); else a.removeAttribute('aria-current');
  }
  document.title = page.title + ' · restgate console';
  if (focus) main.focus();
  refresh();
}

async function refresh() {
  clearTimeout(timer);
  const cur = current;
  const mine = ++generation;
  try {
    const data = await cur.page.load(cur.state);
    if (mine !== generation || cur !== current) return;
    cur.content.replaceChildren(cur.page.render(data, cur.state, () => refresh()));
    updated.textContent = 'Updated ' + new Date().toLocaleTimeString();
  } catch (e) {
    if (mine !== generation || cur !== current) return;
    cur.content.replaceChildren(problem(e));
    updated.textContent = 'Not updated';
    // the sign-in form waits for the operator: polling would redraw it
    // under their typing
    if (e instanceof APIError && e.status === 401) return;
  }
  schedule();
}

function schedule() {
  clearTimeout(timer);
  if (!paused && !document.hidden) timer = setTimeout(refresh, REFRESH_MS);
}

// problem shows why the panel has no data: a sign-in form when the API
// wants a credential.
function problem(e) {
  if (e instanceof APIError && e.status === 401) return signIn(e.message);
  if (e instanceof APIError && e.status === 403) {
    return h('div', { class: 'error', role: 'alert' }, h('h2', null, 'Access refused'), h('p', null, e.message),
      credential() ? h('button', { type: 'button', onclick: signOut }, 'Sign out') : null);
  }
  return h('div', { class: 'error', role: 'alert' }, h('h2', null, 'The admin API did not answer'), h('p', null, String(e.message || e)));
}

function signIn(message) {
  const input = h('input', { id: 'credential', type: 'password', autocomplete: 'off', required: true, spellcheck: 'false' });
  const form = h('form', { class: 'signin', onsubmit: ev => {
    ev.preventDefault();
    setCredential(input.value.trim());
    refresh();
  } },
  h('label', { for: 'credential' }, 'Console token or admin JWT', input),
  h('button', { type: 'submit' }, 'Sign in'));
  return h('div', { class: 'notice' }, h('h2', null, 'Sign in'),
    h('p', null, 'This admin listener asks for a credential: the console token (GATEWAY_ADMIN_TOKEN) or a JWT holding the admin role. It is kept in this tab only.'),
    credential() ? h('p', null, 'The one given was refused: ' + message) : null, form);
}

function signOut() {
  setCredential('');
  refresh();
}

pauseButton.addEventListener('click', () => {
  paused = !paused;
  pauseButton.setAttribute('aria-pressed', String(paused));
  pauseButton.textContent = paused ? 'Resume' : 'Pause';
  if (paused) clearTimeout(timer); else refresh();
});
document.addEventListener('visibilitychange', () => { if (!document.hidden && !paused) refresh(); });
window.addEventListener('hashchange', () => show(true));
show(false);
