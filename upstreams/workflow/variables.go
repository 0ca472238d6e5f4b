package workflow

import (
	"encoding/json"
	"strconv"

	"github.com/restgate/gateway/upstreams/workflow/restvar"
)

// Variable is one process variable as the engine takes it (a RestVariable):
// its name, its type (one of restvar.Types; "" to have the gateway infer
// it, see restvar.Infer) and its JSON value, kept as the caller wrote it so
// that a number keeps its digits.
type Variable struct {
	Name  string          `json:"name"`
	Type  string          `json:"type,omitempty"`
	Value json.RawMessage `json:"value"`
}

// typed returns vars as they are sent: every variable with a type (a given
// one checked, a missing one inferred) and its value as restvar returns it.
// A variable without a name, of an unknown type or with a value its type
// does not take is a *ParamError naming the variable.
func typed(vars []Variable) ([]Variable, error) {
	out := make([]Variable, 0, len(vars))
	for _, v := range vars {
		if v.Name == "" {
			return nil, &ParamError{Param: "variables", Reason: "every variable needs a name"}
		}
		t := Variable{Name: v.Name}
		if v.Type == "" {
			t.Type, t.Value = restvar.Infer(v.Value)
		} else {
			value, err := restvar.Check(v.Type, v.Value)
			if err != nil {
				return nil, &ParamError{Param: "variable " + strconv.Quote(v.Name), Value: string(v.Value), Reason: err.Error()}
			}
			t.Type, t.Value = v.Type, value
		}
		out = append(out, t)
	}
	return out, nil
}
