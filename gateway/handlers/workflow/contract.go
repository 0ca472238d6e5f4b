package workflow

import (
	"net/http"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/restgate/gateway/gateway/config"
	"github.com/restgate/gateway/gateway/contract"
	"github.com/restgate/gateway/gateway/routes"
	engine "github.com/restgate/gateway/upstreams/workflow"
	"github.com/restgate/gateway/upstreams/workflow/restvar"
)

// maxStart is the largest start: the engine's start is a Java int.
const maxStart = 1<<31 - 1

// Contract declares the operation of each workflow action: the query
// parameters with the engine's names they are sent as, the bodies and the
// answers (engine records, their links rewritten).
func Contract(rt *routes.Route, _ string) contract.Operation {
	paging := []contract.Param{
		{Name: "start", Type: contract.Integer, Min: 0, Max: maxStart, Default: "0", Backend: "start",
			Description: "the position of the first item, from 0"},
		{Name: "size", Type: contract.Integer, Min: 1, Max: engine.MaxSize, Default: "10", Backend: "size",
			Description: "the page size"},
	}
	text := func(name, backend, description string, maxLen int) contract.Param {
		return contract.Param{Name: name, MaxLength: maxLen, Backend: backend, Description: description}
	}
	taskID := []contract.Param{{Name: paramTaskID, Required: true, MaxLength: 255, Description: "the task's id"}}
	switch rt.Spec.Action {
	case config.ActionUser:
		return contract.Operation{ID: "getUser", Upstream: true, Errors: []int{http.StatusNotFound}, Result: contract.Fixed(user()),
			Description: "Answers the engine's user of that login; an unknown user is 404.",
			Path:        []contract.Param{{Name: paramUsername, Required: true, MaxLength: 255, Description: "the user's login"}}}
	case config.ActionProcessDefinitions:
		return contract.Operation{ID: "listProcessDefinitions", Upstream: true, Paged: true,
			Description: "Lists the deployed process definitions, the latest version of each unless latest=false, " +
				"one page (start, size) with page.",
			Result: contract.Fixed(openapi3.NewArraySchema().WithItems(definition())),
			Query: append([]contract.Param{
				{Name: "latest", Type: contract.Boolean, Default: "true", Backend: "latest=true when true; nothing when false",
					Description: "only the latest version of each definition"},
				text("key", "key", "the definition key", 255),
			}, paging...)}
	case config.ActionStartProcess:
		return contract.Operation{ID: "startProcess", Upstream: true, Status: http.StatusCreated,
			Description: "Starts a process instance of a definition, by id or key, with a business key and " +
				"variables, and answers the instance. A variable without a type is given one from its value; " +
				"a decimal that a double would change (1.10) is sent as a bigDecimal. An unknown definition is 400.",
			Result: contract.Fixed(instance()),
			Body: &contract.Body{Required: true, Shape: contract.Fixed(startBody()),
				Description: "exactly one of processDefinitionId and processDefinitionKey (the latest version)"}}
	case config.ActionTasks:
		return contract.Operation{ID: "listTasks", Upstream: true, Paged: true,
			Description: "Lists open tasks (the engine's runtime tasks) or closed ones (its history), filtered, " +
				"one page (start, size) with page; each with its process variables when includeProcessVariables=true.",
			Result: contract.Fixed(openapi3.NewArraySchema().WithItems(task())),
			Query: append([]contract.Param{
				{Name: "status", Enum: []string{"open", "closed"}, Default: "open",
					Backend:     "GET /runtime/tasks (open), GET /history/historic-task-instances?finished=true (closed)",
					Description: "open or closed tasks"},
				text("candidate", "candidateUser (open), taskInvolvedUser (closed)", "tasks the user may claim (open), or was involved in (closed)", 255),
				text("candidateGroup", "candidateGroup (open), taskCandidateGroup (closed)", "tasks offered to the group", 255),
				text("assignee", "assignee (open), taskAssignee (closed)", "tasks the user holds", 255),
				{Name: "unassigned", Type: contract.Boolean, Backend: "unassigned=true when true (open only)",
					Description: "only tasks nobody holds; refused with status=closed"},
				text("taskDefinitionKey", "taskDefinitionKey", "the model's task key", 255),
				text("description", "description (open), taskDescription (closed)", "the exact task description", 4000),
				text("processInstanceId", "processInstanceId", "the task's process instance", 64),
				text("processInstanceBusinessKey", "processInstanceBusinessKey (open), processBusinessKey (closed)",
					"the business key of the task's process instance", 255),
				{Name: "includeProcessVariables", Type: contract.Boolean, Backend: "includeProcessVariables=true when true",
					Description: "each task with its process variables"},
				{Name: "order", Enum: []string{"asc", "desc"}, Backend: "sort=createTime (open) or startTime (closed), order",
					Description: "by creation time; without it, by id"},
			}, paging...)}
	case config.ActionTask:
		return contract.Operation{ID: "getTask", Upstream: true, Path: taskID, Errors: []int{http.StatusNotFound},
			Description: "Answers one open task; an unknown (or closed) task is 404.",
			Result:      contract.Fixed(task())}
	case config.ActionAssign:
		return contract.Operation{ID: "assignTask", Upstream: true, Path: taskID, Errors: []int{http.StatusNotFound},
			Description: "Sets the task's assignee and owner (a member absent is kept, null clears it) and answers the task.",
			Result:      contract.Fixed(task()),
			Body: &contract.Body{Required: true, Description: "a member absent is kept; null clears it",
				Shape: contract.Fixed(contract.Named("Assignment", contract.Closed(map[string]*openapi3.Schema{
					"assignee": contract.Nullable(contract.Str("the user holding the task")),
					"owner":    contract.Nullable(contract.Str("the task's owner")),
				})))}}
	case config.ActionClaim:
		return contract.Operation{ID: "claimTask", Upstream: true, Path: taskID, Result: contract.Empty,
			Errors: []int{http.StatusNotFound, http.StatusConflict},
			Description: "Claims the task for the assignee, or for the caller; claiming again for its holder " +
				"changes nothing, a task another user holds is 409. Answers \"\".",
			Body: &contract.Body{Description: "optional; without an assignee the caller claims",
				Shape: contract.Fixed(contract.Named("Claim", contract.Closed(map[string]*openapi3.Schema{
					"assignee": contract.Nullable(contract.Str("the user to claim for; the caller when absent or null")),
				})))}}
	case config.ActionUnclaim:
		return contract.Operation{ID: "unclaimTask", Upstream: true, Path: taskID, Result: contract.Empty,
			Errors:      []int{http.StatusNotFound},
			Description: "Releases the task: nobody holds it afterwards. Answers \"\"."}
	case config.ActionDelegate:
		return contract.Operation{ID: "delegateTask", Upstream: true, Path: taskID, Result: contract.Empty,
			Errors:      []int{http.StatusNotFound},
			Description: "Delegates the task to the assignee; its holder becomes its owner. Answers \"\".",
			Body: &contract.Body{Required: true, Shape: contract.Fixed(contract.Named("Delegation", contract.Closed(map[string]*openapi3.Schema{
				"assignee": contract.Str("the user to delegate the task to"),
			}, "assignee")))}}
	case config.ActionComplete:
		return contract.Operation{ID: "completeTask", Upstream: true, Path: taskID, Result: contract.Empty,
			Errors:      []int{http.StatusNotFound},
			Description: "Completes the task with a disposition (sent as the variable disposition) and further variables. Answers \"\".",
			Body: &contract.Body{Required: true, Shape: contract.Fixed(contract.Named("Completion", contract.Closed(map[string]*openapi3.Schema{
				"disposition": openapi3.NewStringSchema().WithEnum("complete", "incomplete", "saveforlater"),
				"variables":   openapi3.NewArraySchema().WithItems(variable()),
			}, "disposition")))}}
	}
	return contract.Operation{}
}

// variable is a process variable as sent (upstreams/workflow.Variable).
func variable() *openapi3.Schema {
	typ := openapi3.NewStringSchema().WithEnum(variableTypes()...)
	typ.Description = "the engine's type, one its version converts (engines before Flowable 7.2 lack some: " +
		"a type the engine lacks is refused with 400); without it the gateway gives one from the value and the engine's version"
	return contract.Named("VariableInput", contract.Closed(map[string]*openapi3.Schema{
		"name": openapi3.NewStringSchema().WithMinLength(1),
		"type": typ,
		"value": {Description: "any JSON value the type takes; a bigDecimal or bigInteger as a JSON number or, " +
			"to keep every digit whatever the client's JSON library does, a string of its digits (\"1.10\")"},
	}, "name", "value"))
}

func variableTypes() []any {
	types := make([]any, 0, len(restvar.Types()))
	for _, t := range restvar.Types() {
		types = append(types, t)
	}
	return types
}

// storedVariable is a process variable as the engine answers it: the value
// of a bigDecimal or a bigInteger is a string of its exact digits (the
// engine's converter writes the Java value's text), which the schema says
// with a condition on type.
func storedVariable() *openapi3.Schema {
	valueIs := func(typ string, value *openapi3.Schema) *openapi3.SchemaRef {
		when := openapi3.NewObjectSchema()
		when.Properties = openapi3.Schemas{"type": {Value: &openapi3.Schema{Const: typ}}}
		when.Required = []string{"type"}
		then := openapi3.NewObjectSchema()
		then.Properties = openapi3.Schemas{"value": {Value: contract.Nullable(value)}}
		return &openapi3.SchemaRef{Value: &openapi3.Schema{If: &openapi3.SchemaRef{Value: when}, Then: &openapi3.SchemaRef{Value: then}}}
	}
	bigInt := openapi3.NewStringSchema().WithPattern(restvar.IntegerPattern)
	bigInt.Description = "an integer as a string of its digits"
	s := contract.Obj(map[string]*openapi3.Schema{
		"name":     openapi3.NewStringSchema(),
		"type":     contract.Nullable(openapi3.NewStringSchema()),
		"value":    {Description: "the value as the type holds it: a bigDecimal is a string of its exact digits (format decimal), a bigInteger a string of its digits, a date an ISO 8601 text"},
		"valueUrl": contract.Str("where the engine serves a binary or serializable value"),
		"scope":    contract.Str("local or global"),
	}, "name")
	s.AllOf = openapi3.SchemaRefs{valueIs(restvar.BigDecimal, decimal()), valueIs(restvar.BigInteger, bigInt)}
	s.Description = "A process variable as the engine answers it."
	return contract.Named("Variable", s)
}

func startBody() *openapi3.Schema {
	return contract.Named("StartProcess", contract.Closed(map[string]*openapi3.Schema{
		"processDefinitionId":  contract.Str("the definition's id"),
		"processDefinitionKey": contract.Str("the definition's key: its latest version starts"),
		"businessKey":          contract.Str("the instance's business key"),
		"variables":            openapi3.NewArraySchema().WithItems(variable()),
	}))
}

// engineRecord is an engine record named name: its id and the members
// listed, open to the others the engine sends.
func engineRecord(name string, members map[string]*openapi3.Schema) *openapi3.Schema {
	props := map[string]*openapi3.Schema{"id": openapi3.NewStringSchema()}
	for k, v := range members {
		props[k] = contract.Nullable(v)
	}
	return contract.Named(name, contract.Obj(props, "id"))
}

func task() *openapi3.Schema {
	s := engineRecord("Task", map[string]*openapi3.Schema{
		"name": openapi3.NewStringSchema(), "description": openapi3.NewStringSchema(),
		"assignee": openapi3.NewStringSchema(), "owner": openapi3.NewStringSchema(),
		"taskDefinitionKey": openapi3.NewStringSchema(), "processInstanceId": openapi3.NewStringSchema(),
		"url":       contract.Str("the gateway path of the task (open tasks only)"),
		"variables": openapi3.NewArraySchema().WithItems(storedVariable()),
	})
	s.Description = "A task as the engine answers it, its engine links removed."
	return s
}

func definition() *openapi3.Schema {
	return contract.Described(engineRecord("ProcessDefinition", map[string]*openapi3.Schema{
		"key": openapi3.NewStringSchema(), "name": openapi3.NewStringSchema(),
		"version": contract.Int32(), "suspended": openapi3.NewBoolSchema(),
	}), "A process definition as the engine answers it.")
}

func instance() *openapi3.Schema {
	return contract.Described(engineRecord("ProcessInstance", map[string]*openapi3.Schema{
		"businessKey": openapi3.NewStringSchema(), "processDefinitionId": openapi3.NewStringSchema(),
		"ended": openapi3.NewBoolSchema(), "suspended": openapi3.NewBoolSchema(),
		"variables": openapi3.NewArraySchema().WithItems(storedVariable()),
	}), "A process instance as the engine answers it.")
}

func user() *openapi3.Schema {
	return contract.Described(engineRecord("User", map[string]*openapi3.Schema{
		"firstName": openapi3.NewStringSchema(), "lastName": openapi3.NewStringSchema(),
		"email": openapi3.NewStringSchema(), "url": contract.Str("the gateway path of this user"),
	}), "A user of the workflow engine.")
}

// decimal is a decimal number sent as a JSON string of its exact digits
// ("1.10"), format decimal (the OpenAPI format registry's): what the engine
// answers for a bigDecimal, which a binary double would change.
func decimal() *openapi3.Schema {
	s := openapi3.NewStringSchema().WithFormat("decimal").WithPattern(restvar.DecimalPattern)
	s.Description = "a decimal number as a string of its exact digits (\"1.10\"); read it with a decimal type " +
		"(Go's math/big, Java's BigDecimal, a JavaScript decimal library), not a binary float"
	return s
}
