package apiserver

import (
	"context"
	_ "embed"
	"encoding/json"
	"net/http"

	"github.com/slipway-dev/slipway/internal/identity"
)

// OpenAPI is the API's OpenAPI 3.1 description, written by hand beside the routes it describes
// (TestOpenAPIDescribesEveryRoute holds the two together): the bodies are contract's types,
// whose wire form (durations in nanoseconds, fields only slipway sets) a generator would
// describe wrongly or not at all.
//
//go:embed openapi.json
var OpenAPI []byte

func (s *Server) openAPI(context.Context, identity.Actor, *http.Request) (int, any, error) {
	return http.StatusOK, json.RawMessage(OpenAPI), nil
}
