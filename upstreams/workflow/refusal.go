package workflow

import (
	"regexp"
	"strings"
)

// BusinessRefusal reports whether a 403 answer of the engine is the engine
// refusing the operation itself (a FlowableForbiddenException, such as
// "Cannot delete a task that is part of a process instance."), which the
// caller should see with its status and message, rather than Spring
// Security refusing the gateway's own engine credentials, which is the
// gateway's failure. code and message are what upstreams.ReadStatusError
// reads from the answer's body.
//
// The two bodies differ. Flowable's BaseExceptionHandlerAdvice answers a
// FlowableForbiddenException with its ErrorInfo, {"message": "Forbidden",
// "exception": "<the exception's message>"}, read as "Forbidden: <the
// exception's message>". Spring Security's refusal (a user without the
// access-rest-api privilege, or any 401) is Spring Boot's error body,
// {"timestamp", "status": 403, "error": "Forbidden", "path"}, read as
// "Forbidden", or an empty body when the error page is refused too, read
// as the status text; where the error attributes include the exception it
// is a class name (org.springframework.security.access.AccessDeniedException),
// never a sentence. A code is never part of either.
func BusinessRefusal(code, message string) bool {
	if code != "" {
		return false
	}
	detail, ok := strings.CutPrefix(message, "Forbidden: ")
	detail = strings.TrimSpace(detail)
	return ok && detail != "" && !javaClassName.MatchString(detail)
}

// javaClassName matches a qualified Java class name: what Spring Boot's
// error body carries as its exception, where Flowable's carries a message.
var javaClassName = regexp.MustCompile(`^[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)+$`)
