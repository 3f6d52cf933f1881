package testsuite

import (
	"testing"

	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/converter"
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
	require.Contains(t, payloadData(h.ProtoReflect())[0], "hunter2-xyz")
}
