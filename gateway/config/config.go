// Package config decodes config.yaml strictly (an unknown key is an error,
// reported with its key path), expands ${VAR} and ${VAR:-default} from the
// environment, and validates the result in a separate pass that changes
// nothing and reports every problem at once.
package config

//go:generate go run ../../cmd/configdoc

import (
	"time"

	"github.com/restgate/gateway/upstreams"
)

// Config is the whole gateway configuration. The zero value of a field means
// its documented default; Defaults fills them in.
//
// Every field of Config carries a reload tag (reload:"yes" or
// reload:"restart", see ReloadYes) that its keys inherit; a key that differs
// from its section says so with a tag of its own. The generated reference
// (docs/reference/configuration.md, go generate ./gateway/config) reads the
// tags, the yaml names, the defaults Defaults sets and the doc comments.
type Config struct {
	// Server configures the listeners and the data directory.
	Server Server `yaml:"server" reload:"restart"`
	// Versions are the API versions served (v1, v2, ...); a route serves
	// all of them unless it lists its own.
	Versions []string `yaml:"versions" reload:"yes"`
	// Auth says how callers are identified and how often they may call.
	Auth Auth `yaml:"auth" reload:"yes"`
	// Errors shapes the error envelope.
	Errors Errors `yaml:"errors" reload:"yes"`
	// Mapping bounds the key-mapping serializer.
	Mapping Mapping `yaml:"mapping" reload:"yes"`
	// Log configures the call log shipped to the collector and the
	// gateway's own log.
	Log Log `yaml:"log" reload:"restart"`
	// Models are the record types, by name: their internal field names and
	// per-version key maps.
	Models map[string]Model `yaml:"models" reload:"yes"`
	// Upstreams are the backends, by name. A reload rebuilds only the
	// clients whose settings changed; the others keep their breaker state
	// and connections.
	Upstreams map[string]upstreams.Settings `yaml:"upstreams" reload:"yes"`
	// Routes are the served path templates, each with what serves it.
	Routes []Route `yaml:"routes" reload:"yes"`
	// Tracing exports OpenTelemetry spans over OTLP (off by default).
	Tracing Tracing `yaml:"tracing" reload:"restart"`
	// Cluster is the state the replicas of one deployment share.
	Cluster Cluster `yaml:"cluster" reload:"restart"`
	// Cache bounds the response cache's storage; the routes' cache keys
	// turn it on.
	Cache Cache `yaml:"cache" reload:"restart"`
	// Console is the operator's console on the admin listener.
	Console Console `yaml:"console" reload:"restart"`
}

// Server configures the listeners.
type Server struct {
	// Listen is the API listener's address. Default 127.0.0.1:8443.
	Listen string `yaml:"listen"`
	// AdminListen serves /metrics, /healthz, /readyz and the operator's
	// console (see console). Default 127.0.0.1:9090.
	AdminListen string `yaml:"adminListen"`
	// TLS is the API listener's TLS.
	TLS TLS `yaml:"tls"`
	// Timeouts bound the listeners' reads and writes, and the drain.
	Timeouts Timeouts `yaml:"timeouts"`
	// Limits bound what a client may send.
	Limits Limits `yaml:"limits"`
	// DataDir holds the sandbox's SQLite file and uploaded files. Default ./data.
	DataDir string `yaml:"dataDir"`
	// Pprof serves Go's profiles under /debug/pprof/ on the admin listener.
	// Default false: a profile costs CPU while it runs and shows internals.
	Pprof bool `yaml:"pprof"`
	// HTTP1 is the engine of the API listener's HTTP/1.1: fast
	// (gateway/server/h1server, each request on its connection's
	// goroutine; over TLS it does the handshake too and hands connections
	// that negotiate HTTP/2 to net/http's server) or std (net/http's
	// server for everything). Default fast. A change needs a restart. See
	// docs/internals/http-engines.md.
	HTTP1 string `yaml:"http1"`
	// PublicURL is the address clients reach the API at (https://api.example.com),
	// the server of the OpenAPI documents. Default empty: the documents name
	// "/", the origin they were fetched from.
	PublicURL string `yaml:"publicURL" reload:"yes"`
	// Contact is who the OpenAPI documents name for questions about the
	// API (info.contact).
	Contact Contact `yaml:"contact" reload:"yes"`
	// CORS lets browser applications of other origins call the API; off
	// (no allowedOrigins) by default. A route's cors replaces it for that
	// route.
	CORS CORS `yaml:"cors" reload:"yes"`
	// Compression compresses answers a client accepts compressed.
	Compression Compression `yaml:"compression" reload:"yes"`
}

// CORS is a cross-origin resource sharing policy (docs/guides/cors.md).
// A preflight (OPTIONS with Access-Control-Request-Method) is answered
// before authentication, since browsers send it without credentials.
type CORS struct {
	// AllowedOrigins are the origins allowed (https://app.example.com), one
	// "*" wildcard each at most (https://*.example.com), or "*" for any.
	// Empty (the default): CORS is off and no CORS header is sent.
	AllowedOrigins []string `yaml:"allowedOrigins"`
	// AllowedMethods a cross-origin request may use. Default: the route's
	// methods (and HEAD with GET).
	AllowedMethods []string `yaml:"allowedMethods"`
	// AllowedHeaders a cross-origin request may send. Default:
	// Authorization, Content-Type, X-API-Key, traceparent, tracestate.
	AllowedHeaders []string `yaml:"allowedHeaders"`
	// ExposedHeaders a browser lets the application read. Default:
	// Server-Timing, Retry-After, Allow, WWW-Authenticate.
	ExposedHeaders []string `yaml:"exposedHeaders"`
	// AllowCredentials lets browsers send cookies and HTTP authentication
	// and read the answer. Default false; not with the origin "*".
	AllowCredentials bool `yaml:"allowCredentials"`
	// MaxAge is how long a browser may cache a preflight's answer; at most
	// 24h. Default 0: no Access-Control-Max-Age (browsers cache for 5s).
	MaxAge time.Duration `yaml:"maxAge"`
}

// Compression negotiates gzip or zstd by Accept-Encoding
// (github.com/klauspost/compress/gzhttp), with Vary: Accept-Encoding;
// answers smaller than MinBytes, and answers already compressed, are sent
// as they are.
type Compression struct {
	// Enabled turns compression on. Default false.
	Enabled bool `yaml:"enabled"`
	// Level is gzip's level, 1 (fastest) to 9 (smallest); default 1, whose
	// CPU cost stays small against what the answer costs to make.
	Level int `yaml:"level"`
	// MinBytes: answers smaller than this go uncompressed. Default 1400
	// (about one TCP segment, below which compression saves no round trip).
	MinBytes int `yaml:"minBytes"`
	// Zstd offers zstd to clients that accept it (preferred over gzip then).
	// Default false.
	Zstd bool `yaml:"zstd"`
}

// Engines of Server.HTTP1 (and of an upstream's transport, whose values
// are the same words: upstreams.TransportFast and upstreams.TransportStd).
const (
	HTTP1Fast = "fast"
	HTTP1Std  = "std"
)

// TLS modes.
const (
	TLSAuto  = "auto"
	TLSOff   = "off"
	TLSFiles = "files"
)

// TLS configures the API listener's TLS.
type TLS struct {
	// Mode is auto (a self-signed certificate made at start), off (plain
	// HTTP), or files (CertFile and KeyFile). Default auto. A mode that is a
	// path is not accepted: set files and the two paths.
	Mode string `yaml:"mode"`
	// CertFile is the PEM certificate chain of mode files.
	CertFile string `yaml:"certFile"`
	// KeyFile is the PEM private key of mode files.
	KeyFile string `yaml:"keyFile"`
}

// Timeouts of the listeners and of the drain.
type Timeouts struct {
	// ReadHeader bounds the read of a request's header section. Default 5s.
	ReadHeader time.Duration `yaml:"readHeader"`
	// Read bounds the read of a whole request, body included (a route's
	// bodyTimeout may replace it). Default 30s.
	Read time.Duration `yaml:"read"`
	// Write bounds the time from the end of the request's header to the
	// end of the answer (a route's bodyTimeout may replace it). Default 60s.
	Write time.Duration `yaml:"write"`
	// Idle is how long a keep-alive connection waits for its next request.
	// Default 120s.
	Idle time.Duration `yaml:"idle"`
	// Shutdown bounds the drain on SIGTERM. Default 20s.
	Shutdown time.Duration `yaml:"shutdown"`
}

// Limits on what clients may send and hold.
type Limits struct {
	// MaxBodyBytes bounds a request body (a route's maxBodyBytes may raise
	// it): past it the answer is 413. Default 10 MiB.
	MaxBodyBytes int64 `yaml:"maxBodyBytes" reload:"yes"`
	// MaxHeaderBytes bounds a request's header section (the listener's
	// limit as well as the gateway's). Default 32 KiB.
	MaxHeaderBytes int `yaml:"maxHeaderBytes"`
	// MaxURLLength bounds a request's URL, 413 past it. Default 4096.
	MaxURLLength int `yaml:"maxURLLength" reload:"yes"`
	// MaxJSONDepth bounds the nesting of a request's JSON body. Default 64.
	MaxJSONDepth int `yaml:"maxJSONDepth" reload:"yes"`
	// MaxConnections caps the API listener's open connections, whichever
	// engine serves it (fast, std, TLS). At the cap the gateway accepts
	// nothing more until one closes: new connections wait in the kernel's
	// listen backlog (a slow connect, not a refusal). At start it is
	// lowered, with a warning, to what the file-descriptor limit leaves
	// room for beside the admin listener and upstream connections.
	// Default 10000; needs a restart.
	MaxConnections int `yaml:"maxConnections"`
	// MaxAdminConnections caps the admin listener's connections apart from
	// the API's, so /readyz, /healthz and /metrics are answered however the
	// API is loaded. Default 64; needs a restart.
	MaxAdminConnections int `yaml:"maxAdminConnections"`
	// MaxSpoolBytes bounds the bytes of uploads spooled to disk at once by
	// the process (server.dataDir/spool). An upload that announces more
	// than is left is answered DATABASE_OPERATION_FAILED 503 with
	// Retry-After; one of unannounced length (chunked) that runs past it,
	// 507. Every files route's maxBodyBytes must fit in it. Size the data
	// volume from it (deploy/helm: uploads.*). Default 2 GiB; needs a
	// restart.
	MaxSpoolBytes int64 `yaml:"maxSpoolBytes"`
}

// Auth modes.
const (
	AuthNone   = "none"
	AuthJWT    = "jwt"
	AuthAPIKey = "apikey"
)

// Auth configures how callers are identified.
type Auth struct {
	// Mode is none (only on a loopback listener; caller "anonymous"), jwt or
	// apikey. Default none.
	Mode string `yaml:"mode"`
	// JWT configures the bearer-token check of mode jwt.
	JWT JWT `yaml:"jwt"`
	// APIKeys are the keys of mode apikey (sent as X-API-Key), each kept
	// as its SHA-256.
	APIKeys []APIKey `yaml:"apiKeys"`
	// RateLimit is the per-user request rate limit, in every mode.
	RateLimit RateLimit `yaml:"rateLimit"`
	// Quotas are the requests per day and per month of each consumer.
	Quotas Quotas `yaml:"quotas"`
	// Essential names the callers whose calls pass the allowance reserve
	// of an upstream (upstreams.<name>.allowance.reserve).
	Essential Essential `yaml:"essential"`
}

// JWT configures bearer-token checks.
type JWT struct {
	// Secret is the HS256 key (from GATEWAY_JWT_SECRET).
	Secret string `yaml:"secret"`
	// JWKSURL serves RS256/ES256 keys (from GATEWAY_JWKS_URL).
	JWKSURL string `yaml:"jwksURL"`
	// Issuer, when set, must be a token's iss claim.
	Issuer string `yaml:"issuer"`
	// Audience, when set, must be one of a token's aud claim.
	Audience string `yaml:"audience"`
	// Leeway is the clock skew allowed on exp and nbf. Default 30s.
	Leeway time.Duration `yaml:"leeway"`
	// JWKSRefresh is how often the key set is fetched again (an unknown
	// key id also fetches it, at most once per five minutes). A key the
	// identity provider removed or replaced stops verifying tokens, those
	// already verified included, within this time. Default 5m.
	JWKSRefresh time.Duration `yaml:"jwksRefresh"`
	// VerifiedTokens bounds the cache of verified tokens, kept by the
	// SHA-256 of the token: a token seen again costs a lookup instead of
	// a signature check, until its exp (plus leeway), or until its key
	// leaves or changes in the key set. Default 10000.
	VerifiedTokens int `yaml:"verifiedTokens"`
}

// APIKey maps the SHA-256 (hex) of a key to a caller.
type APIKey struct {
	// SHA256 is the 64 hex digits of the key's SHA-256 (never the key):
	// printf %s "$KEY" | sha256sum.
	SHA256 string `yaml:"sha256"`
	// UserID is the caller a request with the key is (the call log's
	// userId). Required.
	UserID string `yaml:"userId"`
	// Roles are the caller's roles, which routes' roles check.
	Roles []string `yaml:"roles"`
	// Quota limits the requests made with this key (per UTC day and
	// month, optionally per upstream); it replaces the user's and roles'
	// quotas (auth.quotas) for them. Default none.
	Quota *Quota `yaml:"quota"`
	// Essential lets the key's calls pass an upstream's allowance reserve
	// (upstreams.<name>.allowance.reserve). Default false.
	Essential bool `yaml:"essential"`
}

// RateLimit is the per-user token bucket.
type RateLimit struct {
	// RequestsPerSecond per user; 0 disables the limit.
	RequestsPerSecond float64 `yaml:"requestsPerSecond"`
	// Burst is how many requests a user may make at once before the rate
	// applies. Default twice requestsPerSecond, at least 1.
	Burst int `yaml:"burst" default:"twice requestsPerSecond, at least 1"`
	// MaxUsers bounds the memory of the limiter. Default 10000.
	MaxUsers int `yaml:"maxUsers"`
}

// Error status modes.
const (
	StatusHTTP      = "http"
	StatusAlways200 = "always200"
)

// Errors configures the error envelope.
type Errors struct {
	// StatusMode is http (default) or always200 for legacy clients.
	StatusMode string `yaml:"statusMode"`
	// ExposeSystemMessages sends systemTemplate and formattedSystemMessage
	// to clients. Default false.
	ExposeSystemMessages bool `yaml:"exposeSystemMessages"`
}

// Defaults of routes[].maxAnswerBytes.
const (
	// AnswerCapFactor times mapping.maxOutputChars is a route's default
	// answer cap: key maps shorten names, dropped nulls and field
	// selection remove members, so an answer may be a few times its
	// output, and no answer that is more can be sent.
	AnswerCapFactor = 8
	// MinAnswerCap is the least default answer cap (a describe, an answer
	// narrowed to a few fields).
	MinAnswerCap = 1 << 20
)

// Mapping configures the key-mapping serializer.
type Mapping struct {
	// MaxOutputChars: an answer at or above it is SERIALIZATION_FAILED.
	// Default 50000.
	MaxOutputChars int `yaml:"maxOutputChars"`
	// MaxDepth of JSON nesting. Default 64.
	MaxDepth int `yaml:"maxDepth"`
}

// Log configures the call log shipped to the collector and the local log.
// Every call-log setting (all but level) needs a restart.
type Log struct {
	// CollectorURL receives the call log by POST (the whole URL: Loki's
	// /loki/api/v1/push, Elasticsearch's /_bulk, OTLP's /v1/logs); empty:
	// no callout.
	CollectorURL string `yaml:"collectorURL"`
	// Sink is what the batches are shaped for: http (default; log.format's
	// lines or JSON array), loki (the push API), elasticsearch (the bulk
	// API) or otlp (OTLP/HTTP protobuf).
	Sink string `yaml:"sink"`
	// Format is the entry's line: text (default, the seed's line), jsonl
	// (a JSON object per line) or, for the http sink, json (one JSON array
	// per batch: Fluent Bit's and Fluentd's HTTP inputs).
	Format string `yaml:"format"`
	// QueueSize: entries waiting in memory, default 10000. The queue's
	// memory follows the longest backlog met, up to this many entries.
	QueueSize int `yaml:"queueSize"`
	// BatchSize: this many waiting entries are sent at once; fewer wait
	// flushInterval. Default 100.
	BatchSize int `yaml:"batchSize"`
	// MaxBatchSize is the most entries in one POST: a sender takes every
	// waiting entry up to it, so batches grow with the backlog. Default 1000.
	MaxBatchSize int `yaml:"maxBatchSize"`
	// MaxBatchBytes bounds a POST's entries before compression. Default
	// 1048576 (1 MiB).
	MaxBatchBytes int `yaml:"maxBatchBytes"`
	// Senders is how many POSTs may be in flight; they join as the backlog
	// grows. Default 4; at most log.collector.maxConcurrent.
	Senders       int           `yaml:"senders"`
	FlushInterval time.Duration `yaml:"flushInterval"` // default 1s
	// Timeout bounds the POST of one batch, its retries included (the
	// collector client's timeout). Default 60s, the seed's 60000 ms.
	Timeout time.Duration `yaml:"timeout"`
	// MaxRetries is how many times a POST is sent again at once after a
	// connection failure, an attempt that timed out, or a 502, 503 or 504
	// (the collector client's retry.attempts less one); at most 9. Default
	// 3; negative: none. A batch still not taken is then held and sent
	// again with backoff (1s doubling to 30s), never dropped.
	MaxRetries   int `yaml:"maxRetries"`
	MaxBodyBytes int `yaml:"maxBodyBytes"` // default 2048
	// RedactFields are the JSON member names whose values the call log
	// masks, at any depth, compared without case. Default: a built-in list
	// of secret names (password, secret, token, apiKey, ...); empty: none.
	RedactFields []string `yaml:"redactFields" default:"password, secret, token, apiKey, ... (built in)"`
	// Headers are sent with every batch: a tenant (X-Scope-OrgID), an API
	// key (Authorization: ApiKey ${ES_API_KEY}). Values come from the
	// environment through ${VAR} and are never logged. Optional.
	Headers map[string]string `yaml:"headers"`
	// Compress is none (default) or gzip (Content-Encoding: gzip).
	Compress string `yaml:"compress"`
	// Queue is memory (default) or disk: entries are written, redacted, to
	// files under log.disk.dir before they are sent, so a crash or a
	// collector outage loses none up to log.disk.maxBytes.
	Queue string `yaml:"queue"`
	// Disk configures the disk queue (log.queue: disk): its directory,
	// bound and fsync policy. Optional; the defaults are below.
	Disk LogDisk `yaml:"disk"`
	// ShutdownFlush bounds the flush of the call log at exit, after the
	// drain; what is then still in memory is lost, logged and counted
	// (gateway_log_entries_dropped_total{reason="shutdown"}); the disk
	// queue keeps it. Default 5s.
	ShutdownFlush time.Duration `yaml:"shutdownFlush"`
	// Loki configures the loki sink.
	Loki LogLoki `yaml:"loki"`
	// Elasticsearch configures the elasticsearch sink.
	Elasticsearch LogElasticsearch `yaml:"elasticsearch"`
	// Collector tunes the rest of the client the call log is sent through
	// (upstream "collector"), with an upstream's keys and defaults:
	// connectTimeout, responseHeaderTimeout (default: log.timeout),
	// maxIdleConnsPerHost, maxConcurrent, breaker, retry.backoff (default
	// 200ms), retry.budget and auth. Its url, timeout and retry.attempts
	// are collectorURL, timeout and maxRetries above, and it takes no
	// options. Optional; like every log setting it needs a restart.
	Collector upstreams.Settings `yaml:"collector" defaults:"url=log.collectorURL; timeout=log.timeout; retry.attempts=log.maxRetries + 1; responseHeaderTimeout=log.timeout; retry.backoff=200ms"`
	// SlowThreshold: calls slower than this are logged at warning. Default 1s.
	SlowThreshold time.Duration `yaml:"slowThreshold" reload:"yes"`
	// DuplicateWindow: the same user, method, path (with its ids), query
	// and body within it is a duplicate. Default 10s; needs a restart (the
	// detector, like cluster's store, is made at start).
	DuplicateWindow time.Duration `yaml:"duplicateWindow"`
	// DuplicateMaxEntries: requests remembered for duplicateWindow at the
	// most, default 100000 (the oldest is forgotten past it). The memory
	// follows the requests remembered: some 50 bytes each.
	DuplicateMaxEntries int `yaml:"duplicateMaxEntries"`
	// Level of the gateway's own log: debug, info (default), warn, error.
	// debug adds the route each request took, every upstream attempt with
	// its status and duration, and each retry decision.
	Level string `yaml:"level"`
	// Local copies each call's log line to the gateway's own log, at info:
	// stdout, off, or auto (default: stdout when stdout is a terminal, so
	// that a gateway run by hand shows every call).
	Local string `yaml:"local"`
	// LocalFormat is the format of the gateway's own log on stdout: text
	// (key=value lines for people), json (one object a line, for log
	// collectors), or auto (default: text when stdout is a terminal, json
	// otherwise).
	LocalFormat string `yaml:"localFormat"`
}

// LogDisk configures the call log's disk queue (log.queue: disk).
type LogDisk struct {
	// Dir holds the queue's files, one gateway process per directory.
	// Default <server.dataDir>/calllog.
	Dir string `yaml:"dir"`
	// MaxBytes bounds the files; when full, new entries are dropped and
	// counted (reason queue_full). Default 268435456 (256 MiB).
	MaxBytes int64 `yaml:"maxBytes"`
	// Fsync is when writes are forced to disk: always (every write and
	// every delivery: nothing is lost even to a power cut), interval
	// (default: every fsyncInterval; a power cut loses at most that much)
	// or never (the kernel decides). A killed process loses nothing
	// under any of them.
	Fsync string `yaml:"fsync"`
	// FsyncInterval is the interval policy's period. Default 1s.
	FsyncInterval time.Duration `yaml:"fsyncInterval"`
}

// LogLoki configures the loki sink.
type LogLoki struct {
	// Labels are fixed stream labels, added to route and status (the
	// status class, 2xx ... 5xx). Default {service_name: restgate}.
	Labels map[string]string `yaml:"labels"`
}

// LogElasticsearch configures the elasticsearch sink.
type LogElasticsearch struct {
	// Index is the index, alias or data stream the documents are created
	// in. Default restgate-calls.
	Index string `yaml:"index"`
}

// Values of Log.Local and Log.LocalFormat.
const (
	LocalAuto   = "auto"
	LocalStdout = "stdout"
	LocalOff    = "off"
	FormatText  = "text"
	FormatJSON  = "json"
)

// Model is a record type: its internal field names and, per version, an
// explicit key map that replaces the derived one.
type Model struct {
	// Fields are the type's internal field names; its exposed names are
	// derived from them (Total_Assets__c: totalAssets).
	Fields []string `yaml:"fields"`
	// Types gives fields their JSON type in the OpenAPI document: string,
	// integer, number, boolean, date or date-time, by internal name. A
	// field not listed is a string.
	Types map[string]string `yaml:"types"`
	// Versions hold the key map of a version that does not use the
	// derived names, by version.
	Versions map[string]ModelVersion `yaml:"versions"`
}

// FieldTypes are the values of Model.Types.
func FieldTypes() []string {
	return []string{"string", "integer", "number", "boolean", "date", "date-time"}
}

// ModelVersion overrides a model's key map for one version.
type ModelVersion struct {
	// MapKeys maps internal to exposed names; fields it does not name keep
	// their derived names.
	MapKeys map[string]string `yaml:"mapKeys"`
}

// Route kinds: the named handlers and the generic proxy.
const (
	KindEndpoints = "endpoints"
	KindModel     = "model"
	KindOpenAPI   = "openapi"
	KindAccounts  = "accounts"
	KindAccount   = "account"
	KindWorkflow  = "workflow"
	KindData      = "data"
	KindFiles     = "files"
	KindMessages  = "messages"
	KindProxy     = "proxy"
)

// Actions of kind workflow, as a route's action names them.
const (
	ActionUser               = "user"
	ActionProcessDefinitions = "processDefinitions"
	ActionStartProcess       = "startProcess"
	ActionTasks              = "tasks"
	ActionTask               = "task"
	ActionAssign             = "assign"
	ActionClaim              = "claim"
	ActionUnclaim            = "unclaim"
	ActionDelegate           = "delegate"
	ActionComplete           = "complete"
)

// Actions of kind data.
const (
	ActionVersions  = "versions"
	ActionResources = "resources"
	ActionSObjects  = "sobjects"
	ActionSObject   = "sobject"
	ActionDescribe  = "describe"
	ActionQuery     = "query"
	ActionQueryMore = "queryMore"
	ActionSearch    = "search"
)

// KindActions lists the actions of the kinds that take one; the route table
// refuses any other, and the handlers serve exactly these.
func KindActions() map[string][]string {
	return map[string][]string{
		KindWorkflow: {ActionUser, ActionProcessDefinitions, ActionStartProcess, ActionTasks, ActionTask,
			ActionAssign, ActionClaim, ActionUnclaim, ActionDelegate, ActionComplete},
		KindData: {ActionVersions, ActionResources, ActionSObjects, ActionSObject, ActionDescribe, ActionQuery,
			ActionQueryMore, ActionSearch},
	}
}

// Route declares one path template and what serves it.
type Route struct {
	// Path is the template, starting /{version}/.
	Path string `yaml:"path"`
	// Kind picks the handler: endpoints, model, openapi, accounts, account,
	// workflow, data, files, messages or proxy.
	Kind string `yaml:"kind"`
	// Action names the operation of a workflow or data route (tasks, claim,
	// query ...), one per route.
	Action string `yaml:"action"`
	// Methods are the HTTP methods the route serves. Default [GET].
	Methods []string `yaml:"methods"`
	// Upstream names an entry of upstreams.
	Upstream string `yaml:"upstream"`
	// Summary describes the route in the endpoint listing and the OpenAPI
	// document.
	Summary string `yaml:"summary"`
	// Model names the record type whose key map the route applies.
	Model string `yaml:"model"`
	// Produces is an explicit internal -> exposed map; it replaces the
	// model's map for every version.
	Produces map[string]string `yaml:"produces"`
	// Roles maps a method (or "*") to the roles allowed; a caller needs one.
	Roles map[string][]string `yaml:"roles"`
	// Timeout bounds the upstream call of this route; 0: the upstream's.
	Timeout time.Duration `yaml:"timeout"`
	// NoRetry turns upstream retries off for this route.
	NoRetry bool `yaml:"noRetry"`
	// Essential lets the route's calls pass its upstream's allowance
	// reserve (upstreams.<name>.allowance.reserve): what must keep working
	// when the org's API allowance runs low. Default false.
	Essential bool `yaml:"essential"`
	// MaxBodyBytes overrides server.limits.maxBodyBytes for this route.
	MaxBodyBytes int64 `yaml:"maxBodyBytes"`
	// MaxAnswerBytes caps each upstream answer this route reads: an answer
	// that declares more is refused before its body is read, one that
	// sends more at the first byte past it (CALLOUT_FAILED 502). Default,
	// for a route with an upstream, 8 times mapping.maxOutputChars, at
	// least 1 MiB (AnswerCapFactor, MinAnswerCap): what a route can answer
	// is bounded by maxOutputChars, and an answer several times that size
	// can only fail. See docs/operations/tuning.md. Raise it for a route whose answers shrink a
	// lot on the way (a v1 field selection, a delete-all that lists every
	// record). A change reloads.
	MaxAnswerBytes int64 `yaml:"maxAnswerBytes"`
	// MaxConcurrent (kind files only) caps the route's uploads in flight:
	// each holds two descriptors, a goroutine and a spool file for up to
	// its bodyTimeout. Past it uploads are answered
	// DATABASE_OPERATION_FAILED 503 with Retry-After before their body is
	// read. Default 16; a change reloads (uploads in flight keep their
	// place).
	MaxConcurrent int `yaml:"maxConcurrent"`
	// BodyTimeout, when set, replaces server.timeouts.read and .write for
	// this route's requests, so a large upload is not cut off by the
	// listener's deadlines; counted from when the route starts.
	BodyTimeout time.Duration `yaml:"bodyTimeout"`
	// Versions limits the route to these versions, with their options;
	// empty: every served version with the defaults.
	Versions map[string]RouteVersion `yaml:"versions"`
	// UpstreamPath (proxy): the backend path template; {name} is replaced by
	// the path parameter of that name, escaped.
	UpstreamPath string `yaml:"upstreamPath"`
	// Query (proxy): the query parameters passed on to the backend.
	Query []string `yaml:"query"`
	// ResultPath (proxy): a member of the backend's answer to return instead
	// of the whole answer ("records" of a query).
	ResultPath string `yaml:"resultPath"`
	// CORS replaces server.cors for this route when set (allowedOrigins: []
	// turns it off for the route).
	CORS *CORS `yaml:"cors"`
	// Cache keeps the route's GET answers in the response cache; absent
	// (the default), every request calls the backend.
	Cache *RouteCache `yaml:"cache"`
}

// RouteVersion is a route's behaviour for one version.
type RouteVersion struct {
	// MapKeys applies the key map (mapKeysFlag). Default true.
	MapKeys *bool `yaml:"mapKeys" default:"true"`
	// DropNulls removes null members from answers. Its key is the seed's
	// serializeNulls, whose true means nulls are dropped. Default true.
	DropNulls *bool `yaml:"serializeNulls" default:"true"`
	// Fields keeps only these internal fields of each record.
	Fields []string `yaml:"fields"`
}
