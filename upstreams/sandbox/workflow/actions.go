package workflow

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
)

// taskAction runs POST /runtime/tasks/{id}: claim or complete. Success is
// 200 with an empty body, as the engine answers.
func (e *engine) taskAction(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, taskNotFound)
	if err != nil {
		writeError(w, err)
		return
	}
	var req struct {
		Action    string         `json:"action"`
		Assignee  *string        `json:"assignee"`
		Variables []variableJSON `json:"variables"`
	}
	if err := decodeBody(w, r, &req); err != nil {
		writeError(w, badRequest("A request body was expected when executing a task action."))
		return
	}
	now := e.now().UnixMilli()
	err = e.inTx(r.Context(), func(tx *sql.Tx) error {
		t, err := openTask(tx, id)
		if err != nil {
			return err
		}
		switch req.Action {
		case "claim":
			return claimTask(tx, t, req.Assignee, now)
		case "complete":
			return completeTask(tx, t, req.Variables, now)
		}
		return badRequest("Invalid action: '%s'.", req.Action)
	})
	if err != nil {
		writeError(w, err)
		return
	}
	w.WriteHeader(http.StatusOK)
}

// claimTask gives t to user. A task held by someone else is the engine's
// 409; claiming it again as its holder changes nothing; a null user
// releases the task.
func claimTask(tx *sql.Tx, t taskRow, user *string, now int64) error {
	if user == nil || *user == "" {
		_, err := tx.Exec(`UPDATE wf_tasks SET assignee = NULL, claim_time = NULL WHERE id = ?`, t.id)
		return err
	}
	if t.assignee.Valid {
		if t.assignee.String == *user {
			return nil
		}
		return &engineError{status: http.StatusConflict,
			exception: fmt.Sprintf("Task '%d' is already claimed by someone else.", t.id)}
	}
	_, err := tx.Exec(`UPDATE wf_tasks SET assignee = ?, claim_time = ? WHERE id = ?`, *user, now, t.id)
	return err
}

// completeTask ends t, stores the variables on its instance and follows the
// loan process: a SaveForLater task for the same holder, or the end.
func completeTask(tx *sql.Tx, t taskRow, vars []variableJSON, now int64) error {
	if err := setVariables(tx, t.instanceID, vars); err != nil {
		return err
	}
	var raw sql.NullString
	err := tx.QueryRow(`SELECT value FROM wf_variables WHERE instance_id = ? AND name = 'disposition'`, t.instanceID).Scan(&raw)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	var disposition string
	_ = json.Unmarshal([]byte(raw.String), &disposition)
	next, end, err := nextLoanStep(t.key, disposition)
	if err != nil {
		return err
	}
	if _, err := tx.Exec(`UPDATE wf_tasks SET end_time = ? WHERE id = ?`, now, t.id); err != nil {
		return fmt.Errorf("workflow: completing task: %w", err)
	}
	if end {
		_, err := tx.Exec(`UPDATE wf_instances SET end_time = ?, activity_id = NULL WHERE id = ?`, now, t.instanceID)
		return err
	}
	_, err = createTask(tx, t.instanceID, t.executionID, t.definitionID, next, t.assignee.String, now)
	return err
}
