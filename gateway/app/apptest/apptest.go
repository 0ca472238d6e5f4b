// Package apptest holds the gateway configuration that the load harness
// (cmd/loadtest) runs and the whole-path benchmark of gateway/app
// (BenchmarkGatewayAccountsV2) builds, so that both measure one path.
package apptest

// AccountsConfig is the accounts part of the shipped config.yaml with
// everything a production request passes: profiles on the admin listener
// (idle unless asked for), v2's derived key map, null removal, the
// upstream's breaker and retries, metrics, and the call log shipped to a
// collector; tracing when GATEWAY_TRACING is true (collector and sampler
// from the OTEL_* variables). It reads GATEWAY_LISTEN, GATEWAY_ADMIN_LISTEN,
// GATEWAY_TLS (default auto), GATEWAY_DATA_DIR, GATEWAY_LOG_COLLECTOR_URL,
// GATEWAY_TRACING and ACCOUNTS_URL; what is unset takes its default.
const AccountsConfig = `server:
  listen: ${GATEWAY_LISTEN}
  adminListen: ${GATEWAY_ADMIN_LISTEN}
  tls: {mode: "${GATEWAY_TLS:-auto}"}
  dataDir: ${GATEWAY_DATA_DIR}
  pprof: true
versions: [v1, v2, v3]
auth: {mode: none}
log:
  collectorURL: ${GATEWAY_LOG_COLLECTOR_URL}
  format: text
  batchSize: 100
  flushInterval: 1s
  level: warn
tracing:
  enabled: ${GATEWAY_TRACING:-false}
models:
  Account:
    fields: [Id, Name, External_Id__c, SicDesc, AccountSource, Site, Rating, Description, TickerSymbol,
      Ownership, NumberOfEmployees, BillingCountry, BillingPostalCode, BillingState, BillingCity,
      BillingStreet, ParentId, Type, Total_Assets__c, PhotoUrl, Website, AccountNumber, Fax, Phone]
upstreams:
  accounts:
    url: ${ACCOUNTS_URL}
    timeout: 10s
    breaker: {consecutiveFailures: 5, openTimeout: 30s, halfOpenRequests: 1}
    retry: {attempts: 2, backoff: 25ms, budget: 0.1}
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
