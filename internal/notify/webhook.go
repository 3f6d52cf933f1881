package notify

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strconv"
)

// Webhook delivery headers. Only the timestamp is signed (with the body); Verify checks that
// the delivery and event headers agree with the signed body.
const (
	HeaderDelivery  = "X-Slipway-Delivery"
	HeaderEvent     = "X-Slipway-Event"
	HeaderTimestamp = "X-Slipway-Timestamp"
	HeaderSignature = "X-Slipway-Signature"
)

// signaturePrefix names the MAC algorithm in X-Slipway-Signature.
const signaturePrefix = "sha256="

// Sign returns the X-Slipway-Signature value for body sent at timestamp (Unix seconds, as
// the X-Slipway-Timestamp header carries it): "sha256=" + hex(HMAC-SHA256(secret,
// timestamp + "." + body)). Binding the timestamp in lets a receiver refuse old requests.
func Sign(secret []byte, timestamp string, body []byte) string {
	return signaturePrefix + hex.EncodeToString(mac(secret, timestamp, body))
}

func mac(secret []byte, timestamp string, body []byte) []byte {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(timestamp))
	m.Write([]byte{'.'})
	m.Write(body)
	return m.Sum(nil)
}

// deliverWebhook POSTs ev as JSON, signed with the sink's secret at the attempt's time.
func (s *Sender) deliverWebhook(ctx context.Context, sink Sink, ev Event) error {
	if sink.secret == "" {
		return permanent(sink, "the webhook sink has no secret (sinks come from Load or Parse)")
	}
	body, err := json.Marshal(ev)
	if err != nil {
		return permanent(sink, "cannot encode the event: "+err.Error())
	}
	ts := strconv.FormatInt(s.now().Unix(), 10)
	h := http.Header{}
	h.Set(HeaderDelivery, ev.ID)
	h.Set(HeaderEvent, string(ev.Kind))
	h.Set(HeaderTimestamp, ts)
	h.Set(HeaderSignature, Sign(sink.secret.bytes(), ts, body))
	return s.post(ctx, sink, body, h)
}
