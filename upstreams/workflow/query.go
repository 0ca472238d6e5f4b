package workflow

import (
	"net/url"
	"strconv"
	"strings"
	"unicode"
)

// TaskQuery is the gateway's task listing filter. The zero value lists the
// open tasks with the engine's defaults (first 10, sorted by id).
type TaskQuery struct {
	// Status is "open" (or "") for running tasks, "closed" for finished ones.
	Status string
	// Candidate lists open tasks the user may claim (unassigned ones only,
	// as the engine does); for closed tasks it lists those the user was
	// involved in (candidate, assignee or owner), because the engine's
	// history query has no candidate parameter.
	Candidate string
	// Assignee filters on the user holding the task.
	Assignee string
	// TaskDefinitionKey filters on the model's task key (UnassignedLoan, ...).
	TaskDefinitionKey string
	// Description filters on the exact task description.
	Description string
	// Order is "asc" or "desc" by creation time; "" keeps the engine's
	// default order (by id).
	Order string
	// Size is the page size, 1..1000; 0 is the engine's default (10).
	Size int
}

// MaxSize is the largest page a caller may ask for.
const MaxSize = 1000

// sizeReason is why a size is refused.
const sizeReason = "must be an integer from 1 to 1000"

// Parameter names of the gateway's task listing.
const (
	paramStatus            = "status"
	paramCandidate         = "candidate"
	paramAssignee          = "assignee"
	paramTaskDefinitionKey = "taskDefinitionKey"
	paramDescription       = "description"
	paramSize              = "size"
	paramOrder             = "order"
)

// ParseTaskQuery validates the gateway's task listing parameters: status
// open|closed, size an integer 1..1000, order asc|desc, the filters
// non-empty and of a length the engine stores. Unknown, repeated or empty
// parameters are refused, because the engine silently ignores what it does
// not know and would answer with every task. The error is a *ParamError.
func ParseTaskQuery(q url.Values) (TaskQuery, error) {
	var tq TaskQuery
	for name, values := range q {
		if len(values) != 1 {
			return TaskQuery{}, &ParamError{Param: name, Value: strings.Join(values, ","), Reason: "must be given once"}
		}
		v := values[0]
		if v == "" {
			return TaskQuery{}, &ParamError{Param: name, Reason: "must not be empty"}
		}
		switch name {
		case paramStatus:
			tq.Status = v
		case paramCandidate:
			tq.Candidate = v
		case paramAssignee:
			tq.Assignee = v
		case paramTaskDefinitionKey:
			tq.TaskDefinitionKey = v
		case paramDescription:
			tq.Description = v
		case paramOrder:
			tq.Order = v
		case paramSize:
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 || n > MaxSize {
				return TaskQuery{}, &ParamError{Param: name, Value: v, Reason: sizeReason}
			}
			tq.Size = n
		default:
			return TaskQuery{}, &ParamError{Param: name, Value: v, Reason: "unknown parameter; known: status, candidate, assignee, taskDefinitionKey, description, size, order"}
		}
	}
	if err := tq.validate(); err != nil {
		return TaskQuery{}, err
	}
	return tq, nil
}

// validate checks a TaskQuery however it was built, so that Tasks never
// sends a query the engine would misread.
func (tq TaskQuery) validate() error {
	switch tq.Status {
	case "", "open", "closed":
	default:
		return &ParamError{Param: paramStatus, Value: tq.Status, Reason: "must be open or closed"}
	}
	switch tq.Order {
	case "", "asc", "desc":
	default:
		return &ParamError{Param: paramOrder, Value: tq.Order, Reason: "must be asc or desc"}
	}
	if tq.Size < 0 || tq.Size > MaxSize {
		return &ParamError{Param: paramSize, Value: strconv.Itoa(tq.Size), Reason: sizeReason}
	}
	filters := []struct {
		name, value string
		limit       int
	}{
		{paramCandidate, tq.Candidate, 255},
		{paramAssignee, tq.Assignee, 255},
		{paramTaskDefinitionKey, tq.TaskDefinitionKey, 255},
		{paramDescription, tq.Description, 4000},
	}
	for _, f := range filters {
		if err := checkText(f.name, f.value, f.limit); err != nil {
			return err
		}
	}
	return nil
}

// values is the engine query for tq: runtime parameter names for open
// tasks, history names for closed ones. Sorting by creation time is only
// asked for with an order, so that the engine's default stays its own.
func (tq TaskQuery) values() (path string, q url.Values) {
	q = url.Values{}
	set := func(name, value string) {
		if value != "" {
			q.Set(name, value)
		}
	}
	if tq.Status == "closed" {
		path = "/history/historic-task-instances"
		q.Set("finished", "true")
		set("taskInvolvedUser", tq.Candidate)
		set("taskAssignee", tq.Assignee)
		set("taskDescription", tq.Description)
		if tq.Order != "" {
			q.Set("sort", "startTime")
		}
	} else {
		path = "/runtime/tasks"
		set("candidateUser", tq.Candidate)
		set("assignee", tq.Assignee)
		set("description", tq.Description)
		if tq.Order != "" {
			q.Set("sort", "createTime")
		}
	}
	set("taskDefinitionKey", tq.TaskDefinitionKey)
	set("order", tq.Order)
	if tq.Size > 0 {
		q.Set("size", strconv.Itoa(tq.Size))
	}
	return path, q
}

// ValidDisposition reports whether s is a completion disposition of the
// loan process: complete, incomplete or saveforlater.
func ValidDisposition(s string) bool {
	switch s {
	case "complete", "incomplete", "saveforlater":
		return true
	}
	return false
}

// checkText refuses control characters and values longer than the
// engine's column; "" means the filter is not set and passes.
func checkText(param, v string, limit int) error {
	if len(v) > limit {
		return &ParamError{Param: param, Value: v, Reason: "must be at most " + strconv.Itoa(limit) + " bytes"}
	}
	if strings.IndexFunc(v, unicode.IsControl) >= 0 {
		return &ParamError{Param: param, Value: v, Reason: "must not contain control characters"}
	}
	return nil
}

// checkID validates an id that goes into a URL path. Ids of the engine are
// numbers or UUIDs and user ids are logins; a slash, a dot segment or a
// control character is never one and could only steer the request
// elsewhere.
func checkID(param, id string) error {
	switch {
	case id == "":
		return &ParamError{Param: param, Reason: "must not be empty"}
	case id == "." || id == "..":
		return &ParamError{Param: param, Value: id, Reason: "must not be a dot segment"}
	case strings.ContainsAny(id, `/\`):
		return &ParamError{Param: param, Value: id, Reason: "must not contain a slash"}
	}
	return checkText(param, id, 255)
}
