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
	Hits                             []string // where a secret value was found
}

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
			text, events, err := w.historyText(ctx, ex.Execution.WorkflowId, ex.Execution.RunId)
			if err != nil {
				return err
			}
			f.Histories++
			f.Events += events
			hay = append(hay, haystack{"history " + ex.Execution.WorkflowId, text})
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

// historyText is one run's history as JSON, followed by the data of every payload in
// it as stored (encrypted) and as decoded for the workflow.
func (w *world) historyText(ctx context.Context, id, run string) (string, int, error) {
	it := w.temporal.GetWorkflowHistory(ctx, id, run, false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	h := &historypb.History{}
	for it.HasNext() {
		ev, err := it.Next()
		if err != nil {
			return "", 0, fmt.Errorf("history of %s: %w", id, err)
		}
		h.Events = append(h.Events, ev)
	}
	data, err := protojson.Marshal(h)
	if err != nil {
		return "", 0, err
	}
	dec, err := testsuite.DecodeHistory(h, codec.New(w.keys))
	if err != nil {
		return "", 0, fmt.Errorf("decode history of %s: %w", id, err)
	}
	text := []string{string(data)}
	text = append(text, testsuite.PayloadData(h.ProtoReflect())...)
	text = append(text, testsuite.PayloadData(dec.ProtoReflect())...)
	return strings.Join(text, "\n"), len(h.Events), nil
}
