package openapi

import _ "embed"

// JSON is swagger.json as committed: the document the service serves. (The
// template of docs.go would add an empty "host" and "schemes", which a
// Swagger 2.0 validator rejects.)
//
//go:embed swagger.json
var JSON []byte
