package call

import (
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/restgate/gateway/gateway/envelope"
	"github.com/restgate/gateway/gateway/routes"
	"github.com/restgate/gateway/mapping"
)

func TestDocumentResult(t *testing.T) {
	t.Parallel()
	km, err := mapping.NewKeyMap(map[string]string{"Name": "name"})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Unix(1000, 0)
	w := NewWriter(WriterConfig{Catalog: envelope.NewCatalog(), Now: func() time.Time { return start.Add(2 * time.Millisecond) }})
	doc := []byte(`{"openapi":"3.1.0","Name":null}`)
	tests := []struct {
		desc     string
		res      Result
		wantBody string
		status   int
	}{
		{desc: "a document is sent as it is", res: Result{JSON: doc, Form: Document}, wantBody: string(doc), status: 200},
		{desc: "a document keeps its status", res: Result{JSON: doc, Form: Document, Status: 203}, wantBody: string(doc), status: 203},
		{desc: "internal names are mapped and enveloped", res: Result{JSON: doc}, status: 200},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			c := &Call{Start: start, Options: &routes.VersionOptions{MapKeys: true, DropNulls: true, KeyMap: km}}
			rec := httptest.NewRecorder()
			w.Success(rec, httptest.NewRequest("GET", "/v1/x", nil), c, tt.res)
			assert.Equal(t, tt.status, rec.Code)
			assert.Equal(t, tt.status, c.Status, "the call records the outcome")
			assert.InDelta(t, 2.0, c.TotalMillis, 0.001)
			assert.Contains(t, rec.Header().Get("Server-Timing"), "total;dur=2")
			assert.Equal(t, "application/json; charset=utf-8", rec.Header().Get("Content-Type"))
			if tt.wantBody != "" {
				assert.Equal(t, tt.wantBody, rec.Body.String())
				return
			}
			assert.NotEqual(t, string(doc), rec.Body.String())
			assert.Contains(t, rec.Body.String(), `"result":{"openapi":"3.1.0"}`)
		})
	}
}
