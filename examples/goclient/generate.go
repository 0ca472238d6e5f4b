package main

// The client in gateway/ is generated from openapi_v2.json, the v2
// document of the shipped config.yaml, by the oapi-codegen this module pins
// (go.mod's tool line); TestGeneratedClientIsCurrent fails when either is
// stale. After a change to the documents, from this folder:
//
//	curl -sk https://127.0.0.1:8443/v2/settings/openapi | jq . > openapi_v2.json
//	go generate
//
//go:generate go tool oapi-codegen -config oapi-codegen.yaml openapi_v2.json
