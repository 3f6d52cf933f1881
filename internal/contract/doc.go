// Package contract is what crosses a Temporal boundary in slipway: workflow, update, query and
// signal names, IDs and search attributes; the requests and results the CLI, servers and
// webhooks exchange with workflows; and the step and activity names with their inputs and
// outputs. It is pure data, so clients never import workflow code and workflow code never
// imports a client package. JSON names here are in recorded histories: never rename them.
package contract
