package sandbox

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
)

// wfTaskRow is one wf_tasks row.
type wfTaskRow struct {
	id, instanceID, executionID  int64
	definitionID, key, name      string
	description, owner, assignee sql.NullString
	priority                     int
	created                      int64
	claimed, ended               sql.NullInt64
}

const wfTaskColumns = `id, instance_id, execution_id, definition_id, task_key, name, description, owner, assignee,
	priority, create_time, claim_time, end_time`

func wfScanTask(s interface{ Scan(...any) error }) (wfTaskRow, error) {
	var t wfTaskRow
	err := s.Scan(&t.id, &t.instanceID, &t.executionID, &t.definitionID, &t.key, &t.name, &t.description,
		&t.owner, &t.assignee, &t.priority, &t.created, &t.claimed, &t.ended)
	return t, err
}

// wfTaskJSON is a runtime task as the engine writes it.
type wfTaskJSON struct {
	ID                   string  `json:"id"`
	URL                  string  `json:"url"`
	Owner                *string `json:"owner"`
	Assignee             *string `json:"assignee"`
	DelegationState      *string `json:"delegationState"`
	Name                 string  `json:"name"`
	Description          *string `json:"description"`
	CreateTime           string  `json:"createTime"`
	DueDate              *string `json:"dueDate"`
	Priority             int     `json:"priority"`
	Suspended            bool    `json:"suspended"`
	ClaimTime            *string `json:"claimTime"`
	TaskDefinitionKey    string  `json:"taskDefinitionKey"`
	TenantID             string  `json:"tenantId"`
	Category             *string `json:"category"`
	FormKey              *string `json:"formKey"`
	ParentTaskID         *string `json:"parentTaskId"`
	ParentTaskURL        *string `json:"parentTaskUrl"`
	ExecutionID          string  `json:"executionId"`
	ExecutionURL         string  `json:"executionUrl"`
	ProcessInstanceID    string  `json:"processInstanceId"`
	ProcessInstanceURL   string  `json:"processInstanceUrl"`
	ProcessDefinitionID  string  `json:"processDefinitionId"`
	ProcessDefinitionURL string  `json:"processDefinitionUrl"`
	Variables            []any   `json:"variables"`
}

func (t wfTaskRow) runtimeJSON(root string) wfTaskJSON {
	id, instance, execution := strconv.FormatInt(t.id, 10), strconv.FormatInt(t.instanceID, 10), strconv.FormatInt(t.executionID, 10)
	return wfTaskJSON{
		ID: id, URL: root + "/runtime/tasks/" + id, Owner: wfNullString(t.owner), Assignee: wfNullString(t.assignee),
		Name: t.name, Description: wfNullString(t.description), CreateTime: wfFormatMillis(t.created),
		Priority: t.priority, ClaimTime: wfFormatNullMillis(t.claimed), TaskDefinitionKey: t.key,
		ExecutionID: execution, ExecutionURL: root + "/runtime/executions/" + execution,
		ProcessInstanceID: instance, ProcessInstanceURL: root + "/runtime/process-instances/" + instance,
		ProcessDefinitionID:  t.definitionID,
		ProcessDefinitionURL: root + "/repository/process-definitions/" + url.PathEscape(t.definitionID),
		Variables:            []any{},
	}
}

func runtimeTaskSorts() map[string]string {
	return map[string]string{"id": "id", "name": "name", "description": "description", "dueDate": "NULL",
		"createTime": "create_time", "priority": "priority", "executionId": "execution_id",
		"processInstanceId": "instance_id", "tenantId": "''"}
}

// candidateFilter is the engine's candidate rule: an unassigned task with
// a candidate link to the user or group.
const (
	candidateUserFilter  = " AND assignee IS NULL AND EXISTS (SELECT 1 FROM wf_candidates c WHERE c.task_id = wf_tasks.id AND c.user_id = ?)"
	candidateGroupFilter = " AND assignee IS NULL AND EXISTS (SELECT 1 FROM wf_candidates c WHERE c.task_id = wf_tasks.id AND c.group_id = ?)"
)

func (e *workflowEngine) listTasks(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	p, err := parseWFPage(q, "id", runtimeTaskSorts())
	if err != nil {
		writeEngineError(w, err)
		return
	}
	where, args := " WHERE end_time IS NULL", []any{}
	add := func(param, clause string) {
		if v := q.Get(param); v != "" {
			where += clause
			args = append(args, v)
		}
	}
	add("candidateUser", candidateUserFilter)
	add("candidateGroup", candidateGroupFilter)
	add("assignee", " AND assignee = ?")
	add("owner", " AND owner = ?")
	add("taskDefinitionKey", " AND task_key = ?")
	add("description", " AND description = ?")
	add("name", " AND name = ?")
	add("processInstanceId", " AND instance_id = ?")
	if _, ok := q["unassigned"]; ok {
		where += " AND assignee IS NULL"
	}
	e.writeTaskList(w, r, p, where, args, func(t wfTaskRow, root string) any { return t.runtimeJSON(root) })
}

// writeTaskList answers one wfPage of tasks matching where, in the engine's
// list envelope.
func (e *workflowEngine) writeTaskList(w http.ResponseWriter, r *http.Request, p wfPage, where string, args []any,
	render func(wfTaskRow, string) any) {
	list := wfList{Data: []any{}, Start: p.start, Sort: p.sort, Order: p.order}
	root := wfRootURL(r)
	err := e.inTx(r.Context(), func(tx *sql.Tx) error {
		if err := tx.QueryRow(`SELECT COUNT(*) FROM wf_tasks`+where, args...).Scan(&list.Total); err != nil {
			return err
		}
		rows, err := tx.Query(`SELECT `+wfTaskColumns+` FROM wf_tasks`+where+p.orderBy("id"), args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		data := []any{}
		for rows.Next() {
			t, err := wfScanTask(rows)
			if err != nil {
				return err
			}
			data = append(data, render(t, root))
		}
		list.Data, list.Size = data, len(data)
		return rows.Err()
	})
	if err != nil {
		writeEngineError(w, err)
		return
	}
	writeEngineJSON(w, http.StatusOK, list)
}

// wfOpenTask reads a task that is still running, or the engine's 404.
func wfOpenTask(tx *sql.Tx, id int64) (wfTaskRow, error) {
	t, err := wfScanTask(tx.QueryRow(`SELECT `+wfTaskColumns+` FROM wf_tasks WHERE id = ? AND end_time IS NULL`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return wfTaskRow{}, wfNotFound("Could not find a task with id '%d'.", id)
	}
	return t, err
}

const wfTaskNotFound = "Could not find a task with id '%s'."

func (e *workflowEngine) getTask(w http.ResponseWriter, r *http.Request) {
	id, err := wfPathID(r, wfTaskNotFound)
	var t wfTaskRow
	if err == nil {
		err = e.inTx(r.Context(), func(tx *sql.Tx) error {
			t, err = wfOpenTask(tx, id)
			return err
		})
	}
	if err != nil {
		writeEngineError(w, err)
		return
	}
	writeEngineJSON(w, http.StatusOK, t.runtimeJSON(wfRootURL(r)))
}

// updateTask changes only the members sent; an explicit null clears one.
func (e *workflowEngine) updateTask(w http.ResponseWriter, r *http.Request) {
	id, err := wfPathID(r, wfTaskNotFound)
	if err != nil {
		writeEngineError(w, err)
		return
	}
	var body map[string]json.RawMessage
	if err := wfDecodeBody(w, r, &body); err != nil {
		writeEngineError(w, wfBadRequest("Could not read the request body: %v", err))
		return
	}
	columns := map[string]string{"assignee": "assignee", "owner": "owner", "name": "name", "description": "description"}
	var t wfTaskRow
	err = e.inTx(r.Context(), func(tx *sql.Tx) error {
		if _, err := wfOpenTask(tx, id); err != nil {
			return err
		}
		for member, raw := range body {
			column, ok := columns[member]
			if !ok {
				continue // the engine ignores members it does not know
			}
			var value *string
			if !bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
				if err := json.Unmarshal(raw, &value); err != nil {
					return wfBadRequest("Member '%s' must be a string or null", member)
				}
			}
			if column == "name" && value == nil {
				return wfBadRequest("Member 'name' cannot be null")
			}
			if _, err := tx.Exec(`UPDATE wf_tasks SET `+column+` = ? WHERE id = ?`, value, id); err != nil {
				return fmt.Errorf("workflow: updating task: %w", err)
			}
		}
		var err error
		t, err = wfOpenTask(tx, id)
		return err
	})
	if err != nil {
		writeEngineError(w, err)
		return
	}
	writeEngineJSON(w, http.StatusOK, t.runtimeJSON(wfRootURL(r)))
}
