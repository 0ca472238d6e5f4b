// Overview: what the gateway is, how its parts stand, and its traffic.
import { h, facts, card, table, badge, text, ms, rate, pct, count, bytes, dateTime, duration } from '../dom.js';
import { get } from '../api.js';
import { plot } from '../plot.js';

export default {
  title: 'Overview',
  load: () => get('overview'),
  render(o) {
    const t = o.traffic;
    const stateKind = { up: 'ok', probing: 'warn', down: 'bad' }[o.cluster.state] || 'warn';
    const trafficRows = (t.windows || []).map(w => [w.window, rate(w.rate), count(w.count), pct(w.errorRatio), count(w.clientErrors), ms(w.p50), ms(w.p95), ms(w.p99)]);
    const access = o.access;
    const credentialed = !access.loopback || access.token;
    const who = access.locked ? badge('locked: no credential configured', 'bad')
      : !credentialed ? 'anyone on this host (loopback listener, no token)'
        : [access.token ? 'the console token' : null, access.role ? `a credential holding the role ${access.role}` : null].filter(Boolean).join(' or ');
    return h('div', { class: 'grid' },
      h('section', { class: 'card wide', 'aria-label': 'Traffic' }, h('h2', null, 'Traffic'),
        h('div', { class: 'split' },
          h('div', null,
            facts([['In flight', count(t.inFlight)], ['Recording', o.recording ? 'on' : 'off (console.record)']]),
            o.recording ? table('Requests over every route', [['Window'], ['Rate', 'num'], ['Requests', 'num'], ['5xx', 'num'], ['4xx', 'num'], ['p50', 'num'], ['p95', 'num'], ['p99', 'num']], trafficRows, 'No requests yet.') : null),
          o.recording ? plot(t.series, 'Every route') : h('p', { class: 'muted' }, 'Recording is off: no latency plot.'))),
      card('Gateway', facts([
        ['Version', o.build.version], ['Revision', o.build.revision], ['Go', o.build.goVersion],
        ['Started', dateTime(o.startedAt)], ['Uptime', duration(o.uptimeSeconds)]])),
      card('Configuration', facts([
        ['File', o.config.path], ['Revision', h('span', { class: 'mono' }, text(o.config.revision))], ['Serving since', dateTime(o.config.loadedAt)],
        ['Versions', (o.config.versions || []).join(', ')], ['Routes', count(o.config.routes)], ['Upstreams', count(o.config.upstreams)]])),
      card('Listeners and access', facts([
        ['API', o.listeners.api], ['Admin', o.listeners.admin], ['API TLS', o.listeners.tls ? 'on' : 'off'],
        ['Authentication', o.auth.mode], ['Rate limit', o.auth.rateLimit ? `${o.auth.rateLimit.requestsPerSecond}/s per user, burst ${o.auth.rateLimit.burst}` : 'off'],
        ['Console open to', who]])),
      card('Cluster store', facts([
        ['Store', o.cluster.store + (o.cluster.shared ? ' (shared across replicas)' : ' (this replica only)')],
        ['State', badge(o.cluster.state, stateKind)],
        ['Failed calls to Redis', count(o.cluster.errors)], ['Decisions taken alone', count(o.cluster.fallbacks)]])),
      card('Call log shipping', facts([
        ['Shipping', o.callLog.enabled ? 'on' : 'off (no collector)'], o.callLog.enabled ? ['Collector', o.callLog.collector] : null,
        ['Sink and format', `${o.callLog.sink}, ${o.callLog.format}`], ['Queue', o.callLog.queue],
        ['Waiting', count(o.callLog.depth)], ['Sent', count(o.callLog.sent)], ['Failed batches', count(o.callLog.batchesFailed)],
        ['Dropped', Object.entries(o.callLog.dropped || {}).map(([r, n]) => `${r} ${count(n)}`).join(', ')],
        o.callLog.queue === 'disk' ? ['Disk queue', `${count(o.callLog.diskEntries)} entries, ${bytes(o.callLog.diskBytes)}`] : null])),
      o.cache ? card('Response cache', facts([
        ['Lookups', Object.entries(o.cache.requests || {}).map(([r, n]) => `${r} ${count(n)}`).join(', ') || 'none yet'],
        ['Hit share', hitShare(o.cache.requests)],
        ['Entries', count(o.cache.entries)], ['Size', bytes(o.cache.bytes)], ['Evictions', count(o.cache.evictions)]])) : null,
      h('section', { class: 'card wide', 'aria-label': 'Reloads' }, h('h2', null, 'Last reloads'),
        table('Configuration reloads, latest first', [['Time'], ['Cause'], ['Result'], ['Revision'], ['Problems']],
          (o.config.lastReloads || []).map(r => [dateTime(r.time), r.cause, r.applied ? badge('applied', 'ok') : badge('refused', 'bad'),
            h('span', { class: 'mono' }, text(r.revision)),
            r.problems.length ? h('ul', null, r.problems.map(p => h('li', { class: 'mono' }, p)))
              : r.restart.length ? 'waiting for a restart: ' + r.restart.join(', ') : '–']),
          'No reload since the start.')));
  },
};

function hitShare(requests) {
  const all = Object.values(requests || {}).reduce((a, b) => a + b, 0);
  return all ? pct((requests.hit || 0) / all) : '–';
}
