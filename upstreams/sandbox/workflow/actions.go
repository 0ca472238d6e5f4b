package workflow

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/restgate/gateway/upstreams/workflow/restvar"
)

// taskAction runs POST /runtime/tasks/{id}: claim, unclaim, delegate,
// resolve or complete. Success is 200 with an empty body, as the engine
// answers.
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
	if req.Action == "claim" || req.Action == "unclaim" {
		user := req.Assignee
		if req.Action == "unclaim" {
			user = nil
		}
		err = e.claim(r, id, user, now)
	} else {
		err = e.inTx(r.Context(), func(tx *sql.Tx) error {
			t, err := openTask(tx, id)
			if err != nil {
				return err
			}
			switch req.Action {
			case "complete":
				return completeTask(tx, e.conv, t, req.Variables, now)
			case "delegate":
				return delegateTask(tx, t, req.Assignee)
			case "resolve":
				return resolveTask(tx, t)
			}
			return badRequest("Invalid action: '%s'.", req.Action)
		})
	}
	if err != nil {
		writeError(w, err)
		return
	}
	w.WriteHeader(http.StatusOK)
}

// claim gives the task to user (ClaimTaskCmd); a nil or empty user releases
// it. Like the engine, it reads the task, decides, and writes the change
// only if the task's revision is still the one it read: a claim that read
// the task before a concurrent claim wrote it fails on that optimistic
// lock, which the engine answers 500 (FlowableOptimisticLockingException
// is no exception its REST layer maps). A task held by someone else is the
// engine's 409; claiming it again as its holder changes nothing.
func (e *engine) claim(r *http.Request, id int64, user *string, now int64) error {
	var t taskRow
	err := e.inTx(r.Context(), func(tx *sql.Tx) error {
		var err error
		t, err = openTask(tx, id)
		return err
	})
	if err != nil {
		return err
	}
	if e.opts.AfterClaimRead != nil {
		e.opts.AfterClaimRead(strconv.FormatInt(id, 10))
	}
	var update string
	var args []any
	switch {
	case user == nil || *user == "":
		if !t.assignee.Valid {
			return nil
		}
		update = `UPDATE wf_tasks SET assignee = NULL, claim_time = NULL, rev = rev + 1 WHERE id = ? AND rev = ?`
	case t.assignee.Valid && t.assignee.String == *user:
		return nil
	case t.assignee.Valid:
		return &engineError{status: http.StatusConflict,
			exception: fmt.Sprintf("Task '%d' is already claimed by someone else.", t.id)}
	default:
		update = `UPDATE wf_tasks SET assignee = ?, claim_time = ?, rev = rev + 1 WHERE id = ? AND rev = ?`
		args = []any{*user, now}
	}
	return e.inTx(r.Context(), func(tx *sql.Tx) error {
		res, err := tx.Exec(update, append(args, t.id, t.rev)...)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n != 1 {
			return internal("FlowableOptimisticLockingException: Task[id=%d] was updated by another transaction concurrently", t.id)
		}
		return nil
	})
}

// delegateTask hands t to user (DelegateTaskCmd): the delegation is
// pending, the current assignee becomes the owner when there is none.
func delegateTask(tx *sql.Tx, t taskRow, user *string) error {
	if user == nil {
		return badRequest("An assignee is required when delegating a task.")
	}
	owner := t.owner
	if !owner.Valid {
		owner = t.assignee
	}
	_, err := tx.Exec(`UPDATE wf_tasks SET delegation_state = 'pending', owner = ?, assignee = ?, rev = rev + 1 WHERE id = ?`,
		owner, *user, t.id)
	return err
}

// resolveTask ends a delegation: the task goes back to its owner.
func resolveTask(tx *sql.Tx, t taskRow) error {
	_, err := tx.Exec(`UPDATE wf_tasks SET delegation_state = 'resolved', assignee = owner, rev = rev + 1 WHERE id = ?`, t.id)
	return err
}

// completeTask ends t, stores the variables on its instance and follows the
// loan process: a SaveForLater task for the same holder, or the end.
func completeTask(tx *sql.Tx, conv restvar.Converters, t taskRow, vars []variableJSON, now int64) error {
	if err := setVariables(tx, conv, t.instanceID, vars); err != nil {
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
	if _, err := tx.Exec(`UPDATE wf_tasks SET end_time = ?, rev = rev + 1 WHERE id = ?`, now, t.id); err != nil {
		return fmt.Errorf("workflow: completing task: %w", err)
	}
	if end {
		_, err := tx.Exec(`UPDATE wf_instances SET end_time = ?, activity_id = NULL WHERE id = ?`, now, t.instanceID)
		return err
	}
	_, err = createTask(tx, t.instanceID, t.executionID, t.definitionID, next, t.assignee.String, now)
	return err
}
