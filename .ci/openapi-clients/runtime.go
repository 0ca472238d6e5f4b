// Package openapiclients pins what the clients .ci/openapi-clients.sh
// generates need to build: the generators (go.mod's tool lines) and the
// runtime packages their code imports, imported here so that go mod tidy
// keeps them and their sums.
package openapiclients

import (
	_ "github.com/go-faster/errors"
	_ "github.com/go-faster/jx"
	_ "github.com/oapi-codegen/runtime"
	_ "github.com/oapi-codegen/runtime/types"
	_ "github.com/ogen-go/ogen/conv"
	_ "github.com/ogen-go/ogen/http"
	_ "github.com/ogen-go/ogen/json"
	_ "github.com/ogen-go/ogen/middleware"
	_ "github.com/ogen-go/ogen/ogenerrors"
	_ "github.com/ogen-go/ogen/ogenregex"
	_ "github.com/ogen-go/ogen/otelogen"
	_ "github.com/ogen-go/ogen/uri"
	_ "github.com/ogen-go/ogen/validate"
	_ "go.opentelemetry.io/otel"
	_ "go.opentelemetry.io/otel/attribute"
	_ "go.opentelemetry.io/otel/codes"
	_ "go.opentelemetry.io/otel/metric"
	_ "go.opentelemetry.io/otel/semconv/v1.39.0"
	_ "go.opentelemetry.io/otel/trace"
)
