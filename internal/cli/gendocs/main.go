// Command gendocs writes the CLI reference, one Markdown page per command (make docs):
//
//	go run ./internal/cli/gendocs docs/reference/cli
//
// It is a program of its own so that cobra's doc generator is not linked into slipway.
package main

import (
	"fmt"
	"os"

	"github.com/slipway-dev/slipway/internal/cli"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: gendocs DIR (the reference lives in "+ReferenceDir+")")
		os.Exit(cli.ExitUsage)
	}
	if err := WriteReference(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(cli.ExitFailed)
	}
}
