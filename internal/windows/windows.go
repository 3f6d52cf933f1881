// Package windows reads the platform's change windows (data.slipway.windows in the policy
// bundle, which tenants cannot write) and says, for an instance at a time, which windows it is
// inside, whether a state-changing operation may start, and when it next may. Pure.
package windows

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/robfig/cron/v3"

	"github.com/slipway-dev/slipway/internal/labels"
)

// Kinds of window.
const (
	Allow = "allow" // operations start only inside one (when any allow window covers the instance)
	Deny  = "deny"  // no operation starts inside one (a freeze)
)

// Window is one declared window: from each start (a five-field cron line in TimeZone) for Duration.
type Window struct {
	Name     string   `json:"name"`
	Kind     string   `json:"kind,omitempty"` // allow (the default) or deny
	Start    string   `json:"start"`
	Duration string   `json:"duration"`
	TimeZone string   `json:"timeZone,omitempty"` // IANA name; UTC when empty
	Stacks   []string `json:"stacks,omitempty"`   // the stacks it covers; every stack when empty
	Tenants  []string `json:"tenants,omitempty"`  // the tenants it covers; every tenant when empty
	// Labels are the instance labels it covers: an instance carrying every one (with its value); every instance when empty.
	Labels map[string]string `json:"labels,omitempty"`

	sched cron.Schedule
	dur   time.Duration
	loc   *time.Location
}

// Set is the platform's windows, checked.
type Set []Window

// Status is where an instance stands at a time: the windows it is inside, whether an operation
// may start, and when it next may (zero while Open, or when no window ever opens in a year).
type Status struct {
	Inside []string  `json:"inside"`
	Open   bool      `json:"open"`
	Next   time.Time `json:"next,omitempty"`
	// Governed says some window covers the instance at all; without one it is always open.
	Governed bool `json:"governed,omitempty"`
}

// FieldError names the window field that is wrong.
type FieldError struct{ Field, Message string }

func (e *FieldError) Error() string { return e.Field + ": " + e.Message }

// maxDuration bounds a window: a week covers any weekly rhythm.
const maxDuration = 7 * 24 * time.Hour

// horizon is how far Next looks ahead, and maxSteps how many window edges it walks at most (a
// window every minute would otherwise take half a million steps to say it never opens).
const (
	horizon  = 366 * 24 * time.Hour
	maxSteps = 10000
)

var parser = cron.NewParser(cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow | cron.Descriptor)

// Parse reads data.slipway.windows (as the bundle's data decoded it: a list of objects).
func Parse(raw any) (Set, error) {
	if raw == nil {
		return nil, nil
	}
	b, err := json.Marshal(raw)
	if err != nil {
		return nil, &FieldError{"data.slipway.windows", err.Error()}
	}
	var list []map[string]any
	if err := json.Unmarshal(b, &list); err != nil {
		return nil, &FieldError{"data.slipway.windows", "must be a list of {name, kind, start, duration, timeZone, stacks, tenants, labels}"}
	}
	var out Set
	names := map[string]bool{}
	for i, m := range list {
		field := fmt.Sprintf("data.slipway.windows[%d]", i)
		for k := range m {
			if !slices.Contains([]string{"name", "kind", "start", "duration", "timeZone", "stacks", "tenants", "labels"}, k) {
				return nil, &FieldError{field + "." + k, "unknown field; allowed: name, kind, start, duration, timeZone, stacks, tenants, labels"}
			}
		}
		var w Window
		if l, ok := m["labels"]; ok {
			lm, ok := l.(map[string]any)
			if !ok {
				return nil, &FieldError{fmt.Sprintf("%s (%v).labels", field, m["name"]), "must be an object of label: value, such as {\"tier\": \"gold\"}"}
			}
			for k, v := range lm {
				if _, ok := v.(string); !ok {
					return nil, &FieldError{fmt.Sprintf("%s (%v).labels.%s", field, m["name"], k), fmt.Sprintf("%v is not a string", v)}
				}
			}
		}
		wb, _ := json.Marshal(m)
		if err := json.Unmarshal(wb, &w); err != nil {
			return nil, &FieldError{field, err.Error()}
		}
		if err := w.check(field); err != nil {
			return nil, err
		}
		if names[w.Name] {
			return nil, &FieldError{field + ".name", fmt.Sprintf("%q is declared twice", w.Name)}
		}
		names[w.Name] = true
		out = append(out, w)
	}
	return out, nil
}

func (w *Window) check(field string) error {
	if strings.TrimSpace(w.Name) == "" {
		return &FieldError{field + ".name", "is required"}
	}
	field = fmt.Sprintf("%s (%s)", field, w.Name)
	switch w.Kind {
	case "":
		w.Kind = Allow
	case Allow, Deny:
	default:
		return &FieldError{field + ".kind", fmt.Sprintf("%q is not allow or deny", w.Kind)}
	}
	var err error
	if w.sched, err = parser.Parse(w.Start); err != nil || strings.HasPrefix(strings.TrimSpace(w.Start), "@every") {
		msg := "a five-field cron line (minute hour day-of-month month day-of-week), such as \"0 22 * * 5\""
		if err != nil {
			msg = fmt.Sprintf("%q is not %s: %v", w.Start, msg, err)
		}
		return &FieldError{field + ".start", msg}
	}
	if w.dur, err = time.ParseDuration(w.Duration); err != nil || w.dur <= 0 || w.dur > maxDuration {
		return &FieldError{field + ".duration", fmt.Sprintf("%q is not a duration between 1m and 168h, such as 8h", w.Duration)}
	}
	for _, k := range slices.Sorted(maps.Keys(w.Labels)) {
		if err := labels.CheckKey(k); err != nil {
			return &FieldError{field + ".labels." + k, err.Error()}
		}
		if err := labels.CheckValue(w.Labels[k]); err != nil {
			return &FieldError{field + ".labels." + k, err.Error()}
		}
	}
	// Local would depend on the worker's machine.
	if w.loc, err = time.LoadLocation(w.TimeZone); err != nil || strings.EqualFold(w.TimeZone, "local") {
		return &FieldError{field + ".timeZone", fmt.Sprintf("%q is not an IANA time zone, such as Europe/Berlin", w.TimeZone)}
	}
	return nil
}

// covers reports whether w applies to an instance of stack in tenant carrying labels.
func (w Window) covers(tenant, stack string, have map[string]string) bool {
	return (len(w.Stacks) == 0 || slices.Contains(w.Stacks, stack)) && (len(w.Tenants) == 0 || slices.Contains(w.Tenants, tenant)) &&
		labels.Match(w.Labels, have)
}

// activeAt reports whether t falls inside one of w's occurrences, and when that one ends.
func (w Window) activeAt(t time.Time) (bool, time.Time) {
	// The latest start at or before t is within dur of it: look from t-dur.
	start := w.sched.Next(t.Add(-w.dur).In(w.loc))
	if !start.After(t) {
		return true, start.Add(w.dur)
	}
	return false, start
}

// For is the windows that cover an instance of stack in tenant carrying labels.
func (s Set) For(tenant, stack string, labels map[string]string) Set {
	var out Set
	for _, w := range s {
		if w.covers(tenant, stack, labels) {
			out = append(out, w)
		}
	}
	return out
}

// At is where an instance covered by s (see For) stands at now.
func (s Set) At(now time.Time) Status {
	st := Status{Inside: []string{}, Governed: len(s) > 0}
	open := s.open(now, &st.Inside)
	st.Open = open
	if open {
		return st
	}
	// The next time it opens is a boundary: a window's start or end. Walk them in order.
	t := now
	for steps := 0; t.Sub(now) < horizon && steps < maxSteps; steps++ {
		t = s.nextEdge(t)
		if s.open(t, nil) {
			st.Next = t.UTC()
			return st
		}
	}
	return st
}

// nextEdge is the first window start or end after t.
func (s Set) nextEdge(t time.Time) time.Time {
	next := t.Add(horizon)
	for _, w := range s {
		if _, edge := w.activeAt(t); edge.Before(next) {
			next = edge
		}
	}
	if !next.After(t) {
		next = t.Add(time.Minute)
	}
	return next
}

// open reports whether an operation may start at t, and lists the windows t is inside.
func (s Set) open(t time.Time, inside *[]string) bool {
	hasAllow, inAllow, inDeny := false, false, false
	for _, w := range s {
		in, _ := w.activeAt(t)
		if w.Kind == Allow {
			hasAllow = true
		}
		if !in {
			continue
		}
		if inside != nil {
			*inside = append(*inside, w.Name)
		}
		if w.Kind == Deny {
			inDeny = true
		} else {
			inAllow = true
		}
	}
	return !inDeny && (!hasAllow || inAllow)
}
