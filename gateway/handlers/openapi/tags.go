package openapi

import (
	"github.com/getkin/kin-openapi/openapi3"

	"github.com/restgate/gateway/gateway/config"
	"github.com/restgate/gateway/gateway/routes"
)

// tagOrder lists the document's tags in the order they are listed, with
// their descriptions.
func tagOrder() []*openapi3.Tag {
	return []*openapi3.Tag{
		{Name: "accounts", Description: "The CRM account service: list, create, update and delete accounts."},
		{Name: "workflow", Description: "The workflow engine: users, process definitions and instances, tasks and their claims, delegations and completions."},
		{Name: "data", Description: "The data API: versions, resources, record types, SOQL queries and SOSL searches, records key-mapped by their type."},
		{Name: "files", Description: "Uploads of files, as one batch, to the file backend."},
		{Name: "messages", Description: "Messages published on the public feed."},
		{Name: "proxy", Description: "Routes the configuration forwards to a backend (kind proxy), their records key-mapped."},
		{Name: "settings", Description: "The gateway's own description: its endpoints, the key maps of record types, and this document."},
	}
}

// tag is the tag of rt's operations, by its kind.
func (b *builder) tag(rt *routes.Route) string {
	var t string
	switch rt.Spec.Kind {
	case config.KindAccounts, config.KindAccount:
		t = "accounts"
	case config.KindWorkflow:
		t = "workflow"
	case config.KindData:
		t = "data"
	case config.KindFiles:
		t = "files"
	case config.KindMessages:
		t = "messages"
	case config.KindEndpoints, config.KindModel, config.KindOpenAPI:
		t = "settings"
	default:
		t = "proxy"
	}
	b.tags[t] = true
	return t
}

// usedTags are the tags the document's operations use, in tagOrder.
func (b *builder) usedTags() openapi3.Tags {
	var out openapi3.Tags
	for _, t := range tagOrder() {
		if b.tags[t.Name] {
			out = append(out, t)
		}
	}
	return out
}
