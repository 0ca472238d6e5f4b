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
	file := openapi3.NewStringSchema().WithFormat("binary")
	file.ContentMediaType = "application/octet-stream"
	file.Description = "a file part, with its filename"
	form := contract.Named("FileUpload", contract.Closed(map[string]*openapi3.Schema{
		"file":      openapi3.NewArraySchema().WithItems(file).WithMinItems(1).WithMaxItems(upfiles.MaxFiles),
		"subjectId": contract.Str("the record the files are posted to"),
		"title": openapi3.NewArraySchema().WithItems(contract.Str("the n-th title names the n-th file")).
			WithMaxItems(upfiles.MaxFiles),
	}, "file", "subjectId"))
	result := contract.Named("FileResult", contract.Obj(map[string]*openapi3.Schema{
		"title":      openapi3.NewStringSchema(),
		"statusCode": contract.Described(contract.Int32(), "the file's own HTTP status: 201, or why it failed"),
		"id":         contract.Str("the posted file's id, on success"),
		"errors":     openapi3.NewArraySchema().WithItems(contract.AnyObject()),
	}, "statusCode"))
	return contract.Operation{ID: "uploadFiles", Upstream: true,
		Errors: []int{http.StatusUnsupportedMediaType, http.StatusInsufficientStorage},
		Description: "Uploads the file parts of a multipart form to the record subjectId, as one batch, each " +
			"with the title of the same position (or its filename), and answers one result per file, in order. " +
			"The form is spooled to disk, never held in memory; when the spool is full the answer is 503 with " +
			"Retry-After, or 507 for an upload larger than the whole spool.",
		Body: &contract.Body{Media: contract.Multipart, Required: true, Shape: contract.Fixed(form),
			Description: "file parts (each with a filename), a subjectId field and optional title fields"},
		Result: contract.Fixed(openapi3.NewArraySchema().WithItems(result))}
}
