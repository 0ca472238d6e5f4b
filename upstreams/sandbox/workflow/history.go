package workflow

import (
	"database/sql"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// historicTaskJSON is a task of the history as the engine writes it.
type historicTaskJSON struct {
	ID                   string  `json:"id"`
	ProcessDefinitionID  string  `json:"processDefinitionId"`
	ProcessDefinitionURL string  `json:"processDefinitionUrl"`
	ProcessInstanceID    string  `json:"processInstanceId"`
	ProcessInstanceURL   string  `json:"processInstanceUrl"`
	ExecutionID          string  `json:"executionId"`
	Name                 string  `json:"name"`
	Description          *string `json:"description"`
	DeleteReason         *string `json:"deleteReason"`
	Owner                *string `json:"owner"`
	Assignee             *string `json:"assignee"`
	StartTime            string  `json:"startTime"`
	EndTime              *string `json:"endTime"`
	DurationInMillis     *int64  `json:"durationInMillis"`
	WorkTimeInMillis     *int64  `json:"workTimeInMillis"`
	ClaimTime            *string `json:"claimTime"`
	TaskDefinitionKey    string  `json:"taskDefinitionKey"`
	FormKey              *string `json:"formKey"`
	Priority             int     `json:"priority"`
	DueDate              *string `json:"dueDate"`
	ParentTaskID         *string `json:"parentTaskId"`
	URL                  string  `json:"url"`
	Variables            []any   `json:"variables"`
	TenantID             string  `json:"tenantId"`
	Category             *string `json:"category"`
}

func (t taskRow) historicJSON(root string) historicTaskJSON {
	id, instance := strconv.FormatInt(t.id, 10), strconv.FormatInt(t.instanceID, 10)
	h := historicTaskJSON{
		ID: id, ProcessDefinitionID: t.definitionID,
		ProcessDefinitionURL: root + "/repository/process-definitions/" + url.PathEscape(t.definitionID),
		ProcessInstanceID:    instance, ProcessInstanceURL: root + "/history/historic-process-instances/" + instance,
		ExecutionID: strconv.FormatInt(t.executionID, 10), Name: t.name, Description: nullString(t.description),
		Owner: nullString(t.owner), Assignee: nullString(t.assignee), StartTime: formatMillis(t.created),
		EndTime: formatNullMillis(t.ended), ClaimTime: formatNullMillis(t.claimed), TaskDefinitionKey: t.key,
		Priority: t.priority, URL: root + "/history/historic-task-instances/" + id, Variables: []any{},
	}
	if t.ended.Valid {
		d := t.ended.Int64 - t.created
		h.DurationInMillis = &d
		if t.claimed.Valid {
			work := t.ended.Int64 - t.claimed.Int64
			h.WorkTimeInMillis = &work
		}
	}
	return h
}

func historicTaskSorts() map[string]string {
	return map[string]string{"taskInstanceId": "id", "processDefinitionId": "definition_id",
		"processInstanceId": "instance_id", "executionId": "execution_id", "name": "name",
		"description": "description", "assignee": "assignee", "owner": "owner", "taskDefinitionKey": "task_key",
		"deleteReason": "NULL", "start": "create_time", "startTime": "create_time", "endTime": "end_time",
		"duration": "(end_time - create_time)", "priority": "priority", "dueDate": "NULL", "tenantId": "''"}
}

// involvedFilter is the engine's involved-user rule: the assignee, the
// owner or a candidate of the task.
const involvedFilter = " AND (assignee = ? OR owner = ? OR EXISTS (SELECT 1 FROM wf_candidates c WHERE c.task_id = wf_tasks.id AND c.user_id = ?))"

func (e *engine) listHistoricTasks(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	p, err := parsePage(q, "taskInstanceId", historicTaskSorts())
	if err != nil {
		writeError(w, err)
		return
	}
	where, args := " WHERE 1=1", []any{}
	add := func(param, clause string) {
		if v := q.Get(param); v != "" {
			where += clause
			args = append(args, v)
		}
	}
	add("taskId", " AND id = ?")
	add("processInstanceId", " AND instance_id = ?")
	add("processDefinitionId", " AND definition_id = ?")
	add("taskDefinitionKey", " AND task_key = ?")
	add("taskName", " AND name = ?")
	add("taskDescription", " AND description = ?")
	add("taskAssignee", " AND assignee = ?")
	add("taskOwner", " AND owner = ?")
	add("taskCandidateGroup", " AND EXISTS (SELECT 1 FROM wf_candidates c WHERE c.task_id = wf_tasks.id AND c.group_id = ?)")
	add("processBusinessKey", businessKeyFilter)
	if v := q.Get("taskInvolvedUser"); v != "" {
		where += involvedFilter
		args = append(args, v, v, v)
	}
	if v := q.Get("finished"); v != "" {
		// Boolean.valueOf: "true" in any case is true, anything else false.
		if strings.EqualFold(v, "true") {
			where += " AND end_time IS NOT NULL"
		} else {
			where += " AND end_time IS NULL"
		}
	}
	e.writeTaskList(w, r, p, where, args, func(tx *sql.Tx, t taskRow, root string) (any, error) {
		out := t.historicJSON(root)
		if includeVariables(q) {
			vars, err := processVariables(tx, t.instanceID, out.URL)
			out.Variables = vars
			return out, err
		}
		return out, nil
	})
}
