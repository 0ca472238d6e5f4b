// Package settings serves the gateway's self-description: the endpoint
// listing and the key map of every record type. Both are built from the
// route table the router is built from, so they list exactly what is served.
package settings

import (
	"encoding/json"
	"net/http"

	"github.com/restgate/gateway/gateway/call"
	"github.com/restgate/gateway/gateway/router"
	"github.com/restgate/gateway/gateway/routes"
)

type endpointRecord struct {
	Path endpointPath `json:"path"`
}

type endpointPath struct {
	Operation string            `json:"operation"`
	URI       string            `json:"uri"`
	Summary   string            `json:"summary,omitempty"`
	Produces  map[string]string `json:"produces,omitempty"`
}

// Endpoints returns the factory of GET /{version}/settings/endpoints: one
// record per (route, method) that serves the requested version. The listing
// of each version is rendered once, when the router is built.
func Endpoints(t *routes.Table) router.Factory {
	return func(*routes.Route) (map[string]call.Handler, error) {
		listing := make(map[string][]byte, len(t.Versions))
		for _, v := range t.Versions {
			records := []endpointRecord{}
			for _, e := range t.Entries() {
				o, ok := e.Route.Versions[v]
				if !ok {
					continue
				}
				records = append(records, endpointRecord{Path: endpointPath{
					Operation: e.Operation(), URI: e.Route.Template, Summary: e.Route.Spec.Summary, Produces: o.Produces(),
				}})
			}
			b, err := json.Marshal(records)
			if err != nil {
				return nil, err
			}
			listing[v] = b
		}
		return map[string]call.Handler{http.MethodGet: func(_ *http.Request, c *call.Call) (call.Result, error) {
			return call.Result{JSON: listing[c.Version], Form: call.Listing}, nil
		}}, nil
	}
}
