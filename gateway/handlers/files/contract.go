package files

import (
	"net/http"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/restgate/gateway/gateway/contract"
	"github.com/restgate/gateway/gateway/routes"
	upfiles "github.com/restgate/gateway/upstreams/files"
)

// Contract declares POST of kind files: a multipart form of file parts, a
// subjectId and optional titles, answered with one result per file.
func Contract(*routes.Route, string) contract.Operation {
	file := openapi3.NewStringSchema()
	file.ContentMediaType = "application/octet-stream"
	file.Description = "a file part, with its filename"
	form := contract.Closed(map[string]*openapi3.Schema{
		"file":      openapi3.NewArraySchema().WithItems(file).WithMinItems(1).WithMaxItems(upfiles.MaxFiles),
		"subjectId": contract.Str("the record the files are posted to"),
		"title": openapi3.NewArraySchema().WithItems(contract.Str("the n-th title names the n-th file")).
			WithMaxItems(upfiles.MaxFiles),
	}, "file", "subjectId")
	result := contract.Obj(map[string]*openapi3.Schema{
		"title":      openapi3.NewStringSchema(),
		"statusCode": openapi3.NewIntegerSchema(),
		"id":         contract.Str("the posted file's id, on success"),
		"errors":     openapi3.NewArraySchema().WithItems(contract.AnyObject()),
	}, "statusCode")
	return contract.Operation{ID: "uploadFiles", Upstream: true,
		Errors: []int{http.StatusUnsupportedMediaType},
		Body: &contract.Body{Media: contract.Multipart, Required: true, Shape: contract.Fixed(form),
			Description: "file parts (each with a filename), a subjectId field and optional title fields"},
		Result: contract.Fixed(openapi3.NewArraySchema().WithItems(result))}
}
