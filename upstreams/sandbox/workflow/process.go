package workflow

import (
	"database/sql"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

type userJSON struct {
	ID          string  `json:"id"`
	FirstName   *string `json:"firstName"`
	LastName    *string `json:"lastName"`
	DisplayName string  `json:"displayName"`
	URL         string  `json:"url"`
	Email       *string `json:"email"`
	TenantID    *string `json:"tenantId"`
	PictureURL  *string `json:"pictureUrl"`
}

func (e *engine) getUser(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	var first, last, email sql.NullString
	err := e.db.QueryRowContext(r.Context(), `SELECT first_name, last_name, email FROM wf_users WHERE id = ?`, id).
		Scan(&first, &last, &email)
	if errors.Is(err, sql.ErrNoRows) {
		err = notFound("Could not find a user with id '%s'.", id)
	}
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, userJSON{
		ID: id, FirstName: nullString(first), LastName: nullString(last),
		DisplayName: strings.TrimSpace(first.String + " " + last.String),
		URL:         rootURL(r) + "/identity/users/" + url.PathEscape(id), Email: nullString(email),
	})
}

type definitionJSON struct {
	ID                       string  `json:"id"`
	URL                      string  `json:"url"`
	Key                      string  `json:"key"`
	Version                  int     `json:"version"`
	Name                     *string `json:"name"`
	Description              *string `json:"description"`
	TenantID                 string  `json:"tenantId"`
	DeploymentID             string  `json:"deploymentId"`
	DeploymentURL            string  `json:"deploymentUrl"`
	Resource                 string  `json:"resource"`
	DiagramResource          *string `json:"diagramResource"`
	Category                 *string `json:"category"`
	GraphicalNotationDefined bool    `json:"graphicalNotationDefined"`
	Suspended                bool    `json:"suspended"`
	StartFormDefined         bool    `json:"startFormDefined"`
}

func definitionSorts() map[string]string {
	return map[string]string{"id": "id", "key": "key", "name": "name", "version": "version",
		"deploymentId": "deployment_id", "category": "category", "tenantId": "''"}
}

func (e *engine) listDefinitions(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	p, err := parsePage(q, "name", definitionSorts())
	if err != nil {
		writeError(w, err)
		return
	}
	where, args := " WHERE 1=1", []any{}
	for param, column := range map[string]string{"key": "key", "name": "name", "category": "category", "deploymentId": "deployment_id"} {
		if v := q.Get(param); v != "" {
			where += " AND " + column + " = ?"
			args = append(args, v)
		}
	}
	if q.Get("latest") == "true" {
		where += " AND version = (SELECT MAX(version) FROM wf_definitions d2 WHERE d2.key = wf_definitions.key)"
	}
	list := listJSON{Data: []definitionJSON{}, Start: p.start, Sort: p.sort, Order: p.order}
	root := rootURL(r)
	err = e.inTx(r.Context(), func(tx *sql.Tx) error {
		if err := tx.QueryRow(`SELECT COUNT(*) FROM wf_definitions`+where, args...).Scan(&list.Total); err != nil {
			return err
		}
		rows, err := tx.Query(`SELECT id, key, version, name, description, deployment_id, category FROM wf_definitions`+
			where+p.orderBy("id"), args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		var defs []definitionJSON
		for rows.Next() {
			var d definitionJSON
			var name, desc, category sql.NullString
			if err := rows.Scan(&d.ID, &d.Key, &d.Version, &name, &desc, &d.DeploymentID, &category); err != nil {
				return err
			}
			d.Name, d.Description, d.Category = nullString(name), nullString(desc), nullString(category)
			d.URL = root + "/repository/process-definitions/" + url.PathEscape(d.ID)
			d.DeploymentURL = root + "/repository/deployments/" + d.DeploymentID
			d.Resource = d.DeploymentURL + "/resources/" + d.Key + ".bpmn20.xml"
			defs = append(defs, d)
		}
		if defs != nil {
			list.Data, list.Size = defs, len(defs)
		}
		return rows.Err()
	})
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, list)
}

type instanceJSON struct {
	ID                    string  `json:"id"`
	URL                   string  `json:"url"`
	Name                  *string `json:"name"`
	BusinessKey           *string `json:"businessKey"`
	Suspended             bool    `json:"suspended"`
	Ended                 bool    `json:"ended"`
	ProcessDefinitionID   string  `json:"processDefinitionId"`
	ProcessDefinitionURL  string  `json:"processDefinitionUrl"`
	ProcessDefinitionName *string `json:"processDefinitionName"`
	ActivityID            *string `json:"activityId"`
	StartTime             string  `json:"startTime"`
	StartUserID           *string `json:"startUserId"`
	Variables             []any   `json:"variables"`
	TenantID              string  `json:"tenantId"`
	Completed             bool    `json:"completed"`
}

func (e *engine) startInstance(w http.ResponseWriter, r *http.Request) {
	var req struct {
		ProcessDefinitionID  string         `json:"processDefinitionId"`
		ProcessDefinitionKey string         `json:"processDefinitionKey"`
		Message              string         `json:"message"`
		BusinessKey          *string        `json:"businessKey"`
		Variables            []variableJSON `json:"variables"`
	}
	if err := decodeBody(w, r, &req); err != nil {
		writeError(w, badRequest("Could not read the request body: %v", err))
		return
	}
	set := 0
	for _, v := range []string{req.ProcessDefinitionID, req.ProcessDefinitionKey, req.Message} {
		if v != "" {
			set++
		}
	}
	switch {
	case set == 0:
		writeError(w, badRequest("Either processDefinitionId, processDefinitionKey or message is required."))
		return
	case set > 1:
		writeError(w, badRequest("Only one of processDefinitionId, processDefinitionKey or message should be set."))
		return
	case req.Message != "":
		writeError(w, badRequest("Cannot start process instance by message: no message start event is deployed for '%s'", req.Message))
		return
	}
	now := e.now().UnixMilli()
	var startUser *string
	if u, _, ok := r.BasicAuth(); ok && u != "" {
		startUser = &u
	}
	out := instanceJSON{Variables: []any{}, BusinessKey: req.BusinessKey, StartTime: formatMillis(now), StartUserID: startUser}
	err := e.inTx(r.Context(), func(tx *sql.Tx) error {
		var name sql.NullString
		var startTask string
		query, arg := `SELECT id, name, start_task FROM wf_definitions WHERE id = ?`, req.ProcessDefinitionID
		missing := notFound("no deployed process definition found with id '%s'", req.ProcessDefinitionID)
		if req.ProcessDefinitionKey != "" {
			query = `SELECT id, name, start_task FROM wf_definitions WHERE key = ? ORDER BY version DESC LIMIT 1`
			arg, missing = req.ProcessDefinitionKey, notFound("no processes deployed with key '%s'", req.ProcessDefinitionKey)
		}
		err := tx.QueryRow(query, arg).Scan(&out.ProcessDefinitionID, &name, &startTask)
		if errors.Is(err, sql.ErrNoRows) {
			// The engine answers an unknown definition on start with 400.
			return &engineError{status: http.StatusBadRequest, exception: missing.Error()}
		}
		if err != nil {
			return err
		}
		out.ProcessDefinitionName = nullString(name)
		instanceID, err := nextID(tx)
		if err != nil {
			return err
		}
		executionID, err := nextID(tx)
		if err != nil {
			return err
		}
		if _, err := tx.Exec(`INSERT INTO wf_instances (id, definition_id, business_key, execution_id, start_user, start_time)
			VALUES (?, ?, ?, ?, ?, ?)`, instanceID, out.ProcessDefinitionID, req.BusinessKey, executionID, startUser, now); err != nil {
			return fmt.Errorf("workflow: creating instance: %w", err)
		}
		if err := setVariables(tx, e.conv, instanceID, req.Variables); err != nil {
			return err
		}
		if _, err := createTask(tx, instanceID, executionID, out.ProcessDefinitionID, startTask, "", now); err != nil {
			return err
		}
		out.ID = fmt.Sprint(instanceID)
		out.ActivityID = &startTask
		return nil
	})
	if err != nil {
		writeError(w, err)
		return
	}
	root := rootURL(r)
	out.URL = root + "/runtime/process-instances/" + out.ID
	out.ProcessDefinitionURL = root + "/repository/process-definitions/" + url.PathEscape(out.ProcessDefinitionID)
	writeJSON(w, http.StatusCreated, out)
}
