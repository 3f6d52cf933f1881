// Package browser checks the Temporal UI that operators use, in a real headless
// Chromium driven over the DevTools protocol: what it shows of slipway's instances.
package browser

import (
	"os"
	"testing"

	"github.com/slipway-dev/slipway/testsuite"
)

func TestMain(m *testing.M) { os.Exit(testsuite.Main(m)) }
