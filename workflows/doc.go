// Package workflows holds slipway's deterministic workflow code: one entity
// workflow per instance and one child pipeline per operation.
package workflows
