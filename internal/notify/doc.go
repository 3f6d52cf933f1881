// Package notify tells people and systems about instance transitions: an instance entering
// <Step>Failed, becoming Ready or Drifted, awaiting an approval, and a rollout batch ending.
//
// A notify config (Load, Parse) lists sinks — a signed JSON webhook, a Slack incoming
// webhook, or the forge itself (a commit status and an MR comment). Config.Match picks the
// sinks that want an event. A Temporal activity calls Sender.Deliver once per (sink, event):
// Deliver makes a single attempt and classifies its failure, so the activity can hand a
// permanent *DeliveryError (IsPermanent) to Temporal as non-retryable and let Temporal retry
// the rest. Sinks carry their secret, which never leaves the worker's process: pass a sink's
// name to the activity and look it up with Config.Sink, never the Sink itself (its JSON is
// redacted).
//
// # Webhook deliveries
//
// A webhook sink receives a POST whose body is the Event as JSON, with these headers:
//
//	X-Slipway-Delivery:  the event ID, the same on every retry of one transition
//	X-Slipway-Event:     the event kind (Failed, Ready, ...)
//	X-Slipway-Timestamp: the attempt's time, Unix seconds
//	X-Slipway-Signature: sha256=hex(HMAC-SHA256(secret, timestamp + "." + body))
//
// # Verifying a delivery (receiver side)
//
// A receiver holds the same secret (the sink's secretEnv) and, for each request:
//
//  1. reads the raw body, unparsed (re-encoding JSON changes the bytes and breaks the MAC);
//  2. calls Verify(secret, r.Header, body, time.Now(), 5*time.Minute), which recomputes the
//     MAC over timestamp + "." + body, compares it in constant time, refuses a timestamp
//     more than the tolerance away from now in either direction, and checks that the
//     delivery and event headers agree with the signed body (the headers themselves are
//     not signed, so Verify returns the ID from the body);
//  3. refuses a delivery ID it has already accepted: Replays.Seen(id) records the ID and
//     reports whether it was there. Because the timestamp is part of the MAC, an old request
//     replayed verbatim fails step 2 once the tolerance has passed, so Replays only needs to
//     remember IDs for a little longer than the tolerance.
//
// Answer a duplicate with 2xx, not an error: a retry arrives with the same ID when the
// receiver handled the first attempt but its answer was lost, and a 2xx is what stops the
// sender retrying. Each attempt is signed afresh with its own timestamp, so a retry hours
// later still verifies; only the ID stays the same. If handling fails after Seen, call
// Replays.Forget so the retry is accepted.
//
// In another language: HMAC-SHA256 with the secret as key over the bytes of the timestamp
// header, a '.', and the raw body; hex-encode it, prefix "sha256=", compare in constant time.
//
// # Responses
//
// 2xx is delivered. 408, 429, 5xx and network errors are transient (retry). Any other status
// is permanent, including 3xx: redirects are not followed, because following one would send a
// signed body to a URL nobody configured, and a moved endpoint needs a config change, not a retry.
package notify
