package openapi

import (
	"encoding/json"
	"strconv"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/restgate/gateway/gateway/contract"
)

func ref(name string) *openapi3.SchemaRef {
	return openapi3.NewSchemaRef("#/components/schemas/"+name, nil)
}

// named returns s as it goes into the document: every schema in it that
// has a title (contract.Named), s included, is held once under
// components.schemas and referred to. s itself is not changed: the
// declarations hand out shared schemas, and documents of several versions
// are rendered from them.
func (b *builder) named(s *openapi3.Schema) *openapi3.SchemaRef {
	if s == nil {
		return nil
	}
	c := *s
	c.Properties = b.namedAll(s.Properties)
	c.Items = b.namedRef(s.Items)
	c.AllOf, c.AnyOf, c.OneOf = b.namedList(s.AllOf), b.namedList(s.AnyOf), b.namedList(s.OneOf)
	c.Not, c.If, c.Then, c.Else = b.namedRef(s.Not), b.namedRef(s.If), b.namedRef(s.Then), b.namedRef(s.Else)
	if s.AdditionalProperties.Schema != nil {
		c.AdditionalProperties.Schema = b.namedRef(s.AdditionalProperties.Schema)
	}
	if c.Title == "" {
		return &openapi3.SchemaRef{Value: &c}
	}
	return openapi3.NewSchemaRef("#/components/schemas/"+b.register(c.Title, &c), &c)
}

func (b *builder) namedRef(r *openapi3.SchemaRef) *openapi3.SchemaRef {
	if r == nil || r.Ref != "" {
		return r
	}
	return b.named(r.Value)
}

func (b *builder) namedList(l openapi3.SchemaRefs) openapi3.SchemaRefs {
	if l == nil {
		return nil
	}
	out := make(openapi3.SchemaRefs, len(l))
	for i, r := range l {
		out[i] = b.namedRef(r)
	}
	return out
}

func (b *builder) namedAll(m openapi3.Schemas) openapi3.Schemas {
	if m == nil {
		return nil
	}
	out := make(openapi3.Schemas, len(m))
	for k, r := range m {
		out[k] = b.namedRef(r)
	}
	return out
}

// register holds s under name, or under name2, name3 ... when another
// schema holds name already, and returns the name s is held under. Two
// schemas are the same when their JSON is.
func (b *builder) register(name string, s *openapi3.Schema) string {
	text, _ := json.Marshal(s)
	want := string(text)
	for n := 1; ; n++ {
		key := name
		if n > 1 {
			key += strconv.Itoa(n)
		}
		have, known := b.held[key]
		if !known {
			held, taken := b.schemas[key]
			if !taken {
				b.schemas[key] = &openapi3.SchemaRef{Value: s}
				b.held[key] = want
				return key
			}
			text, _ := json.Marshal(held.Value) // a common schema (Page ...)
			have = string(text)
			b.held[key] = have
		}
		if have == want {
			return key
		}
	}
}

// header refers to h's declaration, adding it to components.headers.
func (b *builder) header(h contract.Header) *openapi3.HeaderRef {
	if _, ok := b.headers[h.Name]; !ok {
		s := h.Schema
		if s == nil {
			s = openapi3.NewStringSchema()
		}
		b.headers[h.Name] = &openapi3.HeaderRef{Value: &openapi3.Header{Parameter: openapi3.Parameter{
			Description: h.Description, Schema: &openapi3.SchemaRef{Value: s}}}}
	}
	return &openapi3.HeaderRef{Ref: "#/components/headers/" + h.Name}
}

// headerRefs refers to each of hs.
func (b *builder) headerRefs(hs ...contract.Header) openapi3.Headers {
	if len(hs) == 0 {
		return nil
	}
	out := make(openapi3.Headers, len(hs))
	for _, h := range hs {
		out[h.Name] = b.header(h)
	}
	return out
}
