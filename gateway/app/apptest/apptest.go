// Package apptest holds the gateway configuration that the load harness
// (cmd/loadtest) runs and the whole-path benchmark of gateway/app
// (BenchmarkGatewayAccountsV2) builds, so that both measure one path.
package apptest

// AccountsConfig is the accounts part of the shipped config.yaml with
// everything a production request passes: a bearer token verified (JWT,
// HS256 with GATEWAY_JWT_SECRET, or RS256/ES256 from the key set at
// GATEWAY_JWKS_URL; GATEWAY_AUTH_MODE none turns it off), profiles on the
// admin listener (idle unless asked for), v2's derived key map, null
// removal, the upstream's breaker and retries, metrics, and the call log
// shipped to a collector; tracing when GATEWAY_TRACING is true (collector
// and sampler from the OTEL_* variables). It reads GATEWAY_LISTEN, GATEWAY_ADMIN_LISTEN, GATEWAY_TLS
// (default auto), GATEWAY_ENGINE (the API listener's and the upstream
// transport's HTTP/1 engines, default fast), GATEWAY_DATA_DIR, GATEWAY_LOG_COLLECTOR_URL,
// GATEWAY_TRACING, ACCOUNTS_URL, and for the cluster target GATEWAY_RATE_LIMIT_RPS,
// GATEWAY_RATE_LIMIT_BURST, GATEWAY_CLUSTER_STORE and GATEWAY_REDIS_URL,
// GATEWAY_MAX_OUTPUT (mapping.maxOutputChars) and
// GATEWAY_ACCOUNTS_PAGING (the accounts upstream's options.paging) for the
// payload sweep's large pages, and GATEWAY_COMPRESSION
// (server.compression.enabled), and GATEWAY_CONSOLE_RECORD (console.record,
// the console's recording); what is unset takes its default (no rate
// limit, the memory store, the shipped output limit, adapter paging as in
// the shipped config, no compression, no tracing, the console recording).
const AccountsConfig = `server:
  listen: ${GATEWAY_LISTEN:-}
  adminListen: ${GATEWAY_ADMIN_LISTEN:-}
  tls: {mode: "${GATEWAY_TLS:-auto}"}
  http1: ${GATEWAY_ENGINE:-fast}
  dataDir: ${GATEWAY_DATA_DIR:-}
  pprof: true
  compression:
    enabled: ${GATEWAY_COMPRESSION:-false}
versions: [v1, v2, v3]
mapping:
  maxOutputChars: ${GATEWAY_MAX_OUTPUT:-50000}
auth:
  mode: ${GATEWAY_AUTH_MODE:-jwt}
  jwt:
    secret: "${GATEWAY_JWT_SECRET:-}"
    jwksURL: "${GATEWAY_JWKS_URL:-}"
  rateLimit:
    requestsPerSecond: ${GATEWAY_RATE_LIMIT_RPS:-0}
    burst: ${GATEWAY_RATE_LIMIT_BURST:-0}
cluster:
  store: ${GATEWAY_CLUSTER_STORE:-memory}
  redis:
    url: "${GATEWAY_REDIS_URL:-}"
log:
  collectorURL: ${GATEWAY_LOG_COLLECTOR_URL:-}
  format: text
  batchSize: 100
  flushInterval: 1s
  level: warn
tracing:
  enabled: ${GATEWAY_TRACING:-false}
console:
  record: ${GATEWAY_CONSOLE_RECORD:-true}
models:
  Account:
    fields: [Id, Name, External_Id__c, SicDesc, AccountSource, Site, Rating, Description, TickerSymbol,
      Ownership, NumberOfEmployees, BillingCountry, BillingPostalCode, BillingState, BillingCity,
      BillingStreet, ParentId, Type, Total_Assets__c, PhotoUrl, Website, AccountNumber, Fax, Phone]
upstreams:
  accounts:
    url: ${ACCOUNTS_URL:-}
    transport: ${GATEWAY_ENGINE:-fast}
    timeout: 10s
    breaker: {consecutiveFailures: 10, failureRatio: 0.5, minRequests: 20, openTimeout: 30s, halfOpenRequests: 1}
    retry: {attempts: 2, backoff: 25ms, budget: 0.1}
    options: {paging: "${GATEWAY_ACCOUNTS_PAGING:-adapter}"}
routes:
  - path: "/{version}/accounts"
    kind: accounts
    upstream: accounts
    model: Account
    methods: [GET, POST, PUT, DELETE]
    roles: {DELETE: [admin]}
    versions:
      v1: {fields: [Id, Name]}
      v2: {}
      v3: {serializeNulls: false}
  - path: "/{version}/accounts/{accountId}"
    kind: account
    upstream: accounts
    model: Account
    methods: [GET, PUT, DELETE]
`
