package sandbox

import (
	"database/sql"
	"errors"
	"fmt"
	"net/http"
	"strings"
)

// dataDefaultBatchSize is the real API's default (and largest) query batch.
const dataDefaultBatchSize = 2000

// DataAPIOption changes a default of NewDataAPI.
type DataAPIOption func(*dataAPI)

// WithDataBatchSize sets how many records one query answer holds before it
// continues with nextRecordsUrl. Default 2000; n < 1 keeps the default.
func WithDataBatchSize(n int) DataAPIOption {
	return func(a *dataAPI) {
		if n >= 1 {
			a.batch = n
		}
	}
}

type dataAPI struct {
	db    *sql.DB
	batch int
}

// NewDataAPI returns the reference data API (UPSTREAMS.md B4), serving
// /services/data from the root: versions, resources, sobjects, describe,
// query with paging (queryMore through nextRecordsUrl) and search, over the
// accounts and contacts tables of db. It creates the tables when missing and
// seeds contacts when there are none (attached to existing accounts; it never
// seeds accounts). Every error answer is the real API's JSON array
// [{"message", "errorCode", "fields"}]. It does not check credentials.
func NewDataAPI(db *sql.DB, opts ...DataAPIOption) (http.Handler, error) {
	if db == nil {
		return nil, errors.New("sandbox data API: nil database")
	}
	a := &dataAPI{db: db, batch: dataDefaultBatchSize}
	for _, o := range opts {
		o(a)
	}
	if err := EnsureSchema(db); err != nil {
		return nil, fmt.Errorf("sandbox data API: %w", err)
	}
	if err := seedContacts(db); err != nil {
		return nil, fmt.Errorf("sandbox data API: seeding contacts: %w", err)
	}
	return a, nil
}

// dataVersion is one entry of GET /services/data.
type dataVersion struct {
	Label   string `json:"label"`
	URL     string `json:"url"`
	Version string `json:"version"`
}

func dataVersions() []dataVersion {
	return []dataVersion{
		{"Winter '15", "/services/data/v32.0", "32.0"},
		{"Spring '15", "/services/data/v33.0", "33.0"},
		{"Summer '15", "/services/data/v34.0", "34.0"},
		{"Winter '16", "/services/data/v35.0", "35.0"},
		{"Spring '16", "/services/data/v36.0", "36.0"},
	}
}

func knownDataVersion(v string) bool {
	for _, dv := range dataVersions() {
		if "v"+dv.Version == v {
			return true
		}
	}
	return false
}

func (a *dataAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rest, ok := strings.CutPrefix(r.URL.Path, "/services/data")
	if !ok || (rest != "" && rest[0] != '/') {
		notFound(w)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		writeAPIError(w, http.StatusMethodNotAllowed, "METHOD_NOT_ALLOWED",
			fmt.Sprintf("HTTP Method '%s' not allowed. Allowed are GET,HEAD", r.Method))
		return
	}
	seg := strings.Split(strings.Trim(rest, "/"), "/")
	if seg[0] == "" {
		writeAPIJSON(w, http.StatusOK, dataVersions())
		return
	}
	v := seg[0]
	if !knownDataVersion(v) {
		notFound(w)
		return
	}
	switch {
	case len(seg) == 1:
		writeAPIJSON(w, http.StatusOK, dataResources(v))
	case seg[1] == "sobjects" && len(seg) == 2:
		a.describeGlobal(w, v)
	case seg[1] == "sobjects" && len(seg) == 3:
		a.sobject(w, r, v, seg[2])
	case seg[1] == "sobjects" && len(seg) == 4 && seg[3] == "describe":
		a.describe(w, v, seg[2])
	case seg[1] == "query" && len(seg) == 2:
		a.query(w, r, v)
	case seg[1] == "query" && len(seg) == 3:
		a.queryMore(w, r, v, seg[2])
	case seg[1] == "search" && len(seg) == 2:
		a.search(w, r, v)
	default:
		notFound(w)
	}
}

// dataResources is the resource map of one version: only the resources the
// sandbox serves, so that a client following the map never meets a 404.
func dataResources(v string) map[string]string {
	base := "/services/data/" + v
	out := make(map[string]string)
	for _, name := range []string{"sobjects", "query", "search"} {
		out[name] = base + "/" + name
	}
	return out
}

func notFound(w http.ResponseWriter) {
	writeAPIError(w, http.StatusNotFound, "NOT_FOUND", "The requested resource does not exist")
}

// failQuery answers a rejected query or search with its code; a
// *soqlError is the caller's fault (400), anything else the store's (500).
func failQuery(w http.ResponseWriter, err error) {
	var qe *soqlError
	if errors.As(err, &qe) {
		writeAPIError(w, http.StatusBadRequest, qe.Code, qe.Message)
		return
	}
	writeAPIError(w, http.StatusInternalServerError, "UNKNOWN_EXCEPTION", "An unexpected error occurred.")
}
