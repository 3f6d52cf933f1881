// Package webhook turns signed forge webhooks (GitHub, GitLab, Gitea/Forgejo) into
// slipway requests: commit-message commands on a push to main, and merged pull
// requests that change instance folders. Each forge has its own secret and its own
// allow-list of repositories; deliveries are deduplicated by ID, and the commands they
// carry by their content (activities.CommandRequestID).
package webhook

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/lifecycle"
)

// Command is one `[slipway][<operation>] tenant/name` line of a commit message.
type Command struct {
	Op  lifecycle.Operation
	Ref contract.Ref
}

// commandRE finds command-shaped lines; what is inside is checked separately so a
// malformed one gets a clear error instead of being silently ignored.
var commandRE = regexp.MustCompile(`(?i)^\s*\[slipway\]\[([^\]]*)\]\s*(\S*)\s*$`)

// ParseCommands reads every command line of a commit message (several per message
// are allowed, as in Grove). Lines that look like commands but are not valid come
// back as errors naming the line.
func ParseCommands(message string) ([]Command, []error) {
	var cmds []Command
	var errs []error
	for i, line := range strings.Split(message, "\n") {
		m := commandRE.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		op, ok := lifecycle.ParseOperation(strings.ToLower(strings.TrimSpace(m[1])))
		if !ok {
			errs = append(errs, fmt.Errorf("line %d: %q is not an operation (one of create, deploy, plan, archive, destroy, deprovision)", i+1, m[1]))
			continue
		}
		ref, err := contract.ParseRef(m[2])
		if err != nil {
			errs = append(errs, fmt.Errorf("line %d: %v", i+1, err))
			continue
		}
		cmds = append(cmds, Command{Op: op, Ref: contract.Ref{Tenant: ref.Tenant, Name: ref.Name}})
	}
	return cmds, errs
}
