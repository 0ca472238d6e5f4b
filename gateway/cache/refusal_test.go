package cache

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/gateway/call"
	"github.com/restgate/gateway/gateway/envelope"
	"github.com/restgate/gateway/upstreams"
)

// A kept 404 renders, read back from its encoding, the error envelope the
// request that fetched it got.
func TestRefusalRoundTrip(t *testing.T) {
	t.Parallel()
	catalog := envelope.NewCatalog()
	args := envelope.CallArgs{UserID: "u1", TraceID: "t1", TotalTime: "1.000", Method: "HTTPGET", Path: "/v1/sobjects/Nope/describe"}
	backend := upstreams.NewStatusError("data", http.StatusNotFound, "NOT_FOUND", "The requested resource does not exist")
	wrapped := upstreams.NewStatusError("things", http.StatusNotFound, "", "gone")
	wrapped.Err = errors.New("read: body of 27 bytes")
	for _, err := range []error{
		call.Upstream(backend, envelope.SObjectOperationFailed),
		call.Upstream(wrapped, envelope.SObjectOperationFailed),
	} {
		b, ok := encodeRefusal(err)
		require.True(t, ok, "%v", err)
		back, derr := decodeRefusal(b)
		require.NoError(t, derr)
		assert.Equal(t, catalog.Render(err, args), catalog.Render(back, args))

		a := call.Rendered{Status: http.StatusNotFound, Body: b}
		e := &Entry{Answer: a, ETag: etagOf(&a), Stored: time.Unix(10, 0), Fresh: time.Unix(20, 0), Until: time.Unix(20, 0),
			NoStale: true, Refusal: back}
		got, derr := decodeEntry(e.encode())
		require.NoError(t, derr)
		assert.Equal(t, catalog.Render(err, args), catalog.Render(got.Refusal, args), "through the shared store too")
	}
}

func TestOnlyTheBackends404IsKept(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		desc string
		err  error
	}{
		{desc: "a 400", err: call.Upstream(upstreams.NewStatusError("data", http.StatusBadRequest, "", "bad"), envelope.SObjectOperationFailed)},
		{desc: "a 410", err: call.Upstream(upstreams.NewStatusError("data", http.StatusGone, "", "gone"), envelope.SObjectOperationFailed)},
		{desc: "a 5xx", err: call.Upstream(upstreams.NewStatusError("data", http.StatusBadGateway, "", "down"), envelope.SObjectOperationFailed)},
		{desc: "a timeout", err: call.Upstream(&upstreams.Error{Upstream: "data", Kind: upstreams.KindTimeout, Err: context.DeadlineExceeded}, "")},
		{desc: "the gateway's own 404", err: envelope.New(envelope.URLInvalid)},
		{desc: "not an envelope error", err: errors.New("boom")},
	} {
		_, ok := encodeRefusal(tc.err)
		assert.False(t, ok, tc.desc)
	}
}

func TestDecodeRefusalRefusesWhatIsNotOne(t *testing.T) {
	t.Parallel()
	for _, b := range []string{``, `{}`, `{"id":"X","status":200}`, `[`, `{"id":"","status":404}`} {
		_, err := decodeRefusal([]byte(b))
		assert.ErrorIs(t, err, errCorrupt, b)
	}
}
