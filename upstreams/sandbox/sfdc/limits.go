package sfdc

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// DefaultDailyAPIRequests is an org's default allowance of API requests
// per rolling 24 hours: a Developer Edition org's.
const DefaultDailyAPIRequests = 15000

// minutesPerDay are the buckets of the rolling window.
const minutesPerDay = 24 * 60

// usage counts an org's API requests over the last 24 hours, by minute, as
// Salesforce counts them: on a rolling window, so a request stops counting
// a day after it was made.
type usage struct {
	minute [minutesPerDay]int64 // the minute (Unix time / 60) each bucket holds
	count  [minutesPerDay]int64
}

// used is the requests counted in the 24 hours before now.
func (u *usage) used(now time.Time) int64 {
	m := now.Unix() / 60
	var n int64
	for i := range u.count {
		if u.minute[i] > m-minutesPerDay && u.minute[i] <= m {
			n += u.count[i]
		}
	}
	return n
}

// add counts one request at now.
func (u *usage) add(now time.Time) {
	m := now.Unix() / 60
	i := m % minutesPerDay
	if u.minute[i] != m {
		u.minute[i], u.count[i] = m, 0
	}
	u.count[i]++
}

// counted reports whether a request to path counts against the
// allowance: every REST API request does except the versions resource,
// /services/data itself (REST API Developer Guide, Limit Info Header: the
// header comes with every request "except for calls to the Versions URI,
// /, which do not count towards your org's limit").
func counted(path string) bool {
	return strings.TrimSuffix(path, "/") != "/services/data"
}

// Usage is the org's API requests in the last 24 hours and its allowance.
func (o *Org) Usage() (used, limit int64) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.usage.used(o.now()), int64(o.opts.DailyAPIRequests)
}

// meter counts a request of an authorised session: one that counts is
// refused 403 REQUEST_LIMIT_EXCEEDED once the allowance is spent, and
// otherwise counted and answered with Sforce-Limit-Info:
// api-usage=<used>/<limit>. It reports whether the request may go on.
// Called with o.mu held.
func (o *Org) meter(w http.ResponseWriter, r *http.Request) bool {
	if !counted(r.URL.Path) {
		return true
	}
	now := o.now()
	used, limit := o.usage.used(now), int64(o.opts.DailyAPIRequests)
	if used >= limit {
		w.Header().Set(LimitInfoHeader, apiUsage(used, limit))
		return false
	}
	o.usage.add(now)
	w.Header().Set(LimitInfoHeader, apiUsage(used+1, limit))
	return true
}

// LimitInfoHeader is where an org reports its API usage on every answer.
const LimitInfoHeader = "Sforce-Limit-Info"

func apiUsage(used, limit int64) string {
	return "api-usage=" + strconv.FormatInt(used, 10) + "/" + strconv.FormatInt(limit, 10)
}

// Limits is the org's limits resource (GET /services/data/vXX.X/limits) in
// the REST API's shape: each limit's Max and Remaining. The daily API
// requests are the org's own; the others are a Developer Edition's and do
// not move.
func (o *Org) Limits() map[string]map[string]int64 {
	used, limit := o.Usage()
	fixed := func(n int64) map[string]int64 { return map[string]int64{"Max": n, "Remaining": n} }
	return map[string]map[string]int64{
		"ConcurrentAsyncGetReportInstances": fixed(200),
		"ConcurrentSyncReportRuns":          fixed(20),
		"DailyApiRequests":                  {"Max": limit, "Remaining": max(limit-used, 0)},
		"DailyAsyncApexExecutions":          fixed(250000),
		"DailyBulkApiBatches":               fixed(15000),
		"DailyBulkV2QueryFileStorageMB":     fixed(976562),
		"DailyBulkV2QueryJobs":              fixed(10000),
		"DailyStreamingApiEvents":           fixed(10000),
		"DataStorageMB":                     fixed(5),
		"FileStorageMB":                     fixed(20),
		"HourlySyncReportRuns":              fixed(500),
		"MassEmail":                         fixed(10),
		"SingleEmail":                       fixed(15),
	}
}
