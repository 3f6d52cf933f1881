package notify

import (
	"context"
	"fmt"
	"strings"

	"github.com/slipway-dev/slipway/internal/forge"
)

// maxStatusDescription is GitHub's limit on a commit status description, in characters.
const maxStatusDescription = 140

// deliverForge reports ev where reviewers look: a commit status on ev.Revision and, when ev
// names an MR, a comment on it keyed by ev.ID (so a retry never posts twice).
//
// An event with neither a revision nor an MR is not about anything on the forge (drift found
// by a periodic check, a rollout batch with no merge of its own), so there is nothing to report
// and Deliver returns nil: a forge sink is usually global, and an error would only make Temporal
// retry an attempt that can never do anything.
//
// Reporter errors are transient unless the Reporter says otherwise with a permanent
// *DeliveryError: both calls are idempotent, so a retry is always safe.
func (s *Sender) deliverForge(ctx context.Context, sink Sink, ev Event) error {
	if ev.Revision == "" && ev.MR == nil {
		return nil
	}
	if s.reporter == nil {
		return permanent(sink, "no forge reporter is configured (NewSender(WithReporter(...)))")
	}
	if ev.Revision != "" {
		st := forge.CommitStatus{
			State:       statusState(ev),
			Context:     statusContext(ev),
			Description: truncate(oneLine(ev.Message), maxStatusDescription),
		}
		if err := s.reporter.SetStatus(ctx, ev.Revision, st); err != nil {
			return forgeError(sink, fmt.Errorf("set status %s on %s: %w", st.Context, ev.Revision, err))
		}
	}
	if ev.MR != nil {
		if err := s.reporter.Comment(ctx, *ev.MR, ev.ID, commentBody(ev)); err != nil {
			return forgeError(sink, fmt.Errorf("comment on MR %s: %w", ev.MR.ID, err))
		}
	}
	return nil
}

func forgeError(sink Sink, err error) error {
	return &DeliveryError{Sink: sink.Name, Permanent: IsPermanent(err), Err: err}
}

// statusContext keys the status: one per instance, or one per rollout.
func statusContext(ev Event) string {
	switch {
	case ev.Instance != "":
		return "slipway/" + ev.Instance
	case ev.Rollout != "":
		return "slipway/rollout/" + ev.Rollout
	}
	return "slipway"
}

// statusState: Ready is success, Failed failure, AwaitingApproval and Retrying pending, Drifted error (the
// commit is fine, what runs no longer matches it). A rollout batch fails when its state says
// so ("...Failed") and succeeds otherwise.
func statusState(ev Event) forge.StatusState {
	switch ev.Kind {
	case KindReady:
		return forge.StatusSuccess
	case KindFailed:
		return forge.StatusFailure
	case KindAwaitingApproval, KindRetrying, KindUpgradePlanned:
		return forge.StatusPending
	case KindDrifted:
		return forge.StatusError
	case KindRolloutBatch:
		if strings.HasSuffix(ev.State, "Failed") {
			return forge.StatusFailure
		}
		return forge.StatusSuccess
	}
	return forge.StatusError
}

// truncate keeps s within n characters (runes), marking a cut with "…".
func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// commentBody is a short markdown note:
//
//	**slipway: Failed** · acme/web
//
//	- State: `DeploymentFailed`
//	- Step: `apply`
//	- Plan: 1 to add, 0 to change, 0 to destroy
//
//	> apply timed out
func commentBody(ev Event) string {
	var b strings.Builder
	b.WriteString("**slipway: " + string(ev.Kind) + "**")
	if subj := ev.subject(); subj != "" {
		b.WriteString(" · " + mdEscape(subj))
	}
	b.WriteString("\n\n")
	item := func(label, v string) {
		if v = oneLine(v); v != "" {
			b.WriteString("- " + label + ": " + code(v) + "\n")
		}
	}
	item("State", ev.State)
	item("Operation", ev.Operation)
	item("Step", ev.Step)
	if plan := oneLine(ev.Plan); plan != "" {
		b.WriteString("- Plan: " + mdEscape(plan) + "\n")
	}
	if msg := oneLine(ev.Message); msg != "" {
		b.WriteString("\n> " + mdEscape(msg) + "\n")
	}
	return b.String()
}

// code wraps s in backticks, choosing a fence longer than any run of backticks inside it.
func code(s string) string {
	fence := "`"
	for strings.Contains(s, fence) {
		fence += "`"
	}
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return fence + s + fence
}

// mdEscape keeps free text from turning into HTML or links.
var mdEscape = strings.NewReplacer("<", "&lt;", ">", "&gt;", "[", "\\[", "]", "\\]").Replace
