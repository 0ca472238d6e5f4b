package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/mapping/mappingtest"
)

func TestScenarios(t *testing.T) {
	t.Parallel()
	parse := func(args ...string) options {
		var o options
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		o.register(fs)
		require.NoError(t, fs.Parse(args))
		return o
	}
	tests := []struct {
		desc string
		args []string
		want []scenario
	}{
		{desc: "the default run", want: []scenario{{Conns: 16}}},
		{desc: "TLS too", args: []string{"-tls"}, want: []scenario{{Conns: 16}, {Conns: 16, TLS: true}}},
		{desc: "payload sweep", args: []string{"-records", "2,20,2000"},
			want: []scenario{{Records: 2, Conns: 16}, {Records: 20, Conns: 16}, {Records: 2000, Conns: 16}}},
		{desc: "connection sweep over TLS", args: []string{"-conns", "16,2048", "-tls"},
			want: []scenario{{Conns: 16}, {Conns: 2048}, {Conns: 16, TLS: true}, {Conns: 2048, TLS: true}}},
		{desc: "both sweeps", args: []string{"-records", "200", "-conns", "256"},
			want: []scenario{{Records: 200, Conns: 16}, {Conns: 256}}},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			o := parse(tt.args...)
			assert.Equal(t, tt.want, o.scenarios())
		})
	}
}

func TestSweepFlagsRefuseBadLists(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"-records", "0"}, {"-records", "2001"}, {"-records", "2,x"}, {"-records", ""},
		{"-conns", "5000"}, {"-conns", "-1"},
		{"-conns", "16,256,2048", "-records", "2,20,200,2000", "-tls", "-rounds", "20", "-duration", "10s"},
	} {
		var out, log bytes.Buffer
		assert.Equal(t, 2, run(context.Background(), args, &out, &log), "%v", args)
	}
}

// The backend answers n generated records when paged, each with its
// attributes and some nulls, and the fixed list otherwise.
func TestBackendRecords(t *testing.T) {
	t.Parallel()
	h := backendHandler(false)
	for _, n := range []int{1, 2, 20, 200} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, backendPath+pagePath(n), nil))
		require.Equal(t, http.StatusOK, rec.Code)
		var list []map[string]any
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &list))
		require.Len(t, list, n)
		assert.Contains(t, list[0], "attributes")
		assert.Nil(t, list[0]["SicDesc"])
		assert.Len(t, list[0], 25, "attributes and the 24 fields of the Account model")
		assert.Equal(t, answerBytes(n), rec.Body.Len())
	}
	for _, q := range []string{"?limit=0&offset=0", "?limit=5&offset=1", "?limit=x&offset=0", "?limit=2001&offset=0"} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, backendPath+q, nil))
		assert.Equal(t, http.StatusBadRequest, rec.Code, q)
	}
	assert.Greater(t, answerBytes(2000), 1400000, "2000 records are a Salesforce query batch, about 1.5 MB")
}

func TestParseRSS(t *testing.T) {
	t.Parallel()
	got, err := parseRSS("Name:\tgateway\nVmHWM:\t  90000 kB\nVmRSS:\t   35840 kB\nThreads:\t8\n")
	require.NoError(t, err)
	assert.Equal(t, int64(35840<<10), got)
	for _, bad := range []string{"", "VmRSS: x kB\n", "VmRSS: -1 kB\n", "VmHWM: 1 kB\n"} {
		_, err := parseRSS(bad)
		assert.Error(t, err, "%q", bad)
	}
}

func FuzzParseRSS(f *testing.F) {
	f.Add("VmRSS:\t   35840 kB\n")
	f.Add("VmRSS: 1\n")
	f.Fuzz(func(t *testing.T, text string) {
		n, err := parseRSS(text)
		if err == nil && n < 0 {
			t.Fatalf("negative size %d from %q", n, text)
		}
	})
}

// Every target of a scenario is checked to answer the records asked for,
// so that none is measured on a shorter answer (as a gateway that pages by
// itself would answer 20 records for any limit).
func TestCheckAnswer(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/bare":
			_, _ = w.Write(mappingtest.Records(2))
		case "/envelope":
			_, _ = w.Write([]byte(`{"result":` + string(mappingtest.Records(20)) + `,"page":{"start":0,"size":20}}`))
		case "/broken":
			http.Error(w, "no", http.StatusBadGateway)
		default:
			_, _ = w.Write([]byte(`{"other":1}`))
		}
	}))
	t.Cleanup(srv.Close)
	c := srv.Client()
	assert.NoError(t, checkAnswer(c, srv.URL+"/bare", 2))
	assert.NoError(t, checkAnswer(c, srv.URL+"/envelope", 20))
	assert.NoError(t, checkAnswer(c, srv.URL+"/envelope", 0), "the fixed list is 20 records")
	assert.Error(t, checkAnswer(c, srv.URL+"/envelope", 2000))
	assert.Error(t, checkAnswer(c, srv.URL+"/broken", 2))
	assert.Error(t, checkAnswer(c, srv.URL+"/other", 2))
}

// TestReportNamesASweepOfOne: a run of one swept scenario (-records 2000)
// is reported under its own name, not as the default list.
func TestReportNamesASweepOfOne(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc string
		runs []scenario
		want string
	}{
		{desc: "the default run", runs: []scenario{{Conns: 16}}, want: "the fixed list of 20 accounts, 16 connections, plain HTTP"},
		{desc: "one payload", runs: []scenario{{Records: 2000, Conns: 16}}, want: "2000 records ("},
		{desc: "one connection count", runs: []scenario{{Conns: 2048}}, want: "the fixed list of 20 accounts, 2048 connections"},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			runs := make([]scenarioRun, len(tt.runs))
			for i, s := range tt.runs {
				runs[i] = scenarioRun{scenario: s}
			}
			var out bytes.Buffer
			newReport(options{concurrency: 16}, runs, 0).writeTable(&out)
			assert.Contains(t, out.String(), "\n"+tt.want)
		})
	}
}
