package apiserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/slipway-dev/slipway/internal/client"
	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/identity"
	"github.com/slipway-dev/slipway/internal/lifecycle"
)

// Bounds of the live event streams (GET .../events?follow=1). Each holds one of httpserve's
// work slots while it runs, so together they keep at most a quarter of the default 64, a person
// at most a few, and each ends after streamLifetime: the client resumes with Last-Event-ID.
const (
	maxStreams          = 16
	maxStreamsPerPerson = 4
	streamLifetime      = 10 * time.Minute
	streamKeepAlive     = 15 * time.Second
	// streamWrite bounds each write: a client that stops reading is cut off.
	streamWrite = 10 * time.Second
)

// streams counts the running event streams, per person and in all.
type streams struct {
	mu  sync.Mutex
	all int
	per map[string]int
}

// streamKey is who a stream counts against: the provider's immutable subject, not the name
// (preferred_username), which a person may change to someone else's to use up their streams.
func streamKey(a identity.Actor) string { return a.Issuer + "\x00" + a.Subject }

// take reserves a stream for the person (key, named name), or says why not.
func (st *streams) take(who, name string) error {
	st.mu.Lock()
	defer st.mu.Unlock()
	switch {
	case st.per[who] >= maxStreamsPerPerson:
		return &TooManyError{Message: fmt.Sprintf("follow: %s already follows %d event streams, the most a person may", name, maxStreamsPerPerson)}
	case st.all >= maxStreams:
		return &TooManyError{Message: fmt.Sprintf("follow: this server already serves %d event streams, the most it serves at once; try again", maxStreams)}
	}
	if st.per == nil {
		st.per = map[string]int{}
	}
	st.per[who]++
	st.all++
	return nil
}

func (st *streams) give(who string) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.per[who]--; st.per[who] <= 0 {
		delete(st.per, who)
	}
	st.all--
}

// TooManyError: a stream over the bounds (429, nothing changed).
type TooManyError struct{ Message string }

func (e *TooManyError) Error() string { return e.Message }

// streamer is an answer that writes itself: handle hands it the ResponseWriter.
type streamer interface {
	stream(w http.ResponseWriter, r *http.Request) int
}

// eventStream is an instance's log as Server-Sent Events: each entry with its number as id
// (what ?from= counts), from entry from on. It follows the operation running when it starts
// and ends with its result ("ended"); with none running, it ends after the entries so far
// ("idle"); else after streamLifetime or when the token expires ("lifetime"), or when the client goes.
type eventStream struct {
	s    *Server
	ref  contract.Ref
	from int
	who  string
	// until is when the person's token expires: a stream never outlives the sign-in it was decided on.
	until time.Time
}

// tokenExpiry is when the request's bearer token (verified already) expires.
func tokenExpiry(r *http.Request) time.Time {
	raw, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	exp, err := identity.Expiry(strings.TrimSpace(raw))
	if err != nil {
		return time.Now() // verified tokens carry exp; one without ends the stream at once
	}
	return exp
}

// followFrom is where a stream starts: after Last-Event-ID when the client resumes, else ?from=.
func followFrom(r *http.Request, from int) (int, error) {
	v := r.Header.Get("Last-Event-ID")
	if v == "" {
		return from, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0, badRequest("Last-Event-ID: %q is not an entry number", v)
	}
	return n + 1, nil
}

// isOperation says whether an update is an operation or a decision, which run a pipeline.
func isOperation(update string) bool {
	_, op := lifecycle.ParseOperation(update)
	_, d := lifecycle.ParseDecision(update)
	return op || d
}

// ends says whether an entry is the end of an operation or decision (its update's result).
func ends(ev client.InstanceEvent) bool { return ev.Kind == "result" && isOperation(ev.Operation) }

func (e eventStream) stream(w http.ResponseWriter, r *http.Request) int {
	defer e.s.streams.give(e.who)
	ctx, cancel := context.WithDeadline(r.Context(), minTime(time.Now().Add(streamLifetime), e.until))
	var wg sync.WaitGroup
	defer func() { cancel(); wg.Wait() }() // the keep-alive never writes once the handler returned
	rc := http.NewResponseController(w)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	// The entries already there: an operation that ended among them is not the one followed, and
	// one requested after the last end runs (its request is in the log once it was accepted).
	// With none running, the stream is the entries so far: it follows an operation, not the instance.
	known, requested, ended := 0, -1, -1
	err := e.s.o.Client.InstanceEvents(ctx, e.ref, false, func(ev client.InstanceEvent) error {
		switch {
		case ev.Kind == "requested" && isOperation(ev.Operation):
			requested = known
		case ends(ev):
			ended = known
		}
		known++
		return nil
	})
	if err != nil {
		return e.s.writeErr(w, err)
	}
	running := requested > ended
	w.WriteHeader(http.StatusOK)
	var mu sync.Mutex // the keep-alive and the entries write to one stream
	write := func(s string) error {
		mu.Lock()
		defer mu.Unlock()
		_ = rc.SetWriteDeadline(time.Now().Add(streamWrite))
		if _, err := fmt.Fprint(w, s); err != nil {
			return err
		}
		return rc.Flush()
	}
	if err := write("retry: 2000\n\n"); err != nil {
		return http.StatusOK
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(streamKeepAlive)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				if write(": keep-alive\n\n") != nil {
					cancel()
					return
				}
			}
		}
	}()
	n, end := 0, "lifetime"
	if !running && e.from >= known {
		_ = write("event: end\ndata: {\"reason\":\"idle\"}\n\n")
		return http.StatusOK
	}
	err = e.s.o.Client.InstanceEvents(ctx, e.ref, true, func(ev client.InstanceEvent) error {
		i := n
		n++
		if i < e.from {
			return nil
		}
		data, err := json.Marshal(ev)
		if err != nil {
			return err
		}
		if err := write(fmt.Sprintf("id: %d\ndata: %s\n\n", i, data)); err != nil {
			return err
		}
		switch {
		case running && i >= known && ends(ev):
			end = "ended"
			return client.ErrStopEvents
		case !running && i == known-1:
			end = "idle"
			return client.ErrStopEvents
		}
		return nil
	})
	switch {
	case r.Context().Err() != nil:
		return 499 // the client went
	case err != nil && !errors.Is(ctx.Err(), context.DeadlineExceeded):
		end = "error"
	}
	// The last word names why it ends; the client reconnects with Last-Event-ID only when it wants more.
	_ = write(fmt.Sprintf("event: end\ndata: {\"reason\":%q}\n\n", end))
	return http.StatusOK
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}
