package sandbox

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
)

// taskAction runs POST /runtime/tasks/{id}: claim or complete. Success is
// 200 with an empty body, as the engine answers.
func (e *workflowEngine) taskAction(w http.ResponseWriter, r *http.Request) {
	id, err := wfPathID(r, wfTaskNotFound)
	if err != nil {
		writeEngineError(w, err)
		return
	}
	var req struct {
		Action    string           `json:"action"`
		Assignee  *string          `json:"assignee"`
		Variables []wfVariableJSON `json:"variables"`
	}
	if err := wfDecodeBody(w, r, &req); err != nil {
		writeEngineError(w, wfBadRequest("A request body was expected when executing a task action."))
		return
	}
	now := e.now().UnixMilli()
	err = e.inTx(r.Context(), func(tx *sql.Tx) error {
		t, err := wfOpenTask(tx, id)
		if err != nil {
			return err
		}
		switch req.Action {
		case "claim":
			return wfClaimTask(tx, t, req.Assignee, now)
		case "complete":
			return wfCompleteTask(tx, t, req.Variables, now)
		}
		return wfBadRequest("Invalid action: '%s'.", req.Action)
	})
	if err != nil {
		writeEngineError(w, err)
		return
	}
	w.WriteHeader(http.StatusOK)
}

// wfClaimTask gives t to user. A task held by someone else is the engine's
// 409; claiming it again as its holder changes nothing; a null user
// releases the task.
func wfClaimTask(tx *sql.Tx, t wfTaskRow, user *string, now int64) error {
	if user == nil || *user == "" {
		_, err := tx.Exec(`UPDATE wf_tasks SET assignee = NULL, claim_time = NULL WHERE id = ?`, t.id)
		return err
	}
	if t.assignee.Valid {
		if t.assignee.String == *user {
			return nil
		}
		return &wfError{status: http.StatusConflict,
			exception: fmt.Sprintf("Task '%d' is already claimed by someone else.", t.id)}
	}
	_, err := tx.Exec(`UPDATE wf_tasks SET assignee = ?, claim_time = ? WHERE id = ?`, *user, now, t.id)
	return err
}

// wfCompleteTask ends t, stores the variables on its instance and follows the
// loan process: a SaveForLater task for the same holder, or the end.
func wfCompleteTask(tx *sql.Tx, t wfTaskRow, vars []wfVariableJSON, now int64) error {
	if err := wfSetVariables(tx, t.instanceID, vars); err != nil {
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
	_, err = wfCreateTask(tx, t.instanceID, t.executionID, t.definitionID, next, t.assignee.String, now)
	return err
}
