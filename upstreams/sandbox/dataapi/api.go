package dataapi

import (
	"database/sql"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/restgate/gateway/upstreams/sandbox/sfdc"
	"github.com/restgate/gateway/upstreams/sandbox/soql"
)

// defaultBatchSize is the real API's default (and largest) query batch.
const defaultBatchSize = 2000

// Option changes a default of New.
type Option func(*api)

// WithBatchSize sets how many records one query answer holds before it
// continues with nextRecordsUrl. Default 2000; n < 1 keeps the default.
func WithBatchSize(n int) Option {
	return func(a *api) {
		if n >= 1 {
			a.batch = n
		}
	}
}

// WithOrg makes the API one of org's: it serves org's token endpoint at
// /services/oauth2/token, wants a live bearer token of org on every other
// call (401 INVALID_SESSION_ID otherwise), answers 403
// REQUEST_LIMIT_EXCEEDED while org says so, and answers 410 GONE below
// org's version floor. Without it the API checks no credentials (the
// contract alone, for tests of its shapes) and serves the default floor.
func WithOrg(org *sfdc.Org) Option {
	return func(a *api) { a.org, a.authorize = org, true }
}

// api serves the data API's resources; its fields are set by New and only
// read afterwards.
type api struct {
	db        *sql.DB
	batch     int
	schema    soql.Schema
	org       *sfdc.Org
	authorize bool
	// modified is when the metadata last changed (unmodified): the
	// sandbox's start, to the second.
	modified time.Time
}

// New returns the reference data API (UPSTREAMS.md B4), serving
// /services/data from the root: versions, resources, sobjects, describe,
// query with paging (queryMore through nextRecordsUrl), search and the
// org's limits, over the
// accounts and contacts tables of db. It creates the tables when missing and
// seeds contacts when there are none (attached to existing accounts; it never
// seeds accounts). Every error answer is the real API's JSON array
// [{"message", "errorCode", "fields"}]. It does not check credentials.
func New(db *sql.DB, opts ...Option) (http.Handler, error) {
	if db == nil {
		return nil, errors.New("sandbox data API: nil database")
	}
	a := &api{db: db, batch: defaultBatchSize, schema: schema(), org: sfdc.NewOrg(sfdc.OrgOptions{}),
		modified: time.Now().Truncate(time.Second)}
	for _, o := range opts {
		o(a)
	}
	if err := sfdc.EnsureTables(db); err != nil {
		return nil, fmt.Errorf("sandbox data API: %w", err)
	}
	if err := seedContacts(db); err != nil {
		return nil, fmt.Errorf("sandbox data API: seeding contacts: %w", err)
	}
	return a, nil
}

// apiVersion is one entry of GET /services/data.
type apiVersion struct {
	Label   string `json:"label"`
	URL     string `json:"url"`
	Version string `json:"version"`
}

// versions lists the org's versions with Salesforce's release labels
// (30.0 was Spring '14; three releases a year).
func (a *api) versions() []apiVersion {
	var out []apiVersion
	for _, n := range a.org.Versions() {
		k := int(n) - 30
		season := [...]string{"Spring", "Summer", "Winter"}[k%3]
		year := 14 + k/3
		if k%3 == 2 {
			year++
		}
		v := fmt.Sprintf("%.1f", n)
		out = append(out, apiVersion{fmt.Sprintf("%s '%02d", season, year), "/services/data/v" + v, v})
	}
	return out
}

func (a *api) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/services/oauth2/token" {
		a.org.ServeToken(w, r)
		return
	}
	orgHeaders(w.Header())
	if a.authorize && !a.org.Authorize(w, r) {
		return
	}
	rest, ok := strings.CutPrefix(r.URL.Path, "/services/data")
	if !ok || (rest != "" && rest[0] != '/') {
		notFound(w)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		sfdc.WriteError(w, http.StatusMethodNotAllowed, "METHOD_NOT_ALLOWED",
			fmt.Sprintf("HTTP Method '%s' not allowed. Allowed are GET,HEAD", r.Method))
		return
	}
	seg := strings.Split(strings.Trim(rest, "/"), "/")
	if seg[0] == "" {
		sfdc.WriteJSON(w, http.StatusOK, a.versions())
		return
	}
	v := seg[0]
	if _, ok := a.org.CheckVersion(w, v); !ok {
		return
	}
	switch {
	case len(seg) == 1:
		sfdc.WriteJSON(w, http.StatusOK, resources(v))
	case seg[1] == "sobjects" && len(seg) == 2:
		if !a.unmodified(w, r) {
			a.describeGlobal(w, v)
		}
	case seg[1] == "sobjects" && len(seg) == 3:
		a.sobject(w, r, v, seg[2])
	case seg[1] == "sobjects" && len(seg) == 4 && seg[3] == "describe":
		if _, known := lookupType(seg[2]); !known || !a.unmodified(w, r) {
			a.describe(w, v, seg[2])
		}
	case seg[1] == "query" && len(seg) == 2:
		a.query(w, r, v)
	case seg[1] == "query" && len(seg) == 3:
		a.queryMore(w, r, v, seg[2])
	case seg[1] == "search" && len(seg) == 2:
		a.search(w, r, v)
	case seg[1] == "limits" && len(seg) == 2:
		sfdc.WriteJSON(w, http.StatusOK, a.org.Limits())
	default:
		notFound(w)
	}
}

// resources is the resource map of one version: only the resources the
// sandbox serves, so that a client following the map never meets a 404.
func resources(v string) map[string]string {
	base := "/services/data/" + v
	out := make(map[string]string)
	for _, name := range []string{"sobjects", "query", "search", "limits"} {
		out[name] = base + "/" + name
	}
	return out
}

func notFound(w http.ResponseWriter) {
	sfdc.WriteError(w, http.StatusNotFound, "NOT_FOUND", "The requested resource does not exist")
}

// failQuery answers a rejected query or search with its code; a
// *soql.Error is the caller's fault (400), anything else the store's (500).
func failQuery(w http.ResponseWriter, err error) {
	var qe *soql.Error
	if errors.As(err, &qe) {
		sfdc.WriteError(w, http.StatusBadRequest, qe.Code, qe.Message)
		return
	}
	sfdc.WriteError(w, http.StatusInternalServerError, "UNKNOWN_EXCEPTION", "An unexpected error occurred.")
}
