package workflow

import (
	"net/url"
	"strconv"
	"strings"
	"unicode"
)

// TaskQuery is the gateway's task listing filter. The zero value lists the
// first 10 open tasks in the engine's order (by id).
type TaskQuery struct {
	// Status is "open" (or "") for running tasks, "closed" for finished ones.
	Status string
	// Candidate lists open tasks the user may claim, directly or through
	// one of the user's groups (unassigned ones only, as the engine does);
	// for closed tasks it lists those the user was involved in (candidate,
	// assignee or owner), because the engine's history query has no
	// candidate parameter.
	Candidate string
	// CandidateGroup lists tasks offered to the group (open ones only while
	// unassigned, as the engine does).
	CandidateGroup string
	// Assignee filters on the user holding the task.
	Assignee string
	// Unassigned keeps only tasks nobody holds; open tasks only.
	Unassigned bool
	// TaskDefinitionKey filters on the model's task key (UnassignedLoan, ...).
	TaskDefinitionKey string
	// Description filters on the exact task description.
	Description string
	// ProcessInstanceID and ProcessInstanceBusinessKey filter on the
	// task's process instance.
	ProcessInstanceID          string
	ProcessInstanceBusinessKey string
	// IncludeProcessVariables adds each task's process variables to it.
	IncludeProcessVariables bool
	// Order is "asc" or "desc" by creation time; "" keeps the engine's
	// default order (by id).
	Order string
	// Start is the position of the first task to answer, from 0.
	Start int
	// Size is the page size, 1..1000; 0 is the engine's default (10).
	Size int
}

// DefinitionQuery is the gateway's process definition listing filter. The
// zero value lists every version of every definition; ParseDefinitionQuery
// defaults to the latest versions only.
type DefinitionQuery struct {
	// Key filters on the definition key (loanProcess).
	Key string
	// Latest keeps only the latest version of each definition.
	Latest bool
	// Start and Size page the list as in TaskQuery.
	Start, Size int
}

// Paging bounds. MaxSize is the largest page a caller may ask for; the
// engine's own default page is DefaultSize.
const (
	MaxSize     = 1000
	DefaultSize = 10
	maxStart    = 1<<31 - 1 // the engine's start is a Java int
)

// Reasons a paging value is refused.
const (
	sizeReason  = "must be an integer from 1 to 1000"
	startReason = "must be an integer from 0 to 2147483647"
)

// Parameter names of the gateway's listings.
const (
	paramStatus                     = "status"
	paramCandidate                  = "candidate"
	paramCandidateGroup             = "candidateGroup"
	paramAssignee                   = "assignee"
	paramUnassigned                 = "unassigned"
	paramTaskDefinitionKey          = "taskDefinitionKey"
	paramDescription                = "description"
	paramProcessInstanceID          = "processInstanceId"
	paramProcessInstanceBusinessKey = "processInstanceBusinessKey"
	paramIncludeProcessVariables    = "includeProcessVariables"
	paramOrder                      = "order"
	paramStart                      = "start"
	paramSize                       = "size"
	paramKey                        = "key"
	paramLatest                     = "latest"
)

// ParseTaskQuery validates the gateway's task listing parameters: status
// open|closed, start and size integers (size 1..1000), order asc|desc,
// unassigned and includeProcessVariables true|false, the filters non-empty
// and of a length the engine stores. Unknown, repeated or empty parameters
// are refused, because the engine silently ignores what it does not know
// and would answer with every task. The error is a *ParamError.
func ParseTaskQuery(q url.Values) (TaskQuery, error) {
	var tq TaskQuery
	texts := map[string]*string{
		paramStatus: &tq.Status, paramCandidate: &tq.Candidate, paramCandidateGroup: &tq.CandidateGroup,
		paramAssignee: &tq.Assignee, paramTaskDefinitionKey: &tq.TaskDefinitionKey, paramDescription: &tq.Description,
		paramProcessInstanceID: &tq.ProcessInstanceID, paramProcessInstanceBusinessKey: &tq.ProcessInstanceBusinessKey,
		paramOrder: &tq.Order,
	}
	flags := map[string]*bool{paramUnassigned: &tq.Unassigned, paramIncludeProcessVariables: &tq.IncludeProcessVariables}
	known := "status, candidate, candidateGroup, assignee, unassigned, taskDefinitionKey, description, " +
		"processInstanceId, processInstanceBusinessKey, includeProcessVariables, order, start, size"
	err := parseParams(q, known, texts, flags, &tq.Start, &tq.Size)
	if err != nil {
		return TaskQuery{}, err
	}
	if err := tq.validate(); err != nil {
		return TaskQuery{}, err
	}
	return tq, nil
}

// ParseDefinitionQuery validates the process definition listing
// parameters: key, latest true|false (default true: only the latest version
// of each definition; false lists every version), start and size. Unknown,
// repeated or empty parameters are refused. The error is a *ParamError.
func ParseDefinitionQuery(q url.Values) (DefinitionQuery, error) {
	dq := DefinitionQuery{Latest: true}
	err := parseParams(q, "key, latest, start, size", map[string]*string{paramKey: &dq.Key},
		map[string]*bool{paramLatest: &dq.Latest}, &dq.Start, &dq.Size)
	if err != nil {
		return DefinitionQuery{}, err
	}
	if err := dq.validate(); err != nil {
		return DefinitionQuery{}, err
	}
	return dq, nil
}

// parseParams reads q into texts, flags (true|false) and the paging
// integers, refusing names it does not know (known lists them), repeats
// and empty values.
func parseParams(q url.Values, known string, texts map[string]*string, flags map[string]*bool, start, size *int) error {
	for name, values := range q {
		if len(values) != 1 {
			return &ParamError{Param: name, Value: strings.Join(values, ","), Reason: "must be given once"}
		}
		v := values[0]
		if v == "" {
			return &ParamError{Param: name, Reason: "must not be empty"}
		}
		if dst, ok := texts[name]; ok {
			*dst = v
			continue
		}
		if dst, ok := flags[name]; ok {
			if v != "true" && v != "false" {
				return &ParamError{Param: name, Value: v, Reason: "must be true or false"}
			}
			*dst = v == "true"
			continue
		}
		switch name {
		case paramStart:
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 || n > maxStart || !digitsOnly(v) {
				return &ParamError{Param: name, Value: v, Reason: startReason}
			}
			*start = n
		case paramSize:
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 || n > MaxSize || !digitsOnly(v) {
				return &ParamError{Param: name, Value: v, Reason: sizeReason}
			}
			*size = n
		default:
			return &ParamError{Param: name, Value: v, Reason: "unknown parameter; known: " + known}
		}
	}
	return nil
}

func digitsOnly(s string) bool {
	return strings.Trim(s, "0123456789") == ""
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
	if tq.Status == "closed" && tq.Unassigned {
		return &ParamError{Param: paramUnassigned, Value: "true",
			Reason: "is not available with status=closed: the engine's task history has no such filter"}
	}
	if err := checkPaging(tq.Start, tq.Size); err != nil {
		return err
	}
	filters := []struct {
		name, value string
		limit       int
	}{
		{paramCandidate, tq.Candidate, 255},
		{paramCandidateGroup, tq.CandidateGroup, 255},
		{paramAssignee, tq.Assignee, 255},
		{paramTaskDefinitionKey, tq.TaskDefinitionKey, 255},
		{paramDescription, tq.Description, 4000},
		{paramProcessInstanceID, tq.ProcessInstanceID, 64},
		{paramProcessInstanceBusinessKey, tq.ProcessInstanceBusinessKey, 255},
	}
	for _, f := range filters {
		if err := checkText(f.name, f.value, f.limit); err != nil {
			return err
		}
	}
	return nil
}

func (dq DefinitionQuery) validate() error {
	if err := checkPaging(dq.Start, dq.Size); err != nil {
		return err
	}
	return checkText(paramKey, dq.Key, 255)
}

func checkPaging(start, size int) error {
	if start < 0 || start > maxStart {
		return &ParamError{Param: paramStart, Value: strconv.Itoa(start), Reason: startReason}
	}
	if size < 0 || size > MaxSize {
		return &ParamError{Param: paramSize, Value: strconv.Itoa(size), Reason: sizeReason}
	}
	return nil
}

// pageSize is size, or the engine's default when size is 0.
func pageSize(size int) int {
	if size == 0 {
		return DefaultSize
	}
	return size
}

// values is the engine query for tq: runtime parameter names for open
// tasks, history names for closed ones. Sorting by creation time is only
// asked for with an order, so that the engine's default stays its own.
// start and size are always sent, so the page answered is the one asked
// for whatever the engine's defaults. A false flag is not sent: the engine
// reads unassigned=false as unassigned (it tests the parameter's presence).
func (tq TaskQuery) values() (path string, q url.Values) {
	q = url.Values{}
	set := func(name, value string) {
		if value != "" {
			q.Set(name, value)
		}
	}
	flag := func(name string, on bool) {
		if on {
			q.Set(name, "true")
		}
	}
	if tq.Status == "closed" {
		path = "/history/historic-task-instances"
		q.Set("finished", "true")
		set("taskInvolvedUser", tq.Candidate)
		set("taskCandidateGroup", tq.CandidateGroup)
		set("taskAssignee", tq.Assignee)
		set("taskDescription", tq.Description)
		set("processBusinessKey", tq.ProcessInstanceBusinessKey)
		if tq.Order != "" {
			q.Set("sort", "startTime")
		}
	} else {
		path = "/runtime/tasks"
		set("candidateUser", tq.Candidate)
		set("candidateGroup", tq.CandidateGroup)
		set("assignee", tq.Assignee)
		flag("unassigned", tq.Unassigned)
		set("description", tq.Description)
		set("processInstanceBusinessKey", tq.ProcessInstanceBusinessKey)
		if tq.Order != "" {
			q.Set("sort", "createTime")
		}
	}
	set("taskDefinitionKey", tq.TaskDefinitionKey)
	set("processInstanceId", tq.ProcessInstanceID)
	flag("includeProcessVariables", tq.IncludeProcessVariables)
	set("order", tq.Order)
	q.Set("start", strconv.Itoa(tq.Start))
	q.Set("size", strconv.Itoa(pageSize(tq.Size)))
	return path, q
}

// values is the engine query for dq.
func (dq DefinitionQuery) values() url.Values {
	q := url.Values{}
	if dq.Key != "" {
		q.Set("key", dq.Key)
	}
	if dq.Latest {
		q.Set("latest", "true")
	}
	q.Set("start", strconv.Itoa(dq.Start))
	q.Set("size", strconv.Itoa(pageSize(dq.Size)))
	return q
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
