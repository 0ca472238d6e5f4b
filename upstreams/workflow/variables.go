package workflow

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strconv"

	"github.com/restgate/gateway/upstreams/workflow/restvar"
)

// Variable is one process variable as the engine takes it (a RestVariable):
// its name, its type (one of restvar.Types; "" to have the gateway infer
// it, see restvar.Converters.Infer) and its JSON value, kept as the caller
// wrote it so that a number keeps its digits.
type Variable struct {
	Name  string          `json:"name"`
	Type  string          `json:"type,omitempty"`
	Value json.RawMessage `json:"value"`
}

// typed returns vars as they are sent to an engine with conv: every
// variable with a type (a given one checked, a missing one inferred) and
// its value as restvar returns it. A variable without a name, of a type
// the engine does not convert or with a value its type does not take is a
// *ParamError naming the variable (and, for a type, the engine's version).
func typed(conv restvar.Converters, vars []Variable) ([]Variable, error) {
	out := make([]Variable, 0, len(vars))
	for _, v := range vars {
		if v.Name == "" {
			return nil, &ParamError{Param: "variables", Reason: "every variable needs a name"}
		}
		t := Variable{Name: v.Name}
		var err error
		if v.Type == "" {
			t.Type, t.Value, err = conv.Infer(v.Value)
		} else {
			t.Type = v.Type
			t.Value, err = conv.Check(v.Type, v.Value)
		}
		if err != nil {
			return nil, &ParamError{Param: "variable " + strconv.Quote(v.Name), Value: string(v.Value), Reason: err.Error()}
		}
		out = append(out, t)
	}
	return out, nil
}

// sendTyped types vars for the engine and hands them to send, which makes
// the one call that carries them. The engine's version is asked for only
// when a variable's typing depends on it (restvar.Portable).
//
// The engine converts every variable before it acts on any, so its 400
// "has unsupported type" means nothing was done: the adapter's version
// was wrong (the engine was replaced by an older one without a failed
// call). The version is then read again, unless it is pinned or was read
// in the last seconds, and when the variables type differently for the
// version read, they are sent once more.
func (c *Client) sendTyped(ctx context.Context, vars []Variable, send func([]Variable) error) error {
	conv := restvar.Oldest()
	versioned := c.engine.pinned || slices.ContainsFunc(vars, func(v Variable) bool { return !restvar.Portable(v.Type, v.Value) })
	if versioned {
		var err error
		if conv, err = c.Converters(ctx); err != nil {
			return err
		}
	}
	first, err := typed(conv, vars)
	if err != nil {
		return err
	}
	err = send(first)
	if !versioned || !unsupportedType(err) {
		return err
	}
	refused := func(conv restvar.Converters) error {
		c.engine.logger.Warn("the workflow engine refused a variable type its version converts: is its version right?",
			"upstream", c.engine.name, "version", conv.String(), "pinned", c.engine.pinned, "err", err)
		return err
	}
	if !c.engine.lost(freshFor) {
		return refused(conv)
	}
	again, rerr := c.Converters(ctx)
	if rerr != nil {
		return err
	}
	second, terr := typed(again, vars)
	if terr != nil {
		return terr
	}
	if sameVariables(first, second) {
		return refused(again)
	}
	return send(second)
}

func sameVariables(a, b []Variable) bool {
	return slices.EqualFunc(a, b, func(x, y Variable) bool {
		return x.Name == y.Name && x.Type == y.Type && bytes.Equal(x.Value, y.Value)
	})
}
