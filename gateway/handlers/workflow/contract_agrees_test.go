package workflow_test

import (
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/restgate/gateway/gateway/config"
	"github.com/restgate/gateway/gateway/contract"
	"github.com/restgate/gateway/gateway/handlers/workflow"
	"github.com/restgate/gateway/gateway/routes"
	engine "github.com/restgate/gateway/upstreams/workflow"
)

// TestContractAgreesWithTheAdapter: the listings' parameters are declared
// twice, by the route's contract (what the gateway documents and checks
// first) and by the adapter's parser (what it lets reach the engine, which
// ignores what it does not know). Each value at a bound must be taken or
// refused by both alike, so neither list can drift from the other.
func TestContractAgreesWithTheAdapter(t *testing.T) {
	t.Parallel()
	parsers := map[string]func(url.Values) error{
		config.ActionTasks: func(q url.Values) error {
			_, err := engine.ParseTaskQuery(q)
			return err
		},
		config.ActionProcessDefinitions: func(q url.Values) error {
			_, err := engine.ParseDefinitionQuery(q)
			return err
		},
	}
	for action, parse := range parsers {
		rt := &routes.Route{Template: "/{version}/x", Spec: config.Route{Path: "/{version}/x", Kind: config.KindWorkflow,
			Action: action}}
		op := workflow.Contract(rt, "v1")
		agree := func(desc string, q url.Values) {
			t.Helper()
			cerr, perr := op.CheckQuery(q), parse(q)
			assert.Equal(t, cerr == nil, perr == nil, "%s %s: %s: contract %v, adapter %v", action, q.Encode(), desc, cerr, perr)
		}
		agree("an unknown parameter", url.Values{"bogus": {"1"}})
		for _, p := range op.Query {
			for desc, v := range cases(p) {
				agree(desc, url.Values{p.Name: {v}})
			}
		}
	}
}

// cases are values of p at and past its bounds, by what they try.
func cases(p contract.Param) map[string]string {
	c := map[string]string{"empty": ""}
	switch {
	case p.Type == contract.Integer:
		c["min"], c["max"] = strconv.FormatInt(p.Min, 10), strconv.FormatInt(p.Max, 10)
		c["below min"], c["above max"] = strconv.FormatInt(p.Min-1, 10), strconv.FormatInt(p.Max+1, 10)
		c["not a number"] = "1x"
	case p.Type == contract.Boolean:
		c["true"], c["false"], c["yes"] = "true", "false", "yes"
	case p.Enum != nil:
		for _, v := range p.Enum {
			c["enum "+v] = v
		}
		c["not in the enum"] = "other"
	default:
		c["at the length limit"] = strings.Repeat("a", p.MaxLength)
		c["past the length limit"] = strings.Repeat("a", p.MaxLength+1)
	}
	return c
}
