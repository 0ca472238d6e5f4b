package messages

import (
	"github.com/getkin/kin-openapi/openapi3"

	"github.com/restgate/gateway/gateway/contract"
	"github.com/restgate/gateway/gateway/routes"
)

// Contract declares POST of kind messages with opts' bounds.
func Contract(opts Options) contract.Declare {
	opts = opts.withDefaults()
	return func(*routes.Route, string) contract.Operation {
		body := contract.Named("Message", contract.Closed(map[string]*openapi3.Schema{
			fieldName:    openapi3.NewStringSchema().WithMinLength(1).WithMaxLength(int64(opts.MaxNameChars)),
			fieldMessage: openapi3.NewStringSchema().WithMinLength(1).WithMaxLength(int64(opts.MaxMessageChars)),
		}, fieldName, fieldMessage))
		return contract.Operation{ID: "publishMessage", Upstream: true, Result: contract.Empty,
			Description: "Publishes a message under a name on the public feed. Answers \"\".",
			Body:        &contract.Body{Required: true, Shape: contract.Fixed(body)}}
	}
}
