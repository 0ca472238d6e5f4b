package workflow_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/upstreams"
	"github.com/restgate/gateway/upstreams/workflow"
)

// refusals are 403 and 401 answers as the engine's two layers write them.
// Business: Flowable's BaseExceptionHandlerAdvice.handleForbidden answers
// a FlowableForbiddenException with ErrorInfo("Forbidden", e), whose
// exception member is the exception's message (TaskResource.deleteTask,
// for one, throws "Cannot delete a task that is part of a process
// instance."). Credentials: Spring Security's AccessDeniedHandlerImpl and
// BasicAuthenticationEntryPoint send the error to Spring Boot's error page,
// whose body is DefaultErrorAttributes (timestamp, status, error, path;
// message and exception only when the application includes them), or
// nothing when the error page is refused as well.
var refusals = []struct {
	desc     string
	status   int
	body     string
	business bool
}{
	{"FlowableForbiddenException of a task delete", 403,
		`{"message":"Forbidden","exception":"Cannot delete a task that is part of a process instance."}`, true},
	{"FlowableForbiddenException of a case task", 403,
		`{"message":"Forbidden","exception":"Cannot delete a task that is part of a case instance."}`, true},
	{"a user without the access-rest-api privilege", 403,
		`{"timestamp":"2024-05-02T09:13:11.532+00:00","status":403,"error":"Forbidden","path":"/flowable-rest/service/runtime/tasks"}`, false},
	{"the same, with messages included", 403,
		`{"timestamp":"2024-05-02T09:13:11.532+00:00","status":403,"error":"Forbidden","message":"Forbidden","path":"/flowable-rest/service/runtime/tasks"}`, false},
	{"the same, with the exception included", 403,
		`{"timestamp":"2024-05-02T09:13:11.532+00:00","status":403,"error":"Forbidden","exception":"org.springframework.security.access.AccessDeniedException","message":"Forbidden","path":"/flowable-rest/service/runtime/tasks"}`, false},
	{"the error page refused too", 403, ``, false},
	{"bad credentials", 401,
		`{"timestamp":"2024-05-02T09:13:11.532+00:00","status":401,"error":"Unauthorized","path":"/flowable-rest/service/runtime/tasks"}`, false},
	{"bad credentials, empty", 401, ``, false},
}

// TestBusinessRefusal reads each answer with upstreams.ReadStatusError, as
// the shared status classification does, and asks BusinessRefusal.
func TestBusinessRefusal(t *testing.T) {
	t.Parallel()
	for _, tt := range refusals {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			resp := &http.Response{StatusCode: tt.status, Body: io.NopCloser(strings.NewReader(tt.body))}
			ue := upstreams.ReadStatusError("workflow", resp)
			assert.Equal(t, tt.business, workflow.BusinessRefusal(ue.Code, ue.Message), "code %q message %q", ue.Code, ue.Message)
		})
	}
	assert.False(t, workflow.BusinessRefusal("", "Forbidden: "))
	assert.False(t, workflow.BusinessRefusal("INSUFFICIENT_ACCESS", "Forbidden: no"))
}

// TestForbiddenSplit: through the adapter, the engine's business refusal
// keeps its 403 and message (KindRejected, so the gateway answers the
// caller's 403), while a refusal of the gateway's credentials is the
// gateway's failure (KindCredentials: 502).
func TestForbiddenSplit(t *testing.T) {
	t.Parallel()
	for _, tt := range refusals {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			var calls atomic.Int32
			srv := strictEngine(t, expected{method: http.MethodGet, path: "/runtime/tasks/8"}, canned{tt.status, tt.body}, &calls)
			_, err := workflow.New(srv.URL+"/flowable-rest/service", newDoer(), workflow.Options{}).Task(context.Background(), "8")
			ue := upstreams.AsError(err)
			require.NotNil(t, ue)
			assert.Equal(t, tt.status, ue.Status)
			if tt.business {
				assert.Equal(t, upstreams.KindRejected, ue.Kind)
				assert.Contains(t, ue.Message, "Cannot delete a task")
				assert.Equal(t, http.StatusForbidden, upstreams.StatusFor(err))
			} else {
				assert.Equal(t, upstreams.KindCredentials, ue.Kind)
				assert.Equal(t, http.StatusBadGateway, upstreams.StatusFor(err))
			}
		})
	}
}
