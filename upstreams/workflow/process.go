package workflow

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"

	"github.com/restgate/gateway/upstreams"
)

// StartRequest starts one process instance. Exactly one of
// ProcessDefinitionID and ProcessDefinitionKey is required; a key starts
// the latest version of that definition.
type StartRequest struct {
	ProcessDefinitionID  string     `json:"processDefinitionId,omitempty"`
	ProcessDefinitionKey string     `json:"processDefinitionKey,omitempty"`
	BusinessKey          string     `json:"businessKey,omitempty"`
	Variables            []Variable `json:"variables,omitempty"`
}

// User returns the engine's user record (GET /identity/users/{id}). An
// unknown user is a 404 *upstreams.Error, and so is an answer whose id is
// null or absent, which some engines send for an unknown user.
func (c *Client) User(ctx context.Context, username string) ([]byte, error) {
	if err := checkID("username", username); err != nil {
		return nil, err
	}
	body, err := c.object(ctx, http.MethodGet, "/identity/users/"+url.PathEscape(username), nil)
	if err != nil {
		return nil, err
	}
	var user struct {
		ID *string `json:"id"`
	}
	if err := json.Unmarshal(body, &user); err != nil {
		return nil, invalid(fmt.Errorf("GET user: %w", err))
	}
	if user.ID == nil || *user.ID == "" {
		return nil, upstreams.NewStatusError(Upstream, http.StatusNotFound, "", fmt.Sprintf("Could not find a user with id '%s'.", username))
	}
	return body, nil
}

// ProcessDefinitions lists one page of process definitions
// (GET /repository/process-definitions). q is validated first (a
// *ParamError).
func (c *Client) ProcessDefinitions(ctx context.Context, q DefinitionQuery) (List, error) {
	if err := q.validate(); err != nil {
		return List{}, err
	}
	return c.getList(ctx, "/repository/process-definitions", q.values())
}

// StartProcess starts an instance (POST /runtime/process-instances) and
// returns the engine's instance record. Every variable is sent with its
// type, as the engine's version converts it (see Client and Variable). An
// unknown definition is a 400 *upstreams.Error, as the engine answers it.
func (c *Client) StartProcess(ctx context.Context, r StartRequest) ([]byte, error) {
	switch {
	case r.ProcessDefinitionID == "" && r.ProcessDefinitionKey == "":
		return nil, &ParamError{Param: "processDefinitionId", Reason: "processDefinitionId or processDefinitionKey is required"}
	case r.ProcessDefinitionID != "" && r.ProcessDefinitionKey != "":
		return nil, &ParamError{Param: "processDefinitionKey", Value: r.ProcessDefinitionKey, Reason: "give processDefinitionId or processDefinitionKey, not both"}
	}
	var out []byte
	err := c.sendTyped(ctx, r.Variables, func(vars []Variable) (err error) {
		r.Variables = vars
		out, err = c.object(ctx, http.MethodPost, "/runtime/process-instances", r)
		return err
	})
	return out, err
}
