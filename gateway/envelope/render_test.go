package envelope

import (
	"errors"
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCatalogueIsComplete(t *testing.T) {
	t.Parallel()
	want := map[string]struct {
		code   int
		status int
	}{
		URLInvalid: {989, 404}, QueryOperationFailed: {991, 502}, SObjectOperationFailed: {992, 502},
		JSONSerializationFailed: {993, 400}, DatabaseOperationFailed: {994, 500}, CalloutFailed: {995, 502},
		SearchFailed: {996, 502}, RestDispatcherDebug: {997, 500}, SerializationFailed: {998, 500},
		RestDispatcherFailed: {999, 500}, UnexpectedResponseCode: {900, 500}, AuthenticationRequired: {980, 401},
		AccessDenied: {981, 403}, RequestTooLarge: {982, 413}, RateLimited: {983, 429}, ParameterInvalid: {984, 400},
	}
	cat := Catalogue()
	require.Len(t, cat, len(want))
	numbers := map[int]string{}
	for id, w := range want {
		rc, ok := cat[id]
		require.True(t, ok, id)
		assert.Equal(t, w.code, rc.Code, id)
		assert.Equal(t, w.status, rc.Status, id)
		assert.NotEmpty(t, rc.ClientTemplate, id)
		assert.NotEmpty(t, rc.SystemTemplate, id)
		assert.Empty(t, numbers[rc.Code], "code %d used twice", rc.Code)
		numbers[rc.Code] = id
	}
}

func TestFormat(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc string
		tmpl string
		args []string
		want string
	}{
		{desc: "no arguments leaves the template unchanged", tmpl: "a {0} b", want: "a {0} b"},
		{desc: "positional", tmpl: "{1} then {0}", args: []string{"x", "y"}, want: "y then x"},
		{desc: "repeated", tmpl: "{0}{0}", args: []string{"z"}, want: "zz"},
		{desc: "missing argument stays", tmpl: "{0} {2}", args: []string{"a"}, want: "a {2}"},
		{desc: "not a placeholder", tmpl: "{x} {} {-1} {", args: []string{"a"}, want: "{x} {} {-1} {"},
		{desc: "argument with braces is not re-expanded", tmpl: "{0} {1}", args: []string{"{1}", "b"}, want: "{1} b"},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, Format(tt.tmpl, tt.args))
		})
	}
}

func TestRender(t *testing.T) {
	t.Parallel()
	call := CallArgs{UserID: "005U", TraceID: "abc", TotalTime: "1.500", Method: "HTTPGET", Path: "/v1/x", Body: "{}"}
	cat := NewCatalog()
	tests := []struct {
		desc       string
		err        error
		wantID     string
		wantStatus int
		wantClient string
		wantSystem string
	}{
		{desc: "call arguments fill the six system placeholders", err: New(QueryOperationFailed),
			wantID: QueryOperationFailed, wantStatus: 502, wantClient: "Encountered an error",
			wantSystem: "Query operation failed. UserId: 005U | TraceId: abc | TotalTime: 1.500 | Method: HTTPGET | Path: /v1/x | Body: {}"},
		{desc: "URL_INVALID takes user, method, path and body", err: New(URLInvalid),
			wantID: URLInvalid, wantStatus: 404, wantClient: "Incorrect operation, please try again",
			wantSystem: "Invalid URL or operation. UserId: 005U | Method: HTTPGET | Path: /v1/x | Body: {}"},
		{desc: "status narrowed within the family", err: &Error{ID: URLInvalid, Status: 405},
			wantID: URLInvalid, wantStatus: 405, wantClient: "Incorrect operation, please try again",
			wantSystem: "Invalid URL or operation. UserId: 005U | Method: HTTPGET | Path: /v1/x | Body: {}"},
		{desc: "status outside the family ignored", err: &Error{ID: URLInvalid, Status: 500},
			wantID: URLInvalid, wantStatus: 404, wantClient: "Incorrect operation, please try again",
			wantSystem: "Invalid URL or operation. UserId: 005U | Method: HTTPGET | Path: /v1/x | Body: {}"},
		{desc: "given arguments format both templates", err: New(SerializationFailed, "too big"),
			wantID: SerializationFailed, wantStatus: 500, wantClient: "Encountered an error: too big",
			wantSystem: "Serialization failed: too big"},
		{desc: "unknown id becomes UNEXPECTED_RESPONSE_CODE with the id as only argument", err: New("NOPE", "ignored"),
			wantID: UnexpectedResponseCode, wantStatus: 500, wantClient: "Unexpected response code NOPE",
			wantSystem: "Unexpected response code NOPE"},
		{desc: "a plain error is REST_DISPATCHER_FAILED with its cause appended", err: errors.New("boom"),
			wantID: RestDispatcherFailed, wantStatus: 500, wantClient: "Encountered an error",
			wantSystem: "Dispatch failed. UserId: 005U | TraceId: abc | TotalTime: 1.500 | Method: HTTPGET | Path: /v1/x | Body: {} | Cause: *errors.errorString: boom"},
		{desc: "cause markup is stripped", err: Wrap(CalloutFailed, errors.New("<html><b>Bad</b> gateway</html>")),
			wantID: CalloutFailed, wantStatus: 502, wantClient: "Encountered an error",
			wantSystem: "Callout failed. UserId: 005U | TraceId: abc | TotalTime: 1.500 | Method: HTTPGET | Path: /v1/x | Body: {} | Cause: *errors.errorString: Bad gateway"},
		{desc: "detail reaches both messages", err: InvalidParameter("limit", "must be a non-negative integer"),
			wantID: ParameterInvalid, wantStatus: 400, wantClient: "Invalid parameter limit: must be a non-negative integer",
			wantSystem: "Invalid parameter limit: must be a non-negative integer"},
		{desc: "wrapped envelope error is found", err: fmt.Errorf("ctx: %w", New(AccessDenied, "bob", "admin")),
			wantID: AccessDenied, wantStatus: 403, wantClient: "Access denied", wantSystem: "Access denied: user bob lacks a role of admin"},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			r := cat.Render(tt.err, call)
			assert.Equal(t, tt.wantID, r.Code.ID)
			assert.Equal(t, tt.wantStatus, r.Status)
			assert.Equal(t, tt.wantClient, r.ClientMessage)
			assert.Equal(t, tt.wantSystem, r.SystemMessage)
		})
	}
}

func TestRenderHeaders(t *testing.T) {
	t.Parallel()
	cat := NewCatalog()
	r := cat.Render(&Error{ID: CalloutFailed, Status: http.StatusServiceUnavailable, RetryAfter: 7}, CallArgs{})
	assert.Equal(t, 503, r.Status)
	assert.Equal(t, 7, r.RetryAfter)
	assert.True(t, cat.Render(New(AuthenticationRequired, "x"), CallArgs{}).WWWAuthenticate)
}

func TestStripMarkup(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "plain", StripMarkup("plain"))
	assert.Equal(t, "a b", StripMarkup("<p>a</p><p>b</p>"))
	assert.Equal(t, "x", StripMarkup("<script>x"))
}
