package webhook

import "fmt"

// SignatureError: the delivery is not signed with the shared secret (HTTP 401).
// Its message never echoes the secret or the signature received.
type SignatureError struct{ Provider, Reason string }

func (e *SignatureError) Error() string {
	return fmt.Sprintf("%s webhook: %s", e.Provider, e.Reason)
}

// PayloadError: the body is not a webhook this server understands (HTTP 400).
type PayloadError struct {
	Provider string
	Err      error
}

func (e *PayloadError) Error() string {
	return fmt.Sprintf("%s webhook: malformed payload: %v", e.Provider, e.Err)
}
func (e *PayloadError) Unwrap() error { return e.Err }
