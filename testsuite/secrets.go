package testsuite

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/api/proxy"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/slipway-dev/slipway/internal/codec"
	"github.com/slipway-dev/slipway/internal/logging"
)

// Where SecretLeaks looks; a hit names one of these (histories add their workflow ID).
const (
	LeakRaw       = "(raw JSON)"         // the history as the server stores it: payloads, search attributes, memos
	LeakDecoded   = "(decoded payloads)" // the same history's payloads after decryption
	LeakGit       = "git"
	LeakWorkerLog = "worker log"
)

// SecretLeaks looks for each value in every workflow history of this env's task
// queue, raw (as JSON: inputs, results, signals, updates, search attributes, memos)
// and with its payloads decrypted, in the whole GitOps repository history and in
// the worker's log, and returns where each was found, e.g. "history ID (raw JSON)".
func (e *Env) SecretLeaks(t testing.TB, values []string) []string {
	t.Helper()
	type haystack struct{ where, text string }
	var haystacks []haystack
	codecFor := codec.New(e.Keyring(t))
	for id, h := range e.Histories(t) {
		data, err := protojson.Marshal(h)
		require.NoError(t, err)
		// Payload bytes are base64 in JSON: search their raw data as well.
		raw := string(data) + "\n" + strings.Join(PayloadData(h.ProtoReflect()), "\n")
		dec, err := DecodeHistory(h, codecFor)
		require.NoError(t, err, "decode history %s", id)
		haystacks = append(haystacks,
			haystack{"history " + id + " " + LeakRaw, raw},
			haystack{"history " + id + " " + LeakDecoded, strings.Join(PayloadData(dec.ProtoReflect()), "\n")})
	}
	if e.GitOpsRepo != "" {
		haystacks = append(haystacks, haystack{LeakGit, Git(t, e.GitOpsRepo, "log", "-p", "--all")})
	}
	haystacks = append(haystacks, haystack{LeakWorkerLog, e.WorkerLog()})
	var hits []string
	for _, v := range values {
		require.NotEmpty(t, v, "an empty value is found everywhere")
		for _, h := range haystacks {
			if strings.Contains(h.text, v) {
				hits = append(hits, h.where)
			}
		}
	}
	sort.Strings(hits)
	return hits
}

// Keyring is the payload key of this env's worker.
func (e *Env) Keyring(t testing.TB) *codec.Keyring {
	t.Helper()
	var (
		k   *codec.Keyring
		err error
	)
	if e.KeyFile != "" {
		k, err = codec.ParseFile(e.KeyFile)
	} else {
		k, err = codec.FromEnv()
	}
	require.NoError(t, err)
	return k
}

// Histories fetches every workflow history of this env's task queue by workflow
// ID, through a client with no codec: exactly what the server stores.
func (e *Env) Histories(t testing.TB) map[string]*historypb.History {
	t.Helper()
	c, err := client.Dial(client.Options{HostPort: e.Address, Logger: logging.NewTemporal(logging.Nop())})
	require.NoError(t, err)
	defer c.Close()
	resp, err := c.ListWorkflow(context.Background(), &workflowservice.ListWorkflowExecutionsRequest{
		Query: fmt.Sprintf("TaskQueue = '%s'", e.TaskQueue), PageSize: 1000,
	})
	require.NoError(t, err)
	require.NotEmpty(t, resp.Executions, "no workflows to search")
	out := map[string]*historypb.History{}
	for _, ex := range resp.Executions {
		id := ex.Execution.WorkflowId
		if _, seen := out[id]; !seen {
			out[id] = fetchHistory(t, c, id)
		}
	}
	return out
}

// DecodeHistory returns a copy of h with every payload decoded by c.
func DecodeHistory(h *historypb.History, c interface {
	Decode([]*commonpb.Payload) ([]*commonpb.Payload, error)
}) (*historypb.History, error) {
	out := proto.Clone(h).(*historypb.History)
	err := proxy.VisitPayloads(context.Background(), out, proxy.VisitPayloadsOptions{
		Visitor: func(_ *proxy.VisitPayloadsContext, ps []*commonpb.Payload) ([]*commonpb.Payload, error) {
			return c.Decode(ps)
		},
	})
	return out, err
}

// PlainPayloads lists, for every history of this env, each payload that carries
// data but is not encrypted (search attributes aside: the server must index
// those), and counts the encrypted ones by the message that holds them.
func (e *Env) PlainPayloads(t testing.TB) (plain []string, encrypted map[string]int) {
	t.Helper()
	encrypted = map[string]int{}
	for id, h := range e.Histories(t) {
		var server int
		require.NoError(t, CountPayloads(id, h, &plain, encrypted, &server))
	}
	return plain, encrypted
}

// notStarted is what the Temporal server itself writes, in the clear, as the details of an
// activity cancelled before any worker started it: no client or codec ever sees it.
const notStarted = `"ACTIVITY_ID_NOT_STARTED"`

// serverWritten reports whether p is a payload the server wrote itself, not one slipway encoded.
func serverWritten(ev *historypb.HistoryEvent, p *commonpb.Payload) bool {
	return ev.GetEventType() == enumspb.EVENT_TYPE_ACTIVITY_TASK_CANCELED &&
		string(p.GetMetadata()[codec.MetadataEncoding]) == "json/plain" && string(p.GetData()) == notStarted
}

// CountPayloads appends h's unencrypted payloads that carry data to plain and counts its
// encrypted ones by the message that holds them; search attributes are skipped, and the
// server's own ACTIVITY_ID_NOT_STARTED is counted in server, apart from both.
func CountPayloads(id string, h *historypb.History, plain *[]string, encrypted map[string]int, server *int) error {
	for _, ev := range h.Events {
		err := proxy.VisitPayloads(context.Background(), ev, proxy.VisitPayloadsOptions{
			SkipSearchAttributes: true,
			Visitor: func(vc *proxy.VisitPayloadsContext, ps []*commonpb.Payload) ([]*commonpb.Payload, error) {
				holder := "?"
				if vc.Parent != nil {
					holder = string(vc.Parent.ProtoReflect().Descriptor().Name())
				}
				for _, p := range ps {
					switch {
					case string(p.GetMetadata()[codec.MetadataEncoding]) == codec.EncodingEncrypted:
						encrypted[holder]++
					case serverWritten(ev, p):
						*server++
					case len(p.GetData()) > 0:
						*plain = append(*plain, fmt.Sprintf("%s event %d %s in %s: %s", id, ev.EventId, ev.EventType, holder, p.GetMetadata()[codec.MetadataEncoding]))
					}
				}
				return ps, nil
			},
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// PayloadData returns the raw data of every Payload inside m, however deep.
func PayloadData(m protoreflect.Message) []string {
	if p, ok := m.Interface().(*commonpb.Payload); ok {
		return []string{string(p.GetData())}
	}
	var out []string
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsList() && fd.Message() != nil:
			for i := 0; i < v.List().Len(); i++ {
				out = append(out, PayloadData(v.List().Get(i).Message())...)
			}
		case fd.IsMap() && fd.MapValue().Message() != nil:
			v.Map().Range(func(_ protoreflect.MapKey, mv protoreflect.Value) bool {
				out = append(out, PayloadData(mv.Message())...)
				return true
			})
		case fd.Message() != nil && !fd.IsList() && !fd.IsMap():
			out = append(out, PayloadData(v.Message())...)
		}
		return true
	})
	return out
}
