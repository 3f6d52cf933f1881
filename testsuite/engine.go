package testsuite

import (
	"fmt"
	"os"
	"strings"
)

// EnvTestEngine overrides the engine the chaos and production suites' stacks name: terraform or
// opentofu. Each suite has a default of its own (chaos terraform, production OpenTofu, the
// lifecycle e2e both), so CI covers both engines without running any suite twice.
const EnvTestEngine = "SLIPWAY_TEST_ENGINE"

// TestEngine is $SLIPWAY_TEST_ENGINE, or def when it is unset.
func TestEngine(def string) (string, error) {
	e := os.Getenv(EnvTestEngine)
	switch e {
	case "":
		return def, nil
	case "terraform", "opentofu":
		return e, nil
	}
	return "", fmt.Errorf("%s=%q: must be terraform or opentofu", EnvTestEngine, e)
}

// WithEngine is a stack's schema.yaml that names engine (any version the workers have).
func WithEngine(schema []byte, engine string) []byte {
	return []byte(strings.TrimRight(string(schema), "\n") + "\nengine: " + engine + "\n")
}
