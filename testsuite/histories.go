package testsuite

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/slipway-dev/slipway/internal/codec"
)

// RecordEnv, when "1", makes e2e tests record new histories beside the committed ones that
// replay tests read: run `SLIPWAY_RECORD_HISTORIES=1 go test ./testsuite/e2e/`.
const RecordEnv = "SLIPWAY_RECORD_HISTORIES"

// HistoriesDir is testsuite/histories in the source tree.
func HistoriesDir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "histories")
}

// HistoryAttestKey is the attestation key histories are recorded with: their runs verified their
// requests with it, so a replay must verify with it too (as production keeps retired keys in the
// ring while runs they verified are open). It is a test key and nothing else.
const HistoryAttestKey = "c2xpcHdheS10ZXN0LWhpc3Rvcmllcy1hdHRlc3Qta2U="

// RecordHistories writes the history of workflowID and of every child it
// started to a new directory of HistoriesDir() named by HistoryDirName, when RecordEnv is set.
// Payloads are written decrypted (the test key is random per run), so replay needs no key.
func RecordHistories(t testing.TB, c client.Client, workflowID, name string) {
	t.Helper()
	if os.Getenv(RecordEnv) != "1" {
		return
	}
	dir := filepath.Join(HistoriesDir(), HistoryDirName(name, time.Now(), func(n string) bool {
		_, err := os.Stat(filepath.Join(HistoriesDir(), n))
		return err == nil
	}))
	require.NoError(t, os.Mkdir(dir, 0o755))
	h := fetchHistory(t, c, workflowID)
	writeHistory(t, filepath.Join(dir, "00-entity.json"), h)
	n := 0
	for _, ev := range h.Events {
		if a := ev.GetStartChildWorkflowExecutionInitiatedEventAttributes(); a != nil {
			n++
			child := fetchHistory(t, c, a.WorkflowId)
			writeHistory(t, filepath.Join(dir, fmt.Sprintf("%02d-%s.json", n, strings.ToLower(a.WorkflowType.GetName()))), child)
		}
	}
}

// HistoryDirName is the directory a recording of name goes to: name itself the first time, then
// name-<day>, then name-<day>-2, ... An older recording is never overwritten: it may be the only
// history that replays an old branch of a change (workflows.Changes), and goes only with that branch.
func HistoryDirName(name string, now time.Time, exists func(dir string) bool) string {
	if !exists(name) {
		return name
	}
	dated := name + "-" + now.UTC().Format("2006-01-02")
	dir := dated
	for n := 2; exists(dir); n++ {
		dir = fmt.Sprintf("%s-%d", dated, n)
	}
	return dir
}

func fetchHistory(t testing.TB, c client.Client, id string) *historypb.History {
	it := c.GetWorkflowHistory(context.Background(), id, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	h := &historypb.History{}
	for it.HasNext() {
		ev, err := it.Next()
		require.NoError(t, err)
		h.Events = append(h.Events, ev)
	}
	return h
}

func writeHistory(t testing.TB, path string, h *historypb.History) {
	keys, err := codec.FromEnv()
	require.NoError(t, err, "the test process's payload key")
	h, err = DecodeHistory(h, codec.New(keys))
	require.NoError(t, err)
	data, err := protojson.MarshalOptions{Indent: "  "}.Marshal(h)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, data, 0o644))
}
