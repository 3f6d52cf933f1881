// Package config reads instance files and stack schemas, validates an instance against
// its stack, and renders the instance's directory for the GitOps repository.
package config
