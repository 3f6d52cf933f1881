package testsuite

import (
	"testing"

	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/converter"

	"github.com/slipway-dev/slipway/internal/codec"
)

// The leak search must see inside payloads, where data is base64 in JSON.
func TestPayloadDataFindsValuesDeepInHistory(t *testing.T) {
	p, err := converter.GetDefaultDataConverter().ToPayload(map[string]string{"password": "hunter2-xyz"})
	require.NoError(t, err)
	h := &historypb.History{Events: []*historypb.HistoryEvent{{
		Attributes: &historypb.HistoryEvent_ActivityTaskScheduledEventAttributes{
			ActivityTaskScheduledEventAttributes: &historypb.ActivityTaskScheduledEventAttributes{
				Input: &commonpb.Payloads{Payloads: []*commonpb.Payload{p}},
			},
		},
	}}}
	require.Contains(t, PayloadData(h.ProtoReflect())[0], "hunter2-xyz")
}

// DecodeHistory opens every encrypted payload, so the leak search can prove it
// would find a value the raw history hides.
func TestDecodeHistoryOpensEncryptedPayloads(t *testing.T) {
	line, err := codec.Generate("k1")
	require.NoError(t, err)
	keys, err := codec.Parse("test", line)
	require.NoError(t, err)
	p, err := codec.DataConverter(keys).ToPayload(map[string]string{"password": "hunter2-xyz"})
	require.NoError(t, err)
	h := &historypb.History{Events: []*historypb.HistoryEvent{{
		Attributes: &historypb.HistoryEvent_WorkflowExecutionStartedEventAttributes{
			WorkflowExecutionStartedEventAttributes: &historypb.WorkflowExecutionStartedEventAttributes{
				Input: &commonpb.Payloads{Payloads: []*commonpb.Payload{p}},
			},
		},
	}}}
	require.NotContains(t, PayloadData(h.ProtoReflect())[0], "hunter2-xyz")
	dec, err := DecodeHistory(h, codec.New(keys))
	require.NoError(t, err)
	require.Contains(t, PayloadData(dec.ProtoReflect())[0], "hunter2-xyz")
	require.NotContains(t, PayloadData(h.ProtoReflect())[0], "hunter2-xyz", "the original is left as it was")
}
