package workflow

import (
	"context"
	"database/sql"
	"fmt"
)

// schema creates the engine's tables. Times are Unix milliseconds;
// a task with an end_time is finished and only in the history, which is
// how the engine's runtime and history tables relate.
func schema() []string {
	return []string{
		`CREATE TABLE IF NOT EXISTS wf_seq (name TEXT PRIMARY KEY, next INTEGER NOT NULL)`,
		`CREATE TABLE IF NOT EXISTS wf_users (id TEXT PRIMARY KEY, first_name TEXT, last_name TEXT, email TEXT)`,
		`CREATE TABLE IF NOT EXISTS wf_definitions (id TEXT PRIMARY KEY, key TEXT NOT NULL, name TEXT,
			version INTEGER NOT NULL, deployment_id TEXT NOT NULL, category TEXT, description TEXT, start_task TEXT NOT NULL)`,
		`CREATE TABLE IF NOT EXISTS wf_instances (id INTEGER PRIMARY KEY, definition_id TEXT NOT NULL,
			business_key TEXT, execution_id INTEGER NOT NULL, start_user TEXT, start_time INTEGER NOT NULL,
			end_time INTEGER, activity_id TEXT)`,
		`CREATE TABLE IF NOT EXISTS wf_variables (instance_id INTEGER NOT NULL, name TEXT NOT NULL,
			value TEXT NOT NULL, type TEXT, PRIMARY KEY (instance_id, name))`,
		`CREATE TABLE IF NOT EXISTS wf_tasks (id INTEGER PRIMARY KEY, instance_id INTEGER NOT NULL,
			execution_id INTEGER NOT NULL, definition_id TEXT NOT NULL, task_key TEXT NOT NULL, name TEXT NOT NULL,
			description TEXT, owner TEXT, assignee TEXT, priority INTEGER NOT NULL,
			create_time INTEGER NOT NULL, claim_time INTEGER, end_time INTEGER,
			rev INTEGER NOT NULL DEFAULT 1, delegation_state TEXT)`,
		`CREATE INDEX IF NOT EXISTS wf_tasks_open ON wf_tasks (end_time, task_key)`,
		`CREATE TABLE IF NOT EXISTS wf_candidates (task_id INTEGER NOT NULL, user_id TEXT, group_id TEXT)`,
		`CREATE INDEX IF NOT EXISTS wf_candidates_task ON wf_candidates (task_id)`,
		`CREATE TABLE IF NOT EXISTS wf_memberships (user_id TEXT NOT NULL, group_id TEXT NOT NULL,
			PRIMARY KEY (user_id, group_id))`,
	}
}

// addedColumns are the columns added to tables after their first version,
// added to a sandbox file made before them: a variable's type (older rows
// have none and are read as the engine would have typed their JSON), a
// task's revision (the engine's optimistic lock) and its delegation state.
func addedColumns() []struct{ table, column, decl string } {
	return []struct{ table, column, decl string }{
		{"wf_variables", "type", "TEXT"},
		{"wf_tasks", "rev", "INTEGER NOT NULL DEFAULT 1"},
		{"wf_tasks", "delegation_state", "TEXT"},
	}
}

// seed is the demo data: the loan process in two versions (the first
// deployment is id 1 and its definition id 4, as in the engine's examples;
// the second is the same model deployed again), the users who work on it
// and their groups. The shared sequence starts at 5.
func seed() []string {
	return []string{
		`INSERT OR IGNORE INTO wf_seq (name, next) VALUES ('id', 5)`,
		`INSERT OR IGNORE INTO wf_definitions (id, key, name, version, deployment_id, category, description, start_task)
			VALUES ('loanProcess:1:4', 'loanProcess', 'Loan Process', 1, '1', 'http://www.flowable.org/processdef',
			'Review and decide a loan application', 'UnassignedLoan')`,
		`INSERT OR IGNORE INTO wf_definitions (id, key, name, version, deployment_id, category, description, start_task)
			VALUES ('loanProcess:2:3', 'loanProcess', 'Loan Process', 2, '2', 'http://www.flowable.org/processdef',
			'Review and decide a loan application', 'UnassignedLoan')`,
		`INSERT OR IGNORE INTO wf_users (id, first_name, last_name, email) VALUES
			('admin', 'Admin', 'Istrator', 'admin@example.com'),
			('kermit', 'Kermit', 'the Frog', 'kermit@example.com'),
			('gonzo', 'Gonzo', 'the Great', 'gonzo@example.com'),
			('fozzie', 'Fozzie', 'Bear', 'fozzie@example.com'),
			('piggy', 'Miss', 'Piggy', 'piggy@example.com')`,
		`INSERT OR IGNORE INTO wf_memberships (user_id, group_id) VALUES
			('admin', 'admin'), ('kermit', 'admin'), ('kermit', 'management'), ('piggy', 'management')`,
	}
}

func ensureSchema(ctx context.Context, db *sql.DB) error {
	for _, stmt := range schema() {
		if _, err := db.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("workflow: preparing tables: %w", err)
		}
	}
	for _, c := range addedColumns() {
		if err := addColumn(ctx, db, c.table, c.column, c.decl); err != nil {
			return err
		}
	}
	for _, stmt := range seed() {
		if _, err := db.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("workflow: seeding: %w", err)
		}
	}
	return nil
}

// addColumn adds column to table unless the table has it.
func addColumn(ctx context.Context, db *sql.DB, table, column, decl string) error {
	var n int
	err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM pragma_table_info(?) WHERE name = ?`, table, column).Scan(&n)
	if err != nil {
		return fmt.Errorf("workflow: reading %s's columns: %w", table, err)
	}
	if n > 0 {
		return nil
	}
	if _, err := db.ExecContext(ctx, `ALTER TABLE `+table+` ADD COLUMN `+column+` `+decl); err != nil {
		return fmt.Errorf("workflow: adding %s.%s: %w", table, column, err)
	}
	return nil
}

// loanStep is one user task of the loan process.
type loanStep struct {
	name, description string
	candidateUsers    []string
	candidateGroups   []string
}

// loanSteps returns the loan process's user tasks by task definition key.
func loanSteps() map[string]loanStep {
	candidates := []string{"kermit", "gonzo", "fozzie"}
	groups := []string{"management"}
	return map[string]loanStep{
		"UnassignedLoan": {name: "Unassigned Loan", description: "A loan application waiting for a loan officer",
			candidateUsers: candidates, candidateGroups: groups},
		"SaveForLater": {name: "Save For Later", description: "A loan application put aside to finish later",
			candidateUsers: candidates, candidateGroups: groups},
	}
}

// nextLoanStep is the gateway after each loan task: saveforlater leads to
// a SaveForLater task, complete and incomplete end the instance. Any other
// disposition is refused, where the real engine would fail on a gateway
// with no matching flow.
func nextLoanStep(taskKey, disposition string) (next string, end bool, err error) {
	switch disposition {
	case "saveforlater":
		return "SaveForLater", false, nil
	case "complete", "incomplete":
		return "", true, nil
	}
	return "", false, badRequest("No outgoing sequence flow of the exclusive gateway after '%s' could be selected: "+
		"variable 'disposition' must be complete, incomplete or saveforlater, got '%s'", taskKey, disposition)
}

// createTask creates the task of step key in an instance; holder, when
// not empty, is its assignee from the start.
func createTask(tx *sql.Tx, instanceID, executionID int64, definitionID, key, holder string, now int64) (int64, error) {
	step, ok := loanSteps()[key]
	if !ok {
		return 0, fmt.Errorf("workflow: no task %q in the model", key)
	}
	id, err := nextID(tx)
	if err != nil {
		return 0, err
	}
	var assignee, claimed any
	if holder != "" {
		assignee, claimed = holder, now
	}
	_, err = tx.Exec(`INSERT INTO wf_tasks (id, instance_id, execution_id, definition_id, task_key, name, description,
		owner, assignee, priority, create_time, claim_time) VALUES (?, ?, ?, ?, ?, ?, ?, NULL, ?, 50, ?, ?)`,
		id, instanceID, executionID, definitionID, key, step.name, step.description, assignee, now, claimed)
	if err != nil {
		return 0, fmt.Errorf("workflow: creating task: %w", err)
	}
	for _, u := range step.candidateUsers {
		if _, err := tx.Exec(`INSERT INTO wf_candidates (task_id, user_id) VALUES (?, ?)`, id, u); err != nil {
			return 0, fmt.Errorf("workflow: adding candidate: %w", err)
		}
	}
	for _, g := range step.candidateGroups {
		if _, err := tx.Exec(`INSERT INTO wf_candidates (task_id, group_id) VALUES (?, ?)`, id, g); err != nil {
			return 0, fmt.Errorf("workflow: adding candidate group: %w", err)
		}
	}
	if _, err := tx.Exec(`UPDATE wf_instances SET activity_id = ? WHERE id = ?`, key, instanceID); err != nil {
		return 0, fmt.Errorf("workflow: moving instance: %w", err)
	}
	return id, nil
}
