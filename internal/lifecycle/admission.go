package lifecycle

import (
	"fmt"
	"time"
)

// Admission is what admitting an operation depends on: the instance as its workflow holds it, or
// as a status read from it shows it.
type Admission struct {
	Ref     string // TENANT/NAME, for the messages
	State   State
	Holder  *Holder // what holds the instance now; nil when nothing does (as far as the caller knows)
	CanStop bool    // a running provision or deploy that a teardown may stop first (PreTerminate)
}

// Holder is what keeps an instance from taking another operation, and what the requester can do.
type Holder struct {
	What   string // "deploy 3-x is running (step plan)"
	Remedy string // "send it again when the running operation ends"
}

// GateHolder is an operation held at scheduling gates; gates lists them ("network, dns").
func GateHolder(ref string, op Operation, gates string, since time.Time) *Holder {
	return &Holder{
		What:   fmt.Sprintf("%s waiting at scheduling gates (%s) since %s", op, gates, since.UTC().Format(time.RFC3339)),
		Remedy: "remove the gates, or slipway cancel " + ref,
	}
}

// WindowHolder is an operation waiting for its change window, which opens at opens.
func WindowHolder(ref string, op Operation, opens, since time.Time) *Holder {
	return &Holder{
		What: fmt.Sprintf("%s waiting for the change window opening at %s since %s", op, opens.UTC().Format(time.RFC3339),
			since.UTC().Format(time.RFC3339)),
		Remedy: "wait for it, or slipway cancel " + ref + " (a platform admin may send it again with --override-window --reason)",
	}
}

// BusyError says another operation holds the instance: the same request may succeed when it ends.
type BusyError struct {
	Ref       string
	Operation Operation
	Holder    Holder
}

func (e *BusyError) Error() string {
	return fmt.Sprintf("%s is busy: %s; %s is rejected, not queued — %s", e.Ref, e.Holder.What, e.Operation, e.Holder.Remedy)
}

// Admit refuses op when the instance is busy or its state does not allow op: a *BusyError, or an
// error wrapping a *NotAllowedError. It is the one admission check: the instance workflow's update
// validator runs it on the workflow's own state and decides; the client runs it on the status it
// read only to refuse before it validates a config on a worker.
func Admit(a Admission, op Operation) error {
	// A teardown during a provision or deploy stops it first (PreTerminate): EMCO's terminate while instantiating.
	preTerminate := a.CanStop && op.Terminates()
	if a.Holder != nil && !preTerminate {
		return &BusyError{Ref: a.Ref, Operation: op, Holder: *a.Holder}
	}
	if err := Check(a.State, op); err != nil && !preTerminate {
		return fmt.Errorf("%s: %w", a.Ref, err)
	}
	return nil
}

// AdmitRecreate takes a recreate only as a deploy of a Deployed instance with no config change:
// it replaces what runs, it does not change it.
func AdmitRecreate(ref string, s State, op Operation, withConfig bool) error {
	switch {
	case op != OpDeploy:
		return fmt.Errorf("%s: recreate goes with deploy, not %s", ref, op)
	case s != Deployed:
		return fmt.Errorf("%s: recreate replaces a Deployed instance's workload, as it is; the instance is %s", ref, s)
	case withConfig:
		return fmt.Errorf("%s: recreate takes no config: deploy -f changes it, then recreate replaces it", ref)
	}
	return nil
}
