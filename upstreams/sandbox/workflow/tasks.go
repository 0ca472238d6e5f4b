package workflow

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// taskRow is one wf_tasks row.
type taskRow struct {
	id, instanceID, executionID  int64
	definitionID, key, name      string
	description, owner, assignee sql.NullString
	priority                     int
	created                      int64
	claimed, ended               sql.NullInt64
	// rev is the row's revision, the engine's optimistic lock: every
	// change of the task raises it, and a change made from an older read
	// fails.
	rev             int64
	delegationState sql.NullString
}

const taskColumns = `id, instance_id, execution_id, definition_id, task_key, name, description, owner, assignee,
	priority, create_time, claim_time, end_time, rev, delegation_state`

func scanTask(s interface{ Scan(...any) error }) (taskRow, error) {
	var t taskRow
	err := s.Scan(&t.id, &t.instanceID, &t.executionID, &t.definitionID, &t.key, &t.name, &t.description,
		&t.owner, &t.assignee, &t.priority, &t.created, &t.claimed, &t.ended, &t.rev, &t.delegationState)
	return t, err
}

// taskJSON is a runtime task as the engine writes it.
type taskJSON struct {
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

func (t taskRow) runtimeJSON(root string) taskJSON {
	id, instance, execution := strconv.FormatInt(t.id, 10), strconv.FormatInt(t.instanceID, 10), strconv.FormatInt(t.executionID, 10)
	return taskJSON{
		ID: id, URL: root + "/runtime/tasks/" + id, Owner: nullString(t.owner), Assignee: nullString(t.assignee),
		DelegationState: nullString(t.delegationState), Name: t.name, Description: nullString(t.description), CreateTime: formatMillis(t.created),
		Priority: t.priority, ClaimTime: formatNullMillis(t.claimed), TaskDefinitionKey: t.key,
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

// The engine's candidate rules: an unassigned task with a candidate link
// to the user, to one of the user's groups (the engine asks its identity
// service for them), or to the group.
const (
	candidateUserFilter = " AND assignee IS NULL AND EXISTS (SELECT 1 FROM wf_candidates c WHERE c.task_id = wf_tasks.id AND" +
		" (c.user_id = ? OR c.group_id IN (SELECT m.group_id FROM wf_memberships m WHERE m.user_id = ?)))"
	candidateGroupFilter = " AND assignee IS NULL AND EXISTS (SELECT 1 FROM wf_candidates c WHERE c.task_id = wf_tasks.id AND c.group_id = ?)"
	// businessKeyFilter selects the tasks of instances with a business key.
	businessKeyFilter = " AND instance_id IN (SELECT i.id FROM wf_instances i WHERE i.business_key = ?)"
)

func (e *engine) listTasks(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	p, err := parsePage(q, "id", runtimeTaskSorts())
	if err != nil {
		writeError(w, err)
		return
	}
	where, args := " WHERE end_time IS NULL", []any{}
	add := func(param, clause string) {
		if v := q.Get(param); v != "" {
			where += clause
			args = append(args, v)
		}
	}
	if v := q.Get("candidateUser"); v != "" {
		where += candidateUserFilter
		args = append(args, v, v)
	}
	add("candidateGroup", candidateGroupFilter)
	add("assignee", " AND assignee = ?")
	add("owner", " AND owner = ?")
	add("taskDefinitionKey", " AND task_key = ?")
	add("description", " AND description = ?")
	add("name", " AND name = ?")
	add("processInstanceId", " AND instance_id = ?")
	add("processInstanceBusinessKey", businessKeyFilter)
	// TaskBaseResource: any unassigned parameter, even unassigned=false,
	// selects the unassigned tasks.
	if _, ok := q["unassigned"]; ok {
		where += " AND assignee IS NULL"
	}
	e.writeTaskList(w, r, p, where, args, func(tx *sql.Tx, t taskRow, root string) (any, error) {
		out := t.runtimeJSON(root)
		if includeVariables(q) {
			vars, err := processVariables(tx, t.instanceID, out.URL)
			out.Variables = vars
			return out, err
		}
		return out, nil
	})
}

// includeVariables reads includeProcessVariables as Boolean.valueOf does.
func includeVariables(q url.Values) bool {
	return strings.EqualFold(q.Get("includeProcessVariables"), "true")
}

// writeTaskList answers one page of tasks matching where, in the engine's
// list envelope.
func (e *engine) writeTaskList(w http.ResponseWriter, r *http.Request, p page, where string, args []any,
	render func(*sql.Tx, taskRow, string) (any, error)) {
	list := listJSON{Data: []any{}, Start: p.start, Sort: p.sort, Order: p.order}
	root := rootURL(r)
	err := e.inTx(r.Context(), func(tx *sql.Tx) error {
		if err := tx.QueryRow(`SELECT COUNT(*) FROM wf_tasks`+where, args...).Scan(&list.Total); err != nil {
			return err
		}
		rows, err := tx.Query(`SELECT `+taskColumns+` FROM wf_tasks`+where+p.orderBy("id"), args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		data := []any{}
		var tasks []taskRow
		for rows.Next() {
			t, err := scanTask(rows)
			if err != nil {
				return err
			}
			tasks = append(tasks, t)
		}
		if err := rows.Err(); err != nil {
			return err
		}
		rows.Close()
		for _, t := range tasks {
			item, err := render(tx, t, root)
			if err != nil {
				return err
			}
			data = append(data, item)
		}
		list.Data, list.Size = data, len(data)
		return nil
	})
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, list)
}

// openTask reads a task that is still running, or the engine's 404.
func openTask(tx *sql.Tx, id int64) (taskRow, error) {
	t, err := scanTask(tx.QueryRow(`SELECT `+taskColumns+` FROM wf_tasks WHERE id = ? AND end_time IS NULL`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return taskRow{}, notFound("Could not find a task with id '%d'.", id)
	}
	return t, err
}

const taskNotFound = "Could not find a task with id '%s'."

func (e *engine) getTask(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, taskNotFound)
	var t taskRow
	if err == nil {
		err = e.inTx(r.Context(), func(tx *sql.Tx) error {
			t, err = openTask(tx, id)
			return err
		})
	}
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, t.runtimeJSON(rootURL(r)))
}

// updateTask changes only the members sent; an explicit null clears one.
func (e *engine) updateTask(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, taskNotFound)
	if err != nil {
		writeError(w, err)
		return
	}
	var body map[string]json.RawMessage
	if err := decodeBody(w, r, &body); err != nil {
		writeError(w, badRequest("Could not read the request body: %v", err))
		return
	}
	columns := map[string]string{"assignee": "assignee", "owner": "owner", "name": "name", "description": "description"}
	var t taskRow
	err = e.inTx(r.Context(), func(tx *sql.Tx) error {
		if _, err := openTask(tx, id); err != nil {
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
					return badRequest("Member '%s' must be a string or null", member)
				}
			}
			if column == "name" && value == nil {
				return badRequest("Member 'name' cannot be null")
			}
			if _, err := tx.Exec(`UPDATE wf_tasks SET `+column+` = ?, rev = rev + 1 WHERE id = ?`, value, id); err != nil {
				return fmt.Errorf("workflow: updating task: %w", err)
			}
		}
		var err error
		t, err = openTask(tx, id)
		return err
	})
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, t.runtimeJSON(rootURL(r)))
}
