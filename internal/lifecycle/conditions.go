package lifecycle

import "time"

// ConditionStatus follows Kubernetes/Datum: True, False or Unknown.
type ConditionStatus string

const (
	ConditionTrue    ConditionStatus = "True"
	ConditionFalse   ConditionStatus = "False"
	ConditionUnknown ConditionStatus = "Unknown"
)

// Condition types (Datum): Programmed (infrastructure applied) + Running (app healthy) => Ready.
const (
	CondProgrammed = "Programmed"
	CondRunning    = "Running"
	CondReady      = "Ready"
	// CondDrifted is the last drift check's verdict: True when infrastructure or app moved away from the deployed config.
	CondDrifted = "Drifted"
)

// Condition is one observed fact about an instance.
type Condition struct {
	Type    string          `json:"type"`
	Status  ConditionStatus `json:"status"`
	Reason  string          `json:"reason,omitempty"`
	Message string          `json:"message,omitempty"`
	// ObservedAt is when what the condition says was last seen to hold (zero: never observed).
	ObservedAt time.Time `json:"observedAt,omitzero"`
}

// ReadyFrom derives Ready from Programmed and Running, as Datum does; it is as fresh as Running.
func ReadyFrom(programmed, running Condition) Condition {
	c := readyFrom(programmed, running)
	c.ObservedAt = running.ObservedAt
	return c
}

func readyFrom(programmed, running Condition) Condition {
	switch {
	case programmed.Status == ConditionTrue && running.Status == ConditionTrue:
		return Condition{Type: CondReady, Status: ConditionTrue, Reason: "ProgrammedAndRunning"}
	case programmed.Status == ConditionFalse:
		return Condition{Type: CondReady, Status: ConditionFalse, Reason: "NotProgrammed", Message: programmed.Message}
	case running.Status == ConditionFalse:
		return Condition{Type: CondReady, Status: ConditionFalse, Reason: "NotRunning", Message: running.Message}
	}
	if running.Status == ConditionUnknown && running.Reason != "" {
		return Condition{Type: CondReady, Status: ConditionUnknown, Reason: running.Reason, Message: running.Message}
	}
	return Condition{Type: CondReady, Status: ConditionUnknown, Reason: "Pending"}
}
