package workflow_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// benchEngine answers every request with one canned task list.
func benchEngine(b *testing.B, body string) string {
	b.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(body))
	}))
	b.Cleanup(srv.Close)
	return srv.URL
}

// BenchmarkTaskList is the busiest workflow route: validate the query, call
// the engine over loopback HTTP, unwrap its list and write the envelope.
func BenchmarkTaskList(b *testing.B) {
	tasks := strings.TrimSuffix(strings.Repeat(fakeTask+",", 10), ",")
	h := newGateway(b, benchEngine(b, `{"data":[`+tasks+`],"total":10,"start":0,"size":10}`))
	b.ReportAllocs()
	for b.Loop() {
		r := httptest.NewRequest(http.MethodGet, "/v1/tasks?status=open&candidate=gonzo&size=10", nil)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		if rec.Code != http.StatusOK {
			b.Fatalf("status %d: %s", rec.Code, rec.Body)
		}
	}
}

// BenchmarkCompletion measures the strict body path of a completion.
func BenchmarkCompletion(b *testing.B) {
	h := newGateway(b, benchEngine(b, ""))
	body := `{"disposition":"saveforlater","variables":[{"name":"note","value":"missing payslip"},{"name":"amount","value":25000}]}`
	benchPost(b, h, "/v1/tasks/8/completions", body, http.StatusOK)
}

// benchPost posts body to target through h for every iteration of b,
// failing it on an answer other than status.
func benchPost(b *testing.B, h http.Handler, target, body string, status int) {
	b.ReportAllocs()
	for b.Loop() {
		r := httptest.NewRequest(http.MethodPost, target, strings.NewReader(body))
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		if rec.Code != status {
			b.Fatalf("status %d: %s", rec.Code, rec.Body)
		}
	}
}

// BenchmarkStartProcess measures a start whose variables are typed for the
// engine's version (a decimal, an object and a string; the version known).
func BenchmarkStartProcess(b *testing.B) {
	h := newGateway(b, benchEngine(b, `{"id":"5","processDefinitionId":"loanProcess:1:4","ended":false}`))
	body := `{"processDefinitionKey":"loanProcess","businessKey":"loan-7","variables":[{"name":"amount","value":1.10},` +
		`{"name":"profile","value":{"income":[1200.5,1300]}},{"name":"note","value":"missing payslip"}]}`
	benchPost(b, h, "/v1/process-instances", body, http.StatusCreated)
}
