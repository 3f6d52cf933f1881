// Package portalclient is a Go client of `slipway server` generated from its OpenAPI
// description (internal/apiserver/openapi.json), for tests only: a portal's view of the API.
package portalclient

//go:generate go run github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen@v2.8.2 -config oapi-codegen.yaml ../../internal/apiserver/openapi.json
