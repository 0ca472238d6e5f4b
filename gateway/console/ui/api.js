// The admin API client. A credential the operator signs in with is kept
// in this tab's sessionStorage only and sent as a bearer token to the
// admin listener itself; nothing is sent anywhere else.

const KEY = 'restgate-console-credential';

export class APIError extends Error {
  constructor(status, id, message) {
    super(message);
    this.status = status;
    this.id = id;
  }
}

export function credential() {
  return sessionStorage.getItem(KEY) || '';
}

export function setCredential(v) {
  if (v) sessionStorage.setItem(KEY, v); else sessionStorage.removeItem(KEY);
}

// get fetches an operation of /admin/api/v1/ and returns its JSON.
export async function get(op, params) {
  const q = params ? '?' + new URLSearchParams(params).toString() : '';
  const headers = { Accept: 'application/json' };
  const c = credential();
  if (c) headers.Authorization = 'Bearer ' + c;
  const res = await fetch('/admin/api/v1/' + op + q, { headers, cache: 'no-store', credentials: 'omit', redirect: 'error' });
  let body = null;
  try { body = await res.json(); } catch (e) { /* not JSON */ }
  if (!res.ok) {
    const e = body && body.error ? body.error : {};
    throw new APIError(res.status, e.id || '', e.message || res.statusText);
  }
  return body;
}
