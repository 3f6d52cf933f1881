// Command slipway is the CLI: create, deploy, plan, archive, destroy and
// deprovision instances; status, list; retry, resolve, abandon; dev and demo.
package main

import "github.com/slipway-dev/slipway/internal/cli"

func main() { cli.Run() }
