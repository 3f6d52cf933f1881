package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/api/workflowservice/v1"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/slipway-dev/slipway/internal/codec"
	"github.com/slipway-dev/slipway/testsuite"
)

// SecretFigures are the secrets phase's figures.
type SecretFigures struct {
	Secrets, Histories, Events, Logs int
	Encrypted, Plaintext             int      // payloads with data, as stored by the server
	PlainAt                          []string // where the first payloads in the clear are (workflow, event, holder)
	ServerWritten                    int      // the server's own ACTIVITY_ID_NOT_STARTED: not slipway's to encrypt
	Hits                             []string // where a secret value was found
	// ControlDecoded and ControlRaw count histories holding a value that is in the payloads
	// (an update's config): found decoded, never raw, so the search can find what is there.
	ControlDecoded, ControlRaw int
}

// control is in every update request's config: visible decoded, never stored in the clear.
const control = "replicas: 2"

// secretsGrep dumps every workflow history of the run as JSON (plus each payload's
// data, raw and decoded) and greps it, every worker log and the whole GitOps repo
// for each secret the run bootstrapped.
func (w *world) secretsGrep(ctx context.Context, rep *Report) error {
	f := SecretFigures{Secrets: len(w.secrets)}
	if f.Secrets == 0 {
		return fmt.Errorf("no secrets were bootstrapped, so the search would prove nothing")
	}
	type haystack struct{ where, text string }
	var hay []haystack
	var next []byte
	for {
		resp, err := w.temporal.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{NextPageToken: next})
		if err != nil {
			return err
		}
		for _, ex := range resp.Executions {
			raw, decoded, err := w.historyText(ctx, ex.Execution.WorkflowId, ex.Execution.RunId, &f)
			if err != nil {
				return err
			}
			if strings.Contains(raw, control) {
				f.ControlRaw++
			}
			if strings.Contains(decoded, control) {
				f.ControlDecoded++
			}
			id := "history " + ex.Execution.WorkflowId
			hay = append(hay, haystack{id + " (as stored)", raw}, haystack{id + " (decoded)", decoded})
		}
		if next = resp.NextPageToken; len(next) == 0 {
			break
		}
	}
	logs, _ := filepath.Glob(filepath.Join(w.dir, "logs", "*.log"))
	for _, l := range logs {
		data, err := os.ReadFile(l)
		if err != nil {
			return err
		}
		f.Logs++
		hay = append(hay, haystack{"log " + filepath.Base(l), string(data)})
	}
	git, err := exec.CommandContext(ctx, "git", "-C", w.repo, "log", "-p", "--all").Output()
	if err != nil {
		return fmt.Errorf("git log: %w", err)
	}
	hay = append(hay, haystack{"git", string(git)})
	for v, ref := range w.secrets {
		for _, h := range hay {
			if strings.Contains(h.text, v) {
				f.Hits = append(f.Hits, fmt.Sprintf("a secret of %s in %s", ref, h.where))
			}
		}
	}
	rep.Secrets = &f
	return nil
}

// historyText is one run's history as stored (JSON plus each payload's data) and as the
// workflow sees it (each payload's data decoded); it counts events and payloads into f.
func (w *world) historyText(ctx context.Context, id, run string, f *SecretFigures) (raw, decoded string, err error) {
	it := w.temporal.GetWorkflowHistory(ctx, id, run, false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	h := &historypb.History{}
	for it.HasNext() {
		ev, err := it.Next()
		if err != nil {
			return "", "", fmt.Errorf("history of %s: %w", id, err)
		}
		h.Events = append(h.Events, ev)
	}
	data, err := protojson.Marshal(h)
	if err != nil {
		return "", "", err
	}
	var plain []string
	encrypted := map[string]int{}
	if err := testsuite.CountPayloads(id, h, &plain, encrypted, &f.ServerWritten); err != nil {
		return "", "", err
	}
	f.Histories++
	f.Events += len(h.Events)
	f.Plaintext += len(plain)
	for _, p := range plain {
		if len(f.PlainAt) < 5 {
			f.PlainAt = append(f.PlainAt, p)
		}
	}
	for _, n := range encrypted {
		f.Encrypted += n
	}
	dec, err := testsuite.DecodeHistory(h, codec.New(w.keys))
	if err != nil {
		return "", "", fmt.Errorf("decode history of %s: %w", id, err)
	}
	raw = string(data) + "\n" + strings.Join(testsuite.PayloadData(h.ProtoReflect()), "\n")
	return raw, strings.Join(testsuite.PayloadData(dec.ProtoReflect()), "\n"), nil
}
