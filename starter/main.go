// Command slipway is the CLI: create, deploy, plan, archive, destroy and
// deprovision instances; status, list; retry, resolve, abandon; dev and demo.
package main

import (
	"fmt"
	"os"
	"slices"

	"github.com/slipway-dev/slipway/internal/cleanenv"
	"github.com/slipway-dev/slipway/internal/cli"
)

func main() {
	// `slipway dev` and `demo` run a worker: its keys stay out of /proc/<pid>/environ, as a worker's do.
	if slices.Contains(os.Args[1:], "dev") || slices.Contains(os.Args[1:], "demo") {
		if err := cleanenv.Reexec(); err != nil {
			fmt.Fprintln(os.Stderr, "slipway dev:", err)
			os.Exit(1)
		}
	}
	cli.Run()
}
